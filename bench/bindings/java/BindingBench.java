import java.util.Arrays;

import org.ctorch.DType;
import org.ctorch.Tensor;

/**
 * The Java side of the binding-overhead benchmark (bench/bindings/run.sh): the cost of a no-op
 * call and of one small op through the idiomatic API (org.ctorch.Tensor), to compare with the C
 * baseline in bench/bindings/c. Prints on stdout
 *
 * <pre>
 * java noop &lt;ns&gt;        Tensor.numel() on a live 1-element tensor (one ct_tensor_numel)
 * java small_add &lt;ns&gt;   try (Tensor c = a.add(b)) {}: ct_binary(CT_ADD) + ct_tensor_release
 * </pre>
 *
 * each the median of 7 rounds (1,000,000 and 200,000 iterations) after a warm-up that runs the
 * same round methods until the JIT has compiled them. With argument "raw" it also prints, on
 * stderr, the same two loops through the SWIG class org.ctorch.swig.ctorch directly (the JNI
 * cost without the idiomatic layer), as a breakdown.
 */
public final class BindingBench {
  private BindingBench() {}

  private static final int ROUNDS = 7;
  private static final long NOOP_ITERS = 1_000_000;
  private static final long ADD_ITERS = 200_000;
  /** Warm-up: this many full rounds of each loop before timing (>= 20000 iterations each). */
  private static final int WARMUP_ROUNDS = 5;

  /** Results are folded into this, so the JIT cannot drop the calls. */
  static volatile long sink;

  static double noopRound(Tensor a, long iters) {
    long s = 0;
    long t0 = System.nanoTime();
    for (long i = 0; i < iters; i++) {
      s += a.numel();
    }
    long t1 = System.nanoTime();
    sink += s;
    return (double) (t1 - t0) / iters;
  }

  static double addRound(Tensor a, Tensor b, long iters) {
    long s = 0;
    long t0 = System.nanoTime();
    for (long i = 0; i < iters; i++) {
      Tensor c = a.add(b);
      c.close();
      s += c.isClosed() ? 1 : 0;   // counts the closes (sink == iterations)
    }
    long t1 = System.nanoTime();
    sink += s;
    return (double) (t1 - t0) / iters;
  }

  /* ---- the same loops on the SWIG layer (handles as longs), for the breakdown on stderr ---- */

  static double rawNoopRound(long a, long iters) {
    long[] n = {0};
    long s = 0;
    long t0 = System.nanoTime();
    for (long i = 0; i < iters; i++) {
      org.ctorch.swig.ctorch.ct_tensor_numel(a, n);
      s += n[0];
    }
    long t1 = System.nanoTime();
    sink += s;
    return (double) (t1 - t0) / iters;
  }

  static double rawAddRound(long a, long b, long iters) {
    long[] c = {0};
    long s = 0;
    long t0 = System.nanoTime();
    for (long i = 0; i < iters; i++) {
      org.ctorch.swig.ctorch.ct_binary(org.ctorch.swig.ctorch.CT_ADD, a, b, c);
      s += c[0];
      org.ctorch.swig.ctorch.ct_tensor_release(c[0]);
    }
    long t1 = System.nanoTime();
    sink += s;
    return (double) (t1 - t0) / iters;
  }

  @FunctionalInterface
  interface Round {
    double run(long iters);
  }

  /** Warm-up rounds, then ROUNDS timed rounds; returns the median ns/op. */
  static double measure(String what, Round r, long iters) {
    for (int w = 0; w < WARMUP_ROUNDS; w++) {
      r.run(iters);
    }
    double[] v = new double[ROUNDS];
    for (int i = 0; i < ROUNDS; i++) {
      v[i] = r.run(iters);
    }
    double[] sorted = v.clone();
    Arrays.sort(sorted);
    StringBuilder sb = new StringBuilder();
    for (double x : v) {
      sb.append(String.format(" %.1f", x));
    }
    System.err.println("# " + what + " rounds (ns/op):" + sb);
    return sorted[ROUNDS / 2];
  }

  public static void main(String[] args) {
    boolean raw = Arrays.asList(args).contains("raw");
    try (Tensor a = Tensor.full(new long[] {1}, 1.5);
         Tensor b = Tensor.full(new long[] {1}, 2.5)) {
      if (a.numel() != 1 || a.dtype() != DType.FLOAT32 || a.isCuda()) {
        throw new IllegalStateException("expected a 1-element float32 CPU tensor, got " + a);
      }
      double noop = measure("java noop", n -> noopRound(a, n), NOOP_ITERS);
      double add = measure("java small_add", n -> addRound(a, b, n), ADD_ITERS);
      if (raw) {
        long[] ha = {0};
        long[] hb = {0};
        long[] one = {1};
        int cpu = org.ctorch.swig.ctorch.CT_CPU;
        int f32 = org.ctorch.swig.ctorch.CT_FLOAT32;
        check(org.ctorch.swig.ctorch.ct_full(one, 1, 1.5, f32, cpu, -1, ha));
        check(org.ctorch.swig.ctorch.ct_full(one, 1, 2.5, f32, cpu, -1, hb));
        double rn = measure("swig noop", n -> rawNoopRound(ha[0], n), NOOP_ITERS);
        double ra = measure("swig small_add", n -> rawAddRound(ha[0], hb[0], n), ADD_ITERS);
        System.err.printf("swig noop %.1f%nswig small_add %.1f%n", rn, ra);
        org.ctorch.swig.ctorch.ct_tensor_release(ha[0]);
        org.ctorch.swig.ctorch.ct_tensor_release(hb[0]);
      }
      System.out.printf("java noop %.1f%n", noop);
      System.out.printf("java small_add %.1f%n", add);
    }
    System.err.println("# sink " + sink);
  }

  private static void check(int status) {
    if (status != 0) {
      throw new IllegalStateException("ctorch call failed with status " + status);
    }
  }
}
