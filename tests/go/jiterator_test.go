package ctorch_test

// The jiterator's binding (capi/ctorch.h section 25; cuda.JitFunction, NewJitFunction,
// NewMultiOutputJitFunction, JitArg). On any machine: the argument types against the C ones,
// the marshalling of the extra arguments into the header's four arrays (every type, order
// kept, none as n 0 with NULL arrays), the values the binding refuses itself (a Go type with no
// jiterator type, an empty name, NUL bytes), creation, name, number of outputs, lifetimes
// (Close twice, use after Close, Ref, the finalizer, the live count back to its start), a
// parse error, a call without CUDA, CallOut's checks of its outputs and the kernel count. On a
// GPU (TestGPUJit*, skipped here with the reason): torch's fused kernel with its defaults,
// overrides and kwargs given in another order, a two-output function, CallOut (another dtype,
// in place, a wrong shape, two outputs), an NVRTC compile error, and eight goroutines' first
// calls compiling one kernel. Values and messages over dtypes and layouts are the C suite's
// (tests/capi/jiterator_test.c).

import (
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/cuda"
	"ctorch.dev/ctorch/internal/capi"
)

const fusedCode = "template <typename T> T my_fused_kernel(T x, T y, T alpha, T beta) { return alpha * x + beta * y; }"

const twoOutCode = "template <typename T> void sd(T a, T b, bool neg, T scale, T& out0, T& out1) {\n" +
	"  out0 = (a + b) * scale; out1 = neg ? b - a : a - b; }"

func liveJits(t *testing.T) int64 {
	t.Helper()
	n, err := cuda.LiveJitFunctionCount()
	noErr(t, err)
	return n
}

// jitScope checks, at the end of the test, that the live jitted-function count is back.
func jitScope(t *testing.T) {
	t.Helper()
	start := liveJits(t)
	t.Cleanup(func() {
		if n := liveJits(t); n != start {
			t.Errorf("live jitted-function count is %d at the end of the test, want %d", n, start)
		}
	})
}

func newJit(t *testing.T, code string, kwargs ...cuda.JitArg) *cuda.JitFunction {
	t.Helper()
	f, err := cuda.NewJitFunction(code, kwargs...)
	noErr(t, err)
	t.Cleanup(func() { noErr(t, f.Close()) })
	return f
}

func TestJitArgTypes(t *testing.T) {
	if int(cuda.JitArgInt64) != capi.CT_JIT_ARG_INT64 || int(cuda.JitArgDouble) != capi.CT_JIT_ARG_DOUBLE ||
		int(cuda.JitArgBool) != capi.CT_JIT_ARG_BOOL {
		t.Fatalf("types %d %d %d", cuda.JitArgInt64, cuda.JitArgDouble, cuda.JitArgBool)
	}
	for ty, want := range map[cuda.JitArgType]string{cuda.JitArgInt64: "int64", cuda.JitArgDouble: "double",
		cuda.JitArgBool: "bool", 5: "JitArgType(5)"} {
		if ty.String() != want {
			t.Errorf("%d.String() = %q, want %q", int32(ty), ty.String(), want)
		}
	}
	// Arg maps Go types as the other bindings map theirs: integers to int64, floats to double.
	for _, c := range []struct {
		a    cuda.JitArg
		ty   cuda.JitArgType
		want any
	}{
		{cuda.IntArg("a", -7), cuda.JitArgInt64, int64(-7)},
		{cuda.DoubleArg("a", 0.25), cuda.JitArgDouble, 0.25},
		{cuda.BoolArg("a", true), cuda.JitArgBool, true},
		{cuda.BoolArg("a", false), cuda.JitArgBool, false},
		{cuda.Arg("a", 3), cuda.JitArgInt64, int64(3)},
		{cuda.Arg("a", int8(-3)), cuda.JitArgInt64, int64(-3)},
		{cuda.Arg("a", int16(300)), cuda.JitArgInt64, int64(300)},
		{cuda.Arg("a", int32(-70000)), cuda.JitArgInt64, int64(-70000)},
		{cuda.Arg("a", int64(1)<<40), cuda.JitArgInt64, int64(1) << 40},
		{cuda.Arg("a", uint8(200)), cuda.JitArgInt64, int64(200)},
		{cuda.Arg("a", uint16(60000)), cuda.JitArgInt64, int64(60000)},
		{cuda.Arg("a", uint32(4000000000)), cuda.JitArgInt64, int64(4000000000)},
		{cuda.Arg("a", uint(9)), cuda.JitArgInt64, int64(9)},
		{cuda.Arg("a", uint64(1)<<62), cuda.JitArgInt64, int64(1) << 62},
		{cuda.Arg("a", float32(1.5)), cuda.JitArgDouble, 1.5},
		{cuda.Arg("a", -2.5), cuda.JitArgDouble, -2.5},
		{cuda.Arg("a", true), cuda.JitArgBool, true},
		{cuda.Arg("a", "1"), -1, nil},
		{cuda.Arg("a", nil), -1, nil},
		{cuda.Arg("a", uint64(1)<<63), -1, nil},
	} {
		if c.a.Name() != "a" || c.a.Type() != c.ty || !reflect.DeepEqual(c.a.Value(), c.want) {
			t.Errorf("%+v: name %q type %v value %#v, want type %v value %#v", c.a, c.a.Name(), c.a.Type(),
				c.a.Value(), c.ty, c.want)
		}
	}
}

