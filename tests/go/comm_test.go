package ctorch_test

// torch.cuda.comm (package cuda: Broadcast ... GatherOut) and the NCCL communicator (package
// nccl). On any machine: the reduce-op table and the timeout error, the arguments the Go layer
// marshals (nil and closed tensors and streams named by position, chunk-size and stream lists
// of the wrong length, ragged rows, unique ids of the wrong length, values outside the C
// types), nil and closed communicators, the raw handles, and without a GPU the
// CT_ERR_CUDA_UNAVAILABLE errors of every function. On one GPU (TestGPU*, skipped here with
// the reason): broadcast to [0] is the source itself, scatter/gather round trips with chunk
// sizes and a stream list (and fewer chunks than devices), reduce_add, and a single-rank
// communicator: every collective's values, send and receive to itself in a group, split with
// NoColor, wait/check/abort/destroy, finalizers, and a peer that never joins (ErrTimeout). On
// two GPUs (TestGPU2*): the same across devices, and two members in two goroutines. The
// argument rules and NCCL's semantics are the C suite's.

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/cuda"
	"ctorch.dev/ctorch/internal/capi"
	"ctorch.dev/ctorch/nccl"
)

func liveComms(t *testing.T) int64 {
	t.Helper()
	n, err := nccl.LiveCommCount()
	noErr(t, err)
	return n
}

// commScope is cudaScope plus a check, at the end of the test, that the live communicator
// count is back at its start.
func commScope(t *testing.T) *scope {
	t.Helper()
	start := liveComms(t)
	t.Cleanup(func() {
		if n := liveComms(t); n != start {
			t.Errorf("live communicator count is %d at the end of the test, want %d", n, start)
		}
	})
	return cudaScope(t)
}

// The reduce ops are the header's values with torch.distributed.ReduceOp's names; the
// hand-written constants are the header's.
func TestCommConstants(t *testing.T) {
	ops := map[nccl.ReduceOp]int{nccl.Sum: capi.CT_COMM_SUM, nccl.Avg: capi.CT_COMM_AVG,
		nccl.Product: capi.CT_COMM_PRODUCT, nccl.Min: capi.CT_COMM_MIN, nccl.Max: capi.CT_COMM_MAX}
	for op, want := range ops {
		if int(op) != want {
			t.Errorf("%v = %d, want %d", op, int(op), want)
		}
	}
	if nccl.Sum != 0 || nccl.Avg != 1 || nccl.Product != 2 || nccl.Min != 3 || nccl.Max != 4 {
		t.Errorf("reduce ops %d %d %d %d %d, want torch's 0 1 2 3 4", nccl.Sum, nccl.Avg, nccl.Product, nccl.Min, nccl.Max)
	}
	names := fmt.Sprint(nccl.Sum, nccl.Avg, nccl.Product, nccl.Min, nccl.Max, nccl.ReduceOp(9))
	if names != "SUM AVG PRODUCT MIN MAX ReduceOp(9)" {
		t.Errorf("names %q", names)
	}
	if nccl.NoColor != capi.CT_NCCL_SPLIT_NOCOLOR || nccl.UniqueIDBytes != 128 ||
		nccl.DefaultTimeout != 10*time.Minute || cuda.DefaultBufferSize != 10<<20 {
		t.Errorf("NoColor %d UniqueIDBytes %d DefaultTimeout %v DefaultBufferSize %d", nccl.NoColor,
			nccl.UniqueIDBytes, nccl.DefaultTimeout, cuda.DefaultBufferSize)
	}
}

// CT_ERR_TIMEOUT and CT_ERR_COMM are *ctorch.Error values a caller tells apart: errors.Is with
// the sentinels, IsTimeout (also through wrapping) and the Timeout method of net.Error and
// os.IsTimeout.
func TestCommStatusCodes(t *testing.T) {
	if ctorch.CodeTimeout != 201 || ctorch.CodeComm != 303 || ctorch.StatusName(201) != "CT_ERR_TIMEOUT" ||
		ctorch.StatusName(303) != "CT_ERR_COMM" {
		t.Fatalf("codes %d %d", ctorch.CodeTimeout, ctorch.CodeComm)
	}
	timeout := &ctorch.Error{Code: 201, Name: "CT_ERR_TIMEOUT", Message: "m", Op: "nccl_comm_wait"}
	comm := &ctorch.Error{Code: 303, Name: "CT_ERR_COMM", Message: "m", Op: "nccl_all_reduce"}
	wrapped := fmt.Errorf("step 3: %w", timeout)
	if !errors.Is(wrapped, ctorch.ErrTimeout) || errors.Is(wrapped, ctorch.ErrComm) || !ctorch.IsTimeout(wrapped) ||
		!timeout.Timeout() || !os.IsTimeout(timeout) {
		t.Errorf("timeout: Is %v IsTimeout %v Timeout %v", errors.Is(wrapped, ctorch.ErrTimeout), ctorch.IsTimeout(wrapped), timeout.Timeout())
	}
	if !errors.Is(comm, ctorch.ErrComm) || ctorch.IsTimeout(comm) || comm.Timeout() || os.IsTimeout(comm) ||
		ctorch.IsTimeout(errors.New("timeout")) || ctorch.IsTimeout(nil) {
		t.Errorf("comm error taken for a timeout, or the reverse")
	}
	var ne interface{ Timeout() bool }
	if !errors.As(wrapped, &ne) || !ne.Timeout() {
		t.Error("a wrapped timeout has no Timeout method")
	}
}

