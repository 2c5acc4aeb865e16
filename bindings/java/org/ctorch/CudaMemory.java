package org.ctorch;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.ctorch.swig.ctorch;

/**
 * {@link Cuda}'s device memory: the caching allocator's statistics, snapshot, summary and cache,
 * raw allocations, the pluggable allocator and the out-of-memory hook's counter.
 */
abstract class CudaMemory extends CudaDevices {
  /* ============================================================================================
   * Device memory: the caching allocator (torch.cuda.memory_*)
   *
   * CUDA memory comes from a caching allocator with PyTorch's policy: freed memory stays
   * reserved for reuse until emptyCache(). device -1 (or the overload without a device) is the
   * current device. Without a GPU every call but allocatorBackend() throws code 301; with
   * CTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync the statistics throw code 500
   * (CT_ERR_NOT_SUPPORTED).
   * ========================================================================================== */

  /** {@code torch.cuda.memory_allocated()}: bytes held by tensors on the current device. */
  public static long memoryAllocated() {
    return memoryAllocated(-1);
  }

  /** {@code torch.cuda.memory_allocated(device)} (-1: the current device). */
  public static long memoryAllocated(int device) {
    return Native.longOut(out -> ctorch.ct_cuda_memory_allocated(device, out));
  }

  /** {@code torch.cuda.max_memory_allocated()}: the peak of memoryAllocated since the last reset. */
  public static long maxMemoryAllocated() {
    return maxMemoryAllocated(-1);
  }

  /** {@code torch.cuda.max_memory_allocated(device)} (-1: the current device). */
  public static long maxMemoryAllocated(int device) {
    return Native.longOut(out -> ctorch.ct_cuda_max_memory_allocated(device, out));
  }

  /** {@code torch.cuda.memory_reserved()}: bytes the allocator holds from the current device. */
  public static long memoryReserved() {
    return memoryReserved(-1);
  }

  /** {@code torch.cuda.memory_reserved(device)} (-1: the current device). */
  public static long memoryReserved(int device) {
    return Native.longOut(out -> ctorch.ct_cuda_memory_reserved(device, out));
  }

  /** {@code torch.cuda.max_memory_reserved()}: the peak of memoryReserved since the last reset. */
  public static long maxMemoryReserved() {
    return maxMemoryReserved(-1);
  }

  /** {@code torch.cuda.max_memory_reserved(device)} (-1: the current device). */
  public static long maxMemoryReserved(int device) {
    return Native.longOut(out -> ctorch.ct_cuda_max_memory_reserved(device, out));
  }

  /** {@code torch.cuda.reset_peak_memory_stats()}: every peak becomes the current value. */
  public static void resetPeakMemoryStats() {
    resetPeakMemoryStats(-1);
  }

  /** {@code torch.cuda.reset_peak_memory_stats(device)} (-1: the current device). */
  public static void resetPeakMemoryStats(int device) {
    Native.check(ctorch.ct_cuda_reset_peak_memory_stats(device));
  }

  /** {@code torch.cuda.reset_max_memory_allocated()} (resets every peak, as PyTorch does). */
  public static void resetMaxMemoryAllocated() {
    resetMaxMemoryAllocated(-1);
  }

  /** {@code torch.cuda.reset_max_memory_allocated(device)} (-1: the current device). */
  public static void resetMaxMemoryAllocated(int device) {
    Native.check(ctorch.ct_cuda_reset_max_memory_allocated(device));
  }

  /**
   * {@code torch.cuda.reset_accumulated_memory_stats()}: the "allocated"/"freed" totals and the
   * counters (num_alloc_retries, num_ooms...) back to 0.
   */
  public static void resetAccumulatedMemoryStats() {
    resetAccumulatedMemoryStats(-1);
  }

  /** {@code torch.cuda.reset_accumulated_memory_stats(device)} (-1: the current device). */
  public static void resetAccumulatedMemoryStats(int device) {
    Native.check(ctorch.ct_cuda_reset_accumulated_memory_stats(device));
  }

