package cuda

// The jiterator (capi/ctorch.h section 25; torch.cuda.jiterator._create_jit_fn and
// _create_multi_output_jit_fn; docs/go.md, "Jiterator"): elementwise functions written at run
// time as CUDA C++ source, compiled with NVRTC at their first call and run like built-in ops
// (broadcasting, type promotion, any strides, the current stream).

import (
	"fmt"
	"runtime"
	"strings"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/internal/capi"
)

// JitArgType is the type of a jitted function's extra argument: JitArgInt64, JitArgDouble or
// JitArgBool, in abi_gen.go from capi/abi.toml (ct_jit_arg_type).
type JitArgType int32

// String is the type's name: "int64", "double", "bool".
func (t JitArgType) String() string { return capi.EnumName(jitArgTypeNames, int32(t), "JitArgType") }

// JitArg is one named extra argument (torch's keyword argument) of a jitted function: its
// default value at creation (NewJitFunction), or an override in a call (JitFunction.Call).
// Make it with IntArg, DoubleArg, BoolArg or Arg.
type JitArg struct {
	name string
	typ  JitArgType
	i    int64
	d    float64
	err  string // Arg's complaint about the value's Go type ("" when fine)
}

// IntArg is an int64 argument (CT_JIT_ARG_INT64; torch's Python int).
func IntArg(name string, v int64) JitArg { return JitArg{name: name, typ: JitArgInt64, i: v} }

// DoubleArg is a double argument (CT_JIT_ARG_DOUBLE; torch's Python float).
func DoubleArg(name string, v float64) JitArg { return JitArg{name: name, typ: JitArgDouble, d: v} }

// BoolArg is a bool argument (CT_JIT_ARG_BOOL).
func BoolArg(name string, v bool) JitArg {
	a := JitArg{name: name, typ: JitArgBool}
	if v {
		a.i = 1
	}
	return a
}

// Arg is an argument of the type that v's Go type maps to: the signed and unsigned integer
// types to JitArgInt64 (an unsigned value above math.MaxInt64 is refused), float32 and float64
// to JitArgDouble, bool to JitArgBool. Any other value (a string, nil, a pointer, ...) makes an
// argument that NewJitFunction and Call refuse with an error matching ctorch.ErrArgument.
func Arg(name string, v any) JitArg {
	switch x := v.(type) {
	case int:
		return IntArg(name, int64(x))
	case int8:
		return IntArg(name, int64(x))
	case int16:
		return IntArg(name, int64(x))
	case int32:
		return IntArg(name, int64(x))
	case int64:
		return IntArg(name, x)
	case uint8:
		return IntArg(name, int64(x))
	case uint16:
		return IntArg(name, int64(x))
	case uint32:
		return IntArg(name, int64(x))
	case uint:
		return uintArg(name, uint64(x))
	case uint64:
		return uintArg(name, x)
	case float32:
		return DoubleArg(name, float64(x))
	case float64:
		return DoubleArg(name, x)
	case bool:
		return BoolArg(name, x)
	}
	return JitArg{name: name, typ: -1, err: fmt.Sprintf("unsupported value type %T (want an integer, a float or a bool)", v)}
}

func uintArg(name string, v uint64) JitArg {
	if int64(v) < 0 {
		return JitArg{name: name, typ: -1, err: fmt.Sprintf("%d does not fit in an int64", v)}
	}
	return IntArg(name, int64(v))
}

// Name is the argument's name.
func (a JitArg) Name() string { return a.name }

// Type is the argument's type (JitArgType(-1) for a value Arg refused).
func (a JitArg) Type() JitArgType { return a.typ }

// Value is the argument's value as an int64, a float64 or a bool (nil for a value Arg refused).
func (a JitArg) Value() any {
	switch a.typ {
	case JitArgInt64:
		return a.i
	case JitArgDouble:
		return a.d
	case JitArgBool:
		return a.i != 0
	}
	return nil
}

// jitArgs checks args (names non-empty and without NUL bytes, values that Arg accepted) and
// lays them out as the header's parallel arrays, in their order.
func jitArgs(op string, args []JitArg) (capi.JitArgs, error) {
	var c capi.JitArgs
	if int(int32(len(args))) != len(args) {
		return c, goError(op, ctorch.CodeArgument, "too many extra arguments (%d)", len(args))
	}
	for i, a := range args {
		switch {
		case a.name == "":
			return c, goError(op, ctorch.CodeArgument, "extra argument %d has an empty name", i)
		case strings.IndexByte(a.name, 0) >= 0:
			return c, goError(op, ctorch.CodeArgument, "extra argument %d's name %q contains a NUL byte", i, a.name)
		case a.err != "":
			return c, goError(op, ctorch.CodeArgument, "extra argument '%s': %s", a.name, a.err)
		}
		c.Names = append(c.Names, a.name)
		c.Types = append(c.Types, int32(a.typ))
		c.Ints = append(c.Ints, a.i)
		c.Doubles = append(c.Doubles, a.d)
	}
	return c, nil
}

