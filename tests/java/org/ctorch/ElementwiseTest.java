package org.ctorch;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.junit.Test;

/** Elementwise operations: type promotion, broadcasting, scalars, in-place forms. */
public class ElementwiseTest extends CtorchTestCase {

  private static Tensor i32(int... v) {
    return Tensor.fromArray(v);
  }

  private static Tensor f32(float... v) {
    return Tensor.fromArray(v);
  }

  // ---- type promotion (the cases PyTorch users trip over) ------------------------------------

  @Test
  public void intTensorPlusPythonFloatIsFloat32() {
    try (Tensor a = i32(1, 2, 3); Tensor r = a.add(2.5)) {
      assertSame(DType.FLOAT32, r.dtype());
      assertValues(r, 3.5f, 4.5f, 5.5f);
    }
  }

  @Test
  public void intTensorPlusPythonIntStaysInt32() {
    try (Tensor a = i32(1, 2, 3); Tensor r = a.add(2)) {
      assertSame(DType.INT32, r.dtype());
      assertLongs(r, 3, 4, 5);
    }
  }

  @Test
  public void int32PlusInt64TensorIsInt64() {
    try (Tensor a = i32(1, 2);
        Tensor b = Tensor.fromArray(new long[] {10, 20});
        Tensor r = a.add(b)) {
      assertSame(DType.INT64, r.dtype());
      assertLongs(r, 11, 22);
    }
  }

  @Test
  public void uint8PlusInt8IsInt16() {
    try (Tensor u = Tensor.fromBytes(new byte[] {(byte) 200, 1}, DType.UINT8);
        Tensor s = Tensor.fromArray(new byte[] {-1, 2});
        Tensor r = u.add(s)) {
      assertSame(DType.INT16, r.dtype());
      assertLongs(r, 199, 3);
    }
  }

  @Test
  public void boolPlusBoolIsBool() {
    try (Tensor a = Tensor.fromArray(new boolean[] {true, false, true, false});
        Tensor b = Tensor.fromArray(new boolean[] {true, true, false, false});
        Tensor r = a.add(b);
        Tensor m = a.mul(b);
        Tensor plusOne = a.add(1);
        Tensor plusHalf = a.add(0.5)) {
      assertSame(DType.BOOL, r.dtype());
      assertBools(r, true, true, true, false);
      assertSame(DType.BOOL, m.dtype());
      assertBools(m, true, false, false, false);
      assertSame(DType.INT64, plusOne.dtype()); // bool + Python int -> int64
      assertLongs(plusOne, 2, 1, 2, 1);
      assertSame(DType.FLOAT32, plusHalf.dtype());
      assertValues(plusHalf, 1.5f, 0.5f, 1.5f, 0.5f);
    }
  }

  @Test
  public void float16PlusPythonFloatStaysFloat16() {
    try (Tensor h = cast(f32(1f, 2f), DType.FLOAT16); Tensor r = h.add(2.5)) {
      assertSame(DType.FLOAT16, r.dtype());
      assertValues(r, 3.5f, 4.5f);
    }
  }

  @Test
  public void intDivIntIsFloat32() {
    try (Tensor a = i32(1, 2, 3);
        Tensor b = i32(2, 2, 2);
        Tensor r = a.div(b);
        Tensor s = a.div(2)) {
      assertSame(DType.FLOAT32, r.dtype());
      assertValues(r, 0.5f, 1f, 1.5f);
      assertSame(DType.FLOAT32, s.dtype());
      assertValues(s, 0.5f, 1f, 1.5f);
    }
  }

  @Test
  public void zeroDimFloat64PlusFloat32TensorIsFloat32() {
    try (Tensor s = Tensor.scalar(2.5);
        Tensor t = f32(1f, 2f);
        Tensor r = s.add(t);
        Tensor r2 = t.add(s)) {
      assertSame(DType.FLOAT64, s.dtype());
      assertSame(DType.FLOAT32, r.dtype());
      assertSame(DType.FLOAT32, r2.dtype());
      assertValues(r, 3.5f, 4.5f);
      assertValues(r2, 3.5f, 4.5f);
    }
  }

  @Test
  public void zeroDimInt64TimesInt32TensorStaysInt32() {
    try (Tensor s = Tensor.scalar(3L); Tensor t = i32(1, 2); Tensor r = t.mul(s)) {
      assertSame(DType.INT32, r.dtype());
      assertLongs(r, 3, 6);
    }
  }

