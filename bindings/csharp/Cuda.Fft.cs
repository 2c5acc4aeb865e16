// torch.backends.cuda.cufft_plan_cache (section 18 of capi/ctorch.h) as Cuda.CufftPlanCache:
// Cuda.CufftPlanCache.Size is the current device's cache, Cuda.CufftPlanCache[1].Size device 1's.
using System;
using Ctorch.Swig;

namespace Ctorch
{
    public static partial class Cuda
    {
        private static readonly CufftPlanCache CurrentPlanCache = new CufftPlanCache(-1);

        /// <summary>torch.backends.cuda.cufft_plan_cache: the cuFFT plan cache of the current
        /// device (resolved at each call); index it for a device's own,
        /// <c>Cuda.CufftPlanCache[0].MaxSize = 16</c>. See <see cref="Ctorch.CufftPlanCache"/>.</summary>
        public static CufftPlanCache CufftPlanCache => CurrentPlanCache;
    }

    /// <summary>
    /// One CUDA device's cuFFT plan cache (torch.backends.cuda.cufft_plan_cache[device]): an LRU
    /// cache of the plans that CUDA FFTs made, keyed by (kind, precision, sizes, batch), so that
    /// a repeated transform does not plan again. Get one from <see cref="Cuda.CufftPlanCache"/>
    /// (the current device) or its indexer. Every member fails with CtorchException
    /// (CudaUnavailable, 301) without a GPU, and (Index) for a device index out of range. The
    /// cache is process-wide: every thread using the device shares it.
    /// </summary>
    public sealed class CufftPlanCache
    {
        internal CufftPlanCache(int device) { Device = device; }

        /// <summary>The device index this object refers to; -1: whichever device is current at
        /// each call.</summary>
        public int Device { get; }

        /// <summary>torch.backends.cuda.cufft_plan_cache[device]: the cache of a device
        /// (-1: the current one).</summary>
        public CufftPlanCache this[int device] => device < 0 ? Cuda.CufftPlanCache : new CufftPlanCache(device);

        /// <summary>The cache of a CUDA device ("cuda" without an index: the current one).
        /// ArgumentException for a CPU device.</summary>
        public CufftPlanCache this[Device device] => this[Cuda.IndexOf(device, nameof(device))];

        /// <summary>max_size (default 4096): how many plans the cache holds at most. Setting a
        /// smaller value evicts the least recently used plans at once; 0 turns caching off (plans
        /// are made per call). CtorchException (Argument) "... must be non-negative" for a
        /// negative value.</summary>
        public long MaxSize
        {
            get => Out.Get<long>(ctorch.ct_cufft_plan_cache_max_size, Device);
            set => Native.Check(ctorch.ct_cufft_plan_cache_set_max_size(Device, value));
        }

        /// <summary>size: the number of plans the cache holds now.</summary>
        public long Size => Out.Get<long>(ctorch.ct_cufft_plan_cache_size, Device);

        /// <summary>clear(): drops every cached plan (Size becomes 0).</summary>
        public void Clear() => Native.Check(ctorch.ct_cufft_plan_cache_clear(Device));

        /// <summary>A bound on the sum of the cached plans' work-area sizes in bytes (0, the
        /// default: no bound), which PyTorch lacks; the least recently used plans go first when
        /// the sum would exceed it. Work areas come from the caching allocator at each execution,
        /// so the bound limits what the cached plans may ask for, not memory held between calls.
        /// CtorchException (Argument) for a negative value.</summary>
        public long MaxBytes
        {
            get => Out.Get<long>(ctorch.ct_cufft_plan_cache_max_bytes, Device);
            set => Native.Check(ctorch.ct_cufft_plan_cache_set_max_bytes(Device, value));
        }

        /// <summary>The sum of the cached plans' work-area sizes in bytes (see
        /// <see cref="MaxBytes"/>).</summary>
        public long Bytes => Out.Get<long>(ctorch.ct_cufft_plan_cache_bytes, Device);

        /// <summary>Lookups since the process started that found a cached plan (PyTorch has no
        /// such counter; with <see cref="Misses"/> it makes the cache's behaviour observable).</summary>
        public long Hits => Out.Get<long>(ctorch.ct_cufft_plan_cache_hits, Device);

        /// <summary>Lookups since the process started that made a new plan (every CUDA FFT when
        /// MaxSize is 0).</summary>
        public long Misses => Out.Get<long>(ctorch.ct_cufft_plan_cache_misses, Device);

        /// <summary>"CufftPlanCache(cuda:1)", or "CufftPlanCache(current device)".</summary>
        public override string ToString() =>
            "CufftPlanCache(" + (Device < 0 ? "current device" : "cuda:" + Device) + ")";
    }
}
