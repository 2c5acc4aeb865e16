package org.ctorch;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;

import org.ctorch.swig.ctorch;
import org.ctorch.swig.ctorchConstants;
import org.junit.Test;
import org.junit.function.ThrowingRunnable;

/**
 * What the binding adds to random numbers (section 16 of ctorch.h): {@link Generator}'s
 * lifetime and its 64-bit seeds and byte[] states, the optional-generator and null-dtype
 * overloads of {@link Tensor}'s random ops, {@link Torch}'s and {@link Cuda}'s seeding, and
 * the mapping of their errors. The streams themselves (reference values, offsets, ranges,
 * moments) are the C suite's (tests/capi/random_test.c); one reference draw here checks that
 * the floats arrive bit for bit.
 */
public class RandomTest extends CtorchTestCase {

  /**
   * torch.rand(7) after torch.manual_seed(67280421310721), printed with %.9g (cuRAND's Philox,
   * computed on the host independently of ctorch).
   */
  static final float[] REFERENCE_RAND7 = {
    0.393125594f, 0.511568964f, 0.885066867f, 0.440388322f, 0.89984709f, 0.121816903f,
    0.530436516f,
  };

  static int[] floatBits(Tensor t) {
    return floatBits(t.toFloatArray());
  }

  static int[] floatBits(float[] v) {
    int[] bits = new int[v.length];
    for (int i = 0; i < v.length; i++) {
      bits[i] = Float.floatToIntBits(v[i]);
    }
    return bits;
  }

  /** The (seed, offset) of a state, decoded independently: two little-endian 64-bit values. */
  static long[] decodeState(byte[] state) {
    assertEquals(16, state.length);
    ByteBuffer b = ByteBuffer.wrap(state).order(ByteOrder.LITTLE_ENDIAN);
    return new long[] {b.getLong(0), b.getLong(8)};
  }

  static byte[] encodeState(long seed, long offset) {
    return ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(seed).putLong(offset)
        .array();
  }

  @Test
  public void constantsMatchTheHeader() {
    assertEquals(ctorchConstants.CT_RNG_STATE_SIZE, Generator.STATE_SIZE);
    assertEquals(ctorchConstants.CT_DEFAULT_SEED, Generator.DEFAULT_SEED);
  }

  /** The default seed's first draw arrives bit for bit, through each way of drawing it. */
  @Test
  public void referenceDrawThroughEveryEntryPoint() {
    Torch.manualSeed(Generator.DEFAULT_SEED);
    assertEquals(Generator.DEFAULT_SEED, Torch.initialSeed());
    try (Tensor r = Tensor.rand(7)) {
      assertEquals(DType.FLOAT32, r.dtype());
      assertArrayEquals(floatBits(REFERENCE_RAND7), floatBits(r));
    }
    try (Generator g = Generator.create(); Tensor r = Tensor.rand(shape(7), g)) {
      assertEquals(Device.CPU, g.device());
      assertEquals(Generator.DEFAULT_SEED, g.initialSeed());
      assertArrayEquals(floatBits(REFERENCE_RAND7), floatBits(r));
      assertEquals(4, g.offset());
    }
    try (Generator g = Generator.create(Device.CPU);
        Tensor r = Tensor.rand(shape(7), DType.FLOAT32, Device.CPU, g);
        Tensor t = Tensor.zeros(7)) {
      assertArrayEquals(floatBits(REFERENCE_RAND7), floatBits(r));
      g.manualSeed(Generator.DEFAULT_SEED);
      try (Tensor like = Tensor.randLike(t, null, g)) {
        assertArrayEquals(floatBits(REFERENCE_RAND7), floatBits(like));
      }
      g.manualSeed(Generator.DEFAULT_SEED);
      assertSame(t, t.uniform_(0, 1, g));
      assertArrayEquals(floatBits(REFERENCE_RAND7), floatBits(t));
    }
  }

