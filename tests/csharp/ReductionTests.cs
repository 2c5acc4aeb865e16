// Reductions.
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
        public void Sum()
        {
            Tensor all = X().Sum();
            Assert.AreEqual(0, all.Dim);
            Assert.AreEqual(15.0, all.ItemDouble());
            AreEqual(new[] { 3f, 5f, 7f }, X().Sum(0));
            Tensor k = X().Sum(1, keepdim: true);
            ShapeIs(k, 2, 1);
            AreEqual(new[] { 3f, 12f }, k);
            AreEqual(new[] { 3f, 12f }, X().Sum(new long[] { -1 }));
            Assert.AreEqual(15.0, X().Sum(new long[] { 0, 1 }).ItemDouble());
            ShapeIs(X().Sum(new long[] { 0, 1 }, keepdim: true), 1, 1);
            Tensor i = I(1, 2, 3).Sum();
            Assert.AreEqual(DType.Int64, i.DType);
            Assert.AreEqual(6, i.ItemLong());
            Tensor d = X().Sum(DType.Float64);
            Assert.AreEqual(DType.Float64, d.DType);
            Assert.AreEqual(15.0, d.ItemDouble());
            AreEqual(new[] { 3.0, 12.0 }, X().Sum(1, false, DType.Float64));
            Tensor b = B(true, false, true).Sum();
            Assert.AreEqual(DType.Int64, b.DType);
            Assert.AreEqual(2, b.ItemLong());
        }

        [Test]
        public void Mean()
        {
            Assert.AreEqual(2.5, X().Mean().ItemDouble());
            AreEqual(new[] { 1f, 4f }, X().Mean(1));
            Tensor k = X().Mean(0, keepdim: true);
            ShapeIs(k, 1, 3);
            AreEqual(new[] { 1.5f, 2.5f, 3.5f }, k);
            AreEqual(new[] { 1.5f, 2.5f, 3.5f }, X().Mean(new long[] { 0 }));
            Assert.AreEqual(DType.Float64, X().Mean(DType.Float64).DType);
            Fails(StatusCode.DType, () => L(1, 2).Mean());
            Fails(StatusCode.DType, () => I(1, 2).Mean(0));
        }

        [Test]
        public void Prod()
        {
            Tensor p = L(1, 2, 3, 4).Prod();
            Assert.AreEqual(DType.Int64, p.DType);
            Assert.AreEqual(24, p.ItemLong());
            AreEqual(new[] { 0f, 60f }, X().Prod(1));
            AreEqual(new[] { 0f, 4f, 10f }, X().Prod(new long[] { 0 }));
            Assert.AreEqual(DType.Int64, I(2, 3).Prod().DType);
            Assert.AreEqual(DType.Float64, X().Prod(DType.Float64).DType);
        }

        [Test]
        public void AmaxAmin()
        {
            AreEqual(new[] { 2f, 5f }, X().Amax(1));
            AreEqual(new[] { 0f, 1f, 2f }, X().Amin(0));
            Tensor k = X().Amax(new long[] { 0, 1 }, keepdim: true);
            ShapeIs(k, 1, 1);
            Assert.AreEqual(5.0, k.ItemDouble());
            Assert.AreEqual(0.0, X().Amin().ItemDouble());
            Assert.AreEqual(5.0, X().Amax().ItemDouble());
            AreEqual(new long[] { 1 }, L(3, 1, 2).Amin(new long[] { 0 }, keepdim: true));
            Assert.IsTrue(double.IsNaN(F(1, float.NaN).Amax().ItemDouble()));
            Fails(StatusCode.Shape, () => Tensor.Zeros(0).Amax());
        }

        [Test]
        public void MaxMinWithIndices()
        {
            Assert.AreEqual(5.0, X().Max().ItemDouble());
            Assert.AreEqual(0, X().Max().Dim);
            Assert.AreEqual(0.0, X().Min().ItemDouble());
            var (values, indices) = X().Max(1);
            AreEqual(new[] { 2f, 5f }, values);
            AreEqual(new long[] { 2, 2 }, indices);
            var m = X().Min(0, keepdim: true);
            ShapeIs(m.Values, 1, 3);
            ShapeIs(m.Indices, 1, 3);
            AreEqual(new[] { 0f, 1f, 2f }, m.Values);
            AreEqual(new long[] { 0, 0, 0 }, m.Indices);
            var tie = F(1, 3, 3).Max(0);
            Assert.AreEqual(3.0, tie.Values.ItemDouble());
            Assert.AreEqual(1, tie.Indices.ItemLong());
            var tieMin = L(2, 1, 1).Min(-1);
            Assert.AreEqual(1, tieMin.Indices.ItemLong());
            Fails(StatusCode.Shape, () => Tensor.Zeros(0).Max());
            Fails(StatusCode.Shape, () => Tensor.Zeros(0).Min());
            Fails(StatusCode.Index, () => X().Max(2));
        }

        [Test]
        public void ArgMaxArgMin()
        {
            Tensor a = X().ArgMax();
            Assert.AreEqual(0, a.Dim);
            Assert.AreEqual(DType.Int64, a.DType);
            Assert.AreEqual(5, a.ItemLong());
            Assert.AreEqual(0, X().ArgMin().ItemLong());
            AreEqual(new long[] { 1, 1, 1 }, X().ArgMax(0));
            AreEqual(new long[] { 0, 0 }, X().ArgMin(1));
            ShapeIs(X().ArgMax(1, keepdim: true), 2, 1);
            ShapeIs(X().ArgMin(0, keepdim: true), 1, 3);
            Assert.AreEqual(1, F(1, float.NaN, 5).ArgMax().ItemLong());
            Assert.AreEqual(1, F(4, 1, 1).ArgMin().ItemLong());
        }

        [Test]
        public void Norm()
        {
            Assert.AreEqual(Math.Sqrt(55), X().Norm().ItemDouble(), 1e-5);
            Assert.AreEqual(15.0, X().Norm(1).ItemDouble(), 1e-5);
            Assert.AreEqual(5.0, X().Norm(double.PositiveInfinity).ItemDouble());
            Assert.AreEqual(0.0, X().Norm(double.NegativeInfinity).ItemDouble());
            AreEqual(new[] { (float)Math.Sqrt(5), (float)Math.Sqrt(50) }, X().Norm(2, 1), 1e-5f);
            Tensor k = X().Norm(2, new long[] { 0 }, keepdim: true);
            ShapeIs(k, 1, 3);
            AreEqual(new[] { 3f, (float)Math.Sqrt(17), (float)Math.Sqrt(29) }, k, 1e-5f);
            Assert.AreEqual(5.0, Tensor.FromArray(new[] { new System.Numerics.Complex(3, 4) }).Norm().ItemDouble(), 1e-12);
            Fails(StatusCode.DType, () => L(1, 2).Norm());
        }

        [Test]
        public void Errors()
        {
            Fails(StatusCode.Index, () => X().Sum(5));
            Fails(StatusCode.Index, () => X().Mean(new long[] { -3 }));
            Fails(StatusCode.Argument, () => X().Sum(new long[] { 0, 0 }));
            Fails(StatusCode.Argument, () => X().Sum(new long[] { 1, -1 }));
            Fails(StatusCode.Index, () => X().ArgMax(2));
        }
    }
}
