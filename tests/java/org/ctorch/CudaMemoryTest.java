package org.ctorch;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.ctorch.swig.ctorch;
import org.junit.Test;

/**
 * The caching allocator's API on {@link Cuda} (section 15 of ctorch.h, torch.cuda.memory_*):
 * statistics, peaks and their resets, memory_stats, the snapshot, the summary, empty_cache, the memory
 * fraction, raw allocations, the backend, loadAllocator's failures and the per-stream figures
 * ({@link Stream#memoryStat}). The first group runs everywhere; "noGpu" tests
 * check the behaviour without a GPU (code 301 with the reason); "gpu" tests need one and are
 * skipped (visibly) here. Expected values follow PyTorch's policy: requests up to 1 MiB come
 * from 2 MiB small-pool segments, 1 to 10 MiB requests from 20 MiB large-pool segments, sizes
 * rounded up to 512 bytes.
 */
public class CudaMemoryTest extends CtorchTestCase {
  static final long MIB = 1L << 20;

  /** Runs r, expects code 301 with the runtime's reason. */
  /* ============================================================================================
   * Everywhere
   * ========================================================================================== */

  /** torch.cuda.get_allocator_backend() is "native" unless CTORCH_CUDA_ALLOC_CONF says else. */
  @Test
  public void allocatorBackendIsNative() {
    assertEquals("native", Cuda.allocatorBackend());
    assertEquals("native", Cuda.allocatorBackend()); // a second call: the same string
  }

  /** Deleting an address that the allocator never gave out is code 100, with or without GPU. */
  @Test
  public void cachingAllocatorDeleteOfUnknownAddress() {
    for (long bogus : new long[] {12345L, 0L, -1L, 0x7f0000001000L, Long.MIN_VALUE}) {
      CtorchException e = assertStatus(CtorchException.ARGUMENT,
          () -> Cuda.cachingAllocatorDelete(bogus));
      assertEquals("CT_ERR_ARGUMENT", e.statusName());
      assertTrue(e.detail(), e.detail().contains("is not memory from ct_cuda_caching_allocator_alloc"));
    }
  }

  /** A size that is not positive is code 100 before anything looks for a GPU. */
  @Test
  public void cachingAllocatorAllocOfNonPositiveSize() {
    for (long size : new long[] {0L, -1L, Long.MIN_VALUE}) {
      CtorchException e = assertStatus(CtorchException.ARGUMENT,
          () -> Cuda.cachingAllocatorAlloc(size, -1, null));
      assertTrue(e.detail(), e.detail().contains("size must be positive"));
    }
    assertStatus(CtorchException.ARGUMENT, () -> Cuda.cachingAllocatorAlloc(0));
  }

  /** A null key is rejected in Java, before the C call. */
  @Test
  public void memoryStatNullKey() {
    assertThrows(NullPointerException.class, () -> Cuda.memoryStat(0, null));
  }

  /**
   * loadAllocator's failures (its success would change this process's allocator): a library
   * or a symbol that cannot be loaded is code 100 with dlopen's reason, before anything looks
   * at the allocator's state; a NUL character is refused in Java (code 100), null with
   * NullPointerException. The backend stays "native".
   */
  @Test
  public void loadAllocatorErrors() {
    CtorchException e = assertStatus(CtorchException.ARGUMENT,
        () -> Cuda.loadAllocator("/nonexistent/liballoc.so", "a", "f"));
    assertTrue(e.detail(), e.detail().contains("cannot load the allocator library '/nonexistent/liballoc.so'"));
    e = assertStatus(CtorchException.ARGUMENT,
        () -> Cuda.loadAllocator("libm.so.6", "no_such_alloc", "cos"));
    assertTrue(e.detail(), e.detail().contains("has no function 'no_such_alloc'"));
    e = assertStatus(CtorchException.ARGUMENT,
        () -> Cuda.loadAllocator("libm.so.6", "cos", "no_such_free"));
    assertTrue(e.detail(), e.detail().contains("has no function 'no_such_free'"));
    for (String[] args : new String[][] {
        {"lib\0m.so", "a", "f"}, {"libm.so.6", "co\0s", "cos"}, {"libm.so.6", "cos", "\0"}}) {
      e = assertStatus(CtorchException.ARGUMENT, () -> Cuda.loadAllocator(args[0], args[1], args[2]));
      assertTrue(e.detail(), e.detail().contains("contains a NUL character"));
    }
    assertThrows(NullPointerException.class, () -> Cuda.loadAllocator(null, "a", "f"));
    assertThrows(NullPointerException.class, () -> Cuda.loadAllocator("libm.so.6", null, "f"));
    assertThrows(NullPointerException.class, () -> Cuda.loadAllocator("libm.so.6", "a", null));
    // ct_cuda_set_allocator takes C function pointers, which only the raw SWIG layer passes
    // (loadAllocator is the Java way): null functions are code 101 and change nothing.
    assertEquals(CtorchException.NULL_POINTER, ctorch.ct_cuda_set_allocator(null, null, null));
    Torch.clearError();
    assertEquals("native", Cuda.allocatorBackend());
  }

