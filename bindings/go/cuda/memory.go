package cuda

// Device memory: the caching allocator (capi/ctorch.h section 15, torch.cuda.memory_*).
//
// CUDA tensors get their memory from a caching allocator with PyTorch's policy: freed blocks
// stay reserved for reuse (so nvidia-smi still shows them) until EmptyCache. These functions
// read its statistics and control it. A device argument of -1 means the current device of the
// calling OS thread (see the package notes on threads: lock the goroutine, or call them inside
// WithDevice). The statistics need the default ("native") backend: with
// CTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync they fail with ctorch.ErrNotSupported.
// Without a GPU every function here except AllocatorBackend and CachingAllocatorDelete fails
// with ctorch.ErrCUDAUnavailable.

import (
	"runtime"
	"strings"

	"ctorch.dev/ctorch/internal/capi"
)

func int64Stat(op string, device int, f func(device int, out []int64) int) (int64, error) {
	if err := checkIndex(op, device); err != nil {
		return 0, err
	}
	out := []int64{0}
	err := call(op, func() int { return f(device, out) })
	return out[0], err
}

func deviceCall(op string, device int, f func(device int) int) error {
	if err := checkIndex(op, device); err != nil {
		return err
	}
	return call(op, func() int { return f(device) })
}

// MemoryAllocated is torch.cuda.memory_allocated(device): the bytes that tensors (and
// CachingAllocatorAlloc blocks) occupy on device now ("allocated_bytes.all.current"). device
// -1 is the current device of the calling thread.
func MemoryAllocated(device int) (int64, error) {
	return int64Stat("cuda_memory_allocated", device, capi.Ct_cuda_memory_allocated)
}

// MaxMemoryAllocated is torch.cuda.max_memory_allocated(device): the peak of MemoryAllocated
// since the start or the last ResetPeakMemoryStats ("allocated_bytes.all.peak"). device -1 is
// the current device of the calling thread.
func MaxMemoryAllocated(device int) (int64, error) {
	return int64Stat("cuda_max_memory_allocated", device, capi.Ct_cuda_max_memory_allocated)
}

// MemoryReserved is torch.cuda.memory_reserved(device): the bytes the allocator holds from
// the device, in use or cached ("reserved_bytes.all.current"). device -1 is the current device
// of the calling thread.
func MemoryReserved(device int) (int64, error) {
	return int64Stat("cuda_memory_reserved", device, capi.Ct_cuda_memory_reserved)
}

// MaxMemoryReserved is torch.cuda.max_memory_reserved(device): the peak of MemoryReserved
// ("reserved_bytes.all.peak"). device -1 is the current device of the calling thread.
func MaxMemoryReserved(device int) (int64, error) {
	return int64Stat("cuda_max_memory_reserved", device, capi.Ct_cuda_max_memory_reserved)
}

// ResetPeakMemoryStats is torch.cuda.reset_peak_memory_stats(device): every ".peak" statistic
// becomes its ".current" value. device -1 is the current device of the calling thread.
func ResetPeakMemoryStats(device int) error {
	return deviceCall("cuda_reset_peak_memory_stats", device, capi.Ct_cuda_reset_peak_memory_stats)
}

// ResetMaxMemoryAllocated is torch.cuda.reset_max_memory_allocated(device). As in PyTorch it
// resets every peak (it is ResetPeakMemoryStats). device -1 is the current device of the
// calling thread.
func ResetMaxMemoryAllocated(device int) error {
	return deviceCall("cuda_reset_max_memory_allocated", device, capi.Ct_cuda_reset_max_memory_allocated)
}

// ResetAccumulatedMemoryStats is torch.cuda.reset_accumulated_memory_stats(device): the
// ".allocated" and ".freed" totals and the counters (num_alloc_retries, num_ooms, ...) become
// 0. device -1 is the current device of the calling thread.
func ResetAccumulatedMemoryStats(device int) error {
	return deviceCall("cuda_reset_accumulated_memory_stats", device, capi.Ct_cuda_reset_accumulated_memory_stats)
}

