// cat and stack (their overloads and element checks; the joins' rules are tests/capi's), and
// the repr string coming through.
using System;
using System.Collections.Generic;
using Ctorch;
using NUnit.Framework;

namespace Ctorch.Tests
{
    [TestFixture]
    public class JoinTests : TestBase
    {
        [Test]
        public void Cat()
        {
            Tensor a = Tensor.FromArray(new float[] { 1, 2, 3, 4 }, 2, 2);
            Tensor b = Tensor.FromArray(new float[] { 5, 6 }, 1, 2);
            Tensor c0 = Tensor.Cat(a, b);
            ShapeIs(c0, 3, 2);
            AreEqual(new float[] { 1, 2, 3, 4, 5, 6 }, c0);
            Tensor c1 = Tensor.Cat(new[] { a, Tensor.FromArray(new float[] { 7, 8 }, 2, 1) }, 1);
            ShapeIs(c1, 2, 3);
            AreEqual(new float[] { 1, 2, 7, 3, 4, 8 }, c1);
            Tensor c2 = Tensor.Cat(new List<Tensor> { a, a }, -1);
            ShapeIs(c2, 2, 4);
            Fails(StatusCode.Index, () => Tensor.Cat(new[] { a, a }, 2));
        }

        [Test]
        public void Stack()
        {
            Tensor a = Tensor.FromArray(new float[] { 1, 2, 3, 4 }, 2, 2);
            ShapeIs(Tensor.Stack(a, a), 2, 2, 2);
            Tensor s1 = Tensor.Stack(new[] { F(1, 2), F(3, 4) }, 1);
            ShapeIs(s1, 2, 2);
            AreEqual(new float[] { 1, 3, 2, 4 }, s1);
            Fails(StatusCode.Shape, () => Tensor.Stack(F(1, 2), F(1, 2, 3)));
        }

        [Test]
        public void BadElements()
        {
            Tensor a = F(1);
            Tensor gone = F(2);
            gone.Dispose();
            Assert.Throws<ObjectDisposedException>(() => Tensor.Cat(a, gone));
            Assert.Throws<ArgumentNullException>(() => Tensor.Stack(a, null));
            Assert.Throws<ArgumentNullException>(() => Tensor.Cat((IEnumerable<Tensor>)null));
            AreEqual(new[] { 1f }, a);   // a is still usable after the failed calls
        }
    }

    [TestFixture]
    public class ReprTests : TestBase
    {
        [Test]
        public void AsPyTorchPrints()
        {
            Assert.AreEqual("tensor([1., 2.])", F(1, 2).ToString());
            Assert.AreEqual("tensor([1, 2, 3])", L(1, 2, 3).ToString());
            Assert.AreEqual("tensor(2.5000)", Tensor.Scalar(2.5).ToString());
            Assert.AreEqual("tensor([[1., 2.],\n        [3., 4.]])",
                Tensor.FromArray(new float[] { 1, 2, 3, 4 }, 2, 2).ToString());
            Assert.AreEqual($"{L(4)}", "tensor([4])");
        }

        [Test]
        public void OnCuda()
        {
            if (!Cuda.IsAvailable) Assert.Ignore("no GPU");
            Assert.AreEqual("tensor([1, 2, 3], device='cuda:0')", L(1, 2, 3).To(Device.CudaAt(0)).ToString());
        }
    }
}