// The four arrays C receives, read back from the C memory the binding made.
func TestJitArgsMarshalling(t *testing.T) {
	n, null, back := capi.MarshalJitArgsForTest(capi.JitArgs{})
	if n != 0 || null != [4]bool{true, true, true, true} || back.Names != nil {
		t.Errorf("no arguments: n %d, NULL arrays %v, entries %+v; want 0, all NULL, none", n, null, back)
	}
	in := capi.JitArgs{Names: []string{"zeta", "alpha", "ß µ"}, Types: []int32{2, 1, 0},
		Ints: []int64{1, 0, -1 << 40}, Doubles: []float64{0, 0.125, 0}}
	n, null, back = capi.MarshalJitArgsForTest(in)
	if n != 3 || null != [4]bool{} || !reflect.DeepEqual(back, in) {
		t.Errorf("three arguments: n %d, NULL arrays %v, entries %+v; want %+v", n, null, back, in)
	}
}

// The binding's own checks of names and values: ErrArgument before any C call.
func TestJitRefusedArguments(t *testing.T) {
	jitScope(t)
	for _, c := range []struct {
		args []cuda.JitArg
		msg  string
	}{
		{[]cuda.JitArg{cuda.IntArg("alpha", 1), cuda.Arg("beta", "1")},
			"extra argument 'beta': unsupported value type string (want an integer, a float or a bool)"},
		{[]cuda.JitArg{cuda.Arg("beta", []int{1})},
			"extra argument 'beta': unsupported value type []int (want an integer, a float or a bool)"},
		{[]cuda.JitArg{cuda.Arg("beta", uint64(1)<<63)}, "extra argument 'beta': 9223372036854775808 does not fit in an int64"},
		{[]cuda.JitArg{cuda.IntArg("alpha", 1), cuda.IntArg("", 1)}, "extra argument 1 has an empty name"},
		{[]cuda.JitArg{cuda.IntArg("al\x00pha", 1)}, "extra argument 0's name \"al\\x00pha\" contains a NUL byte"},
		{[]cuda.JitArg{{}}, "extra argument 0 has an empty name"}, // the zero JitArg
	} {
		f, err := cuda.NewJitFunction(fusedCode, c.args...)
		e := wantErr(t, err, ctorch.ErrArgument)
		if f != nil || e.Op != "cuda_jit_create" || e.Message != c.msg {
			t.Errorf("%v: %v %+v; want message %q", c.args, f, e, c.msg)
		}
	}
	_, err := cuda.NewJitFunction("template <typename T> T f(T x) { return x; }\x00")
	if e := wantErr(t, err, ctorch.ErrArgument); e.Message != "the code contains a NUL byte" {
		t.Errorf("NUL in code: %+v", e)
	}
	_, err = cuda.NewMultiOutputJitFunction(twoOutCode, 1<<32)
	if e := wantErr(t, err, ctorch.ErrArgument); !strings.Contains(e.Message, "4294967296 does not fit") ||
		e.Op != "cuda_jit_create_multi_output" {
		t.Errorf("numOutputs 2^32: %+v", e)
	}
	// refused overrides too, before the call reaches C (which would say CUDA is unavailable here)
	f := newJit(t, fusedCode, cuda.IntArg("alpha", 1), cuda.IntArg("beta", 1))
	outs, err := f.Call(nil, cuda.Arg("beta", struct{}{}))
	if e := wantErr(t, err, ctorch.ErrArgument); outs != nil || e.Op != "cuda_jit_run" ||
		!strings.Contains(e.Message, "extra argument 'beta': unsupported value type struct {}") {
		t.Errorf("refused override: %v %+v", outs, e)
	}
	err = f.CallOut(nil, nil, cuda.Arg("beta", struct{}{}))
	if e := wantErr(t, err, ctorch.ErrArgument); e.Op != "cuda_jit_run_out" ||
		!strings.Contains(e.Message, "extra argument 'beta': unsupported value type struct {}") {
		t.Errorf("refused override in CallOut: %+v", e)
	}
}

