// Elementwise operations: promotion, broadcasting, operators, unary, comparisons, in-place,
// clamp, where, fill.
using System;
using Ctorch;
using NUnit.Framework;

namespace Ctorch.Tests
{
    [TestFixture]
    public class PromotionTests : TestBase
    {
        [Test]
        public void Int32PlusPythonFloatIsFloat32()
        {
            AreEqual(new[] { 3.5f, 4.5f, 5.5f }, I(1, 2, 3) + 2.5);
        }

        [Test]
        public void Int32PlusInt64TensorIsInt64()
        {
            AreEqual(new long[] { 11, 22 }, I(1, 2) + L(10, 20));
        }

        [Test]
        public void UInt8PlusInt8IsInt16()
        {
            Tensor u = Tensor.FromArray(new byte[] { 1, 2 });
            Tensor s = Tensor.FromArray(new sbyte[] { -1, -3 });
            Tensor r = u + s;
            Assert.AreEqual(DType.Int16, r.DType);
            CollectionAssert.AreEqual(new short[] { 0, -1 }, r.ToArray<short>());
        }

        [Test]
        public void BoolPlusBoolIsBool()
        {
            AreEqual(new[] { true, true, false }, B(true, false, false) + B(true, true, false));
        }

        [Test]
        public void Float16PlusPythonFloatStaysFloat16()
        {
            Tensor h = F(1f, 2f).Half();
            Tensor r = h + 2.5;
            Assert.AreEqual(DType.Float16, r.DType);
            AreEqual(new[] { 3.5f, 4.5f }, r.Float());
        }

        [Test]
        public void IntDivIntIsFloat32()
        {
            AreEqual(new[] { 0.5f, 1f, 1.5f }, I(1, 2, 3) / I(2, 2, 2));
            AreEqual(new[] { 3.5f, 4f }, I(7, 8) / 2L);
        }

        [Test]
        public void ZeroDimFloat64PlusFloat32TensorIsFloat32()
        {
            AreEqual(new[] { 3f, 4f }, Tensor.Scalar(2.0, DType.Float64) + F(1, 2));
        }

        [Test]
        public void MoreCases()
        {
            AreEqual(new[] { 3, 4 }, I(1, 2) + 2L);                               // Python int keeps int32
            AreEqual(new[] { 6, 7 }, I(1, 2) + Tensor.Scalar(5L));               // 0-dim int64 keeps int32
            AreEqual(new[] { 3.5 }, I(1) + Tensor.Scalar(2.5, DType.Float64));    // higher category 0-dim wins
            AreEqual(new long[] { 2 }, B(true) + 1L);                            // bool + Python int -> int64
            AreEqual(new[] { 2f }, L(1) + F(1));
            AreEqual(new[] { 5f }, 2.5 * I(2));
        }

        [Test]
        public void Broadcasting3x1Plus4()
        {
            Tensor a = Tensor.FromArray(new float[] { 0, 10, 20 }, 3, 1);
            Tensor b = F(1, 2, 3, 4);
            Tensor c = a + b;
            ShapeIs(c, 3, 4);
            AreEqual(new float[] { 1, 2, 3, 4, 11, 12, 13, 14, 21, 22, 23, 24 }, c);
            ShapeIs(Tensor.Zeros(2, 1, 3) * Tensor.Ones(4, 1), 2, 4, 3);
        }
    }

    [TestFixture]
    public class OperatorTests : TestBase
    {
        [Test]
        public void ArithmeticOperators()
        {
            AreEqual(new long[] { 4, 6 }, L(1, 2) + L(3, 4));
            AreEqual(new[] { 1f, 0f }, 2.0 - F(1, 2));
            AreEqual(new[] { 9, 8 }, 10L - I(1, 2));
            AreEqual(new[] { 3f, 6f }, F(1, 2) * 3L);
            AreEqual(new[] { 0.25f }, 1.0 / F(4));
            AreEqual(new long[] { 3 }, 2L + L(1));
            AreEqual(new[] { -1f, 2f }, -F(1, -2));
            AreEqual(new long[] { 2, 1 }, L(-7, 7) % 3L);
            AreEqual(new[] { 2f, 1f }, F(-7, 7) % 3.0);
            AreEqual(new long[] { 2 }, 5L % L(3));
            AreEqual(new[] { -1.5f, -0.5f }, F(1, 2) - 2.5);
            AreEqual(new[] { 0.5f }, F(1) * F(0.5f));
        }

