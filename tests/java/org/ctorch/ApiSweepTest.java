package org.ctorch;

import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.Parameterized;
import org.junit.runners.Parameterized.Parameter;
import org.junit.runners.Parameterized.Parameters;

/**
 * The systematic part of issue 19's bad-input corpus, found by reflection instead of written by
 * hand (so a new public method is swept without an edit here), over every public method of the
 * public classes of {@code org.ctorch} (Tensor's and Cuda's inherited ones included), with valid
 * values for the arguments not under test. Three kinds of rows:
 * <ol>
 *   <li><b>closed receiver</b>: every instance method of a class with a close ({@link Tensor},
 *       {@link Event}, {@link Generator}, {@link Stream}, {@link CudaGraph},
 *       {@link JitFunction}, {@link NcclComm}, {@link GraphedCallable}) called on a closed
 *       object throws {@link CtorchException} code 102 "the X is closed", except the methods
 *       that need no handle ({@link #HANDLE_FREE}), which work;</li>
 *   <li><b>closed argument</b>: every parameter of one of those types (or an array or list of
 *       tensors) given a closed object throws code 102 "the X is closed" (a closed optional
 *       generator or stream is not a null one);</li>
 *   <li><b>null argument</b>: every object or array parameter given null. The call must end
 *       in one of:
 * <ul>
 *   <li>a {@link NullPointerException} from an explicit check (its message names the argument,
 *       e.g. "shape"), never the JVM's "Cannot invoke ... because ... is null", which means the
 *       binding dereferenced the argument unchecked;</li>
 *   <li>for a parameter where null has a documented meaning ({@link #optional}: a default
 *       dtype, generator, stream, norm, dims, FFT sizes, extra arguments, timeout...), a return or
 *       the binding's exception ({@link CtorchException}, {@link IllegalArgumentException},
 *       {@link IllegalStateException}).</li>
 * </ul></li>
 * </ol>
 * One JUnit test per row; live counts are checked after each by {@link CtorchTestCase};
 * whatever a call returns is closed.
 */
@RunWith(Parameterized.class)
public class ApiSweepTest extends CtorchTestCase {

  /** The classes whose public methods are swept. */
  static final List<Class<?>> CLASSES = List.of(Tensor.class, Cuda.class, Stream.class,
      Event.class, Generator.class, CudaGraph.class, GraphedCallable.class, NcclComm.class,
      JitFunction.class, CudaComm.class, FFT.class, Torch.class, Device.class, DType.class,
      TensorScope.class, Nvtx.class, CudaSanitizer.class, ValuesIndices.class, UniqueResult.class,
      CtorchException.class, Cuda.CufftPlanCache.class, SafeTensors.class, SafeTensorsFile.class,
      StatMean.class, DLPack.class, DLPack.Capsule.class);

  /** Parameter types where null always has a documented meaning (a default). */
  static final Set<Class<?>> OPTIONAL_TYPES = Set.of(Generator.class, Stream.class,
      Stream[].class, FFT.Norm.class, Map.class, Duration.class, Object[].class,
      java.util.function.Consumer.class);

  /** Methods whose DType parameter may be null (the default or the input's dtype). */
  static final Set<String> OPTIONAL_DTYPE = Set.of("sum", "mean", "prod", "reduce", "newEmpty",
      "newZeros", "newOnes", "newFull", "newTensor", "emptyLike", "zerosLike", "onesLike",
      "fullLike", "randLike", "randnLike", "rand", "randn", "randint", "to", "fftfreq", "cumsum",
      "cumprod", "softmax", "logSoftmax");

  /** Methods whose int[] (dims) or long[] (FFT sizes, chunk sizes) parameter may be null. */
  static final Set<String> OPTIONAL_DIMS = Set.of("sum", "mean", "prod", "amax", "amin",
      "reduce", "norm", "fft2", "ifft2", "fftn", "ifftn", "rfftn", "irfftn", "fftshift",
      "ifftshift", "scatter", "logsumexp", "var", "std", "varMean", "stdMean");

