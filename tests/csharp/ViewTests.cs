// Views share storage with their base; each view method reaches its C function with its
// arguments in place (the view rules themselves are tests/capi/layout_test.c's).
using System;
using System.Runtime.InteropServices;
using Ctorch;
using NUnit.Framework;

namespace Ctorch.Tests
{
    [TestFixture]
    public class ViewTests : TestBase
    {
        [Test]
        public void ModifyThroughAViewSeeItInTheBase()
        {
            Tensor baseT = Tensor.Arange(6.0);
            Tensor v = baseT.View(2, 3);
            Assert.IsTrue(v.SharesStorage(baseT));
            Assert.IsFalse(v.IsSame(baseT));
            v.Select(0, 1).Fill_(9);
            AreEqual(new[] { 0f, 1f, 2f, 9f, 9f, 9f }, baseT);
            v[0].Add_(10L);
            AreEqual(new[] { 10f, 11f, 12f, 9f, 9f, 9f }, baseT);
            baseT.Zero_();
            AreEqual(new float[6], v);
        }

        [Test]
        public void ViewAndReshape()
        {
            ShapeIs(Tensor.Arange(6L).View(-1, 2), 3, 2);

            Tensor t = Tensor.Arange(6L).View(2, 3).Transpose(0, 1);   // [[0,3],[1,4],[2,5]]
            ShapeIs(t, 3, 2);
            CollectionAssert.AreEqual(new long[] { 1, 3 }, t.Strides);
            Assert.IsFalse(t.IsContiguous);
            Fails(StatusCode.Shape, () => t.View(6));
            Tensor r = t.Reshape(6);
            AreEqual(new long[] { 0, 3, 1, 4, 2, 5 }, r);
            Assert.IsFalse(r.SharesStorage(t));
            Tensor c = Tensor.Arange(6L);
            Tensor rc = c.Reshape(3, -1);
            ShapeIs(rc, 3, 2);
            Assert.IsTrue(rc.SharesStorage(c));
        }

        [Test]
        public void PermuteTransposeContiguous()
        {
            Tensor p = Tensor.Zeros(2, 3, 4).Permute(2, 0, 1);
            ShapeIs(p, 4, 2, 3);
            CollectionAssert.AreEqual(new long[] { 1, 12, 4 }, p.Strides);

            Tensor m = Tensor.FromArray(new long[] { 1, 2, 3, 4, 5, 6 }, 2, 3);
            Tensor t = m.Transpose(0, -1);
            Assert.IsTrue(t.SharesStorage(m));
            Tensor c = t.Contiguous();
            Assert.IsTrue(c.IsContiguous);
            Assert.IsFalse(c.SharesStorage(m));
            CollectionAssert.AreEqual(new long[] { 2, 1 }, c.Strides);
            AreEqual(new long[] { 1, 4, 2, 5, 3, 6 }, c);
            Tensor same = m.Contiguous();
            Assert.IsTrue(same.IsSame(m));
            Assert.AreNotSame(same, m);
            Fails(StatusCode.Index, () => m.Transpose(0, 2));

            ShapeIs(m.T, 3, 2);
            Tensor v = L(1, 2);
            Assert.IsTrue(v.T.IsSame(v));
        }

        [Test]
        public void NarrowSliceSelect()
        {
            Tensor m = Tensor.Arange(6.0).View(2, 3);     // [[0,1,2],[3,4,5]]
            Tensor n = m.Narrow(1, 1, 2);
            ShapeIs(n, 2, 2);
            AreEqual(new[] { 1f, 2f, 4f, 5f }, n);
            n.Fill_(0);
            AreEqual(new[] { 0f, 0f, 0f, 3f, 0f, 0f }, m);

            Tensor a = Tensor.Arange(6L);
            Tensor s = a.Slice(0, 1, 6, 2);
            AreEqual(new long[] { 1, 3, 5 }, s);
            Assert.AreEqual(1, s.StorageOffset);
            Assert.AreEqual(2, s.Stride(0));
            s.Mul_(-1L);
            AreEqual(new long[] { 0, -1, 2, -3, 4, -5 }, a);

            Tensor b = Tensor.Arange(6L).View(2, 3);
            AreEqual(new long[] { 2, 5 }, b.Select(1, -1));
            AreEqual(new long[] { 3, 4, 5 }, b[1]);
            Assert.AreEqual(0, b.Select(0, 0).Select(0, 0).Dim);
            Fails(StatusCode.Index, () => b.Select(0, 2));
        }

