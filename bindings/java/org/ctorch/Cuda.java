package org.ctorch;

import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.ctorch.swig.ctorch;

/**
 * {@code torch.cuda}: devices, their properties, the current device and its guard, device
 * synchronization and memory, the caching allocator's statistics and cache, a pluggable
 * allocator ({@link #loadAllocator}), the out-of-memory hook's counter
 * ({@link #outOfMemoryHookRuns()}), the seeds and states of the devices' default random number
 * generators, the build's architectures, the sync debug mode, the switches of
 * {@code torch.backends.cuda.matmul} ({@link #setAllowTf32}, ...), the cuBLAS handle
 * ({@link #currentBlasHandle()}), the cuFFT plan caches ({@link #cufftPlanCache(int)}), and
 * the {@code torch.cuda.*} functions about streams
 * ({@link Stream} and {@link Event} are their own classes). On a machine without a GPU or driver {@link #isAvailable()} is false,
 * {@link #deviceCount()} is 0, and everything that needs a GPU throws a
 * {@link CtorchException} with code 301 (CT_ERR_CUDA_UNAVAILABLE) saying why;
 * {@link #archList()}, {@link #gencodeFlags()}, the sync debug mode, the matmul switches,
 * {@link #allocatorBackend()}, {@link #outOfMemoryHookRuns()} and the seeding functions that
 * torch lets do nothing without CUDA ({@link #manualSeed}, {@link #manualSeedAll},
 * {@link #seed()}, {@link #seedAll()}, {@link #getRngStateAll()}, {@link #setRngStateAll})
 * work without one.
 *
 * <p>The current device and the current streams belong to the calling thread, as in CUDA and
 * PyTorch; a guard ({@link #device(int)}, {@link #deviceOf(Tensor)}, {@link #stream(Stream)})
 * must be closed on the thread that opened it.
 */
public final class Cuda {
  static {
    Native.ensureLoaded();
  }

  private Cuda() {}

  /** Integer properties of a CUDA device ({@code ct_device_property}). */
  public enum Property {
    MAJOR(0),
    MINOR(1),
    TOTAL_MEMORY(2),
    MULTIPROCESSOR_COUNT(3),
    L2_CACHE_SIZE(4),
    WARP_SIZE(5),
    MAX_THREADS_PER_MULTIPROCESSOR(6),
    IS_INTEGRATED(7),
    PCI_BUS_ID(8);

    private final int code;

    Property(int code) {
      this.code = code;
    }

    /** The C ABI's number. */
    public int code() {
      return code;
    }
  }

  /** A compute capability, e.g. (9, 0) on H100 ({@code torch.cuda.get_device_capability}). */
  public record Capability(int major, int minor) {
    @Override
    public String toString() {
      return "(" + major + ", " + minor + ")";
    }
  }

  /** {@code torch.cuda.get_device_properties(device)}. */
  public record DeviceProperties(
      String name,
      int major,
      int minor,
      long totalMemory,
      int multiProcessorCount,
      long l2CacheSize,
      int warpSize,
      int maxThreadsPerMultiProcessor,
      boolean isIntegrated,
      int pciBusId) {}

  /** {@code torch.cuda.is_available()}: true when at least one CUDA device can be used. */
  public static boolean isAvailable() {
    int[] out = {0};
    Native.check(ctorch.ct_cuda_is_available(out));
    return out[0] != 0;
  }

  /** {@code torch.cuda.device_count()}: visible devices (0 without GPU or driver). */
  public static int deviceCount() {
    int[] out = {0};
    Native.check(ctorch.ct_cuda_device_count(out));
    return out[0];
  }

  /**
   * Returns when CUDA can be used; otherwise throws a {@link CtorchException} with code 301
   * (CT_ERR_CUDA_UNAVAILABLE) and the reason the CUDA runtime gave.
   */
  public static void checkAvailable() {
    Native.check(ctorch.ct_cuda_check_available());
  }

  /** {@code torch.cuda.get_device_name(device)}, e.g. "NVIDIA H100 80GB HBM3". */
  public static String deviceName(int device) {
    return Native.string((buf, cap, needed) ->
        ctorch.ct_cuda_get_device_name(device, buf, cap, needed));
  }

