package ctorch_test

// CUDA graphs (package cuda: Graph, the capture scope, pools, graphed callables). On any
// machine: lifetimes and finalizers, nil and closed arguments, the marshalling of tensor lists,
// the trampoline that lends a Go function to ct_cuda_make_graphed_callable (errors and panics
// come back, nothing is left lent), the raw handles, and without a GPU the
// CT_ERR_CUDA_UNAVAILABLE errors. On a GPU (TestGPU*, skipped here with the reason): capture
// and replay against eager results, the scope's restore when the body fails or panics, graphed
// callables with new inputs and failing functions and their finalizers, shared pools, the debug
// dump, and captures from two goroutines at once in thread-local mode. The graphs' own
// semantics (memory, random numbers, illegal operations) are the C suite's.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/cuda"
	"ctorch.dev/ctorch/internal/capi"
)

func liveGraphs(t *testing.T) int64 {
	t.Helper()
	n, err := cuda.LiveGraphCount()
	noErr(t, err)
	return n
}

func liveGrapheds(t *testing.T) int64 {
	t.Helper()
	n, err := cuda.LiveGraphedCount()
	noErr(t, err)
	return n
}

// graphScope is cudaScope plus checks, at the end of the test, that the live graph and
// graphed-callable counts are back at their start and that no Go function is still lent to
// the library.
func graphScope(t *testing.T) *scope {
	t.Helper()
	graphs, grapheds := liveGraphs(t), liveGrapheds(t)
	t.Cleanup(func() {
		if n := liveGraphs(t); n != graphs {
			t.Errorf("live graph count is %d at the end of the test, want %d", n, graphs)
		}
		if n := liveGrapheds(t); n != grapheds {
			t.Errorf("live graphed-callable count is %d at the end of the test, want %d", n, grapheds)
		}
		if n := capi.LentGraphFns(); n != 0 {
			t.Errorf("%d Go functions still lent to the library", n)
		}
	})
	return cudaScope(t)
}

func newGraph(t *testing.T) *cuda.Graph {
	t.Helper()
	g, err := cuda.NewGraph()
	return keepOpen(t, g, err)
}

// The capture modes are the header's values, with PyTorch's names.
func TestCaptureModes(t *testing.T) {
	want := map[cuda.CaptureMode]struct {
		v    int
		name string
	}{
		cuda.CaptureModeGlobal:      {0, "global"},
		cuda.CaptureModeThreadLocal: {1, "thread_local"},
		cuda.CaptureModeRelaxed:     {2, "relaxed"},
	}
	for m, w := range want {
		if int(m) != w.v || m.String() != w.name {
			t.Errorf("mode %d %q, want %d %q", int(m), m.String(), w.v, w.name)
		}
	}
	if capi.CT_CAPTURE_MODE_THREAD_LOCAL != 1 || capi.CT_CAPTURE_MODE_RELAXED != 2 {
		t.Error("capture mode constants differ from the header")
	}
	if s := cuda.CaptureMode(7).String(); s != "CaptureMode(7)" {
		t.Errorf("CaptureMode(7) prints %q", s)
	}
}

