// Exceptions: codes, names, messages, the out-of-memory subclass.
using System;
using Ctorch;
using NUnit.Framework;

namespace Ctorch.Tests
{
    [TestFixture]
    public class ErrorTests : TestBase
    {
        [Test]
        public void OutOfMemoryHasItsOwnException()
        {
            // 2^61 float32 elements need more bytes than fit in int64: always out of memory.
            var e = Assert.Throws<CtorchOutOfMemoryException>(() => Tensor.Empty(1L << 61));
            Assert.IsInstanceOf<CtorchException>(e);
            Assert.AreEqual(StatusCode.OutOfMemory, e.Code);
            Assert.AreEqual("CT_ERR_OUT_OF_MEMORY", e.StatusName);
            Assert.IsNotEmpty(e.NativeMessage);
            Assert.Throws<CtorchOutOfMemoryException>(() => Tensor.Zeros(new long[] { 1L << 31, 1L << 31 }, DType.Float64));
        }

        [Test]
        public void ExceptionCarriesCodeNameAndMessage()
        {
            CtorchException e = Fails(StatusCode.Shape, () => F(1, 2).Mul(F(1, 2, 3)));
            Assert.IsNotInstanceOf<CtorchOutOfMemoryException>(e);
            Assert.AreEqual("CT_ERR_SHAPE: " + e.NativeMessage, e.Message);

            e = Fails(StatusCode.DeviceString, () => Device.Parse("cuda:x"));
            StringAssert.Contains("cuda:x", e.NativeMessage);
            e = Fails(StatusCode.DeviceString, () => Device.Parse("gpu"));
            StringAssert.Contains("gpu", e.NativeMessage);

            e = Fails(StatusCode.Index, () => Tensor.Zeros(2, 3).Size(2));
            Fails(StatusCode.Index, () => Tensor.Zeros(2, 3).Stride(-3));
            Fails(StatusCode.Index, () => Tensor.Zeros(2, 3).Sum(2));
            Fails(StatusCode.DType, () => L(1, 2, 3).Mean());
            FailsWithOneOf(() => B(true).Sub(B(false)), StatusCode.DType, StatusCode.NotSupported);
        }

        [Test]
        public void FromStatusPicksTheTypeAndTheExceptionSerializes()
        {
            Fails(StatusCode.DeviceString, () => Device.Parse("gpu"));
            CtorchException e = CtorchException.FromStatus((int)StatusCode.DeviceString);   // reads the thread's message
            Assert.AreEqual(Torch.LastErrorMessage, e.NativeMessage);
            Assert.IsInstanceOf<CtorchOutOfMemoryException>(CtorchException.FromStatus((int)StatusCode.OutOfMemory));
            // GetObjectData keeps code, name and message across serialization.
            var f = new System.Runtime.Serialization.Formatters.Binary.BinaryFormatter();
            using (var m = new System.IO.MemoryStream())
            {
                f.Serialize(m, e);
                m.Position = 0;
                var back = (CtorchException)f.Deserialize(m);
                Assert.AreEqual(e.Code, back.Code);
                Assert.AreEqual(e.StatusName, back.StatusName);
                Assert.AreEqual(e.NativeMessage, back.NativeMessage);
            }
        }

        [Test]
        public void MessagesDescribeTheFailingCall()
        {
            // The message is read right after the failing call: a later failure replaces it.
            CtorchException first = Fails(StatusCode.DeviceString, () => Device.Parse("gpu"));
            CtorchException second = Fails(StatusCode.Shape, () => F(1, 2).Add(F(1, 2, 3)));
            Assert.AreNotEqual(first.NativeMessage, second.NativeMessage);
            Assert.AreEqual(second.NativeMessage, Torch.LastErrorMessage);
        }
    }
}
