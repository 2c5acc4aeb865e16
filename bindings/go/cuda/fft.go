package cuda

import "ctorch.dev/ctorch/internal/capi"

// The cuFFT plan cache, torch.backends.cuda.cufft_plan_cache (capi/ctorch.h section 18).
//
// The FFTs of package ctorch (ctorch.FFT, RFFTN, ...) on a CUDA device reuse cuFFT plans from
// one LRU cache per device, keyed by the transform's kind, precision, sizes and batch. Each
// execution takes its work area from the caching allocator on the current stream, so a cached
// plan holds no device memory of its own between transforms. Without a GPU every method fails
// with ctorch.ErrCUDAUnavailable.

// PlanCache is torch.backends.cuda.cufft_plan_cache[device]: the cuFFT plan cache of one
// device. It is a plain value (nothing to close); the device is resolved at each call, so the
// cache of device -1 is the one of the calling OS thread's current device at that moment (lock
// the goroutine, or call inside WithDevice, to pin it).
type PlanCache struct {
	device int
}

// CUFFTPlanCache is torch.backends.cuda.cufft_plan_cache[device] (device -1: the current
// device of the calling OS thread, as torch.backends.cuda.cufft_plan_cache itself). An index
// that is not a device is refused by the methods (ctorch.ErrIndex).
func CUFFTPlanCache(device int) PlanCache { return PlanCache{device: device} }

// Device is the device index the cache was made for (-1: the current device at each call).
func (c PlanCache) Device() int { return c.device }

// MaxSize is cufft_plan_cache[device].max_size: how many plans the cache keeps at most
// (default 4096, as in PyTorch; 0 means plans are not cached).
func (c PlanCache) MaxSize() (int64, error) {
	return int64Stat("cufft_plan_cache_max_size", c.device, capi.Ct_cufft_plan_cache_max_size)
}

// SetMaxSize is cufft_plan_cache[device].max_size = n: the least recently used plans beyond n
// are dropped at once. 0 disables caching; a negative n is ctorch.ErrArgument.
func (c PlanCache) SetMaxSize(n int64) error {
	return deviceCall("cufft_plan_cache_set_max_size", c.device, func(d int) int {
		return capi.Ct_cufft_plan_cache_set_max_size(d, n)
	})
}

// Size is cufft_plan_cache[device].size: the number of plans cached now.
func (c PlanCache) Size() (int64, error) {
	return int64Stat("cufft_plan_cache_size", c.device, capi.Ct_cufft_plan_cache_size)
}

// Clear is cufft_plan_cache[device].clear(): drops every cached plan (Size becomes 0;
// MaxSize and MaxBytes are kept).
func (c PlanCache) Clear() error {
	return deviceCall("cufft_plan_cache_clear", c.device, capi.Ct_cufft_plan_cache_clear)
}

// MaxBytes is the cache's byte budget, which PyTorch lacks: the most that the work-area sizes of
// the cached plans may add up to (0, the default: no bound).
func (c PlanCache) MaxBytes() (int64, error) {
	return int64Stat("cufft_plan_cache_max_bytes", c.device, capi.Ct_cufft_plan_cache_max_bytes)
}

// SetMaxBytes sets the byte budget (see MaxBytes): beyond it the least recently used plans are
// dropped. 0 removes the bound; a negative value is ctorch.ErrArgument.
func (c PlanCache) SetMaxBytes(n int64) error {
	return deviceCall("cufft_plan_cache_set_max_bytes", c.device, func(d int) int {
		return capi.Ct_cufft_plan_cache_set_max_bytes(d, n)
	})
}

// Bytes is the sum of the work-area sizes of the plans cached now (the figure MaxBytes bounds;
// the work areas themselves are taken from the caching allocator only while a plan runs).
func (c PlanCache) Bytes() (int64, error) {
	return int64Stat("cufft_plan_cache_bytes", c.device, capi.Ct_cufft_plan_cache_bytes)
}

// Hits is the number of lookups since the process started that found a cached plan (PyTorch has
// no such counter; with Misses it makes the cache's behaviour observable).
func (c PlanCache) Hits() (int64, error) {
	return int64Stat("cufft_plan_cache_hits", c.device, capi.Ct_cufft_plan_cache_hits)
}

// Misses is the number of lookups since the process started that made a new plan (every CUDA
// FFT when MaxSize is 0).
func (c PlanCache) Misses() (int64, error) {
	return int64Stat("cufft_plan_cache_misses", c.device, capi.Ct_cufft_plan_cache_misses)
}
