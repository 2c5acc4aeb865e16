package org.ctorch;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.AfterClass;
import org.junit.Assume;
import org.junit.BeforeClass;
import org.junit.Test;
import org.junit.function.ThrowingRunnable;
import org.junit.runner.RunWith;
import org.junit.runners.Parameterized;
import org.junit.runners.Parameterized.Parameter;
import org.junit.runners.Parameterized.Parameters;

/**
 * Issue 19's bad-input corpus for the Java binding: one row per case (a name, the call, the
 * exception class, the status code for a {@link CtorchException}, a fragment of the message),
 * run as one JUnit test each. Null arguments, closed objects of every class with a close, foreign
 * handles and objects of the wrong kind, wrong dtypes, shapes and devices, out-of-range values,
 * concurrent close while other threads use the object, and Cleaner releases racing explicit
 * closes. Every case must throw the binding's exception with a non-empty message naming the
 * problem, never crash or hang; each leaves the live-handle counts where they were (checked by
 * {@link CtorchTestCase} after every case, and for the whole corpus in {@link #countsAtTheEnd}).
 *
 * <p>Rows marked {@link Needs#GPU} skip visibly here; {@link Needs#NO_GPU} rows check code 301
 * (CUDA unavailable), the answer of every CUDA call on a machine without a GPU. A row with a
 * {@code knownCBug} reason checks a value the C layer accepts today although it should refuse
 * it: it skips (visibly, with the reason) while the C layer accepts the value and passes once
 * it is refused.
 */
@RunWith(Parameterized.class)
public class BadInputTest extends CtorchTestCase {

  /** Where a case can run. */
  enum Needs { ANY, GPU, NO_GPU }

  /** The call of a case, given fresh fixtures. */
  @FunctionalInterface
  interface Call {
    void run(Fx f) throws Throwable;
  }

  /**
   * One row of the corpus: the exception type, the status code (null: not a CtorchException or
   * any code) and a fragment of the message (for a NullPointerException the whole message, the
   * argument's name; null for a JDK exception type that has no message).
   */
  record Case(String name, Needs needs, Class<? extends Throwable> type, Integer code,
      String fragment, String knownCBug, Call call) {
    @Override
    public String toString() {
      return name;
    }
  }

  /** Unused handles of the tensor (tag 5) and graphed-callable (tag 0xa) kinds. */
  static final long FOREIGN_TENSOR = 0x5000_0001_FFFF_FFF0L;
  static final long GRAPHED_FOREIGN = 0xA000_0001_FFFF_FFF0L;
  static final String CLOSED = "is closed";
  static final String NO_CUDA = "CUDA is not available";

  /**
   * Fresh objects for each case: open tensors of a few dtypes and shapes, and a closed object of
   * every class with a close that can be made without a GPU.
   */
  static final class Fx implements AutoCloseable {
    final Tensor t = Tensor.fromArray(new float[] {0, 1, 2, 3, 4, 5}, 2, 3); // float32 [2, 3]
    final Tensor v = Tensor.fromArray(new float[] {1, 2, 3});              // float32 [3]
    final Tensor l = Tensor.fromArray(new long[] {1, 2, 3, 4});            // int64 [4]
    final Tensor b = Tensor.fromArray(new boolean[] {true, false, true});  // bool [3]
    final Tensor closed = closedTensor();
    final Event closedEvent = closed(Event.create());
    final Generator closedGen = closed(Generator.create());
    final CudaGraph closedGraph = closed(CudaGraph.create());
    final JitFunction closedJit = closed(JitFunction.create(JIT_CODE));
    final Stream closedStream = closed(Stream.adopt(StreamEventTest.FOREIGN_STREAM, 0, 0));
    final NcclComm closedComm = closed(NcclComm.adopt(NcclCommTest.FOREIGN, h -> 0));

    static Tensor closedTensor() {
      Tensor c = Tensor.ones(2);
      c.close();
      return c;
    }

    static <T extends AutoCloseable> T closed(T o) {
      try {
        o.close();
      } catch (Exception e) {
        throw new AssertionError(e);
      }
      return o;
    }

    @Override
    public void close() {
      t.close();
      v.close();
      l.close();
      b.close();
    }
  }

  static final String JIT_CODE = "template <typename T> T add2(T x, T y) { return x + y; }";

  /* ============================================================================================
   * Row builders
   * ========================================================================================== */

  private static final List<Case> CASES = new ArrayList<>();

  private static void add(String name, Needs needs, Class<? extends Throwable> type, Integer code,
      String fragment, Call call) {
    CASES.add(new Case(name, needs, type, code, fragment, null, call));
  }

  /** A null argument: NullPointerException whose message is the argument's name. */
  private static void npe(String name, String argument, Call call) {
    add("null " + name, Needs.ANY, NullPointerException.class, null, argument, call);
  }

  /** A call on (or with) a closed object: code 102, "the Kind is closed". */
  private static void closed(String name, String kind, Call call) {
    add("closed " + name, Needs.ANY, CtorchException.class, CtorchException.INVALID_HANDLE,
        "the " + kind + " " + CLOSED, call);
  }

  /** A CtorchException with the given code and message fragment, on any machine. */
  private static void status(String name, int code, String fragment, Call call) {
    add(name, Needs.ANY, CtorchException.class, code, fragment, call);
  }

  /** A Java argument check: the given exception class and message fragment. */
  private static void java(String name, Class<? extends Throwable> type, String fragment, Call call) {
    add(name, Needs.ANY, type, null, fragment, call);
  }

  /** A CUDA call on a machine without a GPU: code 301, "CUDA is not available". */
  private static void noGpu(String name, Call call) {
    add("no GPU: " + name, Needs.NO_GPU, CtorchException.class,
        CtorchException.CUDA_UNAVAILABLE, NO_CUDA, call);
  }

  /** A bad CUDA value on a machine with a GPU. */
  private static void gpu(String name, int code, String fragment, Call call) {
    add("GPU: " + name, Needs.GPU, CtorchException.class, code, fragment, call);
  }

