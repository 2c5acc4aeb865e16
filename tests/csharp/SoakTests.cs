// The soak (issue 19): create / op / view / release cycles with the process RSS
// (/proc/self/statm) and the live counts sampled every tenth of the run, and a GC-heavy run where
// nine tensors in ten are dropped without Dispose for the finalizers. The suite runs 10^5 cycles
// of each (about 2 s); //tests/csharp:csharp_soak (manual, about 40 s) runs 10^6
// (CTORCH_SOAK_CYCLES).
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Ctorch;
using NUnit.Framework;

namespace Ctorch.Tests
{
    internal static class Soak
    {
        /// <summary>Cycles per run: CTORCH_SOAK_CYCLES, else 10^5.</summary>
        internal static int Cycles
        {
            get
            {
                string s = Environment.GetEnvironmentVariable("CTORCH_SOAK_CYCLES");
                return string.IsNullOrEmpty(s) ? 100000 : int.Parse(s);
            }
        }

        /// <summary>The resident set size of this process, in bytes (statm's second field).</summary>
        internal static long Rss()
        {
            string[] f = File.ReadAllText("/proc/self/statm").Split(' ');
            return long.Parse(f[1]) * Environment.SystemPageSize;
        }

        internal static string MiB(long bytes) => (bytes / (1024.0 * 1024.0)).ToString("F1") + " MiB";

        internal static void Report(string what, int cycles, Stopwatch sw, long rss0, long rssEnd, long rssPeak,
                                    long live0, long liveEnd)
        {
            Console.WriteLine("soak " + what + ": " + cycles + " cycles in " + sw.Elapsed.TotalSeconds.ToString("F1") +
                              " s; RSS start " + MiB(rss0) + ", end " + MiB(rssEnd) + ", peak " + MiB(rssPeak) +
                              "; live tensors start " + live0 + ", end " + liveEnd);
        }
    }

    [TestFixture]
    [Category("soak")]
    public class SoakTests : TestBase
    {
        // No DisposeScope: it would keep a reference to each of the millions of results.
        protected override bool UseScope => false;

        // RSS may grow by at most this much between the first sample (after 10% of the cycles,
        // once Mono's heap and the allocator's caches are warm) and the end (measured: 0.3 MiB over 10^6 cycles).
        private const long RssGrowthBound = 4L << 20;

        [Test]
        public void CreateOpViewReleaseCycles()
        {
            int cycles = Soak.Cycles, every = cycles / 10;
            long live0 = Torch.LiveTensorCount, rss0 = Soak.Rss(), peak = rss0, warm = 0;
            var sw = Stopwatch.StartNew();
            for (int i = 1; i <= cycles; i++)
            {
                Tensor t = Tensor.Zeros(4);
                Tensor u = t.Add(1L);
                Tensor v = u.View(2, 2);
                v.Dispose();
                u.Dispose();
                t.Dispose();
                if (i % every == 0)
                {
                    long rss = Soak.Rss();
                    peak = Math.Max(peak, rss);
                    if (warm == 0) warm = rss;
                    Assert.AreEqual(live0, Torch.LiveTensorCount, "live tensors after " + i + " cycles");
                    Console.WriteLine("soak cycles: " + i + " RSS " + Soak.MiB(rss) + ", live tensors " + Torch.LiveTensorCount);
                }
            }
            sw.Stop();
            long end = Soak.Rss();
            Soak.Report("create/add/view/release", cycles, sw, rss0, end, Math.Max(peak, end), live0, Torch.LiveTensorCount);
            Assert.AreEqual(live0, Torch.LiveTensorCount, "live tensors at the end");
            Assert.LessOrEqual(end - warm, RssGrowthBound, "RSS growth after the first tenth of the cycles");
        }
    }

    [TestFixture]
    [Category("gc")]
    [Category("soak")]
    public class GcSoakTests : GcFixture
    {
        // Once every dropped tensor has been finalized, RSS may stay at most this much above its
        // value before the run. Measured: up to +54 MiB (10^6 cycles, up to 80,000 tensors
        // waiting for the finalizer at a time), most of it memory glibc's malloc keeps for reuse
        // in the finalizer thread's arena: after malloc_trim(0) RSS was back within 1 MiB of the
        // start in a process of its own, and within 10 MiB after the other gc fixtures (Mono
        // keeps the heap sections it grew for the backlog of finalizable objects).
        private const long RssGrowthBound = 80L << 20;
        private const long TrimmedBound = 32L << 20;

        [DllImport("libc.so.6")]
        private static extern int malloc_trim(UIntPtr pad);

        // Nine of each ten cycles drop their tensors without Dispose; every tenth disposes them.
        [MethodImpl(MethodImplOptions.NoInlining)]
        private static long Churn(int cycles, long live0, ref long peak)
        {
            int every = cycles / 10;
            for (int i = 1; i <= cycles; i++)
            {
                Tensor t = Tensor.Zeros(4);
                Tensor u = t.Add(1L);
                Tensor v = u.View(2, 2);
                if (i % 10 == 0) { v.Dispose(); u.Dispose(); t.Dispose(); }
                if (i % every == 0)
                {
                    long rss = Soak.Rss();
                    peak = Math.Max(peak, rss);
                    Console.WriteLine("gc soak cycles: " + i + " RSS " + Soak.MiB(rss) + ", live tensors " +
                                      (Torch.LiveTensorCount - live0) + " above the start");
                }
            }
            return peak;
        }

        [Test]
        public void DroppedTensorsComeBack()
        {
            int cycles = Soak.Cycles;
            Settle();
            long live0 = Torch.LiveTensorCount, rss0 = Soak.Rss(), peak = rss0;
            var sw = Stopwatch.StartNew();
            OnOwnThread(() => Churn(cycles, live0, ref peak));
            long left = WaitForCount(live0) - live0;
            sw.Stop();
            long end = Soak.Rss();
            Soak.Report("GC-heavy (90% dropped)", cycles, sw, rss0, end, Math.Max(peak, end), live0, live0 + left);
            malloc_trim(UIntPtr.Zero);
            long trimmed = Soak.Rss();
            Console.WriteLine("soak GC-heavy: managed heap " + Soak.MiB(GC.GetTotalMemory(true)) +
                              ", RSS after malloc_trim " + Soak.MiB(trimmed));
            Assert.That(left, Is.InRange(0L, Residue), "tensors still alive after the GC");
            Assert.LessOrEqual(end - rss0, RssGrowthBound, "RSS growth over the run");
            Assert.LessOrEqual(trimmed - rss0, TrimmedBound, "RSS growth over the run, after malloc_trim");
        }
    }
}
