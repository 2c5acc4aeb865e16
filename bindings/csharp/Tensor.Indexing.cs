// Indexing: torch.index_select, gather, take, scatter, scatter_add, index_add_, masked_fill,
// masked_select, nonzero and where(condition) (section 30 of capi/ctorch.h; docs/indexing.md).
// Index tensors are Int64 (IndexSelect and IndexAdd_ also take Int32) on this tensor's device;
// masks are Bool. An index out of range throws CtorchException (Index) with PyTorch's message on
// the CPU, nothing written; on CUDA it fails a device-side assertion, as in PyTorch, reported as
// CtorchException (Cuda, "device-side assert triggered") by the next CUDA call (by the op itself
// under CUDA_LAUNCH_BLOCKING=1), after which the process's CUDA context is unusable.
using System;
using Ctorch.Swig;

namespace Ctorch
{
    public sealed partial class Tensor
    {
        private delegate int IndexCall(IntPtr self, IntPtr operand, out IntPtr result);

        private Tensor WithOperand(IndexCall call, Tensor operand, string name)
        {
            using (var a = Use())
            using (var b = Use(operand, name))
            {
                IntPtr r;
                Native.Check(call(a.Ptr, b.Ptr, out r));
                return Own(r);
            }
        }

        /// <summary>torch.index_select(this, dim, index): index 1-D (or 0-dim), Int64 or Int32, its
        /// entries in [0, size(dim)). CtorchException: Index ("index out of range in self", an
        /// index of more than one dim), DType ("index_select(): Expected dtype int32 or int64 for
        /// index"), Device.</summary>
        public Tensor IndexSelect(int dim, Tensor index) =>
            WithOperand((IntPtr a, IntPtr b, out IntPtr r) => ctorch.ct_index_select(a, dim, b, out r), index, nameof(index));

        /// <summary>torch.gather(this, dim, index): index Int64 with this tensor's number of dims;
        /// the result has index's shape. CtorchException: Index ("index 5 is out of bounds for
        /// dimension 0 with size 3"), Shape, DType, Device.</summary>
        public Tensor Gather(int dim, Tensor index) =>
            WithOperand((IntPtr a, IntPtr b, out IntPtr r) => ctorch.ct_gather(a, dim, b, out r), index, nameof(index));

        /// <summary>torch.take(this, index): this tensor read as 1-D in row-major order; negative
        /// indices count from the end; the result has index's shape.</summary>
        public Tensor Take(Tensor index) => WithOperand(ctorch.ct_take, index, nameof(index));

        /// <summary>torch.scatter(this, dim, index, src): a copy of this tensor with src's
        /// elements written where index says (which of repeated indices wins is unspecified on
        /// CUDA).</summary>
        public Tensor Scatter(int dim, Tensor index, Tensor src) => Scatter(ctorch.ct_scatter, dim, index, src);

        /// <summary>torch.scatter(this, dim, index, value).</summary>
        public Tensor Scatter(int dim, Tensor index, double value) =>
            WithOperand((IntPtr a, IntPtr b, out IntPtr r) => ctorch.ct_scatter_value(a, dim, b, value, out r), index, nameof(index));

        /// <summary>torch.scatter_add(this, dim, index, src): repeated indices add up (atomically on
        /// CUDA, so float results may differ from the CPU's in the last bits).</summary>
        public Tensor ScatterAdd(int dim, Tensor index, Tensor src) => Scatter(ctorch.ct_scatter_add, dim, index, src);

        private delegate int ScatterCall(IntPtr self, long dim, IntPtr index, IntPtr src, out IntPtr result);

        private Tensor Scatter(ScatterCall call, int dim, Tensor index, Tensor src)
        {
            using (var a = Use())
            using (var i = Use(index, nameof(index)))
            using (var s = Use(src, nameof(src)))
            {
                IntPtr r;
                Native.Check(call(a.Ptr, dim, i.Ptr, s.Ptr, out r));
                return Own(r);
            }
        }

        /// <summary>tensor.index_add_(dim, index, source, alpha=alpha); returns this.</summary>
        public Tensor IndexAdd_(int dim, Tensor index, Tensor source, double alpha = 1)
        {
            using (var a = Use())
            using (var i = Use(index, nameof(index)))
            using (var s = Use(source, nameof(source)))
                Native.Check(ctorch.ct_index_add_(a.Ptr, dim, i.Ptr, s.Ptr, alpha));
            return this;
        }

