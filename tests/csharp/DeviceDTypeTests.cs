// Devices, dtypes, CUDA queries, library-wide functions.
using System;
using System.Linq;
using System.Reflection;
using Ctorch;
using Ctorch.Swig;
using NUnit.Framework;

namespace Ctorch.Tests
{
    [TestFixture]
    public class DeviceTests : TestBase
    {
        [Test]
        public void ParseAndPrintAsTorch()
        {
            Device cpu = Device.Parse("cpu");
            Assert.AreEqual(DeviceType.Cpu, cpu.Type);
            Assert.AreEqual(-1, cpu.Index);
            Assert.IsFalse(cpu.HasIndex);
            Assert.AreEqual("cpu", cpu.ToString());

            Device cuda = Device.Parse("cuda");
            Assert.AreEqual(DeviceType.Cuda, cuda.Type);
            Assert.AreEqual(-1, cuda.Index);
            Assert.AreEqual("cuda", cuda.ToString());

            Device cuda1 = Device.Parse("cuda:1");
            Assert.AreEqual(DeviceType.Cuda, cuda1.Type);
            Assert.AreEqual(1, cuda1.Index);
            Assert.IsTrue(cuda1.IsCuda);
            Assert.AreEqual("cuda:1", cuda1.ToString());

            Device cpu0 = new Device("cpu:0");
            Assert.AreEqual(DeviceType.Cpu, cpu0.Type);
            Assert.AreEqual(0, cpu0.Index);
            Assert.AreEqual("cpu:0", cpu0.ToString());

            Assert.AreEqual("cuda:3", Device.CudaAt(3).ToString());
            Assert.AreEqual("cuda:0", new Device(DeviceType.Cuda, 0).ToString());
        }

        [Test]
        public void BadDeviceStrings()
        {
            foreach (string s in new[] { "cuda:x", "gpu", "", "cuda:", "CPU", "cuda:1:2" })
            {
                Fails(StatusCode.DeviceString, () => Device.Parse(s));
                Device d;
                Assert.IsFalse(Device.TryParse(s, out d), s);
            }
            Assert.Throws<ArgumentNullException>(() => Device.Parse(null));
            Device ok;
            Assert.IsTrue(Device.TryParse("cuda:2", out ok));
            Assert.AreEqual(Device.CudaAt(2), ok);
        }

        [Test]
        public void Equality()
        {
            Assert.AreNotEqual(Device.Parse("cuda"), Device.Parse("cuda:0"));
            Assert.IsTrue(Device.Parse("cuda:0") == new Device(DeviceType.Cuda, 0));
            Assert.IsTrue(Device.Parse("cuda:0") != Device.Parse("cuda:1"));
            Assert.AreEqual(Device.Cpu, default(Device));
            Assert.AreEqual(Device.Cpu, Device.Parse("cpu"));
            Assert.AreNotEqual(Device.Cpu, Device.Parse("cpu:0"));
            Assert.AreEqual(Device.Parse("cuda:1").GetHashCode(), Device.CudaAt(1).GetHashCode());
            Assert.IsTrue(Device.Cuda.Equals((object)new Device(DeviceType.Cuda)));
            Assert.Throws<ArgumentOutOfRangeException>(() => new Device(DeviceType.Cuda, -2));
        }
    }

    [TestFixture]
    public class DTypeTests : TestBase
    {
        /// <summary>Every value of the enum equals the ctorch.h constant of its name (prefix +
        /// the name in capitals, underscores aside), as SWIG exports it.</summary>
        private static void ValuesAreTheHeaders<TEnum>(params string[] prefixes)
        {
            FieldInfo[] constants = typeof(ctorch).GetFields(BindingFlags.Public | BindingFlags.Static);
            foreach (object v in Enum.GetValues(typeof(TEnum)))
            {
                string name = v.ToString().ToUpperInvariant();
                FieldInfo c = prefixes.SelectMany(p => constants.Where(f => f.Name.StartsWith(p, StringComparison.Ordinal) &&
                                                                           f.Name.Substring(p.Length).Replace("_", "") == name))
                                      .FirstOrDefault();
                Assert.IsNotNull(c, typeof(TEnum).Name + "." + v + " has no constant in ctorch.h");
                Assert.AreEqual(c.GetValue(null), Convert.ToInt32(v), c.Name);
            }
        }