// Graphs exist without a GPU: create, Ref, Close (twice), the live count, and every method of
// a closed or nil Graph is ErrInvalidHandle (Capture without running its function).
func TestGraphLifetimes(t *testing.T) {
	graphScope(t)
	start := liveGraphs(t)
	g, err := cuda.NewGraph()
	noErr(t, err)
	if g.Closed() || g.Handle() == 0 || liveGraphs(t) != start+1 {
		t.Fatalf("new graph: Closed %v Handle %d live %d (start %d)", g.Closed(), g.Handle(), liveGraphs(t), start)
	}
	r, err := g.Ref()
	noErr(t, err)
	if r.Handle() != g.Handle() || liveGraphs(t) != start+1 {
		t.Errorf("Ref: handle %d (g %d), live %d; want the same handle and count (a reference, not a graph)", r.Handle(), g.Handle(), liveGraphs(t))
	}
	noErr(t, g.Close())
	noErr(t, g.Close())
	if !g.Closed() || g.Handle() != 0 || liveGraphs(t) != start+1 {
		t.Errorf("after closing one of two references: Closed %v Handle %d live %d", g.Closed(), g.Handle(), liveGraphs(t))
	}
	noErr(t, r.Close())
	if n := liveGraphs(t); n != start {
		t.Errorf("live graphs %d after closing both references, want %d", n, start)
	}
	for name, c := range map[string]*cuda.Graph{"nil": nil, "closed": g, "zero": new(cuda.Graph)} {
		noErr(t, c.Close())
		wantClosed(t, c.CaptureBegin(0, cuda.CaptureModeGlobal))
		wantClosed(t, c.CaptureEnd())
		wantClosed(t, c.Replay())
		wantClosed(t, c.Reset())
		_, err := c.Pool()
		wantClosed(t, err)
		wantClosed(t, c.EnableDebugMode())
		wantClosed(t, c.DebugDump(filepath.Join(t.TempDir(), "g.dot")))
		_, err = c.Ref()
		wantClosed(t, err)
		ran := false
		wantClosed(t, c.Capture(func() error { ran = true; return nil }))
		if ran {
			t.Errorf("%s graph: Capture ran its function", name)
		}
		sc, err := c.EnterCapture()
		wantClosed(t, err)
		if sc != nil {
			t.Errorf("%s graph: EnterCapture returned a scope", name)
		}
	}
	// A nil scope (from a failed EnterCapture) exits as nothing.
	noErr(t, (*cuda.CaptureScope)(nil).Exit())
}

// Graphs dropped without Close are released by their finalizers.
func TestGarbageCollectorReleasesGraphs(t *testing.T) {
	start := liveGraphs(t)
	const n = 3000
	for i := 0; i < n; i++ {
		g, err := cuda.NewGraph()
		noErr(t, err)
		if i%3 == 0 {
			noErr(t, g.Close())
		}
	}
	collectUntil(t, "graphs", liveGraphs, start)
}

// Arguments the Go layer checks before any native call: nil and closed tensors in the lists
// (named by position), a nil function, a closed stream option, a path with a NUL byte.
func TestGraphArgumentErrors(t *testing.T) {
	s := graphScope(t)
	x := s.T(ctorch.Ones([]int64{2}))
	closedT := s.T(ctorch.Ones([]int64{2}))
	noErr(t, closedT.Close())
	called := 0
	fn := func() error { called++; return nil }

	_, err := cuda.MakeGraphed(fn, []*ctorch.Tensor{x, nil})
	if e := wantErr(t, err, ctorch.ErrInvalidHandle); !strings.Contains(e.Message, "static input 1: nil *Tensor") {
		t.Errorf("nil static input: %v", err)
	}
	_, err = cuda.MakeGraphed(fn, []*ctorch.Tensor{closedT})
	if e := wantErr(t, err, ctorch.ErrInvalidHandle); !strings.Contains(e.Message, "static input 0: use of a closed Tensor") {
		t.Errorf("closed static input: %v", err)
	}
	_, err = cuda.MakeGraphed(nil, []*ctorch.Tensor{x})
	wantErr(t, err, ctorch.ErrNullPointer)
	_, err = cuda.MakeGraphed(fn, nil, cuda.WarmupIters(1<<40))
	wantErr(t, err, ctorch.ErrArgument)
	if called != 0 {
		t.Errorf("the function ran %d times", called)
	}

	g := newGraph(t)
	err = g.Capture(fn, new(cuda.Stream))
	wantClosed(t, err)
	_, err = g.EnterCapture(cuda.CaptureModeRelaxed, new(cuda.Stream))
	wantClosed(t, err)
	if called != 0 {
		t.Errorf("Capture with a closed stream ran its function")
	}
	wantErr(t, g.DebugDump("a\x00b"), ctorch.ErrArgument)

	// A nil or closed Graphed.
	for name, c := range map[string]*cuda.Graphed{"nil": nil, "zero": new(cuda.Graphed)} {
		if !c.Closed() || c.Handle() != 0 {
			t.Errorf("%s graphed: Closed %v Handle %d", name, c.Closed(), c.Handle())
		}
		noErr(t, c.Close())
		noErr(t, c.Close())
		wantClosed(t, c.Run())
		wantClosed(t, c.Run(x))
		_, err = c.Graph()
		wantClosed(t, err)
		_, err = c.Ref()
		wantClosed(t, err)
	}
}

