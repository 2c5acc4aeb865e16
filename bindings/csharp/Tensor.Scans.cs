// Scans along one dim (ctorch.h section 28): torch.cumsum, cumprod, cummax, cummin,
// logcumsumexp. dim wraps as in PyTorch (-1 is the last); results are new contiguous tensors of
// this tensor's shape. Errors (CtorchException subclasses by status): IndexOutOfRange for a bad
// dim, the dtype error for dtypes PyTorch refuses, with its messages.
using System;
using Ctorch.Swig;

namespace Ctorch
{
    public sealed partial class Tensor
    {
        /// <summary>torch.cumsum(t, dim, dtype=): int64 for bool and integer inputs unless dtype
        /// is given, which is the result's dtype (the input is cast to it first).</summary>
        public Tensor Cumsum(long dim, DType? dtype = null)
        {
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_cumsum(a.Ptr, dim, DTypes.Code(dtype), out r)); return Own(r); }
        }

        /// <summary>torch.cumprod(t, dim, dtype=), with the dtype rules of <see cref="Cumsum"/>.</summary>
        public Tensor Cumprod(long dim, DType? dtype = null)
        {
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_cumprod(a.Ptr, dim, DTypes.Code(dtype), out r)); return Own(r); }
        }

        /// <summary>torch.cummax(t, dim): the running maximum and the int64 index it came from (the
        /// last of equal maxima; a NaN, once seen, stays, with the index of the last NaN). Both
        /// tensors are the caller's to dispose.</summary>
        public (Tensor Values, Tensor Indices) Cummax(long dim)
        {
            using (var a = Use())
            {
                IntPtr v, i;
                Native.Check(ctorch.ct_cummax(a.Ptr, dim, out v, out i));
                return (Own(v), Own(i));
            }
        }

        /// <summary>torch.cummin(t, dim): as <see cref="Cummax"/> with the minimum.</summary>
        public (Tensor Values, Tensor Indices) Cummin(long dim)
        {
            using (var a = Use())
            {
                IntPtr v, i;
                Native.Check(ctorch.ct_cummin(a.Ptr, dim, out v, out i));
                return (Own(v), Own(i));
            }
        }

        /// <summary>torch.logcumsumexp(t, dim): log(cumsum(exp(t))) computed stably; floating and
        /// complex inputs.</summary>
        public Tensor Logcumsumexp(long dim)
        {
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_logcumsumexp(a.Ptr, dim, out r)); return Own(r); }
        }
    }
}
