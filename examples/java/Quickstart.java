import java.util.Arrays;

import org.ctorch.Complex;
import org.ctorch.CtorchException;
import org.ctorch.Cuda;
import org.ctorch.DType;
import org.ctorch.Device;
import org.ctorch.Event;
import org.ctorch.FFT;
import org.ctorch.Stream;
import org.ctorch.Tensor;
import org.ctorch.TensorScope;
import org.ctorch.Torch;

/**
 * The quickstart in Java: the device-agnostic example of PyTorch's to(device) tutorials,
 *
 * <pre>
 * device = "cuda" if torch.cuda.is_available() else "cpu"
 * tensor = torch.tensor([1, 2, 3])
 * print(tensor, tensor.device)
 * tensor_on_gpu = tensor.to(device)
 * print(tensor_on_gpu)
 * tensor_back_on_cpu = tensor_on_gpu.cpu().numpy()
 * print(tensor_back_on_cpu)
 * </pre>
 *
 * then a tour, each part on CUDA if present, else on the CPU: a side stream timed by two
 * events ({@code torch.cuda.Stream}, {@code torch.cuda.Event}, {@code with
 * torch.cuda.stream(s):}; CUDA only), a seeded {@code randn}, a matmul, an {@code rfft} and
 * {@code torch.cuda.memory_summary} (CUDA only). It checks the values it prints: a wrong one
 * ends it with an exception (exit status 1).
 *
 * Run it with {@code bazel run //examples/java:quickstart} (or {@code tools/demo.sh java}).
 */
public final class Quickstart {
  public static void main(String[] args) {
    System.out.println("-- devices");
    System.out.println("ctorch " + Torch.version() + ", cuda available: " + Cuda.isAvailable()
        + ", device count: " + Cuda.deviceCount());
    for (int d = 0; d < Cuda.deviceCount(); d++) {
      Cuda.DeviceProperties p = Cuda.deviceProperties(d);
      System.out.printf("  cuda:%d %s, capability %d.%d, %.1f GiB, %d SMs%n", d, p.name(),
          p.major(), p.minor(), p.totalMemory() / (double) (1L << 30), p.multiProcessorCount());
    }
    if (!Cuda.isAvailable()) {
      try {
        Cuda.checkAvailable();
      } catch (CtorchException e) { // torch.cuda's reason, e.g. no driver
        System.out.println("  (" + e.detail() + ")");
      }
    }
    // torch.cuda.get_arch_list() needs no GPU.
    System.out.println("built for: " + Cuda.archList());

    System.out.println("\n-- tensors on the device");
    // Pick the device once; everything below runs unchanged on either.
    Device device = Device.parse(Cuda.isAvailable() ? "cuda" : "cpu");
    System.out.println("device: " + device);

    // try-with-resources closes every tensor (forgotten ones are freed by the GC eventually).
    try (Tensor tensor = Tensor.fromArray(new long[] {1, 2, 3})) {
      System.out.println(tensor + " " + tensor.device());

      try (Tensor onDevice = tensor.to(device);
          Tensor other = Tensor.ones(new long[] {3}, tensor.dtype(), device);
          Tensor sum = onDevice.add(other);           // computed where the inputs live
          Tensor scaled = sum.mul(2.5);               // int64 * Python float -> float32
          Tensor back = scaled.cpu()) {               // like .cpu().numpy()
        System.out.println(onDevice);
        System.out.println(sum + " " + sum.device());
        System.out.println(scaled);
        System.out.println(Arrays.toString(back.toFloatArray()));

        // In place: x.add_(y) changes x (the tutorial's last example).
        onDevice.add_(other);
        System.out.println("after add_: " + onDevice);
      }
    }

    System.out.println("\n-- a stream and an event");
    if (device.isCuda()) {
      streams(device);
    } else {
      try (Event e = Event.create(true)) { // events exist without a GPU until recorded
        System.out.println("streams are CUDA-only; an event never recorded is done: query() = "
            + e.query());
        check(e.query(), "an event never recorded is done");
      }
    }
    random(device);
    matmul(device);
    fft(device);
    memory(device);
  }

  /** A value the reader can check: a wrong one is a bug, so the example fails. */
  private static void check(boolean ok, String what) {
    if (!ok) {
      throw new IllegalStateException("expected: " + what);
    }
  }

