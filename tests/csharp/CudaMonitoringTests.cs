// Section 23 of ctorch.h through Cuda: the NVML figures (ints and a long marshalled back, the
// current device by default), ListGpuProcesses's string, Init and IsInitialized, and the error
// mapping (NotSupported naming libnvidia-ml.so.1 without the driver, CudaUnavailable without
// CUDA, Index for a device with no GPU). The values are checked by the C suite and, against
// nvidia-smi, by tests/gpu/nvml_compare.py.
using System;
using System.Text.RegularExpressions;
using Ctorch;
using NUnit.Framework;

namespace Ctorch.Tests
{
    [TestFixture]
    public class CudaMonitoringTests : TestBase
    {
        private static readonly Func<int, int>[] IntQueries =
        {
            d => Cuda.Utilization(d), d => Cuda.MemoryUsage(d), d => Cuda.Temperature(d), d => Cuda.PowerDraw(d),
            d => Cuda.ClockRate(d),
        };

        private static void NoNvml(TestDelegate action)
        {
            CtorchException e = Fails(StatusCode.NotSupported, action);
            StringAssert.Contains("libnvidia-ml.so.1", e.NativeMessage);
        }

        private static void RequireNvml()
        {
            RequireGpu();
            Assert.That(Cuda.DeviceCountNvml, Is.GreaterThanOrEqualTo(0),
                        "a GPU but NVML cannot be used (is libnvidia-ml.so.1 missing?)");
        }

        [Test]
        public void WithoutNvmlEveryQueryThrowsNotSupported()
        {
            RequireNoGpu();
            if (Cuda.DeviceCountNvml >= 0) Assert.Ignore("libnvidia-ml.so.1 loads here");
            Assert.AreEqual(-1, Cuda.DeviceCountNvml);
            foreach (var q in IntQueries)
            {
                NoNvml(() => q(0));
                NoNvml(() => q(-1));
            }
            NoNvml(() => Cuda.Utilization());
            NoNvml(() => Cuda.Temperature());
            NoNvml(() => Cuda.DeviceMemoryUsed());
            NoNvml(() => Cuda.DeviceMemoryUsed(1));
            // the string call fails on its first (size) call: the error, not an empty string
            NoNvml(() => Cuda.ListGpuProcesses());
            NoNvml(() => Cuda.ListGpuProcesses(0));
        }

        [Test]
        public void WithoutGpuInitThrowsAndNothingIsInitialized()
        {
            RequireNoGpu();
            Assert.IsFalse(Cuda.IsInitialized);
            Unavailable(() => Cuda.Init());
            Unavailable(() => Cuda.Init());
            Assert.IsFalse(Cuda.IsInitialized);
        }

        [Test]
        public void GpuInitIsIdempotent()
        {
            RequireGpu();
            Cuda.Init();
            Cuda.Init();
            Assert.IsTrue(Cuda.IsInitialized);
        }

        [Test]
        public void GpuFiguresInRange()
        {
            RequireNvml();
            Assert.AreEqual(Cuda.DeviceCount, Cuda.DeviceCountNvml);
            for (int d = 0; d < Cuda.DeviceCount; d++)
            {
                Assert.That(Cuda.Utilization(d), Is.InRange(0, 100));
                Assert.That(Cuda.MemoryUsage(d), Is.InRange(0, 100));
                Assert.That(Cuda.Temperature(d), Is.InRange(1, 120));
                Assert.That(Cuda.PowerDraw(d), Is.GreaterThan(0));
                Assert.That(Cuda.ClockRate(d), Is.GreaterThan(0));
                Assert.That(Cuda.DeviceMemoryUsed(d), Is.InRange(1L, Cuda.GetDeviceProperties(d).TotalMemory + (1L << 30)));
            }
            using (Cuda.UseDevice(0))
            {
                Assert.That(Math.Abs(Cuda.Temperature() - Cuda.Temperature(0)), Is.LessThanOrEqualTo(2));
                Assert.That(Cuda.DeviceMemoryUsed(), Is.GreaterThan(0L));
                Assert.That(Cuda.PowerDraw(), Is.GreaterThan(0));
                Assert.That(Cuda.ClockRate(), Is.GreaterThan(0));
                Assert.That(Cuda.Utilization(), Is.InRange(0, 100));
                Assert.That(Cuda.MemoryUsage(), Is.InRange(0, 100));
            }
            CtorchException e = Fails(StatusCode.Index, () => Cuda.Temperature(64));
            StringAssert.Contains("device 64 is not visible (CUDA_VISIBLE_DEVICES=", e.NativeMessage);
        }

        [Test]
        public void GpuListGpuProcessesText()
        {
            RequireNvml();
            using (Tensor t = Tensor.Empty(new long[] { 1 << 20 }, DType.Float32, Device.Parse("cuda:0")))
            {
                string text = Cuda.ListGpuProcesses(0);
                string[] lines = text.Split('\n');
                Assert.IsTrue(Regex.IsMatch(lines[0], @"^GPU:\d+$"), text);
                Assert.That(lines.Length, Is.GreaterThanOrEqualTo(2), text);  // this process holds memory
                for (int i = 1; i < lines.Length; i++)
                    Assert.IsTrue(Regex.IsMatch(lines[i], @"^process +\d+ uses +(\d+\.\d{3}|N/A) MB GPU memory$"), lines[i]);
            }
        }
    }
}