// Arguments the Go layer checks before any native call (so on any machine): nil and closed
// tensors and streams named by position, lists of the wrong length, ragged rows, values
// outside the C types.
func TestCommArgumentErrors(t *testing.T) {
	s := commScope(t)
	x := s.T(ctorch.Ones([]int64{4}))
	closedT := s.T(ctorch.Ones([]int64{2}))
	noErr(t, closedT.Close())
	closedS := new(cuda.Stream)
	ts := []*ctorch.Tensor{x, nil}

	check := func(what string, err error, sentinel error, msg string) {
		t.Helper()
		if e := wantErr(t, err, sentinel); !strings.Contains(e.Message, msg) {
			t.Errorf("%s: %v, want %q in the message", what, err, msg)
		}
	}
	res, err := cuda.Broadcast(nil, 0)
	check("Broadcast(nil)", err, ctorch.ErrInvalidHandle, "tensor: nil *Tensor")
	if res != nil {
		t.Error("a failed Broadcast returned tensors")
	}
	_, err = cuda.Broadcast(closedT, 0)
	check("Broadcast(closed)", err, ctorch.ErrInvalidHandle, "tensor: use of a closed Tensor")
	_, err = cuda.Broadcast(x, 0, 1<<40)
	wantErr(t, err, ctorch.ErrIndex)
	check("BroadcastOut", cuda.BroadcastOut(x, x, closedT), ctorch.ErrInvalidHandle, "out 1: use of a closed Tensor")
	check("BroadcastOut(nil)", cuda.BroadcastOut(nil, x), ctorch.ErrInvalidHandle, "tensor: nil *Tensor")
	_, err = cuda.BroadcastCoalesced(ts, []int{0}, 0)
	check("BroadcastCoalesced", err, ctorch.ErrInvalidHandle, "tensor 1: nil *Tensor")
	_, err = cuda.ReduceAdd(ts, 0)
	check("ReduceAdd", err, ctorch.ErrInvalidHandle, "input 1: nil *Tensor")
	_, err = cuda.ReduceAdd([]*ctorch.Tensor{x}, -1<<40)
	wantErr(t, err, ctorch.ErrIndex)
	_, err = cuda.ReduceAddCoalesced([][]*ctorch.Tensor{{x, x}, {x}}, 0, 0)
	check("ReduceAddCoalesced ragged", err, ctorch.ErrArgument, "row 1 has 1 tensors, row 0 has 2")
	_, err = cuda.ReduceAddCoalesced([][]*ctorch.Tensor{{x}, {closedT}}, 0, 0)
	check("ReduceAddCoalesced closed", err, ctorch.ErrInvalidHandle, "row 1: input 0: use of a closed Tensor")
	_, err = cuda.Scatter(x, []int{0, 0}, []int64{4}, 0, nil)
	check("Scatter chunk sizes", err, ctorch.ErrArgument, "1 chunk sizes for 2 devices")
	_, err = cuda.Scatter(x, []int{0, 0}, nil, 0, []*cuda.Stream{nil})
	check("Scatter streams", err, ctorch.ErrArgument, "1 streams for 2 devices")
	_, err = cuda.Scatter(x, []int{0, 0}, nil, 0, []*cuda.Stream{nil, closedS})
	check("Scatter closed stream", err, ctorch.ErrInvalidHandle, "stream 1: use of a closed Stream")
	_, err = cuda.Scatter(x, []int{0}, nil, 1<<40, nil)
	wantErr(t, err, ctorch.ErrIndex)
	_, err = cuda.Scatter(nil, []int{0}, nil, 0, nil)
	check("Scatter(nil)", err, ctorch.ErrInvalidHandle, "tensor: nil *Tensor")
	check("ScatterOut", cuda.ScatterOut(x, []*ctorch.Tensor{x, x}, 0, []*cuda.Stream{nil}), ctorch.ErrArgument, "1 streams for 2 devices")
	check("ScatterOut(nil)", cuda.ScatterOut(x, ts, 0, nil), ctorch.ErrInvalidHandle, "out 1: nil *Tensor")
	_, err = cuda.Gather(ts, 0, ctorch.CPU)
	check("Gather", err, ctorch.ErrInvalidHandle, "tensor 1: nil *Tensor")
	_, err = cuda.Gather([]*ctorch.Tensor{x}, 0, ctorch.CUDADevice(1<<40))
	wantErr(t, err, ctorch.ErrIndex)
	check("GatherOut", cuda.GatherOut([]*ctorch.Tensor{x}, closedT, 0), ctorch.ErrInvalidHandle, "out: use of a closed Tensor")

	// Unique ids of the wrong length, values outside int32.
	for _, id := range [][]byte{nil, {}, make([]byte, nccl.UniqueIDBytes-1), make([]byte, nccl.UniqueIDBytes+1)} {
		c, err := nccl.Init(1, id, 0, 0, time.Second)
		check(fmt.Sprintf("Init with %d bytes", len(id)), err, ctorch.ErrArgument, fmt.Sprintf("a unique id has 128 bytes, got %d", len(id)))
		if c != nil {
			t.Error("a failed Init returned a Comm")
		}
	}
	_, err = nccl.Init(1<<40, make([]byte, nccl.UniqueIDBytes), 0, 0, 0)
	check("Init nranks", err, ctorch.ErrArgument, "nranks 1099511627776 out of range")
}

