// torch.cuda runtime functions: current device, guards, synchronize, memory info, peer access,
// build architectures, sync debug mode; pinned memory and non-blocking moves of tensors. What
// works without a GPU is checked on every machine; the no-GPU errors (301) where there is none.
using System;
using Ctorch;
using NUnit.Framework;

namespace Ctorch.Tests
{
    [TestFixture]
    public class CudaRuntimeTests : TestBase
    {
        private const string GencodeFlags =
            "-gencode compute=compute_80,code=sm_80 -gencode compute=compute_90,code=sm_90 " +
            "-gencode compute=compute_90,code=compute_90";

        [Test]
        public void ArchListAndGencodeFlagsWorkWithoutAGpu()
        {
            CollectionAssert.AreEqual(new[] { "sm_80", "sm_90", "compute_90" }, Cuda.GetArchList());
            Assert.AreEqual(GencodeFlags, Cuda.GetGencodeFlags());
        }

        [Test]
        public void SyncDebugModeSetGetAndInvalid()
        {
            Assert.AreEqual(SyncDebugMode.Default, Cuda.GetSyncDebugMode());
            try
            {
                Cuda.SetSyncDebugMode(SyncDebugMode.Warn);
                Assert.AreEqual(SyncDebugMode.Warn, Cuda.GetSyncDebugMode());
                Cuda.SetSyncDebugMode(SyncDebugMode.Error);
                Assert.AreEqual(SyncDebugMode.Error, Cuda.GetSyncDebugMode());

                // Values outside 0..2 are refused by the library and change nothing.
                CtorchException e = Fails(StatusCode.Argument, () => Cuda.SetSyncDebugMode((SyncDebugMode)3));
                StringAssert.Contains("3", e.NativeMessage);
                Assert.AreEqual(SyncDebugMode.Error, Cuda.GetSyncDebugMode());

                // PyTorch's string forms.
                Cuda.SetSyncDebugMode("default");
                Assert.AreEqual(SyncDebugMode.Default, Cuda.GetSyncDebugMode());
                Cuda.SetSyncDebugMode("warn");
                Assert.AreEqual(SyncDebugMode.Warn, Cuda.GetSyncDebugMode());
                Cuda.SetSyncDebugMode("error");
                Assert.AreEqual(SyncDebugMode.Error, Cuda.GetSyncDebugMode());
                Assert.Throws<ArgumentException>(() => Cuda.SetSyncDebugMode("loud"));
                Assert.Throws<ArgumentNullException>(() => Cuda.SetSyncDebugMode((string)null));
                Assert.AreEqual(SyncDebugMode.Error, Cuda.GetSyncDebugMode());
            }
            finally
            {
                Cuda.SetSyncDebugMode(SyncDebugMode.Default);
            }
            Assert.AreEqual(SyncDebugMode.Default, Cuda.GetSyncDebugMode());
        }

        [Test]
        public void WithoutGpuDeviceCallsFailWith301()
        {
            RequireNoGpu();
            Unavailable(() => GC.KeepAlive(Cuda.CurrentDevice));
            Unavailable(() => Cuda.SetDevice(0));
            Cuda.SetDevice(-1); // a negative device changes nothing, as torch.cuda.set_device
            Unavailable(() => Cuda.SetDevice(Device.CudaAt(0)));
            Unavailable(() => Cuda.Synchronize());
            Unavailable(() => Cuda.Synchronize(0));
            Unavailable(() => Cuda.MemGetInfo());
            Unavailable(() => Cuda.MemGetInfo(0));
            Unavailable(() => Cuda.CanDeviceAccessPeer(0, 0));
            Unavailable(() => Cuda.CanDeviceAccessPeer(0, 1));
            using (Tensor t = F(1, 2))
            {
                Unavailable(() => t.PinMemory());
                Unavailable(() => t.Cuda(0, nonBlocking: true));
                Unavailable(() => t.To(Device.Cuda, DType.Float32, nonBlocking: true));
                Unavailable(() => t.To("cuda:0", null, nonBlocking: true));
            }
        }

        [Test]
        public void WithoutGpuDeviceGuardsFailCleanlyOrDoNothing()
        {
            RequireNoGpu();
            // A guard that must switch devices cannot start; nothing is left behind.
            Unavailable(() => Cuda.UseDevice(0));
            Unavailable(() => new DeviceGuard(1));
            Unavailable(() => Cuda.UseDevice(Device.CudaAt(0)));

            // A negative device (and "cuda" without an index) is torch.cuda.device(-1): no change.
            using (DeviceGuard g = Cuda.UseDevice(-1)) Assert.AreEqual(-1, g.PreviousDevice);
            using (DeviceGuard g = Cuda.UseDevice(Device.Cuda)) Assert.AreEqual(-1, g.PreviousDevice);

            // device_of a CPU tensor changes nothing either (prev -1 from the C layer).
            using (Tensor t = F(1))
            {
                DeviceGuard g = Cuda.DeviceOf(t);
                Assert.AreEqual(-1, g.PreviousDevice);
                g.Dispose();
                g.Dispose();   // harmless
            }
            // Still no current device: the failed guards changed nothing.
            Unavailable(() => GC.KeepAlive(Cuda.CurrentDevice));
        }

