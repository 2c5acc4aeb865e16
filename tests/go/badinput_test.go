package ctorch_test

// The bad-input corpus (issue 19): one row per hostile call through the Go layer -- nil, closed,
// zero-valued and foreign objects, wrong kinds, dtypes, shapes and devices, out-of-range and
// meaningless values -- each of which must return a *ctorch.Error of the expected kind whose
// message names the problem, never panic, hang or leak. After the corpus (and after the
// concurrent-close and finalizer races below) the live counts of every handle kind are back to
// their start. docs/go.md, "Bad input".

import (
	"errors"
	"math"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/cuda"
	"ctorch.dev/ctorch/nccl"
)

// badCase is one row of the corpus: call must fail with an error matching want whose message
// contains frag (case-insensitively). need is "" (runs anywhere), "gpu" (skipped visibly
// without CUDA) or "nogpu" (the CUDA-unavailable error, skipped visibly with CUDA). cBug, when
// set, names a value the C layer still accepts (issue 19): if the call succeeds the case is
// skipped with that reason instead of failing, and it checks the error once the C layer is fixed.
type badCase struct {
	name string
	call func() error
	want error
	frag string
	need string
	cBug string
}

// liveCounts are the live handle counts of every kind the binding owns.
type liveCounts struct {
	tensors, generators, streams, events, graphs, grapheds, jits, comms int64
}

func allLiveCounts(t *testing.T) liveCounts {
	t.Helper()
	g, err := ctorch.LiveGeneratorCount()
	noErr(t, err)
	return liveCounts{
		tensors: liveCount(t), generators: g, streams: liveStreams(t), events: liveEvents(t),
		graphs: liveGraphs(t), grapheds: liveGrapheds(t), jits: liveJits(t), comms: liveComms(t),
	}
}

// countsScope checks at the end of the test (after the cleanups registered later, which run
// first) that the live counts of every handle kind are back to their start, collecting garbage
// first so that the objects the test dropped on purpose are finalized.
func countsScope(t *testing.T) {
	t.Helper()
	start := allLiveCounts(t)
	t.Cleanup(func() {
		deadline := time.Now().Add(20 * time.Second)
		now := allLiveCounts(t)
		for now != start && time.Now().Before(deadline) {
			collect()
			now = allLiveCounts(t)
		}
		if now != start {
			t.Errorf("live counts %+v at the end, want %+v (their start)", now, start)
		}
	})
}

// errc is the error of a call's (value, error) result; a value returned anyway (by a call that
// should have failed) is closed, so that it does not stay live.
func errc(v any, err error) error {
	if c, ok := v.(interface{ Close() error }); ok && !isNil(v) {
		c.Close()
	}
	return err
}

// isNil reports whether v holds a nil pointer.
func isNil(v any) bool { return v == nil || reflect.ValueOf(v).IsNil() }

// openAndClosed makes two objects with mk: one open (closed at the end of the test) and one
// closed at once.
func openAndClosed[T interface{ Close() error }](t *testing.T, mk func() (T, error)) (open, closed T) {
	t.Helper()
	v, err := mk()
	open = keepOpen(t, v, err)
	closed, err = mk()
	noErr(t, err)
	noErr(t, closed.Close())
	return open, closed
}

// checkBad runs one row in a subtest.
func checkBad(t *testing.T, c badCase) {
	t.Run(c.name, func(t *testing.T) {
		switch {
		case c.need == "gpu" && !cudaTensors():
			t.Skip("needs a GPU (CUDA tensors)")
		case c.need == "nogpu" && cuda.IsAvailable():
			t.Skip("CUDA is available: the CUDA-unavailable error cannot be observed here")
		}
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("panicked: %v", r)
				}
			}()
			err = c.call()
		}()
		if err == nil && c.cBug != "" {
			t.Skipf("C layer accepts it (reported, issue 19): %s", c.cBug)
		}
		e := wantErr(t, err, c.want)
		if !strings.Contains(strings.ToLower(e.Message), strings.ToLower(c.frag)) {
			t.Errorf("message %q does not contain %q", e.Message, c.frag)
		}
	})
}