// Without a GPU every graph call but create/release and IsCurrentStreamCapturing is
// ErrCUDAUnavailable, and neither Capture nor MakeGraphed runs the function.
func TestGraphCallsWithoutGPU(t *testing.T) {
	skipWithGPU(t)
	s := graphScope(t)
	g := newGraph(t)
	wantUnavailable(t, g.CaptureBegin(0, cuda.CaptureModeGlobal))
	wantUnavailable(t, g.CaptureEnd())
	wantUnavailable(t, g.Replay())
	wantUnavailable(t, g.Reset())
	_, err := g.Pool()
	wantUnavailable(t, err)
	wantUnavailable(t, g.EnableDebugMode())
	wantUnavailable(t, g.DebugDump(filepath.Join(t.TempDir(), "g.dot")))
	_, err = cuda.GraphPoolHandle()
	wantUnavailable(t, err)
	capturing, err := cuda.IsCurrentStreamCapturing()
	noErr(t, err)
	if capturing {
		t.Error("capturing without a GPU")
	}
	called := 0
	fn := func() error { called++; return nil }
	wantUnavailable(t, g.Capture(fn, cuda.Pool(0), cuda.CaptureModeThreadLocal, (*cuda.Stream)(nil)))
	sc, err := g.EnterCapture()
	wantUnavailable(t, err)
	noErr(t, sc.Exit())
	x := s.T(ctorch.Ones([]int64{2}))
	c, err := cuda.MakeGraphed(fn, []*ctorch.Tensor{x, x}, cuda.WarmupIters(0), cuda.Pool(5))
	wantUnavailable(t, err)
	if c != nil {
		t.Error("MakeGraphed returned a callable")
	}
	_, err = cuda.MakeGraphed(fn, nil)
	wantUnavailable(t, err)
	if called != 0 {
		t.Errorf("the function ran %d times without a GPU", called)
	}
}

// The trampoline that ct_cuda_make_graphed_callable calls: the Go function runs once per call
// from C, its error comes back as the same error value (and a failure status for C), it is not
// run again after a failure, ctorch calls work inside it, and a panic is raised again with
// its value after the C frames. Nothing stays lent.
func TestGraphFunctionTrampoline(t *testing.T) {
	s := graphScope(t)
	calls := 0
	sts, err := capi.RunGraphFnForTest(func() error { calls++; return nil }, 3)
	noErr(t, err)
	if !reflect.DeepEqual(sts, []int{0, 0, 0}) || calls != 3 {
		t.Errorf("statuses %v after %d calls, want [0 0 0] after 3", sts, calls)
	}

	calls = 0
	sts, err = capi.RunGraphFnForTest(func() error {
		calls++
		if calls == 2 {
			return fmt.Errorf("call %d: %w", calls, errFromCallback)
		}
		return nil
	}, 4)
	if !errors.Is(err, errFromCallback) || !strings.Contains(err.Error(), "call 2") {
		t.Errorf("error %v, want the callback's own (call 2)", err)
	}
	f := capi.GraphFnFailed
	if !reflect.DeepEqual(sts, []int{0, f, f, f}) || calls != 2 {
		t.Errorf("statuses %v after %d calls, want [0 %d %d %d] after 2", sts, calls, f, f, f)
	}

	// ctorch calls inside the function: a tensor it makes stays, its failure is a *ctorch.Error.
	var made *ctorch.Tensor
	_, err = capi.RunGraphFnForTest(func() (err error) {
		if made == nil {
			made, err = ctorch.Full([]int64{2}, 3)
			return err
		}
		_, err = made.View(3)
		return err
	}, 2)
	s.keep(made)
	wantErr(t, err, ctorch.ErrShape)
	eqF64(t, made, 3, 3)

	// A panic comes back as a panic, with its value, once the C frames are left.
	type boom struct{ n int }
	func() {
		defer func() {
			if r := recover(); !reflect.DeepEqual(r, boom{7}) {
				t.Errorf("recovered %v, want boom{7}", r)
			}
		}()
		capi.RunGraphFnForTest(func() error { panic(boom{7}) }, 2)
		t.Error("no panic")
	}()
	// Even panic(nil), which recover() does not tell from no panic before Go 1.21.
	reached := false
	func() {
		defer func() { recover() }()
		capi.RunGraphFnForTest(func() error { panic(nil) }, 1)
		reached = true
	}()
	if reached {
		t.Error("panic(nil) in the function was swallowed")
	}
}

