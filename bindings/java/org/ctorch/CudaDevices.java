package org.ctorch;

import java.lang.ref.Reference;
import java.util.Objects;

import org.ctorch.swig.ctorch;

/**
 * {@link Cuda}'s devices: availability, count, properties, the current device and its guard,
 * synchronization, free memory and peer access.
 */
abstract class CudaDevices extends CudaAbi {
  static {
    Native.ensureLoaded();
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
    return Native.intOut(ctorch::ct_cuda_is_available) != 0;
  }

  /** {@code torch.cuda.device_count()}: visible devices (0 without GPU or driver). */
  public static int deviceCount() {
    return Native.intOut(ctorch::ct_cuda_device_count);
  }

  /**
   * Returns when CUDA can be used; otherwise throws a {@link CtorchException} with code 301
   * (CT_ERR_CUDA_UNAVAILABLE) and the reason the CUDA runtime gave.
   */
  public static void checkAvailable() {
    Native.check(ctorch.ct_cuda_check_available());
  }

  /**
   * {@code torch.cuda.init()}: initializes CUDA; idempotent. Throws code 301
   * (CT_ERR_CUDA_UNAVAILABLE) with the reason when there is no GPU or driver.
   */
  public static void init() {
    Native.check(ctorch.ct_cuda_init());
  }

  /**
   * {@code torch.cuda.is_initialized()}: true once a call needed a GPU and reached one
   * ({@link #init()}, {@link #currentDevice()}, a CUDA tensor ...); {@link #isAvailable()} and
   * {@link #deviceCount()} do not initialize. Never initializes.
   */
  public static boolean isInitialized() {
    return Native.intOut(ctorch::ct_cuda_is_initialized) != 0;
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
    Objects.requireNonNull(prop, "prop");
    return Native.longOut(out -> ctorch.ct_cuda_get_device_property(device, prop.code(), out));
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
    return Native.intOut(ctorch::ct_cuda_current_device);
  }

  /**
   * {@code torch.cuda.set_device(device)}: makes device this thread's current CUDA device
   * (code 105, CT_ERR_INDEX, for a device that is not visible). Prefer {@link Cuda#device(int)},
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
      Native.checkClosingThread(owner, "a Cuda.DeviceGuard", "made");
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
    return Native.intOut(
        out -> ctorch.ct_cuda_can_device_access_peer(device, peer, out)) != 0;
  }
}
