package org.ctorch;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;

import java.util.function.BiFunction;
import java.util.function.DoubleBinaryOperator;
import java.util.function.DoubleUnaryOperator;
import java.util.function.UnaryOperator;

import org.junit.Test;

/**
 * What the binding adds to elementwise operations: each named method reaches the op it is
 * named for, with a tensor, a Python-int (long) or a Python-float (double) operand, reversed
 * or in place; the by-code methods; clamp, where, fill; errors, closed and null operands.
 * Promotion, broadcasting and the ops' values on every dtype are the C suite's
 * (tests/capi/capi_test.c); here the expected values come from java.lang.Math on float64.
 */
public class ElementwiseTest extends CtorchTestCase {

  private static final double[] A = {6, -3, 2.5};
  private static final double[] B = {4, 2, -0.5};

  /** One named binary op: its tensor, long, double and in-place forms and Java's value. */
  private record Binary(String name, BiFunction<Tensor, Tensor, Tensor> tensor,
      BiFunction<Tensor, Long, Tensor> integer, BiFunction<Tensor, Double, Tensor> real,
      BiFunction<Tensor, Tensor, Tensor> inPlace, DoubleBinaryOperator ref) {}

  private static final Binary[] BINARY = {
    new Binary("add", Tensor::add, Tensor::add, Tensor::add, Tensor::add_, (x, y) -> x + y),
    new Binary("sub", Tensor::sub, Tensor::sub, Tensor::sub, Tensor::sub_, (x, y) -> x - y),
    new Binary("mul", Tensor::mul, Tensor::mul, Tensor::mul, Tensor::mul_, (x, y) -> x * y),
    new Binary("div", Tensor::div, Tensor::div, Tensor::div, Tensor::div_, (x, y) -> x / y),
    new Binary("pow", Tensor::pow, Tensor::pow, Tensor::pow, Tensor::pow_, Math::pow),
    new Binary("remainder", Tensor::remainder, Tensor::remainder, Tensor::remainder,
        Tensor::remainder_, (x, y) -> x - Math.floor(x / y) * y),
    new Binary("floorDivide", Tensor::floorDivide, Tensor::floorDivide, Tensor::floorDivide,
        Tensor::floorDivide_, (x, y) -> Math.floor(x / y)),
    new Binary("eq", Tensor::eq, Tensor::eq, Tensor::eq, null, (x, y) -> x == y ? 1 : 0),
    new Binary("ne", Tensor::ne, Tensor::ne, Tensor::ne, null, (x, y) -> x != y ? 1 : 0),
    new Binary("lt", Tensor::lt, Tensor::lt, Tensor::lt, null, (x, y) -> x < y ? 1 : 0),
    new Binary("le", Tensor::le, Tensor::le, Tensor::le, null, (x, y) -> x <= y ? 1 : 0),
    new Binary("gt", Tensor::gt, Tensor::gt, Tensor::gt, null, (x, y) -> x > y ? 1 : 0),
    new Binary("ge", Tensor::ge, Tensor::ge, Tensor::ge, null, (x, y) -> x >= y ? 1 : 0),
    new Binary("maximum", Tensor::maximum, null, null, Tensor::maximum_, Math::max),
    new Binary("minimum", Tensor::minimum, null, null, Tensor::minimum_, Math::min),
    new Binary("logicalAnd", Tensor::logicalAnd, null, null, null,
        (x, y) -> x != 0 && y != 0 ? 1 : 0),
    new Binary("logicalOr", Tensor::logicalOr, null, null, null,
        (x, y) -> x != 0 || y != 0 ? 1 : 0),
    new Binary("logicalXor", Tensor::logicalXor, null, null, null,
        (x, y) -> (x != 0) != (y != 0) ? 1 : 0),
  };

  private static double[] ref(DoubleBinaryOperator op, double[] x, double y) {
    double[] r = new double[x.length];
    for (int i = 0; i < r.length; i++) {
      r[i] = op.applyAsDouble(x[i], y);
    }
    return r;
  }

  private static double[] ref(DoubleBinaryOperator op, double[] x, double[] y) {
    double[] r = new double[x.length];
    for (int i = 0; i < r.length; i++) {
      r[i] = op.applyAsDouble(x[i], y[i]);
    }
    return r;
  }

  private static void assertDoubles(String what, double[] expected, Tensor t) {
    assertArrayEquals(what + ": " + t, expected, t.toDoubleArray(), 1e-9);
  }