  @Test
  public void uint8Wraps() {
    try (Tensor u = Tensor.fromBytes(new byte[] {(byte) 250}, DType.UINT8);
        Tensor r = u.add(10)) {
      assertSame(DType.UINT8, r.dtype());
      assertLongs(r, 4);
    }
  }

  // ---- broadcasting ----------------------------------------------------------------------------

  @Test
  public void broadcastColumnPlusRow() {
    try (Tensor col = Tensor.fromArray(new float[] {0, 10, 20}, 3, 1);
        Tensor row = f32(1, 2, 3, 4);
        Tensor r = col.add(row)) {
      assertShape(r, 3, 4);
      assertValues(r, 1, 2, 3, 4, 11, 12, 13, 14, 21, 22, 23, 24);
    }
  }

  @Test
  public void broadcastThreeDims() {
    try (Tensor a = Tensor.fromArray(new float[] {1, 2, 3, 4, 5, 6}, 2, 1, 3);
        Tensor b = Tensor.fromArray(new float[] {1, 10}, 2, 1);
        Tensor r = a.mul(b)) {
      assertShape(r, 2, 2, 3);
      assertValues(r, 1, 2, 3, 10, 20, 30, 4, 5, 6, 40, 50, 60);
    }
  }

  // ---- scalar forms, reverse forms -----------------------------------------------------------

  @Test
  public void scalarAndReverseArithmetic() {
    try (Tensor a = i32(1, 2, 3);
        Tensor sub = a.sub(1);
        Tensor subF = a.sub(0.5);
        Tensor mul = a.mul(3);
        Tensor mulF = a.mul(0.5);
        Tensor pow = a.pow(2);
        Tensor powF = a.pow(0.5);
        Tensor rsub = a.rsub(10);
        Tensor rsubF = a.rsub(0.5);
        Tensor rdiv = a.rdiv(1);
        Tensor rdivF = a.rdiv(3.0);
        Tensor rpow = a.rpow(2);
        Tensor rpowF = a.rpow(0.5);
        Tensor rr = a.rbinary(BinaryOp.REMAINDER, 7)) {
      assertSame(DType.INT32, sub.dtype());
      assertLongs(sub, 0, 1, 2);
      assertValues(subF, 0.5f, 1.5f, 2.5f);
      assertLongs(mul, 3, 6, 9);
      assertValues(mulF, 0.5f, 1f, 1.5f);
      assertSame(DType.INT32, pow.dtype());
      assertLongs(pow, 1, 4, 9);
      assertSame(DType.FLOAT32, powF.dtype());
      assertClose(powF, 1e-6f, 1f, (float) Math.sqrt(2), (float) Math.sqrt(3));
      assertSame(DType.INT32, rsub.dtype());
      assertLongs(rsub, 9, 8, 7);
      assertValues(rsubF, -0.5f, -1.5f, -2.5f);
      assertSame(DType.FLOAT32, rdiv.dtype());
      assertClose(rdiv, 1e-6f, 1f, 0.5f, 1f / 3f);
      assertValues(rdivF, 3f, 1.5f, 1f);
      assertSame(DType.INT32, rpow.dtype());
      assertLongs(rpow, 2, 4, 8);
      assertClose(rpowF, 1e-6f, 0.5f, 0.25f, 0.125f);
      assertLongs(rr, 0, 1, 1); // 7 % [1, 2, 3]
    }
  }

  @Test
  public void remainderAndFloorDivideFollowPython() {
    try (Tensor a = i32(-3, 3);
        Tensor b = i32(2, -2);
        Tensor r1 = a.remainder(2);
        Tensor r2 = a.remainder(-2);
        Tensor r3 = a.remainder(b);
        Tensor f1 = a.floorDivide(2);
        Tensor f2 = a.floorDivide(b);
        Tensor f3 = a.floorDivide(2.0);
        Tensor r4 = a.remainder(2.5)) {
      assertLongs(r1, 1, 1); // the sign of the divisor
      assertLongs(r2, -1, -1);
      assertLongs(r3, 1, -1);
      assertLongs(f1, -2, 1);
      assertLongs(f2, -2, -2);
      assertSame(DType.FLOAT32, f3.dtype());
      assertValues(f3, -2f, 1f);
      assertValues(r4, 2f, 0.5f);
    }
  }

  // ---- comparisons, logical ops, maximum/minimum --------------------------------------------