  /** A value the C layer should refuse (issue 19) and today accepts: skipped while it does. */
  private static void knownCBug(String name, int code, String fragment, String reason, Call call) {
    CASES.add(new Case(name, Needs.ANY, CtorchException.class, code, fragment, reason, call));
  }

  /** Code 301 without a GPU, else the given code: a foreign handle of a CUDA-only kind. */
  static int cudaOr(int code) {
    return Cuda.isAvailable() ? code : CtorchException.CUDA_UNAVAILABLE;
  }

  static long[] shape23() {
    return new long[] {2, 3};
  }

  static {
    /* ---- 1. null arguments (objects and arrays): NullPointerException naming the argument -- */
    npe("shape of empty", "shape", f -> Tensor.empty((long[]) null));
    npe("shape of zeros", "shape", f -> Tensor.zeros(null, DType.FLOAT32, Device.CPU));
    npe("dtype of zeros", "dtype", f -> Tensor.zeros(shape23(), null, Device.CPU));
    npe("device of ones", "device", f -> Tensor.ones(shape23(), DType.FLOAT32, null));
    npe("shape of full", "shape", f -> Tensor.full(null, 1.5));
    npe("dtype of full", "dtype", f -> Tensor.full(shape23(), 1.5, null));
    npe("dtype of arange", "dtype", f -> Tensor.arange(0, 4, 1, null, Device.CPU));
    npe("device of linspace", "device", f -> Tensor.linspace(0, 1, 5, DType.FLOAT32, null));
    npe("device of eye", "device", f -> Tensor.eye(2, 2, DType.FLOAT32, null));
    npe("float[] of fromArray", "data", f -> Tensor.fromArray((float[]) null));
    npe("long[] of fromArray", "data", f -> Tensor.fromArray((long[]) null, 2));
    npe("shape of fromArray", "shape", f -> Tensor.fromArray(new float[4], (long[]) null));
    npe("bytes of fromBytes", "raw", f -> Tensor.fromBytes(null, DType.UINT8));
    npe("buffer of fromBuffer", "buf", f -> Tensor.fromBuffer(null, DType.FLOAT32, Device.CPU));
    npe("tensor of zerosLike", "t", f -> Tensor.zerosLike(null));
    npe("shape of newZeros", "shape", f -> f.t.newZeros((long[]) null));
    npe("data of newTensor", "data", f -> f.t.newTensor((float[]) null));
    npe("other of add", "other", f -> f.t.add((Tensor) null));
    npe("op of binary", "op", f -> f.t.binary(null, f.v));
    npe("op of unary", "op", f -> f.t.unary(null));
    npe("op of unary_", "op", f -> f.t.unary_(null));
    npe("cond of where", "cond", f -> Tensor.where(null, f.t, f.t));
    npe("shape of view", "shape", f -> f.t.view((long[]) null));
    npe("shape of reshape", "shape", f -> f.t.reshape((long[]) null));
    npe("dims of permute", "dims", f -> f.t.permute((int[]) null));
    npe("sizes of expand", "sizes", f -> f.t.expand((long[]) null));
    npe("list of cat", "tensors", f -> Tensor.cat((List<Tensor>) null, 0));
    npe("element of cat", "tensors[1]", f -> Tensor.cat(Arrays.asList(f.v, null), 0));
    npe("element of stack", "tensors[0]", f -> Tensor.stack(new Tensor[] {null, f.v}, 0));
    npe("device of to", "device", f -> f.t.to((Device) null));
    npe("dtype of to", "dtype", f -> f.t.to((DType) null));
    npe("src of copy_", "src", f -> f.t.copy_(null));
    npe("buffer of copyTo", "dst", f -> f.t.copyTo(null));
    npe("op of reduce", "op", f -> f.t.reduce(null, null, false, null));
    npe("other of matmul", "other", f -> f.t.matmul(null));
    npe("input of addmm", "input", f -> Tensor.addmm(null, f.t, f.t));
    npe("other of sharesStorage", "other", f -> f.t.sharesStorage(null));
    npe("tensor of fft", "t", f -> FFT.fft(null));
    npe("shape of rand", "shape", f -> Tensor.rand((long[]) null));
    npe("tensor of randLike", "t", f -> Tensor.randLike(null));
    npe("device of Generator.create", "device", f -> Generator.create(null));
    npe("state of setState", "state", f -> {
      try (Generator g = Generator.create()) {
        g.setState(null);
      }
    });
    npe("spec of Device.parse", "spec", f -> Device.parse(null));
    npe("type of Device.of", "type", f -> Device.of(null, 0));
    npe("name of DType.fromName", "name", f -> DType.fromName(null));
    npe("other of promoteTypes", "other", f -> DType.FLOAT32.promoteTypes(null));
    npe("end of elapsedTime", "end", f -> {
      try (Event e = Event.create(true)) {
        e.elapsedTime(null);
      }
    });
    npe("stream of setCurrent", "stream", f -> Stream.setCurrent(null));
    npe("stream of recordStream", "stream", f -> f.t.recordStream(null));
    npe("key of memoryStat", "key", f -> Cuda.memoryStat(0, null));
    npe("path of loadAllocator", "path", f -> Cuda.loadAllocator(null, "a", "f"));
    npe("state of setRngState", "state", f -> Cuda.setRngState(null));
    npe("list of setRngStateAll", "states", f -> Cuda.setRngStateAll(null));
    npe("mode of setSyncDebugMode", "mode", f -> Cuda.setSyncDebugMode((String) null));
    npe("code of JitFunction.create", "code", f -> JitFunction.create(null));
    npe("inputs of JitFunction.call", "inputs", f -> {
      try (JitFunction fn = JitFunction.create(JIT_CODE)) {
        fn.call((Tensor[]) null);
      }
    });
    npe("outs of JitFunction.callOut", "outs", f -> {
      try (JitFunction fn = JitFunction.create(JIT_CODE)) {
        fn.callOut(null, f.v, f.v);
      }
    });
    npe("tensor of CudaComm.broadcast", "tensor", f -> CudaComm.broadcast(null, 0));
    npe("list of CudaComm.reduceAdd", "inputs", f -> CudaComm.reduceAdd((List<Tensor>) null));
    npe("uniqueId of NcclComm.initRank", "uniqueId", f -> NcclComm.initRank(1, null, 0));
    npe("mode of captureBegin", "mode", f -> {
      try (CudaGraph g = CudaGraph.create()) {
        g.captureBegin(0, null);
      }
    });
    npe("path of debugDump", "path", f -> {
      try (CudaGraph g = CudaGraph.create()) {
        g.debugDump(null);
      }
    });
    npe("message of Nvtx.mark", "msg", f -> Nvtx.mark(null));
    npe("message of Nvtx.rangePush", "msg", f -> Nvtx.rangePush(null));
    npe("mode of CudaSanitizer.setMode", "mode", f -> CudaSanitizer.setMode(null));
    npe("tensor of TensorScope.attach", "t", f -> {
      try (TensorScope s = TensorScope.open()) {
        s.attach(null);
      }
    });
    npe("tensor of Cuda.deviceOf", "tensor", f -> Cuda.deviceOf(null));
    npe("property of deviceProperty", "prop", f -> Cuda.deviceProperty(0, null));

    /* ---- 2. closed objects used again: code 102 "the X is closed", before any C call ------ */
    closed("tensor: dim", "Tensor", f -> f.closed.dim());
    closed("tensor: shape", "Tensor", f -> f.closed.shape());
    closed("tensor: item", "Tensor", f -> f.closed.item());
    closed("tensor: toFloatArray", "Tensor", f -> f.closed.toFloatArray());
    closed("tensor: view", "Tensor", f -> f.closed.view(-1));
    closed("tensor: add", "Tensor", f -> f.closed.add(1));
    closed("tensor as the other operand", "Tensor", f -> f.v.add(f.closed));
    closed("tensor: add_", "Tensor", f -> f.closed.add_(f.v));
    closed("tensor as copy_'s source", "Tensor", f -> f.v.copy_(f.closed));
    closed("tensor: sum", "Tensor", f -> f.closed.sum());
    closed("tensor: max(dim)", "Tensor", f -> f.closed.max(0));
    closed("tensor: matmul", "Tensor", f -> f.t.matmul(f.closed));
    closed("tensor in cat", "Tensor", f -> Tensor.cat(List.of(f.v, f.closed), 0));
    closed("tensor in where", "Tensor", f -> Tensor.where(f.b, f.v, f.closed));
    closed("tensor: to", "Tensor", f -> f.closed.to(DType.FLOAT64));
    closed("tensor: newReference", "Tensor", f -> f.closed.newReference());
    closed("tensor: zerosLike", "Tensor", f -> Tensor.zerosLike(f.closed));
    closed("tensor: uniform_", "Tensor", f -> f.closed.uniform_(0, 1));
    closed("tensor: fft", "Tensor", f -> FFT.fft(f.closed));
    closed("tensor: Cuda.deviceOf", "Tensor", f -> Cuda.deviceOf(f.closed));
    closed("tensor in CudaComm.broadcast", "Tensor", f -> CudaComm.broadcast(f.closed, 0));
    closed("tensor in JitFunction.call", "Tensor", f -> {
      try (JitFunction fn = JitFunction.create(JIT_CODE)) {
        fn.call(f.v, f.closed);
      }
    });
    closed("event: query", "Event", f -> f.closedEvent.query());
    closed("event: record", "Event", f -> f.closedEvent.record());
    closed("event as elapsedTime's end", "Event", f -> {
      try (Event e = Event.create(true)) {
        e.elapsedTime(f.closedEvent);
      }
    });
    closed("event: newReference", "Event", f -> f.closedEvent.newReference());
    closed("generator: manualSeed", "Generator", f -> f.closedGen.manualSeed(1));
    closed("generator: getState", "Generator", f -> f.closedGen.getState());
    closed("generator in rand", "Generator", f -> Tensor.rand(shape23(), f.closedGen));
    closed("generator in uniform_", "Generator", f -> f.t.uniform_(0, 1, f.closedGen));
    closed("generator in randint", "Generator", f -> Tensor.randint(0, 5, shape23(), f.closedGen));
    closed("CUDA graph: replay", "CudaGraph", f -> f.closedGraph.replay());
    closed("CUDA graph: capture", "CudaGraph", f -> f.closedGraph.capture());
    closed("jitted function: call", "JitFunction", f -> f.closedJit.call(f.v, f.v));
    closed("jitted function: newReference", "JitFunction", f -> f.closedJit.newReference());
    closed("stream: query", "Stream", f -> f.closedStream.query());
    closed("stream as recordStream's argument", "Stream", f -> f.t.recordStream(f.closedStream));
    closed("stream in Event.record", "Stream", f -> {
      try (Event e = Event.create()) {
        e.record(f.closedStream);
      }
    });
    closed("NCCL communicator: rank", "NcclComm", f -> f.closedComm.rank());
    closed("NCCL communicator: allReduce", "NcclComm", f -> f.closedComm.allReduce(f.v));
    closed("graphed callable: run", "GraphedCallable", f -> {
      GraphedCallable g = GraphedCallable.adopt(GRAPHED_FOREIGN, 1);
      g.close();
      g.run(f.v);
    });
    closed("values of a closed ValuesIndices", "Tensor", f -> {
      ValuesIndices vi = f.t.max(1);
      vi.close();
      vi.values().sum();
    });
    java("TensorScope attach after close", IllegalStateException.class, "TensorScope is closed", f -> {
      TensorScope s = TensorScope.open();
      s.close();
      s.attach(f.v);
    });

    /* ---- 3. foreign handles and objects of the wrong kind --------------------------------- */
    status("foreign tensor handle: dim", CtorchException.INVALID_HANDLE, "not a ctorch tensor handle",
        f -> foreignTensor(Tensor::dim));
    status("foreign tensor handle as an operand", CtorchException.INVALID_HANDLE,
        "not a ctorch tensor handle", f -> foreignTensor(x -> f.v.add(x)));
    status("an event's handle used as a tensor", CtorchException.INVALID_HANDLE,
        "not a ctorch tensor handle", f -> {
          try (Event e = Event.create()) {
            Tensor x = new Tensor(e.handle());
            try {
              x.sum();
            } finally {
              x.close(); // refused by the C layer (another kind): the event lives on
              assertTrue("the event survived", e.query());
            }
          }
        });
    status("a tensor's handle used as a stream", CtorchException.INVALID_HANDLE, "stream handle", f -> {
      Stream s = Stream.adopt(f.v.handle(), 0, 0);
      try {
        s.query();
      } finally {
        s.close();
        assertEquals("the tensor survived", 3, f.v.numel());
      }
    });
    add("foreign NCCL communicator", Needs.ANY, CtorchException.class,
        cudaOr(CtorchException.INVALID_HANDLE), Cuda.isAvailable() ? "NCCL communicator" : NO_CUDA, f -> {
          NcclComm c = NcclComm.adopt(NcclCommTest.FOREIGN, h -> 0);
          try {
            c.rank();
          } finally {
            c.close();
          }
        });
    status("foreign graphed callable", CtorchException.INVALID_HANDLE, "graphed callable handle", f -> {
          GraphedCallable g = GraphedCallable.adopt(GRAPHED_FOREIGN, 1);
          try {
            g.run(f.v);
          } finally {
            g.close();
          }
        });
    java("unknown dtype code", IllegalArgumentException.class, "dtype", f -> DType.fromCode(99));
    java("unknown dtype name", IllegalArgumentException.class, "torch.float128",
        f -> DType.fromName("torch.float128"));
    java("unknown sync debug mode code", IllegalArgumentException.class, "7",
        f -> Cuda.SyncDebugMode.fromCode(7));
    java("CPU device for a CUDA guard", IllegalArgumentException.class, "Expected a cuda device",
        f -> Cuda.device(Device.CPU));
    java("jit argument of an unsupported class", IllegalArgumentException.class, "String",
        f -> JitFunction.create(JIT_CODE, Map.of("alpha", "one")));
    status("device string: unknown type", CtorchException.DEVICE_STRING, "gpu", f -> Device.parse("gpu:0"));
    status("device string: empty", CtorchException.DEVICE_STRING, "", f -> Device.parse(""));
    status("device string: negative index", CtorchException.DEVICE_STRING, "cuda:-2",
        f -> Device.parse("cuda:-2"));
    status("device string: trailing text", CtorchException.DEVICE_STRING, "cuda:0x",
        f -> Device.parse("cuda:0x"));

    /* ---- 4. wrong dtypes, shapes and devices ----------------------------------------------- */
    status("add: shapes do not broadcast", CtorchException.SHAPE, "size", f -> f.t.add(f.l));
    status("add_: result shape differs from self", CtorchException.SHAPE, "shape", f -> f.v.add_(f.t));
    status("matmul: inner sizes differ", CtorchException.SHAPE, "shape", f -> f.t.matmul(f.t));
    status("mm of a 1-D tensor", CtorchException.SHAPE, "matrix", f -> f.v.mm(f.v));
    status("dot of 2-D tensors", CtorchException.SHAPE, "1D", f -> f.t.dot(f.t));
    status("bmm of 2-D tensors", CtorchException.SHAPE, "3D", f -> Tensor.bmm(f.t, f.t));
    status("cat: dims differ", CtorchException.SHAPE, "dimensions", f -> Tensor.cat(List.of(f.t, f.v), 0));
    status("cat of no tensors", CtorchException.ARGUMENT, "non-empty",
        f -> Tensor.cat(Collections.<Tensor>emptyList(), 0));
    status("stack: shapes differ", CtorchException.SHAPE, "size", f -> Tensor.stack(f.v, f.l));
    status("view: wrong element count", CtorchException.SHAPE, "invalid", f -> f.t.view(4, 2));
    status("view: two -1", CtorchException.SHAPE, "one dimension", f -> f.t.view(-1, -1));
    status("view of a transposed tensor", CtorchException.SHAPE, "reshape", f -> {
      try (Tensor tt = f.t.transpose(0, 1)) {
        tt.view(6);
      }
    });
    status("expand to a smaller size", CtorchException.SHAPE, "expand", f -> f.t.expand(2, 2));
    status("copy_: shapes do not broadcast", CtorchException.SHAPE, "size", f -> f.v.copy_(f.l));
    status("item of 6 elements", CtorchException.SHAPE, "6", f -> f.t.item());
    status("fromArray: shape does not match the data", CtorchException.BUFFER_SIZE, "",
        f -> Tensor.fromArray(new float[] {1, 2, 3}, 2, 2));
    status("fromBytes: bytes not a multiple of the item size", CtorchException.BUFFER_SIZE, "",
        f -> Tensor.fromBytes(new byte[3], DType.FLOAT32));
    status("where: condition not bool", CtorchException.DTYPE, "bool", f -> Tensor.where(f.v, f.v, f.v));
    status("exp_ of int64 in place", CtorchException.DTYPE, "Long", f -> f.l.exp_());
    status("add_ of float into int64", CtorchException.DTYPE, "Long", f -> f.l.add_(1.5));
    status("arange of bool", CtorchException.DTYPE, "Bool",
        f -> Tensor.arange(0, 3, 1, DType.BOOL, Device.CPU));
    status("rfft of a complex tensor", CtorchException.DTYPE, "real-valued", f -> {
      try (Tensor c = FFT.fft(f.v)) {
        FFT.rfft(c);
      }
    });
    status("uniform_ of int64", CtorchException.DTYPE, "Long", f -> f.l.uniform_(0, 1));
    status("mv with int64 and float32", CtorchException.DTYPE, "dtype", f -> Tensor.mv(f.t, f.l));
    noGpu("zeros on cuda", f -> Tensor.zeros(shape23(), DType.FLOAT32, Device.CUDA));
    noGpu("to(cuda)", f -> f.t.to(Device.CUDA));
    noGpu("cuda()", f -> f.t.cuda());
    noGpu("pinMemory", f -> f.t.pinMemory());
    noGpu("Stream.create", f -> Stream.create());
    noGpu("Event.record", f -> {
      try (Event e = Event.create()) {
        e.record();
      }
    });
    noGpu("Generator on cuda", f -> Generator.create(Device.CUDA));
    noGpu("CudaGraph.capture", f -> {
      try (CudaGraph g = CudaGraph.create()) {
        g.capture();
      }
    });
    noGpu("JitFunction.call", f -> {
      try (JitFunction fn = JitFunction.create(JIT_CODE)) {
        fn.call(f.v, f.v);
      }
    });
    noGpu("CudaComm.broadcast", f -> CudaComm.broadcast(f.v, 0));
    noGpu("NcclComm.uniqueId", f -> NcclComm.uniqueId());
    noGpu("Cuda.setDevice(0)", f -> Cuda.setDevice(0));
    noGpu("Cuda.memGetInfo", f -> Cuda.memGetInfo());
    noGpu("Cuda.getRngState", f -> Cuda.getRngState());
    gpu("zeros on a device that does not exist", CtorchException.INDEX, "device",
        f -> Tensor.zeros(shape23(), DType.FLOAT32, Device.cuda(999)));
    gpu("add of a CPU and a CUDA tensor", CtorchException.DEVICE, "device", f -> {
      try (Tensor c = f.v.cuda()) {
        c.add(f.v.view(3));
      }
    });
    gpu("Cuda.setDevice(999)", CtorchException.INDEX, "device", f -> Cuda.setDevice(999));
    gpu("cat of CPU and CUDA tensors", CtorchException.DEVICE, "device", f -> {
      try (Tensor c = f.v.cuda()) {
        Tensor.cat(List.of(f.v, c), 0);
      }
    });

    /* ---- 5. out-of-range values: dims, indices, sizes, counts, NaN and infinity ------------- */
    status("size(7)", CtorchException.INDEX, "range", f -> f.t.size(7));
    status("stride(-9)", CtorchException.INDEX, "range", f -> f.t.stride(-9));
    status("transpose(0, 5)", CtorchException.INDEX, "range", f -> f.t.transpose(0, 5));
    status("narrow past the end", CtorchException.INDEX, "exceeds", f -> f.t.narrow(1, 2, 5));
    status("narrow of negative length", CtorchException.ARGUMENT, "length must be non-negative", f -> f.t.narrow(1, 0, -1));
    status("select index 10", CtorchException.INDEX, "out of range", f -> f.t.select(0, 10));
    status("slice step 0", CtorchException.ARGUMENT, "step", f -> f.t.slice(1, 0, 3, 0));
    status("slice negative step", CtorchException.ARGUMENT, "step", f -> f.t.slice(1, 0, 3, -1));
    status("squeeze(5)", CtorchException.INDEX, "range", f -> f.t.squeeze(5));
    status("unsqueeze(9)", CtorchException.INDEX, "range", f -> f.t.unsqueeze(9));
    status("permute: repeated dim", CtorchException.ARGUMENT, "duplicate", f -> f.t.permute(0, 0));
    status("permute: wrong count", CtorchException.SHAPE, "len(dims)", f -> f.t.permute(0));
    status("flatten(1, 0)", CtorchException.ARGUMENT, "flatten", f -> f.t.flatten(1, 0));
    status("sum(9)", CtorchException.INDEX, "range", f -> f.t.sum(9));
    status("max(4)", CtorchException.INDEX, "range", f -> f.t.max(4));
    status("argmax(-3)", CtorchException.INDEX, "range", f -> f.t.argmax(-3, false));
    status("empty(-1)", CtorchException.SHAPE, "negative dimension", f -> Tensor.empty(-1));
    add("zeros of 2^62 elements", Needs.ANY, CtorchException.class, null, "",
        f -> Tensor.zeros(1L << 31, 1L << 31));
    status("eye(-1)", CtorchException.ARGUMENT, "n", f -> Tensor.eye(-1));
    status("linspace of -1 steps", CtorchException.ARGUMENT, "steps", f -> Tensor.linspace(0, 1, -1));
    status("arange step 0", CtorchException.ARGUMENT, "step", f -> Tensor.arange(0, 4, 0));
    status("arange to NaN", CtorchException.ARGUMENT, "range", f -> Tensor.arange(0, Double.NaN, 1));
    status("arange step against the range", CtorchException.ARGUMENT, "sign", f -> Tensor.arange(0, 4, -1));
    status("arange with an infinite step", CtorchException.ARGUMENT, "step must be finite",
        f -> Tensor.arange(0.0, 4.0, Double.POSITIVE_INFINITY).close());
    status("randint low >= high", CtorchException.ARGUMENT, "from", f -> Tensor.randint(5, 5, 3));
    status("uniform_ from > to", CtorchException.ARGUMENT, "from", f -> f.t.uniform_(1, 0));
    status("uniform_ to infinity", CtorchException.ARGUMENT, "", f -> f.t.uniform_(0, Double.POSITIVE_INFINITY));
    status("normal_ negative std", CtorchException.ARGUMENT, "std", f -> f.t.normal_(0, -1));
    status("bernoulli_ p = 1.5", CtorchException.ARGUMENT, "p", f -> f.t.bernoulli_(1.5));
    status("bernoulli_ p = NaN", CtorchException.ARGUMENT, "p", f -> f.t.bernoulli_(Double.NaN));
    status("random_(5, 5)", CtorchException.ARGUMENT, "from", f -> f.l.random_(5, 5));
    status("setNumThreads(0)", CtorchException.ARGUMENT, "", f -> Torch.setNumThreads(0));
    status("setNumThreads(-4)", CtorchException.ARGUMENT, "", f -> Torch.setNumThreads(-4));
    status("setNumThreads(2^30)", CtorchException.ARGUMENT, "at most 4096", f -> {
          int before = Torch.getNumThreads();
          try {
            Torch.setNumThreads(1 << 30);
          } finally {
            Torch.setNumThreads(before);
          }
        });
    status("generator state of 3 bytes", CtorchException.ARGUMENT, "", f -> {
      try (Generator g = Generator.create()) {
        g.setState(new byte[3]);
      }
    });
    status("sync debug mode 7", CtorchException.ARGUMENT, "", f -> Cuda.setSyncDebugMode(7));
    java("sync debug mode \"loud\"", IllegalArgumentException.class, "loud",
        f -> Cuda.setSyncDebugMode("loud"));
    status("fft of n = 0", CtorchException.ARGUMENT, "", f -> FFT.fft(f.v, 0));
    status("fft along dim 3", CtorchException.INDEX, "range", f -> FFT.fft(f.v, 3, 3));
    status("fftfreq(-1)", CtorchException.ARGUMENT, "", f -> FFT.fftfreq(-1));
    status("jit code that cannot be parsed", CtorchException.ARGUMENT, "parse",
        f -> JitFunction.create("this is not C++"));
    status("jit function of 0 outputs", CtorchException.ARGUMENT, "", f -> JitFunction.createMultiOutput(JIT_CODE, 0));
    status("jit code with a NUL", CtorchException.ARGUMENT, "", f -> JitFunction.create(JIT_CODE + "\0"));
    status("loadAllocator path with a NUL", CtorchException.ARGUMENT, "NUL",
        f -> Cuda.loadAllocator("/tmp/x\0.so", "a", "f"));
    java("NCCL timeout of zero", IllegalArgumentException.class, "timeout",
        f -> NcclComm.initRank(1, new byte[NcclComm.UNIQUE_ID_BYTES], 0, 0, Duration.ZERO));
    noGpu("Cuda.setPerProcessMemoryFraction(1.5)", f -> Cuda.setPerProcessMemoryFraction(1.5));
    status("cachingAllocatorDelete of a foreign address", CtorchException.ARGUMENT, "0x1234",
        f -> Cuda.cachingAllocatorDelete(0x1234));
    noGpu("deviceName(-5)", f -> Cuda.deviceName(-5));
    gpu("setPerProcessMemoryFraction(1.5)", CtorchException.ARGUMENT, "fraction",
        f -> Cuda.setPerProcessMemoryFraction(1.5));
    gpu("setPerProcessMemoryFraction(NaN)", CtorchException.ARGUMENT, "fraction",
        f -> Cuda.setPerProcessMemoryFraction(Double.NaN));
    gpu("deviceName(-5)", CtorchException.INDEX, "", f -> Cuda.deviceName(-5));
    gpu("memoryStat of an unknown key", CtorchException.ARGUMENT, "no_such_key",
        f -> Cuda.memoryStat(0, "no_such_key"));

    status("generator state with a negative offset", CtorchException.ARGUMENT, "offset", f -> {
      try (Generator g = Generator.create()) {
        byte[] st = g.getState();
        st[15] = (byte) 0x80; // the int64 offset's sign bit (little-endian)
        g.setState(st);
      }
    });
    status("generator state with an offset not a multiple of 4", CtorchException.ARGUMENT, "offset", f -> {
      try (Generator g = Generator.create()) {
        byte[] st = g.getState();
        st[8] = 3;
        g.setState(st);
      }
    });
    // the JDK's ReadOnlyBufferException has no message: its type names the problem
    java("copyTo a read-only buffer", java.nio.ReadOnlyBufferException.class, null,
        f -> f.t.copyTo(java.nio.ByteBuffer.allocate(64).asReadOnlyBuffer()));
    status("copyTo a buffer too small", CtorchException.BUFFER_SIZE, "",
        f -> f.t.copyTo(java.nio.ByteBuffer.allocateDirect(8)));
    java("toFloatArray of 2^31 elements", IllegalArgumentException.class, "does not fit", f -> {
      try (Tensor one = Tensor.zeros(1); Tensor big = one.expand(1L << 31)) {
        big.toFloatArray();
      }
    });
    status("item of an empty tensor", CtorchException.SHAPE, "0 elements", f -> {
      try (Tensor e = Tensor.empty(0)) {
        e.item();
      }
    });
    status("where: shapes do not broadcast", CtorchException.SHAPE, "size", f -> Tensor.where(f.b, f.t, f.l));
    status("reshape to -2", CtorchException.SHAPE, "-2", f -> f.t.reshape(-2, 3));
    status("Device.cuda(-2) printed (checked when used)", CtorchException.ARGUMENT, "-2",
        f -> Device.cuda(-2).toString());
    status("Device.of(CPU, 3) printed (checked when used)", CtorchException.ARGUMENT, "3",
        f -> Device.of(DeviceType.CPU, 3).toString());
    java("empty dtype name", IllegalArgumentException.class, "dtype", f -> DType.fromName(""));
    status("setRngStateAll of a 3-byte state", CtorchException.ARGUMENT, "16",
        f -> Cuda.setRngStateAll(List.of(new byte[3])));
    java("scatter: chunk sizes not one per device", IllegalArgumentException.class, "chunkSizes",
        f -> CudaComm.scatter(f.v, new int[] {0}, new long[] {1, 2}, 0, null));
    gpu("CUDA tensor closed while 4 threads copy it to the host", CtorchException.INVALID_HANDLE,
        "the Tensor " + CLOSED, f -> {
          Tensor x = Tensor.ones(new long[] {1024}, DType.FLOAT32, Device.CUDA);
          raceClose(x, () -> x.toFloatArray());
          x.cpu();
        });
    gpu("stream closed while 4 threads query it", CtorchException.INVALID_HANDLE,
        "the Stream " + CLOSED, f -> {
          Stream st = Stream.create();
          raceClose(st, () -> st.query());
          st.synchronize();
        });

    /* ---- 6. concurrent close while other threads use the object: closed error or success -- */
    closed("tensor closed while 4 threads run ops on it", "Tensor", f -> {
      Tensor x = Tensor.ones(64);
      raceClose(x, () -> {
        try (Tensor r = x.mul(2).add_(1)) {
          r.sum().close();
        }
      });
      x.add(1);
    });
    closed("tensor closed while used as another op's operand", "Tensor", f -> {
      Tensor x = Tensor.ones(3);
      raceClose(x, () -> f.v.add(x).close());
      f.v.add(x);
    });
    closed("base closed while 4 threads read a view", "Tensor", f -> {
      Tensor base = Tensor.ones(4, 4);
      try (Tensor view = base.select(0, 1)) {
        raceClose(base, () -> {
          try (Tensor s = view.sum()) {
            assertEquals(4.0, s.item(), 0); // the view keeps the storage alive
          }
          base.narrow(0, 0, 2).close();
        });
        try (Tensor s = view.sum()) {
          assertEquals(4.0, s.item(), 0);
        }
      }
      base.dim();
    });
    closed("event closed while 4 threads query it", "Event", f -> {
      Event e = Event.create(true);
      raceClose(e, () -> assertTrue(e.query()));
      e.synchronize();
    });
    closed("generator closed while 4 threads draw from it", "Generator", f -> {
      Generator g = Generator.create().manualSeed(7);
      raceClose(g, () -> {
        g.offset();
        Tensor.rand(new long[] {4}, g).close();
      });
      g.seed();
    });
    closed("jitted function closed while 4 threads call it", "JitFunction", f -> {
      JitFunction fn = JitFunction.create(JIT_CODE);
      raceClose(fn, () -> {
        assertEquals("add2", fn.name());
        if (Cuda.isAvailable()) {
          try (Tensor a = Tensor.ones(new long[] {4}, DType.FLOAT32, Device.CUDA)) {
            fn.call(a, a).close();
          }
        } else {
          fn.call(f.v, f.v); // 301 without a GPU, 102 once closed
        }
      });
      fn.name();
    });
    closed("CUDA graph closed while 4 threads use it", "CudaGraph", f -> {
      CudaGraph g = CudaGraph.create();
      // retain and release through the handle (pool() is no use here: with a GPU, outside a
      // capture, it is CT_ERR_STATE "Called CUDAGraph::pool() without a preceding successful
      // capture.", found on an H100)
      raceClose(g, () -> g.newReference().close());
      g.reset();
    });
    closed("NCCL communicator closed while 4 threads use it", "NcclComm", f -> {
      NcclComm c = NcclComm.adopt(NcclCommTest.FOREIGN, h -> 0);
      raceClose(c, c::size); // foreign: 301 without a GPU, else 102
      c.size();
    });
    closed("8 threads close one tensor at once: released once", "Tensor", f -> {
      long live = Torch.liveTensorCount();
      Tensor x = Tensor.zeros(8);
      try (Tensor keep = x.view(2, 4)) { // a second handle on the storage
        assertEquals(live + 2, Torch.liveTensorCount());
        onThreads(8, i -> x.close());
        assertEquals("one release", live + 1, Torch.liveTensorCount());
        assertEquals(0.0, keep.sum().item(), 0);
      }
      x.numel();
    });
    java("TensorScope closed from another thread", IllegalStateException.class,
        "must be closed on the thread", f -> {
          try (TensorScope s = TensorScope.open()) {
            Tensor.ones(1);
            rethrow(onThread(s::close));
          }
        });
    java("TensorScope attach from another thread", IllegalStateException.class,
        "only on the thread that opened it", f -> {
      try (TensorScope s = TensorScope.open()) {
        rethrow(onThread(() -> s.attach(f.v)));
      }
    });
    java("DeviceGuard closed from another thread", IllegalStateException.class,
        "must be closed on the thread", f -> {
          try (Cuda.DeviceGuard g = Cuda.device(-1)) {
            rethrow(onThread(g::close));
          }
        });

    /* ---- 7. Cleaner releases racing explicit closes (on a thread outside the case's scope) - */
    closed("dropped views cleaned while others are closed on 4 threads", "Tensor", f -> rethrow(onThread(() -> {
      long live = Torch.liveTensorCount();
      Tensor base = Tensor.arange(0, 64, 1, DType.FLOAT32, Device.CPU);
      Tensor[] views = new Tensor[4000];
      for (int i = 0; i < views.length; i++) {
        views[i] = base.view(8, 8);
      }
      Tensor probe = views[1];
      for (int i = 0; i < views.length; i += 2) {
        views[i] = null; // dropped: the Cleaner's job
      }
      AtomicBoolean gcDone = new AtomicBoolean();
      Thread gc = new Thread(() -> {
        while (!gcDone.get()) {
          System.gc();
          Thread.onSpinWait();
        }
      });
      gc.start();
      try {
        onThreads(4, w -> {
          for (int i = 1 + 2 * w; i < views.length; i += 8) {
            views[i].close();
            views[i].close();
          }
        });
        base.close();
      } finally {
        gcDone.set(true);
        gc.join();
      }
      assertEquals(live, awaitCount(live, Torch::liveTensorCount));
      probe.sum();
    })));
    closed("dropped references cleaned while the last one is closed", "Tensor", f -> rethrow(onThread(() -> {
      long live = Torch.liveTensorCount();
      Tensor x = Tensor.ones(16);
      for (int i = 0; i < 2000; i++) {
        x.newReference(); // dropped at once
      }
      AtomicReference<Throwable> bad = new AtomicReference<>();
      Thread closer = new Thread(() -> {
        try {
          for (int i = 0; i < 2000; i++) {
            x.newReference().close();
          }
          x.close();
        } catch (Throwable e) {
          bad.set(e);
        }
      });
      closer.start();
      for (int i = 0; i < 20; i++) {
        System.gc();
      }
      closer.join();
      rethrow(bad.get());
      assertEquals(live, awaitCount(live, Torch::liveTensorCount));
      x.sum();
    })));
    closed("dropped events cleaned while others are closed", "Event", f -> rethrow(onThread(() -> {
      long live = Torch.liveEventCount();
      List<Event> kept = new ArrayList<>();
      for (int i = 0; i < 2000; i++) {
        Event e = Event.create();
        if (i % 2 == 0) {
          kept.add(e);
        }
      }
      Thread gc = new Thread(() -> {
        for (int i = 0; i < 20; i++) {
          System.gc();
        }
      });
      gc.start();
      for (Event e : kept) {
        e.close();
      }
      gc.join();
      assertEquals(live, awaitCount(live, Torch::liveEventCount));
      kept.get(0).query();
    })));
  }

