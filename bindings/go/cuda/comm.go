package cuda

// torch.cuda.comm: broadcast, reduce_add, scatter and gather between the GPUs of one process
// (capi/ctorch.h section 20; docs/comm.md). Communicators for processes and hosts are package
// ctorch.dev/ctorch/nccl.

import (
	"fmt"
	"runtime"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/internal/capi"
)

// DefaultBufferSize is the bucket size (bytes) that BroadcastCoalesced and ReduceAddCoalesced
// use for a bufferSize <= 0: torch.cuda.comm's default, 10 MiB.
const DefaultBufferSize = capi.CT_COMM_DEFAULT_BUFFER_SIZE

// The functions of torch.cuda.comm follow PyTorch's argument rules and messages, which the
// library checks; this file only marshals. Like PyTorch, Broadcast and ReduceAdd go through
// NCCL when every tensor is a dense CUDA tensor on a device of its own, and copy otherwise.
// Every result is ordered on the current stream of its device for the calling OS thread (see
// the package notes on threads); nothing waits for the host. The returned tensors are new
// Tensors: close each of them, also those that are the input itself (a result on the
// source's device is the source, or a view of it, as in PyTorch). Without a GPU every
// function fails with ctorch.ErrCUDAUnavailable.

// int32s converts device indices to the C type; an index outside int32 is ctorch.ErrIndex.
func int32s(op string, devices []int) ([]int32, error) {
	if int(int32(len(devices))) != len(devices) {
		return nil, goError(op, ctorch.CodeArgument, "too many devices (%d)", len(devices))
	}
	ds := make([]int32, len(devices))
	for i, d := range devices {
		if err := checkIndex(op, d); err != nil {
			return nil, err
		}
		ds[i] = int32(d)
	}
	return ds, nil
}

// streamHandles are the handles of streams (nil entries stay 0: the current stream of that
// device); a nil slice gives nil (no streams). n is the number the C function reads.
func streamHandles(op string, streams []*Stream, n int) ([]int64, error) {
	if streams == nil {
		return nil, nil
	}
	if len(streams) != n {
		return nil, goError(op, ctorch.CodeArgument, "%d streams for %d devices (give one per device, or none)", len(streams), n)
	}
	hs := make([]int64, n)
	for i, s := range streams {
		if s == nil {
			continue
		}
		if hs[i] = s.Handle(); hs[i] == 0 {
			return nil, unusable(op, fmt.Sprintf("stream %d", i), false, "Stream")
		}
	}
	return hs, nil
}

// run is call with the operands (tensors, slices of them, streams) kept alive until f has
// returned.
func run(op string, f func() int, operands ...any) error {
	err := call(op, f)
	for _, o := range operands {
		runtime.KeepAlive(o)
	}
	return err
}

// tensorResults runs f (as run), which writes len(outs) new references into outs on success,
// and wraps them.
func tensorResults(op string, outs []int64, f func() int, operands ...any) ([]*ctorch.Tensor, error) {
	if err := run(op, f, operands...); err != nil {
		return nil, err
	}
	ts := make([]*ctorch.Tensor, len(outs))
	for i, h := range outs {
		ts[i] = ctorch.FromHandle(h)
	}
	return ts, nil
}

// tensorResult is tensorResults for one result.
func tensorResult(op string, f func(out []int64) int, operands ...any) (*ctorch.Tensor, error) {
	out := []int64{0}
	ts, err := tensorResults(op, out, func() int { return f(out) }, operands...)
	if err != nil {
		return nil, err
	}
	return ts[0], nil
}

func tensorHandle(op, what string, t *ctorch.Tensor) (int64, error) {
	if h := t.Handle(); h != 0 {
		return h, nil
	}
	return 0, unusable(op, what, t == nil, "Tensor")
}

// Broadcast is torch.cuda.comm.broadcast(tensor, devices): t (on the CPU or a GPU) copied to
// each of devices; result i is on devices[i], and is t itself where t is already there.
// ErrDevice for a negative device index.
func Broadcast(t *ctorch.Tensor, devices ...int) ([]*ctorch.Tensor, error) {
	const op = "cuda_comm_broadcast"
	h, err := tensorHandle(op, "tensor", t)
	if err != nil {
		return nil, err
	}
	ds, err := int32s(op, devices)
	if err != nil {
		return nil, err
	}
	outs := make([]int64, len(ds))
	return tensorResults(op, outs, func() int { return capi.Ct_cuda_comm_broadcast(h, ds, len(ds), outs) }, t)
}

