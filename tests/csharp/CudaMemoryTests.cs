// torch.cuda's memory functions over the caching allocator (ctorch.h section 15) as the binding
// adds them: what works without a GPU (the backend name, argument checks, deleting an unknown
// address) on every machine, every function's 301 where there is no GPU, and on a GPU host
// (skipped visibly elsewhere) the int and Device overloads reading the same device, the
// statistics dictionary, the strings, raw allocations and CtorchOutOfMemoryException. The
// allocator's policy (pools, segment sizes, rounding; docs/memory.md) is the C suite's
// (tests/capi/memory_test.c); the sizes here only rely on a 5 MiB request being 5 MiB allocated.
using System;
using System.Collections.Generic;
using System.Linq;
using Ctorch;
using Ctorch.Swig;
using NUnit.Framework;

namespace Ctorch.Tests
{
    [TestFixture]
    public class CudaMemoryTests : TestBase
    {
        private const long MiB = 1024 * 1024;

        // A float32 tensor of exactly `bytes` bytes on the current CUDA device.
        private static Tensor CudaBytes(long bytes) => Tensor.Empty(new[] { bytes / 4 }, DType.Float32, Device.Cuda);

        // ------------------------------------------------------------ every machine

        [Test]
        public void AllocatorBackendIsNative()
        {
            string conf = Environment.GetEnvironmentVariable("CTORCH_CUDA_ALLOC_CONF") ?? "";
            string expected = conf.Contains("backend:cudaMallocAsync") ? "cudaMallocAsync" : "native";
            Assert.AreEqual(expected, Cuda.GetAllocatorBackend());

            // The string convention underneath: cap 0 gives CT_ERR_BUFFER_SIZE and the length.
            long needed;
            Assert.AreEqual(106, ctorch.ct_cuda_get_allocator_backend(IntPtr.Zero, 0, out needed));
            Assert.AreEqual(expected.Length, needed);
        }

        [Test]
        public void CachingAllocatorDeleteOfAnUnknownAddressIsAnArgumentError()
        {
            // The address is checked before anything needs a GPU, so this is 100 everywhere.
            CtorchException e = Fails(StatusCode.Argument, () => Cuda.CachingAllocatorDelete(0x12345600L));
            StringAssert.Contains("0x12345600", e.NativeMessage);
            StringAssert.Contains("ct_cuda_caching_allocator_alloc", e.NativeMessage);
            Fails(StatusCode.Argument, () => Cuda.CachingAllocatorDelete(new IntPtr(0x7f0000001000L)));
            Fails(StatusCode.Argument, () => Cuda.CachingAllocatorDelete(0L));
            Fails(StatusCode.Argument, () => Cuda.CachingAllocatorDelete(IntPtr.Zero));
            Fails(StatusCode.Argument, () => Cuda.CachingAllocatorDelete(-1L));
            Assert.AreEqual(100, ctorch.ct_cuda_caching_allocator_delete(0x12345600L));
        }

        [Test]
        public void CachingAllocatorAllocNeedsAPositiveSize()
        {
            // Checked before the device, so this is 100 everywhere.
            CtorchException e = Fails(StatusCode.Argument, () => Cuda.CachingAllocatorAlloc(0));
            StringAssert.Contains("size must be positive", e.NativeMessage);
            Fails(StatusCode.Argument, () => Cuda.CachingAllocatorAlloc(-512));
            Fails(StatusCode.Argument, () => Cuda.CachingAllocatorAlloc(0, Device.Cuda));
            long ptr;
            Assert.AreEqual(100, ctorch.ct_cuda_caching_allocator_alloc(0, -1, IntPtr.Zero, out ptr));
        }

