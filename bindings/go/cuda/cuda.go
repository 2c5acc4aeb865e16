// Package cuda is torch.cuda for ctorch: CUDA availability, device enumeration and device
// properties, the current device and its guards, streams, events, synchronization, memory
// information, the caching allocator's statistics and controls (MemoryAllocated, MemoryStats,
// EmptyCache, ...), per-stream memory figures (Stream.MemoryStat), out-of-memory hooks
// (AddOOMHook, OOMHookRuns), CUDA graphs (Graph, Graph.Capture, GraphPoolHandle,
// IsCurrentStreamCapturing, MakeGraphed), the sync debug mode, the seeds and states of the devices'
// default random number generators (ManualSeed, ManualSeedAll, Seed, SeedAll, InitialSeed,
// GetRngState, SetRngState, GetRngStateAll, SetRngStateAll), the matrix product switches of
// torch.backends.cuda.matmul (SetAllowTF32, SetAllowFP16ReducedPrecisionReduction,
// SetAllowBF16ReducedPrecisionReduction and their getters), CurrentBLASHandle and the cuFFT
// plan cache of torch.backends.cuda.cufft_plan_cache (CUFFTPlanCache), and torch.cuda.comm
// (Broadcast, BroadcastOut, BroadcastCoalesced, ReduceAdd, ReduceAddCoalesced, Scatter,
// ScatterOut, Gather, GatherOut; communicators for processes and hosts are package
// ctorch.dev/ctorch/nccl), torch.cuda.init and is_initialized (Init, IsInitialized), the
// figures torch.cuda reads from NVML (Utilization, MemoryUsage, Temperature, PowerDraw,
// ClockRate, DeviceMemoryUsed, ListGPUProcesses, DeviceCountNVML), torch.cuda.nvtx's marks
// and ranges for profilers (NvtxMark, NvtxRangePush, NvtxRangePop, NvtxRangeStart, NvtxRangeEnd,
// and the scoped NvtxRange and NvtxPush; they need no GPU), and the stream sanitizer of
// torch.cuda._sanitizer (SetSanitizerMode, EnableSanitizer, SetSanitizerCallback,
// SanitizerReportCount), and torch.cuda.jiterator's elementwise functions compiled at run time
// (NewJitFunction, NewMultiOutputJitFunction, JitFunction). (Devices themselves
// are ctorch.Device values: ctorch.CUDA, ctorch.CUDADevice(1), ctorch.ParseDevice("cuda:1");
// generators are ctorch.Generator values; the matrix products are ctorch.Tensor methods and
// the FFTs functions of package ctorch.)
//
// The library reaches CUDA through the statically linked CUDA runtime, so it runs on CPU on a
// machine without a GPU or a driver: there IsAvailable is false, DeviceCount is 0, and every
// call that needs a GPU fails with an error matching ctorch.ErrCUDAUnavailable whose message
// gives the reason. CUDA_VISIBLE_DEVICES decides which GPUs exist and their order.
//
// Streams (Stream, torch.cuda.Stream), events (Event, torch.cuda.Event), graphs (Graph,
// torch.cuda.CUDAGraph), graphed callables (Graphed) and jitted functions (JitFunction) own a
// native handle each, like ctorch.Tensor: Close them (a finalizer is only a safety net). Using
// a nil or closed one returns an error matching ctorch.ErrInvalidHandle.
//
// # OS threads
//
// As in CUDA and PyTorch, the current CUDA device, and the current stream of each device, are
// properties of the calling OS thread. A goroutine, though, may be moved to another OS thread
// between two calls unless it is locked to its thread with runtime.LockOSThread. So:
//
//   - WithDevice, WithDeviceOf and WithStream (the `with torch.cuda.device(d):`,
//     `with torch.cuda.device_of(t):` and `with torch.cuda.stream(s):` guards) lock the calling
//     goroutine to its thread for the duration of the callback and restore the previous device
//     and stream before unlocking, also when the callback fails or panics. Everything the
//     callback does on its goroutine sees the guard's device and stream. Goroutines it starts
//     do not (they run on other threads): give them their own guard. The callback must not
//     call runtime.UnlockOSThread more often than it calls runtime.LockOSThread.
//   - SetDevice, SetStream, CurrentDevice, CurrentStream, and everything that uses "the
//     current device" (device index -1, as in MemGetInfo or MemoryAllocated; ctorch.CUDA) or
//     "the current stream" (a nil *Stream given to Event.Record, Event.Wait and
//     CachingAllocatorAlloc, and the stream every tensor operation is queued on) act on the
//     calling thread. Lock the goroutine (runtime.LockOSThread) before SetDevice
//     or SetStream and keep it locked for as long as you rely on the setting, or use the
//     guards, which do that for you.
package cuda

import (
	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/internal/capi"
)

func call(op string, f func() int) error { return failed(op, capi.Call(f)) }

// failed is the error of a failure (nil for none).
func failed(op string, fl *capi.Failure) error {
	if fl == nil {
		return nil
	}
	return &ctorch.Error{Code: fl.Code, Name: fl.Name, Message: fl.Message, Op: op}
}