// What the library checks at creation comes back as its error.
func TestJitCreationErrors(t *testing.T) {
	jitScope(t)
	_, err := cuda.NewJitFunction("template <typename T> T my _kernel(T x) { return x; }")
	if e := wantErr(t, err, ctorch.ErrArgument); !strings.Contains(e.Message, "Couldn't parse code, please check correctness") ||
		e.Op != "cuda_jit_create" {
		t.Errorf("parse error: %+v", e)
	}
	_, err = cuda.NewJitFunction(fusedCode, cuda.IntArg("alpha", 1), cuda.DoubleArg("alpha", 2))
	if e := wantErr(t, err, ctorch.ErrArgument); !strings.Contains(e.Message, "extra argument 'alpha' is declared twice") {
		t.Errorf("twice: %+v", e)
	}
	for _, n := range []int{0, 9, -1} {
		_, err = cuda.NewMultiOutputJitFunction(twoOutCode, n)
		if e := wantErr(t, err, ctorch.ErrArgument); !strings.Contains(e.Message, "makes 1 to 8 outputs") {
			t.Errorf("%d outputs: %+v", n, e)
		}
	}
}

func TestJitFunctionLifetime(t *testing.T) {
	start := liveJits(t)
	f, err := cuda.NewJitFunction(fusedCode, cuda.Arg("alpha", 1), cuda.Arg("beta", 1.0))
	noErr(t, err)
	if f.Closed() || f.Handle() == 0 || liveJits(t) != start+1 {
		t.Fatalf("new: Closed %v Handle %d live %d (start %d)", f.Closed(), f.Handle(), liveJits(t), start)
	}
	name, err := f.Name()
	noErr(t, err)
	n, err := f.NumOutputs()
	noErr(t, err)
	if name != "my_fused_kernel" || n != 1 {
		t.Errorf("Name %q NumOutputs %d, want my_fused_kernel 1", name, n)
	}
	r, err := f.Ref()
	noErr(t, err)
	if r.Handle() != f.Handle() || liveJits(t) != start+1 {
		t.Errorf("Ref: handle %d (f %d) live %d: want the same handle and count", r.Handle(), f.Handle(), liveJits(t))
	}
	noErr(t, f.Close())
	noErr(t, f.Close()) // twice: nothing
	if !f.Closed() || f.Handle() != 0 || liveJits(t) != start+1 {
		t.Errorf("after closing one of two references: Closed %v Handle %d live %d", f.Closed(), f.Handle(), liveJits(t))
	}
	if name, err := r.Name(); err != nil || name != "my_fused_kernel" {
		t.Errorf("the other reference: %q %v", name, err)
	}
	noErr(t, r.Close())
	if n := liveJits(t); n != start {
		t.Errorf("live %d after closing both, want %d", n, start)
	}
	// use after Close, and a nil *JitFunction
	var nilFn *cuda.JitFunction
	for _, c := range []struct {
		f   *cuda.JitFunction
		msg string
	}{{f, "use of a closed JitFunction"}, {nilFn, "nil *JitFunction"}} {
		_, e1 := c.f.Name()
		_, e2 := c.f.NumOutputs()
		_, e3 := c.f.Ref()
		_, e4 := c.f.Call(nil)
		e5 := c.f.CallOut(nil, nil)
		for i, err := range []error{e1, e2, e3, e4, e5} {
			if e := wantErr(t, err, ctorch.ErrInvalidHandle); e.Message != c.msg {
				t.Errorf("%s, call %d: %+v", c.msg, i, e)
			}
		}
	}
	if nilFn.Close() != nil || !nilFn.Closed() || nilFn.Handle() != 0 {
		t.Errorf("nil *JitFunction: Close, Closed, Handle")
	}
	// two outputs, a bool and a double argument
	m, err := cuda.NewMultiOutputJitFunction(twoOutCode, 2, cuda.BoolArg("neg", false), cuda.DoubleArg("scale", 2.5))
	noErr(t, err)
	if name, _ := m.Name(); name != "sd" {
		t.Errorf("Name %q, want sd", name)
	}
	if n, _ := m.NumOutputs(); n != 2 {
		t.Errorf("NumOutputs %d, want 2", n)
	}
	noErr(t, m.Close())
	// the finalizer releases what was dropped without Close
	for i := 0; i < 5; i++ {
		_, err := cuda.NewJitFunction(fusedCode, cuda.IntArg("alpha", 1), cuda.IntArg("beta", 1))
		noErr(t, err)
	}
	collectUntil(t, "jitted functions", liveJits, start)
}