// BroadcastOut is torch.cuda.comm.broadcast(tensor, out=outs): copies t into each of outs,
// CUDA tensors of t's shape (a different dtype converts). ErrDevice for an output not on
// CUDA, ErrShape for another shape.
func BroadcastOut(t *ctorch.Tensor, outs ...*ctorch.Tensor) error {
	const op = "cuda_comm_broadcast_out"
	h, err := tensorHandle(op, "tensor", t)
	if err != nil {
		return err
	}
	hs, err := tensorHandles(op, "out", outs)
	if err != nil {
		return err
	}
	return run(op, func() int { return capi.Ct_cuda_comm_broadcast_out(h, hs, len(hs)) }, t, outs)
}

// BroadcastCoalesced is torch.cuda.comm.broadcast_coalesced(tensors, devices, buffer_size):
// the tensors, all on devices[0], broadcast in buckets of about bufferSize bytes (<= 0:
// DefaultBufferSize). Result [d][i] is tensors[i] on devices[d]; row 0 holds the inputs
// themselves. ErrDevice when a tensor is not on devices[0].
func BroadcastCoalesced(tensors []*ctorch.Tensor, devices []int, bufferSize int64) ([][]*ctorch.Tensor, error) {
	const op = "cuda_comm_broadcast_coalesced"
	hs, err := tensorHandles(op, "tensor", tensors)
	if err != nil {
		return nil, err
	}
	ds, err := int32s(op, devices)
	if err != nil {
		return nil, err
	}
	n := len(hs)
	if len(ds) != 0 && n > (1<<31-1)/len(ds) {
		return nil, goError(op, ctorch.CodeArgument, "too many results (%d tensors on %d devices)", n, len(ds))
	}
	outs := make([]int64, len(ds)*n)
	flat, err := tensorResults(op, outs, func() int {
		return capi.Ct_cuda_comm_broadcast_coalesced(hs, n, ds, len(ds), bufferSize, outs)
	}, tensors)
	if err != nil {
		return nil, err
	}
	rows := make([][]*ctorch.Tensor, len(ds))
	for d := range rows {
		rows[d] = flat[d*n : (d+1)*n : (d+1)*n]
	}
	return rows, nil
}

// ReduceAdd is torch.cuda.comm.reduce_add(inputs, destination): the sum of the inputs (CUDA
// tensors of one shape) on device destination (-1: the current device), which must hold one
// of the inputs; with one input the result is that input itself. ErrShape, ErrDevice.
func ReduceAdd(inputs []*ctorch.Tensor, destination int) (*ctorch.Tensor, error) {
	const op = "cuda_comm_reduce_add"
	hs, err := tensorHandles(op, "input", inputs)
	if err != nil {
		return nil, err
	}
	if err := checkIndex(op, destination); err != nil {
		return nil, err
	}
	return tensorResult(op, func(out []int64) int { return capi.Ct_cuda_comm_reduce_add(hs, len(hs), destination, out) }, inputs)
}

// ReduceAddCoalesced is torch.cuda.comm.reduce_add_coalesced(inputs, destination,
// buffer_size): inputs holds one row of tensors per device (row d all on one device, every row
// as long as the first); result i is the sum of column i on destination (-1: the current
// device), reduced in buckets of about bufferSize bytes (<= 0: DefaultBufferSize). ErrArgument
// for rows of different lengths.
func ReduceAddCoalesced(inputs [][]*ctorch.Tensor, destination int, bufferSize int64) ([]*ctorch.Tensor, error) {
	const op = "cuda_comm_reduce_add_coalesced"
	if int(int32(len(inputs))) != len(inputs) {
		return nil, goError(op, ctorch.CodeArgument, "too many rows (%d)", len(inputs))
	}
	n := 0
	if len(inputs) > 0 {
		n = len(inputs[0])
	}
	var flat []int64
	for d, row := range inputs {
		if len(row) != n {
			return nil, goError(op, ctorch.CodeArgument, "row %d has %d tensors, row 0 has %d (one tensor per column on every device)", d, len(row), n)
		}
		hs, err := tensorHandles(op, fmt.Sprintf("row %d: input", d), row)
		if err != nil {
			return nil, err
		}
		flat = append(flat, hs...)
	}
	if err := checkIndex(op, destination); err != nil {
		return nil, err
	}
	outs := make([]int64, n)
	return tensorResults(op, outs, func() int {
		return capi.Ct_cuda_comm_reduce_add_coalesced(flat, len(inputs), n, destination, bufferSize, outs)
	}, inputs)
}