func checkIndex(op string, device int) error {
	if int(int32(device)) != device {
		return &ctorch.Error{Code: ctorch.CodeIndex, Name: capi.Ct_status_name(ctorch.CodeIndex),
			Message: "device index out of range", Op: op}
	}
	return nil
}

// IsAvailable is torch.cuda.is_available(): true when at least one CUDA device can be used.
// (A failure of the query itself also reports false; CheckAvailable says why.)
func IsAvailable() bool {
	out := []int32{0}
	if err := call("cuda_is_available", func() int { return capi.Ct_cuda_is_available(out) }); err != nil {
		return false
	}
	return out[0] != 0
}

// DeviceCount is torch.cuda.device_count(): the number of visible CUDA devices (0 without a
// GPU or a driver, or if the query fails).
func DeviceCount() int {
	n, err := DeviceCountErr()
	if err != nil {
		return 0
	}
	return n
}

// DeviceCountErr is DeviceCount with the error of a failed query.
func DeviceCountErr() (int, error) {
	out := []int32{0}
	err := call("cuda_device_count", func() int { return capi.Ct_cuda_device_count(out) })
	return int(out[0]), err
}

// CheckAvailable returns nil when CUDA can be used, else an error matching
// ctorch.ErrCUDAUnavailable whose message is the reason the CUDA runtime gave.
func CheckAvailable() error {
	return call("cuda_check_available", func() int { return capi.Ct_cuda_check_available() })
}

// DeviceName is torch.cuda.get_device_name(device), e.g. "NVIDIA H100 80GB HBM3".
func DeviceName(device int) (string, error) {
	if err := checkIndex("cuda_get_device_name", device); err != nil {
		return "", err
	}
	var s string
	err := call("cuda_get_device_name", func() int {
		needed := []int64{0}
		var small [256]byte
		st := capi.Ct_cuda_get_device_name(device, small[:], int64(len(small)), needed)
		if st == capi.CT_ERR_BUFFER_SIZE {
			buf := make([]byte, needed[0]+1)
			st = capi.Ct_cuda_get_device_name(device, buf, int64(len(buf)), needed)
			if st == 0 {
				s = string(buf[:needed[0]])
			}
		} else if st == 0 {
			s = string(small[:needed[0]])
		}
		return st
	})
	return s, err
}

// DeviceCapability is torch.cuda.get_device_capability(device): (major, minor), e.g. (9, 0)
// on an H100.
func DeviceCapability(device int) (major, minor int, err error) {
	if err := checkIndex("cuda_get_device_capability", device); err != nil {
		return 0, 0, err
	}
	ma, mi := []int32{0}, []int32{0}
	err = call("cuda_get_device_capability", func() int { return capi.Ct_cuda_get_device_capability(device, ma, mi) })
	return int(ma[0]), int(mi[0]), err
}

// Property is an integer device property (ct_device_property): PropMajor, PropTotalMemory...
// (abi_gen.go, from capi/abi.toml).
type Property int32

// DeviceProperty returns one integer property of a CUDA device. ErrCUDAUnavailable, ErrIndex
// (device), ErrArgument (unknown property).
func DeviceProperty(device int, p Property) (int64, error) {
	if err := checkIndex("cuda_get_device_property", device); err != nil {
		return 0, err
	}
	out := []int64{0}
	err := call("cuda_get_device_property", func() int { return capi.Ct_cuda_get_device_property(device, int(p), out) })
	return out[0], err
}

// DeviceProperties is torch.cuda.get_device_properties(device).
type DeviceProperties struct {
	Name                        string
	Major, Minor                int
	TotalMemory                 int64 // bytes
	MultiProcessorCount         int
	L2CacheSize                 int64 // bytes
	WarpSize                    int
	MaxThreadsPerMultiProcessor int
	IsIntegrated                bool
	PCIBusID                    int
}

// GetDeviceProperties is torch.cuda.get_device_properties(device).
func GetDeviceProperties(device int) (DeviceProperties, error) {
	var p DeviceProperties
	var err error
	if p.Name, err = DeviceName(device); err != nil {
		return DeviceProperties{}, err
	}
	get := func(prop Property) int64 {
		if err != nil {
			return 0
		}
		var v int64
		v, err = DeviceProperty(device, prop)
		return v
	}
	p.Major = int(get(PropMajor))
	p.Minor = int(get(PropMinor))
	p.TotalMemory = get(PropTotalMemory)
	p.MultiProcessorCount = int(get(PropMultiProcessorCount))
	p.L2CacheSize = get(PropL2CacheSize)
	p.WarpSize = int(get(PropWarpSize))
	p.MaxThreadsPerMultiProcessor = int(get(PropMaxThreadsPerMultiProcessor))
	p.IsIntegrated = get(PropIsIntegrated) != 0
	p.PCIBusID = int(get(PropPCIBusID))
	if err != nil {
		return DeviceProperties{}, err
	}
	return p, nil
}
