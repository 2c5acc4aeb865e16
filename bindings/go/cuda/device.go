package cuda

// The current device, the device guards, synchronization, memory information and build
// information (capi/ctorch.h section 4). See the package notes on OS threads.

import (
	"fmt"
	"runtime"
	"strings"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/internal/capi"
)

func goError(op string, code int, format string, args ...any) error {
	return &ctorch.Error{Code: code, Name: capi.Ct_status_name(code), Message: fmt.Sprintf(format, args...), Op: op}
}

// CurrentDevice is torch.cuda.current_device(): the current CUDA device of the calling OS
// thread (lock the goroutine to its thread, see the package notes). ErrCUDAUnavailable
// without a GPU.
func CurrentDevice() (int, error) {
	out := []int32{0}
	err := call("cuda_current_device", func() int { return capi.Ct_cuda_current_device(out) })
	return int(out[0]), err
}

// SetDevice is torch.cuda.set_device(device): makes device the current CUDA device of the
// calling OS thread. The setting stays with that thread, not with the goroutine: lock the
// goroutine first (runtime.LockOSThread), or use WithDevice. A negative device changes nothing
// (as in torch). ErrIndex for a device that is not visible, ErrCUDAUnavailable without a GPU.
func SetDevice(device int) error {
	if err := checkIndex("cuda_set_device", device); err != nil {
		return err
	}
	return call("cuda_set_device", func() int { return capi.Ct_cuda_set_device(device) })
}

// WithDevice is `with torch.cuda.device(device):`: it locks the calling goroutine to its OS
// thread, makes device the current CUDA device, runs fn, and restores the previous device
// (also when fn returns an error or panics) before unlocking. A negative device changes
// nothing (fn still runs, as torch.cuda.device(None)). It returns fn's error, or the error of
// entering the guard (then fn does not run: ErrCUDAUnavailable without a GPU, ErrIndex for a
// device that is not visible), or of restoring the device. A nil fn is ctorch.ErrNullPointer
// (nothing changes); so it is for WithDeviceOf.
func WithDevice(device int, fn func() error) error {
	if err := checkIndex("cuda_exchange_device", device); err != nil {
		return err
	}
	return withDeviceGuard("cuda_exchange_device", func(prev []int32) int {
		return capi.Ct_cuda_exchange_device(device, prev)
	}, fn)
}

// WithDeviceOf is `with torch.cuda.device_of(t):`: WithDevice with t's device. For a CPU
// tensor nothing changes and fn just runs (with the goroutine locked to its thread). A nil or
// closed tensor is ErrInvalidHandle.
func WithDeviceOf(t *ctorch.Tensor, fn func() error) error {
	h := t.Handle()
	if h == 0 {
		return goError("cuda_exchange_device_of", ctorch.CodeInvalidHandle, "nil or closed Tensor")
	}
	err := withDeviceGuard("cuda_exchange_device_of", func(prev []int32) int {
		st := capi.Ct_cuda_exchange_device_of(h, prev)
		runtime.KeepAlive(t)
		return st
	}, fn)
	return err
}