// Raw handles: NULL and handles of another kind are CT_ERR_INVALID_HANDLE for the calls that
// take a graph or a graphed callable, and ct_cuda_is_current_stream_capturing is 0 outside a
// capture, with or without a GPU. (The CPU suite reaches the graphed callable's functions and
// ct_cuda_graph_capture_exit only this way.)
func TestRawGraphHandles(t *testing.T) {
	graphScope(t)
	i32, i64 := []int32{0}, []int64{0}
	g := newGraph(t)
	gh := g.Handle()
	tn := []int64{0}
	if f := capi.Call(func() int { return capi.Ct_zeros([]int64{2}, 1, capi.CT_FLOAT32, capi.CT_CPU, -1, tn) }); f != nil {
		t.Fatalf("ct_zeros: %+v", f)
	}
	defer capi.TensorRelease(tn[0])
	x := tn[0]
	bad := map[string]func() int{
		"graphed_release(NULL)":  func() int { return capi.Ct_cuda_graphed_release(0) },
		"graphed_retain(NULL)":   func() int { return capi.Ct_cuda_graphed_retain(0) },
		"graphed_run(NULL)":      func() int { return capi.Ct_cuda_graphed_run(0, nil, 0) },
		"graphed_graph(NULL)":    func() int { return capi.Ct_cuda_graphed_graph(0, i64) },
		"graphed_run(graph)":     func() int { return capi.Ct_cuda_graphed_run(gh, []int64{x}, 1) },
		"graphed_release(graph)": func() int { return capi.Ct_cuda_graphed_release(gh) },
		"graph_release(NULL)":    func() int { return capi.Ct_cuda_graph_release(0) },
		"graph_retain(tensor)":   func() int { return capi.Ct_cuda_graph_retain(x) },
		"graph_release(tensor)":  func() int { return capi.Ct_cuda_graph_release(x) },
		"tensor_dim(graph)":      func() int { return capi.Ct_tensor_dim(gh, i32) },
		// exit takes the previous stream's reference: a NULL one is refused, whatever the graph
		"graph_capture_exit(NULL)":           func() int { return capi.Ct_cuda_graph_capture_exit(0, 0, -1) },
		"graph_capture_exit(g, NULL stream)": func() int { return capi.Ct_cuda_graph_capture_exit(gh, 0, -1) },
	}
	for name, f := range bad {
		fl := capi.Call(f)
		if fl == nil || fl.Code != capi.CT_ERR_INVALID_HANDLE || fl.Message == "" {
			t.Errorf("%s: %+v, want CT_ERR_INVALID_HANDLE with a message", name, fl)
		}
	}
	// Both survived the misuse.
	if f := capi.Call(func() int { return capi.Ct_tensor_dim(x, i32) }); f != nil || i32[0] != 1 {
		t.Errorf("ct_tensor_dim after the misuse: %+v, %d", f, i32[0])
	}
	if f := capi.Call(func() int { return capi.Ct_cuda_graph_retain(gh) }); f != nil {
		t.Errorf("ct_cuda_graph_retain after the misuse: %+v", f)
	} else {
		capi.GraphRelease(gh)
	}
	if f := capi.Call(func() int { return capi.Ct_cuda_is_current_stream_capturing(i32) }); f != nil || i32[0] != 0 {
		t.Errorf("ct_cuda_is_current_stream_capturing: %+v, %d", f, i32[0])
	}
}