  /**
   * Every overload reaches its C function: the generator given is the one that moves (4 per
   * op), the default dtype (float32; int64 for randint) stands in for null, and a dtype given
   * is the result's.
   */
  @Test
  public void everyOverloadDrawsFromTheRightGenerator() {
    try (Generator g = Generator.create(); TensorScope scope = TensorScope.open()) {
      Tensor f32 = Tensor.zeros(10);
      Tensor f64 = Tensor.zeros(shape(10), DType.FLOAT64);
      Tensor i32 = Tensor.zeros(shape(10), DType.INT32);
      List<ThrowingRunnable> withGenerator = List.of(
          () -> assertEquals(DType.FLOAT32, Tensor.rand(shape(10), g).dtype()),
          () -> assertEquals(DType.FLOAT64, Tensor.rand(shape(10), DType.FLOAT64, Device.CPU, g)
              .dtype()),
          () -> assertShape(Tensor.randn(shape(3, 3), g), 3, 3),
          () -> assertEquals(DType.FLOAT16, Tensor.randn(shape(10), DType.FLOAT16, Device.CPU, g)
              .dtype()),
          () -> assertEquals(DType.INT64, Tensor.randint(0, 10, shape(10), g).dtype()),
          () -> assertEquals(DType.INT16, Tensor.randint(0, 1L << 10, shape(10), DType.INT16,
              Device.CPU, g).dtype()),
          () -> assertEquals(DType.FLOAT32, Tensor.randLike(f32, null, g).dtype()),
          () -> assertEquals(DType.BFLOAT16, Tensor.randnLike(f64, DType.BFLOAT16, g).dtype()),
          () -> assertSame(f32, f32.uniform_(-1, 1, g)),
          () -> assertSame(f64, f64.normal_(0, 2, g)),
          () -> assertSame(i32, i32.random_(g)),
          () -> assertSame(i32, i32.random_(5, 10, g)),
          () -> assertSame(i32, i32.random_(10, g)),
          () -> assertSame(f32, f32.bernoulli_(0.3, g)));
      Torch.manualSeed(3);
      try (Generator d = Generator.defaultGenerator()) {
        long expected = 0;
        for (ThrowingRunnable op : withGenerator) {
          run(op);
          expected += 4;
          assertEquals(expected, g.offset());
        }
        assertEquals("the default generator did not move", 0, d.offset());
        List<ThrowingRunnable> withoutGenerator = List.of(
            () -> Tensor.rand(2, 2), () -> Tensor.rand(shape(2), null, Device.CPU),
            () -> Tensor.randn(2), () -> Tensor.randn(shape(2), DType.FLOAT64, Device.CPU),
            () -> assertEquals(DType.INT64, Tensor.randint(0, 3, 2).dtype()),
            () -> assertEquals(DType.INT64, Tensor.randint(0, 3, shape(2), null, Device.CPU)
                .dtype()),
            () -> Tensor.randLike(f32), () -> assertEquals(DType.FLOAT64,
                Tensor.randLike(i32, DType.FLOAT64).dtype()),
            () -> Tensor.randnLike(f64), () -> Tensor.randnLike(f32, DType.FLOAT64),
            () -> f32.uniform_(), () -> f32.uniform_(2, 3), () -> f64.normal_(),
            () -> f64.normal_(5, 0), () -> i32.random_(), () -> i32.random_(4),
            () -> i32.random_(-3, 3), () -> f32.bernoulli_(), () -> f32.bernoulli_(1.0));
        expected = 0;
        for (ThrowingRunnable op : withoutGenerator) {
          run(op);
          expected += 4;
          assertEquals(expected, d.offset());
        }
        assertValues(f32, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1);
        assertEquals(5.0, f64.amin().item(), 0);
        assertTrue(Arrays.stream(i32.toLongArray()).allMatch(x -> x >= -3 && x < 3));
      }
    }
  }

  private static void run(ThrowingRunnable op) {
    try {
      op.run();
    } catch (Throwable e) {
      throw new AssertionError(e);
    }
  }

  /** States are byte[] of two little-endian 64-bit values; seeds are 64-bit, also negative. */
  @Test
  public void statesAndSeedsMarshalAsSixtyFourBits() {
    try (Generator g = Generator.create()) {
      assertSame(g, g.manualSeed(7));
      try (Tensor warm = Tensor.rand(shape(5), g)) {
        assertShape(warm, 5);
      }
      byte[] state = g.getState();
      assertArrayEquals(encodeState(7, 4), state);
      try (Tensor x = Tensor.randn(shape(100), g)) {
        assertSame(g, g.setState(state));
        state[0] = 99; // getState gave a copy, setState took one
        try (Tensor y = Tensor.randn(shape(100), g)) {
          assertArrayEquals(floatBits(x), floatBits(y));
        }
      }
      g.setState(encodeState(0x0123456789abcdefL, 1L << 40));
      assertArrayEquals(new long[] {0x0123456789abcdefL, 1L << 40}, decodeState(g.getState()));
      g.manualSeed(-1);
      assertEquals("18446744073709551615", Long.toUnsignedString(g.initialSeed()));
      g.manualSeed(Long.MIN_VALUE);
      assertArrayEquals(new long[] {Long.MIN_VALUE, 0}, decodeState(g.getState()));
      long s = g.seed();
      assertEquals(s, g.initialSeed());
      assertNotEquals("two non-deterministic seeds (1 in 2^64 to fail)", s, g.seed());
      byte[] before = g.getState();
      CtorchException e = assertStatus(CtorchException.ARGUMENT, () -> g.setState(new byte[15]));
      assertTrue(e.detail(), e.detail().contains("15"));
      assertStatus(CtorchException.ARGUMENT, () -> g.setState(encodeState(1, 3)));
      assertArrayEquals("a refused state changes nothing", before, g.getState());
      assertThrows(NullPointerException.class, () -> g.setState(null));
    }
    Torch.manualSeed(-1);
    assertEquals(-1, Torch.initialSeed());
    long s = Torch.seed();
    assertEquals(s, Torch.initialSeed());
    try (Generator d = Generator.defaultGenerator(Device.CPU)) {
      assertEquals(s, d.initialSeed());
      d.manualSeed(5); // seeding through the object is seeding the default generator
      assertEquals(5, Torch.initialSeed());
    }
  }

