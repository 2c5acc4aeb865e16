package org.ctorch;

/**
 * A failed ctorch call: every non-zero {@code ct_status} of the C library becomes one of these
 * (PyTorch's {@code RuntimeError}). It is unchecked, as PyTorch's errors are exceptions a
 * caller may, but need not, handle; see docs/java.md, "Errors".
 *
 * <p>{@link #code()} is the C status code (grouped by range: 1xx argument, 2xx state, 3xx
 * device, 4xx memory, 5xx not supported, 9xx internal), {@link #statusName()} its name as
 * {@code ct_status_name} gives it (e.g. {@code "CT_ERR_SHAPE"}), and {@link #detail()} the
 * library's message, read on the failing thread right after the failing call.
 */
public class CtorchException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** CT_ERR_ARGUMENT: the caller passed something invalid. */
  public static final int ARGUMENT = 100;
  /** CT_ERR_NULL_POINTER: a required pointer argument was NULL. */
  public static final int NULL_POINTER = 101;
  /** CT_ERR_INVALID_HANDLE: a NULL, released or foreign handle, or a closed {@link Tensor}. */
  public static final int INVALID_HANDLE = 102;
  /** CT_ERR_SHAPE: sizes do not match, cannot broadcast, or a bad view. */
  public static final int SHAPE = 103;
  /** CT_ERR_DTYPE: dtype not allowed for this operation, or a cast not allowed. */
  public static final int DTYPE = 104;
  /** CT_ERR_INDEX: dim or index out of range. */
  public static final int INDEX = 105;
  /** CT_ERR_BUFFER_SIZE: host buffer too small or of the wrong size. */
  public static final int BUFFER_SIZE = 106;
  /** CT_ERR_DEVICE_STRING: a device string that does not parse. */
  public static final int DEVICE_STRING = 107;
  /** CT_ERR_STATE: a valid call in a state that does not allow it. */
  public static final int STATE = 200;
  /** CT_ERR_DEVICE: inputs on different devices, or the wrong device for the op. */
  public static final int DEVICE = 300;
  /** CT_ERR_CUDA_UNAVAILABLE: no GPU, no driver, or CUDA could not start. */
  public static final int CUDA_UNAVAILABLE = 301;
  /** CT_ERR_CUDA: an error reported by the CUDA runtime. */
  public static final int CUDA = 302;
  /** CT_ERR_OUT_OF_MEMORY: host or device allocation failed. */
  public static final int OUT_OF_MEMORY = 400;
  /** CT_ERR_NOT_SUPPORTED: not supported for this dtype/device, or not yet. */
  public static final int NOT_SUPPORTED = 500;
  /** CT_ERR_INTERNAL: a bug in ctorch. */
  public static final int INTERNAL = 900;

  private final int code;
  private final String statusName;
  private final String detail;

  CtorchException(int code, String statusName, String detail) {
    super(statusName + " (" + code + "): " + detail);
    this.code = code;
    this.statusName = statusName;
    this.detail = detail;
  }

  /** The C status code, e.g. 103 for CT_ERR_SHAPE. */
  public int code() {
    return code;
  }

  /** The status code's name as the C library gives it, e.g. {@code "CT_ERR_SHAPE"}. */
  public String statusName() {
    return statusName;
  }

  /** The C library's message alone ({@link #getMessage()} prefixes the status name and code). */
  public String detail() {
    return detail;
  }

  /** The name of any status code, from {@code ct_status_name} ("CT_UNKNOWN" if unknown). */
  public static String statusName(int code) {
    Native.ensureLoaded();
    return org.ctorch.swig.ctorch.ct_status_name(code);
  }
}