func TestJitCallErrors(t *testing.T) {
	s := newScope(t)
	jitScope(t)
	f := newJit(t, fusedCode, cuda.IntArg("alpha", 1), cuda.IntArg("beta", 1))
	x := s.T(ctorch.FromSlice([]float32{1, 2, 3}, nil))
	closed := s.T(ctorch.FromSlice([]float32{1}, nil))
	noErr(t, closed.Close())
	for _, c := range []struct {
		in  []*ctorch.Tensor
		msg string
	}{{[]*ctorch.Tensor{x, nil}, "input 1: nil *Tensor"}, {[]*ctorch.Tensor{closed}, "input 0: use of a closed Tensor"}} {
		outs, err := f.Call(c.in)
		if e := wantErr(t, err, ctorch.ErrInvalidHandle); outs != nil || e.Message != c.msg || e.Op != "cuda_jit_run" {
			t.Errorf("%s: %v %+v", c.msg, outs, e)
		}
	}
	if cuda.IsAvailable() {
		t.Skip("CUDA is available: a call without it cannot be observed here; see TestGPUJit*")
	}
	before := liveCount(t)
	outs, err := f.Call([]*ctorch.Tensor{x, x}, cuda.DoubleArg("beta", -1))
	if e := wantErr(t, err, ctorch.ErrCUDAUnavailable); outs != nil || e.Op != "cuda_jit_run" {
		t.Errorf("without CUDA: %v %+v", outs, e)
	}
	if n := liveCount(t); n != before {
		t.Errorf("a failed call left %d live tensors, want %d", n, before)
	}
	k, err := cuda.JitKernelCount()
	noErr(t, err)
	if k != 0 {
		t.Errorf("JitKernelCount %d without a GPU, want 0", k)
	}
}

