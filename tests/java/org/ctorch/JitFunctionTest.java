package org.ctorch;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.ctorch.swig.ctorch;
import org.junit.Test;

/**
 * {@link JitFunction} (section 25 of ctorch.h, the jiterator): what the binding adds. Without a
 * GPU: the generated {@code ArgType}, the marshalling of kwargs and overrides into the C arrays
 * (every type, order kept, unsupported values, null names and values, no arguments giving n 0
 * and null arrays) and of the SWIG layer's name arrays (UTF-8, null elements), creation, name,
 * numOutputs, parse errors, lifetimes (close twice, use after close, newReference, the Cleaner
 * releasing dropped functions, threads), a call's 301 without CUDA, the out form's null and
 * closed outputs. "gpu" tests (skipped visibly here): torch's fused kernel with kwargs and
 * overrides, a two-output function, the out form (another dtype, in place, a shape error, two
 * outputs), a compile error's NVRTC log, eight threads' first calls compiling once. The values and the C
 * messages themselves are the C suite's (tests/capi/jiterator_test.c).
 */
public class JitFunctionTest extends CtorchTestCase {

  static final String FUSED =
      "template <typename T> T my_fused_kernel(T x, T y, T alpha, T beta) { return alpha * x + beta * y; }";

  static final String TWO_OUTPUTS =
      "template <typename T> void sd(T a, T b, bool neg, T scale, T& out0, T& out1) {\n"
      + "  out0 = (a + b) * scale; out1 = neg ? b - a : a - b; }";

  /** alpha = 1 and beta = 1, as int64 arguments (torch's example passes ints). */
  static Map<String, Object> alphaBeta() {
    Map<String, Object> kw = new LinkedHashMap<>();
    kw.put("alpha", 1L);
    kw.put("beta", 1);
    return kw;
  }

  /* ============================================================================================
   * The generated table and the marshalling
   * ========================================================================================== */

  @Test
  public void argTypesAreTheCAbis() {
    assertEquals(3, JitFunction.ArgType.values().length);
    assertEquals(ctorch.CT_JIT_ARG_INT64, JitFunction.ArgType.INT64.code());
    assertEquals(ctorch.CT_JIT_ARG_DOUBLE, JitFunction.ArgType.DOUBLE.code());
    assertEquals(ctorch.CT_JIT_ARG_BOOL, JitFunction.ArgType.BOOL.code());
    assertEquals(JitFunction.ArgType.BOOL, JitFunction.ArgType.fromCode(2));
    assertThrows(IllegalArgumentException.class, () -> JitFunction.ArgType.fromCode(7));
  }

  @Test
  public void kwargsBecomeTheCArraysInOrder() {
    Map<String, Object> kw = new LinkedHashMap<>();
    kw.put("z", 7L);
    kw.put("a", 2.5);
    kw.put("m", true);
    kw.put("i", -3);
    kw.put("f", 0.25f);
    kw.put("off", false);
    JitFunction.Args a = JitFunction.Args.of(kw);
    assertEquals(6, a.n);
    assertArrayEquals(new String[] {"z", "a", "m", "i", "f", "off"}, a.names);
    int i64 = ctorch.CT_JIT_ARG_INT64;
    int f64 = ctorch.CT_JIT_ARG_DOUBLE;
    int b = ctorch.CT_JIT_ARG_BOOL;
    assertArrayEquals(new int[] {i64, f64, b, i64, f64, b}, a.types);
    assertArrayEquals(new long[] {7, 0, 1, -3, 0, 0}, a.ints);
    assertArrayEquals(new double[] {0, 2.5, 0, 0, 0.25, 0}, a.doubles, 0);
  }

  @Test
  public void arraysNoEntryNeedsAreNull() {
    for (Map<String, ?> none : java.util.Arrays.<Map<String, ?>>asList(null, Map.of(), new LinkedHashMap<>())) {
      JitFunction.Args a = JitFunction.Args.of(none);
      assertEquals(0, a.n);
      assertNull(a.names);
      assertNull(a.types);
      assertNull(a.ints);
      assertNull(a.doubles);
    }
    JitFunction.Args ints = JitFunction.Args.of(Map.of("k", Long.MIN_VALUE));
    assertArrayEquals(new long[] {Long.MIN_VALUE}, ints.ints);
    assertNull(ints.doubles);
    JitFunction.Args doubles = JitFunction.Args.of(Map.of("s", Double.NaN));
    assertNull(doubles.ints);
    assertTrue(Double.isNaN(doubles.doubles[0]));
    JitFunction.Args bools = JitFunction.Args.of(Map.of("neg", true));
    assertArrayEquals(new int[] {ctorch.CT_JIT_ARG_BOOL}, bools.types);
    assertArrayEquals(new long[] {1}, bools.ints);
    assertNull(bools.doubles);
  }

