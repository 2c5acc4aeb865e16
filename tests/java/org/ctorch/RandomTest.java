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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.ctorch.swig.ctorch;
import org.ctorch.swig.ctorchConstants;
import org.junit.Test;
import org.junit.function.ThrowingRunnable;

/**
 * Random numbers (section 16 of ctorch.h): {@link Generator}, the seeding functions of
 * {@link Torch} and {@link Cuda}, and the random ops of {@link Tensor}. The reference values
 * were computed independently of ctorch (cuRAND's Philox4x32-10 on the host); the CPU
 * generator is the same Philox as the CUDA one, so they hold on both devices. "noGpu" tests
 * check the behaviour without a GPU, "gpu" tests need one and are skipped (visibly) here.
 */
public class RandomTest extends CtorchTestCase {

  /**
   * torch.rand(7) after torch.manual_seed(67280421310721), printed with %.9g: the float32
   * values of cuRAND's Philox (uniform: (bits * 2^-32) + 2^-33, in float), computed on the host
   * independently of ctorch.
   */
  static final String[] REFERENCE_RAND7 = {
    "0.393125594", "0.511568964", "0.885066867", "0.440388322", "0.89984709", "0.121816903",
    "0.530436516",
  };

  /** A generator-table handle whose slot was never allocated (index 0xfffffff0). */
  static final long FOREIGN_GENERATOR = 0x8000_0001_FFFF_FFF0L;

  /** The float bits of REFERENCE_RAND7 (each string parsed as float32). */
  static int[] referenceBits() {
    int[] bits = new int[REFERENCE_RAND7.length];
    for (int i = 0; i < bits.length; i++) {
      bits[i] = Float.floatToIntBits(Float.parseFloat(REFERENCE_RAND7[i]));
    }
    return bits;
  }

  static int[] floatBits(Tensor t) {
    float[] v = t.toFloatArray();
    int[] bits = new int[v.length];
    for (int i = 0; i < v.length; i++) {
      bits[i] = Float.floatToIntBits(v[i]);
    }
    return bits;
  }

  static long[] doubleBits(Tensor t) {
    double[] v = t.toDoubleArray();
    long[] bits = new long[v.length];
    for (int i = 0; i < v.length; i++) {
      bits[i] = Double.doubleToLongBits(v[i]);
    }
    return bits;
  }

