package nccl

import (
	"runtime"
	"time"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/cuda"
	"ctorch.dev/ctorch/internal/capi"
)

// Comm is a communicator (ncclComm_t; one process's member of a torch.distributed NCCL process
// group): it owns one reference (handle) to it.
//
// Close releases it (idempotent, safe on a nil *Comm); a finalizer releases a Comm that
// becomes unreachable without Close. The last reference's release destroys the communicator
// as Destroy does, waiting for its queued work (at most its timeout), but reports no error:
// call Destroy (or Abort) first where that matters, and Close in any case. Using a nil or
// closed Comm returns an error matching ctorch.ErrInvalidHandle; using a destroyed or aborted
// one, ctorch.ErrState. A Comm may be used from several goroutines (collectives on one
// communicator must still be called in the same order on every member). A Comm must not be
// copied by value.
type Comm struct{ o capi.Owned }

func wrapComm(h int64) *Comm {
	c := &Comm{}
	c.o.Set(h)
	runtime.SetFinalizer(c, (*Comm).finalize)
	return c
}

func (c *Comm) finalize() { c.o.Finalize(capi.CommRelease) }

// newComm runs f, which stores a new reference (or 0) in out[0], and wraps it (nil for 0).
func newComm(op string, f func(out []int64) int) (*Comm, error) {
	out := []int64{0}
	if err := call(op, func() int { return f(out) }); err != nil {
		return nil, err
	}
	if out[0] == 0 {
		return nil, nil
	}
	return wrapComm(out[0]), nil
}

// Init is ncclCommInitRank (torch.distributed.init_process_group's NCCL communicator): joins
// the communicator of nranks members named by id (UniqueIDBytes bytes from UniqueID) as rank
// (0 <= rank < nranks), on CUDA device (-1: the current device of the calling OS thread). It
// waits until every member has joined, at most timeout (0: DefaultTimeout; below a
// millisecond rounds up to one): then an error matching ctorch.ErrTimeout, and nothing is left
// behind. The timeout stays the communicator's: see the package notes on dead peers.
// ctorch.ErrArgument for an id of another length (checked here) or a malformed one (or
// ctorch.ErrComm, as NCCL reports it), or a rank outside [0, nranks).
func Init(nranks int, id []byte, rank, device int, timeout time.Duration) (*Comm, error) {
	const op = "nccl_comm_init_rank"
	if len(id) != UniqueIDBytes {
		return nil, goError(op, ctorch.CodeArgument, "a unique id has %d bytes, got %d", UniqueIDBytes, len(id))
	}
	for _, a := range []struct {
		what string
		v    int
	}{{"nranks", nranks}, {"rank", rank}, {"device", device}} {
		if err := checkInt32(op, a.what, a.v); err != nil {
			return nil, err
		}
	}
	ms := millis(timeout)
	return newComm(op, func(out []int64) int {
		return capi.Ct_nccl_comm_init_rank(nranks, id, int64(len(id)), rank, device, ms, out)
	})
}

// Close releases the communicator's handle (see Comm). Closing twice, or closing a nil *Comm,
// does nothing and returns nil.
func (c *Comm) Close() error {
	if c == nil {
		return nil
	}
	return failed("nccl_comm_release", c.o.Release(c, capi.CommRelease))
}

// Closed reports whether c is nil or has been closed.
func (c *Comm) Closed() bool { return c.Handle() == 0 }

// Handle returns the raw ct_nccl_comm handle (0 for a nil or closed Comm), still owned by c;
// keep c alive (runtime.KeepAlive) while C code of your own uses it.
func (c *Comm) Handle() int64 {
	if c == nil {
		return 0
	}
	return c.o.Get()
}

func (c *Comm) handle(op string) (int64, error) {
	if h := c.Handle(); h != 0 {
		return h, nil
	}
	return 0, failed(op, capi.Unusable(c == nil, "Comm"))
}

// do runs f on c's handle, keeping c alive.
func (c *Comm) do(op string, f func(h int64) int) error {
	h, err := c.handle(op)
	if err != nil {
		return err
	}
	err = call(op, func() int { return f(h) })
	runtime.KeepAlive(c)
	return err
}

