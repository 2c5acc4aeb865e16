package org.ctorch;

import org.ctorch.swig.ctorch;

/**
 * Library-wide functions of the {@code torch} namespace that are not about one tensor:
 * version, CPU threads, the seeds of the default random number generators, leak checking
 * (tensors, streams, events) and the C library's error state. Tensor factories and
 * operations are on {@link Tensor}; generators are {@link Generator}.
 */
public final class Torch {
  static {
    Native.ensureLoaded();
  }

  private Torch() {}

  /** A library version, major.minor.patch. */
  public record Version(int major, int minor, int patch) {
    @Override
    public String toString() {
      return major + "." + minor + "." + patch;
    }
  }

  /** The version of the loaded libctorch.so ({@code ct_version}). */
  public static Version version() {
    int[] major = {0};
    int[] minor = {0};
    int[] patch = {0};
    Native.check(ctorch.ct_version(major, minor, patch));
    return new Version(major[0], minor[0], patch[0]);
  }

  /** {@code torch.get_num_threads()}: threads CPU kernels use for large tensors. */
  public static int getNumThreads() {
    return Native.intOut(ctorch::ct_get_num_threads);
  }

  /** {@code torch.set_num_threads(n)}; {@code 1 <= n <= 4096} (else CT_ERR_ARGUMENT; ctorch.h says why). */
  public static void setNumThreads(int n) {
    Native.check(ctorch.ct_set_num_threads(n));
  }

  /**
   * {@code torch.manual_seed(seed)}: seeds the default generator of the CPU and of every CUDA
   * device (their offsets start again at 0), so the ops that are given no {@link Generator}
   * repeat their values. Any 64 bits: a negative seed stands for the same bits, as
   * {@code torch.manual_seed(-1)}. (torch returns the CPU's default generator; get it with
   * {@link Generator#defaultGenerator()}.)
   */
  public static void manualSeed(long seed) {
    Native.check(ctorch.ct_manual_seed(seed));
  }

  /**
   * {@code torch.seed()}: seeds the default generator of the CPU and of every CUDA device with
   * one non-deterministic seed, and returns it (its 64 bits as a {@code long}).
   */
  public static long seed() {
    return Native.longOut(ctorch::ct_seed);
  }

  /**
   * {@code torch.initial_seed()}: the seed of the CPU's default generator (its 64 bits as a
   * {@code long}; {@link Generator#DEFAULT_SEED} until seeded).
   */
  public static long initialSeed() {
    return Native.longOut(ctorch::ct_initial_seed);
  }

  /**
   * Number of live tensor handles in this process, for leak checks. Every open {@link Tensor}
   * holds one; closing it (or the garbage collector's clean-up) gives it back.
   */
  public static long liveTensorCount() {
    return Native.longOut(ctorch::ct_live_tensor_count);
  }

  /**
   * Number of live stream handles, for leak checks: every open {@link Stream} holds one, and
   * so does every open {@link Cuda.StreamGuard} (the stream it restores).
   */
  public static long liveStreamCount() {
    return Native.longOut(ctorch::ct_live_stream_count);
  }

  /** Number of live generator handles, for leak checks: every open {@link Generator} holds one. */
  public static long liveGeneratorCount() {
    return Native.longOut(ctorch::ct_live_generator_count);
  }

  /** Number of live event handles, for leak checks: every open {@link Event} holds one. */
  public static long liveEventCount() {
    return Native.longOut(ctorch::ct_live_event_count);
  }

  /**
   * Number of live CUDA graph handles, for leak checks: every open {@link CudaGraph} holds one,
   * and so does every open {@link CudaGraph.CaptureScope} (the graph it captures into).
   */
  public static long liveCudaGraphCount() {
    return Native.longOut(ctorch::ct_live_cuda_graph_count);
  }

  /** Number of live graphed-callable handles, for leak checks: every open {@link GraphedCallable} holds one. */
  public static long liveGraphedCallableCount() {
    return Native.longOut(ctorch::ct_live_cuda_graphed_count);
  }

  /**
   * Number of live NCCL communicator handles, for leak checks: every open {@link NcclComm}
   * holds one. Works without a GPU.
   */
  public static long liveNcclCommCount() {
    return Native.longOut(ctorch::ct_live_nccl_comm_count);
  }

  /**
   * Number of live jitted-function handles, for leak checks: every open {@link JitFunction}
   * holds one. Works without a GPU.
   */
  public static long liveJitFunctionCount() {
    return Native.longOut(ctorch::ct_live_cuda_jit_count);
  }

  /** {@code torch.promote_types(a, b)}. */
  public static DType promoteTypes(DType a, DType b) {
    return DType.promoteTypes(a, b);
  }

  /**
   * The status code of this thread's last failed ctorch call (0 if none). Exceptions already
   * carry it; this is for code that wants the C library's raw state.
   */
  public static int lastErrorCode() {
    return ctorch.ct_last_error_code();
  }

  /** The message of this thread's last failed ctorch call ("" if none). */
  public static String lastErrorMessage() {
    return ctorch.ct_last_error_message();
  }

  /** Clears this thread's last error (code 0, message ""). */
  public static void clearError() {
    ctorch.ct_clear_error();
  }
}