// ctorch.FromHandle (how package cuda wraps the tensors of section 20) owns the reference it
// is given: Close releases it once; FromHandle(0) is nil.
func TestFromHandle(t *testing.T) {
	start := liveCount(t)
	out := []int64{0}
	if f := capi.Call(func() int { return capi.Ct_ones([]int64{3}, 1, capi.CT_FLOAT64, capi.CT_CPU, -1, out) }); f != nil {
		t.Fatal(f.Message)
	}
	x := ctorch.FromHandle(out[0])
	if x.Handle() != out[0] || liveCount(t) != start+1 {
		t.Fatalf("FromHandle: handle %d (want %d), live %d (start %d)", x.Handle(), out[0], liveCount(t), start)
	}
	eqF64(t, x, 1, 1, 1)
	noErr(t, x.Close())
	noErr(t, x.Close())
	if n := liveCount(t); n != start {
		t.Errorf("live tensors %d after Close, want %d", n, start)
	}
	if z := ctorch.FromHandle(0); z != nil || !z.Closed() {
		t.Errorf("FromHandle(0) = %v, want nil", z)
	}
}

// A nil or closed Comm: Close does nothing, every method is ErrInvalidHandle, nothing is called.
func TestCommClosed(t *testing.T) {
	s := commScope(t)
	x := s.T(ctorch.Ones([]int64{2}))
	for name, c := range map[string]*nccl.Comm{"nil": nil, "zero": new(nccl.Comm)} {
		if !c.Closed() || c.Handle() != 0 {
			t.Errorf("%s comm: Closed %v Handle %d", name, c.Closed(), c.Handle())
		}
		noErr(t, c.Close())
		noErr(t, c.Close())
		_, err := c.Ref()
		wantClosed(t, err)
		sc, err := c.Split(0, 0)
		wantClosed(t, err)
		if sc != nil {
			t.Errorf("%s comm: Split returned a Comm", name)
		}
		for _, f := range []func() (int, error){c.Rank, c.Size, c.Device} {
			_, err := f()
			wantClosed(t, err)
		}
		wantClosed(t, c.Check())
		wantClosed(t, c.Wait(time.Second))
		wantClosed(t, c.Abort())
		wantClosed(t, c.Destroy())
		wantClosed(t, c.AllReduce(x, nccl.Sum, nil))
		wantClosed(t, c.Broadcast(x, 0, nil))
		wantClosed(t, c.Reduce(x, 0, nccl.Max, nil))
		wantClosed(t, c.AllGather(x, x, nil))
		wantClosed(t, c.ReduceScatter(x, x, nccl.Min, nil))
		wantClosed(t, c.AllToAll(x, x, nil))
		wantClosed(t, c.Send(x, 0, nil))
		wantClosed(t, c.Recv(x, 0, nil))
	}
}

// The raw layer: NULL and foreign handles are errors, never crashes (without a GPU the
// communicator functions say CUDA is unavailable first; ct_live_nccl_comm_count works).
func TestRawCommHandles(t *testing.T) {
	commScope(t)
	tn := []int64{0}
	if f := capi.Call(func() int { return capi.Ct_zeros([]int64{2}, 1, capi.CT_FLOAT32, capi.CT_CPU, -1, tn) }); f != nil {
		t.Fatal(f.Message)
	}
	defer capi.TensorRelease(tn[0])
	x, i32 := tn[0], []int32{0}
	want := capi.CT_ERR_INVALID_HANDLE
	if !cuda.IsAvailable() {
		want = capi.CT_ERR_CUDA_UNAVAILABLE
	}
	for name, f := range map[string]func() int{
		"retain(NULL)":       func() int { return capi.Ct_nccl_comm_retain(0) },
		"release(NULL)":      func() int { return capi.Ct_nccl_comm_release(0) },
		"retain(tensor)":     func() int { return capi.Ct_nccl_comm_retain(x) },
		"release(tensor)":    func() int { return capi.Ct_nccl_comm_release(x) },
		"rank(tensor)":       func() int { return capi.Ct_nccl_comm_rank(x, i32) },
		"all_reduce(tensor)": func() int { return capi.Ct_nccl_all_reduce(x, x, capi.CT_COMM_SUM, 0) },
	} {
		if fl := capi.Call(f); fl == nil || fl.Code != want || fl.Message == "" {
			t.Errorf("%s: %+v, want code %d with a message", name, fl, want)
		}
	}
	n := []int64{-1}
	if f := capi.Call(func() int { return capi.Ct_live_nccl_comm_count(n) }); f != nil || n[0] < 0 {
		t.Errorf("ct_live_nccl_comm_count: %+v, %d", f, n[0])
	}
}