// ---- on a GPU --------------------------------------------------------------------------------

// chain is a short chain of elementwise ops: ((x * 2 + 1).exp() - x) / 3.
func chain(x *ctorch.Tensor) (*ctorch.Tensor, error) {
	a, err := x.MulInt(2)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	if err := a.AddIntInPlace(1); err != nil {
		return nil, err
	}
	if err := a.ExpInPlace(); err != nil {
		return nil, err
	}
	if err := a.SubInPlace(x); err != nil {
		return nil, err
	}
	return a.DivInt(3)
}

func gpuGraphTest(t *testing.T) *scope {
	t.Helper()
	needGPUs(t, 1)
	s := graphScope(t)
	lockThread(t)
	return s
}

// eager is chain(x) run eagerly, on the host's copy.
func eagerChain(t *testing.T, s *scope, x *ctorch.Tensor) []float64 {
	t.Helper()
	y := s.T(chain(x))
	v, err := y.Float64s()
	noErr(t, err)
	return v
}

func cudaFrom(t *testing.T, s *scope, v ...float32) *ctorch.Tensor {
	t.Helper()
	return s.T(ctorch.FromSlice(v, nil, ctorch.CUDA))
}

// Capture's function runs captured (nothing computed yet, IsCurrentStreamCapturing true, on a
// side stream), and each Replay computes what eager ops compute, with the values the static
// input holds at that moment.
func TestGPUGraphCaptureReplay(t *testing.T) {
	s := gpuGraphTest(t)
	x := cudaFrom(t, s, 0.5, -1, 2, 0)
	before := currentStream(t, -1)
	g := newGraph(t)
	var y *ctorch.Tensor
	noErr(t, g.Capture(func() (err error) {
		capturing, err := cuda.IsCurrentStreamCapturing()
		if err != nil || !capturing {
			return fmt.Errorf("inside Capture: capturing %v, %v", capturing, err)
		}
		if cur := currentStream(t, -1); cur.Equal(before) {
			return errors.New("inside Capture: the stream is the one before")
		}
		y, err = chain(x)
		return err
	}))
	s.keep(y)
	if capturing, err := cuda.IsCurrentStreamCapturing(); err != nil || capturing {
		t.Fatalf("after Capture: capturing %v, %v", capturing, err)
	}
	if cur := currentStream(t, -1); !cur.Equal(before) {
		t.Errorf("after Capture the current stream is %v, want %v", cur, before)
	}
	pool, err := g.Pool()
	noErr(t, err)
	if pool == 0 {
		t.Error("a captured graph's pool id is 0")
	}
	for _, in := range [][]float32{{0.5, -1, 2, 0}, {3, 1, -2, 0.25}} {
		noErr(t, x.CopyFrom(cudaFrom(t, s, in...)))
		noErr(t, g.Replay())
		got, err := y.Float64s()
		noErr(t, err)
		if want := eagerChain(t, s, x); !reflect.DeepEqual(got, want) {
			t.Errorf("replay with %v gives %v, eager %v", in, got, want)
		}
	}
	noErr(t, g.Reset())
	wantErr(t, g.Replay(), ctorch.ErrState)
}