  /** Each named binary method, in each of its forms, is the op it is named for. */
  @Test
  public void namedBinaryMethods() {
    try (TensorScope scope = TensorScope.open()) {
      Tensor a = Tensor.fromArray(A);
      Tensor b = Tensor.fromArray(B);
      for (Binary op : BINARY) {
        assertDoubles(op.name, ref(op.ref, A, B), op.tensor.apply(a, b));
        if (op.integer != null) {
          assertDoubles(op.name + "(long)", ref(op.ref, A, 2), op.integer.apply(a, 2L));
          assertDoubles(op.name + "(double)", ref(op.ref, A, -1.5), op.real.apply(a, -1.5));
        }
        if (op.inPlace != null) {
          Tensor c = a.clone();
          assertSame(c, op.inPlace.apply(c, b));
          assertDoubles(op.name + "_", ref(op.ref, A, B), c);
        }
      }
      Tensor c = a.clone();
      assertSame(c, c.add_(2L).sub_(1L).mul_(3L).div_(2L).pow_(1L).remainder_(100L)
          .floorDivide_(1L));
      assertDoubles("long chain", new double[] {10, 97, 5}, c);
      assertSame(c, c.add_(0.5).sub_(1.0).mul_(2.0).div_(4.0).pow_(2.0).remainder_(50.0)
          .floorDivide_(0.5));
      assertDoubles("double chain", new double[] {45, 56, 10}, c);
      assertDoubles("rsub", new double[] {-4, 5, -0.5}, a.rsub(2));
      assertDoubles("rsub", new double[] {-5.5, 3.5, -2}, a.rsub(0.5));
      assertDoubles("rdiv", new double[] {0.5, -1, 1.2}, a.rdiv(3));
      assertDoubles("rdiv", new double[] {-0.25, 0.5, -0.6}, a.rdiv(-1.5));
      assertDoubles("rpow", new double[] {64, 0.125, Math.pow(2, 2.5)}, a.rpow(2));
      assertDoubles("rpow", new double[] {1, 1, 1}, a.rpow(1.0));
    }
  }

  /** A long is a Python int (an int32 tensor stays int32), a double a Python float. */
  @Test
  public void scalarOverloadsPickPythonIntOrFloat() {
    try (TensorScope scope = TensorScope.open()) {
      Tensor i = Tensor.fromArray(new int[] {1, 2});
      assertSame(DType.INT32, i.add(2).dtype());
      assertSame(DType.FLOAT32, i.add(2.0).dtype());
      assertSame(DType.INT32, i.binary(BinaryOp.MUL, 3L).dtype());
      assertSame(DType.FLOAT32, i.rbinary(BinaryOp.SUB, 1.0).dtype());
      assertLongs(i.rbinary(BinaryOp.SUB, 10L), 9, 8);
      assertSame(i, i.binary_(BinaryOp.ADD, 3L));
      assertLongs(i, 4, 5);
      assertStatus(CtorchException.DTYPE, () -> i.binary_(BinaryOp.ADD, 0.5));
      assertSame(i, i.binary_(BinaryOp.GT, i.binary(BinaryOp.SUB, 1.0)));
      assertLongs(i, 1, 1);
      assertBools(Tensor.fromArray(new double[] {1, 2}).binary(BinaryOp.GE,
          Tensor.fromArray(new double[] {2, 2})), false, true);
    }
  }

  private record Unary(String name, UnaryOperator<Tensor> op, UnaryOperator<Tensor> inPlace,
      DoubleUnaryOperator ref) {}

  private static final Unary[] UNARY = {
    new Unary("neg", Tensor::neg, Tensor::neg_, x -> -x),
    new Unary("abs", Tensor::abs, Tensor::abs_, Math::abs),
    new Unary("exp", Tensor::exp, Tensor::exp_, Math::exp),
    new Unary("log", Tensor::log, Tensor::log_, Math::log),
    new Unary("sqrt", Tensor::sqrt, Tensor::sqrt_, Math::sqrt),
    new Unary("sin", Tensor::sin, Tensor::sin_, Math::sin),
    new Unary("cos", Tensor::cos, Tensor::cos_, Math::cos),
    new Unary("tanh", Tensor::tanh, Tensor::tanh_, Math::tanh),
    new Unary("sigmoid", Tensor::sigmoid, Tensor::sigmoid_, x -> 1 / (1 + Math.exp(-x))),
    new Unary("relu", Tensor::relu, Tensor::relu_, x -> Math.max(0, x)),
    new Unary("logicalNot", Tensor::logicalNot, Tensor::logicalNot_, x -> x == 0 ? 1 : 0),
    new Unary("sign", Tensor::sign, Tensor::sign_, Math::signum),
    new Unary("floor", Tensor::floor, Tensor::floor_, Math::floor),
    new Unary("ceil", Tensor::ceil, Tensor::ceil_, Math::ceil),
    new Unary("round", Tensor::round, Tensor::round_, Math::rint),
    new Unary("reciprocal", Tensor::reciprocal, Tensor::reciprocal_, x -> 1 / x),
    new Unary("square", Tensor::square, Tensor::square_, x -> x * x),
  };