        [Test]
        public void EnumValuesAreTheCConstants()
        {
            ValuesAreTheHeaders<DType>("CT_");
            ValuesAreTheHeaders<DeviceType>("CT_");
            ValuesAreTheHeaders<StatusCode>("CT_ERR_", "CT_");
            ValuesAreTheHeaders<CudaDeviceProperty>("CT_PROP_");
        }

        [Test]
        public void NamesItemSizesAndPromotion()
        {
            foreach (DType dt in Enum.GetValues(typeof(DType)))
            {
                Assert.AreEqual("torch." + dt.ToString().ToLowerInvariant(), dt.Name());
                using (Tensor one = Tensor.Empty(new long[] { 1 }, dt))
                    Assert.AreEqual(one.ToBytes().Length, dt.ItemSize(), dt.ToString());
            }
            FailsWithOneOf(() => ((DType)8).ItemSize(), StatusCode.Argument, StatusCode.DType);
            Assert.IsTrue(DType.BFloat16.IsFloatingPoint());
            Assert.IsFalse(DType.Int64.IsFloatingPoint());
            Assert.IsTrue(DType.Complex64.IsComplex());
            Assert.IsFalse(DType.Float64.IsComplex());
            Assert.AreEqual(DType.Int16, Torch.PromoteTypes(DType.UInt8, DType.Int8));
            Assert.AreEqual(DType.Complex128, DTypes.Promote(DType.Complex64, DType.Float64));
        }

        [Test]
        public void ManagedElementTypes()
        {
            Assert.AreEqual(DType.Float32, DTypes.Of<float>());
            Assert.AreEqual(DType.Float64, DTypes.Of<double>());
            Assert.AreEqual(DType.Int64, DTypes.Of<long>());
            Assert.AreEqual(DType.Int32, DTypes.Of<int>());
            Assert.AreEqual(DType.Int16, DTypes.Of<short>());
            Assert.AreEqual(DType.Int8, DTypes.Of<sbyte>());
            Assert.AreEqual(DType.UInt8, DTypes.Of<byte>());
            Assert.AreEqual(DType.Bool, DTypes.Of<bool>());
            Assert.AreEqual(DType.Complex128, DTypes.Of<System.Numerics.Complex>());
            Assert.Throws<ArgumentException>(() => DTypes.Of<decimal>());
            Assert.Throws<ArgumentException>(() => DTypes.Of(typeof(ulong)));
        }
    }

    [TestFixture]
    public class CudaTests : TestBase
    {
        [Test]
        public void AvailabilityIsConsistent()
        {
            bool available = Cuda.IsAvailable;
            int count = Cuda.DeviceCount;
            Assert.AreEqual(available, count > 0);
            if (available)
            {
                Cuda.CheckAvailable();
                Assert.IsFalse(string.IsNullOrEmpty(Cuda.GetDeviceName(0)));
                var (major, minor) = Cuda.GetDeviceCapability(0);
                Assert.GreaterOrEqual(major, 3);
                Assert.GreaterOrEqual(minor, 0);
                CudaDeviceProperties p = Cuda.GetDeviceProperties(0);
                Assert.AreEqual(major, p.Major);
                Assert.AreEqual(minor, p.Minor);
                Assert.AreEqual(32, p.WarpSize);
                Assert.Greater(p.TotalMemory, 1L << 30);
                Assert.Greater(p.MultiProcessorCount, 0);
                Assert.AreEqual(Cuda.GetDeviceName(0), p.Name);
                Assert.Greater(p.L2CacheSize, 0L);
                Assert.Greater(p.MaxThreadsPerMultiProcessor, 0);
                Assert.AreEqual(Cuda.GetDeviceProperty(0, CudaDeviceProperty.IsIntegrated) != 0, p.IsIntegrated);
                Assert.AreEqual(Cuda.GetDeviceProperty(0, CudaDeviceProperty.PciBusId), p.PciBusId);
                Fails(StatusCode.Index, () => Cuda.GetDeviceName(count));
                Fails(StatusCode.Argument, () => Cuda.GetDeviceProperty(0, (CudaDeviceProperty)99));
            }
        }

