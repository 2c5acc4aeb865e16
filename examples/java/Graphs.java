import java.util.Arrays;

import org.ctorch.CtorchException;
import org.ctorch.Cuda;
import org.ctorch.CudaGraph;
import org.ctorch.DType;
import org.ctorch.Device;
import org.ctorch.GraphedCallable;
import org.ctorch.Tensor;

/**
 * CUDA graphs in Java: {@code torch.cuda.CUDAGraph}, {@code torch.cuda.graph} and
 * {@code torch.cuda.make_graphed_callables},
 *
 * <pre>
 * x = torch.tensor([1., 2., 3., 4.], device="cuda")      # static input
 * g = torch.cuda.CUDAGraph()
 * with torch.cuda.graph(g):                              # captured, not run
 *     y = ((x * 2 + 1).exp() - x).sin()
 * x.copy_(torch.tensor([0.5, -1., 2., 0.], device="cuda"))
 * g.replay()                                             # y for the new x
 *
 * f = torch.cuda.make_graphed_callables(lambda t: t * 3 + 1, (x,))
 * </pre>
 *
 * It checks that each replay equals the same ops run eagerly, bit for bit. Without CUDA it says
 * that graphs need it and exits 0. Run it with {@code bazel run //examples/java:graphs}.
 */
public final class Graphs {
  public static void main(String[] args) {
    if (!Cuda.isAvailable()) {
      String why;
      try {
        Cuda.checkAvailable();
        why = "no CUDA device";
      } catch (CtorchException e) {
        why = e.detail();
      }
      System.out.println("CUDA graphs need CUDA, which is not available here (" + why + ")");
      return;
    }
    Device cuda = Device.parse("cuda");
    float[] first = {1, 2, 3, 4};
    float[] second = {0.5f, -1, 2, 0};

    System.out.println("-- capture and replay");
    try (Tensor x = onDevice(first, cuda); CudaGraph g = CudaGraph.create()) {
      Tensor y;
      try (CudaGraph.CaptureScope scope = g.capture()) {   // with torch.cuda.graph(g):
        y = chain(x);                                      // recorded on the capture stream
      }
      try (y) {
        for (float[] values : new float[][] {first, second}) {
          try (Tensor nx = onDevice(values, cuda); Tensor eager = chain(nx)) {
            x.copy_(nx);                                   // new values into the static input
            g.replay();                                    // one launch for the whole chain
            float[] replayed = y.toFloatArray();
            System.out.println("x = " + Arrays.toString(values) + " -> replay " + Arrays.toString(replayed));
            check(eager.toFloatArray(), replayed);
          }
        }
        System.out.println("replays equal eager; the graph's pool id: " + g.pool());
      }
    }

    System.out.println("\n-- a graphed callable");
    try (Tensor x = Tensor.zeros(new long[] {4}, DType.FLOAT32, cuda);
        Tensor out = Tensor.empty(new long[] {4}, DType.FLOAT32, cuda);
        GraphedCallable f = CudaGraph.makeGraphed(() -> {  // warm-up runs, then one capture
          try (Tensor t = x.mul(3)) {
            out.copy_(t.add_(1));
          }
        }, x)) {
      for (float[] values : new float[][] {first, second}) {
        try (Tensor nx = onDevice(values, cuda)) {
          f.run(nx);                                       // copies nx into x, replays
          float[] got = out.toFloatArray();
          System.out.println("f(" + Arrays.toString(values) + ") = " + Arrays.toString(got));
          float[] want = new float[values.length];
          for (int i = 0; i < values.length; i++) {
            want[i] = values[i] * 3 + 1;
          }
          check(want, got);
        }
      }
    }
    System.out.println("ok");
  }

  /** torch.tensor(values, device=device); the caller closes it. */
  static Tensor onDevice(float[] values, Device device) {
    try (Tensor host = Tensor.fromArray(values)) {
      return host.to(device);
    }
  }

  /** ((x * 2 + 1).exp() - x).sin(): a short chain of elementwise ops; the caller closes it. */
  static Tensor chain(Tensor x) {
    try (Tensor a = x.mul(2); Tensor b = a.add(1); Tensor c = b.exp(); Tensor d = c.sub(x)) {
      return d.sin();
    }
  }

  static void check(float[] want, float[] got) {
    if (!Arrays.equals(want, got)) {
      throw new AssertionError("expected " + Arrays.toString(want) + ", got " + Arrays.toString(got));
    }
  }
}