// Without a GPU every function of sections 20 and 21 is ErrCUDAUnavailable (IsAvailable false,
// the live count works), and Group does not run its function.
func TestCommWithoutGPU(t *testing.T) {
	skipWithGPU(t)
	s := commScope(t)
	x := s.T(ctorch.Ones([]int64{4}))
	two := []*ctorch.Tensor{x, x}
	if nccl.IsAvailable() {
		t.Error("nccl.IsAvailable without a GPU")
	}
	noResults := func(ts []*ctorch.Tensor, err error) {
		t.Helper()
		wantUnavailable(t, err)
		if ts != nil {
			t.Error("results with an error")
		}
	}
	noResults(cuda.Broadcast(x, 0))
	wantUnavailable(t, cuda.BroadcastOut(x, x))
	rows, err := cuda.BroadcastCoalesced(two, []int{0, 0}, 0)
	wantUnavailable(t, err)
	if rows != nil {
		t.Error("rows with an error")
	}
	wantUnavailable(t, s.E(cuda.ReduceAdd(two, -1)))
	noResults(cuda.ReduceAddCoalesced([][]*ctorch.Tensor{two, two}, 0, 1024))
	noResults(cuda.Scatter(x, []int{0, 0}, []int64{1, 3}, 0, []*cuda.Stream{nil, nil}))
	noResults(cuda.Scatter(x, []int{0, 0}, nil, -1, nil))
	wantUnavailable(t, cuda.ScatterOut(x, two, 0, nil))
	wantUnavailable(t, s.E(cuda.Gather(two, 0, ctorch.CUDA)))
	wantUnavailable(t, s.E(cuda.Gather(two, 0, ctorch.CPU)))
	wantUnavailable(t, cuda.GatherOut(two, x, 0))

	_, _, _, err = nccl.Version()
	wantUnavailable(t, err)
	id, err := nccl.UniqueID()
	wantUnavailable(t, err)
	if id != nil {
		t.Error("UniqueID returned bytes with an error")
	}
	c, err := nccl.Init(1, make([]byte, nccl.UniqueIDBytes), 0, -1, 0)
	wantUnavailable(t, err)
	if c != nil {
		t.Error("Init returned a Comm with an error")
	}
	wantUnavailable(t, nccl.GroupStart())
	wantUnavailable(t, nccl.GroupEnd())
	ran := false
	wantUnavailable(t, nccl.Group(func() error { ran = true; return nil }))
	if ran {
		t.Error("Group ran its function although the group did not start")
	}
	// The raw functions that the closed-Comm paths never reach (the Go layer stops first).
	for name, f := range map[string]func() int{
		"split":          func() int { return capi.Ct_nccl_comm_split(0, 0, 0, []int64{0}) },
		"size":           func() int { return capi.Ct_nccl_comm_size(0, []int32{0}) },
		"device":         func() int { return capi.Ct_nccl_comm_device(0, []int32{0}) },
		"check":          func() int { return capi.Ct_nccl_comm_check(0) },
		"wait":           func() int { return capi.Ct_nccl_comm_wait(0, 1) },
		"abort":          func() int { return capi.Ct_nccl_comm_abort(0) },
		"destroy":        func() int { return capi.Ct_nccl_comm_destroy(0) },
		"broadcast":      func() int { return capi.Ct_nccl_broadcast(0, x.Handle(), 0, 0) },
		"reduce":         func() int { return capi.Ct_nccl_reduce(0, x.Handle(), 0, capi.CT_COMM_SUM, 0) },
		"all_gather":     func() int { return capi.Ct_nccl_all_gather(0, x.Handle(), x.Handle(), 0) },
		"reduce_scatter": func() int { return capi.Ct_nccl_reduce_scatter(0, x.Handle(), x.Handle(), capi.CT_COMM_SUM, 0) },
		"all_to_all":     func() int { return capi.Ct_nccl_all_to_all(0, x.Handle(), x.Handle(), 0) },
		"send":           func() int { return capi.Ct_nccl_send(0, x.Handle(), 0, 0) },
		"recv":           func() int { return capi.Ct_nccl_recv(0, x.Handle(), 0, 0) },
		"init_rank":      func() int { return capi.Ct_nccl_comm_init_rank(1, make([]byte, 128), 128, 0, 0, 0, []int64{0}) },
	} {
		if fl := capi.Call(f); fl == nil || fl.Code != capi.CT_ERR_CUDA_UNAVAILABLE {
			t.Errorf("ct_nccl_%s: %+v, want CT_ERR_CUDA_UNAVAILABLE", name, fl)
		}
	}
}