  /** Errors of the C library arrive as CtorchException with their codes; null is NPE. */
  @Test
  public void errorsAreMapped() {
    try (Generator g = Generator.create(); Tensor t = Tensor.zeros(4);
        Tensor ints = Tensor.zeros(shape(4), DType.INT64)) {
      CtorchException e = assertStatus(CtorchException.ARGUMENT, () -> t.uniform_(3, 2, g));
      assertTrue(e.detail(), e.detail().contains("from=3"));
      assertStatus(CtorchException.ARGUMENT, () -> Tensor.randint(6, 5, 3));
      assertStatus(CtorchException.DTYPE, () -> ints.normal_(0, 1, g));
      assertStatus(CtorchException.DTYPE, () -> Tensor.randLike(ints));
      assertStatus(CtorchException.SHAPE, () -> Tensor.rand(-1));
      assertEquals("failed ops draw nothing", 0, g.offset());
      assertThrows(NullPointerException.class, () -> Tensor.rand((long[]) null, g));
      assertThrows(NullPointerException.class, () -> Tensor.rand(shape(2), DType.FLOAT32, null));
      assertThrows(NullPointerException.class, () -> Tensor.randLike(null));
      assertThrows(NullPointerException.class, () -> Generator.create(null));
    }
  }

  /** A closed generator is code 102 from every method, and as an argument of every op. */
  @Test
  public void closedGeneratorGives102() {
    Generator g = Generator.create();
    g.close();
    assertTrue(g.isClosed());
    assertEquals("<torch.Generator device=cpu (closed)>", g.toString());
    assertEquals("the device is known after close", Device.CPU, g.device());
    try (Tensor t = Tensor.zeros(3); Tensor i = Tensor.zeros(shape(3), DType.INT32)) {
      List<ThrowingRunnable> uses = List.of(
          () -> g.manualSeed(1), g::seed, g::initialSeed, g::offset, g::getState,
          () -> g.setState(new byte[16]), g::newReference,
          () -> Tensor.rand(shape(3), g), () -> Tensor.randn(shape(3), g),
          () -> Tensor.randint(0, 5, shape(3), g), () -> Tensor.randLike(t, null, g),
          () -> Tensor.randnLike(t, null, g), () -> t.uniform_(0, 1, g), () -> t.normal_(0, 1, g),
          () -> i.random_(g), () -> i.random_(0, 5, g), () -> i.random_(5, g),
          () -> t.bernoulli_(0.5, g));
      for (ThrowingRunnable r : uses) {
        CtorchException x = assertStatus(CtorchException.INVALID_HANDLE, r);
        assertEquals("the Generator is closed", x.detail());
      }
      assertValues(t, 0, 0, 0);
    }
    g.close(); // idempotent
  }

  @Test
  public void referencesAndClose() {
    Generator g = Generator.create();
    long h = g.handle();
    Generator ref = g.newReference();
    assertEquals("<torch.Generator device=cpu>", ref.toString());
    ref.manualSeed(31);
    assertEquals("the same native generator", 31, g.initialSeed());
    g.close();
    assertFalse(ref.isClosed());
    long[] out = {0};
    assertEquals("the native generator lives on through ref", 0,
        ctorch.ct_generator_offset(h, out));
    ref.close();
    assertEquals("released with its last reference", 102, ctorch.ct_generator_offset(h, out));
    Torch.clearError();
    try (Generator other = Generator.create()) {
      assertNotEquals("equals is identity", other, g);
    }
  }