// Ref returns a second Comm holding a new reference to the same communicator
// (ct_nccl_comm_retain). Close both.
func (c *Comm) Ref() (*Comm, error) {
	var h int64
	if err := c.do("nccl_comm_retain", func(ch int64) int { h = ch; return capi.Ct_nccl_comm_retain(ch) }); err != nil {
		return nil, err
	}
	return wrapComm(h), nil
}

// Split is ncclCommSplit (torch.distributed.new_group / split_group): every member of c calls
// it; the members with the same color (>= 0) form a new communicator, ranked by key (ties by
// their rank in c), with c's device and timeout. A member passing NoColor joins none and gets
// a nil *Comm (and a nil error).
func (c *Comm) Split(color, key int) (*Comm, error) {
	const op = "nccl_comm_split"
	h, err := c.handle(op)
	if err != nil {
		return nil, err
	}
	if err := checkInt32(op, "color", color); err != nil {
		return nil, err
	}
	if err := checkInt32(op, "key", key); err != nil {
		return nil, err
	}
	r, err := newComm(op, func(out []int64) int { return capi.Ct_nccl_comm_split(h, color, key, out) })
	runtime.KeepAlive(c)
	return r, err
}

func (c *Comm) int32Query(op string, f func(h int64, out []int32) int) (int, error) {
	out := []int32{0}
	err := c.do(op, func(h int64) int { return f(h, out) })
	return int(out[0]), err
}

// Rank is the caller's rank in c (torch.distributed.get_rank).
func (c *Comm) Rank() (int, error) { return c.int32Query("nccl_comm_rank", capi.Ct_nccl_comm_rank) }

// Size is the number of members (torch.distributed.get_world_size).
func (c *Comm) Size() (int, error) { return c.int32Query("nccl_comm_size", capi.Ct_nccl_comm_size) }

// Device is the index of c's CUDA device.
func (c *Comm) Device() (int, error) {
	return c.int32Query("nccl_comm_device", capi.Ct_nccl_comm_device)
}

// Check asks whether c is healthy, without queuing or waiting: nil, or the error that ended it
// (ctorch.ErrComm: NCCL or a peer reported an error; ctorch.ErrTimeout: a collective ran past
// the timeout; ctorch.ErrState: aborted or destroyed by the caller).
func (c *Comm) Check() error { return c.do("nccl_comm_check", capi.Ct_nccl_comm_check) }

// Wait waits until the work queued through c so far has finished on the GPU, at most timeout
// (0: c's timeout). On timeout c is aborted and the error matches ctorch.ErrTimeout. Fails as
// Check does when c failed.
func (c *Comm) Wait(timeout time.Duration) error {
	ms := millis(timeout)
	return c.do("nccl_comm_wait", func(h int64) int { return capi.Ct_nccl_comm_wait(h, ms) })
}

// Abort is ncclCommAbort: ends c at once, also its collectives still running or waiting for
// peers (their results are undefined). Later calls on c fail with ctorch.ErrState; Close it.
// Aborting twice is allowed.
func (c *Comm) Abort() error { return c.do("nccl_comm_abort", capi.Ct_nccl_comm_abort) }

// Destroy ends c cleanly (ncclCommFinalize, then ncclCommDestroy; torch.distributed's
// destroy_process_group): it waits for c's queued work, at most its timeout (then it aborts:
// ctorch.ErrTimeout). Later calls on c fail with ctorch.ErrState; Close it.
func (c *Comm) Destroy() error { return c.do("nccl_comm_destroy", capi.Ct_nccl_comm_destroy) }

// collective runs f with the handles of c, the tensors and the stream (0 for a nil stream),
// keeping them alive. A nil or closed tensor or a closed stream is ctorch.ErrInvalidHandle.
func (c *Comm) collective(op string, s *cuda.Stream, f func(c, s int64, ts []int64) int, ts ...*ctorch.Tensor) error {
	h, err := c.handle(op)
	if err != nil {
		return err
	}
	var hs [2]int64
	for i, t := range ts {
		if hs[i] = t.Handle(); hs[i] == 0 {
			return failed(op, capi.Unusable(t == nil, "Tensor"))
		}
	}
	var sh int64
	if s != nil {
		if sh = s.Handle(); sh == 0 {
			return failed(op, capi.Unusable(false, "Stream"))
		}
	}
	err = call(op, func() int { return f(h, sh, hs[:len(ts)]) })
	runtime.KeepAlive(c)
	runtime.KeepAlive(s)
	for _, t := range ts {
		runtime.KeepAlive(t)
	}
	return err
}