  /** Each named unary method and its in-place form is the op it is named for. */
  @Test
  public void namedUnaryMethods() {
    double[] x = {0.25, -4, 2.5, 0};
    try (TensorScope scope = TensorScope.open()) {
      Tensor t = Tensor.fromArray(x);
      for (Unary op : UNARY) {
        double[] expected = new double[x.length];
        for (int i = 0; i < x.length; i++) {
          expected[i] = op.ref.applyAsDouble(x[i]);
        }
        assertDoubles(op.name, expected, op.op.apply(t));
        Tensor c = t.clone();
        assertSame(c, op.inPlace.apply(c));
        assertDoubles(op.name + "_", expected, c);
      }
      assertDoubles("unary(NEG)", new double[] {-0.25, 4, -2.5, 0}, t.unary(UnaryOp.NEG));
      Tensor c = t.clone();
      assertSame(c, c.unary_(UnaryOp.ABS));
      assertDoubles("unary_(ABS)", new double[] {0.25, 4, 2.5, 0}, c);
      Tensor ints = Tensor.fromArray(new int[] {1, 2});
      assertStatus(CtorchException.DTYPE, ints::exp_);
      assertLongs(ints, 1, 2);
    }
  }

  @Test
  public void clampWhereFill() {
    try (TensorScope scope = TensorScope.open()) {
      Tensor t = Tensor.fromArray(new double[] {-2, 0.5, 3});
      assertDoubles("clamp", new double[] {-1, 0.5, 1}, t.clamp(-1, 1));
      assertDoubles("clampMin", new double[] {0, 0.5, 3}, t.clampMin(0));
      assertDoubles("clampMax", new double[] {-2, 0.5, 2}, t.clampMax(2));
      Tensor c = t.clone();
      assertSame(c, c.clampMin_(-1));
      assertSame(c, c.clampMax_(2));
      assertDoubles("clampMin_ clampMax_", new double[] {-1, 0.5, 2}, c);
      assertSame(c, c.clamp_(0, 1));
      assertDoubles("clamp_", new double[] {0, 0.5, 1}, c);
      Tensor cond = Tensor.fromArray(new boolean[] {true, false, true});
      assertDoubles("where", new double[] {-2, 0, 3}, Tensor.where(cond, t, c.zero_()));
      assertSame(c, c.fill_(7));
      assertDoubles("fill_", new double[] {7, 7, 7}, c);
      assertStatus(CtorchException.DTYPE, () -> Tensor.where(t, t, t)); // cond must be bool
      assertThrows(NullPointerException.class, () -> Tensor.where(null, t, t));
      assertThrows(NullPointerException.class, () -> Tensor.where(cond, t, null));
    }
  }

  /** Shape errors arrive as code 103; closed operands are 102 on either side; null is NPE. */
  @Test
  public void errorsClosedAndNullOperands() {
    Tensor closed = Tensor.zeros(2);
    closed.close();
    try (Tensor a = Tensor.zeros(2); Tensor b = Tensor.zeros(3)) {
      CtorchException e = assertStatus(CtorchException.SHAPE, () -> a.add(b));
      assertEquals("CT_ERR_SHAPE", e.statusName());
      assertStatus(CtorchException.SHAPE, () -> a.add_(b));
      assertStatus(CtorchException.INVALID_HANDLE, () -> a.add(closed));
      assertStatus(CtorchException.INVALID_HANDLE, () -> closed.add(a));
      assertStatus(CtorchException.INVALID_HANDLE, () -> a.mul_(closed));
      assertStatus(CtorchException.INVALID_HANDLE, () -> closed.add(1));
      assertStatus(CtorchException.INVALID_HANDLE, closed::neg);
      assertStatus(CtorchException.INVALID_HANDLE, closed::zero_);
      assertThrows(NullPointerException.class, () -> a.add((Tensor) null));
      assertThrows(NullPointerException.class, () -> a.sub_((Tensor) null));
      assertThrows(NullPointerException.class, () -> a.binary(null, b));
    }
  }
}
