package ctorch

import "ctorch.dev/ctorch/internal/capi"

// Matrix products (capi/ctorch.h section 17): torch.matmul, mm, bmm, dot, mv and addmm, with
// PyTorch's shape rules and error messages. Products run through OpenBLAS on the CPU and cuBLAS
// on CUDA devices, both loaded by the library at first use; without them the products fail with
// ErrNotSupported, whose message names the missing library.
//
// Both operands must have the same dtype, one of Float32, Float64, Float16, BFloat16, Complex64
// and Complex128 (ErrDType otherwise: there is no type promotion, as in PyTorch; integer and
// bool tensors are refused), and be on the same device (ErrDevice). Shapes that do not fit give
// ErrShape with PyTorch's message ("mat1 and mat2 shapes cannot be multiplied (4x3 and 4x3)").
// Operands may be non-contiguous views. Results are new Tensors on the operands' device.
// Float16 and BFloat16 products accumulate in float32 on the CPU; on CUDA devices the switches
// of torch.backends.cuda.matmul apply (cuda.SetAllowTF32 and the reduced-precision ones).

type productFunc func(a, b int64, out []int64) int

func (t *Tensor) product(op string, f productFunc, o *Tensor) (*Tensor, error) {
	hs, err := handles(op, t, o)
	if err != nil {
		return nil, err
	}
	return newTensor(op, func(out []int64) int { return f(hs[0], hs[1], out) }, t, o)
}

// Matmul is torch.matmul(t, o) (Python's t @ o): 1-D x 1-D is the dot product (a 0-dim
// tensor), 2-D x 2-D the matrix product, a 1-D t is a row vector and a 1-D o a column vector
// whose dimension is removed from the result, and dimensions before the last two are batch
// dimensions that broadcast: (2,1,3,4) x (5,4,2) is (2,5,3,2). ErrShape for 0-dim operands and
// inner sizes that differ.
func (t *Tensor) Matmul(o *Tensor) (*Tensor, error) { return t.product("matmul", capi.Ct_matmul, o) }

// Mm is torch.mm(t, o): the product of an (n x k) and a (k x m) matrix, an (n x m) matrix.
// ErrShape unless both are 2-D with matching inner sizes.
func (t *Tensor) Mm(o *Tensor) (*Tensor, error) { return t.product("mm", capi.Ct_mm, o) }

// Bmm is torch.bmm(t, o): batched matrix products of a (b x n x k) and a (b x k x m) tensor, a
// (b x n x m) tensor. No broadcasting: ErrShape unless both are 3-D with the same batch size
// and matching inner sizes (Matmul broadcasts).
func (t *Tensor) Bmm(o *Tensor) (*Tensor, error) { return t.product("bmm", capi.Ct_bmm, o) }

// Dot is torch.dot(t, o): the sum of the products of two 1-D tensors of the same length, a
// 0-dim tensor. Complex values are not conjugated (torch.vdot would). ErrShape for other
// dimensions or lengths, ErrDType for different dtypes.
func (t *Tensor) Dot(o *Tensor) (*Tensor, error) { return t.product("dot", capi.Ct_dot, o) }

// Mv is torch.mv(t, v): the product of an (n x k) matrix and a vector of length k, a vector of
// length n. ErrShape for other dimensions or sizes.
func (t *Tensor) Mv(v *Tensor) (*Tensor, error) { return t.product("mv", capi.Ct_mv, v) }

// Addmm is torch.addmm(t, m1, m2, beta=beta, alpha=alpha): beta * t + alpha * (m1 @ m2), with
// m1 and m2 matrices as in Mm and t (at most 2-D) broadcast to the product's shape. PyTorch's
// defaults are beta = 1 and alpha = 1: t.Addmm(m1, m2, 1, 1). With beta = 0, t's values are
// ignored (NaN and infinities in it do not reach the result), as in PyTorch. t must have the
// dtype of m1 and m2 (ErrDType) and be on their device (ErrDevice).
func (t *Tensor) Addmm(m1, m2 *Tensor, beta, alpha float64) (*Tensor, error) {
	hs, err := handles("addmm", t, m1, m2)
	if err != nil {
		return nil, err
	}
	return newTensor("addmm", func(out []int64) int {
		return capi.Ct_addmm(hs[0], hs[1], hs[2], beta, alpha, out)
	}, t, m1, m2)
}
