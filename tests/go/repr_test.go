package ctorch_test

import (
	"fmt"
	"testing"

	"ctorch.dev/ctorch"
)

func TestReprStrings(t *testing.T) {
	s := newScope(t)
	eqRepr(t, s.T(ctorch.FromSlice([]float32{1, 2}, nil)), "tensor([1., 2.])")
	eqRepr(t, s.T(ctorch.FromSlice([]int64{1, 2, 3}, nil)), "tensor([1, 2, 3])")
	eqRepr(t, s.T(ctorch.FromSlice([]int32{1, 2}, nil)), "tensor([1, 2], dtype=torch.int32)")
	eqRepr(t, s.T(ctorch.FromSlice([]float64{1.5, 2.25}, nil)), "tensor([1.5000, 2.2500], dtype=torch.float64)")
	eqRepr(t, s.T(ctorch.FromSlice([]bool{true, false}, nil)), "tensor([ True, False])")
	eqRepr(t, s.T(ctorch.Scalar(float32(3.5))), "tensor(3.5000)")
	eqRepr(t, s.T(ctorch.Zeros([]int64{2, 2})), "tensor([[0., 0.],\n        [0., 0.]])")
	eqRepr(t, s.T(ctorch.Zeros([]int64{0})), "tensor([])")
	x := s.T(ctorch.FromSlice([]float32{-1, 0.5}, nil))
	if got := fmt.Sprint(x); got != "tensor([-1.0000,  0.5000])" {
		t.Errorf("fmt.Sprint = %q", got)
	}
	if got := fmt.Sprintf("%v|%s", x, x); got != "tensor([-1.0000,  0.5000])|tensor([-1.0000,  0.5000])" {
		t.Errorf("fmt.Sprintf = %q", got)
	}
	if cudaTensors() {
		g := s.T(s.T(ctorch.FromSlice([]int32{1, 2}, nil)).CUDA())
		eqRepr(t, g, "tensor([1, 2], device='cuda:0', dtype=torch.int32)")
	}
}
