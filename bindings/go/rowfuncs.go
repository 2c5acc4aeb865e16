package ctorch

// Row functions (ctorch.h section 32): softmax, log_softmax, logsumexp, var/std and their
// _mean forms, linalg.matrix_norm and layer_norm. Values, dtype rules and PyTorch's messages are
// the C library's (docs/rowfuncs.md).

import "ctorch.dev/ctorch/internal/capi"

type softmaxFunc func(h int64, dim int, dtype int, out []int64) int

func (t *Tensor) softmax(op string, f softmaxFunc, dim int, opts []Option) (*Tensor, error) {
	if err := checkDim(op, dim); err != nil {
		return nil, err
	}
	dtype := dtypeOpt(opts)
	return t.method1(op, func(h int64, out []int64) int { return f(h, dim, int(dtype), out) })
}

// Softmax is torch.softmax(t, dim): exp(x - max) / sum(exp(x - max)) along dim. A DType option
// is torch's dtype= (t is converted to it first); without one the result has t's dtype
// (float16/bfloat16 computed in float32). ErrDType for a non-floating result dtype.
func (t *Tensor) Softmax(dim int, opts ...Option) (*Tensor, error) {
	return t.softmax("softmax", capi.Ct_softmax, dim, opts)
}

// LogSoftmax is torch.log_softmax(t, dim), with Softmax's dtype rules.
func (t *Tensor) LogSoftmax(dim int, opts ...Option) (*Tensor, error) {
	return t.softmax("log_softmax", capi.Ct_log_softmax, dim, opts)
}

// LogSumExp is torch.logsumexp(t, dims, keepdim) (nil dims: all). Bool and integer tensors give
// float32; ErrNotSupported for complex tensors.
func (t *Tensor) LogSumExp(dims []int, keepdim bool) (*Tensor, error) {
	d, err := dims64("logsumexp", dims)
	if err != nil {
		return nil, err
	}
	return t.method1("logsumexp", func(h int64, out []int64) int {
		return capi.Ct_logsumexp(h, d, len(d), b2i(keepdim), out)
	})
}

type varFunc func(h int64, dims []int64, n int, correction float64, keepdim int, out []int64) int

func (t *Tensor) variance(op string, f varFunc, dims []int, correction float64, keepdim bool) (*Tensor, error) {
	d, err := dims64(op, dims)
	if err != nil {
		return nil, err
	}
	return t.method1(op, func(h int64, out []int64) int { return f(h, d, len(d), correction, b2i(keepdim), out) })
}

// Var is torch.var(t, dims, correction=correction, keepdim) (nil dims: all): the sum of
// squared deviations over max(0, N - correction); 1 is PyTorch's default. Complex tensors give
// the real dtype; ErrDType for bool and integer tensors.
func (t *Tensor) Var(dims []int, correction float64, keepdim bool) (*Tensor, error) {
	return t.variance("var", capi.Ct_var, dims, correction, keepdim)
}

// Std is torch.std(t, dims, correction=correction, keepdim): the square root of Var.
func (t *Tensor) Std(dims []int, correction float64, keepdim bool) (*Tensor, error) {
	return t.variance("std", capi.Ct_std, dims, correction, keepdim)
}

type varMeanFunc func(h int64, dims []int64, n int, correction float64, keepdim int, v []int64, m []int64) int

func (t *Tensor) varianceMean(op string, f varMeanFunc, dims []int, correction float64, keepdim bool) (*Tensor, *Tensor, error) {
	d, err := dims64(op, dims)
	if err != nil {
		return nil, nil, err
	}
	h, err := t.handle(op)
	if err != nil {
		return nil, nil, err
	}
	v, m := []int64{0}, []int64{0}
	if err := run(op, func() int { return f(h, d, len(d), correction, b2i(keepdim), v, m) }, t); err != nil {
		return nil, nil, err
	}
	return wrap(v[0]), wrap(m[0]), nil
}

// VarMean is torch.var_mean: Var's result and the mean (in t's dtype).
func (t *Tensor) VarMean(dims []int, correction float64, keepdim bool) (variance, mean *Tensor, err error) {
	return t.varianceMean("var_mean", capi.Ct_var_mean, dims, correction, keepdim)
}

// StdMean is torch.std_mean: Std's result and the mean.
func (t *Tensor) StdMean(dims []int, correction float64, keepdim bool) (std, mean *Tensor, err error) {
	return t.varianceMean("std_mean", capi.Ct_std_mean, dims, correction, keepdim)
}

// MatrixNorm is torch.linalg.matrix_norm(t, ord, dim=(dim0, dim1), keepdim) for ord 1, -1,
// math.Inf(1) and math.Inf(-1). ErrNotSupported for 2 and -2 (singular values).
func (t *Tensor) MatrixNorm(ord float64, dim0, dim1 int, keepdim bool) (*Tensor, error) {
	if err := checkDim("matrix_norm", dim0, dim1); err != nil {
		return nil, err
	}
	return t.method1("matrix_norm", func(h int64, out []int64) int {
		return capi.Ct_matrix_norm(h, ord, dim0, dim1, b2i(keepdim), out)
	})
}

// MatrixNormStr is torch.linalg.matrix_norm(t, ord="fro" | "nuc", dim=(dim0, dim1), keepdim);
// torch.norm(t, "fro", dim) too. ErrNotSupported for "nuc".
func (t *Tensor) MatrixNormStr(ord string, dim0, dim1 int, keepdim bool) (*Tensor, error) {
	if err := checkDim("matrix_norm", dim0, dim1); err != nil {
		return nil, err
	}
	return t.method1("matrix_norm", func(h int64, out []int64) int {
		return capi.Ct_matrix_norm_str(h, ord, dim0, dim1, b2i(keepdim), out)
	})
}

// LayerNorm is torch.nn.functional.layer_norm(t, normalizedShape, weight, bias, eps) over the
// last len(normalizedShape) dims; weight and bias may be nil. The result has t's dtype.
func (t *Tensor) LayerNorm(normalizedShape []int64, weight, bias *Tensor, eps float64) (*Tensor, error) {
	const op = "layer_norm"
	if err := checkShape(op, normalizedShape); err != nil {
		return nil, err
	}
	if normalizedShape == nil {
		normalizedShape = []int64{}
	}
	var hw, hb int64
	var err error
	if weight != nil {
		if hw, err = weight.handle(op); err != nil {
			return nil, err
		}
	}
	if bias != nil {
		if hb, err = bias.handle(op); err != nil {
			return nil, err
		}
	}
	h, err := t.handle(op)
	if err != nil {
		return nil, err
	}
	return newTensor(op, func(out []int64) int {
		return capi.Ct_layer_norm(h, normalizedShape, len(normalizedShape), hw, hb, eps, out)
	}, t, weight, bias)
}