  @Test
  public void comparisons() {
    try (Tensor a = i32(1, 2, 3);
        Tensor b = f32(3f, 2f, 1f);
        Tensor eq = a.eq(2);
        Tensor ne = a.ne(2.0);
        Tensor lt = a.lt(2);
        Tensor le = a.le(2);
        Tensor gt = a.gt(1.5);
        Tensor ge = a.ge(2.5);
        Tensor eqT = a.eq(b);
        Tensor neT = a.ne(b);
        Tensor ltT = a.lt(b);
        Tensor leT = a.le(b);
        Tensor gtT = a.gt(b);
        Tensor geT = a.ge(b);
        Tensor eqF = a.eq(2.0);
        Tensor neI = a.ne(3);
        Tensor ltF = a.lt(2.5);
        Tensor leF = a.le(0.5);
        Tensor gtI = a.gt(2);
        Tensor geI = a.ge(1)) {
      assertSame(DType.BOOL, eq.dtype());
      assertBools(eq, false, true, false);
      assertBools(ne, true, false, true);
      assertBools(lt, true, false, false);
      assertBools(le, true, true, false);
      assertBools(gt, false, true, true);
      assertBools(ge, false, false, true);
      assertBools(eqT, false, true, false);
      assertBools(neT, true, false, true);
      assertBools(ltT, true, false, false);
      assertBools(leT, true, true, false);
      assertBools(gtT, false, false, true);
      assertBools(geT, false, true, true);
      assertBools(eqF, false, true, false);
      assertBools(neI, true, true, false);
      assertBools(ltF, true, true, false);
      assertBools(leF, false, false, false);
      assertBools(gtI, false, false, true);
      assertBools(geI, true, true, true);
    }
  }

  @Test
  public void logicalOps() {
    try (Tensor a = i32(0, 1, 2, 0);
        Tensor b = f32(1f, 1f, 0f, 0f);
        Tensor and = a.logicalAnd(b);
        Tensor or = a.logicalOr(b);
        Tensor xor = a.logicalXor(b);
        Tensor not = a.logicalNot()) {
      for (Tensor t : new Tensor[] {and, or, xor, not}) {
        assertSame(DType.BOOL, t.dtype());
      }
      assertBools(and, false, true, false, false);
      assertBools(or, true, true, true, false);
      assertBools(xor, true, false, true, false);
      assertBools(not, true, false, false, true);
    }
  }

  @Test
  public void maximumMinimumPropagateNaN() {
    try (Tensor a = f32(1, 5, Float.NaN);
        Tensor b = f32(4, 2, 0);
        Tensor mx = a.maximum(b);
        Tensor mn = a.minimum(b);
        Tensor c = f32(1, 5, 3)) {
      float[] x = mx.toFloatArray();
      assertEquals(4f, x[0], 0);
      assertEquals(5f, x[1], 0);
      assertTrue(Float.isNaN(x[2]));
      float[] n = mn.toFloatArray();
      assertEquals(1f, n[0], 0);
      assertEquals(2f, n[1], 0);
      assertTrue(Float.isNaN(n[2]));
      c.maximum_(b);
      assertValues(c, 4, 5, 3);
      c.minimum_(b);
      assertValues(c, 4, 2, 0);
    }
  }

  // ---- in-place ------------------------------------------------------------------------------

  @Test
  public void inPlaceArithmetic() {
    try (Tensor a = f32(1, 2); Tensor ones = f32(1, 1); Tensor two = f32(2, 2)) {
      assertSame(a, a.add_(1));
      assertValues(a, 2, 3);
      a.mul_(2.5);
      assertValues(a, 5, 7.5f);
      a.sub_(ones);
      assertValues(a, 4, 6.5f);
      a.div_(2);
      assertValues(a, 2, 3.25f);
      a.pow_(2);
      assertValues(a, 4, 10.5625f);
      a.add_(0.5).sub_(0.5).mul_(2).div_(two);
      assertValues(a, 4, 10.5625f);
      a.sub_(1).mul_(ones).add_(ones).pow_(two).div_(2.0);
      assertValues(a, 8, 55.783203125f);
      a.add_(two).sub_(2.0).pow_(1.0).remainder_(5).floorDivide_(1);
      assertValues(a, 3, 0);
      a.add_(7).remainder_(two).floorDivide_(two);
      assertValues(a, 0, 0);
      a.fill_(9).remainder_(4.0).floorDivide_(0.5);
      assertValues(a, 2, 2);
      a.binary_(BinaryOp.GT, 1.5); // comparisons store 0/1 in a's dtype
      assertSame(DType.FLOAT32, a.dtype());
      assertValues(a, 1, 1);
      a.binary_(BinaryOp.LT, ones);
      assertValues(a, 0, 0);
      a.binary_(BinaryOp.ADD, 3L);
      assertValues(a, 3, 3);
    }
  }

