// The Java consumer of the release jar (tests/dist/java/java_consumer_test.sh): compiled and run
// outside the workspace with only the jar on the class path, `java -cp ctorch-<ver>.jar:. App`.
// Prints the library's version and a tensor, and exits with status 1 on a wrong value.
import org.ctorch.DType;
import org.ctorch.Device;
import org.ctorch.Tensor;
import org.ctorch.Torch;

public class App {
  public static void main(String[] args) {
    System.out.println("ctorch " + Torch.version());
    try (Tensor x = Tensor.arange(0, 6, 1, DType.FLOAT32, Device.CPU);
         Tensor m = x.view(2, 3);
         Tensor y = m.mul(2).add_(1);          // [[1, 3, 5], [7, 9, 11]]
         Tensor s = y.sum()) {
      System.out.println(y);
      double expected = 0;
      for (int i = 0; i < 6; i++) {
        expected += 2 * i + 1;                 // 36
      }
      float[] values = y.toFloatArray();
      if (s.item() != expected || values.length != 6 || values[5] != 11f) {
        System.err.println("wrong: sum " + s.item() + ", expected " + expected
            + "; last element " + values[values.length - 1] + ", expected 11");
        System.exit(1);
      }
      System.out.println("sum " + s.item());
    }
  }
}
