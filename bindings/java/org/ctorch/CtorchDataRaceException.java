package org.ctorch;

/**
 * The stream sanitizer found a race (CT_ERR_DATA_RACE, code 202): in {@link CudaSanitizer.Mode#ERROR}
 * the op whose kernel reads or writes a tensor's memory while a kernel on another stream may still
 * be writing it (or, for a write, reading it), with no synchronization in between, throws this
 * after its kernel was queued (as PyTorch's CSAN raises after the launch). {@link #detail()} holds
 * every report: both accesses' ops, streams, argument names and tensors. Synchronize (an event,
 * {@link Stream#waitStream}, a host wait) and go on: the next call works.
 */
public class CtorchDataRaceException extends CtorchException {
  private static final long serialVersionUID = 1L;

  CtorchDataRaceException(String statusName, String detail) {
    super(DATA_RACE, statusName, detail);
  }
}
