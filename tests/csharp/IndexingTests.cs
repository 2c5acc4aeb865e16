// Indexing (section 30 of capi/ctorch.h) as the binding adds it: each method reaches its C
// function with its operands in order and dim, value and alpha in their places, results are
// owned tensors, Where(condition) returns one tensor a dim, null and disposed operands are caught
// before the C call (with the parameter's name), and the native messages come through. Values over
// dtypes and layouts, PyTorch's messages and the CUDA device assertion are the C suite's
// (tests/capi/indexing_test.c).
using System;
using Ctorch;
using NUnit.Framework;

namespace Ctorch.Tests
{
    [TestFixture]
    public class IndexingTests : TestBase
    {
        // X = [[0, 1, 2], [3, 4, 5]]
        private static Tensor X() => Tensor.FromArray(new double[] { 0, 1, 2, 3, 4, 5 }, 2, 3);

        [Test]
        public void EachOpReachesItsFunction()
        {
            Tensor x = X();
            AreEqual(new[] { 2.0, 0, 5, 3 }, x.IndexSelect(1, L(2, 0)), 0.0);
            AreEqual(new[] { 1.0, 4 }, x.IndexSelect(1, I(1)), 0.0);
            Tensor g = Tensor.FromArray(new long[] { 1, 1, 0, 2 }, 2, 2);
            AreEqual(new[] { 1.0, 1, 3, 5 }, x.Gather(1, g), 0.0);
            AreEqual(new[] { 5.0, 0 }, x.Take(L(-1, 0)), 0.0);
            Tensor src = Tensor.FromArray(new double[] { 10, 20, 30, 40 }, 2, 2);
            Tensor g2 = Tensor.FromArray(new long[] { 1, 0, 0, 2 }, 2, 2);
            AreEqual(new[] { 20.0, 10, 2, 30, 4, 40 }, x.Scatter(1, g2, src), 0.0);
            AreEqual(new[] { 0.0, -1, 2, -1, 4, -1 }, x.Scatter(1, g, -1.0), 0.0);
            AreEqual(new[] { 0.0, 31, 2, 33, 4, 45 }, x.ScatterAdd(1, g, src), 0.0);
            AreEqual(new[] { 0.0, 1, 2, 3, 4, 5 }, x, 0.0); // out of place
            Tensor y = Tensor.Zeros(3, 2).To(DType.Float64);
            Assert.AreSame(y, y.IndexAdd_(0, L(2, 0), src, alpha: 0.5));
            AreEqual(new[] { 15.0, 20, 0, 0, 5, 10 }, y, 0.0);
            Tensor m = B(true, false, true);
            AreEqual(new[] { 9.0, 1, 9, 9, 4, 9 }, x.MaskedFill(m, 9), 0.0);
            AreEqual(new[] { 0.0, 2, 3, 5 }, x.MaskedSelect(m), 0.0);
            Tensor z = x.MaskedFill(m, 0);
            Assert.AreSame(z, z.MaskedFill_(B(false, true, false), 7));
            AreEqual(new[] { 0.0, 7, 0, 0, 7, 0 }, z, 0.0);
            Tensor nz = z.Nonzero();
            ShapeIs(nz, 2, 2);
            AreEqual(new long[] { 0, 1, 1, 1 }, nz);
            Tensor[] cols = Tensor.Where(z);
            Assert.AreEqual(2, cols.Length);
            AreEqual(new long[] { 0, 1 }, cols[0]);
            AreEqual(new long[] { 1, 1 }, cols[1]);
            Tensor[] one = Tensor.Where(Tensor.Full(new long[0], 3.0));
            Assert.AreEqual(1, one.Length);
            AreEqual(new long[] { 0 }, one[0]);
            // advanced indexing: x[:, [2, 0]], x[[1, 0], [0, 2]]; w[mask] = -1, then += with repeats
            AreEqual(new[] { 2.0, 0, 5, 3 }, x.Index(null, L(2, 0)), 0.0);
            AreEqual(new[] { 3.0, 2 }, x.Index(L(1, 0), L(0, 2)), 0.0);
            Tensor w = x.Clone();
            Assert.AreSame(w, w.IndexPut_(new[] { B(true, false) }, Tensor.Scalar(-1.0, DType.Float64)));
            AreEqual(new[] { -1.0, -1, -1, 3, 4, 5 }, w, 0.0);
            w.IndexPut_(new Tensor[] { null, L(1, 1) }, Tensor.Scalar(2.0, DType.Float64), accumulate: true);
            AreEqual(new[] { -1.0, 3, -1, 3, 8, 5 }, w, 0.0);
            // the indexer: w[mask] and w[null, idx] = values
            AreEqual(new[] { 3.0, 3, 8, 5 }, w[w.Gt(0.0)], 0.0);
            w[null, L(0, 2)] = Tensor.Scalar(0.0, DType.Float64);
            AreEqual(new[] { 0.0, 3, 0, 0, 8, 0 }, w, 0.0);
        }