  /** {@code torch.cuda.get_device_capability(device)}. */
  public static Capability deviceCapability(int device) {
    int[] major = {0};
    int[] minor = {0};
    Native.check(ctorch.ct_cuda_get_device_capability(device, major, minor));
    return new Capability(major[0], minor[0]);
  }

  /** One integer property of a device. */
  public static long deviceProperty(int device, Property prop) {
    long[] out = {0};
    Native.check(ctorch.ct_cuda_get_device_property(device, prop.code(), out));
    return out[0];
  }

  /** Bytes of global memory ({@code get_device_properties(d).total_memory}). */
  public static long totalMemory(int device) {
    return deviceProperty(device, Property.TOTAL_MEMORY);
  }

  /** Number of SMs ({@code get_device_properties(d).multi_processor_count}). */
  public static int multiProcessorCount(int device) {
    return (int) deviceProperty(device, Property.MULTIPROCESSOR_COUNT);
  }

  /** {@code torch.cuda.get_device_properties(device)}: all properties at once. */
  public static DeviceProperties deviceProperties(int device) {
    return new DeviceProperties(
        deviceName(device),
        (int) deviceProperty(device, Property.MAJOR),
        (int) deviceProperty(device, Property.MINOR),
        deviceProperty(device, Property.TOTAL_MEMORY),
        (int) deviceProperty(device, Property.MULTIPROCESSOR_COUNT),
        deviceProperty(device, Property.L2_CACHE_SIZE),
        (int) deviceProperty(device, Property.WARP_SIZE),
        (int) deviceProperty(device, Property.MAX_THREADS_PER_MULTIPROCESSOR),
        deviceProperty(device, Property.IS_INTEGRATED) != 0,
        (int) deviceProperty(device, Property.PCI_BUS_ID));
  }

  /* ============================================================================================
   * Current device and the device guard
   * ========================================================================================== */

  /** {@code torch.cuda.current_device()}: this thread's current CUDA device. */
  public static int currentDevice() {
    int[] out = {0};
    Native.check(ctorch.ct_cuda_current_device(out));
    return out[0];
  }

  /**
   * {@code torch.cuda.set_device(device)}: makes device this thread's current CUDA device
   * (code 105, CT_ERR_INDEX, for a device that is not visible). Prefer {@link #device(int)},
   * which restores the previous one.
   */
  public static void setDevice(int device) {
    Native.check(ctorch.ct_cuda_set_device(device));
  }

  /** {@code torch.cuda.set_device(torch.device("cuda:N"))}. */
  public static void setDevice(Device device) {
    setDevice(cudaIndex(device));
  }

  /**
   * The guard of {@code with torch.cuda.device(d):} and {@code torch.cuda.device_of(t)}: the
   * device was made current when the guard was created; {@link #close()} makes the previous
   * device current again. Use with try-with-resources, on one thread:
   *
   * <pre>{@code
   * try (Cuda.DeviceGuard g = Cuda.device(1)) {
   *   Tensor t = Tensor.zeros(new long[] {2}, DType.FLOAT32, Device.CUDA);   // on cuda:1
   * }                                                                       // back to before
   * }</pre>
   *
   * Nothing native is held, so a guard that is never closed leaks nothing (but leaves the
   * device switched).
   */
  public static final class DeviceGuard implements AutoCloseable {
    private final int previous;
    private final Thread owner = Thread.currentThread();
    private boolean closed;

    private DeviceGuard(int previous) {
      this.previous = previous;
    }

    /**
     * The device current before the guard, which {@link #close()} restores; -1 when there is
     * nothing to restore (a guard on device -1 or on a CPU tensor, or no CUDA).
     */
    public int previousDevice() {
      return previous;
    }

    /**
     * Makes the previous device current again (nothing for -1). Idempotent. Must run on the
     * thread that made the guard ({@link IllegalStateException} otherwise).
     */
    @Override
    public void close() {
      if (closed) {
        return;
      }
      if (Thread.currentThread() != owner) {
        throw new IllegalStateException("a Cuda.DeviceGuard must be closed on the thread that made it");
      }
      closed = true;
      if (previous >= 0) {
        Native.check(ctorch.ct_cuda_set_device(previous));
      }
    }
  }

