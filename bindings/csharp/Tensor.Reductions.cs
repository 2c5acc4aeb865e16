// Reductions: sum/mean/prod/amax/amin over dims with keepdim and dtype, max/min (all and per
// dim with indices), argmax/argmin, norm.
using System;
using Ctorch.Swig;

namespace Ctorch
{
    public sealed partial class Tensor
    {
        private Tensor Reduce(int op, long[] dims, bool keepdim, DType? dtype)
        {
            using (var a = Use())
            {
                IntPtr r;
                Native.Check(ctorch.ct_reduce(op, a.Ptr, dims, Native.Rank(dims), keepdim ? 1 : 0, DTypes.Code(dtype), out r));
                return Own(r);
            }
        }

        private static long[] Dims(long[] dims, string name)
        {
            if (dims == null) throw new ArgumentNullException(name);
            return dims;
        }

        /// <summary>torch.sum(t, dtype=) over all elements (bool and integer inputs give int64).</summary>
        public Tensor Sum(DType? dtype = null) => Reduce(ReduceOp.Sum, null, false, dtype);
        /// <summary>torch.sum(t, dims, keepdim, dtype=).</summary>
        public Tensor Sum(long[] dims, bool keepdim = false, DType? dtype = null) => Reduce(ReduceOp.Sum, Dims(dims, nameof(dims)), keepdim, dtype);
        /// <summary>torch.sum(t, dim, keepdim, dtype=).</summary>
        public Tensor Sum(int dim, bool keepdim = false, DType? dtype = null) => Reduce(ReduceOp.Sum, new long[] { dim }, keepdim, dtype);

        /// <summary>torch.mean(t, dtype=): floating or complex inputs only.</summary>
        public Tensor Mean(DType? dtype = null) => Reduce(ReduceOp.Mean, null, false, dtype);
        /// <summary>torch.mean(t, dims, keepdim, dtype=).</summary>
        public Tensor Mean(long[] dims, bool keepdim = false, DType? dtype = null) => Reduce(ReduceOp.Mean, Dims(dims, nameof(dims)), keepdim, dtype);
        /// <summary>torch.mean(t, dim, keepdim, dtype=).</summary>
        public Tensor Mean(int dim, bool keepdim = false, DType? dtype = null) => Reduce(ReduceOp.Mean, new long[] { dim }, keepdim, dtype);

        /// <summary>torch.prod(t, dtype=) (bool and integer inputs give int64).</summary>
        public Tensor Prod(DType? dtype = null) => Reduce(ReduceOp.Prod, null, false, dtype);
        /// <summary>torch.prod over dims.</summary>
        public Tensor Prod(long[] dims, bool keepdim = false, DType? dtype = null) => Reduce(ReduceOp.Prod, Dims(dims, nameof(dims)), keepdim, dtype);
        /// <summary>torch.prod(t, dim, keepdim, dtype=).</summary>
        public Tensor Prod(int dim, bool keepdim = false, DType? dtype = null) => Reduce(ReduceOp.Prod, new long[] { dim }, keepdim, dtype);

        /// <summary>torch.amax(t): the maximum over all elements (NaN propagates).</summary>
        public Tensor Amax() => Reduce(ReduceOp.Amax, null, false, null);
        /// <summary>torch.amax(t, dims, keepdim).</summary>
        public Tensor Amax(long[] dims, bool keepdim = false) => Reduce(ReduceOp.Amax, Dims(dims, nameof(dims)), keepdim, null);
        /// <summary>torch.amax(t, dim, keepdim).</summary>
        public Tensor Amax(int dim, bool keepdim = false) => Reduce(ReduceOp.Amax, new long[] { dim }, keepdim, null);