  /**
   * Stream.memoryStat on a closed stream is code 102 from the Java layer; on a handle the C
   * layer never gave out (or a null one, through the raw layer) code 102 from C; a null key
   * NullPointerException. No GPU needed: the stream objects are adopted over foreign handles.
   */
  @Test
  public void streamMemoryStatOnClosedAndForeignStreams() {
    Stream closed = Stream.adopt(StreamEventTest.FOREIGN_STREAM, 0, 0);
    closed.close();
    CtorchException e = assertStatus(CtorchException.INVALID_HANDLE,
        () -> closed.memoryStat("allocated_bytes.current"));
    assertEquals("the Stream is closed", e.detail());
    Stream foreign = Stream.adopt(StreamEventTest.FOREIGN_STREAM, 0, 0);
    try {
      for (String key : new String[] {"allocated_bytes.current", "no.such.key"}) {
        e = assertStatus(CtorchException.INVALID_HANDLE, () -> foreign.memoryStat(key));
        assertTrue(e.detail(), e.detail().contains("stream handle"));
      }
      assertThrows(NullPointerException.class, () -> foreign.memoryStat(null));
    } finally {
      foreign.close();
    }
    long[] out = {0};
    assertEquals(CtorchException.INVALID_HANDLE,
        ctorch.ct_cuda_memory_stream_stat(0, "allocated_bytes.current", out));
    assertTrue(Torch.lastErrorMessage(), Torch.lastErrorMessage().contains("stream"));
    Torch.clearError();
  }

  /* ============================================================================================
   * Without a GPU: everything but the backend and delete's argument check is code 301
   * ========================================================================================== */

  @Test
  public void noGpuCountersAndPeaks() {
    assumeNoCuda();
    assertNoCudaBothForms(Cuda::memoryAllocated, Cuda::memoryAllocated);
    assertNoCudaBothForms(Cuda::maxMemoryAllocated, Cuda::maxMemoryAllocated);
    assertNoCudaBothForms(Cuda::memoryReserved, Cuda::memoryReserved);
    assertNoCudaBothForms(Cuda::maxMemoryReserved, Cuda::maxMemoryReserved);
    assertNoCudaBothForms(Cuda::resetPeakMemoryStats, Cuda::resetPeakMemoryStats);
    assertNoCudaBothForms(Cuda::resetMaxMemoryAllocated, Cuda::resetMaxMemoryAllocated);
    assertNoCudaBothForms(Cuda::resetAccumulatedMemoryStats, Cuda::resetAccumulatedMemoryStats);
  }

  @Test
  public void noGpuStatsSnapshotCacheFractionAlloc() {
    assumeNoCuda();
    assertNoCudaBothForms(Cuda::memoryStats, Cuda::memoryStats);
    assertNoCuda(() -> Cuda.memoryStatsKeys(-1));
    assertNoCuda(() -> Cuda.memoryStat(0, "allocated_bytes.all.current"));
    // Even an unknown key: there is no allocator to ask.
    assertNoCuda(() -> Cuda.memoryStat(-1, "no.such.key"));
    assertNoCudaBothForms(Cuda::memorySnapshot, Cuda::memorySnapshot);
    assertNoCuda(Cuda::memorySummary);
    assertNoCuda(() -> Cuda.memorySummary(true));
    assertNoCuda(() -> Cuda.memorySummary(0));
    assertNoCuda(() -> Cuda.memorySummary(0, false));
    assertNoCuda(() -> Cuda.memorySummary(-1, true));
    assertNoCuda(Cuda::emptyCache);
    assertNoCuda(() -> Cuda.setPerProcessMemoryFraction(0.5));
    assertNoCuda(() -> Cuda.setPerProcessMemoryFraction(0.5, 0));
    assertNoCuda(() -> Cuda.cachingAllocatorAlloc(16));
    assertNoCuda(() -> Cuda.cachingAllocatorAlloc(1024, 0, null));
    // The backend still answers, and nothing was left in a bad state.
    assertEquals("native", Cuda.allocatorBackend());
  }