        [Test]
        public void ManagedArgumentChecks()
        {
            Device cpu = Device.Cpu;
            Assert.Throws<ArgumentException>(() => Cuda.MemoryAllocated(cpu));
            Assert.Throws<ArgumentException>(() => Cuda.MaxMemoryAllocated(cpu));
            Assert.Throws<ArgumentException>(() => Cuda.MemoryReserved(cpu));
            Assert.Throws<ArgumentException>(() => Cuda.MaxMemoryReserved(cpu));
            Assert.Throws<ArgumentException>(() => Cuda.ResetPeakMemoryStats(cpu));
            Assert.Throws<ArgumentException>(() => Cuda.ResetMaxMemoryAllocated(cpu));
            Assert.Throws<ArgumentException>(() => Cuda.ResetAccumulatedMemoryStats(cpu));
            Assert.Throws<ArgumentException>(() => Cuda.MemoryStat("allocated_bytes.all.current", cpu));
            Assert.Throws<ArgumentException>(() => Cuda.MemoryStats(cpu));
            Assert.Throws<ArgumentException>(() => Cuda.MemorySnapshot(cpu));
            Assert.Throws<ArgumentException>(() => Cuda.MemorySummary(cpu));
            Assert.Throws<ArgumentException>(() => Cuda.MemorySummary(cpu, true));
            Assert.Throws<ArgumentException>(() => Cuda.SetPerProcessMemoryFraction(0.5, cpu));
            Assert.Throws<ArgumentException>(() => Cuda.CachingAllocatorAlloc(512, cpu));
            Assert.Throws<ArgumentNullException>(() => Cuda.MemoryStat(null));
            Assert.Throws<ArgumentNullException>(() => Cuda.MemoryStat(null, Device.Cuda));
        }

        // Only the failures: a successful LoadAllocator would change the allocator of this test
        // process. The library and its symbols are checked before anything else, so these are
        // the same on every machine.
        [Test]
        public void LoadAllocatorFailures()
        {
            CtorchException e = Fails(StatusCode.Argument, () => Cuda.LoadAllocator("/nonexistent/liballoc.so", "a", "f"));
            StringAssert.Contains("cannot load the allocator library '/nonexistent/liballoc.so'", e.NativeMessage);
            e = Fails(StatusCode.Argument, () => Cuda.LoadAllocator("libm.so.6", "no_such_alloc", "cos"));
            StringAssert.Contains("has no function 'no_such_alloc'", e.NativeMessage);
            e = Fails(StatusCode.Argument, () => Cuda.LoadAllocator("libm.so.6", "cos", "no_such_free"));
            StringAssert.Contains("has no function 'no_such_free'", e.NativeMessage);
            Assert.AreEqual(100, ctorch.ct_cuda_load_allocator("/nonexistent/liballoc.so", "a", "f"));
            // The function-pointer form has no idiomatic wrapper (C# installs an allocator from a
            // library, as above); SWIG's raw layer reaches it, and null functions are refused.
            Assert.AreEqual(101, ctorch.ct_cuda_set_allocator(null, null, null));

            // Checked in C# before the call: null, and a NUL that would cut the C string short.
            Assert.Throws<ArgumentNullException>(() => Cuda.LoadAllocator(null, "a", "f"));
            Assert.Throws<ArgumentNullException>(() => Cuda.LoadAllocator("libm.so.6", null, "f"));
            Assert.Throws<ArgumentNullException>(() => Cuda.LoadAllocator("libm.so.6", "a", null));
            var x = Assert.Throws<ArgumentException>(() => Cuda.LoadAllocator("lib\0m.so", "a", "f"));
            Assert.AreEqual("path", x.ParamName);
            x = Assert.Throws<ArgumentException>(() => Cuda.LoadAllocator("libm.so.6", "co\0s", "sin"));
            Assert.AreEqual("allocSymbol", x.ParamName);
            x = Assert.Throws<ArgumentException>(() => Cuda.LoadAllocator("libm.so.6", "cos", "si\0n"));
            Assert.AreEqual("freeSymbol", x.ParamName);

            // Nothing was installed.
            string conf = Environment.GetEnvironmentVariable("CTORCH_CUDA_ALLOC_CONF") ?? "";
            Assert.AreEqual(conf.Contains("backend:cudaMallocAsync") ? "cudaMallocAsync" : "native",
                            Cuda.GetAllocatorBackend());
        }

        // ------------------------------------------------------------ without a GPU