  /** The offset of a device's default generator. */
  static long defaultOffset(Device device) {
    try (Generator g = Generator.defaultGenerator(device)) {
      return g.offset();
    }
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

  /* ============================================================================================
   * Reference values and the default generator's offset
   * ========================================================================================== */

  @Test
  public void constantsMatchTheHeader() {
    assertEquals(ctorchConstants.CT_RNG_STATE_SIZE, Generator.STATE_SIZE);
    assertEquals(ctorchConstants.CT_DEFAULT_SEED, Generator.DEFAULT_SEED);
    assertEquals(67280421310721L, Generator.DEFAULT_SEED);
  }

  /**
   * torch.manual_seed(67280421310721); torch.rand(7) gives the reference values bit for bit;
   * the CPU default generator's offset is then 4, and 8 after a randn of 2^20 + 3 elements
   * (one Philox call of 4 normals per thread covers 1056 blocks of 256 threads).
   */
  @Test
  public void referenceValuesWithTheDefaultSeed() {
    Torch.manualSeed(67280421310721L);
    assertEquals(Generator.DEFAULT_SEED, Torch.initialSeed());
    assertEquals(0, defaultOffset(Device.CPU));
    try (Tensor r = Tensor.rand(7)) {
      assertEquals(DType.FLOAT32, r.dtype());
      assertEquals(Device.CPU, r.device());
      assertShape(r, 7);
      assertArrayEquals("torch.rand(7) with the default seed", referenceBits(), floatBits(r));
    }
    assertEquals(4, defaultOffset(Device.CPU));
    try (Tensor n = Tensor.randn((1 << 20) + 3)) {
      assertShape(n, (1 << 20) + 3);
    }
    assertEquals(8, defaultOffset(Device.CPU));
  }

  /** A new generator starts at the default seed, so it gives the reference values too. */
  @Test
  public void newGeneratorStartsAtTheDefaultSeed() {
    Torch.manualSeed(99); // the default generator is elsewhere: no influence
    try (Generator g = Generator.create(); Tensor r = Tensor.rand(shape(7), g)) {
      assertEquals(Device.CPU, g.device());
      assertEquals(Generator.DEFAULT_SEED, g.initialSeed());
      assertArrayEquals(referenceBits(), floatBits(r));
      assertEquals(4, g.offset());
    }
    try (Generator g = Generator.create(Device.CPU);
        Tensor r = Tensor.rand(shape(7), DType.FLOAT32, Device.CPU, g)) {
      assertArrayEquals(referenceBits(), floatBits(r));
    }
    // The same values through rand_like and uniform_ on an existing tensor.
    try (Generator g = Generator.create();
        Tensor t = Tensor.zeros(7);
        Tensor like = Tensor.randLike(t, null, g)) {
      assertArrayEquals(referenceBits(), floatBits(like));
      g.manualSeed(Generator.DEFAULT_SEED);
      assertSame(t, t.uniform_(0, 1, g));
      assertArrayEquals(referenceBits(), floatBits(t));
    }
  }

  /* ============================================================================================
   * Seeds, states, offsets, independence
   * ========================================================================================== */

  @Test
  public void sameSeedSameValues() {
    Torch.manualSeed(42);
    try (Tensor a = Tensor.rand(1000); Tensor an = Tensor.randn(1000);
        Tensor ai = Tensor.randint(-100, 100, 1000)) {
      Torch.manualSeed(42);
      try (Tensor b = Tensor.rand(1000); Tensor bn = Tensor.randn(1000);
          Tensor bi = Tensor.randint(-100, 100, 1000)) {
        assertArrayEquals(floatBits(a), floatBits(b));
        assertArrayEquals(floatBits(an), floatBits(bn));
        assertArrayEquals(ai.toLongArray(), bi.toLongArray());
      }
      Torch.manualSeed(43);
      try (Tensor c = Tensor.rand(1000)) {
        assertFalse("another seed, other values", Arrays.equals(floatBits(a), floatBits(c)));
      }
    }
    // Two draws in a row differ (the offset moved on).
    try (Tensor x = Tensor.rand(1000); Tensor y = Tensor.rand(1000)) {
      assertFalse(Arrays.equals(floatBits(x), floatBits(y)));
    }
  }

  @Test
  public void stateRoundTripRepeatsASequence() {
    try (Generator g = Generator.create()) {
      assertSame(g, g.manualSeed(7));
      try (Tensor warm = Tensor.rand(shape(5), g)) {
        assertShape(warm, 5);
      }
      byte[] state = g.getState();
      assertArrayEquals("seed 7, offset 4, little-endian", new long[] {7, 4}, decodeState(state));
      assertArrayEquals(encodeState(7, 4), state);
      try (Tensor x = Tensor.rand(shape(100), g); Tensor xn = Tensor.randn(shape(100), g)) {
        assertEquals(12, g.offset());
        assertSame(g, g.setState(state));
        assertEquals(4, g.offset());
        assertEquals(7, g.initialSeed());
        try (Tensor y = Tensor.rand(shape(100), g); Tensor yn = Tensor.randn(shape(100), g)) {
          assertArrayEquals(floatBits(x), floatBits(y));
          assertArrayEquals(floatBits(xn), floatBits(yn));
        }
        // The state moves to another generator, and getState returns a copy.
        state[0] = 99;
        try (Generator h = Generator.create()) {
          h.setState(encodeState(7, 4));
          try (Tensor z = Tensor.rand(shape(100), h)) {
            assertArrayEquals(floatBits(x), floatBits(z));
          }
        }
        assertArrayEquals(new long[] {7, 12}, decodeState(g.getState()));
      }
      // A state written by hand: seed 0x0123456789abcdef at offset 8 draws what that seed
      // draws after two small ops.
      try (Generator h = Generator.create()) {
        h.manualSeed(0x0123456789abcdefL);
        try (Tensor skip1 = Tensor.rand(shape(3), h); Tensor skip2 = Tensor.rand(shape(3), h);
            Tensor third = Tensor.rand(shape(50), h)) {
          g.setState(encodeState(0x0123456789abcdefL, 8));
          try (Tensor again = Tensor.rand(shape(50), g)) {
            assertArrayEquals(floatBits(third), floatBits(again));
          }
        }
      }
    }
  }

  @Test
  public void defaultGeneratorStateRoundTrip() {
    Torch.manualSeed(2024);
    try (Generator d = Generator.defaultGenerator()) {
      assertEquals(Device.CPU, d.device());
      byte[] state = d.getState();
      assertArrayEquals(new long[] {2024, 0}, decodeState(state));
      try (Tensor a = Tensor.randn(64)) {
        d.setState(state);
        try (Tensor b = Tensor.randn(64)) {
          assertArrayEquals(floatBits(a), floatBits(b));
        }
      }
      // Seeding through the object is seeding the default generator.
      d.manualSeed(5);
      assertEquals(5, Torch.initialSeed());
    }
    try (Generator again = Generator.defaultGenerator(Device.CPU)) {
      assertEquals("the default generator outlives its references", 5, again.initialSeed());
    }
  }

  @Test
  public void generatorsWithTheSameSeedAgreeAndAreIndependentOfTheDefault() {
    Torch.manualSeed(1);
    long defaultBefore = defaultOffset(Device.CPU);
    try (Generator g1 = Generator.create().manualSeed(123);
        Generator g2 = Generator.create().manualSeed(123)) {
      try (Tensor a = Tensor.rand(shape(256), g1);
          Tensor mixedIn = Tensor.rand(256); // the default generator in between
          Tensor b = Tensor.rand(shape(256), g2)) {
        assertArrayEquals(floatBits(a), floatBits(b));
        assertFalse(Arrays.equals(floatBits(a), floatBits(mixedIn)));
      }
      assertEquals(4, g1.offset());
      assertEquals(4, g2.offset());
      assertEquals("only the op without a generator moved the default", defaultBefore + 4,
          defaultOffset(Device.CPU));
      // Seeding the default generator leaves the others alone.
      Torch.manualSeed(123);
      assertEquals(4, g1.offset());
      assertEquals(123, g1.initialSeed());
      // ...and reseeding g1 does not touch g2.
      g1.manualSeed(9);
      assertEquals(4, g2.offset());
      assertEquals(123, g2.initialSeed());
    }
  }

  /** Every small op advances its generator by exactly 4; an empty tensor draws nothing. */
  @Test
  public void offsetAdvancesByFourPerSmallOp() {
    try (Generator g = Generator.create(); TensorScope scope = TensorScope.open()) {
      Tensor f32 = Tensor.zeros(10);
      Tensor f64 = Tensor.zeros(shape(10), DType.FLOAT64);
      Tensor i32 = Tensor.zeros(shape(10), DType.INT32);
      List<ThrowingRunnable> ops = List.of(
          () -> Tensor.rand(shape(10), g),
          () -> Tensor.rand(shape(10), DType.FLOAT64, Device.CPU, g),
          () -> Tensor.randn(shape(3, 3), g),
          () -> Tensor.randn(shape(10), DType.FLOAT64, Device.CPU, g),
          () -> Tensor.randint(0, 10, shape(10), g),
          () -> Tensor.randint(0, 1L << 40, shape(10), g),
          () -> Tensor.randLike(f32, null, g),
          () -> Tensor.randnLike(f64, null, g),
          () -> f32.uniform_(-1, 1, g),
          () -> f64.normal_(0, 2, g),
          () -> i32.random_(g),
          () -> i32.random_(5, 10, g),
          () -> i32.random_(10, g),
          () -> f32.bernoulli_(0.3, g));
      long expected = 0;
      assertEquals(expected, g.offset());
      for (ThrowingRunnable op : ops) {
        try {
          op.run();
        } catch (Throwable e) {
          throw new AssertionError(e);
        }
        expected += 4;
        assertEquals(expected, g.offset());
      }
      Tensor.rand(shape(0), g);
      Tensor.zeros(0).uniform_(0, 1, g);
      assertEquals("empty tensors draw nothing", expected, g.offset());
      g.manualSeed(3);
      assertEquals("manual_seed starts the offset again", 0, g.offset());
    }
  }

  @Test
  public void seedsAreSixtyFourBits() {
    try (Generator g = Generator.create()) {
      g.manualSeed(-1);
      assertEquals(-1, g.initialSeed());
      assertEquals("18446744073709551615", Long.toUnsignedString(g.initialSeed()));
      byte[] ff = new byte[8];
      Arrays.fill(ff, (byte) 0xFF);
      assertArrayEquals(ff, Arrays.copyOf(g.getState(), 8));
      g.manualSeed(Long.MIN_VALUE);
      assertArrayEquals(new long[] {Long.MIN_VALUE, 0}, decodeState(g.getState()));
      // seed(): a non-deterministic seed, which initialSeed then reports.
      long s = g.seed();
      assertEquals(s, g.initialSeed());
      assertEquals(0, g.offset());
      long s2 = g.seed();
      assertNotEquals("two non-deterministic seeds (1 in 2^64 to fail)", s, s2);
    }
    Torch.manualSeed(-1);
    assertEquals(-1, Torch.initialSeed());
    long s = Torch.seed();
    assertEquals(s, Torch.initialSeed());
    try (Generator d = Generator.defaultGenerator()) {
      assertEquals(s, d.initialSeed());
      assertEquals(0, d.offset());
    }
    // A seed that differs only in the high 32 bits gives other values.
    try (Generator lo = Generator.create().manualSeed(5);
        Generator hi = Generator.create().manualSeed(5 | (1L << 40));
        Tensor a = Tensor.rand(shape(64), lo); Tensor b = Tensor.rand(shape(64), hi)) {
      assertFalse(Arrays.equals(floatBits(a), floatBits(b)));
    }
  }

  /* ============================================================================================
   * Ranges and dtypes
   * ========================================================================================== */

  @Test
  public void uniformRange() {
    Torch.manualSeed(11);
    try (Tensor t = Tensor.empty(20000)) {
      assertSame(t, t.uniform_(-2, 3));
      float min = Float.MAX_VALUE;
      float max = -Float.MAX_VALUE;
      double sum = 0;
      for (float v : t.toFloatArray()) {
        assertTrue("in [-2, 3): " + v, v >= -2f && v < 3f);
        min = Math.min(min, v);
        max = Math.max(max, v);
        sum += v;
      }
      assertTrue(min < -1.99f && max > 2.99f);
      assertEquals("mean of U(-2, 3)", 0.5, sum / 20000, 0.05);
      // from == to: every value is from.
      t.uniform_(1.5, 1.5);
      try (Tensor m = t.amin(); Tensor x = t.amax()) {
        assertEquals(1.5, m.item(), 0);
        assertEquals(1.5, x.item(), 0);
      }
      // Defaults: [0, 1).
      t.uniform_();
      for (float v : t.toFloatArray()) {
        assertTrue(v >= 0f && v < 1f);
      }
    }
  }

  @Test
  public void normalMomentsAndRandn() {
    Torch.manualSeed(12);
    try (Tensor n = Tensor.randn(100000)) {
      double[] v = n.toDoubleArray();
      double mean = Arrays.stream(v).average().orElseThrow();
      double var = Arrays.stream(v).map(x -> (x - mean) * (x - mean)).sum() / v.length;
      assertEquals(0, mean, 0.02);
      assertEquals(1, Math.sqrt(var), 0.02);
    }
    try (Tensor t = Tensor.empty(shape(100000), DType.FLOAT64)) {
      assertSame(t, t.normal_(5, 2));
      double[] v = t.toDoubleArray();
      double mean = Arrays.stream(v).average().orElseThrow();
      double var = Arrays.stream(v).map(x -> (x - mean) * (x - mean)).sum() / v.length;
      assertEquals(5, mean, 0.04);
      assertEquals(2, Math.sqrt(var), 0.04);
      t.normal_(3, 0); // std 0: every value is the mean
      for (double x : t.toDoubleArray()) {
        assertEquals(3, x, 0);
      }
      t.normal_();
      double m = Arrays.stream(t.toDoubleArray()).average().orElseThrow();
      assertEquals(0, m, 0.02);
    }
  }

  @Test
  public void randintRange() {
    Torch.manualSeed(13);
    try (Tensor r = Tensor.randint(-5, 5, 10000)) {
      assertEquals(DType.INT64, r.dtype());
      int[] counts = new int[10];
      for (long v : r.toLongArray()) {
        assertTrue("in [-5, 5): " + v, v >= -5 && v < 5);
        counts[(int) (v + 5)]++;
      }
      for (int c : counts) {
        assertTrue("every value drawn about 1000 times: " + Arrays.toString(counts),
            c > 800 && c < 1200);
      }
    }
    // A wide range (drawn as 64-bit values) and other dtypes.
    try (Tensor w = Tensor.randint(-(1L << 50), 1L << 50, 1000)) {
      boolean beyond32 = false;
      for (long v : w.toLongArray()) {
        assertTrue(v >= -(1L << 50) && v < (1L << 50));
        beyond32 |= Math.abs(v) > (1L << 32);
      }
      assertTrue(beyond32);
    }
    for (DType dt : new DType[] {DType.INT32, DType.INT16, DType.UINT8, DType.FLOAT32,
        DType.FLOAT64, DType.FLOAT16}) {
      try (Tensor r = Tensor.randint(3, 9, shape(500), dt, Device.CPU)) {
        assertEquals(dt, r.dtype());
        for (double v : r.toDoubleArray()) {
          assertTrue(dt + ": " + v, v >= 3 && v < 9 && v == Math.floor(v));
        }
      }
    }
    try (Tensor one = Tensor.randint(7, 8, 20)) {
      for (long v : one.toLongArray()) {
        assertEquals(7, v);
      }
    }
  }

  @Test
  public void randomRanges() {
    Torch.manualSeed(14);
    try (Tensor t = Tensor.empty(shape(4000), DType.INT16)) {
      assertSame(t, t.random_(-300, 300));
      for (long v : t.toLongArray()) {
        assertTrue(v >= -300 && v < 300);
      }
      assertSame(t, t.random_(4));
      long[] v = t.toLongArray();
      assertTrue(Arrays.stream(v).allMatch(x -> x >= 0 && x < 4));
      assertEquals(4, Arrays.stream(v).distinct().count());
    }
    // random_(): the dtype's range.
    try (Tensor b = Tensor.empty(shape(1000), DType.BOOL); Tensor u = Tensor.empty(shape(4000),
        DType.UINT8); Tensor f = Tensor.empty(shape(1000), DType.FLOAT32)) {
      b.random_();
      long trues = 0;
      for (boolean x : b.toBooleanArray()) {
        trues += x ? 1 : 0;
      }
      assertTrue("bool: both values", trues > 400 && trues < 600);
      u.random_();
      int maxU = 0;
      for (byte x : u.toByteArray()) {
        maxU = Math.max(maxU, x & 0xFF);
      }
      assertTrue("uint8 up to 255: " + maxU, maxU > 250);
      f.random_();
      boolean big = false;
      for (float x : f.toFloatArray()) {
        assertTrue("float32: integers in [0, 2^24]: " + x,
            x >= 0 && x <= (1 << 24) && x == Math.floor(x));
        big |= x > (1 << 20);
      }
      assertTrue(big);
    }
  }

  @Test
  public void bernoulli() {
    Torch.manualSeed(15);
    for (DType dt : new DType[] {DType.FLOAT32, DType.FLOAT64, DType.INT32, DType.BOOL,
        DType.FLOAT16, DType.BFLOAT16, DType.UINT8}) {
      try (Tensor t = Tensor.full(shape(2000), dt == DType.BOOL ? 1 : 7, dt)) {
        assertSame(t, t.bernoulli_(0));
        assertTrue(dt + " p=0", Arrays.stream(t.toDoubleArray()).allMatch(x -> x == 0));
        t.bernoulli_(1);
        assertTrue(dt + " p=1", Arrays.stream(t.toDoubleArray()).allMatch(x -> x == 1));
        t.bernoulli_(0.25);
        double[] v = t.toDoubleArray();
        assertTrue(Arrays.stream(v).allMatch(x -> x == 0 || x == 1));
        double ones = Arrays.stream(v).sum();
        assertEquals(dt + " p=0.25", 500, ones, 80);
      }
    }
    try (Tensor t = Tensor.empty(4000)) {
      t.bernoulli_();
      assertEquals("default p = 0.5", 2000, Arrays.stream(t.toDoubleArray()).sum(), 150);
    }
  }

  /** rand/randn in float32, float64, float16 and bfloat16; like-variants keep or change dtype. */
  @Test
  public void floatDTypes() {
    Torch.manualSeed(16);
    for (DType dt : new DType[] {DType.FLOAT32, DType.FLOAT64, DType.FLOAT16, DType.BFLOAT16}) {
      try (Tensor r = Tensor.rand(shape(3, 1000), dt, Device.CPU);
          Tensor n = Tensor.randn(shape(1000), dt, Device.CPU)) {
        assertEquals(dt, r.dtype());
        assertEquals(dt, n.dtype());
        assertShape(r, 3, 1000);
        double[] v = r.toDoubleArray();
        assertTrue(dt + " in [0, 1)", Arrays.stream(v).allMatch(x -> x >= 0 && x < 1));
        assertTrue(dt + " not constant", Arrays.stream(v).distinct().count() > 50);
        double mean = Arrays.stream(v).average().orElseThrow();
        assertEquals(dt + " mean", 0.5, mean, 0.03);
        double nmean = Arrays.stream(n.toDoubleArray()).average().orElseThrow();
        assertEquals(dt + " normal mean", 0, nmean, 0.1);
        try (Tensor like = Tensor.randLike(n); Tensor nlike = Tensor.randnLike(r)) {
          assertEquals(dt, like.dtype());
          assertEquals(dt, nlike.dtype());
          assertShape(nlike, 3, 1000);
        }
        try (Tensor t = Tensor.empty(shape(500), dt)) {
          t.uniform_(10, 20);
          assertTrue(dt + " uniform_(10, 20)",
              Arrays.stream(t.toDoubleArray()).allMatch(x -> x >= 10 && x < 20));
        }
      }
    }
    // float64 draws carry more than float32's 24 bits.
    try (Tensor d = Tensor.rand(shape(100), DType.FLOAT64, Device.CPU)) {
      boolean fine = false;
      for (double x : d.toDoubleArray()) {
        fine |= (float) x != x;
      }
      assertTrue(fine);
    }
    // A null dtype is the default (float32; int64 for randint); rand_like with another dtype.
    try (Tensor r = Tensor.rand(shape(2), null, Device.CPU);
        Tensor i = Tensor.randint(0, 3, shape(2), null, Device.CPU);
        Tensor ints = Tensor.zeros(shape(4), DType.INT32);
        Tensor like = Tensor.randLike(ints, DType.FLOAT64);
        Tensor nlike = Tensor.randnLike(ints, DType.BFLOAT16)) {
      assertEquals(DType.FLOAT32, r.dtype());
      assertEquals(DType.INT64, i.dtype());
      assertEquals(DType.FLOAT64, like.dtype());
      assertEquals(DType.BFLOAT16, nlike.dtype());
      assertShape(nlike, 4);
    }
  }

  /** In-place ops fill non-contiguous views through their strides, leaving the rest alone. */
  @Test
  public void inPlaceOnAView() {
    try (Tensor base = Tensor.zeros(4, 6); Tensor col = base.select(1, 2)) {
      col.uniform_(1, 2);
      float[] v = base.toFloatArray();
      for (int r = 0; r < 4; r++) {
        for (int c = 0; c < 6; c++) {
          float x = v[r * 6 + c];
          if (c == 2) {
            assertTrue(x >= 1 && x < 2);
          } else {
            assertEquals(0f, x, 0f);
          }
        }
      }
    }
  }

  /* ============================================================================================
   * Errors
   * ========================================================================================== */

  @Test
  public void argumentErrors() {
    try (Generator g = Generator.create(); Tensor t = Tensor.zeros(4);
        Tensor ints = Tensor.zeros(shape(4), DType.INT64)) {
      long offset = g.offset();
      CtorchException e = assertStatus(CtorchException.ARGUMENT, () -> t.uniform_(3, 2, g));
      assertTrue(e.detail(), e.detail().contains("from=3"));
      assertStatus(CtorchException.ARGUMENT, () -> t.normal_(0, -1, g));
      assertStatus(CtorchException.ARGUMENT, () -> Tensor.randint(5, 5, shape(3), g));
      assertStatus(CtorchException.ARGUMENT, () -> Tensor.randint(6, 5, 3));
      assertStatus(CtorchException.ARGUMENT, () -> Tensor.randint(0, 300, shape(3), DType.UINT8,
          Device.CPU));
      assertStatus(CtorchException.ARGUMENT, () -> ints.random_(4, 4, g));
      assertStatus(CtorchException.ARGUMENT, () -> t.bernoulli_(1.5, g));
      assertStatus(CtorchException.ARGUMENT, () -> t.bernoulli_(-0.1));
      assertStatus(CtorchException.ARGUMENT, () -> t.bernoulli_(Double.NaN));
      // Float-only ops on other dtypes.
      assertStatus(CtorchException.DTYPE, () -> ints.uniform_(0, 1, g));
      assertStatus(CtorchException.DTYPE, () -> ints.normal_(0, 1, g));
      assertStatus(CtorchException.DTYPE, () -> Tensor.rand(shape(3), DType.INT64, Device.CPU));
      assertStatus(CtorchException.DTYPE, () -> Tensor.randn(shape(3), DType.INT32, Device.CPU, g));
      assertStatus(CtorchException.DTYPE, () -> Tensor.randLike(ints));
      assertStatus(CtorchException.DTYPE, () -> Tensor.randint(0, 3, shape(3), DType.COMPLEX64,
          Device.CPU));
      assertEquals("failed ops draw nothing", offset, g.offset());
      assertLongs(ints, 0, 0, 0, 0);
      assertValues(t, 0, 0, 0, 0);
      // Shapes and nulls.
      assertStatus(CtorchException.SHAPE, () -> Tensor.rand(-1));
      assertThrows(NullPointerException.class, () -> Tensor.rand((long[]) null, g));
      assertThrows(NullPointerException.class, () -> Tensor.rand(shape(2), DType.FLOAT32, null));
      assertThrows(NullPointerException.class, () -> Tensor.randLike(null));
      assertThrows(NullPointerException.class, () -> Generator.create(null));
      assertThrows(NullPointerException.class, () -> g.setState(null));
    }
  }

  @Test
  public void badStates() {
    try (Generator g = Generator.create().manualSeed(77)) {
      try (Tensor warm = Tensor.rand(shape(2), g)) {
        assertShape(warm, 2);
      }
      byte[] before = g.getState();
      CtorchException e = assertStatus(CtorchException.ARGUMENT, () -> g.setState(new byte[15]));
      assertTrue(e.detail(), e.detail().contains("15"));
      assertStatus(CtorchException.ARGUMENT, () -> g.setState(new byte[17]));
      assertStatus(CtorchException.ARGUMENT, () -> g.setState(new byte[0]));
      assertStatus(CtorchException.ARGUMENT, () -> g.setState(encodeState(1, 3)));
      assertStatus(CtorchException.ARGUMENT, () -> g.setState(encodeState(1, -4)));
      assertArrayEquals("a refused state changes nothing", before, g.getState());
      g.setState(encodeState(1, 1L << 40)); // any non-negative multiple of 4
      assertArrayEquals(new long[] {1, 1L << 40}, decodeState(g.getState()));
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
        assertEquals("CT_ERR_INVALID_HANDLE", x.statusName());
        assertEquals("the Generator is closed", x.detail());
      }
      assertValues(t, 0, 0, 0);
    }
    g.close(); // idempotent
  }

