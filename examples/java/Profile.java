import java.util.function.LongSupplier;

import org.ctorch.CtorchException;
import org.ctorch.Cuda;
import org.ctorch.DType;
import org.ctorch.Device;
import org.ctorch.Nvtx;
import org.ctorch.Tensor;

/**
 * Seeing the GPU from Java (docs/profiling.md, docs/monitoring.md): a few ops inside NVTX
 * ranges, which Nsight Systems shows on the timeline ({@code nsys profile -t nvtx,cuda java
 * ...}), then the device's NVML figures. As PyTorch:
 *
 * <pre>
 * with torch.cuda.nvtx.range("matmul"):
 *     c = a @ b
 * print(torch.cuda.utilization(), torch.cuda.temperature(), torch.cuda.power_draw(), ...)
 * print(torch.cuda.list_gpu_processes())
 * </pre>
 *
 * The same program as examples/c/profile.c. Device-agnostic: without CUDA the ops run on the
 * CPU (NVTX needs no GPU) and the figures say why they are missing; it exits 0 either way. Run
 * it with {@code bazel run //examples/java:profile}.
 */
public final class Profile {
  // Nvtx.range's Range is only closed, never read, in the bodies below: javac's "try" lint.
  @SuppressWarnings("try")
  public static void main(String[] args) {
    boolean cuda = Cuda.isAvailable();
    Device device = cuda ? Device.cuda(0) : Device.CPU;
    System.out.println("device: " + device);

    int depth = Nvtx.rangePush("profile example");   // torch.cuda.nvtx.range_push
    System.out.println("range 'profile example' pushed at depth " + depth
        + " (" + Nvtx.NO_PUSH_POP_TRACKING + ": no profiler attached)");
    try {
      Tensor a;
      Tensor b;
      try (Nvtx.Range setup = Nvtx.range("setup")) {  // with torch.cuda.nvtx.range("setup"):
        a = Tensor.randn(new long[] {512, 512}, DType.FLOAT32, device);
        b = Tensor.randn(new long[] {512, 512}, DType.FLOAT32, device);
      }
      try (a; b) {
        for (int i = 0; i < 10; i++) {
          try (Nvtx.Range r = Nvtx.range("matmul + sum");
              Tensor c = a.matmul(b);
              Tensor s = c.sum()) {
            // the tensors close before the range pops (resources close in reverse order)
          }
        }
      }
      Nvtx.mark("ops done");
      if (cuda) {
        Cuda.synchronize(0);   // the kernels end inside the outer range
      }
    } finally {
      depth = Nvtx.rangePop();
    }
    System.out.println("range popped at depth " + depth);

    System.out.println("NVML device count: " + Cuda.deviceCountNvml()
        + " (-1: NVML cannot be used here)");
    int utilization;
    try {
      utilization = Cuda.utilization(0);
    } catch (CtorchException e) {   // no driver, no GPU: the reason once
      System.out.println("no NVML figures: " + e.statusName() + ": " + e.detail());
      return;
    }
    System.out.println("cuda:0 as NVML sees it:");
    figure("utilization", () -> utilization, "%");
    figure("memory_usage", () -> Cuda.memoryUsage(0), "% (of the time memory was busy)");
    figure("temperature", () -> Cuda.temperature(0), "C");
    figure("power_draw", () -> Cuda.powerDraw(0), "mW");
    figure("clock_rate", () -> Cuda.clockRate(0), "MHz");
    figure("device_memory_used", () -> Cuda.deviceMemoryUsed(0), "bytes");
    try {
      System.out.println(Cuda.listGpuProcesses(0));
    } catch (CtorchException e) {
      System.out.println("list_gpu_processes unavailable (" + e.statusName() + ": " + e.detail() + ")");
    }
  }

  /** A figure, or why it is missing (not supported by this GPU, no permission). */
  private static void figure(String name, LongSupplier value, String unit) {
    try {
      System.out.printf("  %-22s %d %s%n", name, value.getAsLong(), unit);
    } catch (CtorchException e) {
      System.out.printf("  %-22s unavailable (%s: %s)%n", name, e.statusName(), e.detail());
    }
  }
}