        /// <summary>torch.amin(t).</summary>
        public Tensor Amin() => Reduce(ReduceOp.Amin, null, false, null);
        /// <summary>torch.amin(t, dims, keepdim).</summary>
        public Tensor Amin(long[] dims, bool keepdim = false) => Reduce(ReduceOp.Amin, Dims(dims, nameof(dims)), keepdim, null);
        /// <summary>torch.amin(t, dim, keepdim).</summary>
        public Tensor Amin(int dim, bool keepdim = false) => Reduce(ReduceOp.Amin, new long[] { dim }, keepdim, null);

        /// <summary>torch.max(t): a 0-dim tensor with the maximum of all elements.</summary>
        public Tensor Max()
        {
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_max(a.Ptr, out r)); return Own(r); }
        }

        /// <summary>torch.min(t): a 0-dim tensor with the minimum of all elements.</summary>
        public Tensor Min()
        {
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_min(a.Ptr, out r)); return Own(r); }
        }

        /// <summary>torch.max(t, dim, keepdim): the values and their int64 indices (first
        /// occurrence). Both tensors are the caller's to dispose.</summary>
        public (Tensor Values, Tensor Indices) Max(int dim, bool keepdim = false)
        {
            using (var a = Use())
            {
                IntPtr v, i;
                Native.Check(ctorch.ct_max_dim(a.Ptr, dim, keepdim ? 1 : 0, out v, out i));
                return (Own(v), Own(i));
            }
        }

        /// <summary>torch.min(t, dim, keepdim): the values and their int64 indices.</summary>
        public (Tensor Values, Tensor Indices) Min(int dim, bool keepdim = false)
        {
            using (var a = Use())
            {
                IntPtr v, i;
                Native.Check(ctorch.ct_min_dim(a.Ptr, dim, keepdim ? 1 : 0, out v, out i));
                return (Own(v), Own(i));
            }
        }

        /// <summary>torch.max(t, other): same as <see cref="Maximum(Tensor)"/>.</summary>
        public Tensor Max(Tensor other) => Maximum(other);

        /// <summary>torch.min(t, other): same as <see cref="Minimum(Tensor)"/>.</summary>
        public Tensor Min(Tensor other) => Minimum(other);

        /// <summary>torch.argmax(t): the flat index of the maximum (a 0-dim int64 tensor).</summary>
        public Tensor ArgMax()
        {
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_argmax(a.Ptr, 0, 0, 0, out r)); return Own(r); }
        }

        /// <summary>torch.argmax(t, dim, keepdim).</summary>
        public Tensor ArgMax(int dim, bool keepdim = false)
        {
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_argmax(a.Ptr, 1, dim, keepdim ? 1 : 0, out r)); return Own(r); }
        }

        /// <summary>torch.argmin(t).</summary>
        public Tensor ArgMin()
        {
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_argmin(a.Ptr, 0, 0, 0, out r)); return Own(r); }
        }

        /// <summary>torch.argmin(t, dim, keepdim).</summary>
        public Tensor ArgMin(int dim, bool keepdim = false)
        {
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_argmin(a.Ptr, 1, dim, keepdim ? 1 : 0, out r)); return Own(r); }
        }

        /// <summary>torch.linalg.vector_norm(t, ord=p) over all elements; p may be any real or
        /// ±infinity. Floating or complex inputs only.</summary>
        public Tensor Norm(double p = 2.0)
        {
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_norm(a.Ptr, p, null, 0, 0, out r)); return Own(r); }
        }

        /// <summary>torch.linalg.vector_norm(t, ord=p, dim=dims, keepdim).</summary>
        public Tensor Norm(double p, long[] dims, bool keepdim = false)
        {
            Dims(dims, nameof(dims));
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_norm(a.Ptr, p, dims, dims.Length, keepdim ? 1 : 0, out r)); return Own(r); }
        }

        /// <summary>torch.linalg.vector_norm(t, ord=p, dim=dim, keepdim).</summary>
        public Tensor Norm(double p, int dim, bool keepdim = false) => Norm(p, new long[] { dim }, keepdim);
    }
}