  /** The C layer checks generator handles itself: 0, released, foreign or of another kind. */
  @Test
  public void rawGeneratorHandlesAreValidated() {
    long[] out = {0};
    assertEquals(102, ctorch.ct_generator_offset(0, out));
    assertEquals(102, ctorch.ct_generator_manual_seed(FOREIGN_GENERATOR, 1));
    try (Tensor t = Tensor.zeros(3)) {
      long th = t.handle();
      assertEquals("a tensor handle is not a generator", 102, ctorch.ct_generator_offset(th, out));
      assertEquals(102, ctorch.ct_tensor_uniform_(th, 0, 1, th));
      assertEquals(102, ctorch.ct_rand(shape(2), 1, -1, 0, -1, th, out));
    }
    long[] h = {0};
    assertEquals(0, ctorch.ct_generator_create(0, -1, h));
    assertEquals(0, ctorch.ct_generator_release(h[0]));
    assertEquals("released", 102, ctorch.ct_generator_offset(h[0], out));
    assertEquals(102, ctorch.ct_generator_release(h[0]));
    assertEquals(102, Torch.lastErrorCode());
    Torch.clearError();
  }

  /* ============================================================================================
   * Lifetimes
   * ========================================================================================== */

  @Test
  public void referencesAndClose() {
    Generator g = Generator.create();
    long h = g.handle();
    Generator ref = g.newReference();
    assertEquals("<torch.Generator device=cpu>", ref.toString());
    ref.manualSeed(31);
    assertEquals("the same native generator", 31, g.initialSeed());
    try (Tensor a = Tensor.rand(shape(4), ref)) {
      assertEquals(4, g.offset());
    }
    g.close();
    g.close();
    assertTrue(g.isClosed());
    assertFalse(ref.isClosed());
    long[] out = {0};
    assertEquals("the native generator lives on through ref", 0,
        ctorch.ct_generator_offset(h, out));
    assertEquals(4, out[0]);
    ref.close();
    assertEquals("released with its last reference", 102, ctorch.ct_generator_offset(h, out));
    Torch.clearError();
    try (Generator other = Generator.create()) {
      assertNotEquals("equals is identity", other, g);
      assertEquals(other, other);
    }
  }