  /**
   * One value of {@code torch.cuda.memory_stats(device)} by its key, e.g.
   * "allocated_bytes.all.current", "reserved_bytes.large_pool.peak", "num_alloc_retries".
   * An unknown key throws code 100 (CT_ERR_ARGUMENT).
   */
  public static long memoryStat(int device, String key) {
    Objects.requireNonNull(key, "key");
    return Native.longOut(out -> ctorch.ct_cuda_memory_stat(device, key, out));
  }

  /** The keys of {@code torch.cuda.memory_stats(device)}, sorted. Unmodifiable. */
  public static List<String> memoryStatsKeys(int device) {
    String s = Native.string((buf, cap, needed) ->
        ctorch.ct_cuda_memory_stats_keys(device, buf, cap, needed));
    List<String> keys = new ArrayList<>();
    for (String k : s.split("\n")) {
      if (!k.isEmpty()) {
        keys.add(k);
      }
    }
    return Collections.unmodifiableList(keys);
  }

  /** {@code torch.cuda.memory_stats()} of the current device. */
  public static Map<String, Long> memoryStats() {
    return memoryStats(-1);
  }

  /**
   * {@code torch.cuda.memory_stats(device)}: every statistic of the allocator, key to value,
   * in the keys' sorted order (as PyTorch's OrderedDict). Unmodifiable. The values are read one
   * by one, so allocations by other threads meanwhile can make them slightly inconsistent.
   */
  public static Map<String, Long> memoryStats(int device) {
    Map<String, Long> stats = new LinkedHashMap<>();
    for (String key : memoryStatsKeys(device)) {
      stats.put(key, memoryStat(device, key));
    }
    return Collections.unmodifiableMap(stats);
  }

  /** {@code torch.cuda.memory_snapshot()} of the current device. */
  public static String memorySnapshot() {
    return memorySnapshot(-1);
  }

  /**
   * {@code torch.cuda.memory_snapshot()} of one device (-1: current) as a JSON string: the
   * allocator's segments with their blocks (address, size, state).
   */
  public static String memorySnapshot(int device) {
    return Native.string((buf, cap, needed) ->
        ctorch.ct_cuda_memory_snapshot(device, buf, cap, needed));
  }

  /** {@code torch.cuda.memory_summary()}: the full table of the current device. */
  public static String memorySummary() {
    return memorySummary(-1, false);
  }

  /** {@code torch.cuda.memory_summary(abbreviated=...)} of the current device. */
  public static String memorySummary(boolean abbreviated) {
    return memorySummary(-1, abbreviated);
  }

  /** {@code torch.cuda.memory_summary(device)}: the full table (-1: the current device). */
  public static String memorySummary(int device) {
    return memorySummary(device, false);
  }

  /**
   * {@code torch.cuda.memory_summary(device, abbreviated)}: PyTorch's readable table of the
   * allocator's statistics (current, peak, total allocated and total freed), headed
   * "ctorch CUDA memory summary, device ID N"; unless abbreviated, each statistic also has its
   * "from large pool" and "from small pool" rows. -1: the current device.
   */
  public static String memorySummary(int device, boolean abbreviated) {
    return Native.string((buf, cap, needed) ->
        ctorch.ct_cuda_memory_summary(device, abbreviated ? 1 : 0, buf, cap, needed));
  }

  /**
   * {@code torch.cuda.empty_cache()}: gives every cached, unused segment of every device back
   * to CUDA (memoryReserved drops; memoryAllocated does not change).
   */
  public static void emptyCache() {
    Native.check(ctorch.ct_cuda_empty_cache());
  }

  /** {@code torch.cuda.set_per_process_memory_fraction(fraction)} for the current device. */
  public static void setPerProcessMemoryFraction(double fraction) {
    setPerProcessMemoryFraction(fraction, -1);
  }

  /**
   * {@code torch.cuda.set_per_process_memory_fraction(fraction, device)}: the allocator
   * reserves at most fraction (0..1) of the device's total memory; beyond it allocations throw
   * {@link CtorchOutOfMemoryException}.
   */
  public static void setPerProcessMemoryFraction(double fraction, int device) {
    Native.check(ctorch.ct_cuda_set_per_process_memory_fraction(fraction, device));
  }

