// torch.cuda's memory functions over the caching allocator (ctorch.h section 15). What works
// without a GPU (the backend name, argument checks, deleting an unknown address) is checked on
// every machine, the 301 errors where there is no GPU (memory_summary included); the statistics
// and the summary table themselves on a GPU host (skipped visibly elsewhere). Sizes follow
// PyTorch's policy (docs/memory.md): requests above 1 MiB come from the large pool in 20 MiB
// segments (under 10 MiB), smaller ones from the small pool in 2 MiB segments, rounded up to
// 512 bytes.
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
        private const string LargeAllocated = "allocated_bytes.large_pool.current";
        private const string LargeReserved = "reserved_bytes.large_pool.current";
        private const string SmallAllocated = "allocated_bytes.small_pool.current";

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
            foreach (int d in new[] { -1, 0 })
            {
                Unavailable(() => Cuda.MemoryAllocated(d));
                Unavailable(() => Cuda.MaxMemoryAllocated(d));
                Unavailable(() => Cuda.MemoryReserved(d));
                Unavailable(() => Cuda.MaxMemoryReserved(d));
                Unavailable(() => Cuda.ResetPeakMemoryStats(d));
                Unavailable(() => Cuda.ResetMaxMemoryAllocated(d));
                Unavailable(() => Cuda.ResetAccumulatedMemoryStats(d));
                Unavailable(() => Cuda.MemoryStat("allocated_bytes.all.current", d));
                Unavailable(() => Cuda.MemoryStat("no.such.key", d));   // the device fails first
                Unavailable(() => Cuda.MemoryStats(d));
                Unavailable(() => Cuda.MemorySnapshot(d));
                Unavailable(() => Cuda.MemorySummary(d));
                Unavailable(() => Cuda.MemorySummary(d, true));
                Unavailable(() => Cuda.SetPerProcessMemoryFraction(0.5, d));
                Unavailable(() => Cuda.SetPerProcessMemoryFraction(2.0, d));  // so does it here
                Unavailable(() => Cuda.CachingAllocatorAlloc(MiB, d));
            }
            foreach (Device d in new[] { Device.Cuda, Device.CudaAt(0) })
            {
                Unavailable(() => Cuda.MemoryAllocated(d));
                Unavailable(() => Cuda.MaxMemoryAllocated(d));
                Unavailable(() => Cuda.MemoryReserved(d));
                Unavailable(() => Cuda.MaxMemoryReserved(d));
                Unavailable(() => Cuda.ResetPeakMemoryStats(d));
                Unavailable(() => Cuda.ResetMaxMemoryAllocated(d));
                Unavailable(() => Cuda.ResetAccumulatedMemoryStats(d));
                Unavailable(() => Cuda.MemoryStat("reserved_bytes.all.peak", d));
                Unavailable(() => Cuda.MemoryStats(d));
                Unavailable(() => Cuda.MemorySnapshot(d));
                Unavailable(() => Cuda.MemorySummary(d));
                Unavailable(() => Cuda.MemorySummary(d, abbreviated: true));
                Unavailable(() => Cuda.SetPerProcessMemoryFraction(0.5, d));
                Unavailable(() => Cuda.CachingAllocatorAlloc(512, d));
            }
            Unavailable(() => Cuda.EmptyCache());
            Unavailable(() => Cuda.CachingAllocatorAlloc(100, -1, null));
            Unavailable(() => Cuda.MemorySummary());

            // The raw layer: the same status.
            long v, needed, ptr;
            Assert.AreEqual(301, ctorch.ct_cuda_memory_allocated(-1, out v));
            Assert.AreEqual(301, ctorch.ct_cuda_memory_stat(0, "allocated_bytes.all.current", out v));
            Assert.AreEqual(301, ctorch.ct_cuda_memory_stats_keys(-1, IntPtr.Zero, 0, out needed));
            Assert.AreEqual(301, ctorch.ct_cuda_memory_snapshot(-1, IntPtr.Zero, 0, out needed));
            Assert.AreEqual(301, ctorch.ct_cuda_memory_summary(-1, 0, IntPtr.Zero, 0, out needed));
            Assert.AreEqual(301, ctorch.ct_cuda_memory_summary(0, 1, IntPtr.Zero, 0, out needed));
            Assert.AreEqual(301, ctorch.ct_cuda_empty_cache());
            Assert.AreEqual(301, ctorch.ct_cuda_caching_allocator_alloc(512, -1, IntPtr.Zero, out ptr));
        }

        // ------------------------------------------------------------ on a GPU

        [Test]
        public void TensorMemoryStaysReservedUntilEmptyCache()
        {
            RequireGpu();
            Cuda.EmptyCache();
            Assert.AreEqual(0, Cuda.MemoryStat(LargeAllocated), "no large block in use at the start");
            Assert.AreEqual(0, Cuda.MemoryStat(LargeReserved), "no large segment after empty_cache()");
            long allocated0 = Cuda.MemoryAllocated(), reserved0 = Cuda.MemoryReserved();

            Tensor t = CudaBytes(5 * MiB);
            Assert.AreEqual(5 * MiB, Cuda.MemoryStat(LargeAllocated));
            Assert.AreEqual(20 * MiB, Cuda.MemoryStat(LargeReserved));       // one 20 MiB segment
            Assert.AreEqual(allocated0 + 5 * MiB, Cuda.MemoryAllocated());
            Assert.AreEqual(reserved0 + 20 * MiB, Cuda.MemoryReserved());
            Assert.AreEqual(allocated0 + 5 * MiB, Cuda.MemoryAllocated(Device.Cuda));
            Assert.AreEqual(allocated0 + 5 * MiB, Cuda.MemoryAllocated(Cuda.CurrentDevice));
            Assert.AreEqual(allocated0 + 5 * MiB, Cuda.MemoryAllocated(Device.CudaAt(Cuda.CurrentDevice)));

            // Freed: no longer allocated, still reserved (cached for reuse) ...
            t.Dispose();
            Assert.AreEqual(0, Cuda.MemoryStat(LargeAllocated));
            Assert.AreEqual(20 * MiB, Cuda.MemoryStat(LargeReserved));
            Assert.AreEqual(allocated0, Cuda.MemoryAllocated());
            Assert.AreEqual(reserved0 + 20 * MiB, Cuda.MemoryReserved());

            // ... and reused by the next request that fits, without reserving more.
            using (Tensor u = CudaBytes(8 * MiB))
            {
                Assert.AreEqual(8 * MiB, Cuda.MemoryStat(LargeAllocated));
                Assert.AreEqual(20 * MiB, Cuda.MemoryStat(LargeReserved));
            }

            // empty_cache() gives the unused segment back.
            Cuda.EmptyCache();
            Assert.AreEqual(0, Cuda.MemoryStat(LargeReserved));
            Assert.AreEqual(reserved0, Cuda.MemoryReserved());
        }

        [Test]
        public void MemoryStatsAgreeWithTheSingleCalls()
        {
            RequireGpu();
            Cuda.EmptyCache();
            using (Tensor t = CudaBytes(5 * MiB))
            {
                SortedDictionary<string, long> stats = Cuda.MemoryStats();
                Assert.AreEqual(Cuda.MemoryAllocated(), stats["allocated_bytes.all.current"]);
                Assert.AreEqual(Cuda.MaxMemoryAllocated(), stats["allocated_bytes.all.peak"]);
                Assert.AreEqual(Cuda.MemoryReserved(), stats["reserved_bytes.all.current"]);
                Assert.AreEqual(Cuda.MaxMemoryReserved(), stats["reserved_bytes.all.peak"]);
                Assert.AreEqual(5 * MiB, stats[LargeAllocated]);
                Assert.AreEqual(20 * MiB, stats[LargeReserved]);
                foreach (string key in new[] { "num_alloc_retries", "num_ooms", "allocation.all.current",
                                               "segment.large_pool.current", "reserved_bytes.small_pool.peak",
                                               "active_bytes.all.current", "inactive_split_bytes.all.current" })
                    Assert.IsTrue(stats.ContainsKey(key), "memory_stats has " + key);

                // PyTorch's key order (sorted by code point), every value as MemoryStat gives it.
                string[] keys = stats.Keys.ToArray();
                string[] sorted = (string[])keys.Clone();
                Array.Sort(sorted, StringComparer.Ordinal);
                CollectionAssert.AreEqual(sorted, keys);
                Assert.That(keys.Length, Is.GreaterThan(50));
                foreach (KeyValuePair<string, long> kv in stats)
                    Assert.AreEqual(kv.Value, Cuda.MemoryStat(kv.Key), kv.Key);

                // The Device overloads read the same device.
                CollectionAssert.AreEqual(stats, Cuda.MemoryStats(Device.Cuda));
                CollectionAssert.AreEqual(stats, Cuda.MemoryStats(Device.CudaAt(Cuda.CurrentDevice)));
                Assert.AreEqual(5 * MiB, Cuda.MemoryStat(LargeAllocated, Device.Cuda));

                // An unknown key is an argument error naming the key.
                CtorchException e = Fails(StatusCode.Argument, () => Cuda.MemoryStat("allocated_bytes.all.nope"));
                StringAssert.Contains("allocated_bytes.all.nope", e.NativeMessage);
                Fails(StatusCode.Argument, () => Cuda.MemoryStat(""));
                Fails(StatusCode.Argument, () => Cuda.MemoryStat("Allocated_Bytes.All.Current"));
                long v;
                Assert.AreEqual(100, ctorch.ct_cuda_memory_stat(-1, "no_such_key", out v));
                // A device that is not visible.
                Fails(StatusCode.Index, () => Cuda.MemoryStats(Cuda.DeviceCount));
                Fails(StatusCode.Index, () => Cuda.MemoryAllocated(Cuda.DeviceCount));
            }
        }

        [Test]
        public void MemorySummaryIsPyTorchsTable()
        {
            RequireGpu();
            Cuda.EmptyCache();
            using (Tensor t = Tensor.Empty(new[] { 5 * MiB / 4 }, DType.Float32, Device.CudaAt(0)))
            {
                string full = Cuda.MemorySummary(0);
                StringAssert.Contains("ctorch CUDA memory summary, device ID 0", full);
                StringAssert.Contains("Allocated memory", full);
                StringAssert.Contains("GPU reserved memory", full);
                StringAssert.Contains("from large pool", full);
                StringAssert.Contains("from small pool", full);
                StringAssert.StartsWith("|====", full);
                StringAssert.EndsWith("====|\n", full);
                foreach (string line in full.TrimEnd('\n').Split('\n'))
                {
                    Assert.AreEqual(77, line.Length, "every row is 75 characters between two '|': " + line);
                    StringAssert.StartsWith("|", line);
                    StringAssert.EndsWith("|", line);
                }

                // Abbreviated: the same header and metrics, no per-pool rows.
                string brief = Cuda.MemorySummary(0, abbreviated: true);
                StringAssert.Contains("ctorch CUDA memory summary, device ID 0", brief);
                StringAssert.Contains("Allocated memory", brief);
                StringAssert.DoesNotContain("from large pool", brief);
                StringAssert.DoesNotContain("from small pool", brief);
                Assert.Less(brief.Length, full.Length);

                // The Device overload reads the same device (nothing allocated in between).
                Assert.AreEqual(full, Cuda.MemorySummary(Device.CudaAt(0)));
                Assert.AreEqual(brief, Cuda.MemorySummary(Device.CudaAt(0), true));
                StringAssert.Contains("ctorch CUDA memory summary, device ID " + Cuda.CurrentDevice,
                                      Cuda.MemorySummary());

                // The string convention underneath: cap 0 gives CT_ERR_BUFFER_SIZE and the length.
                long needed;
                Assert.AreEqual(106, ctorch.ct_cuda_memory_summary(0, 0, IntPtr.Zero, 0, out needed));
                Assert.AreEqual(full.Length, needed);
                Fails(StatusCode.Index, () => Cuda.MemorySummary(Cuda.DeviceCount));
            }
            Cuda.EmptyCache();
        }

        [Test]
        public void PeakAndAccumulatedResets()
        {
            RequireGpu();
            Cuda.EmptyCache();
            Cuda.ResetPeakMemoryStats();
            Cuda.ResetAccumulatedMemoryStats();
            long a0 = Cuda.MemoryAllocated(), r0 = Cuda.MemoryReserved();
            Assert.AreEqual(a0, Cuda.MaxMemoryAllocated());
            Assert.AreEqual(r0, Cuda.MaxMemoryReserved());
            Assert.AreEqual(0, Cuda.MemoryStat("allocated_bytes.all.allocated"));
            Assert.AreEqual(0, Cuda.MemoryStat("allocation.all.allocated"));

            using (Tensor t = CudaBytes(5 * MiB)) { }
            using (Tensor t = CudaBytes(3 * MiB)) { }                        // reuses the segment
            Assert.AreEqual(a0, Cuda.MemoryAllocated());
            Assert.AreEqual(a0 + 5 * MiB, Cuda.MaxMemoryAllocated());
            Assert.AreEqual(r0 + 20 * MiB, Cuda.MemoryReserved());
            Assert.AreEqual(r0 + 20 * MiB, Cuda.MaxMemoryReserved());
            Assert.AreEqual(8 * MiB, Cuda.MemoryStat("allocated_bytes.all.allocated"));
            Assert.AreEqual(8 * MiB, Cuda.MemoryStat("allocated_bytes.all.freed"));
            Assert.AreEqual(2, Cuda.MemoryStat("allocation.all.allocated"));
            Assert.AreEqual(1, Cuda.MemoryStat("segment.all.allocated"));

            // Peaks come down to the current values; the totals stay.
            Cuda.ResetPeakMemoryStats();
            Assert.AreEqual(a0, Cuda.MaxMemoryAllocated());
            Assert.AreEqual(r0 + 20 * MiB, Cuda.MaxMemoryReserved());
            Assert.AreEqual(8 * MiB, Cuda.MemoryStat("allocated_bytes.all.allocated"));

            using (Tensor t = CudaBytes(2 * MiB)) Assert.AreEqual(a0 + 2 * MiB, Cuda.MaxMemoryAllocated());
            Cuda.EmptyCache();
            Assert.AreEqual(r0 + 20 * MiB, Cuda.MaxMemoryReserved());    // a peak outlives empty_cache
            Cuda.ResetMaxMemoryAllocated();                              // resets every peak, as PyTorch
            Assert.AreEqual(a0, Cuda.MaxMemoryAllocated());
            Assert.AreEqual(r0, Cuda.MaxMemoryReserved());

            // Totals and counters to 0; current values stay.
            Cuda.ResetAccumulatedMemoryStats(Device.Cuda);
            Assert.AreEqual(0, Cuda.MemoryStat("allocated_bytes.all.allocated"));
            Assert.AreEqual(0, Cuda.MemoryStat("allocated_bytes.all.freed"));
            Assert.AreEqual(0, Cuda.MemoryStat("allocation.all.allocated"));
            Assert.AreEqual(a0, Cuda.MemoryAllocated());
            Cuda.ResetPeakMemoryStats(Cuda.CurrentDevice);
            Cuda.ResetMaxMemoryAllocated(Device.Cuda);
            Cuda.ResetAccumulatedMemoryStats(Cuda.CurrentDevice);
        }

        [Test]
        public void RawAllocationsFromTheCachingAllocator()
        {
            RequireGpu();
            Cuda.EmptyCache();
            long a0 = Cuda.MemoryAllocated(), small0 = Cuda.MemoryStat(SmallAllocated);

            long p = Cuda.CachingAllocatorAlloc(3 * MiB);
            Assert.AreNotEqual(0, p);
            Assert.AreEqual(0, p % 256, "device memory is at least 256-byte aligned");
            Assert.AreEqual(a0 + 3 * MiB, Cuda.MemoryAllocated());
            Assert.AreEqual(3 * MiB, Cuda.MemoryStat(LargeAllocated));

            // The snapshot shows the block at that address in a 20 MiB large segment.
            string snap = Cuda.MemorySnapshot();
            StringAssert.StartsWith("{\"device\": " + Cuda.CurrentDevice + ", \"segments\": [", snap);
            StringAssert.EndsWith("]}", snap);
            StringAssert.Contains("{\"address\": " + p + ", \"size\": " + 3 * MiB + ", \"state\": \"active_allocated\"}", snap);
            StringAssert.Contains("\"total_size\": " + 20 * MiB, snap);
            StringAssert.Contains("\"segment_type\": \"large\"", snap);
            Assert.AreEqual(snap, Cuda.MemorySnapshot(Device.Cuda));

            Cuda.CachingAllocatorDelete(p);
            Assert.AreEqual(a0, Cuda.MemoryAllocated());
            StringAssert.DoesNotContain("{\"address\": " + p + ", \"size\": " + 3 * MiB + ", \"state\": \"active_allocated\"}",
                                        Cuda.MemorySnapshot());
            CtorchException e = Fails(StatusCode.Argument, () => Cuda.CachingAllocatorDelete(p));   // freed already
            StringAssert.Contains("freed already", e.NativeMessage);

            // A small request on a stream of its own: the small pool, rounded up to 512 bytes.
            using (var side = new CudaStream())
            {
                long q = Cuda.CachingAllocatorAlloc(1000, -1, side);
                Assert.AreEqual(small0 + 1024, Cuda.MemoryStat(SmallAllocated));
                StringAssert.Contains("\"address\": " + q + ", \"size\": 1024, ", Cuda.MemorySnapshot());
                Cuda.CachingAllocatorDelete(new IntPtr(q));
                Assert.AreEqual(small0, Cuda.MemoryStat(SmallAllocated));

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
        public void PerProcessMemoryFractionCapsReservations()
        {
            RequireGpu();
            Cuda.EmptyCache();
            long total = Cuda.MemGetInfo().Total;
            long r0 = Cuda.MemoryReserved();
            try
            {
                // Room for one 20 MiB segment above what is reserved now, not for 64 MiB more.
                Cuda.SetPerProcessMemoryFraction((double)(r0 + 30 * MiB) / total);
                long ooms = Cuda.MemoryStat("num_ooms");
                using (Tensor t = CudaBytes(5 * MiB))
                {
                    var e = Assert.Throws<CtorchOutOfMemoryException>(() => CudaBytes(64 * MiB));
                    Assert.AreEqual(StatusCode.OutOfMemory, e.Code);
                    Assert.AreEqual("CT_ERR_OUT_OF_MEMORY", e.StatusName);
                    StringAssert.Contains("out of memory", e.NativeMessage);
                    Assert.AreEqual(ooms + 1, Cuda.MemoryStat("num_ooms"));
                    Assert.Throws<CtorchOutOfMemoryException>(() => Cuda.CachingAllocatorAlloc(64 * MiB));
                    Assert.AreEqual(5 * MiB, Cuda.MemoryStat(LargeAllocated));
                }

                // Outside 0..1: an argument error.
                Fails(StatusCode.Argument, () => Cuda.SetPerProcessMemoryFraction(1.5));
                Fails(StatusCode.Argument, () => Cuda.SetPerProcessMemoryFraction(-0.1));
                Fails(StatusCode.Argument, () => Cuda.SetPerProcessMemoryFraction(double.NaN));
                Fails(StatusCode.Index, () => Cuda.SetPerProcessMemoryFraction(0.5, Cuda.DeviceCount));
            }
            finally
            {
                Cuda.SetPerProcessMemoryFraction(1.0);
            }
            Cuda.SetPerProcessMemoryFraction(1.0, Device.Cuda);
            using (Tensor t = CudaBytes(64 * MiB))
                Assert.AreEqual(64 * MiB, Cuda.MemoryStat(LargeAllocated));
            Cuda.EmptyCache();
        }

        [Test]
        public void LoadAllocatorAfterTheFirstCudaAllocationIsAStateError()
        {
            RequireGpu();
            // After this allocation the choice is frozen, so valid symbols are refused too (and
            // nothing is installed).
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
            Cuda.ResetPeakMemoryStats();
            Cuda.ResetAccumulatedMemoryStats();
            using (var s = new CudaStream())
            using (CudaStream def = CudaStream.Default())
            {
                Assert.AreEqual(0, s.MemoryStat("allocation.allocated"), "a new stream has allocated nothing");
                Assert.AreEqual(0, s.MemoryStat("reserved_bytes.current"));
                long defAllocated = def.MemoryStat("allocated_bytes.current");
                Tensor a, b;
                using (Cuda.UseStream(s))
                {
                    a = Tensor.Empty(new long[] { 1000 }, DType.UInt8, Device.Cuda);
                    b = Tensor.Empty(new long[] { 3 * MiB }, DType.UInt8, Device.Cuda);
                }
                using (Tensor c = Tensor.Empty(new long[] { 512 }, DType.UInt8, Device.Cuda))   // the default stream
                {
                    Assert.AreEqual(2, s.MemoryStat("allocation.current"));
                    Assert.AreEqual(1024 + 3 * MiB, s.MemoryStat("allocated_bytes.current"));
                    Assert.AreEqual(1000 + 3 * MiB, s.MemoryStat("requested_bytes.current"));
                    Assert.AreEqual(2, s.MemoryStat("segment.current"));
                    // A 2 MiB small-pool segment and a 20 MiB large-pool one.
                    Assert.AreEqual(22 * MiB, s.MemoryStat("reserved_bytes.current"));
                    Assert.AreEqual(512, def.MemoryStat("allocated_bytes.current") - defAllocated);
                    Assert.AreEqual(2, s.MemoryStat("active.current"));

                    a.Dispose();
                    b.Dispose();
                    Assert.AreEqual(0, s.MemoryStat("allocated_bytes.current"));
                    Assert.AreEqual(1024 + 3 * MiB, s.MemoryStat("allocated_bytes.peak"));
                    Assert.AreEqual(1024 + 3 * MiB, s.MemoryStat("allocated_bytes.freed"));
                    Assert.AreEqual(2, s.MemoryStat("allocation.allocated"));
                    Assert.AreEqual(22 * MiB, s.MemoryStat("reserved_bytes.current"), "cached, still reserved");

                    CtorchException e = Fails(StatusCode.Argument, () => s.MemoryStat("allocated_bytes.all.current"));
                    StringAssert.Contains("unknown per-stream memory statistic 'allocated_bytes.all.current'", e.NativeMessage);
                    Fails(StatusCode.Argument, () => s.MemoryStat(""));
                    Fails(StatusCode.Argument, () => s.MemoryStat("allocated_bytes"));
                    Assert.Throws<ArgumentNullException>(() => s.MemoryStat(null));

                    Cuda.EmptyCache();
                    Assert.AreEqual(0, s.MemoryStat("reserved_bytes.current"));
                    Cuda.ResetPeakMemoryStats();
                    Assert.AreEqual(0, s.MemoryStat("allocated_bytes.peak"));
                }
                s.Dispose();
                Assert.Throws<ObjectDisposedException>(() => s.MemoryStat("allocated_bytes.current"));
            }
            Cuda.EmptyCache();
        }

        [Test]
        public void StatisticsArePerDevice()
        {
            RequireGpu(2);
            Cuda.EmptyCache();
            long a0 = Cuda.MemoryAllocated(0), a1 = Cuda.MemoryAllocated(1);
            using (Tensor t = Tensor.Empty(new[] { 5 * MiB / 4 }, DType.Float32, Device.CudaAt(1)))
            {
                Assert.AreEqual(a0, Cuda.MemoryAllocated(0));
                Assert.AreEqual(a1 + 5 * MiB, Cuda.MemoryAllocated(1));
                Assert.AreEqual(a1 + 5 * MiB, Cuda.MemoryAllocated(Device.CudaAt(1)));
                StringAssert.StartsWith("{\"device\": 1, ", Cuda.MemorySnapshot(1));
            }

            // Memory for one device on another device's stream is refused.
            using (var s1 = new CudaStream(1))
            {
                Fails(StatusCode.Device, () => Cuda.CachingAllocatorAlloc(512, 0, s1));
                long p = Cuda.CachingAllocatorAlloc(512, 1, s1);
                Assert.AreEqual(a1 + 512, Cuda.MemoryAllocated(1));
                Cuda.CachingAllocatorDelete(p);
            }
            Assert.AreEqual(a1, Cuda.MemoryAllocated(1));
            Cuda.EmptyCache();
        }
    }
}