        [Test]
        public void ErrorsComeThroughAndOperandsAreChecked()
        {
            Tensor x = X();
            CtorchException e = Fails(StatusCode.DType, () => x.IndexSelect(0, F(0)));
            Assert.AreEqual("index_select(): Expected dtype int32 or int64 for index", e.NativeMessage);
            e = Fails(StatusCode.Index, () => x.IndexSelect(0, L(2)));
            Assert.AreEqual("index out of range in self", e.NativeMessage);
            e = Fails(StatusCode.Index, () => x.Take(L(6)));
            Assert.AreEqual("out of range: tried to access index 6 on a tensor of 6 elements.", e.NativeMessage);
            e = Fails(StatusCode.DType, () => x.MaskedFill(F(1, 0, 1), 0));
            Assert.AreEqual("masked_fill_ only supports boolean masks, but got mask with dtype float", e.NativeMessage);
            Fails(StatusCode.DType, () => x.MaskedSelect(F(1, 0, 1)));
            Fails(StatusCode.Index, () => x.Gather(0, Tensor.FromArray(new long[] { 2, 0, 0 }, 1, 3)));
            Fails(StatusCode.Index, () => x.IndexAdd_(0, L(5), Tensor.Zeros(1, 3).To(DType.Float64)));

            Assert.AreEqual("index", Assert.Throws<ArgumentNullException>(() => x.IndexSelect(0, null)).ParamName);
            Assert.AreEqual("index", Assert.Throws<ArgumentNullException>(() => x.Gather(0, null)).ParamName);
            Assert.AreEqual("index", Assert.Throws<ArgumentNullException>(() => x.Take(null)).ParamName);
            Assert.AreEqual("src", Assert.Throws<ArgumentNullException>(() => x.Scatter(0, L(0), (Tensor)null)).ParamName);
            Assert.AreEqual("index", Assert.Throws<ArgumentNullException>(() => x.Scatter(0, null, 1.0)).ParamName);
            Assert.AreEqual("src", Assert.Throws<ArgumentNullException>(() => x.ScatterAdd(0, L(0), null)).ParamName);
            Assert.AreEqual("source", Assert.Throws<ArgumentNullException>(() => x.IndexAdd_(0, L(0), null)).ParamName);
            Assert.AreEqual("mask", Assert.Throws<ArgumentNullException>(() => x.MaskedFill(null, 1)).ParamName);
            Assert.AreEqual("mask", Assert.Throws<ArgumentNullException>(() => x.MaskedFill_(null, 1)).ParamName);
            Assert.AreEqual("mask", Assert.Throws<ArgumentNullException>(() => x.MaskedSelect(null)).ParamName);
            Assert.AreEqual("condition", Assert.Throws<ArgumentNullException>(() => Tensor.Where(null)).ParamName);
            Assert.AreEqual("indices", Assert.Throws<ArgumentNullException>(() => x.Index(null)).ParamName);
            Assert.AreEqual("values", Assert.Throws<ArgumentNullException>(() => x.IndexPut_(new[] { L(0) }, null)).ParamName);
            e = Fails(StatusCode.Index, () => x.Index(L(5)));
            Assert.AreEqual("index 5 is out of bounds for dimension 0 with size 2", e.NativeMessage);
            Tensor gone = X();
            gone.Dispose();
            Assert.Throws<ObjectDisposedException>(() => gone.Nonzero());
            Assert.Throws<ObjectDisposedException>(() => x.Take(gone));
            Assert.Throws<ObjectDisposedException>(() => Tensor.Where(gone));
            Assert.Throws<ObjectDisposedException>(() => x.Index(gone));
            Assert.Throws<ObjectDisposedException>(() => x.IndexPut_(new[] { L(0) }, gone));
        }
    }
}