  /* ============================================================================================
   * With a GPU (skipped here). Each test starts with emptyCache(), so no segment is cached; the
   * harness checks that no tensor is left from a previous test.
   * ========================================================================================== */

  private static long stat(String key) {
    return Cuda.memoryStat(0, key);
  }

  private static Tensor cudaBytes(long n) {
    return Tensor.empty(new long[] {n}, DType.UINT8, Device.cuda(0));
  }

  /** A 5 MiB tensor takes 5 MiB of a new 20 MiB large-pool segment. */
  @Test
  public void gpuFiveMiBTensorInTheLargePool() {
    assumeCuda();
    Cuda.emptyCache();
    assertEquals(0, stat("allocated_bytes.large_pool.current"));
    assertEquals(0, stat("reserved_bytes.large_pool.current"));
    long allocatedBefore = Cuda.memoryAllocated(0);
    long reservedBefore = Cuda.memoryReserved(0);
    try (Tensor t = cudaBytes(5 * MIB)) {
      assertEquals(5 * MIB, stat("allocated_bytes.large_pool.current"));
      assertEquals(20 * MIB, stat("reserved_bytes.large_pool.current"));
      assertEquals(allocatedBefore + 5 * MIB, Cuda.memoryAllocated(0));
      assertEquals(allocatedBefore + 5 * MIB, Cuda.memoryAllocated()); // -1: current (0)
      assertEquals(reservedBefore + 20 * MIB, Cuda.memoryReserved(0));
      assertEquals(5 * MIB, t.nbytes());
    }
  }

  /** memoryStats: the 122 PyTorch keys, sorted, the same values as the getters. */
  @Test
  public void gpuMemoryStatsMatchTheGetters() {
    assumeCuda();
    Cuda.emptyCache();
    try (Tensor t = cudaBytes(3 * MIB)) {
      Map<String, Long> stats = Cuda.memoryStats(0);
      List<String> keys = Cuda.memoryStatsKeys(0);
      // 9 statistics x 3 pools x 4 (current/peak/allocated/freed), oversize_allocations and
      // oversize_segments x 4, and 6 counters: 108 + 8 + 6.
      assertEquals(122, keys.size());
      assertEquals(keys, new ArrayList<>(stats.keySet())); // the map keeps the keys' order
      List<String> sorted = new ArrayList<>(keys);
      sorted.sort(null);
      assertEquals(sorted, keys);
      assertTrue(stats.containsKey("allocated_bytes.all.current"));
      assertTrue(stats.containsKey("inactive_split_bytes.small_pool.freed"));
      assertTrue(stats.containsKey("num_alloc_retries"));
      assertEquals(Long.valueOf(Cuda.memoryAllocated(0)), stats.get("allocated_bytes.all.current"));
      assertEquals(Long.valueOf(Cuda.memoryReserved(0)), stats.get("reserved_bytes.all.current"));
      assertEquals(Long.valueOf(Cuda.maxMemoryAllocated(0)), stats.get("allocated_bytes.all.peak"));
      assertEquals(Long.valueOf(Cuda.maxMemoryReserved(0)), stats.get("reserved_bytes.all.peak"));
      assertEquals(Long.valueOf(3 * MIB), stats.get("allocated_bytes.large_pool.current"));
      assertEquals(Long.valueOf(-1), stats.get("max_split_size")); // no limit by default
      assertEquals(stats, Cuda.memoryStats()); // -1: the current device (0), nothing changed
      assertThrows(UnsupportedOperationException.class, () -> stats.put("x", 1L));
      assertThrows(UnsupportedOperationException.class, () -> keys.add("x"));
    }
  }

