package cuda

// NVTX (capi/ctorch.h section 22): torch.cuda.nvtx's marks and ranges, which Nsight Systems
// (`nsys profile -t nvtx,cuda ./prog`) and other NVTX tools show on the timeline. No GPU is
// needed: without a profiler attached every call is a cheap no-op.
//
// The values are NVTX's, passed through as torch does: NvtxRangePush and NvtxRangePop return
// the depth the tool reports (0 for the outermost range) and NvtxNoPushPopTracking (-2) when
// no tool is attached; NvtxRangeStart returns the tool's range id, 0 without a tool.
//
// Pushed ranges nest per OS thread, and a goroutine may move to another thread between two
// calls: NvtxRange and NvtxPush lock the goroutine to its thread from the push to the pop. With
// NvtxRangePush and NvtxRangePop, lock it yourself (runtime.LockOSThread) around the pair.
// Messages reach the tool as their bytes (UTF-8 text shows as text); one containing a NUL byte
// (which would cut the C string short) is an error matching ctorch.ErrArgument.

import (
	"runtime"
	"strings"
	"syscall"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/internal/capi"
)

// NvtxNoPushPopTracking is what push and pop return when no tool is attached
// (NVTX_NO_PUSH_POP_TRACKING).
const NvtxNoPushPopTracking = -2

// checkCString is ErrArgument when s, passed to C as a NUL-terminated string, contains a NUL
// byte.
func checkCString(op, s string) error {
	if strings.IndexByte(s, 0) >= 0 {
		return goError(op, ctorch.CodeArgument, "argument contains a NUL byte")
	}
	return nil
}

// NvtxMark is torch.cuda.nvtx.mark(msg): an instantaneous event.
func NvtxMark(msg string) error {
	if err := checkCString("nvtx_mark", msg); err != nil {
		return err
	}
	return call("nvtx_mark", func() int { return capi.Ct_nvtx_mark(msg) })
}

// NvtxRangePush is torch.cuda.nvtx.range_push(msg): starts a nested range on the calling OS
// thread and returns its zero-based depth as the tool reports it (-2 without a tool). Keep the
// goroutine locked to its thread until the matching NvtxRangePop.
func NvtxRangePush(msg string) (int, error) {
	if err := checkCString("nvtx_range_push", msg); err != nil {
		return 0, err
	}
	depth := []int32{0}
	err := call("nvtx_range_push", func() int { return capi.Ct_nvtx_range_push(msg, depth) })
	return int(depth[0]), err
}

// NvtxRangePop is torch.cuda.nvtx.range_pop(): ends the calling OS thread's innermost pushed
// range and returns its zero-based depth as the tool reports it (-2 without a tool; negative
// when the tool reports an error, such as a pop without a push).
func NvtxRangePop() (int, error) {
	depth := []int32{0}
	err := call("nvtx_range_pop", func() int { return capi.Ct_nvtx_range_pop(depth) })
	return int(depth[0]), err
}

// NvtxRangeStart is torch.cuda.nvtx.range_start(msg): starts a range that may end on any
// thread or goroutine and returns the tool's id for NvtxRangeEnd (0 without a tool).
func NvtxRangeStart(msg string) (uint64, error) {
	if err := checkCString("nvtx_range_start", msg); err != nil {
		return 0, err
	}
	id := []uint64{0}
	err := call("nvtx_range_start", func() int { return capi.Ct_nvtx_range_start(msg, id) })
	return id[0], err
}

// NvtxRangeEnd is torch.cuda.nvtx.range_end(id): ends the range NvtxRangeStart returned.
func NvtxRangeEnd(id uint64) error {
	return call("nvtx_range_end", func() int { return capi.Ct_nvtx_range_end(id) })
}

// NvtxRange is `with torch.cuda.nvtx.range(msg):`: pushes a range, runs fn and pops the range,
// also when fn returns an error or panics, with the goroutine locked to its OS thread
// throughout (goroutines fn starts are outside the range). Returns fn's error, or the push's
// or pop's; when the push fails fn does not run. For torch's range(msg, *args), pass
// fmt.Sprintf(format, args...). A nil fn is ctorch.ErrNullPointer (nothing is pushed).
func NvtxRange(msg string, fn func() error) (err error) {
	if fn == nil {
		return failed("nvtx_range_push", capi.NilFunc())
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if _, err := NvtxRangePush(msg); err != nil {
		return err
	}
	defer func() {
		if _, perr := NvtxRangePop(); err == nil {
			err = perr
		}
	}()
	return fn()
}

// NvtxPush pushes a range and returns the function that pops it, for defer:
//
//	pop, err := cuda.NvtxPush("step")
//	if err != nil {
//		return err
//	}
//	defer pop()
//
// The goroutine stays locked to its OS thread until pop runs; call pop on the same goroutine
// (defer does). pop pops once (later calls return nil); called on another OS thread it pops
// nothing and returns an error matching ctorch.ErrState. When the push fails, pop is a no-op
// and the goroutine is not left locked.
func NvtxPush(msg string) (pop func() error, err error) {
	runtime.LockOSThread()
	if _, err := NvtxRangePush(msg); err != nil {
		runtime.UnlockOSThread()
		return func() error { return nil }, err
	}
	tid := syscall.Gettid()
	done := false
	return func() error {
		if done {
			return nil
		}
		if syscall.Gettid() != tid {
			return goError("nvtx_range_pop", ctorch.CodeState,
				"the range must be popped on the OS thread (the goroutine) that pushed it")
		}
		done = true
		defer runtime.UnlockOSThread()
		_, err := NvtxRangePop()
		return err
	}, nil
}