  /** Generators dropped without close() are released by the Cleaner. */
  @Test
  public void droppedGeneratorsAreReleased() throws Exception {
    List<Long> handles = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      Generator g = Generator.create();
      handles.add(g.handle());
      if (i % 2 == 0) {
        g.close();
      }
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    long[] out = {0};
    int live;
    do {
      System.gc();
      Thread.sleep(20);
      live = 0;
      for (long h : handles) {
        if (ctorch.ct_generator_offset(h, out) == 0) {
          live++;
        }
      }
    } while (live > 0 && System.nanoTime() < deadline);
    Torch.clearError();
    assertEquals("generator handles still live", 0, live);
  }

  /* ============================================================================================
   * Without a GPU
   * ========================================================================================== */

  @Test
  public void noGpuSeedingAndStates() {
    assumeNoCuda();
    Torch.manualSeed(555);
    // torch.cuda's seeding functions do nothing without CUDA, and touch no CPU generator.
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
    assertStatus(CtorchException.ARGUMENT, () -> Cuda.setRngStateAll(List.of(new byte[15])));
    assertThrows(NullPointerException.class, () -> Cuda.setRngStateAll(null));
    assertThrows(NullPointerException.class, () -> Cuda.setRngStateAll(Arrays.asList((byte[]) null)));
    // The rest needs a GPU.
    CudaRuntimeTest.assertNoCuda(Cuda::initialSeed);
    CudaRuntimeTest.assertNoCuda(Cuda::getRngState);
    CudaRuntimeTest.assertNoCuda(() -> Cuda.getRngState(0));
    CudaRuntimeTest.assertNoCuda(() -> Cuda.setRngState(new byte[16]));
    CudaRuntimeTest.assertNoCuda(() -> Cuda.setRngState(new byte[16], 0));
    CudaRuntimeTest.assertNoCuda(() -> Generator.create(Device.CUDA));
    CudaRuntimeTest.assertNoCuda(() -> Generator.create(Device.cuda(0)));
    CudaRuntimeTest.assertNoCuda(() -> Generator.defaultGenerator(Device.CUDA));
    CudaRuntimeTest.assertNoCuda(() -> Tensor.rand(shape(3), DType.FLOAT32, Device.CUDA));
    CudaRuntimeTest.assertNoCuda(() -> Tensor.randn(shape(3), DType.FLOAT32, Device.cuda(0)));
    CudaRuntimeTest.assertNoCuda(() -> Tensor.randint(0, 3, shape(3), DType.INT64, Device.CUDA));
    // A CPU generator for a CUDA factory: the device is checked first (no CUDA).
    try (Generator g = Generator.create()) {
      CudaRuntimeTest.assertNoCuda(() -> Tensor.rand(shape(3), DType.FLOAT32, Device.CUDA, g));
      assertEquals(0, g.offset());
    }
    assertEquals(555, Torch.initialSeed());
  }

