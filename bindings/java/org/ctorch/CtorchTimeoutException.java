package org.ctorch;

/**
 * A wait ran past its timeout (CT_ERR_TIMEOUT, code 201): an {@link NcclComm} whose peers never
 * joined ({@link NcclComm#initRank}), whose collective did not finish in time (the watchdog then
 * aborted the communicator), or an {@link NcclComm#await(java.time.Duration)} that ran out. The
 * communicator cannot be used any more; close it. Catch this subclass to tell a dead or slow
 * peer from other failures (torch.distributed raises its {@code DistBackendError} for these).
 */
public class CtorchTimeoutException extends CtorchException {
  private static final long serialVersionUID = 1L;

  CtorchTimeoutException(String statusName, String detail) {
    super(TIMEOUT, statusName, detail);
  }
}