        [Test]
        public void WithoutGpuEveryCudaCallFailsWith301()
        {
            if (Cuda.IsAvailable) Assert.Ignore("a GPU is present");
            Assert.AreEqual(0, Cuda.DeviceCount);
            Fails(StatusCode.CudaUnavailable, () => Cuda.CheckAvailable());
            Fails(StatusCode.CudaUnavailable, () => Cuda.GetDeviceName(0));
            Fails(StatusCode.CudaUnavailable, () => Cuda.GetDeviceCapability(0));
            Fails(StatusCode.CudaUnavailable, () => Cuda.GetDeviceProperty(0, CudaDeviceProperty.TotalMemory));
            Fails(StatusCode.CudaUnavailable, () => Cuda.GetDeviceProperties(0));
            Fails(StatusCode.CudaUnavailable, () => Tensor.Zeros(new long[] { 2 }, Device.Cuda));
            using (Tensor t = Tensor.Ones(3))
            {
                Fails(StatusCode.CudaUnavailable, () => t.Cuda());
                Fails(StatusCode.CudaUnavailable, () => t.To("cuda:0"));
            }
        }
    }

    [TestFixture]
    public class TorchTests : TestBase
    {
        [Test]
        public void Version()
        {
            Assert.AreEqual(new Version(0, 1, 0), Torch.HeaderVersion);
            Assert.AreEqual(Torch.HeaderVersion.Major, Torch.Version.Major);
            Assert.GreaterOrEqual(Torch.Version.Minor, Torch.HeaderVersion.Minor);
        }

        [Test]
        public void NumThreads()
        {
            int before = Torch.NumThreads;
            Assert.GreaterOrEqual(before, 1);
            try
            {
                Torch.NumThreads = 1;
                Assert.AreEqual(1, Torch.NumThreads);
                Torch.NumThreads = 3;
                Assert.AreEqual(3, Torch.NumThreads);
                Fails(StatusCode.Argument, () => Torch.NumThreads = 0);
                Assert.AreEqual(3, Torch.NumThreads);
            }
            finally
            {
                Torch.NumThreads = before;
            }
        }

        [Test]
        public void LiveTensorCountFollowsCreateAndDispose()
        {
            long n0 = Torch.LiveTensorCount;
            Tensor a = Tensor.Zeros(2);
            Assert.AreEqual(n0 + 1, Torch.LiveTensorCount);
            Tensor v = a.View(1, 2);
            Assert.AreEqual(n0 + 2, Torch.LiveTensorCount);
            a.Dispose();
            Assert.AreEqual(n0 + 1, Torch.LiveTensorCount);
            v.Dispose();
            Assert.AreEqual(n0, Torch.LiveTensorCount);
        }

        [Test]
        public void StatusNamesAndLastError()
        {
            Assert.AreEqual("CT_OK", Torch.StatusName(0));
            Assert.AreEqual("CT_ERR_SHAPE", Torch.StatusName(103));
            Assert.AreEqual("CT_ERR_OUT_OF_MEMORY", Torch.StatusName(StatusCode.OutOfMemory));
            Assert.AreEqual("CT_UNKNOWN", Torch.StatusName(12345));
            // Every code of the enum is one the library knows, under a name of its own.
            string[] names = Enum.GetValues(typeof(StatusCode)).Cast<StatusCode>().Select(Torch.StatusName).ToArray();
            CollectionAssert.DoesNotContain(names, "CT_UNKNOWN");
            CollectionAssert.AllItemsAreUnique(names);

            Torch.ClearError();
            Assert.AreEqual(StatusCode.Ok, Torch.LastErrorCode);
            Assert.AreEqual("", Torch.LastErrorMessage);
            CtorchException e = Fails(StatusCode.DeviceString, () => Device.Parse("gpu"));
            Assert.AreEqual(StatusCode.DeviceString, Torch.LastErrorCode);
            Assert.AreEqual(e.NativeMessage, Torch.LastErrorMessage);
            Torch.ClearError();
            Assert.AreEqual(StatusCode.Ok, Torch.LastErrorCode);
            Assert.AreEqual("", Torch.LastErrorMessage);
        }
    }
}
