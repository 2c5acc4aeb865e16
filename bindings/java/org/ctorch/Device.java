package org.ctorch;

import java.util.Objects;

import org.ctorch.swig.ctorch;

/**
 * A device, as {@code torch.device}: a type and an optional index. {@code Device.parse("cuda:1")}
 * parses exactly as {@code torch.device("cuda:1")}; {@link #toString()} prints as torch does
 * ({@code "cpu"}, {@code "cuda"}, {@code "cuda:1"}). Immutable; equal when type and index are.
 *
 * <p>Index -1 means "no index": for CUDA the current CUDA device, for CPU the only CPU. As in
 * PyTorch, {@code cuda} and {@code cuda:0} are different devices (the first follows the current
 * device), although a tensor created on {@code cuda} reports a concrete index.
 */
public final class Device {
  static {
    Native.ensureLoaded();
  }

  /** {@code torch.device("cpu")}. */
  public static final Device CPU = new Device(DeviceType.CPU, -1);
  /** {@code torch.device("cuda")}: the current CUDA device. */
  public static final Device CUDA = new Device(DeviceType.CUDA, -1);

  private final DeviceType type;
  private final int index;
  private volatile String text;

  private Device(DeviceType type, int index) {
    this.type = type;
    this.index = index;
  }

  /** A C function that writes a device as (ct_device_type, index) out-parameters. */
  @FunctionalInterface
  interface OutCall {
    int call(int[] type, int[] index);
  }

  /** Runs {@code call} (keeping {@code keep} reachable) and returns the device it wrote. */
  static Device out(Object keep, OutCall call) {
    int[] type = {0};
    int[] index = {0};
    try {
      Native.check(call.call(type, index));
    } finally {
      java.lang.ref.Reference.reachabilityFence(keep);
    }
    return of(DeviceType.fromCode(type[0]), index[0]);
  }

  /**
   * {@code torch.device(type, index)}; index -1 for none. Fails with CT_ERR_ARGUMENT for an
   * index below -1 (or a CPU index other than -1 and 0) when the device is printed or used.
   */
  public static Device of(DeviceType type, int index) {
    Objects.requireNonNull(type, "type");
    if (index == -1) {
      return type == DeviceType.CPU ? CPU : CUDA;
    }
    return new Device(type, index);
  }

  /** {@code torch.device("cuda", index)}. */
  public static Device cuda(int index) {
    return of(DeviceType.CUDA, index);
  }

  /**
   * Parses "cpu", "cpu:0", "cuda", "cuda:N" exactly as torch.device does. Anything else
   * ("gpu", "cuda:x", "cuda:-1", ...) throws a {@link CtorchException} with code 107
   * (CT_ERR_DEVICE_STRING).
   */
  public static Device parse(String spec) {
    Objects.requireNonNull(spec, "spec");
    return out(null, (type, index) -> ctorch.ct_device_parse(spec, type, index));
  }

  /** {@code device.type}. */
  public DeviceType type() {
    return type;
  }

  /** {@code device.index}; -1 when the device has none. */
  public int index() {
    return index;
  }

  /** True when the device has an index ({@code device.index is not None}). */
  public boolean hasIndex() {
    return index >= 0;
  }

  public boolean isCpu() {
    return type == DeviceType.CPU;
  }

  public boolean isCuda() {
    return type == DeviceType.CUDA;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof Device)) {
      return false;
    }
    Device d = (Device) o;
    return type == d.type && index == d.index;
  }

  @Override
  public int hashCode() {
    return 31 * type.hashCode() + index;
  }

  /** As torch prints it: "cpu", "cuda", "cuda:1" (from {@code ct_device_format}). */
  @Override
  public String toString() {
    String s = text;
    if (s == null) {
      text = s = Native.string((buf, cap, needed) ->
          ctorch.ct_device_format(type.code(), index, buf, cap, needed));
    }
    return s;
  }
}