  /* ============================================================================================
   * With a GPU
   * ========================================================================================== */

  /**
   * The CUDA default generator draws the same uniform bits as the CPU reference (the same
   * Philox, by design), and torch.manual_seed seeds it.
   */
  @Test
  public void gpuRandMatchesTheCpuReference() {
    assumeCuda();
    Torch.manualSeed(67280421310721L);
    assertEquals(Generator.DEFAULT_SEED, Cuda.initialSeed());
    try (Tensor r = Tensor.rand(shape(7), DType.FLOAT32, Device.CUDA)) {
      assertTrue(r.isCuda());
      assertArrayEquals(referenceBits(), floatBits(r));
    }
    assertEquals(4, defaultOffset(Device.CUDA));
    assertEquals("the CPU default generator did not move", 0, defaultOffset(Device.CPU));
    // Larger draws agree bit for bit too (uniform and integer), through explicit generators.
    try (Generator cpu = Generator.create().manualSeed(9);
        Generator gpu = Generator.create(Device.CUDA).manualSeed(9);
        Tensor a = Tensor.rand(shape((1 << 20) + 5), DType.FLOAT32, Device.CPU, cpu);
        Tensor b = Tensor.rand(shape((1 << 20) + 5), DType.FLOAT32, Device.CUDA, gpu);
        Tensor ad = Tensor.rand(shape(1000), DType.FLOAT64, Device.CPU, cpu);
        Tensor bd = Tensor.rand(shape(1000), DType.FLOAT64, Device.CUDA, gpu);
        Tensor ai = Tensor.randint(-1000, 1000, shape(5000), DType.INT64, Device.CPU, cpu);
        Tensor bi = Tensor.randint(-1000, 1000, shape(5000), DType.INT64, Device.CUDA, gpu)) {
      assertEquals(Device.cuda(Cuda.currentDevice()), gpu.device());
      assertArrayEquals(floatBits(a), floatBits(b));
      assertArrayEquals(doubleBits(ad), doubleBits(bd));
      assertArrayEquals(ai.toLongArray(), bi.toLongArray());
      assertEquals(cpu.offset(), gpu.offset());
      assertArrayEquals(cpu.getState(), gpu.getState());
    }
  }

