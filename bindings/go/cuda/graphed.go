package cuda

// Graphed callables: torch.cuda.make_graphed_callables for one Go function (capi/ctorch.h
// section 19: ct_cuda_make_graphed_callable and ct_cuda_graphed_*; docs/graphs.md).

import (
	"fmt"
	"runtime"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/internal/capi"
)

// GraphedOption configures MakeGraphed: a Pool (the pool to capture into; default a new one)
// or WarmupIters(n).
type GraphedOption interface {
	applyGraphed(*graphedOptions)
}

type graphedOptions struct {
	pool   Pool
	warmup int
}

func (p Pool) applyGraphed(o *graphedOptions) { o.pool = p }

type warmupIters int

func (n warmupIters) applyGraphed(o *graphedOptions) { o.warmup = int(n) }

// DefaultWarmupIters is make_graphed_callables' num_warmup_iters default.
const DefaultWarmupIters = 3

// WarmupIters sets how many times MakeGraphed runs the function on a side stream before it
// captures it (num_warmup_iters; default DefaultWarmupIters, 0 allowed).
func WarmupIters(n int) GraphedOption { return warmupIters(n) }

// Graphed is a graphed callable (what torch.cuda.make_graphed_callables returns, for one
// function): a graph captured from a Go function, with the static input tensors it reads. Run
// copies new inputs into them and replays the graph; the function's results are the tensors it
// wrote during the capture (the "static outputs"), which each Run overwrites.
//
// Close releases it (idempotent, safe on a nil *Graphed); a finalizer releases a Graphed that
// becomes unreachable without Close. Using a nil or closed Graphed returns an error matching
// ctorch.ErrInvalidHandle. A Graphed must not be copied by value.
type Graphed struct{ o capi.Owned }

func wrapGraphed(h int64) *Graphed {
	c := &Graphed{}
	c.o.Set(h)
	runtime.SetFinalizer(c, (*Graphed).finalize)
	return c
}

func (c *Graphed) finalize() { c.o.Finalize(capi.GraphedRelease) }

// MakeGraphed is torch.cuda.make_graphed_callables for fn: on a side stream it runs fn
// WarmupIters times (default 3), then captures one more call into a graph with a private pool
// (or the Pool option's), and makes the current stream wait for the warm-up. fn reads
// staticInputs (CUDA tensors; the callable keeps them alive) and writes its results into
// tensors the caller keeps, usually new tensors it creates, which then live in the graph's pool:
//
//	var y *ctorch.Tensor
//	c, err := cuda.MakeGraphed(func() (err error) {
//		y.Close() // the previous call's result (nil at first)
//		y, err = x.Mul(x)
//		return err
//	}, []*ctorch.Tensor{x})
//	...
//	err = c.Run(newX) // y now holds newX * newX
//
// fn is called only during MakeGraphed, on the calling goroutine and OS thread, where the side
// stream is current: do the work there (goroutines it starts are not captured). When fn returns
// an error, the capture is discarded and MakeGraphed returns that error, wrapped (errors.Is and
// errors.As see it). A panic in fn is raised again by MakeGraphed, after the library has
// discarded the capture (it never unwinds through the library's C++ frames). fn must not call
// runtime.Goexit (testing's t.Fatal, t.FailNow), which cannot be stopped and would unwind
// through them; return an error instead.
//
// ErrInvalidHandle for a nil or closed static input, ctorch.ErrNullPointer for a nil fn, and the
// errors of Graph.CaptureBegin (ErrCUDAUnavailable without a GPU; fn is not called then).
func MakeGraphed(fn func() error, staticInputs []*ctorch.Tensor, opts ...GraphedOption) (*Graphed, error) {
	const op = "cuda_make_graphed_callable"
	if fn == nil {
		return nil, failed(op, capi.NilFunc())
	}
	o := graphedOptions{warmup: DefaultWarmupIters}
	for _, opt := range opts {
		if opt != nil {
			opt.applyGraphed(&o)
		}
	}
	if int(int32(o.warmup)) != o.warmup {
		return nil, goError(op, ctorch.CodeArgument, "too many warm-up iterations (%d)", o.warmup)
	}
	hs, err := tensorHandles(op, "static input", staticInputs)
	if err != nil {
		return nil, err
	}
	h, f, fnErr := capi.MakeGraphedCallable(fn, hs, int32(o.warmup), int64(o.pool))
	runtime.KeepAlive(staticInputs)
	if fnErr != nil {
		return nil, fmt.Errorf("cuda.MakeGraphed: the function failed, the capture is discarded: %w", fnErr)
	}
	if f != nil {
		return nil, failed(op, f)
	}
	return wrapGraphed(h), nil
}