        [Test]
        public void WithoutGpuMemoryCallsFailWith301()
        {
            RequireNoGpu();
            // Every function through its int overload (-1: the current device, 0) and its Device one.
            Action<int>[] byIndex =
            {
                d => Cuda.MemoryAllocated(d), d => Cuda.MaxMemoryAllocated(d), d => Cuda.MemoryReserved(d),
                d => Cuda.MaxMemoryReserved(d), d => Cuda.ResetPeakMemoryStats(d), d => Cuda.ResetMaxMemoryAllocated(d),
                d => Cuda.ResetAccumulatedMemoryStats(d), d => Cuda.MemoryStat("allocated_bytes.all.current", d),
                d => Cuda.MemoryStat("no.such.key", d), d => Cuda.MemoryStats(d), d => Cuda.MemorySnapshot(d),
                d => Cuda.MemorySummary(d), d => Cuda.MemorySummary(d, true), d => Cuda.SetPerProcessMemoryFraction(0.5, d),
                d => Cuda.SetPerProcessMemoryFraction(2.0, d), d => Cuda.CachingAllocatorAlloc(MiB, d),
            };
            Action<Device>[] byDevice =
            {
                d => Cuda.MemoryAllocated(d), d => Cuda.MaxMemoryAllocated(d), d => Cuda.MemoryReserved(d),
                d => Cuda.MaxMemoryReserved(d), d => Cuda.ResetPeakMemoryStats(d), d => Cuda.ResetMaxMemoryAllocated(d),
                d => Cuda.ResetAccumulatedMemoryStats(d), d => Cuda.MemoryStat("reserved_bytes.all.peak", d),
                d => Cuda.MemoryStats(d), d => Cuda.MemorySnapshot(d), d => Cuda.MemorySummary(d),
                d => Cuda.MemorySummary(d, abbreviated: true), d => Cuda.SetPerProcessMemoryFraction(0.5, d),
                d => Cuda.CachingAllocatorAlloc(512, d),
            };
            foreach (int d in new[] { -1, 0 })
                foreach (Action<int> f in byIndex) Unavailable(() => f(d));
            foreach (Device d in new[] { Device.Cuda, Device.CudaAt(0) })
                foreach (Action<Device> f in byDevice) Unavailable(() => f(d));
            Unavailable(() => Cuda.EmptyCache());
            Unavailable(() => Cuda.CachingAllocatorAlloc(100, -1, null));
            Unavailable(() => Cuda.MemorySummary());
            long needed;
            Assert.AreEqual(301, ctorch.ct_cuda_memory_stats_keys(-1, IntPtr.Zero, 0, out needed));
        }

        // ------------------------------------------------------------ on a GPU