// JitFunction is a jitted function (torch.cuda.jiterator's _JittedFunction): it owns one
// reference (handle) to it.
//
// Close releases it (idempotent, safe on a nil *JitFunction); a finalizer releases a
// JitFunction that becomes unreachable without Close. The compiled kernels stay with the
// process (JitKernelCount). Using a nil or closed JitFunction returns an error matching
// ctorch.ErrInvalidHandle. A JitFunction may be called from several goroutines at once
// (concurrent first calls compile once). It must not be copied by value.
type JitFunction struct{ o capi.Owned }

func wrapJitFunction(h int64) *JitFunction {
	f := &JitFunction{}
	f.o.Set(h)
	runtime.SetFinalizer(f, (*JitFunction).finalize)
	return f
}

func (f *JitFunction) finalize() { f.o.Finalize(capi.JitRelease) }

// NewJitFunction is torch.cuda.jiterator._create_jit_fn(code, **kwargs): a function of one
// output from code, one or more function templates of which the last is called for each
// element with T the inputs' common dtype's math type (float for float16 and bfloat16), the
// tensors first, then the extra arguments kwargs by position, in the order given (torch's: not
// matched to the parameters' names), with these as their default values:
//
//	f, err := cuda.NewJitFunction(`template <typename T> T fused(T x, T y, T alpha, T beta) {
//	  return alpha * x + beta * y; }`, cuda.IntArg("alpha", 1), cuda.IntArg("beta", 1))
//
// The code is parsed now (ctorch.ErrArgument: "Couldn't parse code, please check correctness")
// and compiled at the first call; no GPU is needed here. ctorch.ErrArgument also for a name
// given twice, an empty name, a NUL byte in a name or in the code, or a value Arg refused.
func NewJitFunction(code string, kwargs ...JitArg) (*JitFunction, error) {
	return newJit("cuda_jit_create", code, false, 1, kwargs)
}

// NewMultiOutputJitFunction is torch.cuda.jiterator._create_multi_output_jit_fn(code,
// num_outputs, **kwargs): numOutputs (1 to 8) outputs, the trailing T& parameters of a function
// returning void. Errors as NewJitFunction, and ctorch.ErrArgument for numOutputs out of range.
func NewMultiOutputJitFunction(code string, numOutputs int, kwargs ...JitArg) (*JitFunction, error) {
	const op = "cuda_jit_create_multi_output"
	if int(int32(numOutputs)) != numOutputs {
		return nil, goError(op, ctorch.CodeArgument, "numOutputs %d does not fit in an int32", numOutputs)
	}
	return newJit(op, code, true, int32(numOutputs), kwargs)
}

func newJit(op, code string, multi bool, numOutputs int32, kwargs []JitArg) (*JitFunction, error) {
	if strings.IndexByte(code, 0) >= 0 {
		return nil, goError(op, ctorch.CodeArgument, "the code contains a NUL byte")
	}
	a, err := jitArgs(op, kwargs)
	if err != nil {
		return nil, err
	}
	h, f := capi.JitCreate(code, multi, numOutputs, a)
	if f != nil {
		return nil, failed(op, f)
	}
	return wrapJitFunction(h), nil
}

// Close releases the function's handle. Closing twice, or closing a nil *JitFunction, does
// nothing and returns nil.
func (f *JitFunction) Close() error {
	if f == nil {
		return nil
	}
	return failed("cuda_jit_release", f.o.Release(f, capi.JitRelease))
}

// Closed reports whether f is nil or has been closed.
func (f *JitFunction) Closed() bool { return f.Handle() == 0 }

// Handle returns the raw ct_cuda_jit_fn handle (0 for a nil or closed JitFunction), still
// owned by f; keep f alive (runtime.KeepAlive) while C code of your own uses it.
func (f *JitFunction) Handle() int64 {
	if f == nil {
		return 0
	}
	return f.o.Get()
}

func (f *JitFunction) handle(op string) (int64, error) {
	if h := f.Handle(); h != 0 {
		return h, nil
	}
	return 0, failed(op, capi.Unusable(f == nil, "JitFunction"))
}

// Ref returns a second JitFunction holding a new reference to the same function
// (ct_cuda_jit_retain). Close both.
func (f *JitFunction) Ref() (*JitFunction, error) {
	const op = "cuda_jit_retain"
	h, err := f.handle(op)
	if err == nil {
		err = failed(op, capi.JitRetain(h))
	}
	runtime.KeepAlive(f)
	if err != nil {
		return nil, err
	}
	return wrapJitFunction(h), nil
}

// Name is the name of the function the code defines last (the one called per element).
func (f *JitFunction) Name() (string, error) {
	const op = "cuda_jit_name"
	h, err := f.handle(op)
	if err != nil {
		return "", err
	}
	s, fl := capi.JitName(h)
	runtime.KeepAlive(f)
	return s, failed(op, fl)
}