// tensorHandles are the handles of ts; an error names a nil or closed element as "what i".
func tensorHandles(op, what string, ts []*ctorch.Tensor) ([]int64, error) {
	if int(int32(len(ts))) != len(ts) {
		return nil, goError(op, ctorch.CodeArgument, "too many tensors (%d)", len(ts))
	}
	hs := make([]int64, len(ts))
	for i, t := range ts {
		if hs[i] = t.Handle(); hs[i] == 0 {
			return nil, unusable(op, fmt.Sprintf("%s %d", what, i), t == nil, "Tensor")
		}
	}
	return hs, nil
}

// unusable is the ErrInvalidHandle error for the nil (isNil) or closed argument what, of type
// typ: "what: nil *typ" or "what: use of a closed typ".
func unusable(op, what string, isNil bool, typ string) error {
	f := capi.Unusable(isNil, typ)
	f.Message = what + ": " + f.Message
	return failed(op, f)
}

// Close releases the callable's handle (its graph and static inputs go once nothing else
// uses them). Closing twice, or closing a nil *Graphed, does nothing and returns nil.
func (c *Graphed) Close() error {
	if c == nil {
		return nil
	}
	return failed("cuda_graphed_release", c.o.Release(c, capi.GraphedRelease))
}

// Closed reports whether c is nil or has been closed.
func (c *Graphed) Closed() bool { return c.Handle() == 0 }

// Handle returns the raw ct_cuda_graphed handle (0 for a nil or closed Graphed), still owned
// by c.
func (c *Graphed) Handle() int64 {
	if c == nil {
		return 0
	}
	return c.o.Get()
}

func (c *Graphed) handle(op string) (int64, error) {
	if h := c.Handle(); h != 0 {
		return h, nil
	}
	return 0, failed(op, capi.Unusable(c == nil, "Graphed"))
}

// Ref returns a second Graphed holding a new reference to the same callable
// (ct_cuda_graphed_retain). Close both.
func (c *Graphed) Ref() (*Graphed, error) {
	h, err := c.handle("cuda_graphed_retain")
	if err == nil {
		err = call("cuda_graphed_retain", func() int { return capi.Ct_cuda_graphed_retain(h) })
	}
	runtime.KeepAlive(c)
	if err != nil {
		return nil, err
	}
	return wrapGraphed(h), nil
}

// Run calls the graphed function: it copies inputs[i] into static input i and replays the
// graph, all on the current stream of the calling OS thread. Give every static input, in the
// order of MakeGraphed, or none to replay with the static inputs as they are. Each input must
// have its static input's shape, dtype and device (ErrShape, ErrDType, ErrDevice);
// ErrArgument for another number of inputs, ErrInvalidHandle for a nil or closed one.
func (c *Graphed) Run(inputs ...*ctorch.Tensor) error {
	const op = "cuda_graphed_run"
	h, err := c.handle(op)
	if err != nil {
		return err
	}
	hs, err := tensorHandles(op, "input", inputs)
	if err != nil {
		return err
	}
	err = call(op, func() int { return capi.Ct_cuda_graphed_run(h, hs, len(hs)) })
	runtime.KeepAlive(c)
	runtime.KeepAlive(inputs)
	return err
}

// Graph returns the callable's graph (a new reference: close it), for its Pool or a Replay of
// its own (which replays with the static inputs as they are).
func (c *Graphed) Graph() (*Graph, error) {
	const op = "cuda_graphed_graph"
	h, err := c.handle(op)
	if err != nil {
		return nil, err
	}
	out := []int64{0}
	err = call(op, func() int { return capi.Ct_cuda_graphed_graph(h, out) })
	runtime.KeepAlive(c)
	if err != nil {
		return nil, err
	}
	return wrapGraph(out[0]), nil
}

// LiveGraphedCount returns the number of live graphed-callable handles in the process (leak
// checks).
func LiveGraphedCount() (int64, error) {
	out := []int64{0}
	err := call("live_cuda_graphed_count", func() int { return capi.Ct_live_cuda_graphed_count(out) })
	return out[0], err
}