// CallOut's outputs: the binding's checks of each one, the library's count check (a nil outs
// slice is no outputs), and a call without CUDA that writes and returns nothing.
func TestJitCallOutErrors(t *testing.T) {
	s := newScope(t)
	jitScope(t)
	f := newJit(t, fusedCode, cuda.IntArg("alpha", 1), cuda.IntArg("beta", 1))
	x := s.T(ctorch.FromSlice([]float32{1, 2, 3}, nil))
	o := s.T(ctorch.Zeros([]int64{3}))
	closed := s.T(ctorch.Zeros([]int64{3}))
	noErr(t, closed.Close())
	for _, c := range []struct {
		outs []*ctorch.Tensor
		msg  string
	}{{[]*ctorch.Tensor{nil}, "out 0: nil *Tensor"}, {[]*ctorch.Tensor{o, closed}, "out 1: use of a closed Tensor"}} {
		err := f.CallOut(c.outs, []*ctorch.Tensor{x, x})
		if e := wantErr(t, err, ctorch.ErrInvalidHandle); e.Message != c.msg || e.Op != "cuda_jit_run_out" {
			t.Errorf("%s: %+v", c.msg, e)
		}
	}
	err := f.CallOut([]*ctorch.Tensor{o}, []*ctorch.Tensor{x, nil})
	if e := wantErr(t, err, ctorch.ErrInvalidHandle); e.Message != "input 1: nil *Tensor" {
		t.Errorf("nil input: %+v", e)
	}
	for _, outs := range [][]*ctorch.Tensor{nil, {}} { // checked by C before CUDA is needed
		err := f.CallOut(outs, []*ctorch.Tensor{x, x})
		if e := wantErr(t, err, ctorch.ErrArgument); e.Message != "my_fused_kernel makes 1 outputs, but n_outs is 0" ||
			e.Op != "cuda_jit_run_out" {
			t.Errorf("outs %#v: %+v", outs, e)
		}
	}
	if cuda.IsAvailable() {
		t.Skip("CUDA is available: a call without it cannot be observed here; see TestGPUJitCallOut")
	}
	before := liveCount(t)
	err = f.CallOut([]*ctorch.Tensor{o}, []*ctorch.Tensor{x, x}, cuda.DoubleArg("beta", -1))
	if e := wantErr(t, err, ctorch.ErrCUDAUnavailable); e.Op != "cuda_jit_run_out" {
		t.Errorf("without CUDA: %+v", e)
	}
	if n := liveCount(t); n != before {
		t.Errorf("a failed CallOut left %d live tensors, want %d", n, before)
	}
	eqF64(t, o, 0, 0, 0)
}

func TestJitKernelCount(t *testing.T) {
	k, err := cuda.JitKernelCount()
	noErr(t, err)
	raw := []int64{-1}
	if k < 0 || capi.Ct_cuda_jit_kernel_count(raw) != 0 || raw[0] < k {
		t.Errorf("JitKernelCount %d, C says %d", k, raw[0])
	}
}

func cudaF32(s *scope, v ...float32) *ctorch.Tensor {
	return s.T(ctorch.FromSlice(v, nil, ctorch.CUDADevice(0)))
}

// oneOut(s)(f.Call(...)) is the call's one output, closed at the end of the test.
func oneOut(s *scope) func([]*ctorch.Tensor, error) *ctorch.Tensor {
	return func(outs []*ctorch.Tensor, err error) *ctorch.Tensor {
		s.t.Helper()
		noErr(s.t, err)
		s.keep(outs...)
		if len(outs) != 1 {
			s.t.Fatalf("%d outputs, want 1", len(outs))
		}
		return outs[0]
	}
}