  @Test
  public void inPlaceBroadcastsTheOtherOperandOnly() {
    try (Tensor a = Tensor.zeros(2, 3);
        Tensor row = f32(1, 2, 3);
        Tensor small = f32(1, 2);
        Tensor big = Tensor.ones(2, 2, 3)) {
      a.add_(row);
      assertValues(a, 1, 2, 3, 1, 2, 3);
      assertStatus(CtorchException.SHAPE, () -> a.add_(small));
      assertStatus(CtorchException.SHAPE, () -> row.add_(big)); // row cannot grow
    }
  }

  @Test
  public void inPlaceCannotChangeTheDType() {
    try (Tensor a = i32(1, 2)) {
      assertStatus(CtorchException.DTYPE, () -> a.add_(2.5));
      assertStatus(CtorchException.DTYPE, () -> a.div_(2));
      assertStatus(CtorchException.DTYPE, a::exp_);
      assertLongs(a, 1, 2); // unchanged by the failed calls
      a.mul_(3);
      assertLongs(a, 3, 6);
    }
  }

  // ---- unary -----------------------------------------------------------------------------------

  /** op(tensor(in)), as floats; closes both tensors. */
  private static float[] un(java.util.function.Function<Tensor, Tensor> op, float... in) {
    try (Tensor a = f32(in); Tensor r = op.apply(a)) {
      return r.toFloatArray();
    }
  }

  private static void check(float[] expected, float[] actual) {
    assertArrayEquals(expected, actual, 1e-6f);
  }

  @Test
  public void unaryOps() {
    float e = (float) Math.E;
    check(new float[] {-1, 2}, un(Tensor::neg, 1, -2));
    check(new float[] {1.5f, 2}, un(Tensor::abs, -1.5f, 2));
    check(new float[] {1, e}, un(Tensor::exp, 0, 1));
    check(new float[] {0, 1}, un(Tensor::log, 1, e));
    check(new float[] {2, 3}, un(Tensor::sqrt, 4, 9));
    check(new float[] {0, 1}, un(Tensor::sin, 0, (float) (Math.PI / 2)));
    check(new float[] {1, -1}, un(Tensor::cos, 0, (float) Math.PI));
    check(new float[] {0, (float) Math.tanh(1)}, un(Tensor::tanh, 0, 1));
    check(new float[] {0.5f, (float) (1 / (1 + Math.exp(-2)))}, un(Tensor::sigmoid, 0, 2));
    check(new float[] {0, 2}, un(Tensor::relu, -1, 2));
    check(new float[] {-1, 0, 1}, un(Tensor::sign, -3, 0, 2));
    check(new float[] {-2, 1}, un(Tensor::floor, -1.5f, 1.5f));
    check(new float[] {-1, 2}, un(Tensor::ceil, -1.5f, 1.5f));
    check(new float[] {0, 2, 2, -0f, 1}, un(Tensor::round, 0.5f, 1.5f, 2.5f, -0.5f, 0.6f));
    check(new float[] {0.5f, 0.25f}, un(Tensor::reciprocal, 2, 4));
    check(new float[] {9}, un(Tensor::square, -3));
    check(new float[] {1, 0}, un(Tensor::logicalNot, 0, 2));
    check(new float[] {7}, un(t -> t.unary(UnaryOp.ABS), -7));
  }

