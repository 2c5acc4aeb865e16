package org.ctorch;

/**
 * NCCL or a peer reported an error (CT_ERR_COMM, code 303): a peer that died, a network error,
 * an id that names no communicator. The {@link NcclComm} it came from cannot be used any more
 * (every later call fails the same way); close it and, to go on, make a new one. A timeout is a
 * {@link CtorchTimeoutException} instead.
 */
public class CtorchCommException extends CtorchException {
  private static final long serialVersionUID = 1L;

  CtorchCommException(String statusName, String detail) {
    super(COMM, statusName, detail);
  }
}