        [Test]
        public void StatisticsAndTheirOverloads()
        {
            RequireGpu();
            Cuda.EmptyCache();
            Cuda.ResetPeakMemoryStats();
            Cuda.ResetAccumulatedMemoryStats();
            long a0 = Cuda.MemoryAllocated(), r0 = Cuda.MemoryReserved();
            int cur = Cuda.CurrentDevice;
            using (Tensor t = CudaBytes(5 * MiB))
            {
                Assert.AreEqual(a0 + 5 * MiB, Cuda.MemoryAllocated());
                Assert.AreEqual(a0 + 5 * MiB, Cuda.MemoryAllocated(Device.Cuda));
                Assert.AreEqual(a0 + 5 * MiB, Cuda.MemoryAllocated(cur));
                Assert.AreEqual(a0 + 5 * MiB, Cuda.MaxMemoryAllocated(Device.CudaAt(cur)));
                Assert.Greater(Cuda.MemoryReserved(cur), r0);
                SortedDictionary<string, long> stats = Cuda.MemoryStats();
                Assert.AreEqual(Cuda.MemoryAllocated(), stats["allocated_bytes.all.current"]);
                Assert.AreEqual(Cuda.MaxMemoryAllocated(cur), stats["allocated_bytes.all.peak"]);
                Assert.AreEqual(Cuda.MemoryReserved(Device.Cuda), stats["reserved_bytes.all.current"]);
                Assert.AreEqual(Cuda.MaxMemoryReserved(Device.Cuda), stats["reserved_bytes.all.peak"]);
                Assert.AreEqual(Cuda.MaxMemoryReserved(cur), Cuda.MaxMemoryReserved());
                // PyTorch's key order (by code point), every value as MemoryStat gives it.
                string[] keys = stats.Keys.ToArray(), sorted = (string[])keys.Clone();
                Array.Sort(sorted, StringComparer.Ordinal);
                CollectionAssert.AreEqual(sorted, keys);
                foreach (KeyValuePair<string, long> kv in stats) Assert.AreEqual(kv.Value, Cuda.MemoryStat(kv.Key), kv.Key);
                CollectionAssert.AreEqual(stats, Cuda.MemoryStats(Device.Cuda));
                CollectionAssert.AreEqual(stats, Cuda.MemoryStats(cur));
                Assert.AreEqual(5 * MiB, Cuda.MemoryStat("allocated_bytes.all.allocated", Device.Cuda));
                StringAssert.Contains("allocated_bytes.all.nope",
                                      Fails(StatusCode.Argument, () => Cuda.MemoryStat("allocated_bytes.all.nope")).NativeMessage);
                Fails(StatusCode.Index, () => Cuda.MemoryStats(Cuda.DeviceCount));

                // The summary: PyTorch's table, abbreviated without the per-pool rows.
                string full = Cuda.MemorySummary(cur), brief = Cuda.MemorySummary(cur, abbreviated: true);
                StringAssert.Contains("ctorch CUDA memory summary, device ID " + cur, full);
                StringAssert.Contains("from large pool", full);
                StringAssert.DoesNotContain("from large pool", brief);
                Assert.AreEqual(full, Cuda.MemorySummary(Device.CudaAt(cur)));
                Assert.AreEqual(brief, Cuda.MemorySummary(Device.CudaAt(cur), true));
                Assert.AreEqual(full, Cuda.MemorySummary());
                long needed;
                Assert.AreEqual(106, ctorch.ct_cuda_memory_summary(cur, 0, IntPtr.Zero, 0, out needed));
                Assert.AreEqual(full.Length, needed);
            }
            // The resets: peaks down to the current values, totals to 0; every overload.
            Cuda.ResetPeakMemoryStats(cur);
            Assert.AreEqual(a0, Cuda.MaxMemoryAllocated());
            Cuda.ResetAccumulatedMemoryStats(Device.Cuda);
            Assert.AreEqual(0, Cuda.MemoryStat("allocated_bytes.all.allocated"));
            Cuda.ResetMaxMemoryAllocated();
            Cuda.ResetMaxMemoryAllocated(Device.Cuda);
            Cuda.ResetPeakMemoryStats(Device.Cuda);
            Cuda.ResetAccumulatedMemoryStats(cur);
            Cuda.EmptyCache();
            Assert.AreEqual(r0, Cuda.MemoryReserved());
        }

        [Test]
        public void RawAllocationsFromTheCachingAllocator()
        {
            RequireGpu();
            Cuda.EmptyCache();
            long a0 = Cuda.MemoryAllocated();
            long p = Cuda.CachingAllocatorAlloc(3 * MiB);
            Assert.AreEqual(0, p % 256, "device memory is at least 256-byte aligned");
            Assert.AreEqual(a0 + 3 * MiB, Cuda.MemoryAllocated());
            string block = "{\"address\": " + p + ", \"size\": " + 3 * MiB + ", \"state\": \"active_allocated\"}";
            string snap = Cuda.MemorySnapshot();
            StringAssert.StartsWith("{\"device\": " + Cuda.CurrentDevice + ", \"segments\": [", snap);
            StringAssert.Contains(block, snap);
            Assert.AreEqual(snap, Cuda.MemorySnapshot(Device.Cuda));
            Cuda.CachingAllocatorDelete(p);
            Assert.AreEqual(a0, Cuda.MemoryAllocated());
            StringAssert.DoesNotContain(block, Cuda.MemorySnapshot());
            StringAssert.Contains("freed already", Fails(StatusCode.Argument, () => Cuda.CachingAllocatorDelete(p)).NativeMessage);
            using (var side = new CudaStream())
            {
                long q = Cuda.CachingAllocatorAlloc(1000, -1, side);
                Cuda.CachingAllocatorDelete(new IntPtr(q));
                long r = Cuda.CachingAllocatorAlloc(2 * MiB, Device.Cuda, side);
                Assert.AreEqual(a0 + 2 * MiB, Cuda.MemoryAllocated());
                Cuda.CachingAllocatorDelete(r);
                side.Dispose();
                Assert.Throws<ObjectDisposedException>(() => Cuda.CachingAllocatorAlloc(512, -1, side));
            }
            Assert.AreEqual(a0, Cuda.MemoryAllocated());
            Cuda.EmptyCache();
        }