// MemoryStat is torch.cuda.memory_stats(device)[key]: one statistic by its PyTorch key, e.g.
// "allocated_bytes.all.current", "reserved_bytes.large_pool.peak", "num_alloc_retries".
// ctorch.ErrArgument for a key that PyTorch does not have. device -1 is the current device of
// the calling thread.
func MemoryStat(device int, key string) (int64, error) {
	return int64Stat("cuda_memory_stat", device, func(device int, out []int64) int {
		return capi.Ct_cuda_memory_stat(device, key, out)
	})
}

// MemoryStatsKeys lists the keys of torch.cuda.memory_stats(device), sorted. device -1 is the
// current device of the calling thread.
func MemoryStatsKeys(device int) ([]string, error) {
	if err := checkIndex("cuda_memory_stats_keys", device); err != nil {
		return nil, err
	}
	s, err := stringCall("cuda_memory_stats_keys", func(buf []byte, cap int64, needed []int64) int {
		return capi.Ct_cuda_memory_stats_keys(device, buf, cap, needed)
	})
	if err != nil {
		return nil, err
	}
	return strings.Fields(s), nil
}

// MemoryStatsMap is the result of torch.cuda.memory_stats(device), PyTorch's OrderedDict:
// Keys in their (sorted) order, and Values by key.
type MemoryStatsMap struct {
	Keys   []string
	Values map[string]int64
}

// Get returns the value of key and whether memory_stats has that key (0, false on a nil map,
// as MemoryStats returns with an error).
func (m *MemoryStatsMap) Get(key string) (int64, bool) {
	if m == nil {
		return 0, false
	}
	v, ok := m.Values[key]
	return v, ok
}