// The manual forms: EnterCapture/Exit, and CaptureBegin/CaptureEnd on a stream of one's own
// (under WithStream), with a mode and a pool of GraphPoolHandle shared by two graphs.
func TestGPUGraphManualCaptureAndSharedPool(t *testing.T) {
	s := gpuGraphTest(t)
	x := cudaFrom(t, s, 1, 2, 3)
	pool, err := cuda.GraphPoolHandle()
	noErr(t, err)
	g1, g2 := newGraph(t), newGraph(t)

	sc, err := g1.EnterCapture(pool, cuda.CaptureModeThreadLocal)
	noErr(t, err)
	y1, err := chain(x)
	s.keep(y1)
	noErr(t, err)
	noErr(t, sc.Exit())
	noErr(t, sc.Exit()) // a second Exit does nothing
	if capturing, _ := cuda.IsCurrentStreamCapturing(); capturing {
		t.Fatal("still capturing after Exit")
	}

	side := newStream(t, -1, 0)
	var y2 *ctorch.Tensor
	noErr(t, cuda.WithStream(side, func() (err error) {
		if err := g2.CaptureBegin(pool, cuda.CaptureModeRelaxed); err != nil {
			return err
		}
		y2, err = y1.MulInt(10)
		if err != nil {
			g2.CaptureEnd()
			return err
		}
		return g2.CaptureEnd()
	}))
	s.keep(y2)
	for _, g := range []*cuda.Graph{g1, g2} {
		p, err := g.Pool()
		noErr(t, err)
		if p != pool {
			t.Errorf("pool %d, want the shared %d", p, pool)
		}
	}
	// A third graph shares g1's pool through g1.Pool().
	g3 := newGraph(t)
	p1, err := g1.Pool()
	noErr(t, err)
	var y3 *ctorch.Tensor
	noErr(t, g3.Capture(func() (err error) { y3, err = y2.AddInt(1); return err }, p1))
	s.keep(y3)
	if p3, err := g3.Pool(); err != nil || p3 != pool {
		t.Errorf("g3 pool %d (%v), want %d", p3, err, pool)
	}
	noErr(t, g1.Replay())
	noErr(t, g2.Replay())
	noErr(t, g3.Replay())
	want := eagerChain(t, s, x)
	got, err := y1.Float64s()
	noErr(t, err)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("y1 %v, want %v", got, want)
	}
	for i := range want {
		want[i] = float64(float32(float32(want[i])*10) + 1)
	}
	nearF64(t, y3, 0, want...)
}

// When the body fails, Capture ends the capture, restores the stream, discards the partial
// graph and returns the body's error; a panic does the same and goes on. An illegal operation
// that the body ignores comes back from the end of the capture.
func TestGPUGraphCaptureBodyFails(t *testing.T) {
	s := gpuGraphTest(t)
	x := cudaFrom(t, s, 1, 2)
	before := currentStream(t, -1)
	g := newGraph(t)
	check := func(what string) {
		t.Helper()
		if capturing, err := cuda.IsCurrentStreamCapturing(); err != nil || capturing {
			t.Errorf("%s: capturing %v, %v", what, capturing, err)
		}
		if cur := currentStream(t, -1); !cur.Equal(before) {
			t.Errorf("%s: the current stream is %v, want %v", what, cur, before)
		}
		wantErr(t, g.Replay(), ctorch.ErrState) // nothing to replay: discarded
	}
	err := g.Capture(func() error {
		y, err := x.Neg()
		s.keep(y)
		if err != nil {
			return err
		}
		return errFromCallback
	})
	if !errors.Is(err, errFromCallback) {
		t.Fatalf("Capture returned %v, want the body's error", err)
	}
	check("after an error")

	func() {
		defer func() {
			if r := recover(); r != "body panic" {
				t.Errorf("recovered %v", r)
			}
		}()
		g.Capture(func() error {
			y, err := x.Neg() // something captured before the panic
			s.keep(y)
			noErr(t, err)
			panic("body panic")
		})
	}()
	check("after a panic")

	// The body ignores the error of an illegal operation (item synchronizes with the host).
	one, err := x.Sum() // a one-element tensor, so that only the capture refuses its item
	noErr(t, err)
	defer one.Close()
	err = g.Capture(func() error {
		_, ierr := one.Item()
		wantErr(t, ierr, ctorch.ErrState)
		return nil
	})
	wantErr(t, err, ctorch.ErrState)
	check("after an invalidated capture")

	// The graph captures normally afterwards.
	var y *ctorch.Tensor
	noErr(t, g.Capture(func() (err error) { y, err = x.MulInt(3); return err }))
	s.keep(y)
	noErr(t, g.Replay())
	eqF64(t, y, 3, 6)
}