  /** Runs use on a Tensor over a foreign handle (closing it is refused by C, quietly). */
  static void foreignTensor(java.util.function.Consumer<Tensor> use) {
    Tensor x = new Tensor(FOREIGN_TENSOR);
    try {
      use.accept(x);
    } finally {
      x.close();
    }
  }

  /**
   * Four threads call use in a loop while this thread closes obj: every call must succeed or
   * throw code 102 (the object closed under it; also 301, CUDA unavailable, on a machine
   * without a GPU), and after the close they must see 102.
   */
  static void raceClose(AutoCloseable obj, ThrowingRunnable use) throws Throwable {
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong calls = new AtomicLong();
    AtomicLong closedErrors = new AtomicLong();
    AtomicReference<Throwable> bad = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      Thread th = new Thread(() -> {
        while (!stop.get() && bad.get() == null) {
          try {
            use.run();
          } catch (CtorchException e) {
            if (e.code() == CtorchException.INVALID_HANDLE && !e.detail().isEmpty()) {
              closedErrors.incrementAndGet();
            } else if (e.code() != CtorchException.CUDA_UNAVAILABLE || Cuda.isAvailable()) {
              bad.compareAndSet(null, e);
            }
          } catch (Throwable e) {
            bad.compareAndSet(null, e);
          }
          calls.incrementAndGet();
        }
      });
      threads.add(th);
      th.start();
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (calls.get() < 200 && System.nanoTime() < deadline && bad.get() == null) {
      Thread.sleep(1);
    }
    obj.close();
    long after = calls.get();
    while (calls.get() < after + 200 && System.nanoTime() < deadline && bad.get() == null) {
      Thread.sleep(1);
    }
    stop.set(true);
    for (Thread th : threads) {
      th.join(TimeUnit.SECONDS.toMillis(30));
      assertFalse("a user thread hangs", th.isAlive());
    }
    rethrow(bad.get());
    assertTrue("the users saw the close (" + closedErrors.get() + " closed errors)",
        closedErrors.get() > 0);
  }

