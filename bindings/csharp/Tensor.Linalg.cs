// Matrix products: torch.matmul, mm, bmm, dot, mv and addmm (section 17 of capi/ctorch.h).
// OpenBLAS runs them on the CPU and cuBLAS on CUDA devices; C# has no '@' operator, so they are
// methods only.
using System;
using Ctorch.Swig;

namespace Ctorch
{
    public sealed partial class Tensor
    {
        private delegate int ProductCall(IntPtr a, IntPtr b, out IntPtr result);

        private Tensor Product(ProductCall call, Tensor other, string name)
        {
            using (var a = Use())
            using (var b = Use(other, name))
            {
                IntPtr r;
                Native.Check(call(a.Ptr, b.Ptr, out r));
                return Own(r);
            }
        }

        /// <summary>torch.matmul(this, other), PyTorch's <c>this @ other</c>: 1-D x 1-D is
        /// <see cref="Dot"/> (a 0-dim result), 2-D x 2-D is <see cref="Mm"/>, 2-D x 1-D is
        /// <see cref="Mv"/>; a 1-D operand otherwise becomes a row (on the left) or a column (on the
        /// right) that is removed from the result again, and dimensions before the last two are
        /// batch dimensions that broadcast: (2, 1, 3, 4) x (5, 4, 2) gives (2, 5, 3, 2).
        /// Both operands need the same dtype (Float32, Float64, Float16, BFloat16, Complex64 or
        /// Complex128) and device. CtorchException: Shape for 0-dim operands or inner sizes that
        /// differ, DType for other dtypes or two dtypes, Device for two devices.</summary>
        public Tensor Matmul(Tensor other) => Product(ctorch.ct_matmul, other, nameof(other));

        /// <summary>torch.mm(this, mat2): the product of two matrices, (n x k) x (k x m) gives
        /// (n x m). CtorchException (Shape): "self must be a matrix", "mat2 must be a matrix",
        /// "mat1 and mat2 shapes cannot be multiplied (4x3 and 4x3)"; (DType): "expected m1 and m2
        /// to have the same dtype, but got: double != float", "\"mm\" not implemented for 'Int'"
        /// (dtypes as for <see cref="Matmul"/>); (Device) for two devices.</summary>
        public Tensor Mm(Tensor mat2) => Product(ctorch.ct_mm, mat2, nameof(mat2));

        /// <summary>torch.bmm(this, mat2): batched products of 3-D tensors with the same batch
        /// size, (b x n x k) x (b x k x m) gives (b x n x m); no broadcasting (use
        /// <see cref="Matmul"/> for that). CtorchException (Shape): "batch1 must be a 3D tensor",
        /// "batch2 must be a 3D tensor", "Expected size for first two dimensions of batch2 tensor
        /// to be: [b, k] but got: [...]"; DType and Device as for <see cref="Mm"/>.</summary>
        public Tensor Bmm(Tensor mat2) => Product(ctorch.ct_bmm, mat2, nameof(mat2));

        /// <summary>torch.dot(this, other): the dot product of two 1-D tensors of the same length,
        /// a 0-dim tensor. Complex values are not conjugated (that is torch.vdot). CtorchException
        /// (Shape): "1D tensors expected, but got 1D and 2D tensors", "inconsistent tensor size,
        /// ..."; (DType): "dot : expected both vectors to have same dtype, but found Double and
        /// Float", "\"dot\" not implemented for 'Long'".</summary>
        public Tensor Dot(Tensor other) => Product(ctorch.ct_dot, other, nameof(other));

        /// <summary>torch.mv(this, vec): a matrix (n x k) times a vector (k), a vector (n).
        /// CtorchException (Shape): "vector + matrix @ vector expected, got 1, 2, 2" (a 2-D vec), "size
        /// mismatch, got input (4), mat (4x3), vec (4)"; DType and Device as for
        /// <see cref="Mm"/>.</summary>
        public Tensor Mv(Tensor vec) => Product(ctorch.ct_mv, vec, nameof(vec));

        /// <summary>torch.addmm(this, mat1, mat2, beta=beta, alpha=alpha):
        /// <c>beta * this + alpha * (mat1 @ mat2)</c>, with this (a matrix, a vector or a 0-dim
        /// tensor) broadcast to the product's shape. With beta 0 this is ignored: NaN and
        /// infinity in it do not reach the result. beta and alpha are real (Python floats), also
        /// for complex tensors. this, mat1 and mat2 need one dtype and device. CtorchException:
        /// the errors of <see cref="Mm"/> for mat1 and mat2, (Shape) when this does not broadcast
        /// to the product, (DType) "self and mat2 must have the same dtype, but got ..." when
        /// this has another dtype, (Device) for another device.</summary>
        public Tensor Addmm(Tensor mat1, Tensor mat2, double beta = 1.0, double alpha = 1.0)
        {
            using (var a = Use())
            using (var m1 = Use(mat1, nameof(mat1)))
            using (var m2 = Use(mat2, nameof(mat2)))
            {
                IntPtr r;
                Native.Check(ctorch.ct_addmm(a.Ptr, m1.Ptr, m2.Ptr, beta, alpha, out r));
                return Own(r);
            }
        }
    }
}