func TestGPUJitFusedKernel(t *testing.T) {
	s := gpuTest(t, 1)
	jitScope(t)
	f := newJit(t, fusedCode, cuda.IntArg("alpha", 1), cuda.IntArg("beta", 1))
	x, y := cudaF32(s, 1, 2, 3, 4, 5), cudaF32(s, 10, 20, 30, 40, 50)
	out := oneOut(s)(f.Call([]*ctorch.Tensor{x, y}))
	eqDType(t, out, ctorch.Float32)
	eqF64(t, out, 11, 22, 33, 44, 55)
	out = oneOut(s)(f.Call([]*ctorch.Tensor{x, y}, cuda.IntArg("beta", -1), cuda.DoubleArg("alpha", 0.5)))
	eqF64(t, out, -9.5, -19, -28.5, -38, -47.5)
	// kwargs go by position: beta's value given first is the function's alpha
	g := newJit(t, fusedCode, cuda.IntArg("beta", 2), cuda.IntArg("alpha", 0))
	out = oneOut(s)(g.Call([]*ctorch.Tensor{x, y}))
	eqF64(t, out, 2, 4, 6, 8, 10)
	_, err := f.Call([]*ctorch.Tensor{x, y}, cuda.IntArg("gamma", 1))
	if e := wantErr(t, err, ctorch.ErrArgument); !strings.Contains(e.Message, "gamma is not declared in function definition") {
		t.Errorf("unknown override: %+v", e)
	}
	k, err := cuda.JitKernelCount()
	noErr(t, err)
	if k < 1 {
		t.Errorf("JitKernelCount %d after a call, want >= 1", k)
	}
}

func TestGPUJitTwoOutputs(t *testing.T) {
	s := gpuTest(t, 1)
	jitScope(t)
	f, err := cuda.NewMultiOutputJitFunction(twoOutCode, 2, cuda.BoolArg("neg", false), cuda.DoubleArg("scale", 2))
	noErr(t, err)
	defer f.Close()
	a, b := cudaF32(s, 1, 2), cudaF32(s, 10, 20)
	outs, err := f.Call([]*ctorch.Tensor{a, b}, cuda.BoolArg("neg", true))
	noErr(t, err)
	s.keep(outs...)
	if len(outs) != 2 {
		t.Fatalf("%d outputs, want 2", len(outs))
	}
	eqF64(t, outs[0], 22, 44)
	eqF64(t, outs[1], 9, 18)
}

