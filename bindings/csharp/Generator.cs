// torch.Generator: random number generators (section 16 of capi/ctorch.h).
using System;
using System.Runtime.InteropServices;
using Ctorch.Swig;

namespace Ctorch
{
    /// <summary>One counted reference to a native generator (a <c>ct_generator</c>), released by
    /// <c>ct_generator_release</c> (see <see cref="NativeHandle"/>).</summary>
    public sealed class GeneratorHandle : NativeHandle
    {
        /// <inheritdoc cref="NativeHandle(IntPtr, bool)"/>
        public GeneratorHandle(IntPtr preexistingHandle, bool ownsHandle) : base(preexistingHandle, ownsHandle) { }

        protected override void Release(IntPtr h) => ctorch.ct_generator_release(h);
    }

    /// <summary>
    /// A random number generator, as torch.Generator: a Philox4x32-10 state (a 64-bit seed and
    /// an offset) on a device. Every random op (<see cref="Tensor.Rand(long[], Generator)"/>,
    /// <see cref="Tensor.Uniform_"/>, ...) takes an optional Generator; null means the default
    /// generator of the tensor's device, which <see cref="Torch.ManualSeed"/> and
    /// <see cref="Cuda.ManualSeed"/> seed. A CPU generator draws the same values a CUDA one would
    /// (docs/csharp.md, "Random numbers"), and its state is the same 16 bytes.
    /// Each Generator object owns one reference to a native generator through its
    /// <see cref="GeneratorHandle"/>; <see cref="Dispose"/> releases it (the handle's finalizer
    /// does otherwise). Generators may be used from several threads at once.
    /// </summary>
    public sealed class Generator : NativeObject<GeneratorHandle>
    {

        /// <summary>CT_RNG_STATE_SIZE: the size of <see cref="GetState"/>'s bytes (16: the seed,
        /// then the Philox offset, both 64-bit little-endian, as torch.cuda.get_rng_state).</summary>
        public static int StateSize => ctorch.CT_RNG_STATE_SIZE;

        /// <summary>CT_DEFAULT_SEED: the seed every generator starts with (PyTorch's
        /// 67280421310721).</summary>
        public static long DefaultSeed => ctorch.CT_DEFAULT_SEED;

        /// <summary>Wraps a handle; the Generator takes over its disposal.</summary>
        public Generator(GeneratorHandle handle) : base(handle, "generator", "Generator") { }

        /// <summary>torch.Generator(): a new CPU generator seeded with <see cref="DefaultSeed"/>.</summary>
        public Generator() : this(Device.Cpu) { }

        /// <summary>torch.Generator(device): a new generator for device ("cuda" without an index:
        /// the current CUDA device), seeded with <see cref="DefaultSeed"/>. A CUDA device without
        /// a GPU throws CtorchException (CudaUnavailable).</summary>
        public Generator(Device device) : this(NewHandle(device)) { }

        private static GeneratorHandle NewHandle(Device device)
        {
            IntPtr r;
            Native.Check(ctorch.ct_generator_create((int)device.Type, device.Index, out r));
            return new GeneratorHandle(r, true);
        }

        /// <summary>Same as the constructor: a new generator for device (null: the CPU).</summary>
        public static Generator Create(Device? device = null) => new Generator(device ?? Device.Cpu);

        /// <summary>The default generator of a device (null: the CPU), the one that random ops use
        /// when they get no generator: torch.default_generator, or
        /// torch.cuda.default_generators[i] ("cuda" without an index: the current device). Returns
        /// a new object to dispose; the generator itself lives for the whole process.</summary>
        public static Generator Default(Device? device = null)
        {
            Device d = device ?? Device.Cpu;
            IntPtr r;
            Native.Check(ctorch.ct_default_generator((int)d.Type, d.Index, out r));
            return new Generator(new GeneratorHandle(r, true));
        }

        /// <summary>A Generator for a raw ct_generator handle that owns one reference (for interop
        /// with code using the C API).</summary>
        public static Generator FromHandle(IntPtr handle) => new Generator(new GeneratorHandle(handle, true));

