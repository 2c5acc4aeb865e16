package org.ctorch;

import org.ctorch.swig.ctorch;

/**
 * {@link Cuda}'s cuFFT plan caches (torch.backends.cuda.cufft_plan_cache).
 */
abstract class CudaPlanCache extends CudaBackends {
  /* ============================================================================================
   * torch.backends.cuda.cufft_plan_cache: one LRU cache of cuFFT plans per device (FFT)
   * ========================================================================================== */

  /**
   * {@code torch.backends.cuda.cufft_plan_cache[device]}: the cuFFT plan cache of one device,
   * which {@link FFT}'s transforms on that device use (keyed by kind, precision, sizes and
   * batch; the least recently used plan is evicted first). A plain value naming the device
   * (no native resource, nothing to close); every method asks the C library again. Without a
   * GPU every method throws code 301; an index that is not a device is code 105 (CT_ERR_INDEX).
   */
  public static final class CufftPlanCache {
    private final int device;

    private CufftPlanCache(int device) {
      this.device = device;
    }

    /** The device index given to {@link Cuda#cufftPlanCache(int)}; -1: the current device. */
    public int device() {
      return device;
    }

    /** {@code .max_size}: how many plans the cache keeps (default 4096; 0: caching off). */
    public long maxSize() {
      return Native.longOut(out -> ctorch.ct_cufft_plan_cache_max_size(device, out));
    }

    /**
     * {@code .max_size = n}: keeps at most n plans, evicting the least recently used at once if
     * there are more; 0 turns caching off (each transform makes and destroys its plan). A
     * negative n is code 100.
     */
    public void setMaxSize(long n) {
      Native.check(ctorch.ct_cufft_plan_cache_set_max_size(device, n));
    }

    /** {@code .size}: the number of plans cached now. */
    public long size() {
      return Native.longOut(out -> ctorch.ct_cufft_plan_cache_size(device, out));
    }

    /** {@code .clear()}: destroys every cached plan (size becomes 0; max_size is kept). */
    public void clear() {
      Native.check(ctorch.ct_cufft_plan_cache_clear(device));
    }

    /**
     * The cache's byte budget, which PyTorch lacks: the most bytes of cuFFT work area the cached
     * plans may need together (0, the default: no bound). Work areas come from the caching
     * allocator at each execution; this bounds what the plans ask for.
     */
    public long maxBytes() {
      return Native.longOut(out -> ctorch.ct_cufft_plan_cache_max_bytes(device, out));
    }

    /**
     * Sets the byte budget (0: no bound), evicting least recently used plans at once until the
     * cached plans' work areas fit. A negative value is code 100.
     */
    public void setMaxBytes(long bytes) {
      Native.check(ctorch.ct_cufft_plan_cache_set_max_bytes(device, bytes));
    }

    /** The work-area bytes the cached plans need together now. */
    public long bytes() {
      return Native.longOut(out -> ctorch.ct_cufft_plan_cache_bytes(device, out));
    }

    /**
     * Lookups since the process started that found a cached plan (PyTorch has no such counter;
     * with {@link #misses()} it makes the cache's behaviour observable).
     */
    public long hits() {
      return Native.longOut(out -> ctorch.ct_cufft_plan_cache_hits(device, out));
    }

    /** Lookups since the process started that made a new plan (every CUDA FFT when max_size is 0). */
    public long misses() {
      return Native.longOut(out -> ctorch.ct_cufft_plan_cache_misses(device, out));
    }

    @Override
    public String toString() {
      return "CufftPlanCache(device=" + device + ")";
    }
  }

  /**
   * {@code torch.backends.cuda.cufft_plan_cache} of the current device (resolved at each call
   * of the returned object's methods, on the calling thread).
   */
  public static CufftPlanCache cufftPlanCache() {
    return new CufftPlanCache(-1);
  }

  /**
   * {@code torch.backends.cuda.cufft_plan_cache[device]} (-1: the current device, resolved at
   * each call). The index is checked by each method, not here.
   */
  public static CufftPlanCache cufftPlanCache(int device) {
    return new CufftPlanCache(device);
  }
}
