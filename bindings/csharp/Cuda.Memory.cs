// torch.cuda's memory functions (section 15 of ctorch.h, the caching allocator): memory_allocated
// and its relatives, the peak and accumulated resets, memory_stats, memory_snapshot, empty_cache,
// memory_summary, set_per_process_memory_fraction, caching_allocator_alloc / _delete,
// get_allocator_backend.
using System;
using System.Collections.Generic;
using Ctorch.Swig;

namespace Ctorch
{
    public static partial class Cuda
    {
        // Every device argument here is an index (-1, the default: the current device) or a
        // Device ("cuda" = the current device, "cuda:N"; a CPU device is an ArgumentException).

        /// <summary>torch.cuda.memory_allocated(device): bytes held by tensors (and raw
        /// <see cref="CachingAllocatorAlloc(long, int, CudaStream)"/> blocks) on device now.</summary>
        public static long MemoryAllocated(int device = -1) =>
            Out.Get<long>(ctorch.ct_cuda_memory_allocated, device);

        /// <summary>torch.cuda.memory_allocated("cuda:N").</summary>
        public static long MemoryAllocated(Device device) => MemoryAllocated(IndexOf(device, nameof(device)));

        /// <summary>torch.cuda.max_memory_allocated(device): the peak of
        /// <see cref="MemoryAllocated(int)"/> since the start or the last peak reset.</summary>
        public static long MaxMemoryAllocated(int device = -1) =>
            Out.Get<long>(ctorch.ct_cuda_max_memory_allocated, device);

        /// <summary>torch.cuda.max_memory_allocated("cuda:N").</summary>
        public static long MaxMemoryAllocated(Device device) => MaxMemoryAllocated(IndexOf(device, nameof(device)));

        /// <summary>torch.cuda.memory_reserved(device): bytes the caching allocator holds from
        /// CUDA on device (allocated plus cached for reuse).</summary>
        public static long MemoryReserved(int device = -1) =>
            Out.Get<long>(ctorch.ct_cuda_memory_reserved, device);

        /// <summary>torch.cuda.memory_reserved("cuda:N").</summary>
        public static long MemoryReserved(Device device) => MemoryReserved(IndexOf(device, nameof(device)));

        /// <summary>torch.cuda.max_memory_reserved(device): the peak of
        /// <see cref="MemoryReserved(int)"/>.</summary>
        public static long MaxMemoryReserved(int device = -1) =>
            Out.Get<long>(ctorch.ct_cuda_max_memory_reserved, device);

        /// <summary>torch.cuda.max_memory_reserved("cuda:N").</summary>
        public static long MaxMemoryReserved(Device device) => MaxMemoryReserved(IndexOf(device, nameof(device)));

        /// <summary>torch.cuda.reset_peak_memory_stats(device): every ".peak" statistic becomes
        /// its ".current" value.</summary>
        public static void ResetPeakMemoryStats(int device = -1) =>
            Native.Check(ctorch.ct_cuda_reset_peak_memory_stats(device));

        /// <summary>torch.cuda.reset_peak_memory_stats("cuda:N").</summary>
        public static void ResetPeakMemoryStats(Device device) => ResetPeakMemoryStats(IndexOf(device, nameof(device)));

        /// <summary>torch.cuda.reset_max_memory_allocated(device) (resets every peak, as
        /// PyTorch's does).</summary>
        public static void ResetMaxMemoryAllocated(int device = -1) =>
            Native.Check(ctorch.ct_cuda_reset_max_memory_allocated(device));

        /// <summary>torch.cuda.reset_max_memory_allocated("cuda:N").</summary>
        public static void ResetMaxMemoryAllocated(Device device) => ResetMaxMemoryAllocated(IndexOf(device, nameof(device)));

        /// <summary>torch.cuda.reset_accumulated_memory_stats(device): the ".allocated" and
        /// ".freed" totals and the counters (num_alloc_retries, num_ooms, ...) become 0.</summary>
        public static void ResetAccumulatedMemoryStats(int device = -1) =>
            Native.Check(ctorch.ct_cuda_reset_accumulated_memory_stats(device));

        /// <summary>torch.cuda.reset_accumulated_memory_stats("cuda:N").</summary>
        public static void ResetAccumulatedMemoryStats(Device device) =>
            ResetAccumulatedMemoryStats(IndexOf(device, nameof(device)));

        /// <summary>torch.cuda.memory_stats(device)[key]: one statistic by its PyTorch key, e.g.
        /// "allocated_bytes.all.current", "reserved_bytes.large_pool.peak", "num_alloc_retries".
        /// An unknown key is a CtorchException (Argument).</summary>
        public static long MemoryStat(string key, int device = -1)
        {
            if (key == null) throw new ArgumentNullException(nameof(key));
            long r;
            Native.Check(ctorch.ct_cuda_memory_stat(device, key, out r));
            return r;
        }

        /// <summary>torch.cuda.memory_stats("cuda:N")[key].</summary>
        public static long MemoryStat(string key, Device device) => MemoryStat(key, IndexOf(device, nameof(device)));