  /** Methods whose Tensor parameters other than the first may be null (layer_norm's weight and bias). */
  static final Set<String> OPTIONAL_TENSORS = Set.of("layerNorm");

  /**
   * Methods whose parameters at these positions may be null (searchsorted's side and sorter,
   * fromBlob's strides and onFree, clamp's tensor bounds, nanToNum's replacements).
   */
  static final Map<String, Set<Integer>> OPTIONAL_PARAMS = Map.of("searchsorted", Set.of(3, 4),
      "fromBlob", Set.of(2, 5), "clamp", Set.of(0, 1), "nanToNum", Set.of(0, 1, 2));

  /** True where null has a documented meaning for this row's parameter. */
  static boolean optional(Row row) {
    Class<?> t = row.method().getParameterTypes()[row.param()];
    String name = row.method().getName();
    if (OPTIONAL_PARAMS.getOrDefault(name, Set.of()).contains(row.param())) {
      return true;
    }
    if (OPTIONAL_TYPES.contains(t)) {
      return true;
    }
    if (t == DType.class) {
      // to(DType) alone and newTensor's buffer dtype are required
      return OPTIONAL_DTYPE.contains(name) && !(name.equals("to")
          && row.method().getParameterCount() == 1) && !(name.equals("newTensor")
          && row.param() == 1);
    }
    if (t == Tensor.class && OPTIONAL_TENSORS.contains(name)) {
      return true;
    }
    return (t == int[].class || t == long[].class) && OPTIONAL_DIMS.contains(name);
  }

  /** What a row puts in place of a valid value. */
  enum Kind { NULL_ARG, CLOSED_ARG, CLOSED_SELF }

  /** The classes with a close whose closed objects the sweep uses. */
  static final List<Class<?>> CLOSEABLE = List.of(Tensor.class, Event.class, Generator.class,
      Stream.class, CudaGraph.class, JitFunction.class, NcclComm.class, GraphedCallable.class,
      SafeTensorsFile.class);

  /** "Class.method" of the methods that need no native handle: they work on a closed object. */
  static final Set<String> HANDLE_FREE = Set.of("close", "isClosed", "toString", "hashCode",
      "Event.isTimingEnabled", "Event.isBlocking", "Generator.device", "GraphedCallable.numInputs");

  /**
   * "Class.method" of the methods that do not use a closed tensor argument's handle: attaching
   * a closed tensor to a scope or detaching it is harmless (closing is idempotent).
   */
  static final Set<String> CLOSED_ARG_UNUSED = Set.of("TensorScope.attach", "TensorScope.detach");

