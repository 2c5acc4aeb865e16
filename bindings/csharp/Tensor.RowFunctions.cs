// Row functions (ctorch.h section 32): softmax, log_softmax, logsumexp, var/std and their
// _mean forms, linalg.matrix_norm and layer_norm. Values, dtype rules and PyTorch's messages
// are the C library's (docs/rowfuncs.md).
using System;
using Ctorch.Swig;

namespace Ctorch
{
    public sealed partial class Tensor
    {
        /// <summary>torch.softmax(t, dim, dtype=): exp(x - max) / sum(exp(x - max)) along dim.
        /// With dtype the input is converted to it first; without, the result has t's dtype
        /// (float16/bfloat16 computed in float32). A non-floating result dtype throws
        /// CtorchException (CT_ERR_DTYPE).</summary>
        public Tensor Softmax(int dim, DType? dtype = null)
        {
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_softmax(a.Ptr, dim, DTypes.Code(dtype), out r)); return Own(r); }
        }

        /// <summary>torch.log_softmax(t, dim, dtype=), with <see cref="Softmax"/>'s dtype rules.</summary>
        public Tensor LogSoftmax(int dim, DType? dtype = null)
        {
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_log_softmax(a.Ptr, dim, DTypes.Code(dtype), out r)); return Own(r); }
        }

        /// <summary>torch.logsumexp(t, dims, keepdim); null dims: all. Bool and integer inputs
        /// give float32; complex inputs are not supported.</summary>
        public Tensor LogSumExp(long[] dims = null, bool keepdim = false)
        {
            using (var a = Use())
            {
                IntPtr r;
                Native.Check(ctorch.ct_logsumexp(a.Ptr, dims, Native.Rank(dims), keepdim ? 1 : 0, out r));
                return Own(r);
            }
        }

        /// <summary>torch.logsumexp(t, dim, keepdim).</summary>
        public Tensor LogSumExp(int dim, bool keepdim = false) => LogSumExp(new long[] { dim }, keepdim);

        private Tensor Variance(long[] dims, double correction, bool keepdim, bool std)
        {
            using (var a = Use())
            {
                IntPtr r;
                int rank = Native.Rank(dims), k = keepdim ? 1 : 0;
                Native.Check(std ? ctorch.ct_std(a.Ptr, dims, rank, correction, k, out r)
                                 : ctorch.ct_var(a.Ptr, dims, rank, correction, k, out r));
                return Own(r);
            }
        }

        private (Tensor, Tensor) VarianceMean(long[] dims, double correction, bool keepdim, bool std)
        {
            using (var a = Use())
            {
                IntPtr v, m;
                int rank = Native.Rank(dims), k = keepdim ? 1 : 0;
                Native.Check(std ? ctorch.ct_std_mean(a.Ptr, dims, rank, correction, k, out v, out m)
                                 : ctorch.ct_var_mean(a.Ptr, dims, rank, correction, k, out v, out m));
                return (Own(v), Own(m));
            }
        }

        /// <summary>torch.var(t, dims, correction=, keepdim): the sum of squared deviations over
        /// max(0, N - correction); null dims: all; correction 1 is PyTorch's default. Complex
        /// inputs give the real dtype; bool and integer inputs throw (CT_ERR_DTYPE).</summary>
        public Tensor Var(long[] dims = null, double correction = 1, bool keepdim = false) => Variance(dims, correction, keepdim, false);

        /// <summary>torch.std(t, dims, correction=, keepdim): the square root of <see cref="Var"/>.</summary>
        public Tensor Std(long[] dims = null, double correction = 1, bool keepdim = false) => Variance(dims, correction, keepdim, true);

        /// <summary>torch.var_mean: the variance and the mean (in t's dtype), both the caller's
        /// to dispose.</summary>
        public (Tensor Var, Tensor Mean) VarMean(long[] dims = null, double correction = 1, bool keepdim = false) =>
            VarianceMean(dims, correction, keepdim, false);

        /// <summary>torch.std_mean: the standard deviation and the mean.</summary>
        public (Tensor Std, Tensor Mean) StdMean(long[] dims = null, double correction = 1, bool keepdim = false) =>
            VarianceMean(dims, correction, keepdim, true);

        /// <summary>torch.linalg.matrix_norm(t, ord, dim=(dim0, dim1), keepdim) for ord 1, -1,
        /// +infinity and -infinity; 2 and -2 (singular values) throw CT_ERR_NOT_SUPPORTED.</summary>
        public Tensor MatrixNorm(double ord, int dim0 = -2, int dim1 = -1, bool keepdim = false)
        {
            using (var a = Use())
            {
                IntPtr r;
                Native.Check(ctorch.ct_matrix_norm(a.Ptr, ord, dim0, dim1, keepdim ? 1 : 0, out r));
                return Own(r);
            }
        }

        /// <summary>torch.linalg.matrix_norm(t, ord="fro" | "nuc", dim, keepdim) (torch.norm(t,
        /// "fro", dim) too); "nuc" throws CT_ERR_NOT_SUPPORTED.</summary>
        public Tensor MatrixNorm(string ord = "fro", int dim0 = -2, int dim1 = -1, bool keepdim = false)
        {
            if (ord == null) throw new ArgumentNullException(nameof(ord));
            using (var a = Use())
            {
                IntPtr r;
                Native.Check(ctorch.ct_matrix_norm_str(a.Ptr, ord, dim0, dim1, keepdim ? 1 : 0, out r));
                return Own(r);
            }
        }

        /// <summary>torch.nn.functional.layer_norm(t, normalizedShape, weight, bias, eps) over
        /// the last normalizedShape.Length dims; weight and bias may be null. The result has
        /// t's dtype.</summary>
        public Tensor LayerNorm(long[] normalizedShape, Tensor weight = null, Tensor bias = null, double eps = 1e-5)
        {
            if (normalizedShape == null) throw new ArgumentNullException(nameof(normalizedShape));
            using (var a = Use())
            using (var w = (object)weight == null ? default(Lease) : new Lease(weight, nameof(weight)))
            using (var b = (object)bias == null ? default(Lease) : new Lease(bias, nameof(bias)))
            {
                IntPtr r;
                Native.Check(ctorch.ct_layer_norm(a.Ptr, normalizedShape, normalizedShape.Length, w.Ptr, b.Ptr, eps, out r));
                return Own(r);
            }
        }
    }
}
