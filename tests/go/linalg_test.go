package ctorch_test

// Matrix products (Matmul, Mm, Bmm, Dot, Mv, Addmm), the torch.backends.cuda.matmul switches and
// cuda.CurrentBLASHandle through the binding: each product called with operands and scalars
// reaching C, errors mapped with the op's name, closed and nil operands, the switches' bools
// both ways. Shape rules, dtypes and values at scale are the C suite's (tests/capi/linalg_test.c).

import (
	"runtime"
	"strings"
	"testing"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/cuda"
)

// wantMessage checks the error's sentinel, Op and message (which must start with prefix).
func wantMessage(t *testing.T, err error, sentinel error, op, prefix string) {
	t.Helper()
	e := wantErr(t, err, sentinel)
	if e.Op != op {
		t.Errorf("error op %q, want %q (%v)", e.Op, op, err)
	}
	if !strings.HasPrefix(e.Message, prefix) {
		t.Errorf("error message %q, want it to start with %q", e.Message, prefix)
	}
}

func TestMatrixProducts(t *testing.T) {
	s, dev := setup(t)
	a := s.T(ctorch.FromSlice([]float32{1, 2, 3, 4, 5, 6}, []int64{2, 3}, dev))
	b := s.T(ctorch.FromSlice([]float32{7, 8, 9, 10, 11, 12}, []int64{3, 2}, dev))
	eqF64(t, s.T(a.Mm(b)), 58, 64, 139, 154)
	eqF64(t, s.T(a.Matmul(b)), 58, 64, 139, 154)
	v := s.T(ctorch.FromSlice([]float32{1, 0, -1}, nil, dev))
	eqF64(t, s.T(a.Mv(v)), -2, -2)
	eqF64(t, s.T(v.Dot(v)), 2)
	ba, bb := s.T(a.View(1, 2, 3)), s.T(b.View(1, 3, 2))
	r := s.T(ba.Bmm(bb))
	eqShape(t, r, 1, 2, 2)
	eqF64(t, r, 58, 64, 139, 154)
	// Addmm: beta * self + alpha * (m1 @ m2), both scalars reach C
	c := s.T(ctorch.Ones([]int64{2, 2}, dev))
	eqF64(t, s.T(c.Addmm(a, b, 0.5, 2)), 116.5, 128.5, 278.5, 308.5)
}

func TestMatrixProductErrors(t *testing.T) {
	s, dev := setup(t)
	m43 := s.T(ctorch.Ones([]int64{4, 3}, dev))
	err := s.E(m43.Mm(m43))
	wantMessage(t, err, ctorch.ErrShape, "mm", "mat1 and mat2 shapes cannot be multiplied (4x3 and 4x3)")
	if want := "ctorch: mm: CT_ERR_SHAPE (103): mat1 and mat2 shapes cannot be multiplied (4x3 and 4x3)"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
	i22 := s.T(ctorch.Ones([]int64{2, 2}, ctorch.Int32, dev))
	wantMessage(t, s.E(i22.Mm(i22)), ctorch.ErrDType, "mm", `"mm" not implemented for 'Int'`)
	v3 := s.T(ctorch.Ones([]int64{3}, dev))
	closed := s.T(ctorch.Ones([]int64{3, 3}, dev))
	noErr(t, closed.Close())
	var nilT *ctorch.Tensor
	for name, f := range map[string]func() (*ctorch.Tensor, error){
		"Mm(closed)":       func() (*ctorch.Tensor, error) { return m43.Mm(closed) },
		"closed.Matmul":    func() (*ctorch.Tensor, error) { return closed.Matmul(m43) },
		"Bmm(nil)":         func() (*ctorch.Tensor, error) { return m43.Bmm(nilT) },
		"nil.Dot":          func() (*ctorch.Tensor, error) { return nilT.Dot(v3) },
		"Mv(closed)":       func() (*ctorch.Tensor, error) { return m43.Mv(closed) },
		"Addmm(m1 closed)": func() (*ctorch.Tensor, error) { return m43.Addmm(closed, m43, 1, 1) },
		"Addmm(m2 nil)":    func() (*ctorch.Tensor, error) { return m43.Addmm(m43, nilT, 1, 1) },
		"closed.Addmm":     func() (*ctorch.Tensor, error) { return closed.Addmm(m43, m43, 1, 1) },
	} {
		r, err := f()
		s.keep(r)
		if r != nil {
			t.Errorf("%s returned a tensor with error %v", name, err)
		}
		wantErr(t, err, ctorch.ErrInvalidHandle)
	}
}

// The switches of torch.backends.cuda.matmul: PyTorch's defaults, set/get round trips of the
// bool (restored at the end), process-wide; CurrentBLASHandle without a GPU.
func TestMatmulSwitches(t *testing.T) {
	for _, sw := range []struct {
		name string
		get  func() (bool, error)
		set  func(bool) error
		def  bool
	}{
		{"allow_tf32", cuda.AllowTF32, cuda.SetAllowTF32, false},
		{"allow_fp16_reduced_precision_reduction", cuda.AllowFP16ReducedPrecisionReduction, cuda.SetAllowFP16ReducedPrecisionReduction, true},
		{"allow_bf16_reduced_precision_reduction", cuda.AllowBF16ReducedPrecisionReduction, cuda.SetAllowBF16ReducedPrecisionReduction, true},
	} {
		for _, v := range []bool{sw.def, !sw.def, sw.def} {
			if v != sw.def {
				noErr(t, sw.set(v))
			}
			got, err := sw.get()
			noErr(t, err)
			if got != v {
				t.Errorf("%s is %v, want %v", sw.name, got, v)
			}
			noErr(t, sw.set(sw.def))
		}
	}
	// process-wide: a goroutine on another OS thread sees it
	runtime.LockOSThread()
	noErr(t, cuda.SetAllowTF32(true))
	seen := make(chan bool)
	go func() {
		v, err := cuda.AllowTF32()
		seen <- err == nil && v
	}()
	if !<-seen {
		t.Errorf("another goroutine does not see allow_tf32 = true")
	}
	noErr(t, cuda.SetAllowTF32(false))
	runtime.UnlockOSThread()
	if !cuda.IsAvailable() {
		h, err := cuda.CurrentBLASHandle()
		wantUnavailable(t, err)
		if h != 0 {
			t.Errorf("CurrentBLASHandle() = %#x with an error, want 0", h)
		}
	}
}

// On a GPU: a product on CUDA, CurrentBLASHandle, operands on two devices.
func TestGPUMatrixProducts(t *testing.T) {
	s := gpuTest(t, 1)
	gpu := ctorch.CUDADevice(0)
	a := s.T(ctorch.FromSlice([]float32{1, 2, 3, 4, 5, 6}, []int64{2, 3}, gpu))
	b := s.T(ctorch.FromSlice([]float32{7, 8, 9, 10, 11, 12}, []int64{3, 2}, gpu))
	r := s.T(a.Mm(b))
	if r.Device() != gpu {
		t.Errorf("result on %v, want %v", r.Device(), gpu)
	}
	eqF64(t, r, 58, 64, 139, 154)
	h1, err := cuda.CurrentBLASHandle()
	noErr(t, err)
	h2, err := cuda.CurrentBLASHandle()
	noErr(t, err)
	if h1 == 0 || h2 != h1 {
		t.Errorf("CurrentBLASHandle() = %#x then %#x on one thread", h1, h2)
	}
	c := s.T(ctorch.Ones([]int64{3, 2}, ctorch.Float32))
	wantMessage(t, s.E(a.Mm(c)), ctorch.ErrDevice, "mm", "Expected all tensors to be on the same device")
}
