// Reductions as the binding adds them: each overload (all elements, one int dim, a dims array,
// keepdim, an optional dtype) reaches the C function with its arguments in place, Max/Min with a
// dim return the (Values, Indices) pair, and the errors come through. Reduction semantics
// (promotion, NaN, ties, empty inputs) are the C suite's (tests/capi/capi_test.c).
using System;
using Ctorch;
using NUnit.Framework;

namespace Ctorch.Tests
{
    [TestFixture]
    public class ReductionTests : TestBase
    {
        // [[0, 1, 2],
        //  [3, 4, 5]]
        private static Tensor X() => Tensor.Arange(6.0).Reshape(2, 3);

        [Test]
        public void SumMeanProdOverloads()
        {
            Tensor all = X().Sum();
            Assert.AreEqual(0, all.Dim);
            Assert.AreEqual(15.0, all.ItemDouble());
            AreEqual(new[] { 3f, 5f, 7f }, X().Sum(0));
            Tensor k = X().Sum(1, keepdim: true);
            ShapeIs(k, 2, 1);
            AreEqual(new[] { 3f, 12f }, k);
            AreEqual(new[] { 3f, 12f }, X().Sum(new long[] { -1 }));
            ShapeIs(X().Sum(new long[] { 0, 1 }, keepdim: true), 1, 1);
            AreEqual(new[] { 15.0 }, X().Sum(DType.Float64));
            AreEqual(new[] { 3.0, 12.0 }, X().Sum(1, false, DType.Float64));
            AreEqual(new[] { 3.0, 12.0 }, X().Sum(new long[] { 1 }, false, DType.Float64));

            Assert.AreEqual(2.5, X().Mean().ItemDouble());
            AreEqual(new[] { 1f, 4f }, X().Mean(1));
            ShapeIs(X().Mean(0, keepdim: true), 1, 3);
            AreEqual(new[] { 1.5f, 2.5f, 3.5f }, X().Mean(new long[] { 0 }));
            Assert.AreEqual(DType.Float64, X().Mean(DType.Float64).DType);

            Assert.AreEqual(24, L(1, 2, 3, 4).Prod().ItemLong());
            AreEqual(new[] { 0f, 60f }, X().Prod(1));
            AreEqual(new[] { 0f, 4f, 10f }, X().Prod(new long[] { 0 }));
            Assert.AreEqual(DType.Float64, X().Prod(DType.Float64).DType);
        }

        [Test]
        public void ExtremaAndTheirIndices()
        {
            AreEqual(new[] { 2f, 5f }, X().Amax(1));
            AreEqual(new[] { 0f, 1f, 2f }, X().Amin(0));
            ShapeIs(X().Amax(new long[] { 0, 1 }, keepdim: true), 1, 1);
            AreEqual(new long[] { 1 }, L(3, 1, 2).Amin(new long[] { 0 }, keepdim: true));
            Assert.AreEqual(0.0, X().Amin().ItemDouble());
            Assert.AreEqual(5.0, X().Amax().ItemDouble());
            Assert.AreEqual(5.0, X().Max().ItemDouble());
            Assert.AreEqual(0.0, X().Min().ItemDouble());
            var (values, indices) = X().Max(1);
            AreEqual(new[] { 2f, 5f }, values);
            AreEqual(new long[] { 2, 2 }, indices);
            var m = X().Min(0, keepdim: true);
            ShapeIs(m.Values, 1, 3);
            AreEqual(new long[] { 0, 0, 0 }, m.Indices);
            AreEqual(new[] { 2f, 3f }, F(1, 3).Max(F(2, 2)));
            AreEqual(new[] { 1f, 2f }, F(1, 3).Min(F(2, 2)));
            Assert.AreEqual(5, X().ArgMax().ItemLong());
            Assert.AreEqual(0, X().ArgMin().ItemLong());
            AreEqual(new long[] { 1, 1, 1 }, X().ArgMax(0));
            AreEqual(new long[] { 0, 0 }, X().ArgMin(1));
            ShapeIs(X().ArgMax(1, keepdim: true), 2, 1);
            ShapeIs(X().ArgMin(0, keepdim: true), 1, 3);
        }

        [Test]
        public void NormOverloads()
        {
            Assert.AreEqual(Math.Sqrt(55), X().Norm().ItemDouble(), 1e-5);
            Assert.AreEqual(15.0, X().Norm(1).ItemDouble(), 1e-5);
            AreEqual(new[] { (float)Math.Sqrt(5), (float)Math.Sqrt(50) }, X().Norm(2, 1), 1e-5f);
            Tensor k = X().Norm(2, new long[] { 0 }, keepdim: true);
            ShapeIs(k, 1, 3);
            AreEqual(new[] { 3f, (float)Math.Sqrt(17), (float)Math.Sqrt(29) }, k, 1e-5f);
        }

        [Test]
        public void Errors()
        {
            Fails(StatusCode.Index, () => X().Sum(5));
            Fails(StatusCode.Index, () => X().Mean(new long[] { -3 }));
            Fails(StatusCode.Argument, () => X().Sum(new long[] { 0, 0 }));
            Fails(StatusCode.Index, () => X().ArgMax(2));
            Fails(StatusCode.Index, () => X().Max(2));
            Fails(StatusCode.Shape, () => Tensor.Zeros(0).Min());
            Fails(StatusCode.DType, () => L(1, 2).Norm());
            Assert.Throws<ArgumentNullException>(() => X().Sum((long[])null));
        }
    }
}
