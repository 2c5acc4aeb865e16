package org.ctorch;

import org.ctorch.swig.ctorch;

/**
 * Element types, with PyTorch's names: {@code DType.FLOAT32} is {@code torch.float32}.
 * {@link #toString()} prints as torch does ({@code "torch.float32"}); the codes are PyTorch's
 * {@code c10::ScalarType} numbers, as in {@code ctorch.h}.
 */
public enum DType {
  UINT8(0, "uint8"),
  INT8(1, "int8"),
  INT16(2, "int16"),
  INT32(3, "int32"),
  INT64(4, "int64"),
  FLOAT16(5, "float16"),
  FLOAT32(6, "float32"),
  FLOAT64(7, "float64"),
  COMPLEX64(9, "complex64"),
  COMPLEX128(10, "complex128"),
  BOOL(11, "bool"),
  BFLOAT16(15, "bfloat16");

  static {
    Native.ensureLoaded();
  }

  /** torch.half */
  public static final DType HALF = FLOAT16;
  /** torch.float */
  public static final DType FLOAT = FLOAT32;
  /** torch.double */
  public static final DType DOUBLE = FLOAT64;
  /** torch.short */
  public static final DType SHORT = INT16;
  /** torch.int */
  public static final DType INT = INT32;
  /** torch.long */
  public static final DType LONG = INT64;
  /** torch.cfloat */
  public static final DType CFLOAT = COMPLEX64;
  /** torch.cdouble */
  public static final DType CDOUBLE = COMPLEX128;

  private final int code;
  private final String shortName;
  private volatile String torchName;
  private volatile long itemSize = -1;

  DType(int code, String shortName) {
    this.code = code;
    this.shortName = shortName;
  }

  /** The C ABI's number (PyTorch's ScalarType number), e.g. 6 for float32. */
  public int code() {
    return code;
  }

  /** The name without the "torch." prefix, e.g. {@code "float32"}. */
  public String shortName() {
    return shortName;
  }

  /** Bytes per element ({@code torch.float32.itemsize == 4}). */
  public int itemSize() {
    long n = itemSize;
    if (n < 0) {
      long[] out = {0};
      Native.check(ctorch.ct_dtype_itemsize(code, out));
      itemSize = n = out[0];
    }
    return (int) n;
  }

  /** True for float16, bfloat16, float32, float64 ({@code dtype.is_floating_point}). */
  public boolean isFloatingPoint() {
    return this == FLOAT16 || this == BFLOAT16 || this == FLOAT32 || this == FLOAT64;
  }

  /** True for complex64 and complex128 ({@code dtype.is_complex}). */
  public boolean isComplex() {
    return this == COMPLEX64 || this == COMPLEX128;
  }

  /** True for bool and the integer types. */
  public boolean isIntegral(boolean includeBool) {
    return this == UINT8 || this == INT8 || this == INT16 || this == INT32 || this == INT64
        || (includeBool && this == BOOL);
  }

  /** {@code torch.promote_types(this, other)}. */
  public DType promoteTypes(DType other) {
    int[] out = {0};
    Native.check(ctorch.ct_promote_types(code, other.code, out));
    return fromCode(out[0]);
  }

  /** {@code torch.promote_types(a, b)}. */
  public static DType promoteTypes(DType a, DType b) {
    return a.promoteTypes(b);
  }

  /** The dtype of a C ABI number; IllegalArgumentException for an unknown one. */
  public static DType fromCode(int code) {
    for (DType d : values()) {
      if (d.code == code) {
        return d;
      }
    }
    throw new IllegalArgumentException("unknown ct_dtype " + code);
  }

  /**
   * The dtype of a PyTorch name: "torch.float32", "float32", or an alias such as "float",
   * "double", "half", "long", "int", "short", "cfloat", "cdouble".
   */
  public static DType fromName(String name) {
    String n = name.startsWith("torch.") ? name.substring(6) : name;
    for (DType d : values()) {
      if (d.shortName.equals(n)) {
        return d;
      }
    }
    switch (n) {
      case "half": return HALF;
      case "float": return FLOAT;
      case "double": return DOUBLE;
      case "short": return SHORT;
      case "int": return INT;
      case "long": return LONG;
      case "cfloat": return CFLOAT;
      case "cdouble": return CDOUBLE;
      default: throw new IllegalArgumentException("unknown dtype name '" + name + "'");
    }
  }

  /** As torch prints it, e.g. {@code "torch.float32"} (from {@code ct_dtype_name}). */
  @Override
  public String toString() {
    String s = torchName;
    if (s == null) {
      torchName = s = Native.string((buf, cap, needed) ->
          ctorch.ct_dtype_name(code, buf, cap, needed));
    }
    return s;
  }
}