  @Test
  public void unsupportedValuesAreRejectedByTheBinding() {
    for (Object v : new Object[] {(short) 1, (byte) 1, "1", new BigDecimal("1.5"), 'c', new long[] {1}}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> JitFunction.Args.of(Map.of("alpha", v)));
      assertTrue(e.getMessage(), e.getMessage().contains("'alpha' is a " + v.getClass().getName()));
      // the same at creation and in a call's overrides, before any C call
      assertThrows(IllegalArgumentException.class, () -> JitFunction.create(FUSED, Map.of("alpha", v)));
      try (JitFunction f = JitFunction.create(FUSED, alphaBeta()); Tensor x = Tensor.ones(3)) {
        assertThrows(IllegalArgumentException.class, () -> f.call(Map.of("alpha", v), x, x));
        assertThrows(IllegalArgumentException.class, () -> f.callMulti(Map.of("alpha", v), x, x));
        assertThrows(IllegalArgumentException.class, () -> f.callOut(Map.of("alpha", v), new Tensor[] {x}, x, x));
      }
    }
    Map<String, Object> nullName = new LinkedHashMap<>();
    nullName.put(null, 1L);
    NullPointerException e = assertThrows(NullPointerException.class, () -> JitFunction.Args.of(nullName));
    assertEquals("kwargs name", e.getMessage());
    Map<String, Object> nullValue = new LinkedHashMap<>();
    nullValue.put("beta", null);
    e = assertThrows(NullPointerException.class, () -> JitFunction.create(FUSED, nullValue));
    assertEquals("kwargs value of 'beta'", e.getMessage());
    CtorchException nul = assertStatus(CtorchException.ARGUMENT,
        () -> JitFunction.create(FUSED, Map.of("al\0pha", 1L)));
    assertTrue(nul.detail(), nul.detail().contains("NUL character"));
  }

  /** The SWIG layer's arrays reach C: names as UTF-8 (and a null one as NULL), types, values. */
  @Test
  public void swigArraysReachC() {
    long[] out = {0};
    String[] twice = {"größe", "größe"};
    int[] ints2 = {ctorch.CT_JIT_ARG_INT64, ctorch.CT_JIT_ARG_INT64};
    assertEquals(CtorchException.ARGUMENT, ctorch.ct_cuda_jit_create(FUSED, twice, ints2, new long[] {1, 1}, null, 2,
        out));
    assertEquals("extra argument 'größe' is declared twice", lastDetail().replaceFirst("^.*?extra", "extra"));
    assertEquals(CtorchException.NULL_POINTER, ctorch.ct_cuda_jit_create(FUSED, new String[] {"alpha", null}, ints2,
        new long[] {1, 1}, null, 2, out));
    assertTrue(lastDetail(), lastDetail().contains("extra argument 1's name is NULL"));
    assertEquals(CtorchException.ARGUMENT, ctorch.ct_cuda_jit_create(FUSED, new String[] {"alpha", "beta"},
        new int[] {ctorch.CT_JIT_ARG_INT64, 7}, new long[] {1, 1}, null, 2, out));
    assertTrue(lastDetail(), lastDetail().contains("unknown jiterator argument type 7"));
    assertEquals(CtorchException.NULL_POINTER, ctorch.ct_cuda_jit_create(FUSED, new String[] {"alpha"},
        new int[] {ctorch.CT_JIT_ARG_DOUBLE}, null, null, 1, out));
    assertTrue(lastDetail(), lastDetail().contains("extra argument 'alpha' is a double but arg_doubles is NULL"));
    assertEquals(0, out[0]);
    // the double array is read: a double-only function is made (and released)
    assertEquals(Native.CT_OK, ctorch.ct_cuda_jit_create(FUSED, new String[] {"alpha"},
        new int[] {ctorch.CT_JIT_ARG_DOUBLE}, null, new double[] {0.5}, 1, out));
    assertEquals(Native.CT_OK, ctorch.ct_cuda_jit_release(out[0]));
  }

  static String lastDetail() {
    return Native.lastErrorMessageUtf8();
  }

  /* ============================================================================================
   * Creation, properties, errors
   * ========================================================================================== */

  @Test
  public void createGivesNameAndOutputs() {
    long live = Torch.liveJitFunctionCount();
    try (JitFunction f = JitFunction.create(FUSED, alphaBeta())) {
      assertEquals("my_fused_kernel", f.name());
      assertEquals(1, f.numOutputs());
      assertEquals("JitFunction(my_fused_kernel, numOutputs=1)", f.toString());
      assertEquals(live + 1, Torch.liveJitFunctionCount());
    }
    Map<String, Object> kw = new LinkedHashMap<>();
    kw.put("neg", false);
    kw.put("scale", 2.0);
    try (JitFunction f = JitFunction.createMultiOutput(TWO_OUTPUTS, 2, kw);
        JitFunction plain = JitFunction.create("template <typename T> T twice(T x) { return x + x; }");
        JitFunction one = JitFunction.createMultiOutput(
            "template <typename T> void half(T x, T& out) { out = x / 2; }", 1)) {
      assertEquals("sd", f.name());
      assertEquals(2, f.numOutputs());
      assertEquals("twice", plain.name());
      assertEquals(1, plain.numOutputs());
      assertEquals("half", one.name());
      assertEquals(1, one.numOutputs());
    }
    assertEquals(live, Torch.liveJitFunctionCount());
    assertTrue(JitFunction.kernelCount() >= 0);
    // the code travels as real UTF-8 (JNI's modified UTF-8 would give other bytes for U+1D11E)
    // (the parse error quotes it)
    String clef = "template <typename T> T clef_\uD834\uDD1E(T x) { return x; }";
    CtorchException e = assertStatus(CtorchException.ARGUMENT, () -> JitFunction.create(clef));
    assertTrue(e.detail(), e.detail().contains(clef));
  }

  @Test
  public void badCodeAndCountsAreArgumentErrors() {
    CtorchException e = assertStatus(CtorchException.ARGUMENT,
        () -> JitFunction.create("float f(float x) { return x; }"));
    assertTrue(e.detail(), e.detail().contains("Couldn't parse code, please check correctness"));
    assertStatus(CtorchException.ARGUMENT,
        () -> JitFunction.create("template <typename T> T my _kernel(T x) { return x; }", alphaBeta()));
    e = assertStatus(CtorchException.ARGUMENT, () -> JitFunction.createMultiOutput(TWO_OUTPUTS, 0));
    assertTrue(e.detail(), e.detail().contains("makes 1 to 8 outputs, got 0"));
    e = assertStatus(CtorchException.ARGUMENT, () -> JitFunction.createMultiOutput(TWO_OUTPUTS, 9, Map.of()));
    assertTrue(e.detail(), e.detail().contains("makes 1 to 8 outputs, got 9"));
    assertThrows(NullPointerException.class, () -> JitFunction.create(null));
    assertThrows(NullPointerException.class, () -> JitFunction.createMultiOutput(null, 2));
    assertStatus(CtorchException.ARGUMENT, () -> JitFunction.create(FUSED + "\0junk"));
  }

  @Test
  public void callWithoutCudaIsCode301() {
    assumeNoCuda();
    try (JitFunction f = JitFunction.create(FUSED, alphaBeta());
        JitFunction two = JitFunction.createMultiOutput(TWO_OUTPUTS, 2, Map.of("neg", true, "scale", 1.0));
        Tensor x = Tensor.ones(3)) {
      assertNoCuda(() -> f.call(x, x));
      assertNoCuda(() -> f.call(Map.of("beta", -1L, "alpha", 0.5), x, x));
      assertNoCuda(() -> f.callMulti(x, x));
      assertNoCuda(() -> two.callMulti(x, x));
      assertNoCuda(() -> two.callMulti(Map.of("neg", false), x, x));
      assertLiveTensors(1); // no output was made
    }
  }

  /** The out form reaches C (ct_cuda_jit_run_out) in both forms and says 301 without CUDA. */
  @Test
  public void callOutWithoutCudaIsCode301() {
    assumeNoCuda();
    try (JitFunction f = JitFunction.create(FUSED, alphaBeta());
        JitFunction two = JitFunction.createMultiOutput(TWO_OUTPUTS, 2, Map.of("neg", true, "scale", 1.0));
        Tensor x = Tensor.ones(3);
        Tensor o = Tensor.zeros(3)) {
      assertNoCuda(() -> f.callOut(new Tensor[] {o}, x, x));
      assertNoCuda(() -> f.callOut(Map.of("beta", -1L), new Tensor[] {o}, x, x));
      assertNoCuda(() -> f.callOut(new Tensor[] {x}, x, x)); // in place
      assertNoCuda(() -> two.callOut(Map.of("neg", false), new Tensor[] {o, x}, x, x));
      assertValues(o, 0, 0, 0); // nothing written
      assertValues(x, 1, 1, 1);
      assertLiveTensors(2);
    }
  }

  /** Null outs, a null output and a closed one are the binding's errors before any C call. */
  @Test
  public void callOutNullAndClosedOutputs() {
    try (JitFunction f = JitFunction.create(FUSED, alphaBeta()); Tensor x = Tensor.ones(3)) {
      NullPointerException e = assertThrows(NullPointerException.class, () -> f.callOut(null, x, x));
      assertEquals("outs", e.getMessage());
      e = assertThrows(NullPointerException.class, () -> f.callOut(Map.of("beta", 2L), null, x, x));
      assertEquals("outs", e.getMessage());
      e = assertThrows(NullPointerException.class, () -> f.callOut(new Tensor[] {x, null}, x, x));
      assertEquals("outs[1]", e.getMessage());
      e = assertThrows(NullPointerException.class, () -> f.callOut(new Tensor[] {x}, (Tensor[]) null));
      assertEquals("inputs", e.getMessage());
      e = assertThrows(NullPointerException.class, () -> f.callOut(new Tensor[] {x}, x, null));
      assertEquals("inputs[1]", e.getMessage());
      Tensor closed = Tensor.zeros(3);
      closed.close();
      CtorchException c = assertStatus(CtorchException.INVALID_HANDLE, () -> f.callOut(new Tensor[] {closed}, x, x));
      assertEquals("the Tensor is closed", c.detail());
      c = assertStatus(CtorchException.INVALID_HANDLE, () -> f.callOut(Map.of(), new Tensor[] {x, closed}, x));
      assertEquals("the Tensor is closed", c.detail());
      assertValues(x, 1, 1, 1);
      assertLiveTensors(1);
    }
  }

  @Test
  public void nullInputsAreNullPointerExceptions() {
    try (JitFunction f = JitFunction.create(FUSED, alphaBeta()); Tensor x = Tensor.ones(3)) {
      assertThrows(NullPointerException.class, () -> f.call((Tensor[]) null));
      NullPointerException e = assertThrows(NullPointerException.class, () -> f.call(x, null));
      assertEquals("inputs[1]", e.getMessage());
      x.close();
      assertStatus(CtorchException.INVALID_HANDLE, () -> f.call(x, x));
    }
  }

  /* ============================================================================================
   * Lifetimes and threads
   * ========================================================================================== */

  @Test
  public void closeTwiceAndUseAfterClose() {
    long live = Torch.liveJitFunctionCount();
    JitFunction f = JitFunction.create(FUSED, alphaBeta());
    assertFalse(f.isClosed());
    f.close();
    f.close();
    assertTrue(f.isClosed());
    assertEquals(live, Torch.liveJitFunctionCount());
    assertEquals("JitFunction(closed)", f.toString());
    try (Tensor x = Tensor.ones(2)) {
      for (org.junit.function.ThrowingRunnable r : List.<org.junit.function.ThrowingRunnable>of(
          f::name, f::numOutputs, f::newReference, () -> f.call(x), () -> f.callMulti(x),
          () -> f.call(Map.of("beta", 2L), x, x), () -> f.callOut(new Tensor[] {x}, x, x),
          () -> f.callOut(Map.of("beta", 2L), new Tensor[] {x}, x, x))) {
        CtorchException e = assertStatus(CtorchException.INVALID_HANDLE, r);
        assertEquals("the JitFunction is closed", e.detail());
      }
    }
  }

  @Test
  public void newReferenceOutlivesTheFirst() {
    long live = Torch.liveJitFunctionCount();
    JitFunction f = JitFunction.create(FUSED, alphaBeta());
    try (JitFunction g = f.newReference()) {
      assertEquals(live + 1, Torch.liveJitFunctionCount()); // one function, two references
      f.close();
      assertTrue(f.isClosed());
      assertEquals(live + 1, Torch.liveJitFunctionCount());
      assertEquals("my_fused_kernel", g.name());
    } finally {
      f.close();
    }
    assertEquals(live, Torch.liveJitFunctionCount());
  }

  @Test
  public void theCleanerReleasesDroppedFunctions() throws Exception {
    long live = Torch.liveJitFunctionCount();
    for (int i = 0; i < 20; i++) {
      JitFunction f = JitFunction.create(FUSED, alphaBeta());
      assertEquals("my_fused_kernel", f.name());
    }
    assertEquals(live, awaitCount(live, Torch::liveJitFunctionCount));
  }

  @Test
  public void threadsMakeAndUseFunctions() throws Exception {
    long live = Torch.liveJitFunctionCount();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try (JitFunction shared = JitFunction.create(FUSED, alphaBeta())) {
      CyclicBarrier start = new CyclicBarrier(8);
      List<Future<String>> names = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        final int id = t;
        names.add(pool.submit(() -> {
          start.await();
          StringBuilder sb = new StringBuilder();
          for (int i = 0; i < 50; i++) {
            try (JitFunction f = JitFunction.create("template <typename T> T f" + id + "(T x) { return x; }",
                Map.of("k", (long) i));
                JitFunction g = shared.newReference()) {
              sb.setLength(0);
              sb.append(f.name()).append(',').append(g.name()).append(',').append(g.numOutputs());
            }
          }
          return sb.toString();
        }));
      }
      for (int t = 0; t < 8; t++) {
        assertEquals("f" + t + ",my_fused_kernel,1", names.get(t).get());
      }
    } finally {
      pool.shutdown();
    }
    assertEquals(live, Torch.liveJitFunctionCount());
  }

  /* ============================================================================================
   * On a GPU
   * ========================================================================================== */

  static Tensor cuda(DType dtype, double... v) {
    try (Tensor h = Tensor.fromArray(v)) {
      return h.to(Device.cuda(0), dtype);
    }
  }

  @Test
  public void gpuFusedKernelWithKwargsAndOverrides() {
    assumeCuda();
    try (JitFunction f = JitFunction.create(FUSED, alphaBeta());
        Tensor x = cuda(DType.FLOAT32, 1, 2, 3, 4, 5);
        Tensor y = cuda(DType.FLOAT32, 10, 20, 30, 40, 50)) {
      try (Tensor z = f.call(x, y)) {
        assertEquals(DType.FLOAT32, z.dtype());
        assertValues(z, 11, 22, 33, 44, 55);
      }
      Map<String, Object> over = new LinkedHashMap<>();
      over.put("beta", -1L);
      over.put("alpha", 0.5);
      try (Tensor z = f.call(over, x, y)) {
        assertValues(z, -9.5f, -19f, -28.5f, -38f, -47.5f);
      }
      Tensor[] zs = f.callMulti(x, y);
      assertEquals(1, zs.length);
      try (Tensor z = zs[0]) {
        assertValues(z, 11, 22, 33, 44, 55);
      }
      CtorchException e = assertStatus(CtorchException.ARGUMENT, () -> f.call(Map.of("gamma", 1L), x, y));
      assertTrue(e.detail(), e.detail().contains("gamma is not declared in function definition"));
    }
  }

  @Test
  public void gpuTwoOutputs() {
    assumeCuda();
    Map<String, Object> kw = new LinkedHashMap<>();
    kw.put("neg", false);
    kw.put("scale", 2.0);
    try (JitFunction f = JitFunction.createMultiOutput(TWO_OUTPUTS, 2, kw);
        Tensor a = cuda(DType.FLOAT16, 1, 2);
        Tensor b = cuda(DType.FLOAT16, 10, 20)) {
      Tensor[] outs = f.callMulti(a, b);
      try (Tensor s = outs[0]; Tensor d = outs[1]) {
        assertEquals(DType.FLOAT16, s.dtype());
        assertValues(s, 22, 44);
        assertValues(d, -9, -18);
      }
      outs = f.callMulti(Map.of("neg", true), a, b);
      try (Tensor s = outs[0]; Tensor d = outs[1]) {
        assertValues(s, 22, 44);
        assertValues(d, 9, 18);
      }
      CtorchException e = assertStatus(CtorchException.ARGUMENT, () -> f.call(a, b));
      assertTrue(e.detail(), e.detail().contains("sd makes 2 outputs, but n_outs is 1"));
    }
  }

  /** The out form: into a float64 output, with an override, in place, a shape error, two outputs. */
  @Test
  public void gpuCallOut() {
    assumeCuda();
    Device cuda = Device.cuda(0);
    try (JitFunction f = JitFunction.create(FUSED, alphaBeta());
        Tensor x = cuda(DType.FLOAT32, 1, 2, 3, 4, 5);
        Tensor y = cuda(DType.FLOAT32, 10, 20, 30, 40, 50);
        Tensor o = Tensor.empty(shape(5), DType.FLOAT64, cuda);
        Tensor s4 = Tensor.zeros(shape(4), DType.FLOAT32, cuda)) {
      long live = Torch.liveTensorCount();
      f.callOut(new Tensor[] {o}, x, y); // float32 values stored as float64
      assertEquals(DType.FLOAT64, o.dtype());
      assertArrayEquals(new double[] {11, 22, 33, 44, 55}, o.toDoubleArray(), 0);
      f.callOut(Map.of("beta", -1L), new Tensor[] {o}, x, y);
      assertArrayEquals(new double[] {-9, -18, -27, -36, -45}, o.toDoubleArray(), 0);
      assertEquals("nothing new is made", live, Torch.liveTensorCount());
      CtorchException e = assertStatus(CtorchException.SHAPE, () -> f.callOut(new Tensor[] {s4}, x, y));
      assertTrue(e.detail(), e.detail().contains("output with shape [4] doesn't match the broadcast shape [5]"));
      assertValues(s4, 0, 0, 0, 0);
      e = assertStatus(CtorchException.ARGUMENT, () -> f.callOut(new Tensor[] {o, o}, x, y));
      assertTrue(e.detail(), e.detail().contains("my_fused_kernel makes 1 outputs, but n_outs is 2"));
      f.callOut(new Tensor[] {x}, x, y); // in place: x = x + y
      assertValues(x, 11, 22, 33, 44, 55);
      assertValues(y, 10, 20, 30, 40, 50);
    }
    Map<String, Object> kw = new LinkedHashMap<>();
    kw.put("neg", false);
    kw.put("scale", 2.0);
    try (JitFunction f = JitFunction.createMultiOutput(TWO_OUTPUTS, 2, kw);
        Tensor a = cuda(DType.FLOAT16, 1, 2);
        Tensor b = cuda(DType.FLOAT16, 10, 20);
        Tensor s = Tensor.zeros(shape(2), DType.FLOAT32, cuda);
        Tensor d = Tensor.zeros(shape(2), DType.FLOAT64, cuda)) {
      f.callOut(new Tensor[] {s, d}, a, b);
      assertValues(s, 22, 44);
      assertArrayEquals(new double[] {-9, -18}, d.toDoubleArray(), 0);
      f.callOut(Map.of("neg", true), new Tensor[] {s, d}, a, b);
      assertArrayEquals(new double[] {9, 18}, d.toDoubleArray(), 0);
      CtorchException e = assertStatus(CtorchException.ARGUMENT, () -> f.callOut(new Tensor[] {s}, a, b));
      assertTrue(e.detail(), e.detail().contains("sd makes 2 outputs, but n_outs is 1"));
    }
  }

  @Test
  public void gpuCompileErrorCarriesNvrtcsLog() {
    assumeCuda();
    try (JitFunction f = JitFunction.create("template <typename T> T broken(T x) {\n  return x + undefined_name;\n}");
        Tensor x = cuda(DType.FLOAT32, 1, 2)) {
      CtorchException e = assertStatus(CtorchException.ARGUMENT, () -> f.call(x));
      assertTrue(e.detail(), e.detail().contains("identifier \"undefined_name\" is undefined"));
    }
  }

  @Test
  public void gpuEightThreadsFirstCallsCompileOnce() throws Exception {
    assumeCuda();
    // code no earlier test compiled in this process
    String code = "template <typename T> T cube_" + System.nanoTime() + "(T x) { return x * x * x; }";
    long before = JitFunction.kernelCount();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try (JitFunction f = JitFunction.create(code); Tensor x = cuda(DType.FLOAT32, 1, 2, 3)) {
      CyclicBarrier start = new CyclicBarrier(8);
      List<Future<float[]>> results = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        results.add(pool.submit(() -> {
          start.await();
          try (Tensor y = f.call(x)) {
            return y.toFloatArray();
          }
        }));
      }
      for (Future<float[]> r : results) {
        assertArrayEquals(new float[] {1, 8, 27}, r.get(), 0f);
      }
    } finally {
      pool.shutdown();
    }
    assertEquals(before + 1, JitFunction.kernelCount());
  }
}