// AllReduce is torch.distributed.all_reduce(t, op): every member's t becomes the reduction of
// all members' t, in place, queued on s (nil: the current stream of c's device).
func (c *Comm) AllReduce(t *ctorch.Tensor, op ReduceOp, s *cuda.Stream) error {
	return c.collective("nccl_all_reduce", s, func(c, s int64, ts []int64) int {
		return capi.Ct_nccl_all_reduce(c, ts[0], int(op), s)
	}, t)
}

// Broadcast is torch.distributed.broadcast(t, src=root): root's t copied into every member's
// t, queued on s (nil: the current stream).
func (c *Comm) Broadcast(t *ctorch.Tensor, root int, s *cuda.Stream) error {
	if err := checkInt32("nccl_broadcast", "root", root); err != nil {
		return err
	}
	return c.collective("nccl_broadcast", s, func(c, s int64, ts []int64) int {
		return capi.Ct_nccl_broadcast(c, ts[0], root, s)
	}, t)
}

// Reduce is torch.distributed.reduce(t, dst=root, op): root's t becomes the reduction of all
// members' t; the others' t is unchanged.
func (c *Comm) Reduce(t *ctorch.Tensor, root int, op ReduceOp, s *cuda.Stream) error {
	if err := checkInt32("nccl_reduce", "root", root); err != nil {
		return err
	}
	return c.collective("nccl_reduce", s, func(c, s int64, ts []int64) int {
		return capi.Ct_nccl_reduce(c, ts[0], root, int(op), s)
	}, t)
}

// AllGather is torch.distributed.all_gather_into_tensor(output, input): output (nranks times
// input's elements, of input's dtype) gets every member's input, rank by rank.
func (c *Comm) AllGather(output, input *ctorch.Tensor, s *cuda.Stream) error {
	return c.collective("nccl_all_gather", s, func(c, s int64, ts []int64) int {
		return capi.Ct_nccl_all_gather(c, ts[0], ts[1], s)
	}, output, input)
}

// ReduceScatter is torch.distributed.reduce_scatter_tensor(output, input, op): input has
// nranks times output's elements; member r's output gets the reduction of part r of every
// member's input.
func (c *Comm) ReduceScatter(output, input *ctorch.Tensor, op ReduceOp, s *cuda.Stream) error {
	return c.collective("nccl_reduce_scatter", s, func(c, s int64, ts []int64) int {
		return capi.Ct_nccl_reduce_scatter(c, ts[0], ts[1], int(op), s)
	}, output, input)
}

// AllToAll is torch.distributed.all_to_all_single(output, input): input and output have the
// same number of elements, a multiple of nranks; part j of member i's input goes to part i of
// member j's output.
func (c *Comm) AllToAll(output, input *ctorch.Tensor, s *cuda.Stream) error {
	return c.collective("nccl_all_to_all", s, func(c, s int64, ts []int64) int {
		return capi.Ct_nccl_all_to_all(c, ts[0], ts[1], s)
	}, output, input)
}

// Send is torch.distributed.send(t, dst=peer): each Send needs the matching Recv (same number
// of elements and dtype) on the peer. A member sending to itself, or two members sending to
// each other, put the Send and the Recv in one Group.
func (c *Comm) Send(t *ctorch.Tensor, peer int, s *cuda.Stream) error {
	if err := checkInt32("nccl_send", "peer", peer); err != nil {
		return err
	}
	return c.collective("nccl_send", s, func(c, s int64, ts []int64) int {
		return capi.Ct_nccl_send(c, ts[0], peer, s)
	}, t)
}

// Recv is torch.distributed.recv(t, src=peer): t receives the peer's matching Send.
func (c *Comm) Recv(t *ctorch.Tensor, peer int, s *cuda.Stream) error {
	if err := checkInt32("nccl_recv", "peer", peer); err != nil {
		return err
	}
	return c.collective("nccl_recv", s, func(c, s int64, ts []int64) int {
		return capi.Ct_nccl_recv(c, ts[0], peer, s)
	}, t)
}
