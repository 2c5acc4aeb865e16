package ctorch_test

// Row functions (section 32) through the binding: each method once with its dims slice,
// correction, keepdim, dtype option, optional weight/bias and ord string reaching C, the
// two-result forms, and error mapping (nil and closed tensors refused). Values, dtype rules
// and PyTorch's messages are the C suite's (tests/capi/rowfuncs_test.c).

import (
	"math"
	"testing"

	"ctorch.dev/ctorch"
)

func TestRowFunctions(t *testing.T) {
	s, dev := setup(t)
	x := s.T(ctorch.FromSlice([]float32{1, 2, 3, 4, 5, 6}, []int64{2, 3}, dev))
	e := math.Exp(1) + math.Exp(2) + math.Exp(3)
	nearF64(t, s.T(x.Softmax(1)), 1e-6, math.Exp(1)/e, math.Exp(2)/e, math.Exp(3)/e, math.Exp(4-3)/e, math.Exp(5-3)/e, math.Exp(6-3)/e)
	sm := s.T(x.Softmax(-1, ctorch.Float64))
	eqDType(t, sm, ctorch.Float64)
	nearF64(t, s.T(x.LogSoftmax(0)), 1e-6, 1-math.Log(math.Exp(1)+math.Exp(4)), 2-math.Log(math.Exp(2)+math.Exp(5)),
		3-math.Log(math.Exp(3)+math.Exp(6)), 4-math.Log(math.Exp(1)+math.Exp(4)), 5-math.Log(math.Exp(2)+math.Exp(5)),
		6-math.Log(math.Exp(3)+math.Exp(6)))
	eqDType(t, s.T(x.LogSoftmax(0, ctorch.Float64)), ctorch.Float64)
	lse := s.T(x.LogSumExp([]int{1}, true))
	eqShape(t, lse, 2, 1)
	nearF64(t, lse, 1e-6, math.Log(e), 3+math.Log(e))
	nearF64(t, s.T(x.LogSumExp(nil, false)), 1e-6, math.Log(e+math.Exp(4)+math.Exp(5)+math.Exp(6)))
	nearF64(t, s.T(x.Var([]int{1}, 1, false)), 1e-6, 1, 1)
	nearF64(t, s.T(x.Var(nil, 0, false)), 1e-6, 17.5/6)
	std := s.T(x.Std([]int{0}, 1, true))
	eqShape(t, std, 1, 3)
	nearF64(t, std, 1e-6, math.Sqrt(4.5), math.Sqrt(4.5), math.Sqrt(4.5))
	v, m, err := x.VarMean([]int{1}, 0, false)
	noErr(t, err)
	s.keep(v, m)
	nearF64(t, v, 1e-6, 2.0/3, 2.0/3)
	nearF64(t, m, 1e-6, 2, 5)
	sd, m, err := x.StdMean(nil, 1, true)
	noErr(t, err)
	s.keep(sd, m)
	eqShape(t, m, 1, 1)
	nearF64(t, sd, 1e-6, math.Sqrt(3.5))
	nearF64(t, m, 1e-6, 3.5)
	nearF64(t, s.T(x.MatrixNorm(1, 0, 1, false)), 1e-6, 9)
	nearF64(t, s.T(x.MatrixNorm(math.Inf(-1), -2, -1, false)), 1e-6, 6)
	nearF64(t, s.T(x.MatrixNormStr("fro", 0, 1, false)), 1e-6, math.Sqrt(91))
	w := s.T(ctorch.FromSlice([]float32{1, 2, 3}, []int64{3}, dev))
	b := s.T(ctorch.FromSlice([]float32{0, 1, 0}, []int64{3}, dev))

	r1 := 1 / math.Sqrt(2.0/3+1e-5) // (x - mean) / sqrt(var + eps) for the deviations -1, 0, 1
	nearF64(t, s.T(x.LayerNorm([]int64{3}, w, b, 1e-5)), 1e-5, -r1, 1, 3*r1, -r1, 1, 3*r1)
	nearF64(t, s.T(x.LayerNorm([]int64{3}, nil, nil, 1e-5)), 1e-5, -r1, 0, r1, -r1, 0, r1)
	nearF64(t, s.T(x.LayerNorm([]int64{3}, nil, b, 1e-5)), 1e-5, -r1, 1, r1, -r1, 1, r1)

	// errors: the C library's codes and messages, Go-side range checks, nil and closed tensors
	i := s.T(ctorch.FromSlice([]int64{1, 2}, []int64{2}, dev))
	wantMessage(t, s.E(i.Softmax(0)), ctorch.ErrDType, "softmax", `"host_softmax" not implemented for 'Long'`)
	wantErr(t, s.E(x.LogSoftmax(2)), ctorch.ErrIndex)
	wantErr(t, s.E(x.Softmax(1<<40)), ctorch.ErrIndex)
	wantMessage(t, s.E(i.Var(nil, 1, false)), ctorch.ErrDType, "var", "std and var only support floating point and complex dtypes")
	_, _, err = i.StdMean(nil, 1, false)
	wantErr(t, err, ctorch.ErrDType)
	_, _, err = x.VarMean([]int{1 << 40}, 1, false)
	wantErr(t, err, ctorch.ErrIndex)
	wantErr(t, s.E(x.LogSumExp([]int{0, 0}, false)), ctorch.ErrArgument)
	wantErr(t, s.E(x.MatrixNorm(2, 0, 1, false)), ctorch.ErrNotSupported)
	wantErr(t, s.E(x.MatrixNormStr("nuc", 0, 1, false)), ctorch.ErrNotSupported)
	wantErr(t, s.E(x.MatrixNormStr("fro", 1, 1, false)), ctorch.ErrArgument)
	wantErr(t, s.E(x.MatrixNorm(1, 0, 1<<40, false)), ctorch.ErrIndex)
	wantMessage(t, s.E(x.LayerNorm([]int64{4}, nil, nil, 1e-5)), ctorch.ErrShape, "layer_norm",
		"Given normalized_shape=[4], expected input with shape [*, 4], but got input of size[2, 3]")
	wantErr(t, s.E(x.LayerNorm(nil, nil, nil, 1e-5)), ctorch.ErrArgument)
	closed := s.T(ctorch.FromSlice([]float32{1, 2, 3}, []int64{3}, dev))
	noErr(t, closed.Close())
	var nilT *ctorch.Tensor
	for name, f := range map[string]func() (*ctorch.Tensor, error){
		"closed.Softmax":       func() (*ctorch.Tensor, error) { return closed.Softmax(0) },
		"nil.LogSoftmax":       func() (*ctorch.Tensor, error) { return nilT.LogSoftmax(0) },
		"closed.LogSumExp":     func() (*ctorch.Tensor, error) { return closed.LogSumExp(nil, false) },
		"nil.Var":              func() (*ctorch.Tensor, error) { return nilT.Var(nil, 1, false) },
		"closed.Std":           func() (*ctorch.Tensor, error) { return closed.Std(nil, 1, false) },
		"nil.MatrixNorm":       func() (*ctorch.Tensor, error) { return nilT.MatrixNorm(1, 0, 1, false) },
		"closed.MatrixNormStr": func() (*ctorch.Tensor, error) { return closed.MatrixNormStr("fro", 0, 1, false) },
		"LayerNorm(w closed)":  func() (*ctorch.Tensor, error) { return x.LayerNorm([]int64{3}, closed, nil, 1e-5) },
		"LayerNorm(b closed)":  func() (*ctorch.Tensor, error) { return x.LayerNorm([]int64{3}, nil, closed, 1e-5) },
		"closed.LayerNorm":     func() (*ctorch.Tensor, error) { return closed.LayerNorm([]int64{3}, nil, nil, 1e-5) },
	} {
		if err := s.E(f()); err == nil {
			t.Errorf("%s: no error", name)
		} else {
			wantErr(t, err, ctorch.ErrInvalidHandle)
		}
	}
	_, _, err = closed.VarMean(nil, 1, false)
	wantErr(t, err, ctorch.ErrInvalidHandle)
	_, _, err = nilT.StdMean(nil, 1, false)
	wantErr(t, err, ctorch.ErrInvalidHandle)
}
