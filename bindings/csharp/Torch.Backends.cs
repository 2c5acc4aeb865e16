// torch.backends.cuda.matmul: the process-wide switches of CUDA matrix products (section 17 of
// capi/ctorch.h), as Torch.Backends.Cuda.Matmul.AllowTf32 etc.
using System;
using Ctorch.Swig;

namespace Ctorch
{
    public static partial class Torch
    {
        /// <summary>torch.backends: process-wide settings of the backends.</summary>
        public static class Backends
        {
            /// <summary>torch.backends.cuda. (Inside this class the name Cuda means this class;
            /// elsewhere it is still <see cref="Ctorch.Cuda"/>.)</summary>
            public static class Cuda
            {
                /// <summary>torch.backends.cuda.matmul: how cuBLAS may compute float32, float16
                /// and bfloat16 products. Process-wide, for every thread and device. They change
                /// CUDA products only (CPU products ignore them: float32 products in float32,
                /// float16 and bfloat16 ones accumulated in float32 and rounded once), and can be
                /// read and set without a GPU.</summary>
                public static class Matmul
                {
                    /// <summary>torch.backends.cuda.matmul.allow_tf32 (default false): whether
                    /// float32 products on CUDA devices may use TF32 tensor cores (10 mantissa
                    /// bits per input, float32 accumulation; faster, less precise).</summary>
                    public static bool AllowTf32
                    {
                        get => Out.Get<int>(ctorch.ct_get_allow_tf32) != 0;
                        set => Native.Check(ctorch.ct_set_allow_tf32(value ? 1 : 0));
                    }

                    /// <summary>torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction
                    /// (default true): whether float16 products on CUDA devices may accumulate
                    /// partial sums in float16.</summary>
                    public static bool AllowFp16ReducedPrecisionReduction
                    {
                        get => Out.Get<int>(ctorch.ct_get_allow_fp16_reduced_precision_reduction) != 0;
                        set => Native.Check(ctorch.ct_set_allow_fp16_reduced_precision_reduction(value ? 1 : 0));
                    }

                    /// <summary>torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction
                    /// (default true): whether bfloat16 products on CUDA devices may accumulate
                    /// partial sums in bfloat16.</summary>
                    public static bool AllowBf16ReducedPrecisionReduction
                    {
                        get => Out.Get<int>(ctorch.ct_get_allow_bf16_reduced_precision_reduction) != 0;
                        set => Native.Check(ctorch.ct_set_allow_bf16_reduced_precision_reduction(value ? 1 : 0));
                    }
                }
            }
        }
    }
}
