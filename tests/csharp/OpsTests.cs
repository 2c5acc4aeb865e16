// Elementwise operations as the binding adds them: every named unary and binary method, each
// overload (tensor, double scalar, long scalar) and its in-place form, reaches the C function and
// op code of its name (checked against the op computed here in double precision, by reflection
// over the names so that none is left out); the operators and their scalar sides; the choice of
// the double or long scalar entry point (PyTorch's wrapped-number promotion); clamp's nullable
// bounds, where, fill_ and zero_; null operands. Promotion, broadcasting and the ops' edge values
// are the C suite's (tests/capi/capi_test.c).
using System;
using System.Linq;
using System.Reflection;
using Ctorch;
using NUnit.Framework;

namespace Ctorch.Tests
{
    [TestFixture]
    public class OpsTests : TestBase
    {
        private static double[] Read(Tensor t) => t.To(DType.Float64).ToArray<double>();

        private static void Near(double[] want, double[] got, string what)
        {
            Assert.AreEqual(want.Length, got.Length, what + ": numel");
            for (int i = 0; i < want.Length; i++)
                Assert.AreEqual(want[i], got[i], 1e-5 * Math.Max(1, Math.Abs(want[i])), what + ": element " + i);
        }

        /// <summary>Calls the public method of this name that takes one argument of argType (none
        /// where argType is null).</summary>
        private static Tensor Call(Tensor self, string name, Type argType, object arg) =>
            (Tensor)typeof(Tensor).GetMethod(name, argType == null ? Type.EmptyTypes : new[] { argType })
                                  .Invoke(self, argType == null ? null : new[] { arg });

        private static readonly (string Name, Func<double, double> F)[] Unary =
        {
            ("Neg", x => -x), ("Abs", Math.Abs), ("Exp", Math.Exp), ("Log", Math.Log), ("Sqrt", Math.Sqrt),
            ("Sin", Math.Sin), ("Cos", Math.Cos), ("Tanh", Math.Tanh), ("Sigmoid", x => 1 / (1 + Math.Exp(-x))),
            ("Relu", x => Math.Max(0, x)), ("LogicalNot", x => x == 0 ? 1 : 0), ("Sign", x => Math.Sign(x)),
            ("Floor", Math.Floor), ("Ceil", Math.Ceiling), ("Round", x => Math.Round(x)), ("Reciprocal", x => 1 / x),
            ("Square", x => x * x),
        };

        private static double Bit(bool b) => b ? 1 : 0;

        private static readonly (string Name, Func<double, double, double> F)[] Binary =
        {
            ("Add", (a, b) => a + b), ("Sub", (a, b) => a - b), ("Mul", (a, b) => a * b), ("Div", (a, b) => a / b),
            ("Pow", Math.Pow), ("Remainder", (a, b) => a - Math.Floor(a / b) * b), ("FloorDivide", (a, b) => Math.Floor(a / b)),
            ("Maximum", Math.Max), ("Minimum", Math.Min),
            ("Eq", (a, b) => Bit(a == b)), ("Ne", (a, b) => Bit(a != b)), ("Lt", (a, b) => Bit(a < b)),
            ("Le", (a, b) => Bit(a <= b)), ("Gt", (a, b) => Bit(a > b)), ("Ge", (a, b) => Bit(a >= b)),
            ("LogicalAnd", (a, b) => Bit(a != 0 && b != 0)), ("LogicalOr", (a, b) => Bit(a != 0 || b != 0)),
            ("LogicalXor", (a, b) => Bit((a != 0) != (b != 0))),
        };

        [Test]
        public void EveryUnaryMethodAndItsInPlaceForm()
        {
            double[] x = { 0.25, 0.75, 2.5, -1.5 };
            foreach (var op in Unary)
            {
                string name = op.Name;
                Func<double, double> f = op.F;
                double[] want = x.Select(f).ToArray();
                double[] got = Read(Call(D(x), name, null, null));
                for (int i = 0; i < x.Length; i++)
                    if (double.IsNaN(want[i])) Assert.IsTrue(double.IsNaN(got[i]), name + " element " + i);
                    else Assert.AreEqual(want[i], got[i], 1e-12, name + " element " + i);
                Tensor t = D(x);
                Assert.AreSame(t, Call(t, name + "_", null, null), name + "_ returns this");
                CollectionAssert.AreEqual(got, Read(t), name + "_");
            }
            FailsWithOneOf(() => Tensor.FromArray(new[] { true }).Neg(), StatusCode.DType, StatusCode.NotSupported);
            Fails(StatusCode.DType, () => L(1).Exp_());
        }