        [Test]
        public void DataPtrOfAViewIsItsBasesPlusTheOffset()
        {
            // float32, 4 bytes an element: [[0,1,2,3],[4,5,6,7],[8,9,10,11]]
            Tensor m = Tensor.Arange(12.0).View(3, 4);
            long p = m.DataPtr;
            Assert.AreNotEqual(0L, p);
            Assert.AreEqual(p, m.View(12).DataPtr, "a view at offset 0 starts where its base does");
            Assert.AreEqual(p, m.Transpose(0, 1).DataPtr);
            using (Tensor same = m.NewReference()) Assert.AreEqual(p, same.DataPtr);

            Tensor row2 = m.Select(0, 2);                 // offset 8 elements
            Assert.AreEqual(8, row2.StorageOffset);
            Assert.AreEqual(8 * 4, row2.DataPtr - p);
            Assert.AreEqual(1 * 4, m.Narrow(1, 1, 2).DataPtr - p);

            // int64, 8 bytes an element; the address is usable as a host pointer on the CPU.
            Tensor a = Tensor.Arange(10L);
            Tensor n = a.Narrow(0, 3, 4);                  // [3, 4, 5, 6]
            Assert.AreEqual(3 * 8, n.DataPtr - a.DataPtr);
            Assert.AreEqual(3L, Marshal.ReadInt64(new IntPtr(n.DataPtr)));
            Marshal.WriteInt64(new IntPtr(n.DataPtr), 8, -5L);  // element 1 of n = element 4 of a
            AreEqual(new long[] { 0, 1, 2, 3, -5, 5, 6, 7, 8, 9 }, a);

            // contiguous() of a contiguous tensor is that tensor; of a transpose, a copy with
            // storage of its own.
            Assert.AreEqual(p, m.Contiguous().DataPtr);
            Assert.AreNotEqual(p, m.Transpose(0, 1).Contiguous().DataPtr);
        }

        [Test]
        public void DataPtrOfADisposedTensorThrows()
        {
            Tensor t = Tensor.Ones(3);
            Assert.AreNotEqual(0L, t.DataPtr);
            t.Dispose();
            Assert.Throws<ObjectDisposedException>(() => GC.KeepAlive(t.DataPtr));
        }

        [Test]
        public void Expand()
        {
            Tensor c = Tensor.FromArray(new float[] { 1, 2, 3 }, 3, 1);
            Tensor e = c.Expand(3, 4);
            ShapeIs(e, 3, 4);
            CollectionAssert.AreEqual(new long[] { 1, 0 }, e.Strides);
            Assert.IsTrue(e.SharesStorage(c));
            AreEqual(new float[] { 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3 }, e);
            ShapeIs(c.ExpandAs(Tensor.Zeros(3, 5)), 3, 5);
            Fails(StatusCode.Shape, () => F(1, 2).Expand(3, 3));
        }

        [Test]
        public void SqueezeUnsqueezeFlatten()
        {
            Tensor z = Tensor.Zeros(1, 3, 1, 2);
            ShapeIs(z.Squeeze(), 3, 2);
            ShapeIs(z.Squeeze(0), 3, 1, 2);
            Assert.IsTrue(z.Squeeze().SharesStorage(z));
            ShapeIs(F(1, 2, 3).Unsqueeze(0), 1, 3);
            Fails(StatusCode.Index, () => F(1, 2, 3).Unsqueeze(3));

            Tensor f = Tensor.Zeros(2, 3, 4);
            ShapeIs(f.Flatten(), 24);
            ShapeIs(f.Flatten(1), 2, 12);
            ShapeIs(f.Flatten(0, 1), 6, 4);
            Assert.IsTrue(f.Flatten().SharesStorage(f));
            Fails(StatusCode.Index, () => f.Flatten(3));
        }
    }
}