  /**
   * {@code with torch.cuda.device(device):} makes device current until the guard is closed.
   * A negative device changes nothing (as torch's {@code device(-1)} / {@code device(None)}),
   * also without CUDA; any other device needs CUDA (code 301 without it, 105 when not
   * visible), and nothing changes when the guard cannot be made.
   */
  public static DeviceGuard device(int device) {
    int[] prev = {-1};
    Native.check(ctorch.ct_cuda_exchange_device(device, prev));
    return new DeviceGuard(prev[0]);
  }

  /**
   * {@code with torch.cuda.device(torch.device("cuda:1")):}; {@code Device.CUDA} (no index)
   * changes nothing. A CPU device throws {@link IllegalArgumentException}, as torch's
   * "Expected a cuda device".
   */
  public static DeviceGuard device(Device device) {
    return device(cudaIndex(device));
  }

  /**
   * {@code with torch.cuda.device_of(t):} makes t's device current until the guard is closed;
   * for a CPU tensor nothing changes (and no CUDA is needed).
   */
  public static DeviceGuard deviceOf(Tensor t) {
    Objects.requireNonNull(t, "tensor");
    int[] prev = {-1};
    try {
      Native.check(ctorch.ct_cuda_exchange_device_of(t.handle(), prev));
    } finally {
      Reference.reachabilityFence(t);
    }
    return new DeviceGuard(prev[0]);
  }

  /** The CUDA index of a device (-1 for {@code Device.CUDA}); a CPU device is an error. */
  static int cudaIndex(Device device) {
    Objects.requireNonNull(device, "device");
    if (!device.isCuda()) {
      throw new IllegalArgumentException("Expected a cuda device, but got: " + device);
    }
    return device.index();
  }

  /* ============================================================================================
   * Synchronization, memory, peers
   * ========================================================================================== */

  /** {@code torch.cuda.synchronize()}: waits for all work on the current device. */
  public static void synchronize() {
    synchronize(-1);
  }

  /** {@code torch.cuda.synchronize(device)} (-1: the current device). */
  public static void synchronize(int device) {
    Native.check(ctorch.ct_cuda_synchronize(device));
  }

  /** Free and total device memory in bytes ({@code torch.cuda.mem_get_info}). */
  public record MemInfo(long free, long total) {}

  /** {@code torch.cuda.mem_get_info()} of the current device. */
  public static MemInfo memGetInfo() {
    return memGetInfo(-1);
  }

  /** {@code torch.cuda.mem_get_info(device)} (-1: the current device). */
  public static MemInfo memGetInfo(int device) {
    long[] free = {0};
    long[] total = {0};
    Native.check(ctorch.ct_cuda_mem_get_info(device, free, total));
    return new MemInfo(free[0], total[0]);
  }

