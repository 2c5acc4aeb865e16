package org.ctorch;

import java.util.Arrays;
import java.util.Objects;

import org.ctorch.swig.ctorch;

/**
 * A graphed callable: {@code torch.cuda.make_graphed_callables} for one Java lambda (section 19
 * of ctorch.h, docs/java.md "CUDA graphs"), made by {@link CudaGraph#makeGraphed}.
 *
 * <p>The lambda reads the static input tensors given at creation and writes its results into
 * tensors the caller keeps. {@code makeGraphed} runs it a few times on a side stream (warm-up),
 * then once more while capturing it into a graph with a private pool; the lambda is never
 * called again. {@link #run(Tensor...)} copies new values into the static inputs and replays
 * the graph, so the output tensors hold the lambda's results for the new inputs:
 *
 * <pre>{@code
 * try (Tensor x = Tensor.zeros(new long[] {4}, DType.FLOAT32, cuda);   // static input
 *      Tensor y = Tensor.empty(new long[] {4}, DType.FLOAT32, cuda);   // output
 *      GraphedCallable f = CudaGraph.makeGraphed(() -> {
 *        try (Tensor t = x.mul(3)) {
 *          y.copy_(t.add_(1));
 *        }
 *      }, x)) {
 *   f.run(newX);                                                     // y = newX * 3 + 1
 * }
 * }</pre>
 *
 * <p>An exception thrown by the lambda (unchecked, or the checked exception type {@code E} its
 * {@link Body} declares) comes out of {@code makeGraphed} as it is, the capture is discarded and
 * nothing is left behind. Ownership is that of {@link CudaGraph}: close it (idempotent) or let
 * the {@link java.lang.ref.Cleaner} release it; the native callable keeps its static inputs
 * alive.
 */
public final class GraphedCallable extends NativeObject {
  static {
    Native.ensureLoaded();
  }

  /**
   * The work to graph: reads the static inputs, writes outputs the caller keeps. It may throw
   * the checked exception type {@code E}, which {@link CudaGraph#makeGraphed} then throws.
   */
  @FunctionalInterface
  public interface Body<E extends Exception> {
    void run() throws E;
  }

  /**
   * The options of {@link CudaGraph#makeGraphed}: {@code warmupIters} calls before the capture
   * (PyTorch's {@code num_warmup_iters}, 3 by default; 0 allowed) and the {@code pool} of the
   * capture (0: a new private pool; or an id from {@link CudaGraph#poolHandle()} or a graph's
   * {@link CudaGraph#pool()} to share one). The C library checks the values.
   */
  public record Options(int warmupIters, long pool) {
    /** PyTorch's defaults: 3 warm-up calls, a new private pool. */
    public static final Options DEFAULTS = new Options(3, 0);

    /** These options with another number of warm-up calls. */
    public Options withWarmupIters(int n) {
      return new Options(n, pool);
    }

    /** These options with another pool id. */
    public Options withPool(long id) {
      return new Options(warmupIters, id);
    }
  }

  private final int numInputs;

  private GraphedCallable(long handle, int numInputs) {
    super(handle, ctorch::ct_cuda_graphed_release, "GraphedCallable");
    this.numInputs = numInputs;
  }

  /**
   * A {@code GraphedCallable} over a handle it now owns, asking the library nothing: for the
   * suites, which cannot make one on a machine without a GPU (they adopt handles the C layer
   * rejects).
   */
  static GraphedCallable adopt(long handle, int numInputs) {
    return new GraphedCallable(handle, numInputs);
  }

  /** Rethrows t, which the lambda threw: E, unchecked or an Error. */
  @SuppressWarnings("unchecked")
  private static <E extends Exception> RuntimeException rethrow(Throwable t) throws E {
    throw (E) t;
  }

  static <E extends Exception> GraphedCallable make(Body<E> fn, Options options, Tensor... staticInputs)
      throws E {
    Objects.requireNonNull(fn, "fn");
    Objects.requireNonNull(options, "options");
    long[] hs = TensorBase.handles(staticInputs, "staticInputs");
    long[] out = {0};
    Throwable[] thrown = {null};
    int st;
    try {
      st = make0(fn, hs, options.warmupIters(), options.pool(), out, thrown);
    } finally {
      TensorBase.fence(Arrays.asList(staticInputs));
    }
    if (thrown[0] != null) {
      if (st == Native.CT_OK) { // never: the lambda's failure stops the C call
        ctorch.ct_cuda_graphed_release(out[0]);
      }
      throw GraphedCallable.<E>rethrow(thrown[0]);
    }
    Native.check(st);
    try {
      return new GraphedCallable(out[0], hs.length);
    } catch (Throwable e) {
      ctorch.ct_cuda_graphed_release(out[0]);
      throw e;
    }
  }

  /** The number of static inputs given at creation. */
  public int numInputs() {
    return numInputs;
  }

  /**
   * Runs the graphed lambda: copies inputs[i] into static input i, then replays the graph, all
   * on the current stream. Pass as many inputs as static inputs were given, or none to keep the
   * static inputs as they are (another count: code 100). Each input must have its static input's shape, dtype and device
   * (codes 103, 104, 201); a null input throws {@link NullPointerException}, a closed one code
   * 102.
   */
  public void run(Tensor... inputs) {
    long[] hs = TensorBase.handles(inputs, "inputs");
    try {
      Native.run(this, () -> ctorch.ct_cuda_graphed_run(handle(), hs, hs.length));
    } finally {
      TensorBase.fence(Arrays.asList(inputs));
    }
  }

  /** The callable's graph (a new reference the caller closes): for its pool id or a replay. */
  public CudaGraph graph() {
    return CudaGraph.wrap(Native.longOut(this, out -> ctorch.ct_cuda_graphed_graph(handle(), out)));
  }

  /**
   * Another owning reference to this very same native callable (ct_cuda_graphed_retain), with
   * its own lifetime. Close it independently.
   */
  public GraphedCallable newReference() {
    return newReference(ctorch::ct_cuda_graphed_retain, ctorch::ct_cuda_graphed_release,
        h -> new GraphedCallable(h, numInputs));
  }

  @Override
  public String toString() {
    return "<GraphedCallable inputs=" + numInputs + (isClosed() ? " (closed)>" : ">");
  }

  /**
   * ct_cuda_make_graphed_callable with fn called through bindings/java/graph_jni.c: fn.run() is
   * called for each warm-up and for the capture; the first exception it throws is stored in
   * thrown[0] (and makes the C call fail). out[0] gets the handle. Returns a ct_status.
   */
  private static native int make0(Body<?> fn, long[] staticInputs, int warmupIters, long pool, long[] out,
      Throwable[] thrown);

  /**
   * For the suites: calls graph_jni.c's callback trampoline with fn as ctorch would (no GPU
   * needed), on this thread or on a new native thread unknown to the JVM. Returns the
   * trampoline's status (0, or non-zero when fn threw, its exception in thrown[0]), or -1 when
   * the thread cannot be made.
   */
  static native int callForTest0(Body<?> fn, boolean onNewThread, Throwable[] thrown);
}
