package org.ctorch;

/**
 * Host or device memory ran out (CT_ERR_OUT_OF_MEMORY, code 400): PyTorch's
 * {@code torch.OutOfMemoryError}. Catch it to free memory and retry; other failures stay
 * {@link CtorchException}s.
 */
public class CtorchOutOfMemoryException extends CtorchException {
  private static final long serialVersionUID = 1L;

  CtorchOutOfMemoryException(String statusName, String detail) {
    super(OUT_OF_MEMORY, statusName, detail);
  }
}
