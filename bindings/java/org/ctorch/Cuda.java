package org.ctorch;

import org.ctorch.swig.ctorch;

/**
 * {@code torch.cuda}: device enumeration and properties. On a machine without a GPU or driver
 * {@link #isAvailable()} is false, {@link #deviceCount()} is 0, and everything that needs a
 * GPU throws a {@link CtorchException} with code 301 (CT_ERR_CUDA_UNAVAILABLE) saying why.
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
}