        [Test]
        public void PowAndReversed()
        {
            AreEqual(new long[] { 4, 9 }, L(2, 3).Pow(2L));
            AreEqual(new[] { 2f }, F(4).Pow(0.5));
            AreEqual(new[] { 8f }, L(2).Pow(F(3)));
            AreEqual(new[] { 4f, 8f }, Tensor.Pow(2.0, L(2, 3)));
            AreEqual(new long[] { 4, 8 }, Tensor.Pow(2L, L(2, 3)));
            AreEqual(new long[] { 9, 8 }, L(1, 2).Rsub(10L));
            AreEqual(new[] { -0.5f }, F(1).Rsub(0.5));
        }
    }

    [TestFixture]
    public class UnaryTests : TestBase
    {
        [Test]
        public void Values()
        {
            AreEqual(new[] { -1f, 2f }, F(1, -2).Neg());
            AreEqual(new[] { 1.5f, 2f }, F(-1.5f, 2).Abs());
            AreEqual(new[] { 3 }, I(-3).Abs());
            AreEqual(new[] { 1f, (float)Math.E }, F(0, 1).Exp());
            AreEqual(new[] { 0f, 1f }, F(1, (float)Math.E).Log());
            AreEqual(new[] { 2f, 3f, float.NaN }, F(4, 9, -1).Sqrt());
            AreEqual(new[] { 0f, 1f }, F(0, (float)(Math.PI / 2)).Sin());
            AreEqual(new[] { 1f }, F(0).Cos());
            AreEqual(new[] { 0f, 0.7615942f }, F(0, 1).Tanh());
            AreEqual(new[] { 0.5f, 0.7310586f }, F(0, 1).Sigmoid());
            AreEqual(new[] { 0f, 2f }, F(-1, 2).Relu());
            AreEqual(new long[] { 0, 4 }, L(-3, 4).Relu());
            AreEqual(new[] { true, false }, F(0, 2).LogicalNot());
            AreEqual(new[] { -1f, 0f, 1f }, F(-2, 0, 3).Sign());
            AreEqual(new long[] { -1 }, L(-5).Sign());
            AreEqual(new[] { -2f, 1f }, F(-1.5f, 1.5f).Floor());
            AreEqual(new[] { -1f, 2f }, F(-1.5f, 1.5f).Ceil());
            AreEqual(new long[] { 3 }, L(3).Floor());
            AreEqual(new[] { 0f, 2f, 2f, 0f }, F(0.5f, 1.5f, 2.5f, -0.5f).Round());
            AreEqual(new[] { 0.5f, 0.25f }, L(2, 4).Reciprocal());
            AreEqual(new[] { 9 }, I(3).Square());
            AreEqual(new long[] { 1, 0 }, B(true, false).Square());
        }

        [Test]
        public void IntegerInputsPromoteToFloat32()
        {
            AreEqual(new[] { 1f }, L(0).Exp());
            AreEqual(new[] { 0.5f }, I(0).Sigmoid());
            AreEqual(new[] { 2f }, Tensor.FromArray(new byte[] { 4 }).Sqrt());
        }

        [Test]
        public void InPlace()
        {
            Tensor t = F(4, 16);
            Assert.AreSame(t, t.Sqrt_());
            AreEqual(new[] { 2f, 4f }, t);
            t.Neg_().Abs_().Square_();
            AreEqual(new[] { 4f, 16f }, t);
            Tensor u = F(-0.4f, 0.6f);
            u.Round_();
            AreEqual(new[] { 0f, 1f }, u);
            Fails(StatusCode.DType, () => L(1).Exp_());
            Fails(StatusCode.DType, () => I(4).Sqrt_());
        }

        [Test]
        public void EveryUnaryOpHasAnInPlaceForm()
        {
            Tensor x = F(0.25f);
            x.Exp_().Log_().Sin_().Cos_().Tanh_().Sigmoid_().Relu_().Sign_().Floor_().Ceil_().Reciprocal_();
            // exp/log round trip 0.25, sin 0.2474, cos 0.9695, tanh 0.7487, sigmoid 0.6789,
            // relu 0.6789, sign 1, floor 1, ceil 1, reciprocal 1
            AreEqual(new[] { 1f }, x);
            Tensor b = B(true, false);
            b.LogicalNot_();
            AreEqual(new[] { false, true }, b);
        }

