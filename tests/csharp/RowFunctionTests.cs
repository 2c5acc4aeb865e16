// Row functions (section 32) as the binding adds them: each overload reaches its C function
// with dim/dims, correction, keepdim, the optional dtype, the ord (number or string) and the
// optional weight and bias in place; VarMean/StdMean return their pair; errors come through.
// Values, dtype rules and PyTorch's messages are the C suite's (tests/capi/rowfuncs_test.c).
using System;
using System.Linq;
using Ctorch;
using NUnit.Framework;

namespace Ctorch.Tests
{
    [TestFixture]
    public class RowFunctionTests : TestBase
    {
        // [[1, 2, 3],
        //  [4, 5, 6]]
        private static Tensor X() => Tensor.Arange(1.0, 7.0).Reshape(2, 3);

        private static readonly double E3 = Math.Exp(1) + Math.Exp(2) + Math.Exp(3);

        [Test]
        public void SoftmaxAndLogSoftmax()
        {
            float a = (float)(Math.Exp(1) / E3), b = (float)(Math.Exp(2) / E3), c = (float)(Math.Exp(3) / E3);
            AreEqual(new[] { a, b, c, a, b, c }, X().Softmax(1));
            AreEqual(new[] { a, b, c, a, b, c }.Select(v => (double)v).ToArray(), X().Softmax(-1, DType.Float64), 1e-7);
            float l = (float)Math.Log(1 + Math.Exp(3));
            AreEqual(new[] { -l, -l, -l, 3 - l, 3 - l, 3 - l }, X().LogSoftmax(0), 1e-5f);
            Assert.AreEqual(DType.Float64, X().LogSoftmax(0, DType.Float64).DType);
            StringAssert.Contains("\"host_softmax\" not implemented for 'Long'", Fails(StatusCode.DType, () => L(1, 2).Softmax(0)).Message);
            Fails(StatusCode.Index, () => X().LogSoftmax(2));
        }

        [Test]
        public void LogSumExpVarStd()
        {
            float lse = (float)Math.Log(E3);
            AreEqual(new[] { lse, 3 + lse }, X().LogSumExp(1), 1e-5f);
            ShapeIs(X().LogSumExp(new long[] { -1 }, keepdim: true), 2, 1);
            Assert.AreEqual(Math.Log(E3 * (1 + Math.Exp(3))), X().LogSumExp().ItemDouble(), 1e-5);
            AreEqual(new[] { 1f, 1f }, X().Var(new long[] { 1 }));
            Assert.AreEqual(17.5 / 6, X().Var(correction: 0).ItemDouble(), 1e-6);
            Tensor s = X().Std(new long[] { 0 }, 1, keepdim: true);
            ShapeIs(s, 1, 3);
            AreEqual(new[] { 2.1213203f, 2.1213203f, 2.1213203f }, s, 1e-5f);
            var (v, m) = X().VarMean(new long[] { 1 }, 0);
            AreEqual(new[] { 2f / 3, 2f / 3 }, v);
            AreEqual(new[] { 2f, 5f }, m);
            var (sd, mean) = X().StdMean(keepdim: true);
            ShapeIs(mean, 1, 1);
            Assert.AreEqual(Math.Sqrt(3.5), sd.ItemDouble(), 1e-6);
            Assert.AreEqual(3.5, mean.ItemDouble(), 1e-6);
            StringAssert.Contains("std and var only support floating point and complex dtypes",
                                  Fails(StatusCode.DType, () => L(1, 2).Var()).Message);
            Fails(StatusCode.DType, () => L(1, 2).StdMean());
            Fails(StatusCode.Argument, () => X().LogSumExp(new long[] { 0, 0 }));
        }

        [Test]
        public void MatrixNorms()
        {
            Assert.AreEqual(9.0, X().MatrixNorm(1).ItemDouble(), 1e-6);
            Assert.AreEqual(6.0, X().MatrixNorm(double.NegativeInfinity, 0, 1).ItemDouble(), 1e-6);
            ShapeIs(X().MatrixNorm(double.PositiveInfinity, keepdim: true), 1, 1);
            Assert.AreEqual(Math.Sqrt(91), X().MatrixNorm().ItemDouble(), 1e-5);
            Assert.AreEqual(Math.Sqrt(91), X().MatrixNorm("fro", 1, 0).ItemDouble(), 1e-5);
            Fails(StatusCode.NotSupported, () => X().MatrixNorm(2));
            Fails(StatusCode.NotSupported, () => X().MatrixNorm("nuc"));
            Fails(StatusCode.Argument, () => X().MatrixNorm(1, 1, 1));
            Assert.Throws<ArgumentNullException>(() => X().MatrixNorm((string)null));
        }

        [Test]
        public void LayerNormWithOptionalWeightAndBias()
        {
            float r = (float)(1 / Math.Sqrt(2.0 / 3 + 1e-5));
            Tensor w = F(1, 2, 3), b = F(0, 1, 0);
            AreEqual(new[] { -r, 1, 3 * r, -r, 1, 3 * r }, X().LayerNorm(new long[] { 3 }, w, b), 1e-5f);
            AreEqual(new[] { -r, 0, r, -r, 0, r }, X().LayerNorm(new long[] { 3 }), 1e-5f);
            AreEqual(new[] { -r, 1, r, -r, 1, r }, X().LayerNorm(new long[] { 3 }, bias: b, eps: 1e-5), 1e-5f);
            AreEqual(new[] { -r * 1, 0, r * 3, -r, 0, 3 * r }, X().LayerNorm(new long[] { 3 }, weight: w), 1e-5f);
            StringAssert.Contains("Given normalized_shape=[4], expected input with shape [*, 4], but got input of size[2, 3]",
                                  Fails(StatusCode.Shape, () => X().LayerNorm(new long[] { 4 })).Message);
            Fails(StatusCode.Argument, () => X().LayerNorm(new long[0]));
            Assert.Throws<ArgumentNullException>(() => X().LayerNorm(null));
            Tensor gone = F(1, 1, 1);
            gone.Dispose();
            Assert.Throws<ObjectDisposedException>(() => X().LayerNorm(new long[] { 3 }, gone));
            Assert.Throws<ObjectDisposedException>(() => X().LayerNorm(new long[] { 3 }, w, gone));
        }
    }
}
