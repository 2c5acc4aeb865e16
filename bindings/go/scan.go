package ctorch

import "ctorch.dev/ctorch/internal/capi"

// Scans along one dim (ctorch.h section 28): torch.cumsum, cumprod, cummax, cummin and
// logcumsumexp. dim wraps as in PyTorch (-1 is the last); results are new contiguous tensors of
// t's shape. Errors: ErrIndex for a dim out of range, ErrDType for dtypes PyTorch refuses
// (logcumsumexp of integers, cummax/cummin of complex, a Bool cumsum), with its messages.

// Cumsum is torch.cumsum(t, dim): int64 for integer and bool tensors, else t's dtype. A DType
// option is the result's dtype (torch's dtype=); t is cast to it first.
func (t *Tensor) Cumsum(dim int, opts ...Option) (*Tensor, error) {
	dtype := dtypeOpt(opts)
	return t.method1("cumsum", func(h int64, out []int64) int {
		return capi.Ct_cumsum(h, int64(dim), int(dtype), out)
	})
}

// Cumprod is torch.cumprod(t, dim), with Cumsum's dtype rules and DType option.
func (t *Tensor) Cumprod(dim int, opts ...Option) (*Tensor, error) {
	dtype := dtypeOpt(opts)
	return t.method1("cumprod", func(h int64, out []int64) int {
		return capi.Ct_cumprod(h, int64(dim), int(dtype), out)
	})
}

// Cummax is torch.cummax(t, dim): the running maximum (t's dtype) and the int64 index it came
// from (the last of equal maxima; NaN, once seen, stays, with the index of the last NaN).
func (t *Tensor) Cummax(dim int) (values, indices *Tensor, err error) {
	return t.withIndices("cummax", func(h int64, d, _ int, v, i []int64) int {
		return capi.Ct_cummax(h, int64(d), v, i)
	}, dim, false)
}

// Cummin is torch.cummin(t, dim), as Cummax with the minimum.
func (t *Tensor) Cummin(dim int) (values, indices *Tensor, err error) {
	return t.withIndices("cummin", func(h int64, d, _ int, v, i []int64) int {
		return capi.Ct_cummin(h, int64(d), v, i)
	}, dim, false)
}

// Logcumsumexp is torch.logcumsumexp(t, dim): log(cumsum(exp(t))) computed stably; floating and
// complex tensors.
func (t *Tensor) Logcumsumexp(dim int) (*Tensor, error) {
	return t.method1("logcumsumexp", func(h int64, out []int64) int {
		return capi.Ct_logcumsumexp(h, int64(dim), out)
	})
}
