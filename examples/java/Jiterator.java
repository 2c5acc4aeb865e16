import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

import org.ctorch.CtorchException;
import org.ctorch.Cuda;
import org.ctorch.DType;
import org.ctorch.Device;
import org.ctorch.JitFunction;
import org.ctorch.Tensor;
import org.ctorch.TensorScope;

/**
 * The jiterator in Java: {@code torch.cuda.jiterator._create_jit_fn} and
 * {@code _create_multi_output_jit_fn},
 *
 * <pre>
 * gelu = _create_jit_fn("""template &lt;typename T&gt; T fused_gelu(T x, T k0, T k1) {
 *     return T(0.5) * x * (T(1) + tanh(k0 * (x + k1 * x * x * x))); }""", k0=0.7978845608028654, k1=0.044715)
 * y = gelu(x)
 * gelu(x, out=o)    # (callOut) into a given float64 tensor, and in place
 * polar = _create_multi_output_jit_fn("""template &lt;typename T&gt;
 *     void polar(T r, T theta, T&amp; re, T&amp; im) { re = r * cos(theta); im = r * sin(theta); }""", 2)
 * re, im = polar(r, theta)
 * </pre>
 *
 * It checks each result against the same chain of built-in ops. Without CUDA it makes the
 * functions (that needs no GPU), says that running them needs CUDA and exits 0. Run it with
 * {@code bazel run //examples/java:jiterator}.
 */
public final class Jiterator {
  static final String GELU = "template <typename T> T fused_gelu(T x, T k0, T k1) {\n"
      + "  return T(0.5) * x * (T(1) + tanh(k0 * (x + k1 * x * x * x)));\n"
      + "}";

  static final String POLAR = "template <typename T> void polar(T r, T theta, T& re, T& im) {\n"
      + "  re = r * cos(theta);\n"
      + "  im = r * sin(theta);\n"
      + "}";

  static final double K0 = Math.sqrt(2 / Math.PI);
  static final double K1 = 0.044715;

  public static void main(String[] args) {
    Map<String, Object> kwargs = new LinkedHashMap<>(); // the order of the extra parameters
    kwargs.put("k0", K0);
    kwargs.put("k1", K1);
    try (JitFunction gelu = JitFunction.create(GELU, kwargs);
        JitFunction polar = JitFunction.createMultiOutput(POLAR, 2)) {
      System.out.println(gelu + ", " + polar);
      try {
        Cuda.checkAvailable(); // code 301 with the CUDA runtime's reason when it cannot be used
      } catch (CtorchException e) {
        System.out.println("running them needs CUDA: " + e.detail());
        return;
      }
      Device cuda = Device.parse("cuda");
      try (TensorScope scope = TensorScope.open()) { // closes every tensor made below
        Tensor x = Tensor.linspace(-4, 4, 9, DType.FLOAT32, cuda);
        Tensor y = gelu.call(x);
        // the built-in chain: 0.5 * x * (1 + tanh(k0 * (x + k1 * x^3)))
        Tensor want = x.mul(x).mul(x).mul(K1).add(x).mul(K0).tanh().add(1).mul(x).mul(0.5);
        System.out.println("gelu(" + Arrays.toString(x.toFloatArray()) + ") = " + Arrays.toString(y.toFloatArray()));
        check(want.toFloatArray(), y.toFloatArray(), 1e-5f);

        // gelu(x, out=o) into a float64 tensor (computed in float32, then cast), and in place
        Tensor o = Tensor.empty(x.shape(), DType.FLOAT64, cuda);
        gelu.callOut(new Tensor[] {o}, x);
        check(y.toFloatArray(), o.toFloatArray(), 1e-6f);
        gelu.callOut(new Tensor[] {x}, x); // x = gelu(x)
        check(y.toFloatArray(), x.toFloatArray(), 1e-6f);

        // float16 inputs: computed in float, stored as float16
        Tensor r = Tensor.fromArray(new float[] {1, 2, 0.5f, 3}).to(cuda, DType.FLOAT16);
        Tensor theta = Tensor.fromArray(new float[] {0, (float) (Math.PI / 2), (float) Math.PI, 1}).to(cuda,
            DType.FLOAT16);
        Tensor[] reIm = polar.callMulti(r, theta);
        System.out.println("polar: re = " + Arrays.toString(reIm[0].toFloatArray()) + ", im = "
            + Arrays.toString(reIm[1].toFloatArray()) + " (" + reIm[0].dtype() + ")");
        Tensor rf = r.to(DType.FLOAT32);
        Tensor tf = theta.to(DType.FLOAT32);
        check(rf.mul(tf.cos()).to(DType.FLOAT16).toFloatArray(), reIm[0].toFloatArray(), 2e-3f);
        check(rf.mul(tf.sin()).to(DType.FLOAT16).toFloatArray(), reIm[1].toFloatArray(), 2e-3f);
      }
      System.out.println(JitFunction.kernelCount() + " kernels compiled; ok");
    }
  }

  static void check(float[] want, float[] got, float tolerance) {
    for (int i = 0; i < want.length; i++) {
      if (!(Math.abs(want[i] - got[i]) <= tolerance * Math.max(1, Math.abs(want[i])))) {
        throw new AssertionError("expected " + Arrays.toString(want) + ", got " + Arrays.toString(got));
      }
    }
  }
}