        [Test]
        public void Errors()
        {
            FailsWithOneOf(() => B(true).Neg(), StatusCode.DType, StatusCode.NotSupported);
            FailsWithOneOf(() => GC.KeepAlive(-B(true)), StatusCode.DType, StatusCode.NotSupported);
        }
    }

    [TestFixture]
    public class BinaryTests : TestBase
    {
        [Test]
        public void Comparisons()
        {
            AreEqual(new[] { false, true, false }, L(1, 2, 3).Eq(2L));
            AreEqual(new[] { false, true, false }, L(1, 2, 3).Ne(L(1, 0, 3)));
            AreEqual(new[] { true, false, false }, F(1, 2, 3).Lt(2.0));
            AreEqual(new[] { true, true, false }, F(1, 2, 3).Le(2.0));
            AreEqual(new[] { true, false, false }, F(1, 2, 3).Gt(L(0, 2, 4)));
            AreEqual(new[] { false, true, true }, I(1, 2, 3).Ge(2L));
            AreEqual(new[] { true, false }, F(0.5f, 1).Eq(0.5));
            Tensor inPlace = F(1, 2, 3);
            inPlace.Gt_(1.5);
            AreEqual(new[] { 0f, 1f, 1f }, inPlace);
        }

        [Test]
        public void Logical()
        {
            Tensor p = B(true, true, false, false), q = B(true, false, true, false);
            AreEqual(new[] { true, false, false, false }, p.LogicalAnd(q));
            AreEqual(new[] { true, true, true, false }, p.LogicalOr(q));
            AreEqual(new[] { false, true, true, false }, p.LogicalXor(q));
            AreEqual(new[] { false, true }, F(0, 2).LogicalAnd(F(1, 1)));
            AreEqual(new[] { true, true }, F(0, 2).LogicalOr(1L));
            p.LogicalXor_(q);
            AreEqual(new[] { false, true, true, false }, p);
        }

        [Test]
        public void MaximumMinimumPropagateNaN()
        {
            AreEqual(new[] { 2f, float.NaN, 3f }, F(1, float.NaN, 3).Maximum(F(2, 0, 1)));
            AreEqual(new[] { 1f, float.NaN, 1f }, F(1, float.NaN, 3).Minimum(F(2, 0, 1)));
            AreEqual(new long[] { 3, 5 }, L(1, 5).Maximum(3L));
            AreEqual(new long[] { 1, 3 }, L(1, 5).Minimum(3L));
            AreEqual(new[] { 2f, 3f }, F(1, 3).Max(F(2, 2)));
            AreEqual(new[] { 1f, 2f }, F(1, 3).Min(F(2, 2)));
        }

        [Test]
        public void FloorDivideAndRemainder()
        {
            AreEqual(new long[] { -4, 3 }, L(-7, 7).FloorDivide(2L));
            AreEqual(new[] { -4f, 3f }, F(-7, 7).FloorDivide(2.0));
            AreEqual(new long[] { 2, 1 }, L(-7, 7).Remainder(3L));
            AreEqual(new long[] { -2 }, L(7).Remainder(-3L));
            AreEqual(new[] { 1.5f }, F(5.5f).Remainder(2.0));
            AreEqual(new long[] { -4, 3 }, L(-7, 7).FloorDivide(L(2, 2)));
        }