        [Test]
        public void OutOfMemoryUnderAFractionIsItsOwnException()
        {
            RequireGpu();
            Cuda.EmptyCache();
            long total = Cuda.MemGetInfo().Total, r0 = Cuda.MemoryReserved();
            try
            {
                Cuda.SetPerProcessMemoryFraction((double)(r0 + 30 * MiB) / total);
                long ooms = Cuda.MemoryStat("num_ooms");
                var e = Assert.Throws<CtorchOutOfMemoryException>(() => CudaBytes(64 * MiB));
                Assert.AreEqual(StatusCode.OutOfMemory, e.Code);
                Assert.AreEqual("CT_ERR_OUT_OF_MEMORY", e.StatusName);
                StringAssert.Contains("out of memory", e.NativeMessage);
                Assert.AreEqual(ooms + 1, Cuda.MemoryStat("num_ooms"));
                Assert.Throws<CtorchOutOfMemoryException>(() => Cuda.CachingAllocatorAlloc(64 * MiB));
                Fails(StatusCode.Argument, () => Cuda.SetPerProcessMemoryFraction(1.5));
                Fails(StatusCode.Index, () => Cuda.SetPerProcessMemoryFraction(0.5, Cuda.DeviceCount));
            }
            finally
            {
                Cuda.SetPerProcessMemoryFraction(1.0);
            }
            Cuda.SetPerProcessMemoryFraction(1.0, Device.Cuda);
            using (Tensor t = CudaBytes(64 * MiB)) { }
            Cuda.EmptyCache();
        }

        [Test]
        public void LoadAllocatorAfterTheFirstCudaAllocationIsAStateError()
        {
            RequireGpu();
            using (Tensor t = CudaBytes(1024)) { }
            CtorchException e = Fails(StatusCode.State, () => Cuda.LoadAllocator("libm.so.6", "cos", "sin"));
            StringAssert.Contains("before the first CUDA allocation", e.NativeMessage);
            Assert.AreNotEqual("pluggable", Cuda.GetAllocatorBackend());
        }

        [Test]
        public void PerStreamStatistics()
        {
            RequireGpu();
            Cuda.EmptyCache();
            Cuda.ResetAccumulatedMemoryStats();
            using (var s = new CudaStream())
            {
                Assert.AreEqual(0, s.MemoryStat("allocation.allocated"), "a new stream has allocated nothing");
                using (Cuda.UseStream(s))
                using (Tensor b = Tensor.Empty(new long[] { 3 * MiB }, DType.UInt8, Device.Cuda))
                    Assert.AreEqual(3 * MiB, s.MemoryStat("allocated_bytes.current"));
                Assert.AreEqual(0, s.MemoryStat("allocated_bytes.current"));
                Assert.AreEqual(3 * MiB, s.MemoryStat("allocated_bytes.freed"));
                StringAssert.Contains("unknown per-stream memory statistic 'allocated_bytes.all.current'",
                                      Fails(StatusCode.Argument, () => s.MemoryStat("allocated_bytes.all.current")).NativeMessage);
                Assert.Throws<ArgumentNullException>(() => s.MemoryStat(null));
                s.Dispose();
                Assert.Throws<ObjectDisposedException>(() => s.MemoryStat("allocated_bytes.current"));
            }
            Cuda.EmptyCache();
        }

        [Test]
        public void StatisticsArePerDevice()
        {
            RequireGpu(2);
            long a0 = Cuda.MemoryAllocated(0), a1 = Cuda.MemoryAllocated(1);
            using (Tensor t = Tensor.Empty(new[] { 5 * MiB / 4 }, DType.Float32, Device.CudaAt(1)))
            {
                Assert.AreEqual(a0, Cuda.MemoryAllocated(0));
                Assert.AreEqual(a1 + 5 * MiB, Cuda.MemoryAllocated(Device.CudaAt(1)));
                StringAssert.StartsWith("{\"device\": 1, ", Cuda.MemorySnapshot(1));
            }
            using (var s1 = new CudaStream(1))
            {
                Fails(StatusCode.Device, () => Cuda.CachingAllocatorAlloc(512, 0, s1));
                Cuda.CachingAllocatorDelete(Cuda.CachingAllocatorAlloc(512, 1, s1));
            }
            Cuda.EmptyCache();
        }
    }
}