        [Test]
        public void EveryBinaryMethodOverloadAndInPlaceForm()
        {
            double[] a = { -3, 0, 2, 5 }, b = { 2, 1, 2, -3 };
            foreach (var op in Binary)
            {
                string name = op.Name;
                Func<double, double, double> f = op.F;
                double[] byTensor = a.Select((v, i) => f(v, b[i])).ToArray(), byScalar = a.Select(v => f(v, 2)).ToArray();
                Near(byTensor, Read(Call(F(a.Select(v => (float)v).ToArray()), name, typeof(Tensor), D(b))), name + "(Tensor)");
                Near(byScalar, Read(Call(D(a), name, typeof(double), 2.0)), name + "(double)");
                Near(byScalar, Read(Call(D(a), name, typeof(long), 2L)), name + "(long)");
                foreach (var c in new[] { (Type: typeof(Tensor), Arg: (object)D(b), Want: byTensor),
                                          (Type: typeof(double), Arg: 2.0, Want: byScalar), (Type: typeof(long), Arg: 2L, Want: byScalar) })
                {
                    Tensor t = D(a);
                    Assert.AreSame(t, Call(t, name + "_", c.Type, c.Arg), name + "_ returns this");
                    Near(c.Want, Read(t), name + "_(" + c.Type.Name + ")");
                }
            }
            Near(new[] { 5.0, 2, 0, -3 }, Read(D(a).Rsub(2.0)), "Rsub(double)");
            AreEqual(new long[] { 5, 2, 0, -3 }, L(-3, 0, 2, 5).Rsub(2L));
            AreEqual(new[] { 4f, 8f }, Tensor.Pow(2.0, L(2, 3)));
            AreEqual(new long[] { 4, 8 }, Tensor.Pow(2L, L(2, 3)));
            Assert.AreEqual("other", Assert.Throws<ArgumentNullException>(() => F(1).Add((Tensor)null)).ParamName);
            Assert.Throws<TargetInvocationException>(() => Call(F(1), "Mul_", typeof(Tensor), null));
            Fails(StatusCode.DType, () => L(1, 2).Mul_(2.5));
            StringAssert.Contains("3", Fails(StatusCode.Shape, () => F(1, 2, 3).Add(F(1, 2, 3, 4))).NativeMessage);
        }

        [Test]
        public void ScalarsChooseTheirEntryPoint()
        {
            AreEqual(new[] { 3.5f, 4.5f }, I(1, 2) + 2.5);   // a double is a Python float: int32 -> float32
            AreEqual(new[] { 3, 4 }, I(1, 2) + 2L);          // a long is a Python int: int32 stays
            Tensor h = F(1f, 2f).Half() + 2.5;
            Assert.AreEqual(DType.Float16, h.DType);
        }

        [Test]
        public void Operators()
        {
            AreEqual(new long[] { 4, 6 }, L(1, 2) + L(3, 4));
            AreEqual(new[] { 3.5f }, F(1) + 2.5);
            AreEqual(new long[] { 3 }, L(1) + 2L);
            AreEqual(new[] { 3.5f }, 2.5 + F(1));
            AreEqual(new long[] { 3 }, 2L + L(1));
            AreEqual(new[] { -1f }, F(1) - F(2));
            AreEqual(new[] { -1.5f }, F(1) - 2.5);
            AreEqual(new long[] { -1 }, L(1) - 2L);
            AreEqual(new[] { 1f, 0f }, 2.0 - F(1, 2));
            AreEqual(new[] { 9, 8 }, 10L - I(1, 2));
            AreEqual(new[] { 0.5f }, F(1) * F(0.5f));
            AreEqual(new[] { 2.5f }, F(1) * 2.5);
            AreEqual(new[] { 3f, 6f }, F(1, 2) * 3L);
            AreEqual(new[] { 5f }, 2.5 * I(2));
            AreEqual(new long[] { 6 }, 3L * L(2));
            AreEqual(new[] { 0.5f }, F(1) / F(2));
            AreEqual(new[] { 0.5f }, F(1) / 2.0);
            AreEqual(new[] { 3.5f, 4f }, I(7, 8) / 2L);
            AreEqual(new[] { 0.25f }, 1.0 / F(4));
            AreEqual(new[] { 0.5f }, 1L / I(2));
            AreEqual(new long[] { 2, 1 }, L(-7, 7) % L(3, 3));
            AreEqual(new[] { 2f, 1f }, F(-7, 7) % 3.0);
            AreEqual(new long[] { 2, 1 }, L(-7, 7) % 3L);
            AreEqual(new[] { 1f }, 7.0 % F(3));
            AreEqual(new long[] { 2 }, 5L % L(3));
            AreEqual(new[] { -1f, 2f }, -F(1, -2));
            Assert.AreEqual("a", Assert.Throws<ArgumentNullException>(() => GC.KeepAlive((Tensor)null + 1L)).ParamName);
            FailsWithOneOf(() => GC.KeepAlive(B(true) - B(true)), StatusCode.DType, StatusCode.NotSupported);
        }

        [Test]
        public void ClampWhereFill()
        {
            AreEqual(new[] { 0f, 0.5f, 2f }, F(-1, 0.5f, 3).Clamp(0, 2));
            AreEqual(new[] { 0f, 0.5f, 3f }, F(-1, 0.5f, 3).Clamp(min: 0));
            AreEqual(new[] { -1f, 0.5f, 1f }, F(-1, 0.5f, 3).ClampMax(1));
            AreEqual(new[] { 0.5f, 0.5f, 3f }, F(-1, 0.5f, 3).ClampMin(0.5));
            Tensor t = F(-1, 5);
            Assert.AreSame(t, t.Clamp_(0, 1));
            AreEqual(new[] { 0f, 1f }, t);
            Fails(StatusCode.Argument, () => F(1).Clamp());
            Fails(StatusCode.Argument, () => F(1).Clamp_());

            AreEqual(new[] { 1f, 0.5f, 3f }, Tensor.Where(B(true, false, true), L(1, 2, 3), Tensor.Scalar(0.5)));
            Fails(StatusCode.DType, () => Tensor.Where(F(1, 0), F(1, 2), F(3, 4)));
            Assert.Throws<ArgumentNullException>(() => Tensor.Where(null, F(1), F(2)));

            Tensor l = L(1, 2, 3);
            Assert.AreSame(l, l.Fill_(7));
            AreEqual(new long[] { 7, 7, 7 }, l);
            Assert.AreSame(l, l.Zero_());
            AreEqual(new long[] { 0, 0, 0 }, l);
        }
    }
}
