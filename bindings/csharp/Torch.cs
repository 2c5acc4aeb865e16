// Library-wide functions: version, threads, leak counter, error state, seeds of the default
// generators.
using System;
using Ctorch.Swig;

namespace Ctorch
{
    /// <summary>Process-wide ctorch functions.</summary>
    public static partial class Torch
    {
        /// <summary>The version of the loaded native library (ct_version).</summary>
        public static Version Version
        {
            get
            {
                int major, minor, patch;
                Native.Check(ctorch.ct_version(out major, out minor, out patch));
                return new Version(major, minor, patch);
            }
        }

        /// <summary>The version of the header this binding was generated from
        /// (CT_VERSION_MAJOR/MINOR/PATCH).</summary>
        public static Version HeaderVersion =>
            new Version(ctorch.CT_VERSION_MAJOR, ctorch.CT_VERSION_MINOR, ctorch.CT_VERSION_PATCH);

        /// <summary>torch.get_num_threads() / torch.set_num_threads(n) (n >= 1).</summary>
        public static int NumThreads
        {
            get => Out.Get<int>(ctorch.ct_get_num_threads);
            set => Native.Check(ctorch.ct_set_num_threads(value));
        }

        /// <summary>Number of live native tensor handles in the process (for leak checks).</summary>
        public static long LiveTensorCount => Out.Get<long>(ctorch.ct_live_tensor_count);

        /// <summary>Number of live native stream handles (ct_live_stream_count, for leak checks).</summary>
        public static long LiveStreamCount => Out.Get<long>(ctorch.ct_live_stream_count);

        /// <summary>Number of live native event handles (ct_live_event_count, for leak checks).</summary>
        public static long LiveEventCount => Out.Get<long>(ctorch.ct_live_event_count);

        /// <summary>Number of live native CUDA graph handles (ct_live_cuda_graph_count, for leak
        /// checks).</summary>
        public static long LiveCudaGraphCount => Out.Get<long>(ctorch.ct_live_cuda_graph_count);

        /// <summary>Number of live native graphed-callable handles (ct_live_cuda_graphed_count, for
        /// leak checks).</summary>
        public static long LiveGraphedCallableCount => Out.Get<long>(ctorch.ct_live_cuda_graphed_count);

        /// <summary>Number of live native NCCL communicator handles (ct_live_nccl_comm_count, for
        /// leak checks; works without CUDA).</summary>
        public static long LiveNcclCommCount => Out.Get<long>(ctorch.ct_live_nccl_comm_count);

        /// <summary>Number of live native jitted functions (ct_live_cuda_jit_count, for leak checks;
        /// works without CUDA). A function with several references counts once.</summary>
        public static long LiveJitFunctionCount => Out.Get<long>(ctorch.ct_live_cuda_jit_count);

        // ---------------------------------------------------------------- random numbers

        /// <summary>torch.manual_seed(seed): seeds the default generator of the CPU and of every
        /// CUDA device (each starts again at offset 0). Every 64-bit value is a seed: a negative
        /// one stands for the same bits, as torch.manual_seed(-1).</summary>
        public static void ManualSeed(long seed) => Native.Check(ctorch.ct_manual_seed(seed));

        /// <summary>torch.seed(): seeds every default generator (CPU and CUDA) with one
        /// non-deterministic seed and returns it.</summary>
        public static long Seed() =>
            Out.Get<long>(ctorch.ct_seed);

        /// <summary>torch.initial_seed(): the seed of the CPU's default generator.</summary>
        public static long InitialSeed => Out.Get<long>(ctorch.ct_initial_seed);

        /// <summary>torch.get_rng_state(): the CPU default generator's state, 16 bytes (the seed,
        /// then the Philox offset), as <see cref="Generator.GetState"/>.</summary>
        public static byte[] GetRngState()
        {
            using (Generator g = Generator.Default(Device.Cpu)) return g.GetState();
        }

        /// <summary>torch.set_rng_state(state): restores the CPU default generator from
        /// <see cref="GetRngState"/>'s bytes (CtorchException, Argument, for anything but 16
        /// bytes with a valid offset).</summary>
        public static void SetRngState(byte[] state)
        {
            if (state == null) throw new ArgumentNullException(nameof(state));
            using (Generator g = Generator.Default(Device.Cpu)) g.SetState(state);
        }

        /// <summary>Number of live native generator handles (ct_live_generator_count, for leak
        /// checks). The default generators count only while a Generator object holds one.</summary>
        public static long LiveGeneratorCount => Out.Get<long>(ctorch.ct_live_generator_count);

        /// <summary>torch.promote_types(a, b).</summary>
        public static DType PromoteTypes(DType a, DType b) => DTypes.Promote(a, b);

        /// <summary>The C name of a status code (ct_status_name), e.g. "CT_ERR_SHAPE";
        /// "CT_UNKNOWN" for unknown codes.</summary>
        public static string StatusName(int code) => ctorch.ct_status_name(code);

        /// <summary>The C name of a status code.</summary>
        public static string StatusName(StatusCode code) => ctorch.ct_status_name((int)code);

        /// <summary>The status of the last failed ctorch call on this thread (Ok if none).
        /// The binding already turns failures into exceptions; this is for diagnostics.</summary>
        public static StatusCode LastErrorCode => (StatusCode)ctorch.ct_last_error_code();

        /// <summary>The message of the last failed ctorch call on this thread ("" if none),
        /// copied with ct_last_error_copy.</summary>
        public static unsafe string LastErrorMessage
        {
            get
            {
                long len = ctorch.ct_last_error_copy(IntPtr.Zero, 0);
                if (len <= 0) return "";
                var buf = new byte[len + 1];
                fixed (byte* p = buf)
                {
                    long len2 = ctorch.ct_last_error_copy((IntPtr)p, buf.Length);
                    return System.Text.Encoding.UTF8.GetString(buf, 0, (int)Math.Min(len, len2));
                }
            }
        }

        /// <summary>Clears this thread's last error (ct_clear_error).</summary>
        public static void ClearError() => ctorch.ct_clear_error();
    }
}