  /**
   * <pre>
   * side = torch.cuda.Stream()
   * start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
   * side.wait_stream(torch.cuda.current_stream())
   * start.record(side)
   * with torch.cuda.stream(side):
   *     total = (torch.ones(1000, 1000, device=device) * 2).sum()
   * end.record(side)
   * end.synchronize()
   * print(total.item(), start.elapsed_time(end))
   * </pre>
   */
  private static void streams(Device device) {
    try (Stream side = Stream.create();
        Stream current = Stream.currentStream();
        Event start = Event.create(true);
        Event end = Event.create(true);
        TensorScope scope = TensorScope.open()) {
      side.waitStream(current);
      start.record(side);
      Tensor total;
      try (Cuda.StreamGuard g = Cuda.stream(side)) {
        total = Tensor.ones(new long[] {1000, 1000}, DType.FLOAT32, device).mul(2).sum();
      }
      end.record(side);
      end.synchronize();
      current.waitStream(side); // before the current stream reads total
      System.out.printf("on %s: (ones(1000, 1000) * 2).sum() = %.1f in %.3f ms%n", side,
          total.item(), start.elapsedTime(end));
      check(total.item() == 2e6, "sum = 2e6");
    }
  }

  /** torch.manual_seed(0); torch.randn(2, 3, device=device): torch.cuda's values on any device. */
  private static void random(Device device) {
    System.out.println("\n-- a seeded random matrix: torch.manual_seed(0); torch.randn(2, 3)");
    float[] torchCuda = {-0.9247f, -0.4253f, -2.6438f, 0.1452f, -0.1209f, -0.5797f};
    Torch.manualSeed(0);
    try (Tensor r = Tensor.randn(new long[] {2, 3}, DType.FLOAT32, device)) {
      System.out.println(r);
      float[] v = r.toFloatArray();
      for (int i = 0; i < v.length; i++) {
        check(Math.abs(v[i] - torchCuda[i]) < 1e-4, "randn value " + i + " = " + torchCuda[i]);
      }
    }
  }

  private static void matmul(Device device) {
    System.out.println("\n-- a matmul: [[1, 2, 3], [4, 5, 6]] @ [[7, 8], [9, 10], [11, 12]]");
    try (TensorScope scope = TensorScope.open()) {
      Tensor a = Tensor.fromArray(new float[] {1, 2, 3, 4, 5, 6}, 2, 3).to(device);
      Tensor b = Tensor.fromArray(new float[] {7, 8, 9, 10, 11, 12}, 3, 2).to(device);
      Tensor c = a.matmul(b);
      System.out.println(c);
      check(Arrays.equals(c.toFloatArray(), new float[] {58, 64, 139, 154}),
          "[[58, 64], [139, 154]]");
    }
  }

  private static void fft(Device device) {
    System.out.println("\n-- an FFT: torch.fft.rfft(torch.tensor([1., 2., 3., 4.]))");
    try (TensorScope scope = TensorScope.open()) {
      Tensor spectrum = FFT.rfft(Tensor.fromArray(new float[] {1, 2, 3, 4}).to(device));
      System.out.println(spectrum);
      Complex[] want = {new Complex(10, 0), new Complex(-2, 2), new Complex(-2, 0)};
      for (int i = 0; i < want.length; i++) {
        Complex z = spectrum.select(0, i).itemComplex();
        check(Math.abs(z.real() - want[i].real()) < 1e-5 && Math.abs(z.imag() - want[i].imag()) < 1e-5,
            "rfft value " + i + " = " + want[i]);
      }
    }
  }

  private static void memory(Device device) {
    System.out.println("\n-- memory");
    if (!device.isCuda()) {
      System.out.println("memory statistics are CUDA-only (torch.cuda.memory_allocated, memory_summary)");
      return;
    }
    try (Tensor kept = Tensor.ones(new long[] {1024}, DType.FLOAT32, device)) {
      long allocated = Cuda.memoryAllocated(0);
      System.out.println("torch.cuda.memory_allocated(0) = " + allocated + " bytes");
      check(allocated >= 4096, "at least the 4 KiB tensor kept alive");
      System.out.println(Cuda.memorySummary(0, true));
    }
  }
}