func TestBadInputCorpus(t *testing.T) {
	countsScope(t)
	s := newScope(t)

	// the objects the rows use
	x := s.T(ctorch.Ones([]int64{2, 3}))                  // float32 [2, 3]
	v := s.T(ctorch.FromSlice([]float32{1, 2, 3}, nil))   // float32 [3]
	i64 := s.T(ctorch.ArangeInt(0, 3, 1))                 // int64 [3]
	bl := s.T(ctorch.FromSlice([]bool{true, false}, nil)) // bool [2]
	f64 := s.T(ctorch.Zeros([]int64{3}, ctorch.Float64))  // float64 [3]
	empty := s.T(ctorch.Empty([]int64{0}))                // float32 [0]
	sc := s.T(ctorch.Scalar(float32(1)))                  // 0-dim
	closed, err := ctorch.Ones([]int64{2})
	noErr(t, err)
	noErr(t, closed.Close())
	var nilT *ctorch.Tensor
	zeroT := new(ctorch.Tensor) // a Tensor the library never made

	gen, closedGen := openAndClosed(t, func() (*ctorch.Generator, error) { return ctorch.NewGenerator(ctorch.CPU) })
	var nilGen *ctorch.Generator

	ev, closedEv := openAndClosed(t, func() (*cuda.Event, error) { return cuda.NewEvent(cuda.EventDefault) })
	var nilEv *cuda.Event
	var nilStream *cuda.Stream
	zeroStream := new(cuda.Stream)

	graph, err := cuda.NewGraph()
	noErr(t, err)
	noErr(t, graph.Close()) // closed
	var nilGraph *cuda.Graph
	var nilGraphed *cuda.Graphed
	zeroGraphed := new(cuda.Graphed)

	jit, closedJit := openAndClosed(t, func() (*cuda.JitFunction, error) { return cuda.NewJitFunction(fusedCode) })
	var nilJit *cuda.JitFunction
	var nilComm *nccl.Comm
	zeroComm := new(nccl.Comm)

	nan, inf := math.NaN(), math.Inf(1)
	huge := s.T(sc.Expand(1 << 40))                                 // a view of one element
	farCPU := ctorch.Device{Type: ctorch.DeviceCPU, Index: 1 << 32} // an index beyond int32
	bad := ctorch.ErrInvalidHandle
	closedMsg, nilMsg := "use of a closed", "nil *"
	ts := func(xs ...*ctorch.Tensor) []*ctorch.Tensor { return xs }

	cases := []badCase{
		// ---- nil, closed and zero-valued tensors -------------------------------------------
		{"nil tensor add", func() error { return errc(nilT.Add(x)) }, bad, nilMsg, "", ""},
		{"add nil operand", func() error { return errc(x.Add(nilT)) }, bad, nilMsg, "", ""},
		{"closed tensor neg", func() error { return errc(closed.Neg()) }, bad, closedMsg, "", ""},
		{"closed operand mul", func() error { return errc(x.Mul(closed)) }, bad, closedMsg, "", ""},
		{"zero Tensor abs", func() error { return errc(zeroT.Abs()) }, bad, closedMsg, "", ""},
		{"closed tensor item", func() error { return errc(closed.Item()) }, bad, closedMsg, "", ""},
		{"nil tensor Float32s", func() error { return errc(nilT.Float32s()) }, bad, nilMsg, "", ""},
		{"closed tensor Bytes", func() error { return errc(closed.Bytes()) }, bad, closedMsg, "", ""},
		{"closed tensor CopyTo", func() error { return closed.CopyTo(make([]float32, 2)) }, bad, closedMsg, "", ""},
		{"closed tensor view", func() error { return errc(closed.View(2)) }, bad, closedMsg, "", ""},
		{"closed tensor sum", func() error { return errc(closed.Sum()) }, bad, closedMsg, "", ""},
		{"closed tensor fill", func() error { return closed.Fill(1) }, bad, closedMsg, "", ""},
		{"closed tensor in-place add", func() error { return closed.AddInPlace(v) }, bad, closedMsg, "", ""},
		{"copy from closed", func() error { return v.CopyFrom(closed) }, bad, closedMsg, "", ""},
		{"copy into nil", func() error { return nilT.CopyFrom(v) }, bad, nilMsg, "", ""},
		{"closed tensor repr", func() error { return errc(closed.Repr()) }, bad, closedMsg, "", ""},
		{"closed tensor sizes", func() error { return errc(closed.ShapeErr()) }, bad, closedMsg, "", ""},
		{"closed tensor size(0)", func() error { return errc(closed.Size(0)) }, bad, closedMsg, "", ""},
		{"closed tensor stride(0)", func() error { return errc(closed.Stride(0)) }, bad, closedMsg, "", ""},
		{"closed tensor device", func() error { return errc(closed.DeviceErr()) }, bad, closedMsg, "", ""},
		{"closed tensor data ptr", func() error { return errc(closed.DataPtr()) }, bad, closedMsg, "", ""},
		{"closed tensor ref", func() error { return errc(closed.Ref()) }, bad, closedMsg, "", ""},
		{"closed tensor to", func() error { return errc(closed.To(ctorch.Float64)) }, bad, closedMsg, "", ""},
		{"closed tensor clone", func() error { return errc(closed.Clone()) }, bad, closedMsg, "", ""},
		{"closed tensor pin", func() error { return errc(closed.PinMemory()) }, bad, closedMsg, "", ""},
		{"closed tensor is pinned", func() error { return errc(closed.IsPinnedErr()) }, bad, closedMsg, "", ""},
		{"shares storage with nil", func() error { return errc(x.SharesStorage(nilT)) }, bad, nilMsg, "", ""},
		{"is same closed", func() error { return errc(closed.IsSame(x)) }, bad, closedMsg, "", ""},
		{"zeros like nil", func() error { return errc(ctorch.ZerosLike(nilT)) }, bad, nilMsg, "", ""},
		{"full like closed", func() error { return errc(ctorch.FullLike(closed, 1)) }, bad, closedMsg, "", ""},
		{"rand like nil", func() error { return errc(ctorch.RandLike(nilT)) }, bad, nilMsg, "", ""},
		{"new zeros of closed", func() error { return errc(closed.NewZeros([]int64{2})) }, bad, closedMsg, "", ""},
		{"new tensor from nil", func() error { return errc(ctorch.NewTensorFrom(nilT, []float32{1}, nil)) }, bad, nilMsg, "", ""},
		{"where nil cond", func() error { return errc(ctorch.Where(nilT, x, x)) }, bad, nilMsg, "", ""},
		{"matmul closed", func() error { return errc(x.Matmul(closed)) }, bad, closedMsg, "", ""},
		{"addmm nil bias", func() error { return errc(nilT.Addmm(x, x, 1, 1)) }, bad, nilMsg, "", ""},
		{"fft of closed", func() error { return errc(ctorch.FFT(closed)) }, bad, closedMsg, "", ""},
		{"fftshift of nil", func() error { return errc(ctorch.FFTShift(nilT)) }, bad, nilMsg, "", ""},
		{"max dim of closed", func() error { _, _, err := closed.MaxDim(0, false); return err }, bad, closedMsg, "", ""},
		{"uniform_ on closed", func() error { return closed.UniformInPlace(0, 1, nil) }, bad, closedMsg, "", ""},
		{"cat with a nil element", func() error { return errc(ctorch.Cat(ts(v, nilT), 0)) }, bad, nilMsg, "", ""},
		{"stack with a closed element", func() error { return errc(ctorch.Stack(ts(closed, v), 0)) }, bad, closedMsg, "", ""},
		{"record stream of closed", func() error { return closed.RecordStream(nil) }, bad, closedMsg, "", ""},

		// ---- foreign and wrong-kind handles ------------------------------------------------
		{"foreign handle", func() error { return errc(ctorch.FromHandle(0x5eed_0000_1234).Neg()) }, bad, "not a ctorch tensor handle", "", ""},
		{"foreign handle close", func() error { return ctorch.FromHandle(0x5eed_0000_4321).Close() }, bad, "not a ctorch tensor handle", "", ""},
		{"foreign handle Bytes", func() error { return errc(ctorch.FromHandle(0x5eed_0000_2345).Bytes()) }, bad, "not a ctorch tensor handle", "", ""},
		{"foreign handle Float32s", func() error { return errc(ctorch.FromHandle(0x5eed_0000_3456).Float32s()) }, bad, "not a ctorch tensor handle", "", ""},
		{"foreign handle CopyTo", func() error { return ctorch.FromHandle(0x5eed_0000_5678).CopyTo(make([]int64, 1)) }, bad, "not a ctorch tensor handle", "", ""},
		{"rand like a foreign handle on a device", func() error {
			return errc(ctorch.RandLike(ctorch.FromHandle(0x5eed_0000_6789), ctorch.CPU))
		}, bad, "not a ctorch tensor handle", "", ""},
		{"released handle used again", func() error {
			y, err := ctorch.Ones([]int64{1})
			if err != nil {
				return err
			}
			h := y.Handle()
			y.Close()
			return errc(ctorch.FromHandle(h).Sum())
		}, bad, "already released", "", ""},
		{"forged tensor handle of a wrong generation", func() error {
			return errc(ctorch.FromHandle(int64((0x5<<28|0xabcde)<<32 | 1)).Neg())
		}, bad, "already released", "", ""},
		{"event handle as a tensor", func() error { return errc(ctorch.FromHandle(ev.Handle()).Sum()) }, bad, "not a ctorch tensor handle", "", ""},
		{"generator handle as a tensor", func() error { return errc(ctorch.FromHandle(gen.Handle()).Repr()) }, bad, "not a ctorch tensor handle", "", ""},
		{"close of an event handle as a tensor", func() error { return ctorch.FromHandle(ev.Handle()).Close() }, bad, "not a ctorch tensor handle", "", ""},

		// ---- dtypes -------------------------------------------------------------------------
		{"sub of bools", func() error { return errc(bl.Sub(bl)) }, ctorch.ErrDType, "bool", "", ""},
		{"neg of bool", func() error { return errc(bl.Neg()) }, ctorch.ErrDType, "bool", "", ""},
		{"floor of complex", func() error {
			c := s.T(ctorch.FromSlice([]complex64{1, 2}, nil))
			return errc(c.Floor())
		}, ctorch.ErrDType, "complex", "", ""},
		{"float into int64 in place", func() error { return i64.AddInPlace(v) }, ctorch.ErrDType, "can't be cast", "", ""},
		{"true divide into int64 in place", func() error { return i64.DivInPlace(i64) }, ctorch.ErrDType, "can't be cast", "", ""},
		{"undefined dtype factory", func() error { return errc(ctorch.Zeros([]int64{2}, ctorch.Undefined)) }, ctorch.ErrDType, "dtype", "", ""},
		{"dtype out of range", func() error { return errc(ctorch.Zeros([]int64{2}, ctorch.DType(99))) }, ctorch.ErrDType, "99", "", ""},
		{"to an unknown dtype", func() error { return errc(v.To(ctorch.DType(-5))) }, ctorch.ErrDType, "-5", "", ""},
		{"itemsize of undefined", func() error { return errc(ctorch.Undefined.ItemSize()) }, ctorch.ErrDType, "invalid dtype value -1", "", ""},
		{"promote undefined", func() error { return errc(ctorch.PromoteTypes(ctorch.Undefined, ctorch.Float32)) }, ctorch.ErrDType, "invalid dtype value -1", "", ""},
		{"rand of int64", func() error { return errc(ctorch.Rand([]int64{2}, ctorch.Int64)) }, ctorch.ErrDType, "not implemented for 'Long'", "", ""},
		{"randn of bool", func() error { return errc(ctorch.Randn([]int64{2}, ctorch.Bool)) }, ctorch.ErrDType, "not implemented for 'Bool'", "", ""},
		{"dot of mixed dtypes", func() error { return errc(v.Dot(f64)) }, ctorch.ErrDType, "same dtype", "", ""},
		{"mm of ints and floats", func() error { return errc(x.Mm(s.T(ctorch.Ones([]int64{3, 2}, ctorch.Int64)))) }, ctorch.ErrDType, "same dtype", "", ""},
		{"from bytes of undefined", func() error { return errc(ctorch.FromBytes([]byte{0, 0, 0, 0}, nil, ctorch.Undefined)) }, ctorch.ErrDType, "invalid dtype value -1", "", ""},
		{"randint of complex64", func() error { return errc(ctorch.Randint(0, 5, []int64{2}, ctorch.Complex64)) }, ctorch.ErrDType, "'ComplexFloat'", "", ""},

		// ---- shapes -------------------------------------------------------------------------
		{"add of [2,3] and [3,2]", func() error { return errc(x.Add(s.T(ctorch.Ones([]int64{3, 2})))) }, ctorch.ErrShape, "3", "", ""},
		{"in-place broadcast into a smaller tensor", func() error { return v.AddInPlace(x) }, ctorch.ErrShape, "doesn't match the broadcast shape [2, 3]", "", ""},
		{"view to the wrong numel", func() error { return errc(x.View(4)) }, ctorch.ErrShape, "[4]", "", ""},
		{"view with two -1", func() error { return errc(x.View(-1, -1)) }, ctorch.ErrShape, "only one dimension can be inferred", "", ""},
		{"reshape to the wrong numel", func() error { return errc(x.Reshape(7)) }, ctorch.ErrShape, "7", "", ""},
		{"view of a non-contiguous tensor", func() error {
			tr := s.T(x.Transpose(0, 1))
			return errc(tr.View(6))
		}, ctorch.ErrShape, ".reshape(", "", ""},
		{"expand to fewer dims", func() error { return errc(x.Expand(3)) }, ctorch.ErrShape, "number of sizes provided (1)", "", ""},
		{"expand a size that is not 1", func() error { return errc(x.Expand(4, 3)) }, ctorch.ErrShape, "expanded size of the tensor (4)", "", ""},
		{"item of 6 elements", func() error { return errc(x.Item()) }, ctorch.ErrShape, "6 elements", "", ""},
		{"matmul [2,3]x[2,3]", func() error { return errc(x.Matmul(x)) }, ctorch.ErrShape, "(2x3 and 2x3)", "", ""},
		{"mm of a vector", func() error { return errc(v.Mm(x)) }, ctorch.ErrShape, "must be a matrix", "", ""},
		{"bmm of matrices", func() error { return errc(x.Bmm(x)) }, ctorch.ErrShape, "must be a 3D tensor", "", ""},
		{"dot of different lengths", func() error { return errc(v.Dot(s.T(ctorch.Ones([]int64{2})))) }, ctorch.ErrShape, "3 and 2", "", ""},
		{"mv with a wrong length", func() error { return errc(x.Mv(s.T(ctorch.Ones([]int64{2})))) }, ctorch.ErrShape, "vec (2)", "", ""},
		{"cat of different ranks", func() error { return errc(ctorch.Cat(ts(x, v), 0)) }, ctorch.ErrShape, "same number of dimensions", "", ""},
		{"stack of different shapes", func() error { return errc(ctorch.Stack(ts(v, bl), 0)) }, ctorch.ErrShape, "equal size", "", ""},
		{"where of mismatched shapes", func() error { return errc(ctorch.Where(bl, v, v)) }, ctorch.ErrShape, "[2] and [3]", "", ""},
		{"from slice shape mismatch", func() error { return errc(ctorch.FromSlice([]float32{1, 2, 3}, []int64{2, 2})) }, ctorch.ErrBufferSize, "needs exactly 16", "", ""},
		{"from slice of nil data", func() error { return errc(ctorch.FromSlice[float32](nil, []int64{1})) }, ctorch.ErrBufferSize, "0 bytes", "", ""},
		{"copy between unbroadcastable shapes", func() error { return v.CopyFrom(x) }, ctorch.ErrShape, "can't be broadcast", "", ""},
		{"max of an empty tensor", func() error { return errc(empty.Max()) }, ctorch.ErrShape, "numel() == 0", "", ""},
		{"argmax of an empty tensor", func() error { return errc(empty.ArgMax()) }, ctorch.ErrShape, "non-zero size", "", ""},

		// ---- out-of-range dims, indices, sizes and counts -----------------------------------
		{"size of dim 5", func() error { return errc(x.Size(5)) }, ctorch.ErrIndex, "5", "", ""},
		{"stride of dim -3", func() error { return errc(x.Stride(-3)) }, ctorch.ErrIndex, "-3", "", ""},
		{"select index 2 of size 2", func() error { return errc(x.Select(0, 2)) }, ctorch.ErrIndex, "2", "", ""},
		{"select index -3", func() error { return errc(x.Select(0, -3)) }, ctorch.ErrIndex, "-3", "", ""},
		{"select a dim beyond", func() error { return errc(x.Select(2, 0)) }, ctorch.ErrIndex, "2", "", ""},
		{"select of a 0-dim tensor", func() error { return errc(sc.Select(0, 0)) }, ctorch.ErrIndex, "0-dim", "", ""},
		{"transpose dim 5", func() error { return errc(x.Transpose(0, 5)) }, ctorch.ErrIndex, "5", "", ""},
		{"permute repeated dim", func() error { return errc(x.Permute(0, 0)) }, ctorch.ErrArgument, "duplicate dims", "", ""},
		{"permute too few dims", func() error { return errc(x.Permute(0)) }, ctorch.ErrShape, "len(dims) = 1", "", ""},
		{"narrow past the end", func() error { return errc(x.Narrow(1, 1, 5)) }, ctorch.ErrIndex, "length (5)", "", ""},
		{"narrow negative length", func() error { return errc(x.Narrow(1, 0, -1)) }, ctorch.ErrArgument, "length must be non-negative", "", ""},
		{"slice step 0", func() error { return errc(x.Slice(1, 0, 3, 0)) }, ctorch.ErrArgument, "step", "", ""},
		{"slice negative step", func() error { return errc(x.Slice(1, 0, 3, -1)) }, ctorch.ErrArgument, "step", "", ""},
		{"squeeze dim 2", func() error { return errc(x.SqueezeDim(2)) }, ctorch.ErrIndex, "2", "", ""},
		{"unsqueeze dim 4", func() error { return errc(x.Unsqueeze(4)) }, ctorch.ErrIndex, "4", "", ""},
		{"flatten start after end", func() error { return errc(x.Flatten(1, 0)) }, ctorch.ErrArgument, "start_dim cannot come after end_dim", "", ""},
		{"flatten a dim beyond int32", func() error { return errc(x.Flatten(0, 1<<40)) }, ctorch.ErrIndex, "1099511627776", "", ""},
		{"sum over dim 7", func() error { return errc(x.SumDims([]int{7}, false)) }, ctorch.ErrIndex, "7", "", ""},
		{"sum over a repeated dim", func() error { return errc(x.SumDims([]int{0, 0}, false)) }, ctorch.ErrArgument, "appears multiple times", "", ""},
		{"mean over dim -4", func() error { return errc(x.MeanDims([]int{-4}, true)) }, ctorch.ErrIndex, "-4", "", ""},
		{"amax over dim 2", func() error { return errc(x.Amax([]int{2}, false)) }, ctorch.ErrIndex, "2", "", ""},
		{"min dim 3", func() error { _, _, err := x.MinDim(3, false); return err }, ctorch.ErrIndex, "3", "", ""},
		{"argmin dim -3", func() error { return errc(x.ArgMinDim(-3, false)) }, ctorch.ErrIndex, "-3", "", ""},
		{"norm over dim 9", func() error { return errc(x.Norm(2, []int{9}, false)) }, ctorch.ErrIndex, "9", "", ""},
		{"cat dim 3", func() error { return errc(ctorch.Cat(ts(x, x), 3)) }, ctorch.ErrIndex, "3", "", ""},
		{"stack dim -4", func() error { return errc(ctorch.Stack(ts(x, x), -4)) }, ctorch.ErrIndex, "-4", "", ""},
		{"cat of no tensors", func() error { return errc(ctorch.Cat(nil, 0)) }, ctorch.ErrArgument, "non-empty list", "", ""},
		{"stack of no tensors", func() error { return errc(ctorch.Stack([]*ctorch.Tensor{}, 0)) }, ctorch.ErrArgument, "non-empty list", "", ""},
		{"zeros of negative size", func() error { return errc(ctorch.Zeros([]int64{2, -1})) }, ctorch.ErrShape, "negative dimension -1", "", ""},
		{"empty of a huge size", func() error { return errc(ctorch.Empty([]int64{1 << 62, 1 << 62})) }, ctorch.ErrShape, "int64", "", ""},
		{"full of 100 dims", func() error { return errc(ctorch.Full(make([]int64, 100), 1)) }, ctorch.ErrArgument, "100", "", ""},
		{"eye of -1", func() error { return errc(ctorch.Eye(-1)) }, ctorch.ErrArgument, "-1", "", ""},
		{"eye n x -2", func() error { return errc(ctorch.EyeNM(2, -2)) }, ctorch.ErrArgument, "-2", "", ""},
		{"linspace of -1 steps", func() error { return errc(ctorch.Linspace(0, 1, -1)) }, ctorch.ErrArgument, "-1", "", ""},
		{"randint low == high", func() error { return errc(ctorch.Randint(5, 5, []int64{2})) }, ctorch.ErrArgument, "from=5 >= to=5", "", ""},
		{"randn negative size", func() error { return errc(ctorch.Randn([]int64{-3})) }, ctorch.ErrShape, "negative dimension -3", "", ""},
		{"from bytes of the wrong length", func() error { return errc(ctorch.FromBytes([]byte{1, 2, 3}, nil, ctorch.Float32)) }, ctorch.ErrBufferSize, "3 bytes", "", ""},
		{"Float32s of 2^40 broadcast elements", func() error { return errc(huge.Float32s()) }, ctorch.ErrOutOfMemory, "more than the machine's memory", "", ""},
		{"Bytes of 2^40 broadcast elements", func() error { return errc(huge.Bytes()) }, ctorch.ErrOutOfMemory, "1099511627776 elements", "", ""},
		{"Complex128s of 2^62 broadcast elements", func() error {
			h := s.T(sc.Expand(1 << 62))
			return errc(h.Complex128s())
		}, ctorch.ErrOutOfMemory, "4611686018427387904 elements", "", ""},
		{"copy to a short slice", func() error { return v.CopyTo(make([]float32, 2)) }, ctorch.ErrBufferSize, "8 bytes", "", ""},
		{"copy to an unsupported type", func() error { return v.CopyTo([]string{"a"}) }, ctorch.ErrArgument, "[]string", "", ""},
		{"copy to nil", func() error { return v.CopyTo(nil) }, ctorch.ErrArgument, "nil", "", ""},
		{"unary op 9999", func() error { return errc(v.Unary(ctorch.UnaryOp(9999))) }, ctorch.ErrArgument, "9999", "", ""},
		{"binary op -1", func() error { return errc(v.Binary(ctorch.BinaryOp(-1), v)) }, ctorch.ErrArgument, "-1", "", ""},
		{"reduce op 77", func() error { return errc(x.Reduce(ctorch.ReduceOp(77), nil, false, ctorch.Undefined)) }, ctorch.ErrArgument, "77", "", ""},
		{"set_num_threads(0)", func() error { return ctorch.SetNumThreads(0) }, ctorch.ErrArgument, "0", "", ""},
		{"set_num_threads(-4)", func() error { return ctorch.SetNumThreads(-4) }, ctorch.ErrArgument, "-4", "", ""},
		{"set_num_threads(1<<40)", func() error { return ctorch.SetNumThreads(1 << 40) }, ctorch.ErrArgument, "1099511627776", "", ""},
		{"set_num_threads(1<<30)", func() error {
			n, err := ctorch.NumThreads()
			if err != nil {
				return err
			}
			err = ctorch.SetNumThreads(1 << 30)
			if err == nil {
				ctorch.SetNumThreads(n) // restore what the C layer wrongly accepted
			}
			return err
		}, ctorch.ErrArgument, "1073741824", "", ""},

		// ---- NaN and infinities where they mean nothing -------------------------------------
		{"arange step 0", func() error { return errc(ctorch.Arange(0, 1, 0)) }, ctorch.ErrArgument, "step", "", ""},
		{"arange step +inf", func() error { return errc(ctorch.Arange(0, 1, inf)) }, ctorch.ErrArgument, "step", "", ""},
		{"arange end NaN", func() error { return errc(ctorch.Arange(0, nan, 1)) }, ctorch.ErrArgument, "nan", "", ""},
		{"arange wrong sign", func() error { return errc(ctorch.Arange(0, 5, -1)) }, ctorch.ErrArgument, "step sign", "", ""},
		{"linspace of 1<<62 steps", func() error { return errc(ctorch.Linspace(0, 1, 1<<62)) }, ctorch.ErrOutOfMemory, "4611686018427387904", "", ""},
		{"full int8 of 1e30", func() error { return errc(ctorch.Full([]int64{1}, 1e30, ctorch.Int8)) }, ctorch.ErrArgument, "overflow", "", ""},
		{"fill_ int64 with NaN", func() error { return i64.Fill(nan) }, ctorch.ErrArgument, "overflow", "", ""},
		{"uniform_ from > to", func() error { return v.UniformInPlace(2, 1, nil) }, ctorch.ErrArgument, "from=2 > to=1", "", ""},
		{"uniform_ to +inf", func() error { return v.UniformInPlace(0, inf, nil) }, ctorch.ErrArgument, "to=inf", "", ""},
		{"normal_ negative std", func() error { return v.NormalInPlace(0, -1, nil) }, ctorch.ErrArgument, "std", "", ""},
		{"normal_ NaN std", func() error { return v.NormalInPlace(0, nan, nil) }, ctorch.ErrArgument, "std", "", ""},
		{"bernoulli_ p 1.5", func() error { return v.BernoulliInPlace(1.5, nil) }, ctorch.ErrArgument, "p=1.5", "", ""},
		{"bernoulli_ p NaN", func() error { return v.BernoulliInPlace(nan, nil) }, ctorch.ErrArgument, "p=nan", "", ""},
		{"random_ from >= to", func() error { return i64.RandomRangeInPlace(3, 3, nil) }, ctorch.ErrArgument, "from=3 >= to=3", "", ""},
		{"fft length 0", func() error { return errc(ctorch.FFT(v, ctorch.FFTLength(0))) }, ctorch.ErrArgument, "(0)", "", ""},
		{"fft length -2", func() error { return errc(ctorch.FFT(v, ctorch.FFTLength(-2))) }, ctorch.ErrArgument, "(-2)", "", ""},
		{"fft dim 4", func() error { return errc(ctorch.FFT(v, ctorch.FFTDim(4))) }, ctorch.ErrIndex, "4", "", ""},
		{"rfft of complex", func() error {
			c := s.T(ctorch.FromSlice([]complex64{1, 2}, nil))
			return errc(ctorch.RFFT(c))
		}, ctorch.ErrDType, "real-valued", "", ""},
		{"fftn repeated dims", func() error { return errc(ctorch.FFTN(x, ctorch.FFTDims(0, 0))) }, ctorch.ErrArgument, "unique", "", ""},
		{"fftfreq n -1", func() error { return errc(ctorch.FFTFreq(-1, 1)) }, ctorch.ErrArgument, "-1", "", ""},
		{"fftshift dim 3", func() error { return errc(ctorch.FFTShift(x, 3)) }, ctorch.ErrIndex, "3", "", ""},
		{"per-process memory fraction NaN", func() error { return cuda.SetPerProcessMemoryFraction(nan, 0) }, ctorch.ErrArgument, "Invalid fraction", "gpu", ""},
		{"memory fraction without CUDA", func() error { return cuda.SetPerProcessMemoryFraction(0.5, 0) }, ctorch.ErrCUDAUnavailable, "CUDA", "nogpu", ""},
		{"per-process memory fraction 2", func() error { return cuda.SetPerProcessMemoryFraction(2, 0) }, ctorch.ErrArgument, "Invalid fraction 2", "gpu", ""},

		// ---- devices --------------------------------------------------------------------------
		{"parse device tpu", func() error { return errc(ctorch.ParseDevice("tpu")) }, ctorch.ErrDeviceString, "tpu", "", ""},
		{"parse device empty", func() error { return errc(ctorch.ParseDevice("")) }, ctorch.ErrDeviceString, "''", "", ""},
		{"parse device cuda:-1", func() error { return errc(ctorch.ParseDevice("cuda:-1")) }, ctorch.ErrDeviceString, "cuda:-1", "", ""},
		{"parse device with NUL", func() error { return errc(ctorch.ParseDevice("cpu\x00")) }, ctorch.ErrDeviceString, "NUL", "", ""},
		{"zeros on cpu:1<<32", func() error { return errc(ctorch.Zeros([]int64{1}, farCPU)) }, ctorch.ErrIndex, "device index 4294967296", "", ""},
		{"to cpu:1<<32+1", func() error { return errc(v.To(ctorch.Device{Type: ctorch.DeviceCPU, Index: 1<<32 + 1})) }, ctorch.ErrIndex, "device index 4294967297", "", ""},
		{"arange on cpu:1<<32", func() error { return errc(ctorch.Arange(0, 2, 1, farCPU)) }, ctorch.ErrIndex, "4294967296", "", ""},
		{"from slice on cpu:1<<32", func() error { return errc(ctorch.FromSlice([]int8{1}, nil, farCPU)) }, ctorch.ErrIndex, "4294967296", "", ""},
		{"rand on cpu:1<<32", func() error { return errc(ctorch.Rand([]int64{1}, farCPU)) }, ctorch.ErrIndex, "4294967296", "", ""},
		{"rand like on cpu:1<<32", func() error { return errc(ctorch.RandLike(v, farCPU)) }, ctorch.ErrIndex, "4294967296", "", ""},
		{"ones like on cpu:1<<32", func() error { return errc(ctorch.OnesLike(v, farCPU)) }, ctorch.ErrIndex, "4294967296", "", ""},
		{"new zeros on cpu:1<<32", func() error { return errc(v.NewZeros([]int64{1}, farCPU)) }, ctorch.ErrIndex, "4294967296", "", ""},
		{"fftfreq on cpu:1<<32", func() error { return errc(ctorch.FFTFreq(4, 1, farCPU)) }, ctorch.ErrIndex, "4294967296", "", ""},
		{"cuda(1<<32)", func() error { return errc(v.CUDA(1 << 32)) }, ctorch.ErrIndex, "4294967296", "", ""},
		{"device type 7", func() error { return errc(ctorch.Zeros([]int64{1}, ctorch.Device{Type: 7})) }, ctorch.ErrArgument, "device type 7", "", ""},
		{"cuda tensor without CUDA", func() error { return errc(ctorch.Zeros([]int64{1}, ctorch.CUDA)) }, ctorch.ErrCUDAUnavailable, "CUDA", "nogpu", ""},
		{"to cuda without CUDA", func() error { return errc(v.CUDA()) }, ctorch.ErrCUDAUnavailable, "CUDA", "nogpu", ""},
		{"cuda generator without CUDA", func() error { return errc(ctorch.NewGenerator(ctorch.CUDA)) }, ctorch.ErrCUDAUnavailable, "CUDA", "nogpu", ""},
		{"new stream without CUDA", func() error { return errc(cuda.NewStream(0, 0)) }, ctorch.ErrCUDAUnavailable, "CUDA", "nogpu", ""},
		{"set device without CUDA", func() error { return cuda.SetDevice(0) }, ctorch.ErrCUDAUnavailable, "CUDA", "nogpu", ""},
		{"memory allocated without CUDA", func() error { return errc(cuda.MemoryAllocated(0)) }, ctorch.ErrCUDAUnavailable, "CUDA", "nogpu", ""},
		{"rng state without CUDA", func() error { return errc(cuda.GetRngState(0)) }, ctorch.ErrCUDAUnavailable, "CUDA", "nogpu", ""},
		{"nccl unique id without CUDA", func() error { return errc(nccl.UniqueID()) }, ctorch.ErrCUDAUnavailable, "CUDA", "nogpu", ""},
		{"jit call without CUDA", func() error { return errc(jit.Call(ts(v, v))) }, ctorch.ErrCUDAUnavailable, "CUDA", "nogpu", ""},
		{"graph capture without CUDA", func() error {
			g, err := cuda.NewGraph()
			if err != nil {
				return err
			}
			defer g.Close()
			return g.CaptureBegin(0, cuda.CaptureModeGlobal)
		}, ctorch.ErrCUDAUnavailable, "CUDA", "nogpu", ""},
		{"device name of device 1<<20", func() error { return errc(cuda.DeviceName(1 << 20)) }, ctorch.ErrCUDAUnavailable, "CUDA is not available", "nogpu", ""},
		{"set device 1<<20", func() error { return cuda.SetDevice(1 << 20) }, ctorch.ErrIndex, "Invalid CUDA device index 1048576", "gpu", ""},
		{"add cuda and cpu", func() error {
			g := s.T(v.CUDA())
			return errc(g.Add(v))
		}, ctorch.ErrDevice, "device", "gpu", ""},
		{"cpu generator for a cuda tensor", func() error {
			g := s.T(v.CUDA())
			return g.UniformInPlace(0, 1, gen)
		}, ctorch.ErrDevice, "device", "gpu", ""},

		// ---- generators, events, streams ---------------------------------------------------
		{"closed generator seed", func() error { return closedGen.ManualSeed(1) }, bad, closedMsg, "", ""},
		{"nil generator state", func() error { return errc(nilGen.GetState()) }, bad, nilMsg, "", ""},
		{"closed generator offset", func() error { return errc(closedGen.Offset()) }, bad, closedMsg, "", ""},
		{"closed generator ref", func() error { return errc(closedGen.Ref()) }, bad, closedMsg, "", ""},
		{"rand with a closed generator", func() error { return errc(ctorch.Rand([]int64{2}, ctorch.WithGenerator(closedGen))) }, bad, closedMsg, "", ""},
		{"normal_ with a closed generator", func() error { return v.NormalInPlace(0, 1, closedGen) }, bad, closedMsg, "", ""},
		{"generator state nil", func() error { return gen.SetState(nil) }, ctorch.ErrArgument, "wrong size", "", ""},
		{"generator state short", func() error { return gen.SetState([]byte{1, 2, 3}) }, ctorch.ErrArgument, "got 3", "", ""},
		{"generator of device type 9", func() error { return errc(ctorch.NewGenerator(ctorch.Device{Type: 9})) }, ctorch.ErrArgument, "device type 9", "", ""},
		{"event flags 8", func() error { return errc(cuda.NewEvent(cuda.EventFlags(8))) }, ctorch.ErrArgument, "8", "", ""},
		{"closed event query", func() error { return errc(closedEv.Query()) }, bad, closedMsg, "", ""},
		{"nil event synchronize", func() error { return nilEv.Synchronize() }, bad, nilMsg, "", ""},
		{"elapsed time to nil", func() error { return errc(ev.ElapsedTime(nil)) }, bad, nilMsg, "", ""},
		{"elapsed time of unrecorded events", func() error {
			e2, err := cuda.NewEvent(cuda.EventEnableTiming)
			if err != nil {
				return err
			}
			defer e2.Close()
			_, err = e2.ElapsedTime(e2)
			return err
		}, ctorch.ErrState, "recorded", "", ""},
		{"closed event ref", func() error { return errc(closedEv.Ref()) }, bad, closedMsg, "", ""},
		{"record on a zero stream", func() error { return ev.Record(zeroStream) }, bad, closedMsg, "", ""},
		{"closed event wait", func() error { return closedEv.Wait(nil) }, bad, closedMsg, "", ""},
		{"nil stream synchronize", func() error { return nilStream.Synchronize() }, bad, nilMsg, "", ""},
		{"zero stream query", func() error { return errc(zeroStream.Query()) }, bad, closedMsg, "", ""},
		{"nil stream priority", func() error { return errc(nilStream.Priority()) }, bad, nilMsg, "", ""},
		{"zero stream wait event", func() error { return zeroStream.WaitEvent(ev) }, bad, closedMsg, "", ""},
		{"nil stream record event", func() error { return errc(nilStream.RecordEvent(ev)) }, bad, nilMsg, "", ""},
		{"set stream zero", func() error { return cuda.SetStream(zeroStream) }, bad, closedMsg, "", ""},
		{"zero stream memory stat", func() error { return errc(zeroStream.MemoryStat("allocated_bytes.all.current")) }, bad, closedMsg, "", ""},

		// ---- graphs, graphed callables, the jiterator, communicators ------------------------
		{"closed graph replay", func() error { return graph.Replay() }, bad, closedMsg, "", ""},
		{"nil graph reset", func() error { return nilGraph.Reset() }, bad, nilMsg, "", ""},
		{"closed graph debug dump", func() error { return graph.DebugDump("/dev/null") }, bad, closedMsg, "", ""},
		{"nil graphed run", func() error { return nilGraphed.Run(v) }, bad, nilMsg, "", ""},
		{"zero graphed graph", func() error { return errc(zeroGraphed.Graph()) }, bad, closedMsg, "", ""},
		{"nvtx range of a nil function", func() error { return cuda.NvtxRange("r", nil) }, ctorch.ErrNullPointer, "nil function", "", ""},
		{"with stream of a nil function", func() error { return cuda.WithStream(nil, nil) }, ctorch.ErrNullPointer, "nil function", "", ""},
		{"with device of a nil function", func() error { return cuda.WithDevice(-1, nil) }, ctorch.ErrNullPointer, "nil function", "", ""},
		{"with device of a tensor, nil function", func() error { return cuda.WithDeviceOf(x, nil) }, ctorch.ErrNullPointer, "nil function", "", ""},
		{"nccl group of a nil function", func() error { return nccl.Group(nil) }, ctorch.ErrNullPointer, "nil function", "", ""},
		{"graph capture of a nil function", func() error {
			g, err := cuda.NewGraph()
			if err != nil {
				return err
			}
			defer g.Close()
			return g.Capture(nil)
		}, ctorch.ErrNullPointer, "nil function", "", ""},
		{"make graphed nil function", func() error { return errc(cuda.MakeGraphed(nil, ts(v))) }, ctorch.ErrNullPointer, "nil function", "", ""},
		{"make graphed nil static input", func() error { return errc(cuda.MakeGraphed(func() error { return nil }, ts(v, nilT))) }, bad, "static input 1", "", ""},
		{"closed jit name", func() error { return errc(closedJit.Name()) }, bad, closedMsg, "", ""},
		{"nil jit call", func() error { return errc(nilJit.Call(ts(v))) }, bad, nilMsg, "", ""},
		{"jit call with a closed input", func() error { return errc(jit.Call(ts(v, closed))) }, bad, "input 1", "", ""},
		{"jit of empty code", func() error { return errc(cuda.NewJitFunction("")) }, ctorch.ErrArgument, "Couldn't parse code", "", ""},
		{"jit with a NUL byte", func() error { return errc(cuda.NewJitFunction(fusedCode + "\x00")) }, ctorch.ErrArgument, "NUL", "", ""},
		{"jit with 9 outputs", func() error { return errc(cuda.NewMultiOutputJitFunction(twoOutCode, 9)) }, ctorch.ErrArgument, "outputs", "", ""},
		{"jit with an unsupported argument", func() error { return errc(cuda.NewJitFunction(fusedCode, cuda.Arg("alpha", "x"))) }, ctorch.ErrArgument, "unsupported value type string", "", ""},
		{"nil comm rank", func() error { return errc(nilComm.Rank()) }, bad, nilMsg, "", ""},
		{"zero comm all-reduce", func() error { return zeroComm.AllReduce(v, nccl.Sum, nil) }, bad, closedMsg, "", ""},
		{"nil comm split", func() error { return errc(nilComm.Split(0, 0)) }, bad, nilMsg, "", ""},
		{"zero comm abort", func() error { return zeroComm.Abort() }, bad, closedMsg, "", ""},
		{"nccl init with a short id", func() error { return errc(nccl.Init(2, []byte{1, 2}, 0, 0, 0)) }, ctorch.ErrArgument, "got 2", "", ""},
		{"nccl init with a nil id", func() error { return errc(nccl.Init(1, nil, 0, 0, 0)) }, ctorch.ErrArgument, "got 0", "", ""},
		{"cuda broadcast of nil", func() error { return errc(cuda.Broadcast(nilT, 0)) }, bad, nilMsg, "", ""},
		{"cuda gather of a closed tensor", func() error { return errc(cuda.Gather(ts(closed), 0, ctorch.CPU)) }, bad, closedMsg, "", ""},
		{"cuda reduce-add of nothing", func() error { return errc(cuda.ReduceAdd(nil, 0)) }, ctorch.ErrArgument, "at least one input tensor", "gpu", ""},

		// ---- the runtime's other switches ----------------------------------------------------
		{"sync debug mode 42", func() error { return cuda.SetSyncDebugMode(cuda.SyncDebugMode(42)) }, ctorch.ErrArgument, "42", "", ""},
		{"sanitizer mode -1", func() error { return cuda.SetSanitizerMode(cuda.SanitizerMode(-1)) }, ctorch.ErrArgument, "-1", "", ""},
		{"nvtx mark with NUL", func() error { return cuda.NvtxMark("a\x00b") }, ctorch.ErrArgument, "NUL", "", ""},
		{"remove unknown oom hook", func() error { return cuda.RemoveOOMHook(-12345) }, ctorch.ErrArgument, "-12345", "", ""},
		{"caching allocator delete of a foreign pointer", func() error { return cuda.CachingAllocatorDelete(0xdead0) }, ctorch.ErrArgument, "0xdead0", "", ""},
		{"load allocator from nowhere", func() error { return cuda.LoadAllocator("/nonexistent/liballoc.so", "a", "f") }, ctorch.ErrArgument, "/nonexistent/liballoc.so", "", ""},
		{"cufft plan cache negative size", func() error { return cuda.CUFFTPlanCache(0).SetMaxSize(-1) }, ctorch.ErrArgument, "non-negative, got -1", "gpu", ""},
		{"memory stat of an unknown key", func() error { return errc(cuda.MemoryStat(0, "no.such.key")) }, ctorch.ErrArgument, "no.such.key", "gpu", ""},
	}
	for _, c := range cases {
		checkBad(t, c)
	}
	t.Logf("%d bad-input cases", len(cases))
	if len(cases) < 100 {
		t.Errorf("the corpus has %d cases, want at least 100", len(cases))
	}
	// The objects used above still work: no bad call broke them.
	eqF64(t, x, 1, 1, 1, 1, 1, 1)
	noErr(t, gen.ManualSeed(3))
	if done, err := ev.Query(); err != nil || !done {
		t.Errorf("the event after the corpus: %v, %v", done, err)
	}
	if _, err := jit.Name(); err != nil {
		t.Errorf("the jitted function after the corpus: %v", err)
	}
	// the nil result of a failed MemoryStats reads as an empty map
	if v, ok := (*cuda.MemoryStatsMap)(nil).Get("allocated_bytes.all.current"); v != 0 || ok {
		t.Errorf("Get on a nil *MemoryStatsMap: %d, %v", v, ok)
	}
	runtime.KeepAlive(s)
}