        // The handles of an index list (IntPtr.Zero for a null entry, a full slice), leased
        // while the call runs.
        private static int WithIndices(Tensor[] indices, Func<IntPtr[], int> call)
        {
            if (indices == null) throw new ArgumentNullException(nameof(indices));
            var leases = new Lease[indices.Length];
            try
            {
                var hs = new IntPtr[indices.Length];
                for (int i = 0; i < indices.Length; i++)
                {
                    if (indices[i] == null) continue;
                    leases[i] = Use(indices[i], nameof(indices));
                    hs[i] = leases[i].Ptr;
                }
                return call(hs);
            }
            finally
            {
                foreach (var l in leases) l.Dispose();
            }
        }

        /// <summary>this[indices] (PyTorch's advanced indexing): one entry for each leading dim, null
        /// for a full slice (:), an Int64 or Int32 tensor (negative entries count from the end) or
        /// a Bool mask. The index tensors broadcast together (docs/indexing.md: where their dims
        /// go).</summary>
        public Tensor Index(params Tensor[] indices)
        {
            using (var a = Use())
            {
                IntPtr r = IntPtr.Zero;
                Native.Check(WithIndices(indices, hs => ctorch.ct_index(a.Ptr, hs, hs.Length, out r)));
                return Own(r);
            }
        }

        /// <summary>PyTorch's <c>t[indices]</c> and <c>t[indices] = values</c> with index tensors:
        /// <c>t[mask]</c>, <c>t[idx, null, other]</c> (null: a full slice). Get is
        /// <see cref="Index"/>, set is <see cref="IndexPut_"/> without accumulation.</summary>
        [System.Runtime.CompilerServices.IndexerName("Row")]
        public Tensor this[params Tensor[] indices]
        {
            get => Index(indices);
            set
            {
                if ((object)value == null) throw new ArgumentNullException(nameof(value));
                IndexPut_(indices, value);
            }
        }

        /// <summary>tensor.index_put_(indices, values, accumulate) (this[indices] = values, or +=
        /// with accumulate); values of this tensor's dtype, broadcast. Returns this.</summary>
        public Tensor IndexPut_(Tensor[] indices, Tensor values, bool accumulate = false)
        {
            using (var a = Use())
            using (var v = Use(values, nameof(values)))
                Native.Check(WithIndices(indices, hs => ctorch.ct_index_put_(a.Ptr, hs, hs.Length, v.Ptr, accumulate ? 1 : 0)));
            return this;
        }

        /// <summary>torch.masked_fill(this, mask, value): mask Bool, broadcast with this tensor.
        /// CtorchException (DType): "masked_fill_ only supports boolean masks, but got mask with
        /// dtype float".</summary>
        public Tensor MaskedFill(Tensor mask, double value) =>
            WithOperand((IntPtr a, IntPtr b, out IntPtr r) => ctorch.ct_masked_fill(a, b, value, out r), mask, nameof(mask));

        /// <summary>tensor.masked_fill_(mask, value): mask broadcasts to this tensor's shape;
        /// returns this.</summary>
        public Tensor MaskedFill_(Tensor mask, double value)
        {
            using (var a = Use())
            using (var m = Use(mask, nameof(mask)))
                Native.Check(ctorch.ct_masked_fill_(a.Ptr, m.Ptr, value));
            return this;
        }

        /// <summary>torch.masked_select(this, mask) (PyTorch's <c>this[mask]</c>): 1-D, in
        /// row-major order. Waits for the GPU (the result's size), as PyTorch's.</summary>
        public Tensor MaskedSelect(Tensor mask) => WithOperand(ctorch.ct_masked_select, mask, nameof(mask));

        /// <summary>torch.nonzero(this): Int64 [n, Dim], the coordinates of the nonzero elements.
        /// Waits for the GPU.</summary>
        public Tensor Nonzero()
        {
            using (var a = Use())
            {
                IntPtr r;
                Native.Check(ctorch.ct_nonzero(a.Ptr, out r));
                return Own(r);
            }
        }

        /// <summary>torch.where(condition) (torch.nonzero(condition, as_tuple=True)): one Int64 1-D
        /// tensor a dim of condition (one for a 0-dim condition).</summary>
        public static Tensor[] Where(Tensor condition)
        {
            using (var c = Use(condition, nameof(condition)))
            {
                var outs = new IntPtr[Math.Max(condition.Dim, 1)];
                int n;
                Native.Check(ctorch.ct_where_cond(c.Ptr, outs, outs.Length, out n));
                var ts = new Tensor[n];
                for (int i = 0; i < n; i++) ts[i] = Own(outs[i]);
                return ts;
            }
        }
    }
}