        [Test]
        public void DeviceGuardArguments()
        {
            Assert.Throws<ArgumentException>(() => Cuda.UseDevice(Device.Cpu));
            Assert.Throws<ArgumentException>(() => Cuda.SetDevice(Device.Cpu));
            Assert.Throws<ArgumentException>(() => Cuda.SetDevice(Device.Cuda));   // no index
            Assert.Throws<ArgumentNullException>(() => Cuda.DeviceOf(null));
            Tensor t = F(1);
            t.Dispose();
            Assert.Throws<ObjectDisposedException>(() => Cuda.DeviceOf(t));

            // A device that is not visible: CT_ERR_INDEX with a GPU, 301 without.
            StatusCode expected = Cuda.IsAvailable ? StatusCode.Index : StatusCode.CudaUnavailable;
            Fails(expected, () => Cuda.UseDevice(Cuda.DeviceCount + 3));
            Fails(expected, () => Cuda.SetDevice(Cuda.DeviceCount + 3));
            Fails(expected, () => Cuda.CanDeviceAccessPeer(0, Cuda.DeviceCount + 3));
        }

        [Test]
        public void IsPinnedWorksWithoutAGpu()
        {
            using (Tensor t = F(1, 2, 3))
            using (Tensor v = t.View(3, 1))
            {
                Assert.IsFalse(t.IsPinned);
                Assert.IsFalse(v.IsPinned);
            }
            Tensor d = F(1);
            d.Dispose();
            Assert.Throws<ObjectDisposedException>(() => GC.KeepAlive(d.IsPinned));
            Assert.Throws<ObjectDisposedException>(() => d.PinMemory());
        }

        [Test]
        public void PinMemory()
        {
            using (Tensor t = F(1, 2, 3))
            {
                if (!Cuda.IsAvailable)
                {
                    Unavailable(() => t.PinMemory());
                    return;
                }
                using (Tensor p = t.PinMemory())
                {
                    Assert.IsTrue(p.IsPinned);
                    Assert.IsFalse(t.IsPinned);
                    Assert.IsFalse(p.SharesStorage(t));   // a copy
                    AreEqual(new[] { 1f, 2f, 3f }, p);
                    Assert.AreEqual("cpu", p.Device.ToString());
                }
                using (Tensor g = t.Cuda())
                {
                    Assert.IsFalse(g.IsPinned);
                    Fails(StatusCode.Device, () => g.PinMemory());
                }
            }
        }

        [Test]
        public void NonBlockingMovesOnTheCpu()
        {
            // non_blocking changes nothing for CPU-to-CPU work: same tensor when nothing changes,
            // a finished conversion / copy otherwise.
            using (Tensor t = F(1.5f, -2f, 3f))
            {
                using (Tensor same = t.To(Device.Cpu, null, nonBlocking: true))
                    Assert.IsTrue(same.IsSame(t));
                using (Tensor same = t.To("cpu", null, nonBlocking: true))
                    Assert.IsTrue(same.IsSame(t));
                using (Tensor c = t.To(Device.Cpu, DType.Float32, nonBlocking: true, copy: true))
                    Assert.IsFalse(c.SharesStorage(t));
                using (Tensor dst = Tensor.Zeros(2, 3))
                {
                    Assert.AreSame(dst, dst.CopyFrom(t, nonBlocking: true));   // broadcast (3,) -> (2,3)
                    AreEqual(new[] { 1.5f, -2f, 3f, 1.5f, -2f, 3f }, dst);
                    using (Tensor ints = L(7, 8, 9))
                        dst.Copy_(ints, nonBlocking: true);
                    AreEqual(new[] { 7f, 8f, 9f, 7f, 8f, 9f }, dst);
                }
            }
        }

        [Test]
        public void MemoryAndPeerQueries()
        {
            RequireGpu();
            var (free, total) = Cuda.MemGetInfo();
            Assert.Greater(total, 0L);
            Assert.That(free, Is.InRange(0L, total));
            Assert.AreEqual(Cuda.GetDeviceProperty(0, CudaDeviceProperty.TotalMemory), Cuda.MemGetInfo(0).Total);
            Assert.IsFalse(Cuda.CanDeviceAccessPeer(0, 0));   // as torch: False for a device and itself
            Cuda.Synchronize();
            Cuda.Synchronize(0);
            Fails(StatusCode.Index, () => Cuda.MemGetInfo(Cuda.DeviceCount));
        }
    }
}