  @Test
  public void gpuRngStateRoundTrip() {
    assumeCuda();
    Cuda.manualSeed(5);
    assertEquals(5, Cuda.initialSeed());
    byte[] state = Cuda.getRngState();
    assertArrayEquals(new long[] {5, 0}, decodeState(state));
    assertArrayEquals(state, Cuda.getRngState(Cuda.currentDevice()));
    try (Tensor a = Tensor.randn(shape(1000), DType.FLOAT32, Device.CUDA)) {
      assertArrayEquals(new long[] {5, 4}, decodeState(Cuda.getRngState()));
      Cuda.setRngState(state);
      try (Tensor b = Tensor.randn(shape(1000), DType.FLOAT32, Device.CUDA)) {
        assertArrayEquals(floatBits(a), floatBits(b));
      }
      List<byte[]> all = Cuda.getRngStateAll();
      assertEquals(Cuda.deviceCount(), all.size());
      assertThrows(UnsupportedOperationException.class, () -> all.add(new byte[16]));
      Cuda.setRngState(state, Cuda.currentDevice());
      Cuda.setRngStateAll(all);
      try (Tensor c = Tensor.randn(shape(1000), DType.FLOAT32, Device.CUDA)) {
        assertFalse("state_all put back the offset after a", Arrays.equals(floatBits(a),
            floatBits(c)));
      }
      Cuda.setRngStateAll(all);
      assertEquals(all.size(), Cuda.getRngStateAll().size());
      assertArrayEquals(all.get(Cuda.currentDevice()), Cuda.getRngState());
      assertStatus(CtorchException.ARGUMENT, () -> Cuda.setRngState(new byte[15]));
      assertStatus(CtorchException.ARGUMENT, () -> Cuda.setRngStateAll(List.of()));
      assertStatus(CtorchException.INDEX, () -> Cuda.getRngState(Cuda.deviceCount()));
    }
    Cuda.manualSeedAll(8);
    for (byte[] s : Cuda.getRngStateAll()) {
      assertArrayEquals(new long[] {8, 0}, decodeState(s));
    }
    Cuda.seedAll();
    long seed = Cuda.initialSeed();
    for (byte[] s : Cuda.getRngStateAll()) {
      assertEquals("one seed for all devices", seed, decodeState(s)[0]);
    }
    Cuda.seed();
    assertEquals(0, decodeState(Cuda.getRngState())[1]);
  }