// TestConcurrentCloseWhileInUse closes objects (a tensor, a generator, an event, a jitted
// function, a graph) while other goroutines use them: every use
// returns a result or the closed-object error (ErrInvalidHandle), never anything else, a
// crash or a leak.
func TestConcurrentCloseWhileInUse(t *testing.T) {
	countsScope(t)
	prev := runtime.GOMAXPROCS(8)
	defer runtime.GOMAXPROCS(prev)
	other, err := ctorch.Ones([]int64{64})
	noErr(t, err)
	defer other.Close()

	const rounds, users = 200, 4
	var wg sync.WaitGroup
	errs := make(chan error, rounds*users*8)
	check := func(err error) {
		if err != nil && !errors.Is(err, ctorch.ErrInvalidHandle) {
			errs <- err
		}
	}
	closeResult := func(r *ctorch.Tensor, err error) {
		check(err)
		if r != nil {
			check(r.Close())
		}
	}
	for r := 0; r < rounds; r++ {
		x, err := ctorch.Full([]int64{64}, float64(r))
		noErr(t, err)
		g, err := ctorch.NewGenerator(ctorch.CPU)
		noErr(t, err)
		e, err := cuda.NewEvent(cuda.EventDefault)
		noErr(t, err)
		j, err := cuda.NewJitFunction(fusedCode)
		noErr(t, err)
		gr, err := cuda.NewGraph()
		noErr(t, err)
		start := make(chan struct{})
		for u := 0; u < users; u++ {
			wg.Add(1)
			go func(u int) {
				defer wg.Done()
				<-start
				for k := 0; k < 5; k++ {
					switch (u + k) % 5 {
					case 0:
						closeResult(x.Add(other))
					case 1:
						closeResult(x.View(8, 8))
					case 2:
						_, err := x.Repr()
						check(err)
						_, err = x.Float32s()
						check(err)
						_, err = x.Bytes()
						check(err)
						_, err = x.Int64s()
						check(err)
						closeResult(ctorch.RandLike(x, ctorch.CPU))
					case 3:
						check(x.UniformInPlace(0, 1, g))
						_, err := g.Offset()
						check(err)
					case 4:
						_, err := e.Query()
						check(err)
						_, err = j.Name()
						check(err)
						if r, err := j.Ref(); err == nil {
							check(r.Close())
						} else {
							check(err)
						}
						if r, err := gr.Ref(); err == nil {
							check(r.Close())
						} else {
							check(err)
						}
						closeResult(ctorch.Cat([]*ctorch.Tensor{x, other}, 0))
					}
				}
			}(u)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			runtime.Gosched()
			check(x.Close())
			check(g.Close())
			check(e.Close())
			check(j.Close())
			check(gr.Close())
		}()
		close(start)
		wg.Wait()
	}
	close(errs)
	n := 0
	for err := range errs {
		if n < 10 {
			t.Errorf("a use racing Close: %v", err)
		}
		n++
	}
	if n > 0 {
		t.Errorf("%d wrong errors", n)
	}
}

// TestFinalizersRaceClose drops some references for the collector while others to the same
// objects are closed at the same time on other goroutines: each handle is released exactly
// once (the live counts come back to their start, no double release shows up as an error).
func TestFinalizersRaceClose(t *testing.T) {
	countsScope(t)
	const n = 2000
	var wg sync.WaitGroup
	errs := make(chan error, 3*n)
	for i := 0; i < n; i++ {
		x, err := ctorch.Ones([]int64{4})
		noErr(t, err)
		r, err := x.Ref() // a second owner of the same tensor
		noErr(t, err)
		g, err := ctorch.NewGenerator(ctorch.CPU)
		noErr(t, err)
		e, err := cuda.NewEvent(cuda.EventDefault)
		noErr(t, err)
		wg.Add(1)
		go func(x *ctorch.Tensor, g *ctorch.Generator, e *cuda.Event) {
			defer wg.Done()
			for _, err := range []error{x.Close(), x.Close(), g.Close(), e.Close()} {
				if err != nil {
					errs <- err
				}
			}
		}(x, g, e)
		_ = r // dropped: its finalizer releases the other reference
		if i%100 == 0 {
			runtime.GC()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("Close racing the finalizers: %v", err)
	}
	// countsScope collects until the counts are back.
}