  @FunctionalInterface
  interface Worker {
    void run(int index) throws Throwable;
  }

  /** Runs work(0..n-1) on n threads released together; rethrows the first failure. */
  static void onThreads(int n, Worker work) throws Throwable {
    CyclicBarrier start = new CyclicBarrier(n);
    AtomicReference<Throwable> bad = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      final int index = i;
      Thread th = new Thread(() -> {
        try {
          start.await(30, TimeUnit.SECONDS);
          work.run(index);
        } catch (Throwable e) {
          bad.compareAndSet(null, e);
        }
      });
      threads.add(th);
      th.start();
    }
    for (Thread th : threads) {
      th.join(TimeUnit.SECONDS.toMillis(60));
      assertFalse("a worker hangs", th.isAlive());
    }
    rethrow(bad.get());
  }

  static void rethrow(Throwable e) throws Throwable {
    if (e != null) {
      throw e;
    }
  }

  /* ============================================================================================
   * The runner
   * ========================================================================================== */

  @Parameters(name = "{0}")
  public static Collection<Object[]> cases() {
    List<Object[]> rows = new ArrayList<>();
    for (Case c : CASES) {
      rows.add(new Object[] {c});
    }
    return rows;
  }

  @Parameter
  public Case c;

  private static long[] countsBefore;

  static long[] liveCounts() {
    return new long[] {Torch.liveTensorCount(), Torch.liveStreamCount(), Torch.liveEventCount(),
        Torch.liveGeneratorCount(), Torch.liveCudaGraphCount(), Torch.liveGraphedCallableCount(),
        Torch.liveNcclCommCount(), Torch.liveJitFunctionCount()};
  }

  @BeforeClass
  public static void recordCounts() {
    countsBefore = liveCounts();
  }

  /** After the whole corpus every live-handle count is back to its start. */
  @AfterClass
  public static void countsAtTheEnd() throws InterruptedException {
    awaitCount(countsBefore[0], Torch::liveTensorCount);
    assertEquals("live handles (tensor, stream, event, generator, graph, graphed, NCCL, jit)"
        + " after the corpus", Arrays.toString(countsBefore), Arrays.toString(liveCounts()));
  }

  /** The corpus has at least 100 cases that run without a GPU (issue 19). */
  static int runnableHere() {
    int n = 0;
    for (Case c : CASES) {
      if (c.needs() == Needs.ANY || (c.needs() == Needs.NO_GPU) != Cuda.isAvailable()) {
        n++;
      }
    }
    return n;
  }

  @Test
  public void badInputGivesTheBindingsError() throws Throwable {
    if (c == CASES.get(0)) {
      assertTrue("corpus size " + CASES.size() + ", runnable here " + runnableHere(),
          runnableHere() >= 100);
    }
    if (c.needs() == Needs.GPU) {
      assumeCuda();
    } else if (c.needs() == Needs.NO_GPU) {
      assumeNoCuda();
    }
    Throwable e;
    // A call that succeeds where it should fail leaks nothing: the scope closes what it made.
    try (Fx f = new Fx(); TensorScope scope = TensorScope.open()) {
      if (c.knownCBug() != null) {
        try {
          c.call().run(f);
          e = null;
        } catch (Throwable thrown) {
          e = thrown;
        }
        Assume.assumeTrue(c.knownCBug(), e != null);
      } else {
        e = assertThrows(c.name(), c.type(), () -> c.call().run(f));
      }
    }
    if (!c.type().isInstance(e)) {
      throw new AssertionError(c.name() + ": expected " + c.type().getSimpleName() + ", got " + e, e);
    }
    if (c.fragment() == null) { // a JDK exception type without a message (ReadOnlyBufferException)
      return;
    }
    String msg = e.getMessage();
    assertNotNull(c.name() + ": no message", msg);
    assertFalse(c.name() + ": empty message", msg.isBlank());
    assertTrue(c.name() + ": message \"" + msg + "\" should name the problem (\"" + c.fragment()
        + "\")", c.type() == NullPointerException.class ? msg.equals(c.fragment())
            : msg.contains(c.fragment()));
    if (e instanceof CtorchException ce) {
      assertFalse(c.name() + ": empty detail", ce.detail().isBlank());
      if (c.code() != null) {
        assertEquals(c.name() + ": code of \"" + msg + "\"", (int) c.code(), ce.code());
      }
    }
    Torch.clearError();
  }
}