  /**
   * {@code torch.cuda.can_device_access_peer(device, peer)}: whether device can read peer's
   * memory directly (false for device == peer).
   */
  public static boolean canDeviceAccessPeer(int device, int peer) {
    int[] out = {0};
    Native.check(ctorch.ct_cuda_can_device_access_peer(device, peer, out));
    return out[0] != 0;
  }

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
    long[] out = {0};
    Native.check(ctorch.ct_cuda_memory_allocated(device, out));
    return out[0];
  }

  /** {@code torch.cuda.max_memory_allocated()}: the peak of memoryAllocated since the last reset. */
  public static long maxMemoryAllocated() {
    return maxMemoryAllocated(-1);
  }

  /** {@code torch.cuda.max_memory_allocated(device)} (-1: the current device). */
  public static long maxMemoryAllocated(int device) {
    long[] out = {0};
    Native.check(ctorch.ct_cuda_max_memory_allocated(device, out));
    return out[0];
  }

  /** {@code torch.cuda.memory_reserved()}: bytes the allocator holds from the current device. */
  public static long memoryReserved() {
    return memoryReserved(-1);
  }

  /** {@code torch.cuda.memory_reserved(device)} (-1: the current device). */
  public static long memoryReserved(int device) {
    long[] out = {0};
    Native.check(ctorch.ct_cuda_memory_reserved(device, out));
    return out[0];
  }

  /** {@code torch.cuda.max_memory_reserved()}: the peak of memoryReserved since the last reset. */
  public static long maxMemoryReserved() {
    return maxMemoryReserved(-1);
  }

  /** {@code torch.cuda.max_memory_reserved(device)} (-1: the current device). */
  public static long maxMemoryReserved(int device) {
    long[] out = {0};
    Native.check(ctorch.ct_cuda_max_memory_reserved(device, out));
    return out[0];
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
    long[] out = {0};
    Native.check(ctorch.ct_cuda_memory_stat(device, key, out));
    return out[0];
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
   * {@link #cachingAllocatorDelete(long)}; nothing frees it otherwise.
   */
  public static long cachingAllocatorAlloc(long size, int device, Stream stream) {
    long[] ptr = {0};
    try {
      Native.check(ctorch.ct_cuda_caching_allocator_alloc(
          size, device, stream == null ? 0 : stream.handle(), ptr));
    } finally {
      Reference.reachabilityFence(stream);
    }
    return ptr[0];
  }

  /**
   * {@code torch.cuda.caching_allocator_delete(address)}: frees memory from
   * {@link #cachingAllocatorAlloc}. An address that did not come from it, or was freed already,
   * throws code 100 (CT_ERR_ARGUMENT).
   */
  public static void cachingAllocatorDelete(long address) {
    Native.check(ctorch.ct_cuda_caching_allocator_delete(address));
  }

  /**
   * {@code torch.cuda.get_allocator_backend()}: "native" (the caching allocator),
   * "cudaMallocAsync" (chosen by CTORCH_CUDA_ALLOC_CONF) or "pluggable" (after
   * {@link #loadAllocator}). Works without a GPU.
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
   * The out-of-memory hook ({@link #outOfMemoryHookRuns()}) does not serve a pluggable
   * allocator.
   */
  public static void loadAllocator(String path, String allocSymbol, String freeSymbol) {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(allocSymbol, "allocSymbol");
    Objects.requireNonNull(freeSymbol, "freeSymbol");
    for (String arg : new String[] {path, allocSymbol, freeSymbol}) {
      if (arg.indexOf('\0') >= 0) {
        throw new CtorchException(CtorchException.ARGUMENT,
            CtorchException.statusName(CtorchException.ARGUMENT),
            "loadAllocator: argument contains a NUL character: \""
                + arg.replace("\0", "\\0") + "\"");
      }
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

  /* ============================================================================================
   * Random numbers: the default generators of the CUDA devices (torch.cuda.manual_seed...)
   *
   * Each CUDA device has a default Generator (Generator.defaultGenerator(Device.cuda(i))) that
   * the random ops use for its tensors when given none. A state is Generator.STATE_SIZE bytes
   * (seed, then Philox offset), as torch.cuda.get_rng_state's ByteTensor.
   * ========================================================================================== */

  /**
   * {@code torch.cuda.manual_seed(seed)}: seeds the current device's default generator (its
   * offset starts again at 0). Without CUDA it does nothing, as in torch. A negative seed
   * stands for the same 64 bits.
   */
  public static void manualSeed(long seed) {
    Native.check(ctorch.ct_cuda_manual_seed(seed));
  }

  /**
   * {@code torch.cuda.manual_seed_all(seed)}: seeds every CUDA device's default generator.
   * Without CUDA it does nothing.
   */
  public static void manualSeedAll(long seed) {
    Native.check(ctorch.ct_cuda_manual_seed_all(seed));
  }

  /**
   * {@code torch.cuda.seed()}: seeds the current device's default generator with a
   * non-deterministic seed (read it with {@link #initialSeed()}). Without CUDA it does nothing.
   */
  public static void seed() {
    Native.check(ctorch.ct_cuda_seed());
  }

  /**
   * {@code torch.cuda.seed_all()}: seeds every CUDA device's default generator with one
   * non-deterministic seed. Without CUDA it does nothing.
   */
  public static void seedAll() {
    Native.check(ctorch.ct_cuda_seed_all());
  }

  /**
   * {@code torch.cuda.initial_seed()}: the seed of the current device's default generator (its
   * 64 bits as a {@code long}). Code 301 without CUDA.
   */
  public static long initialSeed() {
    long[] out = {0};
    Native.check(ctorch.ct_cuda_initial_seed(out));
    return out[0];
  }

  /** {@code torch.cuda.get_rng_state()}: the current device's default generator's state. */
  public static byte[] getRngState() {
    return getRngState(-1);
  }

  /**
   * {@code torch.cuda.get_rng_state(device)} (-1: the current device): the
   * {@link Generator#STATE_SIZE} bytes of that device's default generator (seed, then Philox
   * offset, little-endian). A new array. Code 301 without CUDA, 105 for a device that is not
   * visible.
   */
  public static byte[] getRngState(int device) {
    ByteBuffer buf = Native.hostBuffer(Generator.STATE_SIZE);
    long[] needed = {0};
    Native.check(ctorch.ct_cuda_get_rng_state(device, buf, Generator.STATE_SIZE, needed));
    byte[] state = new byte[Generator.STATE_SIZE];
    buf.get(0, state);
    return state;
  }

  /** {@code torch.cuda.set_rng_state(state)} on the current device. */
  public static void setRngState(byte[] state) {
    setRngState(state, -1);
  }

  /**
   * {@code torch.cuda.set_rng_state(state, device)} (-1: the current device): the state of
   * {@link #getRngState(int)} (or of any {@link Generator#getState()}). Code 100
   * (CT_ERR_ARGUMENT, state unchanged) for a length other than {@link Generator#STATE_SIZE} or
   * a bad offset, 301 without CUDA, 105 for a device that is not visible. A null state throws
   * {@link NullPointerException}.
   */
  public static void setRngState(byte[] state, int device) {
    Objects.requireNonNull(state, "state");
    ByteBuffer buf = Native.hostBuffer(state.length);
    buf.put(0, state);
    Native.check(ctorch.ct_cuda_set_rng_state(buf, state.length, device));
  }

  /**
   * {@code torch.cuda.get_rng_state_all()}: the state of every device's default generator,
   * one array per device in device order. Unmodifiable; empty without CUDA.
   */
  public static List<byte[]> getRngStateAll() {
    long[] needed = {0};
    int st = ctorch.ct_cuda_get_rng_state_all(null, 0, needed);
    if (st == Native.CT_OK) {
      return List.of(); // no device: nothing to read
    }
    if (st != Native.CT_ERR_BUFFER_SIZE) {
      throw Native.lastError(st);
    }
    ByteBuffer buf = Native.hostBuffer(needed[0]);
    long cap = buf.limit();
    Native.check(ctorch.ct_cuda_get_rng_state_all(buf, cap, needed));
    int n = (int) (cap / Generator.STATE_SIZE);
    List<byte[]> states = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      byte[] state = new byte[Generator.STATE_SIZE];
      buf.get(i * Generator.STATE_SIZE, state);
      states.add(state);
    }
    return Collections.unmodifiableList(states);
  }

  /**
   * {@code torch.cuda.set_rng_state_all(states)}: one state per visible device, in device
   * order, as {@link #getRngStateAll()} gives them. Every state is checked before any is set;
   * code 100 (CT_ERR_ARGUMENT, nothing changed) for a state that is not
   * {@link Generator#STATE_SIZE} bytes, a bad offset, or a number of states other than
   * {@link #deviceCount()} (so without CUDA only the empty list is accepted). Null throws
   * {@link NullPointerException}.
   */
  public static void setRngStateAll(List<byte[]> states) {
    Objects.requireNonNull(states, "states");
    int n = states.size();
    for (int i = 0; i < n; i++) {
      byte[] state = Objects.requireNonNull(states.get(i), "states[" + i + "]");
      if (state.length != Generator.STATE_SIZE) {
        throw new CtorchException(CtorchException.ARGUMENT,
            CtorchException.statusName(CtorchException.ARGUMENT),
            "setRngStateAll: states[" + i + "] is " + state.length + " bytes, expected "
                + Generator.STATE_SIZE + " (seed and Philox offset, as torch.cuda.get_rng_state)");
      }
    }
    long len = (long) n * Generator.STATE_SIZE;
    ByteBuffer buf = n == 0 ? null : Native.hostBuffer(len);
    for (int i = 0; i < n; i++) {
      buf.put(i * Generator.STATE_SIZE, states.get(i));
    }
    Native.check(ctorch.ct_cuda_set_rng_state_all(buf, len));
  }

  /* ============================================================================================
   * The build (no GPU needed)
   * ========================================================================================== */

  /**
   * {@code torch.cuda.get_arch_list()}: the architectures this library was built for, e.g.
   * {@code [sm_80, sm_90, compute_90]}. Works without a GPU. Unmodifiable.
   */
  public static List<String> archList() {
    String s = archListString();
    return s.isBlank() ? List.of() : List.of(s.trim().split("\\s+"));
  }

  /** The arch list as the C library gives it, space separated ("sm_80 sm_90 compute_90"). */
  public static String archListString() {
    return Native.string(ctorch::ct_cuda_get_arch_list);
  }

  /** {@code torch.cuda.get_gencode_flags()}: the nvcc {@code -gencode} flags of this build. */
  public static String gencodeFlags() {
    return Native.string(ctorch::ct_cuda_get_gencode_flags);
  }

  /* ============================================================================================
   * Sync debug mode (process-wide; no GPU needed)
   * ========================================================================================== */

  /** {@code torch.cuda.set_sync_debug_mode} values. */
  public enum SyncDebugMode {
    /** 0, "default": synchronizing operations are silent. */
    DEFAULT(0),
    /** 1, "warn": a warning on stderr for each synchronizing operation. */
    WARN(1),
    /** 2, "error": a synchronizing operation fails with code 200 (CT_ERR_STATE). */
    ERROR(2);

    private final int code;

    SyncDebugMode(int code) {
      this.code = code;
    }

    /** The C ABI's (and torch's integer) value. */
    public int code() {
      return code;
    }

    /** The mode of a value 0, 1 or 2 ({@link IllegalArgumentException} otherwise). */
    public static SyncDebugMode fromCode(int code) {
      for (SyncDebugMode m : values()) {
        if (m.code == code) {
          return m;
        }
      }
      throw new IllegalArgumentException("unknown sync debug mode " + code);
    }

    /** torch's name: "default", "warn" or "error". */
    @Override
    public String toString() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * {@code torch.cuda.set_sync_debug_mode(mode)}: whether operations that make the host wait
   * for the GPU (item, copies to the host, synchronize...) are silent, warn or fail.
   */
  public static void setSyncDebugMode(SyncDebugMode mode) {
    Objects.requireNonNull(mode, "mode");
    setSyncDebugMode(mode.code());
  }

  /** {@code torch.cuda.set_sync_debug_mode(0|1|2)}; other values give code 100. */
  public static void setSyncDebugMode(int mode) {
    Native.check(ctorch.ct_cuda_set_sync_debug_mode(mode));
  }

  /**
   * {@code torch.cuda.set_sync_debug_mode("default"|"warn"|"error")}; another string throws
   * {@link IllegalArgumentException} (torch: "invalid value of debug_mode").
   */
  public static void setSyncDebugMode(String mode) {
    Objects.requireNonNull(mode, "mode");
    for (SyncDebugMode m : SyncDebugMode.values()) {
      if (m.toString().equals(mode)) {
        setSyncDebugMode(m);
        return;
      }
    }
    throw new IllegalArgumentException(
        "invalid value of debug_mode, expected one of `default`, `warn`, `error`: " + mode);
  }

  /** {@code torch.cuda.get_sync_debug_mode()}. */
  public static SyncDebugMode getSyncDebugMode() {
    int[] out = {0};
    Native.check(ctorch.ct_cuda_get_sync_debug_mode(out));
    return SyncDebugMode.fromCode(out[0]);
  }

  /* ============================================================================================
   * Matrix products: torch.backends.cuda.matmul's switches (process-wide; no GPU needed) and
   * torch.cuda.current_blas_handle
   * ========================================================================================== */

  /**
   * {@code torch.backends.cuda.matmul.allow_tf32 = on}: whether float32 matrix products on
   * CUDA devices ({@link Tensor#mm}, {@link Tensor#matmul}, ...) may use TF32 tensor cores
   * (inputs rounded to 10 mantissa bits: faster, less precise). Process-wide,
   * for every thread and device; CPU products are unaffected. Works without a GPU.
   */
  public static void setAllowTf32(boolean on) {
    Native.check(ctorch.ct_set_allow_tf32(on ? 1 : 0));
  }

  /**
   * {@code torch.backends.cuda.matmul.allow_tf32}: false by default (float32 products in full
   * float32, as PyTorch since 1.12).
   */
  public static boolean getAllowTf32() {
    int[] out = {0};
    Native.check(ctorch.ct_get_allow_tf32(out));
    return out[0] != 0;
  }

  /**
   * {@code torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = on}: whether
   * float16 matrix products on CUDA devices may accumulate partial sums in reduced precision.
   * Process-wide; works without a GPU.
   */
  public static void setAllowFp16ReducedPrecisionReduction(boolean on) {
    Native.check(ctorch.ct_set_allow_fp16_reduced_precision_reduction(on ? 1 : 0));
  }

  /**
   * {@code torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction}: true by
   * default, as in PyTorch.
   */
  public static boolean getAllowFp16ReducedPrecisionReduction() {
    int[] out = {0};
    Native.check(ctorch.ct_get_allow_fp16_reduced_precision_reduction(out));
    return out[0] != 0;
  }

  /**
   * {@code torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = on}: the same
   * for bfloat16 products. Process-wide; works without a GPU.
   */
  public static void setAllowBf16ReducedPrecisionReduction(boolean on) {
    Native.check(ctorch.ct_set_allow_bf16_reduced_precision_reduction(on ? 1 : 0));
  }

  /**
   * {@code torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction}: true by
   * default, as in PyTorch.
   */
  public static boolean getAllowBf16ReducedPrecisionReduction() {
    int[] out = {0};
    Native.check(ctorch.ct_get_allow_bf16_reduced_precision_reduction(out));
    return out[0] != 0;
  }

  /**
   * {@code torch.cuda.current_blas_handle()}: the calling thread's cuBLAS handle for the
   * current device (created on first use and bound to the current stream), as the bits of a
   * {@code cublasHandle_t} in a {@code long}, for handing to other native libraries; Java never
   * dereferences it. The same value on every call from one thread for one device. ctorch owns
   * the handle and it belongs to the calling thread (ctorch destroys it when the thread ends):
   * do not destroy it or hand it to another thread. Code 301 without CUDA; code 500
   * (CT_ERR_NOT_SUPPORTED) when cuBLAS cannot be loaded.
   */
  public static long currentBlasHandle() {
    long[] out = {0};
    Native.check(ctorch.ct_cuda_current_blas_handle(out));
    return out[0];
  }

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
      long[] out = {0};
      Native.check(ctorch.ct_cufft_plan_cache_max_size(device, out));
      return out[0];
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
      long[] out = {0};
      Native.check(ctorch.ct_cufft_plan_cache_size(device, out));
      return out[0];
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
      long[] out = {0};
      Native.check(ctorch.ct_cufft_plan_cache_max_bytes(device, out));
      return out[0];
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
      long[] out = {0};
      Native.check(ctorch.ct_cufft_plan_cache_bytes(device, out));
      return out[0];
    }

    /**
     * Lookups since the process started that found a cached plan (PyTorch has no such counter;
     * with {@link #misses()} it makes the cache's behaviour observable).
     */
    public long hits() {
      long[] out = {0};
      Native.check(ctorch.ct_cufft_plan_cache_hits(device, out));
      return out[0];
    }

    /** Lookups since the process started that made a new plan (every CUDA FFT when max_size is 0). */
    public long misses() {
      long[] out = {0};
      Native.check(ctorch.ct_cufft_plan_cache_misses(device, out));
      return out[0];
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

  /* ============================================================================================
   * torch.cuda's stream functions (the same as Stream's static methods) and the stream guard
   * ========================================================================================== */

  /** {@code torch.cuda.current_stream()}; see {@link Stream#currentStream()}. */
  public static Stream currentStream() {
    return Stream.currentStream(-1);
  }

  /** {@code torch.cuda.current_stream(device)}; see {@link Stream#currentStream(int)}. */
  public static Stream currentStream(int device) {
    return Stream.currentStream(device);
  }

  /** {@code torch.cuda.default_stream()}; see {@link Stream#defaultStream()}. */
  public static Stream defaultStream() {
    return Stream.defaultStream(-1);
  }

  /** {@code torch.cuda.default_stream(device)}; see {@link Stream#defaultStream(int)}. */
  public static Stream defaultStream(int device) {
    return Stream.defaultStream(device);
  }

  /** {@code torch.cuda.set_stream(s)}; see {@link Stream#setCurrent(Stream)}. */
  public static void setStream(Stream s) {
    Stream.setCurrent(s);
  }

  /**
   * The guard of {@code with torch.cuda.stream(s):}: s's device and s (as its current stream)
   * were made current when the guard was created; {@link #close()} restores the previous
   * current stream of that device and the previous device. Use with try-with-resources, on
   * one thread:
   *
   * <pre>{@code
   * try (Stream s = Stream.create(); Cuda.StreamGuard g = Cuda.stream(s)) {
   *   y = x.mul(2);                   // queued on s
   * }                                 // the previous stream and device are current again
   * }</pre>
   *
   * The guard holds a reference to the previous stream (ct_stream_guard_enter's
   * {@code prev_stream}); closing the guard gives it back. A guard never closed cannot restore
   * anything (the collector's thread is not the guard's thread), but its reference is still
   * released by the {@link Cleaner} once the guard is unreachable.
   */
  public static final class StreamGuard implements AutoCloseable {
    private final NativeHandle previous; // null: the no-op guard of stream(null)
    private final Cleaner.Cleanable cleanable;
    private final int previousDevice;
    private final Thread owner = Thread.currentThread();

    private StreamGuard(long previousStream, int previousDevice) {
      if (previousStream == 0) {
        this.previous = null;
        this.cleanable = null;
      } else {
        this.previous = new NativeHandle(previousStream, ctorch::ct_stream_release);
        this.cleanable = NativeHandle.CLEANER.register(this, previous);
      }
      this.previousDevice = previousDevice;
    }

    /** The device current before the guard, which {@link #close()} restores (-1: none). */
    public int previousDevice() {
      return previousDevice;
    }

    /** True once closed (always true for the no-op guard of {@code stream(null)}). */
    public boolean isClosed() {
      return previous == null || previous.get() == 0;
    }

    /**
     * Restores the previous current stream and device (ct_stream_guard_exit). Idempotent.
     * Must run on the thread that made the guard ({@link IllegalStateException} otherwise).
     * When the restore fails (a {@link CtorchException}), the previous stream's reference is
     * still given back.
     */
    @Override
    public void close() {
      if (isClosed()) {
        return;
      }
      if (Thread.currentThread() != owner) {
        throw new IllegalStateException("a Cuda.StreamGuard must be closed on the thread that made it");
      }
      long h = previous.take();
      cleanable.clean(); // the handle is taken: this only unregisters
      if (h == 0) {
        return;
      }
      int st = ctorch.ct_stream_guard_exit(h, previousDevice);
      if (st != Native.CT_OK) {
        CtorchException e = Native.lastError(st); // read before the release below
        ctorch.ct_stream_release(h); // guard_exit releases only on success
        throw e;
      }
    }
  }

  /**
   * {@code with torch.cuda.stream(s):} makes s's device current and s its current stream
   * until the guard is closed. {@code stream(null)} is a guard that does nothing, as torch's
   * {@code stream(None)}. When the guard cannot be made (a closed stream: code 102), nothing
   * changes and nothing is left behind.
   */
  public static StreamGuard stream(Stream s) {
    if (s == null) {
      return new StreamGuard(0, -1);
    }
    long[] prev = {0};
    int[] prevDevice = {-1};
    try {
      Native.check(ctorch.ct_stream_guard_enter(s.handle(), prev, prevDevice));
    } finally {
      Reference.reachabilityFence(s);
    }
    try {
      return new StreamGuard(prev[0], prevDevice[0]);
    } catch (Throwable e) {
      ctorch.ct_stream_guard_exit(prev[0], prevDevice[0]);
      throw e;
    }
  }
}