// MakeGraphed with a Go function: warm-up calls plus one captured, Run with new inputs gives
// the eager result in the static output, Run() replays as is, wrong inputs are the library's
// errors, and the callable's graph has a pool.
func TestGPUGraphedCallable(t *testing.T) {
	s := gpuGraphTest(t)
	x := cudaFrom(t, s, 0.5, -1, 2, 0)
	w := cudaFrom(t, s, 1, 2, 3, 4)
	var y *ctorch.Tensor
	calls := 0
	c, err := cuda.MakeGraphed(func() (err error) {
		calls++
		y.Close() // the previous call's output
		xw, err := x.Mul(w)
		if err != nil {
			return err
		}
		defer xw.Close()
		y, err = chain(xw)
		return err
	}, []*ctorch.Tensor{x, w}, cuda.WarmupIters(2))
	noErr(t, err)
	closeLater(t, c)
	s.keep(y)
	if calls != 3 {
		t.Errorf("the function ran %d times, want 2 warm-up calls + 1 captured", calls)
	}
	for _, in := range [][2][]float32{{{3, 1, -2, 0.25}, {1, 1, 1, 1}}, {{0, 0, 1, 1}, {-1, 2, -3, 4}}} {
		nx, nw := cudaFrom(t, s, in[0]...), cudaFrom(t, s, in[1]...)
		noErr(t, c.Run(nx, nw))
		got, err := y.Float64s()
		noErr(t, err)
		xw := s.T(nx.Mul(nw))
		if want := eagerChain(t, s, xw); !reflect.DeepEqual(got, want) {
			t.Errorf("Run(%v) gives %v, eager %v", in, got, want)
		}
	}
	// Run() replays with the static inputs as they are (the last Run's copies).
	noErr(t, y.Zero())
	noErr(t, c.Run())
	xw := s.T(x.Mul(w))
	got, err := y.Float64s()
	noErr(t, err)
	if want := eagerChain(t, s, xw); !reflect.DeepEqual(got, want) {
		t.Errorf("Run() gives %v, want %v", got, want)
	}
	wantErr(t, c.Run(x), ctorch.ErrArgument)
	wantErr(t, c.Run(cudaFrom(t, s, 1, 2, 3), w), ctorch.ErrShape)
	wantErr(t, c.Run(s.T(ctorch.Ones([]int64{4})), w), ctorch.ErrDevice)
	g, err := c.Graph()
	noErr(t, err)
	closeLater(t, g)
	if p, err := g.Pool(); err != nil || p == 0 {
		t.Errorf("the callable's graph: pool %d, %v", p, err)
	}
	r, err := c.Ref()
	noErr(t, err)
	noErr(t, r.Close())
	noErr(t, c.Run()) // c still works after closing its second reference
}

// A function that fails (an error at its second call, or a panic) stops MakeGraphed: the
// error comes back wrapped (errors.Is), the panic as a panic; no callable is left, the capture
// is over and the current stream is the one before.
func TestGPUGraphedFunctionFails(t *testing.T) {
	s := gpuGraphTest(t)
	x := cudaFrom(t, s, 1, 2)
	before := currentStream(t, -1)
	start := liveGrapheds(t)
	check := func(what string) {
		t.Helper()
		if n := liveGrapheds(t); n != start {
			t.Errorf("%s: %d live callables, want %d", what, n, start)
		}
		if capturing, err := cuda.IsCurrentStreamCapturing(); err != nil || capturing {
			t.Errorf("%s: capturing %v, %v", what, capturing, err)
		}
		if cur := currentStream(t, -1); !cur.Equal(before) {
			t.Errorf("%s: the current stream is %v, want %v", what, cur, before)
		}
	}
	for _, failAt := range []int{1, 2, 4} { // a warm-up call, or the captured one (WarmupIters 3)
		calls := 0
		c, err := cuda.MakeGraphed(func() error {
			calls++
			y, err := x.Exp()
			s.keep(y)
			if err != nil {
				return err
			}
			if calls == failAt {
				return fmt.Errorf("at call %d: %w", calls, errFromCallback)
			}
			return nil
		}, []*ctorch.Tensor{x})
		if c != nil || !errors.Is(err, errFromCallback) || !strings.Contains(err.Error(), fmt.Sprintf("at call %d", failAt)) {
			t.Errorf("failing at call %d: callable %v, error %v", failAt, c, err)
		}
		if calls != failAt {
			t.Errorf("the function ran %d times, want %d (none after the failure)", calls, failAt)
		}
		check(fmt.Sprintf("failure at call %d", failAt))
	}
	func() {
		defer func() {
			if r := recover(); r != "graphed panic" {
				t.Errorf("recovered %v", r)
			}
		}()
		cuda.MakeGraphed(func() error { panic("graphed panic") }, []*ctorch.Tensor{x}, cuda.WarmupIters(0))
		t.Error("no panic")
	}()
	check("after a panic")
}