  /** The snapshot of one 5 MiB tensor: a 20 MiB large segment, split 5 MiB used + 15 MiB free. */
  @Test
  public void gpuMemorySnapshotJson() {
    assumeCuda();
    Cuda.emptyCache();
    try (Tensor t = cudaBytes(5 * MIB)) {
      String json = Cuda.memorySnapshot(0);
      assertTrue(json, json.startsWith("{\"device\": 0, \"segments\": ["));
      assertTrue(json, json.endsWith("]}"));
      assertTrue(json, json.contains("\"total_size\": 20971520, \"allocated_size\": 5242880"));
      assertTrue(json, json.contains("\"segment_type\": \"large\""));
      assertTrue(json, json.contains("\"size\": 5242880, \"state\": \"active_allocated\""));
      assertTrue(json, json.contains("\"size\": 15728640, \"state\": \"inactive\""));
      assertEquals(json, Cuda.memorySnapshot());
    }
    Cuda.emptyCache();
    assertFalse(Cuda.memorySnapshot(0).contains("\"segment_type\": \"large\""));
  }

  /**
   * memory_summary: PyTorch's table, headed with the device; the full one has per-pool rows,
   * the abbreviated one does not.
   */
  @Test
  public void gpuMemorySummary() {
    assumeCuda();
    Cuda.emptyCache();
    try (Tensor t = cudaBytes(5 * MIB)) {
      String full = Cuda.memorySummary(0, false);
      assertTrue(full, full.contains("ctorch CUDA memory summary, device ID 0"));
      assertTrue(full, full.contains("from large pool"));
      assertTrue(full, full.contains("from small pool"));
      assertTrue(full, full.contains("Allocated memory"));
      assertTrue(full, full.contains("GPU reserved memory"));
      String abbreviated = Cuda.memorySummary(0, true);
      assertTrue(abbreviated, abbreviated.contains("ctorch CUDA memory summary, device ID 0"));
      assertTrue(abbreviated, abbreviated.contains("Allocated memory"));
      assertFalse(abbreviated, abbreviated.contains("from large pool"));
      assertFalse(abbreviated, abbreviated.contains("from small pool"));
      assertTrue(abbreviated.length() < full.length());
      // The overloads: device -1 / none is the current device (0), full unless told.
      assertEquals(full, Cuda.memorySummary(0));
      assertEquals(full, Cuda.memorySummary());
      assertEquals(abbreviated, Cuda.memorySummary(true));
      assertEquals(abbreviated, Cuda.memorySummary(-1, true));
    }
    Cuda.emptyCache();
  }

  /** caching_allocator_alloc/delete: raw device memory counted like a tensor's. */
  @Test
  public void gpuCachingAllocatorAllocDelete() {
    assumeCuda();
    Cuda.emptyCache();
    long small0 = stat("allocated_bytes.small_pool.current");
    long p = Cuda.cachingAllocatorAlloc(1000, 0, null); // small pool, rounded up to 1024
    try {
      assertNotEquals(0, p);
      assertEquals(0, p % 256); // cudaMalloc's alignment; blocks are 512-byte multiples
      assertEquals(small0 + 1024, stat("allocated_bytes.small_pool.current"));
      assertEquals(2 * MIB, stat("reserved_bytes.small_pool.current"));
      String json = Cuda.memorySnapshot(0);
      String block = "{\"address\": " + p + ", \"size\": 1024, \"state\": \"active_allocated\"}";
      assertTrue(json, json.contains(block));
    } finally {
      Cuda.cachingAllocatorDelete(p);
    }
    assertEquals(small0, stat("allocated_bytes.small_pool.current"));
    CtorchException e = assertStatus(CtorchException.ARGUMENT, () -> Cuda.cachingAllocatorDelete(p));
    assertTrue(e.detail(), e.detail().contains("freed already"));

    // On the current device and stream, and on a stream of our own.
    long q = Cuda.cachingAllocatorAlloc(3 * MIB);
    assertEquals(3 * MIB, stat("allocated_bytes.large_pool.current"));
    Cuda.cachingAllocatorDelete(q);
    try (Stream s = Stream.create(0)) {
      long r = Cuda.cachingAllocatorAlloc(4096, 0, s);
      assertNotEquals(0, r);
      Cuda.cachingAllocatorDelete(r);
      s.synchronize();
    }
    // A closed stream: code 102 from the Java layer, and nothing is allocated.
    Stream closed = Stream.create(0);
    closed.close();
    long before = Cuda.memoryAllocated(0);
    assertStatus(CtorchException.INVALID_HANDLE, () -> Cuda.cachingAllocatorAlloc(64, 0, closed));
    assertEquals(before, Cuda.memoryAllocated(0));
    Cuda.emptyCache();
  }