// ---- on one GPU ---------------------------------------------------------------------------

func gpuCommTest(t *testing.T) *scope {
	t.Helper()
	needGPUs(t, 1)
	s := commScope(t)
	lockThread(t) // the current device and streams are the thread's
	return s
}

func cudaF64(t *testing.T, s *scope, device int, v ...float64) *ctorch.Tensor {
	t.Helper()
	return s.T(ctorch.FromSlice(v, nil, ctorch.CUDADevice(device)))
}

func same(t *testing.T, a, b *ctorch.Tensor) bool {
	t.Helper()
	ok, err := a.IsSame(b)
	noErr(t, err)
	return ok
}

// Broadcast: to [0] the result is the source itself, to [0, 0] the source twice (two Tensors),
// from the CPU a copy on the GPU; BroadcastOut and BroadcastCoalesced.
func TestGPUCommBroadcast(t *testing.T) {
	s := gpuCommTest(t)
	x := cudaF64(t, s, 0, 1, 2, 3)
	r, err := cuda.Broadcast(x, 0)
	noErr(t, err)
	s.keep(r...)
	if len(r) != 1 || !same(t, r[0], x) {
		t.Errorf("Broadcast(x on cuda:0, 0): %d results, want x itself", len(r))
	}
	r, err = cuda.Broadcast(x, 0, 0)
	noErr(t, err)
	s.keep(r...)
	if len(r) != 2 {
		t.Fatalf("%d results for two devices", len(r))
	}
	if !same(t, r[0], x) || !same(t, r[1], x) || r[0] == r[1] {
		t.Error("Broadcast(x on cuda:0, 0, 0): want x itself twice, in two Tensors (PyTorch's rule)")
	}
	for _, y := range r {
		eqF64(t, y, 1, 2, 3)
		if d := y.Device(); d != ctorch.CUDADevice(0) {
			t.Errorf("result on %v", d)
		}
	}
	cpu := s.T(ctorch.FromSlice([]int32{4, 5}, nil))
	r, err = cuda.Broadcast(cpu, 0)
	noErr(t, err)
	s.keep(r...)
	if len(r) != 1 || r[0].Device() != ctorch.CUDADevice(0) || same(t, r[0], cpu) {
		t.Fatalf("Broadcast from the CPU: %v", r)
	}
	eqI64(t, r[0], 4, 5)
	_, err = cuda.Broadcast(x, -1)
	wantErr(t, err, ctorch.ErrDevice)

	out := s.T(ctorch.Zeros([]int64{3}, ctorch.Float32, ctorch.CUDADevice(0)))
	noErr(t, cuda.BroadcastOut(x, out))
	eqF64(t, out, 1, 2, 3)
	wantErr(t, cuda.BroadcastOut(x, s.T(ctorch.Zeros([]int64{3}))), ctorch.ErrDevice)

	y := cudaF64(t, s, 0, 7)
	rows, err := cuda.BroadcastCoalesced([]*ctorch.Tensor{x, y}, []int{0}, 0)
	noErr(t, err)
	for _, row := range rows {
		s.keep(row...)
	}
	if len(rows) != 1 || len(rows[0]) != 2 || !same(t, rows[0][0], x) || !same(t, rows[0][1], y) {
		t.Errorf("BroadcastCoalesced to [0]: %v, want [[x y]]", rows)
	}
}