// CallOut into outputs the caller made: another dtype, in place, a wrong shape, two outputs.
func TestGPUJitCallOut(t *testing.T) {
	s := gpuTest(t, 1)
	jitScope(t)
	f := newJit(t, fusedCode, cuda.IntArg("alpha", 1), cuda.IntArg("beta", 1))
	x, y := cudaF32(s, 1, 2, 3, 4, 5), cudaF32(s, 10, 20, 30, 40, 50)
	o := s.T(ctorch.Empty([]int64{5}, ctorch.Float64, ctorch.CUDADevice(0)))
	before := liveCount(t)
	noErr(t, f.CallOut([]*ctorch.Tensor{o}, []*ctorch.Tensor{x, y}))
	if n := liveCount(t); n != before {
		t.Errorf("CallOut made %d live tensors, want %d: it returns nothing new", n, before)
	}
	eqDType(t, o, ctorch.Float64)
	eqF64(t, o, 11, 22, 33, 44, 55)
	noErr(t, f.CallOut([]*ctorch.Tensor{o}, []*ctorch.Tensor{x, y}, cuda.IntArg("beta", -1)))
	eqF64(t, o, -9, -18, -27, -36, -45)
	// a wrong shape: the library's error, nothing written
	s4 := s.T(ctorch.Zeros([]int64{4}, ctorch.CUDADevice(0)))
	err := f.CallOut([]*ctorch.Tensor{s4}, []*ctorch.Tensor{x, y})
	if e := wantErr(t, err, ctorch.ErrShape); e.Message != "output with shape [4] doesn't match the broadcast shape [5]" ||
		e.Op != "cuda_jit_run_out" {
		t.Errorf("shape mismatch: %+v", e)
	}
	eqF64(t, s4, 0, 0, 0, 0)
	// in place: x = x + y
	noErr(t, f.CallOut([]*ctorch.Tensor{x}, []*ctorch.Tensor{x, y}))
	eqF64(t, x, 11, 22, 33, 44, 55)
	eqF64(t, y, 10, 20, 30, 40, 50)
	// two outputs
	g, err := cuda.NewMultiOutputJitFunction(twoOutCode, 2, cuda.BoolArg("neg", false), cuda.DoubleArg("scale", 2))
	noErr(t, err)
	defer g.Close()
	a, b := cudaF32(s, 1, 2), cudaF32(s, 10, 20)
	o0 := s.T(ctorch.Empty([]int64{2}, ctorch.Float32, ctorch.CUDADevice(0)))
	o1 := s.T(ctorch.Empty([]int64{2}, ctorch.Float64, ctorch.CUDADevice(0)))
	noErr(t, g.CallOut([]*ctorch.Tensor{o0, o1}, []*ctorch.Tensor{a, b}, cuda.BoolArg("neg", true)))
	eqF64(t, o0, 22, 44)
	eqF64(t, o1, 9, 18)
	eqDType(t, o1, ctorch.Float64)
}

func TestGPUJitCompileError(t *testing.T) {
	s := gpuTest(t, 1)
	jitScope(t)
	f := newJit(t, "template <typename T> T broken(T x) {\n  return x + undefined_name;\n}")
	outs, err := f.Call([]*ctorch.Tensor{cudaF32(s, 1)})
	e := wantErr(t, err, ctorch.ErrArgument)
	if outs != nil || !strings.Contains(e.Message, `identifier "undefined_name" is undefined`) {
		t.Errorf("compile error: %v %+v", outs, e)
	}
	if !errors.Is(err, ctorch.ErrArgument) {
		t.Errorf("errors.Is(%v, ErrArgument) is false", err)
	}
}

// Eight goroutines call a new function at once: each gets its own result, and one kernel is
// made ready (compiled, or read from the disk cache: the library's lock; the binding adds no
// state of its own to a call).
func TestGPUJitConcurrentFirstCalls(t *testing.T) {
	s := gpuTest(t, 1)
	jitScope(t)
	f := newJit(t, "template <typename T> T cube_plus(T x, T c) { return x * x * x + c; }", cuda.IntArg("c", 0))
	x := s.T(ctorch.Arange(0, 10, 1, ctorch.Float64, ctorch.CUDADevice(0)))
	before, err := cuda.JitKernelCount()
	noErr(t, err)
	var wg sync.WaitGroup
	sums := make([]float64, 8)
	errs := make([]error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			outs, err := f.Call([]*ctorch.Tensor{x}, cuda.IntArg("c", int64(i)))
			if err != nil {
				errs[i] = err
				return
			}
			defer outs[0].Close()
			v, err := ctorch.ToSlice[float64](outs[0])
			for _, e := range v {
				sums[i] += e
			}
			errs[i] = err
		}(i)
	}
	wg.Wait()
	after, err := cuda.JitKernelCount()
	noErr(t, err)
	for i := range sums {
		if errs[i] != nil || sums[i] != float64(2025+10*i) { // sum of k^3 + i, k = 0..9
			t.Errorf("goroutine %d: sum %v, error %v; want %d", i, sums[i], errs[i], 2025+10*i)
		}
	}
	if after != before+1 {
		t.Errorf("JitKernelCount went from %d to %d, want one kernel made ready", before, after)
	}
}