  /**
   * Per-stream figures (Stream.memoryStat): a 1000-byte and a 3 MiB tensor made under a
   * stream guard count for that stream (a 2 MiB small and a 20 MiB large segment), a 512-byte
   * one made afterwards for the default stream; after closing, the current values are 0 and
   * the peaks and totals stay until the device's are reset.
   */
  @Test
  public void gpuPerStreamStats() {
    assumeCuda();
    Cuda.emptyCache();
    try (Stream s = Stream.create(0); Stream def = Stream.defaultStream(0)) {
      assertEquals(0, s.memoryStat("allocation.allocated"));
      assertEquals(0, s.memoryStat("reserved_bytes.current"));
      long defAllocated = def.memoryStat("allocated_bytes.current");
      Tensor[] onS = new Tensor[2];
      try {
        try (Cuda.StreamGuard g = Cuda.stream(s)) {
          onS[0] = cudaBytes(1000);
          onS[1] = cudaBytes(3 * MIB);
        }
        try (Tensor c = cudaBytes(512)) { // on the default stream
          assertEquals(2, s.memoryStat("allocation.current"));
          assertEquals(1024 + 3 * MIB, s.memoryStat("allocated_bytes.current"));
          assertEquals(1000 + 3 * MIB, s.memoryStat("requested_bytes.current"));
          assertEquals(2, s.memoryStat("segment.current"));
          assertEquals(22 * MIB, s.memoryStat("reserved_bytes.current"));
          assertEquals(512, def.memoryStat("allocated_bytes.current") - defAllocated);
        }
      } finally {
        for (Tensor t : onS) {
          if (t != null) {
            t.close();
          }
        }
      }
      assertEquals(0, s.memoryStat("allocated_bytes.current"));
      assertEquals(1024 + 3 * MIB, s.memoryStat("allocated_bytes.peak"));
      assertEquals(1024 + 3 * MIB, s.memoryStat("allocated_bytes.freed"));
      assertEquals(2, s.memoryStat("allocation.freed"));
      assertEquals(22 * MIB, s.memoryStat("reserved_bytes.current")); // cached
      Cuda.emptyCache();
      assertEquals(0, s.memoryStat("reserved_bytes.current"));
      Cuda.resetPeakMemoryStats(0);
      assertEquals(0, s.memoryStat("allocated_bytes.peak"));
    }
    Cuda.emptyCache();
  }

  /** set_per_process_memory_fraction limits what the allocator may reserve. */
  @Test
  public void gpuPerProcessMemoryFraction() {
    assumeCuda();
    long total = Cuda.totalMemory(0);
    for (double bad : new double[] {1.5, -0.1, Double.NaN}) {
      CtorchException e = assertStatus(CtorchException.ARGUMENT,
          () -> Cuda.setPerProcessMemoryFraction(bad, 0));
      assertTrue(e.detail(), e.detail().contains("between 0 and 1"));
    }
    Cuda.emptyCache();
    Cuda.setPerProcessMemoryFraction(0.01, 0);
    try {
      long n = total / 50; // 2% of the device
      CtorchOutOfMemoryException oom = assertThrows(CtorchOutOfMemoryException.class,
          () -> cudaBytes(n).close());
      assertEquals(CtorchException.OUT_OF_MEMORY, oom.code());
      try (Tensor small = cudaBytes(MIB)) { // within 1%: still fine
        assertEquals(MIB, small.nbytes());
      }
    } finally {
      Cuda.setPerProcessMemoryFraction(1.0);
    }
    try (Tensor t = cudaBytes(total / 50)) {
      assertEquals(total / 50, t.nbytes());
    }
    Cuda.emptyCache();
  }
}