// Scatter then Gather is the identity: chunk sizes with a stream list, equal chunks (fewer than
// the devices), to the GPU and to the CPU, and the *Out forms.
func TestGPUCommScatterGather(t *testing.T) {
	s := gpuCommTest(t)
	x := s.T(ctorch.Arange(0, 10, 1, ctorch.CUDADevice(0)))
	x = s.T(x.View(5, 2))
	side, err := cuda.NewStream(0, 0)
	noErr(t, err)
	closeLater(t, side)
	parts, err := cuda.Scatter(x, []int{0, 0}, []int64{2, 3}, 0, []*cuda.Stream{side, nil})
	noErr(t, err)
	s.keep(parts...)
	noErr(t, cuda.Synchronize(0))
	if len(parts) != 2 {
		t.Fatalf("%d parts, want 2", len(parts))
	}
	eqShape(t, parts[0], 2, 2)
	eqShape(t, parts[1], 3, 2)
	eqF64(t, parts[0], 0, 1, 2, 3)
	eqF64(t, parts[1], 4, 5, 6, 7, 8, 9)
	g := s.T(cuda.Gather(parts, 0, ctorch.CUDADevice(0)))
	eqShape(t, g, 5, 2)
	eqF64(t, g, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9)
	h := s.T(cuda.Gather(parts, 0, ctorch.CPU))
	if h.Device() != ctorch.CPU {
		t.Errorf("gathered to %v", h.Device())
	}
	eqShape(t, h, 5, 2)
	eqF64(t, h, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9)
	wantErr(t, s.E(cuda.Gather(parts, 1, ctorch.CPU)), ctorch.ErrShape) // 2 rows and 3
	// Equal chunks of a dim of size 2 over three devices: tensor.chunk gives two.
	parts, err = cuda.Scatter(x, []int{0, 0, 0}, nil, 1, nil)
	noErr(t, err)
	s.keep(parts...)
	if len(parts) != 2 {
		t.Fatalf("%d parts of a dim of size 2, want 2 (torch.chunk)", len(parts))
	}
	eqF64(t, parts[0], 0, 2, 4, 6, 8)
	eqF64(t, parts[1], 1, 3, 5, 7, 9)

	outs := []*ctorch.Tensor{
		s.T(ctorch.Zeros([]int64{1, 2}, ctorch.CUDADevice(0))),
		s.T(ctorch.Zeros([]int64{4, 2}, ctorch.CUDADevice(0))),
	}
	cur, err := cuda.CurrentStream(0)
	noErr(t, err)
	closeLater(t, cur)
	noErr(t, side.WaitStream(cur)) // outs were written on the current stream
	noErr(t, cuda.ScatterOut(x, outs, 0, []*cuda.Stream{nil, side}))
	noErr(t, cuda.Synchronize(0))
	eqF64(t, outs[0], 0, 1)
	eqF64(t, outs[1], 2, 3, 4, 5, 6, 7, 8, 9)
	back := s.T(ctorch.Zeros([]int64{5, 2}))
	noErr(t, cuda.GatherOut(outs, back, 0))
	eqF64(t, back, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9)
	wantErr(t, cuda.GatherOut(outs, s.T(ctorch.Zeros([]int64{4, 2})), 0), ctorch.ErrShape)
}

// ReduceAdd of two tensors on device 0 (the destination holds them), of one (the input
// itself), and ReduceAddCoalesced.
func TestGPUCommReduceAdd(t *testing.T) {
	s := gpuCommTest(t)
	a, b := cudaF64(t, s, 0, 1, 2), cudaF64(t, s, 0, 10, 20)
	eqF64(t, s.T(cuda.ReduceAdd([]*ctorch.Tensor{a, b}, 0)), 11, 22)
	eqF64(t, s.T(cuda.ReduceAdd([]*ctorch.Tensor{a, b}, -1)), 11, 22)
	if r := s.T(cuda.ReduceAdd([]*ctorch.Tensor{a}, 0)); !same(t, r, a) {
		t.Error("ReduceAdd of one input is not that input")
	}
	wantErr(t, s.E(cuda.ReduceAdd([]*ctorch.Tensor{a, cudaF64(t, s, 0, 1, 2, 3)}, 0)), ctorch.ErrShape)
	sums, err := cuda.ReduceAddCoalesced([][]*ctorch.Tensor{{a, b}, {b, b}}, 0, 8)
	noErr(t, err)
	s.keep(sums...)
	if len(sums) != 2 {
		t.Fatalf("%d sums, want 2", len(sums))
	}
	eqF64(t, sums[0], 11, 22)
	eqF64(t, sums[1], 20, 40)
}

// needNCCL skips without a GPU or without NCCL, saying why.
func needNCCL(t *testing.T, gpus int) *scope {
	t.Helper()
	s := gpuCommTest(t)
	if gpus > 1 {
		needGPUs(t, gpus)
	}
	if !nccl.IsAvailable() {
		_, _, _, err := nccl.Version()
		t.Skipf("NCCL cannot be used: %v", err)
	}
	return s
}

// singleRank is a new communicator of one member, closed at the end of the test.
func singleRank(t *testing.T) *nccl.Comm {
	t.Helper()
	id, err := nccl.UniqueID()
	noErr(t, err)
	if len(id) != nccl.UniqueIDBytes {
		t.Fatalf("unique id of %d bytes", len(id))
	}
	c, err := nccl.Init(1, id, 0, 0, 30*time.Second)
	return keepOpen(t, c, err)
}