  /** Generators dropped without close() are released by the Cleaner. */
  @Test
  public void droppedGeneratorsAreReleased() throws Exception {
    long base = Torch.liveGeneratorCount();
    for (int i = 0; i < 100; i++) {
      Generator g = Generator.create();
      if (i % 2 == 0) {
        g.close();
      }
    }
    assertEquals("generators left after GC", base, awaitCount(base, Torch::liveGeneratorCount));
  }

  /** torch.cuda's seeding without a GPU: no-ops where torch has them, else code 301. */
  @Test
  public void noGpuSeedingAndStates() {
    assumeNoCuda();
    Torch.manualSeed(555);
    Cuda.manualSeed(1);
    Cuda.manualSeedAll(2);
    Cuda.seed();
    Cuda.seedAll();
    assertEquals(555, Torch.initialSeed());
    assertEquals(List.of(), Cuda.getRngStateAll());
    Cuda.setRngStateAll(List.of());
    CtorchException e = assertStatus(CtorchException.ARGUMENT,
        () -> Cuda.setRngStateAll(List.of(encodeState(1, 0))));
    assertTrue(e.detail(), e.detail().contains("expects 0 bytes"));
    assertThrows(NullPointerException.class, () -> Cuda.setRngStateAll(null));
    assertThrows(NullPointerException.class, () -> Cuda.setRngStateAll(Arrays.asList((byte[]) null)));
    assertNoCuda(Cuda::initialSeed);
    assertNoCuda(Cuda::getRngState);
    assertNoCuda(() -> Cuda.getRngState(0));
    assertNoCuda(() -> Cuda.setRngState(new byte[16]));
    assertNoCuda(() -> Cuda.setRngState(new byte[16], 0));
    assertNoCuda(() -> Generator.create(Device.cuda(0)));
    assertNoCuda(() -> Generator.defaultGenerator(Device.CUDA));
    assertNoCuda(() -> Tensor.randn(shape(3), DType.FLOAT32, Device.cuda(0)));
    try (Generator g = Generator.create()) {
      assertNoCuda(() -> Tensor.rand(shape(3), DType.FLOAT32, Device.CUDA, g));
      assertEquals(0, g.offset());
    }
  }

  /** CUDA generators and torch.cuda's states (byte[] and List<byte[]>) on a GPU. */
  @Test
  public void gpuGeneratorsAndStates() {
    assumeCuda();
    Torch.manualSeed(Generator.DEFAULT_SEED);
    assertEquals(Generator.DEFAULT_SEED, Cuda.initialSeed());
    try (Tensor r = Tensor.rand(shape(7), DType.FLOAT32, Device.CUDA)) {
      assertArrayEquals(floatBits(REFERENCE_RAND7), floatBits(r));
    }
    Cuda.manualSeed(5);
    byte[] state = Cuda.getRngState();
    assertArrayEquals(new long[] {5, 0}, decodeState(state));
    assertArrayEquals(state, Cuda.getRngState(Cuda.currentDevice()));
    try (Tensor a = Tensor.randn(shape(1000), DType.FLOAT32, Device.CUDA)) {
      Cuda.setRngState(state);
      try (Tensor b = Tensor.randn(shape(1000), DType.FLOAT32, Device.CUDA)) {
        assertArrayEquals(floatBits(a), floatBits(b));
      }
      List<byte[]> all = Cuda.getRngStateAll();
      assertEquals(Cuda.deviceCount(), all.size());
      assertThrows(UnsupportedOperationException.class, () -> all.add(new byte[16]));
      Cuda.setRngState(state, Cuda.currentDevice());
      Cuda.setRngStateAll(all);
      assertArrayEquals(all.get(Cuda.currentDevice()), Cuda.getRngState());
      assertStatus(CtorchException.INDEX, () -> Cuda.getRngState(Cuda.deviceCount()));
    }
    Cuda.manualSeedAll(8);
    for (byte[] s : Cuda.getRngStateAll()) {
      assertArrayEquals(new long[] {8, 0}, decodeState(s));
    }
    Cuda.seedAll();
    Cuda.seed();
    assertEquals(0, decodeState(Cuda.getRngState())[1]);
    try (Generator cpu = Generator.create();
        Generator gpu = Generator.create(Device.CUDA);
        Tensor g = Tensor.zeros(shape(3), DType.FLOAT32, Device.CUDA);
        Generator d = Generator.defaultGenerator(Device.cuda(0))) {
      assertStatus(CtorchException.DEVICE, () -> g.uniform_(0, 1, cpu));
      assertStatus(CtorchException.DEVICE, () -> Tensor.rand(shape(3), gpu));
      assertEquals("<torch.Generator device=" + gpu.device() + ">", gpu.toString());
      assertEquals(Device.cuda(0), d.device());
    }
  }
}
