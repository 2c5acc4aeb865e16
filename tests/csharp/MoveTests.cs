// to(device, dtype), cpu(), copy_, clone, and the seed's device-agnostic quickstart.
using System;
using Ctorch;
using NUnit.Framework;

namespace Ctorch.Tests
{
    [TestFixture]
    public class MoveTests : TestBase
    {
        [Test]
        public void SeedQuickstartDeviceAgnostic()
        {
            // device = "cuda" if torch.cuda.is_available() else "cpu"
            Device device = Cuda.IsAvailable ? Device.Parse("cuda") : Device.Parse("cpu");
            Assert.AreEqual(Cuda.IsAvailable ? "cuda" : "cpu", device.ToString());

            // tensor = torch.tensor([1, 2, 3]); print(tensor, tensor.device)
            Tensor tensor = Tensor.FromArray(new long[] { 1, 2, 3 });
            Assert.AreEqual("tensor([1, 2, 3])", tensor.ToString());
            Assert.AreEqual("cpu", tensor.Device.ToString());

            // tensor_on_gpu = tensor.to(device)
            Tensor onDevice = tensor.To(device);
            if (device.IsCpu)
            {
                Assert.IsTrue(onDevice.IsSame(tensor), "to() on the same device returns the tensor itself");
                Assert.AreEqual("tensor([1, 2, 3])", onDevice.ToString());
            }
            else
            {
                Assert.AreEqual("cuda:0", onDevice.Device.ToString());
                Assert.AreEqual("tensor([1, 2, 3], device='cuda:0')", onDevice.ToString());
            }

            // derived tensors stay on the device; moving back with cpu()
            Tensor sum = onDevice + onDevice;
            Assert.AreEqual(onDevice.Device, sum.Device);
            Tensor back = sum.Cpu();
            Assert.AreEqual(Device.Cpu, back.Device);
            AreEqual(new long[] { 2, 4, 6 }, back);

            // x.add_(y) is in place
            Tensor x = Tensor.Ones(new long[] { 2 }, device);
            Tensor y = x + Tensor.Full(new long[] { 2 }, 0.5, device);
            x.Add_(Tensor.Full(new long[] { 2 }, 0.25, device));
            AreEqual(new[] { 1.25f, 1.25f }, x.Cpu());
            AreEqual(new[] { 1.5f, 1.5f }, y.Cpu());
        }

        [Test]
        public void ToReturnsTheSameTensorWhenNothingChanges()
        {
            Tensor t = F(1, 2);
            Tensor same = t.To(Device.Cpu);
            Assert.IsTrue(same.IsSame(t));
            Assert.AreNotSame(same, t);
            Assert.IsTrue(t.To(DType.Float32).IsSame(t));
            Assert.IsTrue(t.To(Device.Cpu, DType.Float32).IsSame(t));
            Assert.IsTrue(t.To(F(5)).IsSame(t));
            Assert.IsTrue(t.To("cpu").IsSame(t));
            Tensor copy = t.To(Device.Cpu, null, false, copy: true);
            Assert.IsFalse(copy.IsSame(t));
            Assert.IsFalse(copy.SharesStorage(t));
            same.Dispose();                      // releases one reference only
            AreEqual(new[] { 1f, 2f }, t);
        }

        [Test]
        public void ToConvertsDtype()
        {
            Tensor d = F(1.5f, -2.5f).To(DType.Float64);
            AreEqual(new[] { 1.5, -2.5 }, d);
            AreEqual(new long[] { 1, -2 }, F(1.5f, -2.5f).Long());
            AreEqual(new[] { 1, -2 }, F(1.5f, -2.5f).Int());
            AreEqual(new[] { true, false }, F(3, 0).Bool());
            AreEqual(new[] { 1.0, 0.0 }, B(true, false).Double());
            AreEqual(new[] { 2f }, L(2).Float());
            Assert.AreEqual(DType.Float16, F(1).Half().DType);
            Tensor other = Tensor.Zeros(new long[] { 1 }, DType.Int16);
            Assert.AreEqual(DType.Int16, F(7).To(other).DType);
            Assert.AreEqual(DType.Complex64, F(1).To(DType.Complex64).DType);
            Assert.AreEqual(DType.BFloat16, F(1).To(TestDevice, DType.BFloat16).DType);
        }

        [Test]
        public void CopyFromBroadcastsAndConverts()
        {
            Tensor dst = Tensor.Zeros(2, 3);
            Assert.AreSame(dst, dst.CopyFrom(L(1, 2, 3)));
            AreEqual(new float[] { 1, 2, 3, 1, 2, 3 }, dst);
            dst.Copy_(Tensor.FromArray(new double[] { 7, 8 }, 2, 1));
            AreEqual(new float[] { 7, 7, 7, 8, 8, 8 }, dst);
            Tensor onDev = Tensor.Zeros(new long[] { 3 }, TestDevice);
            onDev.CopyFrom(F(4, 5, 6));
            AreEqual(new[] { 4f, 5f, 6f }, onDev.Cpu());
            Fails(StatusCode.Shape, () => dst.CopyFrom(F(1, 2)));
        }

        [Test]
        public void CloneHasItsOwnStorage()
        {
            Tensor t = Tensor.Arange(4L).View(2, 2).Transpose(0, 1);
            Tensor c = t.Clone();
            Assert.IsFalse(c.SharesStorage(t));
            Assert.IsTrue(c.IsContiguous);
            AreEqual(new long[] { 0, 2, 1, 3 }, c);
            c.Fill_(1);
            AreEqual(new long[] { 0, 2, 1, 3 }, t);
        }
    }
}
