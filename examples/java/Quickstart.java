import java.util.Arrays;

import org.ctorch.CtorchException;
import org.ctorch.Cuda;
import org.ctorch.DType;
import org.ctorch.Device;
import org.ctorch.Event;
import org.ctorch.Stream;
import org.ctorch.Tensor;
import org.ctorch.TensorScope;
import org.ctorch.Torch;

/**
 * The device-agnostic quickstart of PyTorch's to(device) tutorials, in Java:
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
 * then, on a GPU, a side stream and timing events ({@code torch.cuda.Stream},
 * {@code torch.cuda.Event}, {@code with torch.cuda.stream(s):}).
 *
 * Run it with {@code bazel run //examples/java:quickstart}.
 */
public final class Quickstart {
  public static void main(String[] args) {
    System.out.println("ctorch " + Torch.version() + ", cuda available: " + Cuda.isAvailable()
        + ", device count: " + Cuda.deviceCount());
    for (int d = 0; d < Cuda.deviceCount(); d++) {
      Cuda.DeviceProperties p = Cuda.deviceProperties(d);
      System.out.printf("  cuda:%d %s, capability %d.%d, %.1f GiB, %d SMs%n", d, p.name(),
          p.major(), p.minor(), p.totalMemory() / (double) (1L << 30), p.multiProcessorCount());
    }

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

    // torch.cuda.get_arch_list() needs no GPU.
    System.out.println("built for: " + Cuda.archList());
    if (device.isCuda()) {
      streams(device);
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
      System.out.printf("on %s: sum = %.1f in %.3f ms%n", side, total.item(),
          start.elapsedTime(end));
    }
  }
}
