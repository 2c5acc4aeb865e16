// Sorting and selection as the binding adds them: each method reaches its C function with its
// arguments in place (dim, flags, k, side, a null and a given sorter), the tuple results (Unique's
// null members when not asked for) are owned and disposed, and errors come through. Values,
// dtypes and layouts are the C suite's (tests/capi/sort_test.c).
using System;
using Ctorch;
using NUnit.Framework;

namespace Ctorch.Tests
{
    [TestFixture]
    public class SortingTests : TestBase
    {
        // [[3, 1, 2],
        //  [1, 5, 4]]
        private static Tensor X() => Tensor.FromArray(new[] { 3f, 1f, 2f, 1f, 5f, 4f }, new long[] { 2, 3 }, TestDevice);

        [Test]
        public void SortArgsortTopKKthValue()
        {
            var (v, i) = X().Sort();
            AreEqual(new[] { 1f, 2f, 3f, 1f, 4f, 5f }, v);
            AreEqual(new long[] { 1, 2, 0, 0, 2, 1 }, i);
            var d = X().Sort(0, descending: true, stable: true);
            AreEqual(new[] { 3f, 5f, 4f, 1f, 1f, 2f }, d.Values);
            AreEqual(new long[] { 0, 1, 1, 1, 0, 0 }, d.Indices);
            AreEqual(new long[] { 0, 2, 1, 1, 2, 0 }, X().Argsort(1, descending: true));
            var t = X().TopK(2);
            ShapeIs(t.Values, 2, 2);
            AreEqual(new[] { 3f, 2f, 5f, 4f }, t.Values);
            AreEqual(new long[] { 0, 2, 1, 2 }, t.Indices);
            AreEqual(new[] { 1f, 1f, 2f }, X().TopK(1, 0, largest: false, sorted: false).Values);
            var k = X().KthValue(2, 1, keepdim: true);
            ShapeIs(k.Values, 2, 1);
            AreEqual(new[] { 2f, 4f }, k.Values);
            AreEqual(new long[] { 2, 2 }, k.Indices);

            Fails(StatusCode.Index, () => X().TopK(4));
            Fails(StatusCode.Index, () => X().KthValue(0));
            Fails(StatusCode.Index, () => X().Sort(2));
        }

        [Test]
        public void Unique()
        {
            var u = X().Unique(returnInverse: true, returnCounts: true);
            AreEqual(new[] { 1f, 2f, 3f, 4f, 5f }, u.Values);
            ShapeIs(u.Inverse, 2, 3);
            AreEqual(new long[] { 2, 0, 1, 0, 4, 3 }, u.Inverse);
            AreEqual(new long[] { 2, 1, 1, 1, 1 }, u.Counts);
            var only = X().Unique();
            AreEqual(new[] { 1f, 2f, 3f, 4f, 5f }, only.Values);
            Assert.IsNull(only.Inverse);
            Assert.IsNull(only.Counts);
        }

        [Test]
        public void SearchSorted()
        {
            Tensor seq = Tensor.FromArray(new[] { 1f, 3f, 5f, 7f }, new long[] { 4 }, TestDevice);
            Tensor q = Tensor.FromArray(new[] { 3f, 6f, 0f }, new long[] { 3 }, TestDevice);
            AreEqual(new long[] { 1, 3, 0 }, seq.SearchSorted(q));
            Tensor r = seq.SearchSorted(q, outInt32: true, right: true);
            Assert.AreEqual(DType.Int32, r.DType);
            AreEqual(new[] { 2, 3, 0 }, r);
            AreEqual(new long[] { 2, 3, 0 }, seq.SearchSorted(q, side: "right"));
            Tensor useq = Tensor.FromArray(new[] { 7f, 1f, 5f, 3f }, new long[] { 4 }, TestDevice);
            Tensor sorter = Tensor.FromArray(new long[] { 1, 3, 2, 0 }, new long[] { 4 }, TestDevice);
            AreEqual(new long[] { 1, 3, 0 }, useq.SearchSorted(q, sorter: sorter));

            Fails(StatusCode.Argument, () => seq.SearchSorted(q, right: true, side: "left"));
            Assert.Throws<ArgumentNullException>(() => seq.SearchSorted(null));
            Tensor gone = X();
            gone.Dispose();
            Assert.Throws<ObjectDisposedException>(() => seq.SearchSorted(q, sorter: gone));
        }
    }
}
