package org.ctorch;

import java.util.List;
import java.util.Objects;

import org.ctorch.swig.ctorch;

/**
 * {@link Cuda}'s process-wide settings: the build's architectures, the sync debug mode, the
 * switches of torch.backends.cuda.matmul and the cuBLAS handle.
 */
abstract class CudaBackends extends CudaRandom {
  /* ============================================================================================
   * The build (no GPU needed)
   * ========================================================================================== */

  /**
   * {@code torch.cuda.get_arch_list()}: the architectures this library was built for, e.g.
   * {@code [sm_80, sm_90, compute_90]}. Works without a GPU. Unmodifiable.
   */
  public static List<String> archList() {
    String s = archListString();
    return s.isBlank() ? List.of() : List.of(s.trim().split("\\s+"));
  }

  /** The arch list as the C library gives it, space separated ("sm_80 sm_90 compute_90"). */
  public static String archListString() {
    return Native.string(ctorch::ct_cuda_get_arch_list);
  }

  /** {@code torch.cuda.get_gencode_flags()}: the nvcc {@code -gencode} flags of this build. */
  public static String gencodeFlags() {
    return Native.string(ctorch::ct_cuda_get_gencode_flags);
  }

  /* ============================================================================================
   * Sync debug mode (process-wide; no GPU needed)
   * ========================================================================================== */

  /** {@code torch.cuda.set_sync_debug_mode} values. */
  public enum SyncDebugMode {
    /** 0, "default": synchronizing operations are silent. */
    DEFAULT(0),
    /** 1, "warn": a warning on stderr for each synchronizing operation. */
    WARN(1),
    /** 2, "error": a synchronizing operation fails with code 200 (CT_ERR_STATE). */
    ERROR(2);

    private final int code;

    SyncDebugMode(int code) {
      this.code = code;
    }

    /** The C ABI's (and torch's integer) value. */
    public int code() {
      return code;
    }

    /** The mode of a value 0, 1 or 2 ({@link IllegalArgumentException} otherwise). */
    public static SyncDebugMode fromCode(int code) {
      return Native.fromCode(values(), SyncDebugMode::code, code, "sync debug mode");
    }

    /** torch's name: "default", "warn" or "error". */
    @Override
    public String toString() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * {@code torch.cuda.set_sync_debug_mode(mode)}: whether operations that make the host wait
   * for the GPU (item, copies to the host, synchronize...) are silent, warn or fail.
   */
  public static void setSyncDebugMode(SyncDebugMode mode) {
    Objects.requireNonNull(mode, "mode");
    setSyncDebugMode(mode.code());
  }

  /** {@code torch.cuda.set_sync_debug_mode(0|1|2)}; other values give code 100. */
  public static void setSyncDebugMode(int mode) {
    Native.check(ctorch.ct_cuda_set_sync_debug_mode(mode));
  }

  /**
   * {@code torch.cuda.set_sync_debug_mode("default"|"warn"|"error")}; another string throws
   * {@link IllegalArgumentException} (torch: "invalid value of debug_mode").
   */
  public static void setSyncDebugMode(String mode) {
    Objects.requireNonNull(mode, "mode");
    for (SyncDebugMode m : SyncDebugMode.values()) {
      if (m.toString().equals(mode)) {
        setSyncDebugMode(m);
        return;
      }
    }
    throw new IllegalArgumentException(
        "invalid value of debug_mode, expected one of `default`, `warn`, `error`: " + mode);
  }

  /** {@code torch.cuda.get_sync_debug_mode()}. */
  public static SyncDebugMode getSyncDebugMode() {
    int[] out = {0};
    Native.check(ctorch.ct_cuda_get_sync_debug_mode(out));
    return SyncDebugMode.fromCode(out[0]);
  }

  /* ============================================================================================
   * Matrix products: torch.backends.cuda.matmul's switches (process-wide; no GPU needed) and
   * torch.cuda.current_blas_handle
   * ========================================================================================== */

  /**
   * {@code torch.backends.cuda.matmul.allow_tf32 = on}: whether float32 matrix products on
   * CUDA devices ({@link Tensor#mm}, {@link Tensor#matmul}, ...) may use TF32 tensor cores
   * (inputs rounded to 10 mantissa bits: faster, less precise). Process-wide,
   * for every thread and device; CPU products are unaffected. Works without a GPU.
   */
  public static void setAllowTf32(boolean on) {
    Native.check(ctorch.ct_set_allow_tf32(on ? 1 : 0));
  }

  /**
   * {@code torch.backends.cuda.matmul.allow_tf32}: false by default (float32 products in full
   * float32, as PyTorch since 1.12).
   */
  public static boolean getAllowTf32() {
    return Native.intOut(ctorch::ct_get_allow_tf32) != 0;
  }

  /**
   * {@code torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = on}: whether
   * float16 matrix products on CUDA devices may accumulate partial sums in reduced precision.
   * Process-wide; works without a GPU.
   */
  public static void setAllowFp16ReducedPrecisionReduction(boolean on) {
    Native.check(ctorch.ct_set_allow_fp16_reduced_precision_reduction(on ? 1 : 0));
  }

  /**
   * {@code torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction}: true by
   * default, as in PyTorch.
   */
  public static boolean getAllowFp16ReducedPrecisionReduction() {
    return Native.intOut(ctorch::ct_get_allow_fp16_reduced_precision_reduction) != 0;
  }

  /**
   * {@code torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = on}: the same
   * for bfloat16 products. Process-wide; works without a GPU.
   */
  public static void setAllowBf16ReducedPrecisionReduction(boolean on) {
    Native.check(ctorch.ct_set_allow_bf16_reduced_precision_reduction(on ? 1 : 0));
  }

  /**
   * {@code torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction}: true by
   * default, as in PyTorch.
   */
  public static boolean getAllowBf16ReducedPrecisionReduction() {
    return Native.intOut(ctorch::ct_get_allow_bf16_reduced_precision_reduction) != 0;
  }

  /**
   * {@code torch.cuda.current_blas_handle()}: the calling thread's cuBLAS handle for the
   * current device (created on first use and bound to the current stream), as the bits of a
   * {@code cublasHandle_t} in a {@code long}, for handing to other native libraries; Java never
   * dereferences it. The same value on every call from one thread for one device. ctorch owns
   * the handle and it belongs to the calling thread (ctorch destroys it when the thread ends):
   * do not destroy it or hand it to another thread. Code 301 without CUDA; code 500
   * (CT_ERR_NOT_SUPPORTED) when cuBLAS cannot be loaded.
   */
  public static long currentBlasHandle() {
    return Native.longOut(ctorch::ct_cuda_current_blas_handle);
  }
}
