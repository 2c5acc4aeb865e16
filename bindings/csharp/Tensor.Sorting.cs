// Sorting and selection (ctorch.h section 29): sort, argsort, topk, kthvalue, unique,
// searchsorted. NaN sorts after everything, -0.0 equals 0.0, and sorts are always stable, so CPU
// and CUDA give the same values and indices (int64).
using System;
using Ctorch.Swig;

namespace Ctorch
{
    public sealed partial class Tensor
    {
        /// <summary>torch.sort(t, dim, descending, stable): the sorted values and the int64
        /// positions they came from, both shaped like t and the caller's to dispose.</summary>
        public (Tensor Values, Tensor Indices) Sort(long dim = -1, bool descending = false, bool stable = false)
        {
            using (var a = Use())
            {
                IntPtr v, i;
                Native.Check(ctorch.ct_sort(a.Ptr, dim, descending ? 1 : 0, stable ? 1 : 0, out v, out i));
                return (Own(v), Own(i));
            }
        }

        /// <summary>torch.argsort(t, dim, descending, stable): the indices of Sort alone.</summary>
        public Tensor Argsort(long dim = -1, bool descending = false, bool stable = false)
        {
            using (var a = Use())
            {
                IntPtr r;
                Native.Check(ctorch.ct_argsort(a.Ptr, dim, descending ? 1 : 0, stable ? 1 : 0, out r));
                return Own(r);
            }
        }

        /// <summary>torch.topk(t, k, dim, largest, sorted): the k largest (smallest) elements
        /// along dim, in order, and their int64 positions. CtorchException (Index) "selected
        /// index k out of range".</summary>
        public (Tensor Values, Tensor Indices) TopK(long k, long dim = -1, bool largest = true, bool sorted = true)
        {
            using (var a = Use())
            {
                IntPtr v, i;
                Native.Check(ctorch.ct_topk(a.Ptr, k, dim, largest ? 1 : 0, sorted ? 1 : 0, out v, out i));
                return (Own(v), Own(i));
            }
        }

        /// <summary>torch.kthvalue(t, k, dim, keepdim): the k-th smallest element along dim (k
        /// from 1) and its int64 position.</summary>
        public (Tensor Values, Tensor Indices) KthValue(long k, long dim = -1, bool keepdim = false)
        {
            using (var a = Use())
            {
                IntPtr v, i;
                Native.Check(ctorch.ct_kthvalue(a.Ptr, k, dim, keepdim ? 1 : 0, out v, out i));
                return (Own(v), Own(i));
            }
        }

        /// <summary>torch.unique(t, sorted=True, return_inverse, return_counts) over the flattened
        /// tensor: the distinct elements in ascending order (each NaN distinct); Inverse (int64,
        /// t's shape) and Counts (int64) are null unless asked for. The caller disposes every
        /// non-null result.</summary>
        public (Tensor Values, Tensor Inverse, Tensor Counts) Unique(bool returnInverse = false, bool returnCounts = false)
        {
            using (var a = Use())
            {
                IntPtr v, i, c;
                Native.Check(ctorch.ct_unique(a.Ptr, 1, returnInverse ? 1 : 0, returnCounts ? 1 : 0, out v, out i, out c));
                return (Own(v), returnInverse ? Own(i) : null, returnCounts ? Own(c) : null);
            }
        }

        /// <summary>torch.searchsorted(this, values, out_int32, right, side, sorter) with this the
        /// sorted sequence (1-D, or the leading dims of values): where each element of values
        /// would be inserted into its row to keep it sorted (right or side "right": after equal
        /// elements). side null: not given; sorter (null: none) holds the int64 positions that
        /// sort this. int64 result, int32 with outInt32.</summary>
        public Tensor SearchSorted(Tensor values, bool outInt32 = false, bool right = false, string side = null,
                                   Tensor sorter = null)
        {
            using (var a = Use())
            using (var b = Use(values, nameof(values)))
            using (var s = (object)sorter == null ? default(Lease) : Use(sorter, nameof(sorter)))
            {
                IntPtr r;
                Native.Check(ctorch.ct_searchsorted(a.Ptr, b.Ptr, outInt32 ? 1 : 0, right ? 1 : 0, side, s.Ptr, out r));
                return Own(r);
            }
        }
    }
}