  /** A generator of the wrong device type is code 300, and nothing is drawn. */
  @Test
  public void gpuWrongDeviceGenerator() {
    assumeCuda();
    try (Generator cpu = Generator.create();
        Generator gpu = Generator.create(Device.CUDA);
        Tensor c = Tensor.zeros(3);
        Tensor g = Tensor.zeros(shape(3), DType.FLOAT32, Device.CUDA)) {
      CtorchException e = assertStatus(CtorchException.DEVICE,
          () -> Tensor.rand(shape(3), DType.FLOAT32, Device.CUDA, cpu));
      assertTrue(e.detail(), e.detail().contains("generator"));
      assertStatus(CtorchException.DEVICE, () -> Tensor.rand(shape(3), gpu));
      assertStatus(CtorchException.DEVICE, () -> g.uniform_(0, 1, cpu));
      assertStatus(CtorchException.DEVICE, () -> c.normal_(0, 1, gpu));
      assertStatus(CtorchException.DEVICE, () -> Tensor.randLike(g, null, cpu));
      assertEquals(0, cpu.offset());
      assertEquals(0, gpu.offset());
      assertTrue(gpu.device().isCuda());
      assertTrue(gpu.device().hasIndex());
      assertEquals("<torch.Generator device=" + gpu.device() + ">", gpu.toString());
    }
    try (Generator d = Generator.defaultGenerator(Device.cuda(0))) {
      assertEquals(Device.cuda(0), d.device());
    }
  }