// A communicator of one member: every collective's values (a reduction over one member is the
// identity), on the current stream and on a stream of its own, send and receive to itself in
// a group, split, and the states after abort and destroy.
func TestGPUNCCLSingleRank(t *testing.T) {
	s := needNCCL(t, 1)
	ma, mi, _, err := nccl.Version()
	noErr(t, err)
	if ma < 2 || mi < 0 {
		t.Errorf("NCCL version %d.%d", ma, mi)
	}
	c := singleRank(t)
	for name, f := range map[string]func() (int, error){"rank": c.Rank, "size": c.Size, "device": c.Device} {
		if v, err := f(); err != nil || (name == "size") != (v == 1) {
			t.Errorf("%s: %d, %v", name, v, err)
		}
	}
	noErr(t, c.Check())
	x := cudaF64(t, s, 0, 1, -2, 3)
	for _, op := range []nccl.ReduceOp{nccl.Sum, nccl.Avg, nccl.Max, nccl.Min, nccl.Product} {
		noErr(t, c.AllReduce(x, op, nil))
		eqF64(t, x, 1, -2, 3)
	}
	side, err := cuda.NewStream(0, 0)
	noErr(t, err)
	closeLater(t, side)
	n := s.T(ctorch.FromSlice([]int64{5, 6}, nil, ctorch.CUDADevice(0)))
	noErr(t, c.AllReduce(n, nccl.Sum, side))
	noErr(t, side.Synchronize())
	eqI64(t, n, 5, 6)
	noErr(t, c.Broadcast(x, 0, nil))
	cur, err := cuda.CurrentStream(0)
	noErr(t, err)
	closeLater(t, cur)
	noErr(t, side.WaitStream(cur)) // the broadcast wrote x on the current stream
	noErr(t, c.Reduce(x, 0, nccl.Sum, side))
	noErr(t, side.Synchronize())
	eqF64(t, x, 1, -2, 3)
	out := s.T(ctorch.Zeros([]int64{3}, ctorch.Float64, ctorch.CUDADevice(0)))
	noErr(t, c.AllGather(out, x, nil))
	eqF64(t, out, 1, -2, 3)
	noErr(t, out.Zero())
	noErr(t, c.ReduceScatter(out, x, nccl.Sum, nil))
	eqF64(t, out, 1, -2, 3)
	noErr(t, out.Zero())
	noErr(t, c.AllToAll(out, x, nil))
	eqF64(t, out, 1, -2, 3)
	noErr(t, out.Zero())
	noErr(t, nccl.Group(func() error {
		if err := c.Send(x, 0, nil); err != nil {
			return err
		}
		return c.Recv(out, 0, nil)
	}))
	eqF64(t, out, 1, -2, 3)
	noErr(t, c.Wait(0))
	noErr(t, c.Wait(time.Minute))
	// Errors of the library come through: a CPU tensor; a group end without a start.
	wantErr(t, c.AllReduce(s.T(ctorch.Ones([]int64{2})), nccl.Sum, nil), ctorch.ErrDevice)
	wantErr(t, nccl.GroupEnd(), ctorch.ErrState)

	none, err := c.Split(nccl.NoColor, 0)
	noErr(t, err)
	if none != nil {
		t.Error("Split(NoColor) returned a Comm")
	}
	sub, err := c.Split(0, 0)
	noErr(t, err)
	if size, err := sub.Size(); err != nil || size != 1 {
		t.Errorf("split: size %d, %v", size, err)
	}
	noErr(t, sub.Destroy())
	wantErr(t, sub.Check(), ctorch.ErrState)
	wantErr(t, sub.AllReduce(x, nccl.Sum, nil), ctorch.ErrState)
	noErr(t, sub.Close())
	noErr(t, sub.Close()) // twice: nothing
	wantClosed(t, sub.Check())
	if !sub.Closed() || sub.Handle() != 0 {
		t.Error("a closed Comm still has its handle")
	}

	r, err := c.Ref()
	noErr(t, err)
	if r.Handle() != c.Handle() {
		t.Error("Ref holds another handle")
	}
	noErr(t, c.Abort())
	noErr(t, c.Abort()) // twice is allowed
	wantErr(t, c.Check(), ctorch.ErrState)
	wantErr(t, r.AllReduce(x, nccl.Sum, nil), ctorch.ErrState)
	noErr(t, r.Close())
}

// A Group whose function fails or panics still ends the group (the next GroupEnd has nothing
// to end), and returns the function's error or raises its panic again.
func TestGPUNCCLGroupEnds(t *testing.T) {
	needNCCL(t, 1)
	boom := errors.New("boom")
	if err := nccl.Group(func() error { return boom }); err != boom {
		t.Errorf("Group returned %v, want the function's error", err)
	}
	wantErr(t, nccl.GroupEnd(), ctorch.ErrState)
	func() {
		defer func() {
			if r := recover(); r != "p" {
				t.Errorf("recovered %v, want the function's panic", r)
			}
		}()
		nccl.Group(func() error { panic("p") })
	}()
	wantErr(t, nccl.GroupEnd(), ctorch.ErrState)
}

// Communicators dropped without Close are released by their finalizers.
func TestGPUNCCLFinalizers(t *testing.T) {
	needNCCL(t, 1)
	start := liveComms(t)
	for i := 0; i < 3; i++ {
		id, err := nccl.UniqueID()
		noErr(t, err)
		c, err := nccl.Init(1, id, 0, 0, 30*time.Second)
		noErr(t, err)
		_, err = c.Ref()
		noErr(t, err)
	}
	if n := liveComms(t); n < start+3 {
		t.Errorf("%d live communicators after making 3, start %d", n, start)
	}
	collectUntil(t, "communicators", liveComms, start)
}