// MemoryStats is torch.cuda.memory_stats(device): every statistic of the caching allocator
// of device, from MemoryStatsKeys and MemoryStat. All of it is read on one locked OS thread
// (so device -1 is one device, the current device of the calling thread), but key by key: other
// goroutines that allocate meanwhile can make the values slightly inconsistent with each other.
func MemoryStats(device int) (*MemoryStatsMap, error) {
	const op = "cuda_memory_stats"
	if err := checkIndex(op, device); err != nil {
		return nil, err
	}
	m := &MemoryStatsMap{}
	err := call(op, func() int {
		s, st := readString(func(buf []byte, cap int64, needed []int64) int {
			return capi.Ct_cuda_memory_stats_keys(device, buf, cap, needed)
		})
		if st != 0 {
			return st
		}
		m.Keys = strings.Fields(s)
		m.Values = make(map[string]int64, len(m.Keys))
		out := []int64{0}
		for _, k := range m.Keys {
			if st := capi.Ct_cuda_memory_stat(device, k, out); st != 0 {
				return st
			}
			m.Values[k] = out[0]
		}
		return 0
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// MemorySnapshot is torch.cuda.memory_snapshot() for one device, as JSON: {"device": d,
// "segments": [{"address", "total_size", "allocated_size", "active_size", "segment_type"
// ("large" or "small"), "stream", "blocks": [{"address", "size", "state"
// ("active_allocated", "active_pending_free" or "inactive")}]}]}. Addresses are integers;
// decode them into uint64 (or json.Number), not float64. device -1 is the current device of
// the calling thread.
func MemorySnapshot(device int) (string, error) {
	if err := checkIndex("cuda_memory_snapshot", device); err != nil {
		return "", err
	}
	return stringCall("cuda_memory_snapshot", func(buf []byte, cap int64, needed []int64) int {
		return capi.Ct_cuda_memory_snapshot(device, buf, cap, needed)
	})
}

// MemorySummary is torch.cuda.memory_summary(device, abbreviated): PyTorch's readable table
// of the statistics (current, peak, total allocated and freed; per pool unless abbreviated).
// device -1 is the current device of the calling thread.
func MemorySummary(device int, abbreviated bool) (string, error) {
	if err := checkIndex("cuda_memory_summary", device); err != nil {
		return "", err
	}
	ab := 0
	if abbreviated {
		ab = 1
	}
	return stringCall("cuda_memory_summary", func(buf []byte, cap int64, needed []int64) int {
		return capi.Ct_cuda_memory_summary(device, ab, buf, cap, needed)
	})
}

// EmptyCache is torch.cuda.empty_cache(): returns every cached, unused segment of every device
// to CUDA (memory in use by tensors stays).
func EmptyCache() error {
	return call("cuda_empty_cache", func() int { return capi.Ct_cuda_empty_cache() })
}

// SetPerProcessMemoryFraction is torch.cuda.set_per_process_memory_fraction(fraction, device):
// the allocator of device reserves at most fraction (0..1) of the device's total memory; an
// allocation beyond it fails with ctorch.ErrOutOfMemory. ctorch.ErrArgument for a fraction
// outside [0, 1]. device -1 is the current device of the calling thread.
func SetPerProcessMemoryFraction(fraction float64, device int) error {
	return deviceCall("cuda_set_per_process_memory_fraction", device, func(device int) int {
		return capi.Ct_cuda_set_per_process_memory_fraction(fraction, device)
	})
}

// CachingAllocatorAlloc is torch.cuda.caching_allocator_alloc(size, device, stream): size
// bytes of raw device memory from the caching allocator, for use on stream (nil: the current
// stream of device on the calling thread), as a device address. The memory is not accessible
// from Go: hand it to CUDA code of your own. Free it with CachingAllocatorDelete (closing the
// Stream does not free it). device -1 is the current device of the calling thread.
// ctorch.ErrArgument for size <= 0, ctorch.ErrDevice when stream is on another device,
// ctorch.ErrOutOfMemory when the memory cannot be had, ctorch.ErrInvalidHandle for a closed
// Stream.
func CachingAllocatorAlloc(size int64, device int, stream *Stream) (uintptr, error) {
	const op = "cuda_caching_allocator_alloc"
	if err := checkIndex(op, device); err != nil {
		return 0, err
	}
	sh, err := streamArg(op, stream)
	if err != nil {
		return 0, err
	}
	var p int64
	err = call(op, func() int { return rawAllocatorAlloc(size, device, sh, &p) })
	runtime.KeepAlive(stream)
	if err != nil {
		return 0, err
	}
	return uintptr(p), nil
}

// rawAllocatorAlloc calls ct_cuda_caching_allocator_alloc. ctorch.i does not list its `ptr`
// out-parameter among the int64 outs, so SWIG passes it as a plain *int64; this also compiles
// once it is a one-element []int64 like every other out-parameter.
func rawAllocatorAlloc(size int64, device int, stream int64, p *int64) int {
	switch f := any(capi.Ct_cuda_caching_allocator_alloc).(type) {
	case func(int64, int, int64, *int64) int:
		return f(size, device, stream, p)
	case func(int64, int, int64, []int64) int:
		out := []int64{0}
		st := f(size, device, stream, out)
		*p = out[0]
		return st
	default:
		panic("ctorch/cuda: unexpected signature of capi.Ct_cuda_caching_allocator_alloc")
	}
}

// CachingAllocatorDelete is torch.cuda.caching_allocator_delete(ptr): frees memory from
// CachingAllocatorAlloc (back into the allocator's cache). ctorch.ErrArgument for an address
// that did not come from it, or was freed already (also without a GPU).
func CachingAllocatorDelete(ptr uintptr) error {
	return call("cuda_caching_allocator_delete", func() int { return capi.Ct_cuda_caching_allocator_delete(int64(ptr)) })
}

// LoadAllocator is torch.cuda.memory.CUDAPluggableAllocator(path, alloc, free) followed by
// change_current_allocator: every CUDA tensor's memory then comes from the library's functions,
// which have PyTorch's signatures (void* alloc(size_t, int, cudaStream_t) and
// void free(void*, size_t, int, cudaStream_t)). Only before the first CUDA allocation of the
// process (ctorch.ErrState afterwards); ctorch.ErrArgument when the library or a symbol cannot
// be loaded.
func LoadAllocator(path, allocSymbol, freeSymbol string) error {
	for _, s := range []string{path, allocSymbol, freeSymbol} {
		if err := checkCString("cuda_load_allocator", s); err != nil {
			return err
		}
	}
	return call("cuda_load_allocator", func() int { return capi.Ct_cuda_load_allocator(path, allocSymbol, freeSymbol) })
}

// AllocatorBackend is torch.cuda.get_allocator_backend(): "native" (the caching allocator),
// "cudaMallocAsync" (CTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync) or "pluggable"
// (LoadAllocator). Works without a GPU.
func AllocatorBackend() (string, error) {
	return stringCall("cuda_get_allocator_backend", capi.Ct_cuda_get_allocator_backend)
}