        // NULL (the default generator of the tensor's device) for a null Generator.
        /// <summary>Another Generator object for the same native generator (ct_generator_retain
        /// adds a reference): disposing one leaves the other usable; both draw from one state.</summary>
        public Generator NewReference()
        {
            using (var a = Use())
            {
                Native.Check(ctorch.ct_generator_retain(a.Ptr));
                return new Generator(new GeneratorHandle(a.Ptr, true));
            }
        }

        // ---------------------------------------------------------------- properties

        /// <summary>generator.device: "cpu" or "cuda:N".</summary>
        public Device Device
        {
            get { using (var a = Use()) return Ctorch.Device.Of(ctorch.ct_generator_device, a.Ptr); }
        }

        /// <summary>generator.initial_seed(): the seed last set (by <see cref="ManualSeed"/>,
        /// <see cref="Seed"/> or <see cref="SetState"/>). Seeds above long.MaxValue read as
        /// negative numbers with the same 64 bits.</summary>
        public long InitialSeed
        {
            get { using (var a = Use()) return Out.Get<long>(ctorch.ct_generator_initial_seed, a.Ptr); }
        }

        /// <summary>The Philox offset, in 32-bit values (torch.cuda's philox offset): 0 after a
        /// seed, advanced by a multiple of 4 by every random op (4 for small tensors).</summary>
        public long Offset
        {
            get { using (var a = Use()) return Out.Get<long>(ctorch.ct_generator_offset, a.Ptr); }
        }

        // ---------------------------------------------------------------- seeding and state

        /// <summary>generator.manual_seed(seed): sets the seed and starts the offset again at 0.
        /// Every 64-bit value is a seed: a negative one stands for the same bits (as
        /// torch.manual_seed(-1)); for an unsigned seed s pass <c>unchecked((long)s)</c>.
        /// Returns this.</summary>
        public Generator ManualSeed(long seed)
        {
            using (var a = Use()) Native.Check(ctorch.ct_generator_manual_seed(a.Ptr, seed));
            return this;
        }

        /// <summary>generator.seed(): sets a non-deterministic seed (offset 0) and returns it.</summary>
        public long Seed()
        {
            using (var a = Use()) return Out.Get<long>(ctorch.ct_generator_seed, a.Ptr);
        }

        /// <summary>generator.get_state(): <see cref="StateSize"/> (16) bytes, the seed then the
        /// offset (64-bit little-endian each). <see cref="SetState"/> with them makes the
        /// generator draw the same values again.</summary>
        public byte[] GetState()
        {
            using (var a = Use())
            {
                IntPtr g = a.Ptr;
                return Native.GetBytes((IntPtr buf, long cap, out long needed) =>
                    ctorch.ct_generator_get_state(g, buf, cap, out needed), StateSize);
            }
        }

        /// <summary>generator.set_state(state) with bytes from <see cref="GetState"/> (or
        /// <see cref="Cuda.GetRngState(int)"/>: both devices use one format). A length other than
        /// 16, or an offset that is negative or not a multiple of 4, is CtorchException
        /// (Argument) and changes nothing. Returns this.</summary>
        public Generator SetState(byte[] state)
        {
            if (state == null) throw new ArgumentNullException(nameof(state));
            using (var a = Use())
            {
                IntPtr g = a.Ptr;
                Native.PassBytes(state, (data, len) => ctorch.ct_generator_set_state(g, data, len));
            }
            return this;
        }

        /// <summary>"&lt;torch.Generator device=cpu&gt;" (the device of a CUDA generator as
        /// "cuda:N").</summary>
        public override string ToString()
        {
            if (IsDisposed) return "Generator(disposed)";
            try
            {
                return "<torch.Generator device=" + Device + ">";
            }
            catch (ObjectDisposedException)
            {
                return "Generator(disposed)";   // disposed by another thread during the call
            }
            catch (CtorchException e)
            {
                return "Generator(" + e.StatusName + ")";
            }
        }
    }
}