// Scatter is torch.cuda.comm.scatter(tensor, devices, chunk_sizes, dim, streams): t split
// along dim, chunk i copied to devices[i] (a view of t where t is already there). chunkSizes:
// nil for equal chunks (tensor.chunk, which may give fewer chunks than devices, and then fewer
// results), or one size per device, summing to t's size at dim. streams: nil, or one per
// device (entries may be nil: the device's current stream), streams[i] on devices[i], on
// which chunk i is copied. ErrArgument for chunkSizes or streams of another length than
// devices.
func Scatter(t *ctorch.Tensor, devices []int, chunkSizes []int64, dim int, streams []*Stream) ([]*ctorch.Tensor, error) {
	const op = "cuda_comm_scatter"
	h, err := tensorHandle(op, "tensor", t)
	if err != nil {
		return nil, err
	}
	ds, err := int32s(op, devices)
	if err != nil {
		return nil, err
	}
	if chunkSizes != nil && len(chunkSizes) != len(ds) {
		return nil, goError(op, ctorch.CodeArgument, "%d chunk sizes for %d devices (give one per device, or none)", len(chunkSizes), len(ds))
	}
	if err := checkDim(op, dim); err != nil {
		return nil, err
	}
	ss, err := streamHandles(op, streams, len(ds))
	if err != nil {
		return nil, err
	}
	outs, n := make([]int64, len(ds)), []int32{0}
	ts, err := tensorResults(op, outs, func() int {
		return capi.Ct_cuda_comm_scatter(h, ds, len(ds), chunkSizes, dim, ss, outs, n)
	}, t, streams)
	if err != nil {
		return nil, err
	}
	return ts[:n[0]:n[0]], nil
}

// ScatterOut is torch.cuda.comm.scatter(tensor, dim=dim, streams=streams, out=outs): t split
// along dim by the outputs' sizes at dim and copied into outs (CUDA tensors); streams as for
// Scatter, one per output or nil.
func ScatterOut(t *ctorch.Tensor, outs []*ctorch.Tensor, dim int, streams []*Stream) error {
	const op = "cuda_comm_scatter_out"
	h, err := tensorHandle(op, "tensor", t)
	if err != nil {
		return err
	}
	hs, err := tensorHandles(op, "out", outs)
	if err != nil {
		return err
	}
	if err := checkDim(op, dim); err != nil {
		return err
	}
	ss, err := streamHandles(op, streams, len(hs))
	if err != nil {
		return err
	}
	return run(op, func() int { return capi.Ct_cuda_comm_scatter_out(h, hs, len(hs), dim, ss) }, t, outs, streams)
}

// Gather is torch.cuda.comm.gather(tensors, dim, destination): the CUDA tensors concatenated
// along dim on destination: a CUDA device (index -1: the current device) or ctorch.CPU (then
// the copies wait for the GPU). The dtype is the first tensor's. ErrDevice, ErrShape, ErrIndex
// (dim).
func Gather(tensors []*ctorch.Tensor, dim int, destination ctorch.Device) (*ctorch.Tensor, error) {
	const op = "cuda_comm_gather"
	hs, err := gatherArgs(op, tensors, dim)
	if err != nil {
		return nil, err
	}
	if err := checkIndex(op, destination.Index); err != nil {
		return nil, err
	}
	return tensorResult(op, func(out []int64) int {
		return capi.Ct_cuda_comm_gather(hs, len(hs), dim, int(destination.Type), destination.Index, out)
	}, tensors)
}

// GatherOut is torch.cuda.comm.gather(tensors, dim, out=out): the same into out (CPU or
// CUDA), whose shape must be the tensors' concatenated along dim.
func GatherOut(tensors []*ctorch.Tensor, out *ctorch.Tensor, dim int) error {
	const op = "cuda_comm_gather_out"
	hs, err := gatherArgs(op, tensors, dim)
	if err != nil {
		return err
	}
	oh, err := tensorHandle(op, "out", out)
	if err != nil {
		return err
	}
	return run(op, func() int { return capi.Ct_cuda_comm_gather_out(hs, len(hs), oh, dim) }, tensors, out)
}

// gatherArgs are the handles of Gather's tensors, after checking them and dim.
func gatherArgs(op string, tensors []*ctorch.Tensor, dim int) ([]int64, error) {
	hs, err := tensorHandles(op, "tensor", tensors)
	if err == nil {
		err = checkDim(op, dim)
	}
	return hs, err
}

// checkDim: a dim outside int32 is ctorch.ErrIndex, as the library says for a dim out of range.
func checkDim(op string, dim int) error {
	if int(int32(dim)) != dim {
		return goError(op, ctorch.CodeIndex, "dim %d out of range", dim)
	}
	return nil
}