        [Test]
        public void InPlace()
        {
            Tensor a = L(1, 2);
            Assert.AreSame(a, a.Add_(3L));
            AreEqual(new long[] { 4, 5 }, a);
            Fails(StatusCode.DType, () => a.Mul_(2.5));
            Fails(StatusCode.DType, () => a.Div_(L(2, 2)));

            Tensor f = F(1, 2);
            f.Mul_(2.5);
            AreEqual(new[] { 2.5f, 5f }, f);
            f.Sub_(F(0.5f));
            AreEqual(new[] { 2f, 4.5f }, f);
            f.Div_(2L);
            AreEqual(new[] { 1f, 2.25f }, f);
            f.Pow_(2.0);
            AreEqual(new[] { 1f, 5.0625f }, f);
            f.Add_(L(1, 1)).Maximum_(F(3)).Minimum_(4.0).FloorDivide_(F(2)).Remainder_(2L);
            // [2, 6.0625] -> max 3 -> [3, 6.0625] -> min 4 -> [3, 4] -> //2 -> [1, 2] -> %2 -> [1, 0]
            AreEqual(new[] { 1f, 0f }, f);

            Tensor g = Tensor.Zeros(2, 3);
            g.Add_(F(1, 2, 3));
            AreEqual(new[] { 1f, 2f, 3f, 1f, 2f, 3f }, g);
            Fails(StatusCode.Shape, () => g.Add_(Tensor.Zeros(4)));
            Fails(StatusCode.Shape, () => Tensor.Zeros(3).Add_(Tensor.Zeros(2, 3)));

            Tensor i = I(1, 2);
            i.Add_(L(1, 1));
            AreEqual(new[] { 2, 3 }, i);
            i.Mul_(I(2, 3)).Sub_(1L).Eq_(5L);
            AreEqual(new[] { 0, 0 }, i);
            FailsWithOneOf(() => B(true).Sub_(B(true)), StatusCode.DType, StatusCode.NotSupported);
        }

        [Test]
        public void ShapeMismatchAndBoolSub()
        {
            CtorchException e = Fails(StatusCode.Shape, () => F(1, 2, 3).Add(F(1, 2, 3, 4)));
            StringAssert.Contains("3", e.NativeMessage);
            FailsWithOneOf(() => B(true, false).Sub(B(true, true)), StatusCode.DType, StatusCode.NotSupported);
            FailsWithOneOf(() => GC.KeepAlive(B(true) - B(true)), StatusCode.DType, StatusCode.NotSupported);
            Assert.Throws<ArgumentNullException>(() => F(1).Add((Tensor)null));
        }
    }

    [TestFixture]
    public class ClampWhereFillTests : TestBase
    {
        [Test]
        public void Clamp()
        {
            AreEqual(new[] { 0f, 0.5f, 2f }, F(-1, 0.5f, 3).Clamp(0, 2));
            AreEqual(new[] { 0f, 0.5f, 3f }, F(-1, 0.5f, 3).Clamp(min: 0));
            AreEqual(new[] { -1f, 0.5f, 1f }, F(-1, 0.5f, 3).ClampMax(1));
            AreEqual(new[] { 0.5f, 0.5f, 3f }, F(-1, 0.5f, 3).ClampMin(0.5));
            AreEqual(new long[] { -1, 1 }, L(-5, 5).Clamp(-1, 1));
            Tensor t = F(-1, 5);
            Assert.AreSame(t, t.Clamp_(0, 1));
            AreEqual(new[] { 0f, 1f }, t);
            Fails(StatusCode.Argument, () => F(1).Clamp());
            Fails(StatusCode.Argument, () => F(1).Clamp_());
        }

        [Test]
        public void Where()
        {
            AreEqual(new[] { 1f, 0.5f, 3f }, Tensor.Where(B(true, false, true), L(1, 2, 3), Tensor.Scalar(0.5)));
            Tensor cond = Tensor.FromArray(new[] { true, false }, 2, 1);
            Tensor r = Tensor.Where(cond, F(1, 2, 3), F(-1));
            ShapeIs(r, 2, 3);
            AreEqual(new[] { 1f, 2f, 3f, -1f, -1f, -1f }, r);
            Fails(StatusCode.DType, () => Tensor.Where(F(1, 0), F(1, 2), F(3, 4)));
            Fails(StatusCode.Shape, () => Tensor.Where(B(true, false), F(1, 2, 3), F(1)));
        }

        [Test]
        public void FillAndZero()
        {
            Tensor t = L(1, 2, 3);
            Assert.AreSame(t, t.Fill_(7));
            AreEqual(new long[] { 7, 7, 7 }, t);
            Assert.AreSame(t, t.Zero_());
            AreEqual(new long[] { 0, 0, 0 }, t);
            Tensor f = Tensor.Empty(2, 2);
            f.Fill_(-0.5);
            AreEqual(new[] { -0.5f, -0.5f, -0.5f, -0.5f }, f);
        }
    }
}
