package cuda

// CUDA graphs: torch.cuda.CUDAGraph, the capture scope of torch.cuda.graph, graph_pool_handle
// and is_current_stream_capturing (capi/ctorch.h section 19; docs/graphs.md). Graphed
// callables (make_graphed_callables) are in graphed.go.

import (
	"runtime"
	"strings"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/internal/capi"
)

// CaptureMode is torch.cuda.graph's capture_error_mode: which threads' unsafe calls (a
// synchronization, an allocation outside the graph's pool, ...) fail while a capture runs.
// CaptureModeGlobal (PyTorch's default), CaptureModeThreadLocal and CaptureModeRelaxed are in
// abi_gen.go, from capi/abi.toml. A CaptureMode is a CaptureOption.
type CaptureMode int32

// String is the mode's name in PyTorch: "global", "thread_local", "relaxed".
func (m CaptureMode) String() string { return capi.EnumName(captureModeNames, int32(m), "CaptureMode") }

// Pool names a private memory pool of the caching allocator that graphs capture into (PyTorch's
// pool handle). The zero Pool asks for a new pool; GraphPoolHandle and Graph.Pool give ids that
// let several graphs share one, when they are captured, and then replayed, in the same order.
// A Pool is a CaptureOption and a GraphedOption.
type Pool int64

// GraphPoolHandle is torch.cuda.graph_pool_handle(): a new pool id that graphs can share.
// ErrCUDAUnavailable without a GPU.
func GraphPoolHandle() (Pool, error) {
	out := []int64{0}
	err := call("cuda_graph_pool_handle", func() int { return capi.Ct_cuda_graph_pool_handle(out) })
	return Pool(out[0]), err
}

// IsCurrentStreamCapturing is torch.cuda.is_current_stream_capturing(): whether the current
// stream of the current device of the calling OS thread is capturing (false without a GPU).
func IsCurrentStreamCapturing() (bool, error) {
	out := []int32{0}
	err := call("cuda_is_current_stream_capturing", func() int { return capi.Ct_cuda_is_current_stream_capturing(out) })
	return out[0] != 0, err
}

// Graph is torch.cuda.CUDAGraph: it owns one reference (handle) to a CUDA graph, which records
// the work queued on a stream during a capture and then runs all of it, as often as wanted,
// with one launch (Replay). Tensors created during the capture live in the graph's private
// memory pool and stay valid while the graph (or any tensor) uses them: each replay writes
// into the very tensors the capture created.
//
// Close releases it (idempotent, safe on a nil *Graph); a finalizer releases a Graph that
// becomes unreachable without Close. The last reference's release resets the graph (and ends a
// capture still under way). Using a nil or closed Graph returns an error matching
// ctorch.ErrInvalidHandle. Graphs can be created and closed without a GPU; everything else
// needs one (ctorch.ErrCUDAUnavailable). A Graph must not be copied by value.
type Graph struct{ o capi.Owned }

func wrapGraph(h int64) *Graph {
	g := &Graph{}
	g.o.Set(h)
	runtime.SetFinalizer(g, (*Graph).finalize)
	return g
}

func (g *Graph) finalize() { g.o.Finalize(capi.GraphRelease) }

// NewGraph is torch.cuda.CUDAGraph(): a new, empty graph. Works without a GPU.
func NewGraph() (*Graph, error) {
	out := []int64{0}
	if err := call("cuda_graph_create", func() int { return capi.Ct_cuda_graph_create(out) }); err != nil {
		return nil, err
	}
	return wrapGraph(out[0]), nil
}

// Close releases the graph's handle. Closing twice, or closing a nil *Graph, does nothing and
// returns nil.
func (g *Graph) Close() error {
	if g == nil {
		return nil
	}
	return failed("cuda_graph_release", g.o.Release(g, capi.GraphRelease))
}

// Closed reports whether g is nil or has been closed.
func (g *Graph) Closed() bool { return g.Handle() == 0 }

// Handle returns the raw ct_cuda_graph handle (0 for a nil or closed Graph), still owned by g.
func (g *Graph) Handle() int64 {
	if g == nil {
		return 0
	}
	return g.o.Get()
}

func (g *Graph) handle(op string) (int64, error) {
	if h := g.Handle(); h != 0 {
		return h, nil
	}
	return 0, failed(op, capi.Unusable(g == nil, "Graph"))
}

// Ref returns a second Graph holding a new reference to the same graph (ct_cuda_graph_retain).
// Close both.
func (g *Graph) Ref() (*Graph, error) {
	h, err := g.handle("cuda_graph_retain")
	if err == nil {
		err = call("cuda_graph_retain", func() int { return capi.Ct_cuda_graph_retain(h) })
	}
	runtime.KeepAlive(g)
	if err != nil {
		return nil, err
	}
	return wrapGraph(h), nil
}