  /** {@code torch.cuda.caching_allocator_alloc(size)} on the current device and stream. */
  public static long cachingAllocatorAlloc(long size) {
    return cachingAllocatorAlloc(size, -1, null);
  }

  /**
   * {@code torch.cuda.caching_allocator_alloc(size, device, stream)}: size bytes of raw device
   * memory from the caching allocator, for stream (null: the current stream of device; -1:
   * the current device), as a device address. Give it back with
   * {@link Cuda#cachingAllocatorDelete(long)}; nothing frees it otherwise.
   */
  public static long cachingAllocatorAlloc(long size, int device, Stream stream) {
    long[] ptr = {0};
    Native.run(stream, () -> ctorch.ct_cuda_caching_allocator_alloc(
        size, device, stream == null ? 0 : stream.handle(), ptr));
    return ptr[0];
  }

  /**
   * {@code torch.cuda.caching_allocator_delete(address)}: frees memory from
   * {@link Cuda#cachingAllocatorAlloc}. An address that did not come from it, or was freed already,
   * throws code 100 (CT_ERR_ARGUMENT).
   */
  public static void cachingAllocatorDelete(long address) {
    Native.check(ctorch.ct_cuda_caching_allocator_delete(address));
  }

  /**
   * {@code torch.cuda.get_allocator_backend()}: "native" (the caching allocator),
   * "cudaMallocAsync" (chosen by CTORCH_CUDA_ALLOC_CONF) or "pluggable" (after
   * {@link Cuda#loadAllocator}). Works without a GPU.
   */
  public static String allocatorBackend() {
    return Native.string(ctorch::ct_cuda_get_allocator_backend);
  }

  /**
   * {@code torch.cuda.memory.CUDAPluggableAllocator(path, alloc, free)} followed by
   * {@code change_current_allocator}: every CUDA tensor's memory then comes from the shared
   * library's functions, which have PyTorch's signatures ({@code void* alloc(size_t size, int
   * device, cudaStream_t stream)}, {@code void free(void* ptr, size_t size, int device,
   * cudaStream_t stream)}); no caching, and the statistics throw code 500
   * (CT_ERR_NOT_SUPPORTED). Only before the first CUDA allocation of the process: afterwards
   * code 200 (CT_ERR_STATE). Code 100 (CT_ERR_ARGUMENT) when the library or a symbol cannot be
   * loaded (with dlopen's reason), or when an argument contains a NUL character. The strings
   * reach C as JNI's modified UTF-8 (the same bytes as UTF-8 except for NUL and characters
   * outside the Basic Multilingual Plane). Null arguments throw {@link NullPointerException}.
   * The out-of-memory hook ({@link Cuda#outOfMemoryHookRuns()}) does not serve a pluggable
   * allocator.
   */
  public static void loadAllocator(String path, String allocSymbol, String freeSymbol) {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(allocSymbol, "allocSymbol");
    Objects.requireNonNull(freeSymbol, "freeSymbol");
    for (String arg : new String[] {path, allocSymbol, freeSymbol}) {
      Native.checkNoNul("loadAllocator", arg);
    }
    Native.check(ctorch.ct_cuda_load_allocator(path, allocSymbol, freeSymbol));
  }

  /* ============================================================================================
   * Memory recovery: the out-of-memory hook
   * ========================================================================================== */

  /**
   * How many times the binding's out-of-memory hook has run in this process: a diagnostic.
   *
   * <p>When the binding's JNI library is loaded it registers one hook with ctorch
   * (ct_cuda_add_oom_hook). When a CUDA allocation fails even after the caching allocator gave
   * its cached memory back, ctorch calls the hook on the allocating thread: it runs
   * {@code System.gc()} and waits (at most about one second) until the {@link
   * java.lang.ref.Cleaner} has released the tensors that became unreachable without
   * {@code close()}, and then ctorch retries the allocation once. Only if that fails too does
   * the allocation throw {@link CtorchOutOfMemoryException} (and {@code num_ooms} grow). So a
   * program that drops tensors gets their memory back when it is needed, at the price of a
   * collection; closing tensors stays the fast way. Works (reads 0) without a GPU.
   */
  public static long outOfMemoryHookRuns() {
    return OutOfMemoryHook.runs();
  }
}