// withDeviceGuard runs enter (a ct_cuda_exchange_device* call that stores the previous device
// in prev[0]) and fn on one locked OS thread, and restores prev[0] (when it is >= 0) on the
// way out, panics included.
func withDeviceGuard(op string, enter func(prev []int32) int, fn func() error) (err error) {
	if fn == nil {
		return failed(op, capi.NilFunc())
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	prev := []int32{-1}
	if err := call(op, func() int { return enter(prev) }); err != nil {
		return err
	}
	if p := int(prev[0]); p >= 0 {
		defer func() {
			rerr := call("cuda_set_device", func() int { return capi.Ct_cuda_set_device(p) })
			if err == nil {
				err = rerr
			}
		}()
	}
	return fn()
}

// Synchronize is torch.cuda.synchronize(device): waits until all work on device (-1: the
// current device of the calling thread) is done. (An explicit synchronization: the sync debug
// mode does not report it, as in PyTorch.)
func Synchronize(device int) error {
	if err := checkIndex("cuda_synchronize", device); err != nil {
		return err
	}
	return call("cuda_synchronize", func() int { return capi.Ct_cuda_synchronize(device) })
}

// MemGetInfo is torch.cuda.mem_get_info(device): free and total device memory in bytes
// (cudaMemGetInfo). device -1 is the current device of the calling thread.
func MemGetInfo(device int) (free, total int64, err error) {
	if err := checkIndex("cuda_mem_get_info", device); err != nil {
		return 0, 0, err
	}
	f, t := []int64{0}, []int64{0}
	err = call("cuda_mem_get_info", func() int { return capi.Ct_cuda_mem_get_info(device, f, t) })
	return f[0], t[0], err
}

// CanDeviceAccessPeer is torch.cuda.can_device_access_peer(device, peer): whether device can
// access peer's memory directly (false when device == peer).
func CanDeviceAccessPeer(device, peer int) (bool, error) {
	if err := checkIndex("cuda_can_device_access_peer", device); err != nil {
		return false, err
	}
	if err := checkIndex("cuda_can_device_access_peer", peer); err != nil {
		return false, err
	}
	out := []int32{0}
	err := call("cuda_can_device_access_peer", func() int { return capi.Ct_cuda_can_device_access_peer(device, peer, out) })
	return out[0] != 0, err
}

// ArchList is torch.cuda.get_arch_list(): the architectures the library was built for, e.g.
// ["sm_80", "sm_90", "compute_90"]. Unlike PyTorch (which returns [] without CUDA), it reports
// the build's list on any machine.
func ArchList() ([]string, error) {
	s, err := stringCall("cuda_get_arch_list", capi.Ct_cuda_get_arch_list)
	if err != nil {
		return nil, err
	}
	return strings.Fields(s), nil
}

// GencodeFlags is torch.cuda.get_gencode_flags(): the nvcc -gencode flags of the build, e.g.
// "-gencode compute=compute_80,code=sm_80 ...". Works without a GPU.
func GencodeFlags() (string, error) {
	return stringCall("cuda_get_gencode_flags", capi.Ct_cuda_get_gencode_flags)
}

// stringCall runs a ct_* string function (the "cap 0 gives the length" convention of
// ct_tensor_repr) on one locked thread.
func stringCall(op string, f func(buf []byte, cap int64, needed []int64) int) (string, error) {
	var s string
	err := call(op, func() int {
		var st int
		s, st = readString(f)
		return st
	})
	return s, err
}

// readString runs f with the "cap 0 gives the length" convention and returns the string and
// the final status. The caller locks the thread (call) around it, and reads the error there.
func readString(f func(buf []byte, cap int64, needed []int64) int) (string, int) {
	needed := []int64{0}
	st := f(nil, 0, needed)
	for try := 0; try < 4 && (st == 0 || st == capi.CT_ERR_BUFFER_SIZE); try++ {
		capi.Ct_clear_error()
		buf := make([]byte, needed[0]+1)
		st = f(buf, int64(len(buf)), needed)
		if st == 0 {
			return string(buf[:needed[0]]), 0
		}
	}
	return "", st
}

// SyncDebugMode is the mode of torch.cuda.set_sync_debug_mode: what happens when an operation
// makes the host wait for the GPU (item, copies to the host, Stream.Synchronize). Explicit
// device and event synchronization (Synchronize, Event.Synchronize) are not reported, as in
// PyTorch.
type SyncDebugMode int32

// Sync debug modes. The setting is process-wide.
const (
	SyncDebugDefault SyncDebugMode = 0 // silent ("default")
	SyncDebugWarn    SyncDebugMode = 1 // a warning on stderr ("warn")
	SyncDebugError   SyncDebugMode = 2 // the operation fails with ErrState ("error")
)

// String is the name PyTorch uses: "default", "warn" or "error".
func (m SyncDebugMode) String() string {
	return capi.EnumName([]string{"default", "warn", "error"}, int32(m), "SyncDebugMode")
}

// SetSyncDebugMode is torch.cuda.set_sync_debug_mode(mode) (process-wide; works without a
// GPU). ErrArgument for values other than the three modes.
func SetSyncDebugMode(m SyncDebugMode) error {
	return call("cuda_set_sync_debug_mode", func() int { return capi.Ct_cuda_set_sync_debug_mode(int(m)) })
}

// GetSyncDebugMode is torch.cuda.get_sync_debug_mode().
func GetSyncDebugMode() (SyncDebugMode, error) {
	out := []int32{0}
	err := call("cuda_get_sync_debug_mode", func() int { return capi.Ct_cuda_get_sync_debug_mode(out) })
	return SyncDebugMode(out[0]), err
}