// A member that never gets its peer: Init with nranks 2 gives up after its timeout with an
// error matching ErrTimeout; a unique id that NCCL did not make is an error too.
func TestGPUNCCLInitTimeout(t *testing.T) {
	needNCCL(t, 1)
	id, err := nccl.UniqueID()
	noErr(t, err)
	begin := time.Now()
	c, err := nccl.Init(2, id, 0, 0, time.Second)
	took := time.Since(begin)
	e := wantErr(t, err, ctorch.ErrTimeout)
	if c != nil || !ctorch.IsTimeout(err) || !e.Timeout() || took > 30*time.Second {
		t.Errorf("Init without the peer: %v after %v", err, took)
	}
	bad := make([]byte, nccl.UniqueIDBytes)
	for i := range bad {
		bad[i] = 0xff
	}
	c, err = nccl.Init(2, bad, 0, 0, time.Second)
	if c != nil || !(errors.Is(err, ctorch.ErrArgument) || errors.Is(err, ctorch.ErrComm) || errors.Is(err, ctorch.ErrTimeout)) {
		t.Errorf("Init with a made-up id: %v, want ErrArgument, ErrComm or ErrTimeout", err)
	}
}

// ---- on two GPUs --------------------------------------------------------------------------

// torch.cuda.comm across devices 0 and 1.
func TestGPU2CommAcrossDevices(t *testing.T) {
	needGPUs(t, 2)
	s := gpuCommTest(t)
	x := cudaF64(t, s, 0, 1, 2, 3, 4)
	r, err := cuda.Broadcast(x, 0, 1)
	noErr(t, err)
	s.keep(r...)
	if len(r) != 2 || !same(t, r[0], x) || r[1].Device() != ctorch.CUDADevice(1) {
		t.Fatalf("Broadcast to [0, 1]: %v", r)
	}
	eqF64(t, r[1], 1, 2, 3, 4)
	sum := s.T(cuda.ReduceAdd(r, 1))
	if sum.Device() != ctorch.CUDADevice(1) {
		t.Errorf("ReduceAdd to 1 on %v", sum.Device())
	}
	eqF64(t, sum, 2, 4, 6, 8)
	wantErr(t, s.E(cuda.ReduceAdd([]*ctorch.Tensor{x, x}, 1)), ctorch.ErrDevice)
	parts, err := cuda.Scatter(x, []int{1, 0}, []int64{3, 1}, 0, nil)
	noErr(t, err)
	s.keep(parts...)
	if len(parts) != 2 || parts[0].Device() != ctorch.CUDADevice(1) || parts[1].Device() != ctorch.CUDADevice(0) {
		t.Fatalf("Scatter to [1, 0]: %v", parts)
	}
	eqF64(t, s.T(cuda.Gather(parts, 0, ctorch.CUDADevice(1))), 1, 2, 3, 4)
	rows, err := cuda.BroadcastCoalesced([]*ctorch.Tensor{x, cudaF64(t, s, 0, 9)}, []int{0, 1}, 0)
	noErr(t, err)
	for _, row := range rows {
		s.keep(row...)
	}
	eqF64(t, rows[1][0], 1, 2, 3, 4)
	eqF64(t, rows[1][1], 9)
	sums, err := cuda.ReduceAddCoalesced(rows, 0, 0)
	noErr(t, err)
	s.keep(sums...)
	eqF64(t, sums[0], 2, 4, 6, 8)
	eqF64(t, sums[1], 18)
}

// Two members in two goroutines (one GPU each) all-reduce rank + 1 and exchange by send/recv.
func TestGPU2NCCLTwoMembers(t *testing.T) {
	needNCCL(t, 2)
	id, err := nccl.UniqueID()
	noErr(t, err)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for rank := 0; rank < 2; rank++ {
		wg.Add(1)
		go func(rank int) {
			defer wg.Done()
			runtime.LockOSThread() // the current stream is the thread's
			defer runtime.UnlockOSThread()
			errs[rank] = func() error {
				c, err := nccl.Init(2, id, rank, rank, time.Minute)
				if err != nil {
					return err
				}
				defer c.Close()
				x, err := ctorch.Full([]int64{3}, float64(rank+1), ctorch.CUDADevice(rank))
				if err != nil {
					return err
				}
				defer x.Close()
				if err := c.AllReduce(x, nccl.Sum, nil); err != nil {
					return err
				}
				got, err := x.Float64s()
				if err != nil {
					return err
				}
				if got[0] != 3 || got[2] != 3 {
					return fmt.Errorf("rank %d: all_reduce gives %v, want 3s", rank, got)
				}
				y, err := ctorch.Zeros([]int64{3}, ctorch.CUDADevice(rank))
				if err != nil {
					return err
				}
				defer y.Close()
				if err := nccl.Group(func() error {
					if err := c.Send(x, 1-rank, nil); err != nil {
						return err
					}
					return c.Recv(y, 1-rank, nil)
				}); err != nil {
					return err
				}
				if got, err := y.Float64s(); err != nil || got[1] != 3 {
					return fmt.Errorf("rank %d: recv %v, %v", rank, got, err)
				}
				return c.Destroy()
			}()
		}(rank)
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}
