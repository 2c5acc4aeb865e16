// Elementwise functions (section 31, and the generated Isnan/Isinf/Isfinite/Erf/Silu) as the
// binding adds them: each overload reaches its C function with its arguments in place (the
// approximate string, optional bounds and replacements, the scalar side and kind of Where, the
// AllClose bool); errors come through. Values, dtype rules and PyTorch's messages are the C
// suite's (tests/capi/ewfuncs_test.c).
using System;
using Ctorch;
using NUnit.Framework;

namespace Ctorch.Tests
{
    [TestFixture]
    public class FunctionTests : TestBase
    {
        private static Tensor Special() => F(float.NaN, float.PositiveInfinity, float.NegativeInfinity, -1, 0.5f);

        private static double Gelu(double v) => 0.5 * v * (1 + Erf(v / Math.Sqrt(2)));

        // erf by its series (|x| <= 1 here), independent of the library
        private static double Erf(double x)
        {
            double sum = 0, term = x;
            for (int n = 0; n < 40; n++)
            {
                sum += term / (2 * n + 1);
                term *= -x * x / (n + 1);
            }
            return 2 / Math.Sqrt(Math.PI) * sum;
        }

        [Test]
        public void TableOps()
        {
            AreEqual(new[] { true, false, false, false, false }, Special().Isnan());
            AreEqual(new[] { false, true, true, false, false }, Special().Isinf());
            AreEqual(new[] { false, false, false, true, true }, Special().Isfinite());
            AreEqual(new[] { Erf(-1), 0, Erf(0.5) }, D(-1, 0, 0.5).Erf(), 1e-12);
            AreEqual(new[] { -1 / (1 + Math.E), 0, 0.5 / (1 + Math.Exp(-0.5)) }, D(-1, 0, 0.5).Silu(), 1e-12);
            Tensor t = D(0.5);
            Assert.AreSame(t, t.Erf_());
            StringAssert.Contains("\"silu\" not implemented for 'Long'", Fails(StatusCode.DType, () => L(1).Silu()).Message);
        }

        [Test]
        public void GeluAndNanToNum()
        {
            AreEqual(new[] { Gelu(-1), 0, Gelu(0.5) }, D(-1, 0, 0.5).Gelu(), 1e-12);
            double th = 0.5 * 0.5 * (1 + Math.Tanh(Math.Sqrt(2 / Math.PI) * (0.5 + 0.044715 * 0.125)));
            Assert.AreEqual(th, D(0.5).Gelu("tanh").ItemDouble(), 1e-12);
            StringAssert.Contains("approximate argument must be either none or tanh.",
                                  Fails(StatusCode.Argument, () => D(1).Gelu("erf")).Message);
            AreEqual(new[] { 0f, float.MaxValue, float.MinValue, -1f, 0.5f }, Special().NanToNum());
            AreEqual(new[] { 7f, 8f, float.MinValue, -1f, 0.5f }, Special().NanToNum(7, 8));
            AreEqual(new[] { 0f, float.MaxValue, -9f, -1f, 0.5f }, Special().NanToNum(neginf: -9));
        }

        [Test]
        public void ClampLerpAddc()
        {
            Tensor x = F(-1, 0, 0.5f), lo = F(0, 0, 0), hi = F(0.25f, 0.25f, 0.25f), end = F(1, 2, 3);
            AreEqual(new[] { 0f, 0f, 0.25f }, x.Clamp(lo, hi));
            AreEqual(new[] { 0f, 0f, 0.5f }, x.Clamp(lo, null));
            AreEqual(new[] { -1f, 0f, 0.25f }, x.Clamp(null, hi));
            StringAssert.Contains("At least one of 'min' or 'max'", Fails(StatusCode.Argument, () => x.Clamp((Tensor)null, null)).Message);
            AreEqual(new[] { -0.5f, 0.5f, 1.125f }, x.Lerp(end, hi));
            AreEqual(new[] { 1f, 2f, 3f }, x.Lerp(end, 1.0));
            AreEqual(new[] { 1f, 8f, 18.5f }, x.Addcmul(end, end, 2));
            AreEqual(new[] { 1f, 4f, 6.5f }, x.Addcdiv(end, hi, 0.5));
            AreEqual(new[] { 0f, 4f, 9.5f }, x.Addcmul(end, end));
            StringAssert.Contains("Integer division with addcdiv", Fails(StatusCode.DType, () => x.Addcdiv(L(1), L(1))).Message);
        }

        [Test]
        public void WhereWithScalars()
        {
            Tensor c = B(true, false, true), xi = I(5, 6, 7);
            AreEqual(new[] { 5, -1, 7 }, Tensor.Where(c, xi, -1));
            AreEqual(new[] { -1, 6, -1 }, Tensor.Where(c, -1, xi));
            AreEqual(new[] { 5f, 2.5f, 7f }, Tensor.Where(c, xi, 2.5));
            AreEqual(new[] { 2.5f, 6f, 2.5f }, Tensor.Where(c, 2.5, xi));
            AreEqual(new[] { 1f, 0.5f, 1f }, Tensor.Where(c, 1.0, 0.5));
            AreEqual(new[] { 3L, 4L, 3L }, Tensor.Where(c, 3L, 4L));
            Fails(StatusCode.DType, () => Tensor.Where(xi, xi, 1.0));
        }

        [Test]
        public void IsCloseAllClose()
        {
            Tensor a = Special(), b = F(float.NaN, float.PositiveInfinity, float.NegativeInfinity, -1.001f, 0.5f);
            AreEqual(new[] { false, true, true, false, true }, a.IsClose(b));
            AreEqual(new[] { true, true, true, true, true }, a.IsClose(b, 0.01, 0, equalNan: true));
            Assert.IsTrue(a.AllClose(b, 0.01, 0, equalNan: true));
            Assert.IsFalse(a.AllClose(b, 0.01));
            StringAssert.Contains("Float did not match Double", Fails(StatusCode.DType, () => a.IsClose(D(1))).Message);
            Fails(StatusCode.Argument, () => a.AllClose(a, -1));
        }
    }
}