  record Row(Kind kind, Method method, int param) {
    @Override
    public String toString() {
      return (kind == Kind.CLOSED_SELF ? "closed receiver: "
          : kind == Kind.CLOSED_ARG ? "closed arg " + param + ": " : "null arg " + param + ": ")
          + method.getDeclaringClass().getSimpleName() + "." + method.getName()
          + Arrays.toString(Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName)
              .toArray()).replace('[', '(').replace(']', ')');
    }
  }

  /**
   * The closeable class whose closed object a CLOSED_ARG row passes for parameter i of m (an
   * object of that class, an array or a list of tensors, a list of lists of tensors), or null.
   */
  static Class<?> closeableOf(Method m, int i) {
    Class<?> t = m.getParameterTypes()[i];
    String generic = m.getGenericParameterTypes()[i].getTypeName();
    if (t == Tensor[].class || generic.equals("java.util.List<org.ctorch.Tensor>")
        || generic.equals("java.util.List<java.util.List<org.ctorch.Tensor>>")) {
      return Tensor.class;
    }
    if (t == Stream[].class) {
      return Stream.class;
    }
    return CLOSEABLE.contains(t) ? t : null;
  }

  @Parameters(name = "{0}")
  public static Collection<Object[]> rows() {
    List<Object[]> rows = new ArrayList<>();
    for (Class<?> c : CLASSES) {
      Method[] ms = c.getMethods();
      Arrays.sort(ms, Comparator.comparing(Method::toGenericString));
      for (Method m : ms) {
        if (m.getDeclaringClass() == Object.class || m.getDeclaringClass() == Record.class
            || m.getDeclaringClass() == Enum.class || m.getDeclaringClass() == Throwable.class
            || !Modifier.isPublic(m.getDeclaringClass().getModifiers()) && !isChainClass(m)) {
          continue;
        }
        if (m.getName().equals("equals")) {
          continue;
        }
        if (!Modifier.isStatic(m.getModifiers()) && CLOSEABLE.contains(c)) {
          rows.add(new Object[] {new Row(Kind.CLOSED_SELF, m, -1)});
        }
        Class<?>[] ps = m.getParameterTypes();
        for (int i = 0; i < ps.length; i++) {
          if (!ps[i].isPrimitive()) {
            rows.add(new Object[] {new Row(Kind.NULL_ARG, m, i)});
          }
          if (closeableOf(m, i) != null) {
            rows.add(new Object[] {new Row(Kind.CLOSED_ARG, m, i)});
          }
        }
      }
    }
    return rows;
  }

  /** The package-private superclasses of Tensor and Cuda (their methods are Tensor's, Cuda's). */
  static boolean isChainClass(Method m) {
    String n = m.getDeclaringClass().getSimpleName();
    return n.startsWith("Tensor") || n.startsWith("Cuda");
  }

  @Parameter
  public Row row;

  /** A valid value of type t for a parameter that is not the null one. */
  static Object valid(Class<?> t, List<AutoCloseable> made) throws Exception {
    if (t == Tensor.class) {
      Tensor x = Tensor.ones(2, 2);
      made.add(x);
      return x;
    }
    if (t == Tensor[].class) {
      Tensor x = Tensor.ones(2, 2);
      made.add(x);
      return new Tensor[] {x};
    }
    if (t == List.class || t == Collection.class) {
      Tensor x = Tensor.ones(2, 2);
      made.add(x);
      return List.of(x);
    }
    if (t == long[].class) {
      return new long[] {2, 2};
    }
    if (t == int[].class) {
      return new int[] {0};
    }
    if (t == float[].class) {
      return new float[] {1, 2, 3, 4};
    }
    if (t == double[].class) {
      return new double[] {1, 2, 3, 4};
    }
    if (t == short[].class) {
      return new short[] {1, 2, 3, 4};
    }
    if (t == byte[].class) {
      return new byte[16];
    }
    if (t == boolean[].class) {
      return new boolean[] {true, false, true, false};
    }
    if (t == DType.class) {
      return DType.FLOAT32;
    }
    if (t == Device.class) {
      return Device.CPU;
    }
    if (t == DeviceType.class) {
      return DeviceType.CPU;
    }
    if (t == String.class) {
      return "cpu";
    }
    if (t == ByteBuffer.class) {
      return ByteBuffer.allocateDirect(16);
    }
    if (t == Runnable.class) {
      return (Runnable) () -> { };
    }
    if (t == Duration.class) {
      return Duration.ofSeconds(1);
    }
    if (t == Map.class) {
      return Map.of();
    }
    if (t == Object[].class) {
      return new Object[0];
    }
    if (t.isEnum()) {
      return t.getEnumConstants()[0];
    }
    if (t == Generator.class) {
      Generator g = Generator.create();
      made.add(g);
      return g;
    }
    if (t == Event.class) {
      Event e = Event.create();
      made.add(e);
      return e;
    }
    if (t == Stream.class) {
      Stream s = Stream.adopt(StreamEventTest.FOREIGN_STREAM, 0, 0);
      made.add(s);
      return s;
    }
    if (t == Stream[].class) {
      return new Stream[0];
    }
    if (t == GraphedCallable.Options.class) {
      return GraphedCallable.Options.DEFAULTS;
    }
    if (t == GraphedCallable.Body.class) {
      return (GraphedCallable.Body<RuntimeException>) () -> { };
    }
    if (t == Double.class) {
      return 1.0; // nanToNum's optional replacements
    }
    return null; // no valid value known: the row reports it
  }

  /** The receiver of an instance method. */
  static Object receiver(Class<?> c, List<AutoCloseable> made) throws Exception {
    if (c.isAssignableFrom(Tensor.class)) {
      return valid(Tensor.class, made);
    }
    if (c == Event.class || c == Generator.class || c == Stream.class) {
      return valid(c, made);
    }
    if (c == CudaGraph.class) {
      CudaGraph g = CudaGraph.create();
      made.add(g);
      return g;
    }
    if (c == JitFunction.class) {
      JitFunction f = JitFunction.create(BadInputTest.JIT_CODE);
      made.add(f);
      return f;
    }
    if (c == NcclComm.class) {
      NcclComm n = NcclComm.adopt(NcclCommTest.FOREIGN, h -> 0);
      made.add(n);
      return n;
    }
    if (c == GraphedCallable.class) {
      GraphedCallable g = GraphedCallable.adopt(BadInputTest.GRAPHED_FOREIGN, 1);
      made.add(g);
      return g;
    }
    if (c == Device.class) {
      return Device.CPU;
    }
    if (c == DType.class) {
      return DType.FLOAT32;
    }
    if (c == TensorScope.class) {
      TensorScope s = TensorScope.open();
      made.add(s);
      return s;
    }
    if (c == ValuesIndices.class) {
      Tensor x = Tensor.ones(2, 2);
      made.add(x);
      ValuesIndices vi = x.max(0);
      made.add(vi);
      return vi;
    }
    if (c == UniqueResult.class) {
      Tensor x = Tensor.ones(2, 2);
      made.add(x);
      UniqueResult u = x.unique(true, true);
      made.add(u);
      return u;
    }
    if (c == Cuda.CufftPlanCache.class) {
      return Cuda.cufftPlanCache(0);
    }
    if (c == SafeTensorsFile.class) {
      SafeTensorsFile f = SafeTensors.load(SafeTensors.save(Map.of(), null));
      made.add(f);
      return f;
    }
    return null;
  }

  /** A closed object for parameter i of m (see {@link #closeableOf}). */
  static Object closedValue(Method m, int i, List<AutoCloseable> made) throws Exception {
    Class<?> c = closeableOf(m, i);
    Object o = c == Tensor.class ? valid(Tensor.class, made) : receiver(c, made);
    ((AutoCloseable) o).close();
    Class<?> t = m.getParameterTypes()[i];
    if (t == Tensor[].class) {
      return new Tensor[] {(Tensor) o};
    }
    if (t == Stream[].class) {
      return new Stream[] {(Stream) o};
    }
    if (t == List.class) {
      return m.getGenericParameterTypes()[i].getTypeName().contains("List<java.util.List")
          ? List.of(List.of(o)) : List.of(o);
    }
    return o;
  }

  /** "Class.method" of the row's method, by the class that declares it. */
  static String qualified(Method m) {
    return m.getDeclaringClass().getSimpleName() + "." + m.getName();
  }

  @Test
  public void sweep() throws Throwable {
    Method m = row.method();
    List<AutoCloseable> made = new ArrayList<>();
    Throwable thrown = null;
    String setup = null;
    String closedKind = null;
    try {
      Object self = null;
      if (!Modifier.isStatic(m.getModifiers())) {
        self = receiver(m.getDeclaringClass(), made);
        if (self == null) {
          setup = "no receiver for " + m.getDeclaringClass();
        } else if (row.kind() == Kind.CLOSED_SELF) {
          ((AutoCloseable) self).close();
          closedKind = self.getClass().getSimpleName();
        }
      }
      Class<?>[] ps = m.getParameterTypes();
      Object[] args = new Object[ps.length];
      for (int i = 0; i < ps.length && setup == null; i++) {
        if (i == row.param()) {
          if (row.kind() == Kind.CLOSED_ARG) {
            args[i] = closedValue(m, i, made);
            closedKind = closeableOf(m, i).getSimpleName();
          }
          continue;
        }
        args[i] = ps[i].isPrimitive() ? primitive(ps[i])
            : m.getName().startsWith("scatter") && ps[i] == long[].class ? new long[] {2}
            : m.getName().startsWith("scatter") && ps[i] == Stream[].class ? new Stream[1]
            : valid(ps[i], made);
        if (args[i] == null) {
          setup = "no valid value for " + ps[i];
        }
      }
      if (setup == null) {
        try {
          Object r = m.invoke(self, args);
          if (r instanceof AutoCloseable c) {
            made.add(c);
          } else if (r instanceof Tensor[] ts) {
            made.addAll(Arrays.asList(ts));
          } else if (r instanceof Tensor[][] tss) {
            for (Tensor[] ts : tss) {
              made.addAll(Arrays.asList(ts));
            }
          }
        } catch (InvocationTargetException e) {
          thrown = e.getCause();
        }
      }
    } finally {
      for (int i = made.size() - 1; i >= 0; i--) {
        try {
          made.get(i).close();
        } catch (Exception ignored) {
          // a foreign object's refused release, a scope of another state: not this row's point
        }
      }
      Torch.clearError();
    }
    assertNull(row + ": " + setup, setup);
    String outcome = thrown == null ? "returned"
        : thrown.getClass().getSimpleName() + ": " + thrown.getMessage();
    if (row.kind() == Kind.NULL_ARG) {
      checkNull(outcome, thrown);
      return;
    }
    if (row.kind() == Kind.CLOSED_ARG && CLOSED_ARG_UNUSED.contains(qualified(m))) {
      assertTrue(row + ": " + outcome, thrown == null || thrown instanceof CtorchException
          || thrown instanceof IllegalArgumentException);
      return;
    }
    if (row.kind() == Kind.CLOSED_SELF && (HANDLE_FREE.contains(m.getName())
        || HANDLE_FREE.contains(qualified(m)))) {
      assertNull(row + " needs no handle, yet ended in " + outcome, thrown);
      return;
    }
    if (!(thrown instanceof CtorchException ce) || ce.code() != CtorchException.INVALID_HANDLE
        || !ce.detail().equals("the " + closedKind + " is closed")) {
      throw new AssertionError(row + ": expected code 102 \"the " + closedKind
          + " is closed\", got " + outcome, thrown);
    }
  }

  /** A null argument's outcome: an explicit NullPointerException, or a documented default. */
  private void checkNull(String outcome, Throwable thrown) {
    if (thrown instanceof NullPointerException) {
      String msg = thrown.getMessage();
      assertTrue(row + ": " + outcome + " (an unchecked dereference, not an explicit check)",
          msg != null && !msg.isBlank() && !UNCHECKED.matcher(msg).find());
      return;
    }
    if (thrown instanceof Error || (thrown != null && !(thrown instanceof CtorchException
        || thrown instanceof IllegalArgumentException || thrown instanceof IllegalStateException))) {
      throw new AssertionError(row + ": " + outcome, thrown);
    }
    assertTrue(row + ": null is not a documented value here, yet the call ended in " + outcome,
        optional(row));
  }

  /** The JVM's message for a null dereferenced without a check (JEP 358). */
  static final Pattern UNCHECKED = Pattern.compile("^Cannot .* because .* is null");

  static Object primitive(Class<?> t) {
    if (t == boolean.class) {
      return false;
    }
    if (t == int.class) {
      return 0;
    }
    if (t == long.class) {
      return 1L;
    }
    if (t == double.class) {
      return 1.0;
    }
    if (t == float.class) {
      return 1.0f;
    }
    if (t == short.class) {
      return (short) 0;
    }
    if (t == byte.class) {
      return (byte) 0;
    }
    return '\0';
  }
}