// do runs f on g's handle, keeping g alive.
func (g *Graph) do(op string, f func(h int64) int) error {
	h, err := g.handle(op)
	if err != nil {
		return err
	}
	err = call(op, func() int { return f(h) })
	runtime.KeepAlive(g)
	return err
}

// CaptureBegin is g.capture_begin(pool, capture_error_mode): starts capturing the work queued
// on the current stream of the current device of the calling OS thread (lock the goroutine to
// its thread first, runtime.LockOSThread, and keep it there until CaptureEnd; or use Capture,
// which does all of that). pool: 0 for a new private pool, else an id to share. ErrState when
// the current stream is the default stream (make a side stream current first), when g holds a
// capture already (Reset it first) or when the stream is capturing already; ErrArgument for an
// unknown mode or a pool id that names no pool.
func (g *Graph) CaptureBegin(pool Pool, mode CaptureMode) error {
	return g.do("cuda_graph_capture_begin", func(h int64) int {
		return capi.Ct_cuda_graph_capture_begin(h, int64(pool), int(mode))
	})
}

// CaptureEnd is g.capture_end(): ends the capture on the stream it began on (which must be the
// current stream again) and makes the graph ready to replay. ErrState when g is not capturing,
// on another stream, or when an illegal operation invalidated the capture (the message names
// it; the capture is over and g is as after Reset).
func (g *Graph) CaptureEnd() error {
	return g.do("cuda_graph_capture_end", capi.Ct_cuda_graph_capture_end)
}

// Replay is g.replay(): runs the captured work on the current stream (of the capture's device)
// of the calling OS thread, and advances the random number generators it drew from, so that
// each replay draws new numbers. ErrState without a finished capture.
func (g *Graph) Replay() error { return g.do("cuda_graph_replay", capi.Ct_cuda_graph_replay) }

// Reset is g.reset(): drops the captured graph and gives its pool back (its memory returns to
// CUDA at EmptyCache once no tensor uses it); g can capture again. A capture still under way is
// ended and discarded.
func (g *Graph) Reset() error { return g.do("cuda_graph_reset", capi.Ct_cuda_graph_reset) }

// Pool is g.pool(): the id of the graph's private pool, for another graph's capture (a Pool
// option, or CaptureBegin). ErrState before a successful capture.
func (g *Graph) Pool() (Pool, error) {
	out := []int64{0}
	err := g.do("cuda_graph_pool", func(h int64) int { return capi.Ct_cuda_graph_pool(h, out) })
	return Pool(out[0]), err
}

// EnableDebugMode is g.enable_debug_mode(): keeps the captured graph (not only its executable
// form) so that DebugDump can write it. Call it before the capture ends. Unlike PyTorch's, it
// applies to this graph only.
func (g *Graph) EnableDebugMode() error {
	return g.do("cuda_graph_enable_debug_mode", capi.Ct_cuda_graph_enable_debug_mode)
}

// DebugDump is g.debug_dump(path): writes the captured graph as Graphviz DOT to path. ErrState
// when debug mode was not enabled before the capture ended or nothing was captured; ErrCUDA
// when the file cannot be written; ErrArgument for a path with a NUL byte.
func (g *Graph) DebugDump(path string) error {
	const op = "cuda_graph_debug_dump"
	if strings.IndexByte(path, 0) >= 0 {
		return goError(op, ctorch.CodeArgument, "path %q contains a NUL byte", path)
	}
	return g.do(op, func(h int64) int { return capi.Ct_cuda_graph_debug_dump(h, path) })
}

// LiveGraphCount returns the number of live graph handles in the process (leak checks).
func LiveGraphCount() (int64, error) {
	out := []int64{0}
	err := call("live_cuda_graph_count", func() int { return capi.Ct_live_cuda_graph_count(out) })
	return out[0], err
}

// ---- the capture scope ----------------------------------------------------------------------

// CaptureOption configures Capture and EnterCapture: a Pool (the pool to capture into; default
// a new one), a CaptureMode (default CaptureModeGlobal) or a *Stream (the stream to capture
// on; default, or nil: a side stream that ctorch keeps per device for captures, as PyTorch's
// torch.cuda.graph does). Later options override earlier ones.
type CaptureOption interface {
	applyCapture(*captureOptions)
}

type captureOptions struct {
	pool   Pool
	mode   CaptureMode
	stream *Stream
}