// NumOutputs is the function's number of outputs (1 for NewJitFunction's).
func (f *JitFunction) NumOutputs() (int, error) {
	const op = "cuda_jit_num_outputs"
	h, err := f.handle(op)
	if err != nil {
		return 0, err
	}
	n, fl := capi.JitNumOutputs(h)
	runtime.KeepAlive(f)
	return int(n), failed(op, fl)
}

// Call runs f on inputs (1 to 8 CUDA tensors of one device), broadcast together and promoted
// to their common dtype, and returns its outputs, new tensors of that shape and dtype (close
// them), NumOutputs of them. overrides replace declared extra arguments by name for this call
// (torch's keyword arguments), keeping their type unless another is given. It runs on the
// current stream of the inputs' device for the calling OS thread, and compiles the kernel at
// the first call for these dtypes and this layout (or reads it from the disk cache, see
// docs/jiterator.md): a compile error matches ctorch.ErrArgument
// and carries NVRTC's log with line numbers. Errors: ctorch.ErrCUDAUnavailable without a GPU;
// ctorch.ErrArgument (more than 8 inputs, "<name> is not declared in function definition", an
// override Arg refused); ctorch.ErrDevice (inputs on several devices, CPU inputs);
// ctorch.ErrShape (shapes that do not broadcast);
// ctorch.ErrNotSupported (NVRTC missing); ctorch.ErrInvalidHandle (a nil or closed input).
func (f *JitFunction) Call(inputs []*ctorch.Tensor, overrides ...JitArg) ([]*ctorch.Tensor, error) {
	const op = "cuda_jit_run"
	h, hs, over, err := f.callArgs(op, inputs, overrides)
	if err != nil {
		return nil, err
	}
	n, fl := capi.JitNumOutputs(h)
	if fl == nil {
		outs := make([]int64, n)
		if fl = capi.JitRun(h, hs, over, outs); fl == nil {
			runtime.KeepAlive(f)
			runtime.KeepAlive(inputs)
			ts := make([]*ctorch.Tensor, n)
			for i, o := range outs {
				ts[i] = ctorch.FromHandle(o)
			}
			return ts, nil
		}
	}
	runtime.KeepAlive(f)
	runtime.KeepAlive(inputs)
	return nil, failed(op, fl)
}

// CallOut is Call's out form (torch's out= keyword; in place when an output is also an input):
// it writes f's values into outs, NumOutputs tensors that stay the caller's (nothing new is
// returned). Each output is a CUDA tensor of the inputs' device with exactly their broadcast
// shape (ctorch.ErrShape "output with shape [4] doesn't match the broadcast shape [5]"; no
// resizing), any strides but no element twice (ctorch.ErrArgument), and a dtype the common
// dtype can be cast to (ctorch.ErrDType otherwise): the values are computed in the common
// dtype and cast to each output's. An input sharing memory with an output without being the
// same view is read from a copy. On failure no output is written. Errors as Call, and
// ctorch.ErrArgument when len(outs) is not NumOutputs (a nil or empty outs included:
// "my_fused_kernel makes 1 outputs, but n_outs is 0"), ctorch.ErrInvalidHandle for a nil or
// closed output ("out 1: nil *Tensor"); none of them needs a GPU.
func (f *JitFunction) CallOut(outs []*ctorch.Tensor, inputs []*ctorch.Tensor, overrides ...JitArg) error {
	const op = "cuda_jit_run_out"
	h, hs, over, err := f.callArgs(op, inputs, overrides)
	if err != nil {
		return err
	}
	ohs, err := tensorHandles(op, "out", outs)
	if err != nil {
		return err
	}
	fl := capi.JitRunOut(h, hs, over, ohs)
	runtime.KeepAlive(f)
	runtime.KeepAlive(inputs)
	runtime.KeepAlive(outs)
	return failed(op, fl)
}

// callArgs are Call's and CallOut's operands as C takes them: f's handle, the inputs' handles
// and the overrides' arrays, or the binding's error (a nil or closed f or input, an override
// Arg refused). The caller keeps f and inputs alive across its C call.
func (f *JitFunction) callArgs(op string, inputs []*ctorch.Tensor, overrides []JitArg) (int64, []int64, capi.JitArgs, error) {
	var over capi.JitArgs
	h, err := f.handle(op)
	if err != nil {
		return 0, nil, over, err
	}
	hs, err := tensorHandles(op, "input", inputs)
	if err != nil {
		return 0, nil, over, err
	}
	over, err = jitArgs(op, overrides)
	return h, hs, over, err
}

// LiveJitFunctionCount is the number of live jitted-function handles in the process (leak
// checks).
func LiveJitFunctionCount() (int64, error) {
	out := []int64{0}
	err := call("live_cuda_jit_count", func() int { return capi.Ct_live_cuda_jit_count(out) })
	return out[0], err
}

// JitKernelCount is the number of kernels the jiterator has made ready in this process,
// compiled or read from its disk cache (all functions, devices, dtypes and layouts); it only
// grows.
func JitKernelCount() (int64, error) {
	out := []int64{0}
	err := call("cuda_jit_kernel_count", func() int { return capi.Ct_cuda_jit_kernel_count(out) })
	return out[0], err
}