        /// <summary>torch.cuda.memory_stats(device): every statistic by its PyTorch key, in
        /// PyTorch's (sorted) key order. The values are read one by one, so allocations by other
        /// threads meanwhile can make them disagree slightly.</summary>
        public static SortedDictionary<string, long> MemoryStats(int device = -1)
        {
            string keys = Native.GetString((IntPtr buf, long cap, out long needed) =>
                ctorch.ct_cuda_memory_stats_keys(device, buf, cap, out needed));
            var stats = new SortedDictionary<string, long>(StringComparer.Ordinal);
            foreach (string key in keys.Split(new[] { '\n' }, StringSplitOptions.RemoveEmptyEntries))
                stats[key] = MemoryStat(key, device);
            return stats;
        }

        /// <summary>torch.cuda.memory_stats("cuda:N").</summary>
        public static SortedDictionary<string, long> MemoryStats(Device device) => MemoryStats(IndexOf(device, nameof(device)));

        /// <summary>torch.cuda.memory_snapshot() for one device, as JSON:
        /// <c>{"device": 0, "segments": [{"address": ..., "total_size": ..., "allocated_size": ...,
        /// "active_size": ..., "segment_type": "large"|"small", "stream": ..., "blocks":
        /// [{"address": ..., "size": ..., "state": "active_allocated"|"active_pending_free"|"inactive"}]}]}</c>
        /// (addresses and streams as decimal integers).</summary>
        public static string MemorySnapshot(int device = -1) =>
            Native.GetString((IntPtr buf, long cap, out long needed) =>
                ctorch.ct_cuda_memory_snapshot(device, buf, cap, out needed));

        /// <summary>torch.cuda.memory_snapshot() of "cuda:N".</summary>
        public static string MemorySnapshot(Device device) => MemorySnapshot(IndexOf(device, nameof(device)));

        /// <summary>torch.cuda.memory_summary(device, abbreviated): PyTorch's readable table of the
        /// statistics (current, peak, total allocated and freed; with "from large pool" / "from
        /// small pool" rows per metric unless abbreviated), headed "ctorch CUDA memory summary,
        /// device ID N".</summary>
        public static string MemorySummary(int device = -1, bool abbreviated = false) =>
            Native.GetString((IntPtr buf, long cap, out long needed) =>
                ctorch.ct_cuda_memory_summary(device, abbreviated ? 1 : 0, buf, cap, out needed));

        /// <summary>torch.cuda.memory_summary("cuda:N", abbreviated).</summary>
        public static string MemorySummary(Device device, bool abbreviated = false) =>
            MemorySummary(IndexOf(device, nameof(device)), abbreviated);

        /// <summary>torch.cuda.empty_cache(): gives every cached, unused segment of every device
        /// back to CUDA (memory held by live tensors stays).</summary>
        public static void EmptyCache() => Native.Check(ctorch.ct_cuda_empty_cache());

        /// <summary>torch.cuda.set_per_process_memory_fraction(fraction, device): the allocator
        /// reserves at most fraction (0..1; otherwise CtorchException, Argument) of the device's
        /// total memory; allocations beyond it throw <see cref="CtorchOutOfMemoryException"/>.</summary>
        public static void SetPerProcessMemoryFraction(double fraction, int device = -1) =>
            Native.Check(ctorch.ct_cuda_set_per_process_memory_fraction(fraction, device));

        /// <summary>torch.cuda.set_per_process_memory_fraction(fraction, "cuda:N").</summary>
        public static void SetPerProcessMemoryFraction(double fraction, Device device) =>
            SetPerProcessMemoryFraction(fraction, IndexOf(device, nameof(device)));

        /// <summary>torch.cuda.caching_allocator_alloc(size, device, stream): size bytes (> 0,
        /// else CtorchException, Argument) of raw device memory from the caching allocator, for
        /// stream (null: the device's current stream; a stream of another device is
        /// CtorchException, Device). Returns the device address; give it back with
        /// <see cref="CachingAllocatorDelete(long)"/> (nothing frees it for you).</summary>
        public static long CachingAllocatorAlloc(long size, int device = -1, CudaStream stream = null)
        {
            using (Lease s = CudaStream.UseOrNull(stream, nameof(stream)))
            {
                long ptr;
                Native.Check(ctorch.ct_cuda_caching_allocator_alloc(size, device, s.Ptr, out ptr));
                return ptr;
            }
        }

        /// <summary>torch.cuda.caching_allocator_alloc(size, "cuda:N", stream).</summary>
        public static long CachingAllocatorAlloc(long size, Device device, CudaStream stream = null) =>
            CachingAllocatorAlloc(size, IndexOf(device, nameof(device)), stream);

        /// <summary>torch.cuda.caching_allocator_delete(ptr): frees memory from
        /// <see cref="CachingAllocatorAlloc(long, int, CudaStream)"/>. Any other address (or one
        /// freed already) is a CtorchException (Argument); this check works without a GPU.</summary>
        public static void CachingAllocatorDelete(long ptr) => Native.Check(ctorch.ct_cuda_caching_allocator_delete(ptr));

        /// <summary>torch.cuda.caching_allocator_delete(ptr) for an address held as an IntPtr.</summary>
        public static void CachingAllocatorDelete(IntPtr ptr) => CachingAllocatorDelete(ptr.ToInt64());

        /// <summary>torch.cuda.get_allocator_backend(): "native" (the caching allocator) or
        /// "cudaMallocAsync" (CTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync, where the
        /// statistics throw CtorchException, NotSupported). Works without a GPU.</summary>
        public static string GetAllocatorBackend() =>
            Native.GetString((IntPtr buf, long cap, out long needed) =>
                ctorch.ct_cuda_get_allocator_backend(buf, cap, out needed));
    }
}
