package org.ctorch;

/** The kind of a {@link Device}: {@code torch.device(...).type}. */
public enum DeviceType {
  CPU(0, "cpu"),
  CUDA(1, "cuda");

  private final int code;
  private final String typeName;

  DeviceType(int code, String typeName) {
    this.code = code;
    this.typeName = typeName;
  }

  /** The C ABI's number (CT_CPU = 0, CT_CUDA = 1). */
  public int code() {
    return code;
  }

  /** The C ABI number's type; IllegalArgumentException for an unknown one. */
  public static DeviceType fromCode(int code) {
    for (DeviceType t : values()) {
      if (t.code == code) {
        return t;
      }
    }
    throw new IllegalArgumentException("unknown ct_device_type " + code);
  }

  /** {@code "cpu"} or {@code "cuda"}, as {@code torch.device(...).type}. */
  @Override
  public String toString() {
    return typeName;
  }
}
