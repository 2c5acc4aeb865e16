// Views: each result shares storage with this tensor (reshape and contiguous copy only when
// they must). Dims may be negative, as in PyTorch.
using System;
using Ctorch.Swig;

namespace Ctorch
{
    public sealed partial class Tensor
    {
        /// <summary>tensor.view(shape): one size may be -1. Throws (Shape) when the strides do not
        /// allow a view; use <see cref="Reshape"/> then.</summary>
        public Tensor View(params long[] shape)
        {
            if (shape == null) throw new ArgumentNullException(nameof(shape));
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_view(a.Ptr, shape, shape.Length, out r)); return Own(r); }
        }

        /// <summary>tensor.reshape(shape): a view when possible, else a contiguous copy.</summary>
        public Tensor Reshape(params long[] shape)
        {
            if (shape == null) throw new ArgumentNullException(nameof(shape));
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_reshape(a.Ptr, shape, shape.Length, out r)); return Own(r); }
        }

        /// <summary>tensor.permute(dims): dims is a permutation of 0..Dim-1.</summary>
        public Tensor Permute(params long[] dims)
        {
            if (dims == null) throw new ArgumentNullException(nameof(dims));
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_permute(a.Ptr, dims, dims.Length, out r)); return Own(r); }
        }

        /// <summary>tensor.transpose(dim0, dim1).</summary>
        public Tensor Transpose(int dim0, int dim1)
        {
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_transpose(a.Ptr, dim0, dim1, out r)); return Own(r); }
        }

        /// <summary>tensor.T for a tensor of at most 2 dims: transpose(0, 1); for 0 and 1 dims the tensor
        /// itself (a new object, see <see cref="NewReference"/>).</summary>
        public Tensor T => Dim < 2 ? NewReference() : Transpose(0, 1);

        /// <summary>tensor.narrow(dim, start, length).</summary>
        public Tensor Narrow(int dim, long start, long length)
        {
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_narrow(a.Ptr, dim, start, length, out r)); return Own(r); }
        }

        /// <summary>tensor[..., start:end:step, ...] along dim: start and end clamp like Python
        /// slices (use long.MaxValue for "to the end"); step &gt; 0.</summary>
        public Tensor Slice(int dim, long start, long end, long step = 1)
        {
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_slice(a.Ptr, dim, start, end, step, out r)); return Own(r); }
        }

        /// <summary>tensor.select(dim, index): removes dim; a negative index counts from the end.</summary>
        public Tensor Select(int dim, long index)
        {
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_select(a.Ptr, dim, index, out r)); return Own(r); }
        }

        /// <summary>tensor[index]: <see cref="Select"/>(0, index), a view.</summary>
        [System.Runtime.CompilerServices.IndexerName("Row")]
        public Tensor this[long index] => Select(0, index);

        /// <summary>tensor.expand(shape): -1 keeps a size; only size-1 dims can grow.</summary>
        public Tensor Expand(params long[] shape)
        {
            if (shape == null) throw new ArgumentNullException(nameof(shape));
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_expand(a.Ptr, shape, shape.Length, out r)); return Own(r); }
        }

        /// <summary>tensor.expand_as(other).</summary>
        public Tensor ExpandAs(Tensor other)
        {
            // The lease names other in the exception when it is null or disposed.
            using (Use(other, nameof(other))) return Expand(other.Shape);
        }

        /// <summary>tensor.squeeze(): removes every size-1 dim.</summary>
        public Tensor Squeeze()
        {
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_squeeze(a.Ptr, out r)); return Own(r); }
        }

        /// <summary>tensor.squeeze(dim): removes dim if its size is 1.</summary>
        public Tensor Squeeze(int dim)
        {
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_squeeze_dim(a.Ptr, dim, out r)); return Own(r); }
        }

        /// <summary>tensor.unsqueeze(dim), dim in [-Dim-1, Dim].</summary>
        public Tensor Unsqueeze(int dim)
        {
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_unsqueeze(a.Ptr, dim, out r)); return Own(r); }
        }

        /// <summary>tensor.flatten(start_dim, end_dim) (a view when possible).</summary>
        public Tensor Flatten(int startDim = 0, int endDim = -1)
        {
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_flatten(a.Ptr, startDim, endDim, out r)); return Own(r); }
        }

        /// <summary>tensor.contiguous(): this tensor (a new object for it, IsSame is true) when
        /// already contiguous, else a contiguous copy.</summary>
        public Tensor Contiguous()
        {
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_contiguous(a.Ptr, out r)); return Own(r); }
        }
    }
}
