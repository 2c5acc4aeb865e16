// Scans as the binding adds them: each method reaches its C function with dim and the optional
// dtype in place, Cummax/Cummin return the (Values, Indices) pair (both owned by the caller),
// and errors come through as exceptions with PyTorch's messages. Values, dtype rules, layouts
// and edge cases are the C suite's (tests/capi/scan_test.c).
using System;
using Ctorch;
using NUnit.Framework;

namespace Ctorch.Tests
{
    [TestFixture]
    public class ScanTests : TestBase
    {
        // [[1, 2, 3],
        //  [4, 5, 6]] on the test device
        private static Tensor X() => Tensor.FromArray(new float[] { 1, 2, 3, 4, 5, 6 }, new long[] { 2, 3 }, TestDevice);

        [Test]
        public void CumsumCumprodWithDimAndDType()
        {
            AreEqual(new[] { 1f, 3f, 6f, 4f, 9f, 15f }, X().Cumsum(1));
            AreEqual(new[] { 1.0, 2.0, 3.0, 5.0, 7.0, 9.0 }, X().Cumsum(-2, DType.Float64));
            AreEqual(new[] { 1f, 2f, 6f, 4f, 20f, 120f }, X().Cumprod(1));
            AreEqual(new long[] { 1, 2, 3, 4, 10, 18 }, X().Cumprod(0, DType.Int64));
            Assert.AreEqual(DType.Int64, I(5, -2, 7).Cumsum(0).DType); // integers give int64
        }

        [Test]
        public void CummaxCumminPairs()
        {
            Tensor x = D(1, 3, 3, double.NaN, 0);
            var (v, i) = x.Cummax(0);
            AreEqual(new long[] { 0, 1, 2, 3, 3 }, i);
            Assert.IsTrue(double.IsNaN(v.ToArray<double>()[4]));
            var (mv, mi) = x.Cummin(-1);
            AreEqual(new long[] { 0, 0, 0, 3, 3 }, mi);
            Assert.AreEqual(1.0, mv.ToArray<double>()[2]);
            v.Dispose();
            i.Dispose();
        }

        [Test]
        public void Logcumsumexp()
        {
            AreEqual(new[] { 0.0, Math.Log(2.0) }, D(0, 0).Logcumsumexp(0));
        }

        [Test]
        public void ErrorsComeThrough()
        {
            var e = Fails(StatusCode.Index, () => X().Cumsum(5));
            StringAssert.Contains("Dimension out of range (expected to be in range of [-2, 1], but got 5)", e.Message);
            e = Fails(StatusCode.DType, () => L(1, 2).Logcumsumexp(0));
            StringAssert.Contains("\"logcumsumexp_out_cpu\" not implemented for 'Long'", e.Message);
            Fails(StatusCode.DType, () => X().Cumprod(0, DType.Bool));
            Fails(StatusCode.DType, () => X().To(DType.Complex64).Cummax(0));
            Fails(StatusCode.Index, () => X().Cummin(2));
        }
    }
}