  /** The ops on CUDA tensors: ranges and dtypes as on the CPU. */
  @Test
  public void gpuRangesAndDTypes() {
    assumeCuda();
    Torch.manualSeed(21);
    for (DType dt : new DType[] {DType.FLOAT32, DType.FLOAT64, DType.FLOAT16, DType.BFLOAT16}) {
      try (Tensor r = Tensor.rand(shape(4000), dt, Device.CUDA);
          Tensor u = Tensor.empty(shape(4000), dt, Device.CUDA)) {
        assertEquals(dt, r.dtype());
        assertTrue(Arrays.stream(r.toDoubleArray()).allMatch(x -> x >= 0 && x < 1));
        u.uniform_(-3, 3);
        assertTrue(Arrays.stream(u.toDoubleArray()).allMatch(x -> x >= -3 && x < 3));
        u.bernoulli_(1);
        assertTrue(Arrays.stream(u.toDoubleArray()).allMatch(x -> x == 1));
        u.bernoulli_(0);
        assertTrue(Arrays.stream(u.toDoubleArray()).allMatch(x -> x == 0));
      }
    }
    try (Tensor i = Tensor.randint(-5, 5, shape(4000), DType.INT32, Device.CUDA)) {
      assertTrue(Arrays.stream(i.toLongArray()).allMatch(x -> x >= -5 && x < 5));
      assertEquals(10, Arrays.stream(i.toLongArray()).distinct().count());
    }
  }
}
