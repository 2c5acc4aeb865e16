// torch.cuda's random number functions: manual_seed(_all), seed(_all), initial_seed,
// get/set_rng_state(_all), default_generators (section 16 of capi/ctorch.h).
using System;
using System.Collections.Generic;
using Ctorch.Swig;

namespace Ctorch
{
    public static partial class Cuda
    {
        /// <summary>torch.cuda.manual_seed(seed): seeds the current device's default generator
        /// (offset 0). Without CUDA it does nothing, as in torch.</summary>
        public static void ManualSeed(long seed) => Native.Check(ctorch.ct_cuda_manual_seed(seed));

        /// <summary>torch.cuda.manual_seed_all(seed): seeds every CUDA device's default generator.
        /// Without CUDA it does nothing.</summary>
        public static void ManualSeedAll(long seed) => Native.Check(ctorch.ct_cuda_manual_seed_all(seed));

        /// <summary>torch.cuda.seed(): a non-deterministic seed for the current device's default
        /// generator (read it back with <see cref="InitialSeed"/>). Without CUDA it does nothing.</summary>
        public static void Seed() => Native.Check(ctorch.ct_cuda_seed());

        /// <summary>torch.cuda.seed_all(): one non-deterministic seed for every CUDA device's
        /// default generator. Without CUDA it does nothing.</summary>
        public static void SeedAll() => Native.Check(ctorch.ct_cuda_seed_all());

        /// <summary>torch.cuda.initial_seed(): the seed of the current device's default generator.
        /// CtorchException (CudaUnavailable) without a GPU.</summary>
        public static long InitialSeed => Out.Get<long>(ctorch.ct_cuda_initial_seed);

        /// <summary>torch.cuda.default_generators[device] (-1: the current device): the generator
        /// that random ops on that device use when they get none. A new object to dispose; the
        /// generator lives for the whole process. CtorchException (CudaUnavailable) without a GPU,
        /// (Index) for a device that is not visible.</summary>
        public static Generator DefaultGenerator(int device = -1)
        {
            IntPtr r;
            Native.Check(ctorch.ct_default_generator((int)DeviceType.Cuda, device, out r));
            return new Generator(new GeneratorHandle(r, true));
        }

        /// <summary>torch.cuda.get_rng_state(device) (-1: the current device): 16 bytes, the seed
        /// then the Philox offset, as <see cref="Generator.GetState"/>. CtorchException
        /// (CudaUnavailable) without a GPU.</summary>
        public static byte[] GetRngState(int device = -1) =>
            Native.GetBytes((IntPtr buf, long cap, out long needed) =>
                ctorch.ct_cuda_get_rng_state(device, buf, cap, out needed), Generator.StateSize);

        /// <summary>torch.cuda.get_rng_state("cuda:N"); "cuda" is the current device.</summary>
        public static byte[] GetRngState(Device device) => GetRngState(IndexOf(device, nameof(device)));

        /// <summary>torch.cuda.set_rng_state(state, device) (-1: the current device) with bytes
        /// from <see cref="GetRngState(int)"/> or <see cref="Generator.GetState"/>. A length
        /// other than 16 or an invalid offset is CtorchException (Argument); without a GPU
        /// (CudaUnavailable).</summary>
        public static void SetRngState(byte[] state, int device = -1)
        {
            if (state == null) throw new ArgumentNullException(nameof(state));
            Native.PassBytes(state, (data, len) => ctorch.ct_cuda_set_rng_state(data, len, device));
        }

        /// <summary>torch.cuda.set_rng_state(state, "cuda:N").</summary>
        public static void SetRngState(byte[] state, Device device) => SetRngState(state, IndexOf(device, nameof(device)));

        /// <summary>torch.cuda.get_rng_state_all(): one 16-byte state per CUDA device, in device
        /// order (an empty array without a GPU).</summary>
        public static byte[][] GetRngStateAll()
        {
            byte[] all = Native.GetBytes((IntPtr buf, long cap, out long needed) =>
                ctorch.ct_cuda_get_rng_state_all(buf, cap, out needed), 0);
            int size = Generator.StateSize;
            var r = new byte[all.Length / size][];
            for (int i = 0; i < r.Length; i++)
            {
                r[i] = new byte[size];
                Array.Copy(all, i * size, r[i], 0, size);
            }
            return r;
        }

        /// <summary>torch.cuda.set_rng_state_all(states): one state per CUDA device, in device
        /// order, as <see cref="GetRngStateAll"/> returns them. A count other than
        /// <see cref="DeviceCount"/> or an invalid offset is CtorchException (Argument), and then
        /// no generator changes; a null element or one that is not 16 bytes long is
        /// ArgumentException. Without a GPU only an empty list is accepted (and changes nothing).</summary>
        public static void SetRngStateAll(IEnumerable<byte[]> states)
        {
            if (states == null) throw new ArgumentNullException(nameof(states));
            int size = Generator.StateSize;
            var all = new List<byte>();
            int i = 0;
            foreach (byte[] s in states)
            {
                if (s == null) throw new ArgumentNullException(nameof(states), "state " + i + " is null");
                if (s.Length != size)
                    throw new ArgumentException("state " + i + " has " + s.Length + " bytes, expected " + size, nameof(states));
                all.AddRange(s);
                i++;
            }
            Native.PassBytes(all.ToArray(), (data, len) => ctorch.ct_cuda_set_rng_state_all(data, len));
        }
    }
}