  @Test
  public void unaryDTypes() {
    try (Tensor ints = i32(0, 1, -4);
        Tensor exp = ints.exp();
        Tensor rec = ints.reciprocal();
        Tensor neg = ints.neg();
        Tensor relu = ints.relu();
        Tensor floor = ints.floor();
        Tensor bools = Tensor.fromArray(new boolean[] {true, false});
        Tensor sq = bools.square()) {
      assertSame(DType.FLOAT32, exp.dtype());
      assertClose(exp, 1e-6f, 1f, e(), (float) Math.exp(-4));
      assertSame(DType.FLOAT32, rec.dtype());
      assertValues(rec, Float.POSITIVE_INFINITY, 1f, -0.25f);
      assertSame(DType.INT32, neg.dtype());
      assertLongs(neg, 0, -1, 4);
      assertSame(DType.INT32, relu.dtype());
      assertLongs(relu, 0, 1, 0);
      assertSame(DType.INT32, floor.dtype());
      assertLongs(floor, 0, 1, -4);
      assertSame(DType.INT64, sq.dtype());
      assertLongs(sq, 1, 0);
      assertStatus(CtorchException.DTYPE, bools::neg);
    }
    ByteBuffer c = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder());
    c.putFloat(3f).putFloat(-4f);
    try (Tensor z = Tensor.fromBytes(c.array(), DType.COMPLEX64); Tensor m = z.abs()) {
      assertSame(DType.FLOAT32, m.dtype()); // complex magnitude is real
      assertValues(m, 5f);
    }
  }

  private static float e() {
    return (float) Math.E;
  }

  @Test
  public void inPlaceUnary() {
    try (Tensor a = f32(-1.5f, 2.25f, 0f)) {
      assertSame(a, a.neg_());
      assertValues(a, 1.5f, -2.25f, 0);
      a.abs_();
      assertValues(a, 1.5f, 2.25f, 0);
      a.sqrt_();
      assertClose(a, 1e-6f, (float) Math.sqrt(1.5), 1.5f, 0);
      a.square_();
      assertClose(a, 1e-6f, 1.5f, 2.25f, 0);
      a.floor_();
      assertValues(a, 1, 2, 0);
      a.ceil_().round_().reciprocal_();
      assertValues(a, 1, 0.5f, Float.POSITIVE_INFINITY);
      a.fill_(0).exp_();
      assertValues(a, 1, 1, 1);
      a.log_();
      assertValues(a, 0, 0, 0);
      a.sin_().cos_();
      assertValues(a, 1, 1, 1);
      a.tanh_().sigmoid_();
      float expected = (float) (1 / (1 + Math.exp(-Math.tanh(1))));
      assertClose(a, 1e-6f, expected, expected, expected);
      a.fill_(-2).relu_();
      assertValues(a, 0, 0, 0);
      a.fill_(-2).sign_();
      assertValues(a, -1, -1, -1);
      a.logicalNot_();
      assertValues(a, 0, 0, 0);
      a.unary_(UnaryOp.EXP);
      assertValues(a, 1, 1, 1);
    }
  }

  // ---- clamp, where, fill_, zero_ -----------------------------------------------------------

  @Test
  public void clamp() {
    try (Tensor a = f32(-2, 0.5f, 3);
        Tensor both = a.clamp(-1, 1);
        Tensor lo = a.clampMin(0);
        Tensor hi = a.clampMax(0);
        Tensor ints = i32(-5, 1, 9);
        Tensor ic = ints.clamp(0, 2)) {
      assertValues(both, -1, 0.5f, 1);
      assertValues(lo, 0, 0.5f, 3);
      assertValues(hi, -2, 0, 0);
      assertSame(DType.INT32, ic.dtype());
      assertLongs(ic, 0, 1, 2);
      assertSame(a, a.clamp_(-1, 1));
      assertValues(a, -1, 0.5f, 1);
      a.clampMin_(0);
      assertValues(a, 0, 0.5f, 1);
      a.clampMax_(0.25);
      assertValues(a, 0, 0.25f, 0.25f);
    }
  }

  @Test
  public void where() {
    try (Tensor cond = Tensor.fromArray(new boolean[] {true, false, true});
        Tensor a = f32(1, 2, 3);
        Tensor b = Tensor.fromArray(new long[] {10, 20, 30});
        Tensor r = Tensor.where(cond, a, b);
        Tensor col = Tensor.fromArray(new boolean[] {true, false}, 2, 1);
        Tensor zero = Tensor.scalar(0L);
        Tensor ints = i32(5, 6, 7);
        Tensor r2 = Tensor.where(col, ints, zero)) {
      assertSame(DType.FLOAT32, r.dtype());
      assertValues(r, 1, 20, 3);
      assertShape(r2, 2, 3);
      assertSame(DType.INT32, r2.dtype());
      assertLongs(r2, 5, 6, 7, 0, 0, 0);
      assertStatus(CtorchException.DTYPE, () -> Tensor.where(a, a, b)); // cond must be bool
    }
  }

  @Test
  public void fillAndZero() {
    try (Tensor a = Tensor.zeros(shape(2, 2), DType.INT64); Tensor f = Tensor.empty(3)) {
      assertSame(a, a.fill_(7));
      assertLongs(a, 7, 7, 7, 7);
      assertSame(a, a.zero_());
      assertLongs(a, 0, 0, 0, 0);
      f.fill_(-0.5);
      assertValues(f, -0.5f, -0.5f, -0.5f);
      f.zero_();
      assertValues(f, 0, 0, 0);
    }
  }
}