func (p Pool) applyCapture(o *captureOptions)        { o.pool = p }
func (m CaptureMode) applyCapture(o *captureOptions) { o.mode = m }
func (s *Stream) applyCapture(o *captureOptions)     { o.stream = s }

// Capture is `with torch.cuda.graph(g, pool, stream, capture_error_mode):`: it locks the
// calling goroutine to its OS thread, waits for the device (torch.cuda.synchronize), makes the
// capture stream current, begins capturing into g, runs fn, ends the capture and restores the
// previous stream and device before unlocking. Everything fn queues on its goroutine is
// captured, not run; run it with g.Replay. Goroutines that fn starts run on other threads and
// are not captured (with CaptureModeGlobal their unsafe calls fail while the capture runs).
//
// When fn returns an error or panics, the capture is still ended and the stream restored, and
// the partial capture is discarded (g.Reset; PyTorch keeps it); the error or panic goes on to
// the caller. Otherwise Capture returns the error of ending the capture, e.g. ErrState naming
// an illegal operation that invalidated it. A nil or closed g is ErrInvalidHandle and fn does
// not run; so is a closed *Stream option. fn must not call runtime.UnlockOSThread more often
// than runtime.LockOSThread. A nil fn is ctorch.ErrNullPointer (no capture begins).
func (g *Graph) Capture(fn func() error, opts ...CaptureOption) (err error) {
	if fn == nil {
		return failed("cuda_graph_capture_enter", capi.NilFunc())
	}
	sc, err := g.EnterCapture(opts...)
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			sc.discard = true
		}
		if xerr := sc.Exit(); xerr != nil && err == nil {
			err = xerr
		}
	}()
	err = fn()
	ok = err == nil
	return err
}

// CaptureScope is a capture under way, begun by EnterCapture; Exit ends it. It holds its own
// reference to the graph, so closing the Graph meanwhile does not disturb it.
type CaptureScope struct {
	graph      int64 // a reference of its own, released by Exit
	prevStream int64
	prevDevice int32
	discard    bool
	done       bool
}

// EnterCapture is the first half of Capture, for captures that do not fit one function: it
// locks the calling goroutine to its OS thread, makes the capture stream current and begins the
// capture. The returned scope's Exit, called on the same goroutine, ends the capture and
// restores the stream, device and thread (defer it). When EnterCapture fails nothing is
// changed and there is nothing to exit.
func (g *Graph) EnterCapture(opts ...CaptureOption) (*CaptureScope, error) {
	const op = "cuda_graph_capture_enter"
	var o captureOptions
	for _, opt := range opts {
		if opt != nil {
			opt.applyCapture(&o)
		}
	}
	h, err := g.handle(op)
	if err != nil {
		return nil, err
	}
	sh, err := streamArg(op, o.stream)
	if err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	// The scope's own reference, given back when the capture does not begin.
	err = call("cuda_graph_retain", func() int { return capi.Ct_cuda_graph_retain(h) })
	prevStream, prevDevice := []int64{0}, []int32{0}
	if err == nil {
		err = call(op, func() int {
			return capi.Ct_cuda_graph_capture_enter(h, int64(o.pool), int(o.mode), sh, prevStream, prevDevice)
		})
		if err != nil {
			capi.GraphRelease(h)
		}
	}
	runtime.KeepAlive(g)
	runtime.KeepAlive(o.stream)
	if err != nil {
		runtime.UnlockOSThread()
		return nil, err
	}
	return &CaptureScope{graph: h, prevStream: prevStream[0], prevDevice: prevDevice[0]}, nil
}

// Exit ends the capture (torch.cuda.graph's __exit__: capture_end), restores the stream and
// device that were current before EnterCapture and unlocks the goroutine from its thread, then
// reports the error of ending the capture, if any (e.g. ErrState for an illegal operation that
// invalidated it). Calling it again does nothing and returns nil; a nil scope is nil too.
func (sc *CaptureScope) Exit() error {
	if sc == nil || sc.done {
		return nil
	}
	sc.done = true
	defer runtime.UnlockOSThread()
	h := sc.graph
	err := call("cuda_graph_capture_exit", func() int {
		return capi.Ct_cuda_graph_capture_exit(h, sc.prevStream, int(sc.prevDevice))
	})
	if sc.discard {
		if rerr := call("cuda_graph_reset", func() int { return capi.Ct_cuda_graph_reset(h) }); rerr != nil && err == nil {
			err = rerr
		}
	}
	if rerr := failed("cuda_graph_release", capi.GraphRelease(h)); rerr != nil && err == nil {
		err = rerr
	}
	return err
}