// EnableDebugMode before the capture, then DebugDump writes Graphviz DOT; without debug mode
// DebugDump is ErrState.
func TestGPUGraphDebugDump(t *testing.T) {
	s := gpuGraphTest(t)
	x := cudaFrom(t, s, 1, 2)
	g := newGraph(t)
	noErr(t, g.EnableDebugMode())
	var y *ctorch.Tensor
	noErr(t, g.Capture(func() (err error) { y, err = chain(x); return err }))
	s.keep(y)
	path := filepath.Join(t.TempDir(), "graph.dot")
	noErr(t, g.DebugDump(path))
	b, err := os.ReadFile(path)
	noErr(t, err)
	if !strings.Contains(string(b), "digraph") {
		t.Errorf("the dump is not DOT: %.200q", b)
	}
	plain := newGraph(t)
	var z *ctorch.Tensor
	noErr(t, plain.Capture(func() (err error) { z, err = x.Neg(); return err }))
	s.keep(z)
	wantErr(t, plain.DebugDump(filepath.Join(t.TempDir(), "plain.dot")), ctorch.ErrState)
}

// Two goroutines capture at the same time in thread-local mode, each under WithStream on its
// own OS thread and side stream (both captures are open before either adds work: a barrier);
// each graph replays its own chain.
func TestGPUGraphCapturesFromTwoGoroutines(t *testing.T) {
	s := gpuGraphTest(t)
	var done, begun sync.WaitGroup
	begun.Add(2)
	ys := make([]*ctorch.Tensor, 2)
	xs := []*ctorch.Tensor{cudaFrom(t, s, 1, 2), cudaFrom(t, s, -3, 0.5)}
	gs := []*cuda.Graph{newGraph(t), newGraph(t)}
	sides := []*cuda.Stream{newStream(t, -1, 0), newStream(t, -1, 0)}
	errs := make([]error, 2)
	for i := range gs {
		done.Add(1)
		go func(i int) {
			defer done.Done()
			errs[i] = cuda.WithStream(sides[i], func() (err error) {
				err = gs[i].CaptureBegin(0, cuda.CaptureModeThreadLocal)
				begun.Done()
				if err != nil {
					return err
				}
				begun.Wait()
				ys[i], err = chain(xs[i])
				if eerr := gs[i].CaptureEnd(); err == nil {
					err = eerr
				}
				return err
			})
		}(i)
	}
	done.Wait()
	s.keep(ys...)
	for i := range gs {
		noErr(t, errs[i])
		noErr(t, gs[i].Replay())
		got, err := ys[i].Float64s()
		noErr(t, err)
		if want := eagerChain(t, s, xs[i]); !reflect.DeepEqual(got, want) {
			t.Errorf("graph %d: %v, want %v", i, got, want)
		}
	}
}

// Graphed callables dropped without Close are released by their finalizers.
func TestGPUGarbageCollectorReleasesGraphed(t *testing.T) {
	s := gpuGraphTest(t)
	x := cudaFrom(t, s, 1, 2)
	start := liveGrapheds(t)
	for i := 0; i < 20; i++ {
		var y *ctorch.Tensor
		_, err := cuda.MakeGraphed(func() (err error) { y, err = x.Neg(); return err }, []*ctorch.Tensor{x}, cuda.WarmupIters(0))
		noErr(t, err)
		s.keep(y)
	}
	collectUntil(t, "graphed callables", liveGrapheds, start)
}
