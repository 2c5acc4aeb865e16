// Nvtx (section 22): what the binding adds to the C calls. The suite's Bazel target runs under
// the recording NVTX injection library (tests/capi/with_nvtx_inject.sh sets CTORCH_NVTX_RECORD):
// then push/pop must return the tool's per-thread depths and every message must reach the tool
// as its UTF-8 bytes; run without it (the GPU bundle), push and pop return -2 and range ids are
// 0, NVTX's values without a tool.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using System.Threading;
using Ctorch;
using Ctorch.Swig;
using NUnit.Framework;

namespace Ctorch.Tests
{
    [TestFixture]
    public class NvtxTests : TestBase
    {
        private static readonly string Record = Environment.GetEnvironmentVariable("CTORCH_NVTX_RECORD");
        private static bool Injected => !string.IsNullOrEmpty(Record);

        // The depth push/pop return for a range at depth d: d under the tool, -2 without one.
        private static int Depth(int d) => Injected ? d : Nvtx.NoPushPopTracking;

        private struct Line
        {
            public string Call;
            public long Tid;
            public long Value;
            public string Hex;
        }

        private static List<Line> ReadRecord()
        {
            var lines = new List<Line>();
            foreach (var l in File.ReadAllLines(Record, Encoding.UTF8))
            {
                var f = l.Split('\t');
                lines.Add(new Line { Call = f[0], Tid = long.Parse(f[1]), Value = long.Parse(f[2]), Hex = f[3] });
            }
            return lines;
        }

        private static string Hex(string s) =>
            string.Concat(Encoding.UTF8.GetBytes(s).Select(b => b.ToString("x2")));

        private static Line Only(string call, string msg)
        {
            var found = ReadRecord().Where(l => l.Call == call && l.Hex == Hex(msg)).ToList();
            Assert.AreEqual(1, found.Count, call + " \"" + msg + "\" in the record");
            return found[0];
        }

        private static string Unique(string what) => what + " " + Guid.NewGuid().ToString("N");

        // Pushes msgs in order, then pops them all, checking each depth.
        private static void Nest(params string[] msgs)
        {
            for (int i = 0; i < msgs.Length; i++) Assert.AreEqual(Depth(i), Nvtx.RangePush(msgs[i]), "push " + msgs[i]);
            for (int i = msgs.Length - 1; i >= 0; i--) Assert.AreEqual(Depth(i), Nvtx.RangePop(), "pop " + msgs[i]);
        }

        [Test]
        public void PushPopReturnTheDepth()
        {
            Nest(Unique("cs outer"), "cs inner", "cs innermost");
            // a pop with nothing pushed: the tool's error value (-1 here), passed through
            Assert.AreEqual(Injected ? -1 : -2, Nvtx.RangePop());
        }

        [Test]
        public void MessagesReachTheToolAsUtf8()
        {
            // two, three and four UTF-8 bytes (a surrogate pair in .NET)
            string text = Unique("cs étape 步 \U0001F680");
            Nvtx.Mark(text);
            Nest(text, "");
            ulong id = Nvtx.RangeStart(text);
            Nvtx.RangeEnd(id);
            if (!Injected)
            {
                Assert.AreEqual(0UL, id);
                return;
            }
            Assert.AreNotEqual(0UL, id);
            Assert.AreEqual(0, Only("mark", text).Value);
            Assert.AreEqual(0, Only("push", text).Value);
            Assert.AreEqual((long)id, Only("start", text).Value);
            Assert.IsTrue(ReadRecord().Any(l => l.Call == "push" && l.Hex == "" && l.Value == 1));
            Assert.IsTrue(ReadRecord().Any(l => l.Call == "end" && l.Value == (long)id));
        }

        [Test]
        public void RangeIdsCrossThreads()
        {
            string msg = Unique("cs started");
            ulong id = Nvtx.RangeStart(msg);
            Exception failure = null;
            var t = new Thread(() => { try { Nvtx.RangeEnd(id); } catch (Exception e) { failure = e; } });
            t.Start();
            t.Join();
            Assert.IsNull(failure);
            if (!Injected) return;
            Line start = Only("start", msg);
            Line end = ReadRecord().First(l => l.Call == "end" && l.Value == (long)id);
            Assert.AreNotEqual(start.Tid, end.Tid, "ended on another thread");
        }

        [Test]
        public void NullAndNulMessages()
        {
            Assert.Throws<ArgumentNullException>(() => Nvtx.Mark(null));
            Assert.Throws<ArgumentNullException>(() => Nvtx.RangePush(null));
            Assert.Throws<ArgumentNullException>(() => Nvtx.RangeStart(null));
            Assert.Throws<ArgumentNullException>(() => Nvtx.Range(null));
            Assert.Throws<ArgumentNullException>(() => Nvtx.Range(null, 1));
            foreach (TestDelegate d in new TestDelegate[] {
                () => Nvtx.Mark("a\0b"), () => Nvtx.RangePush("\0"), () => Nvtx.RangeStart("x\0"),
                () => Nvtx.Range("a\0{0}", 1) })
            {
                var e = Assert.Throws<ArgumentException>(d);
                StringAssert.Contains("NUL character", e.Message);
            }
            // the raw wrapper passes null as NULL: the C layer's error
            Assert.AreEqual((int)StatusCode.NullPointer, ctorch.ct_nvtx_mark(null));
            StringAssert.Contains("argument 'msg' is NULL", ctorch.ct_last_error_message());
            // nothing was left pushed by the refused calls
            Nest("after refusals");
        }

        [Test]
        public void ScopePopsWhenTheBodyThrows()
        {
            string msg = Unique("cs step");
            var thrown = Assert.Throws<InvalidOperationException>(() =>
            {
                using (var r = Nvtx.Range("{0} {1}", msg, 7))
                {
                    Assert.AreEqual(Depth(0), r.Depth);
                    using (var inner = Nvtx.Range("inner"))
                    {
                        Assert.AreEqual(Depth(1), inner.Depth);
                        throw new InvalidOperationException("body failed");
                    }
                }
            });
            Assert.AreEqual("body failed", thrown.Message);
            // both ranges were popped: a new push is at depth 0 again
            Nest("after the scope");
            if (Injected) Assert.AreEqual(0, Only("push", msg + " 7").Value);
        }

        [Test]
        public void ScopeDisposesOnceOnItsThread()
        {
            var r = Nvtx.Range("cs disposed twice");
            Exception other = null;
            var t = new Thread(() => { try { r.Dispose(); } catch (Exception e) { other = e; } });
            t.Start();
            t.Join();
            Assert.IsInstanceOf<InvalidOperationException>(other);
            Assert.IsFalse(r.IsDisposed);
            r.Dispose();
            r.Dispose();   // one pop only
            Assert.IsTrue(r.IsDisposed);
            Nest("after dispose");
        }

        [Test]
        public void DepthsArePerThread()
        {
            var barrier = new Barrier(2);
            var depths = new int[2, 4];
            Exception failure = null;
            var threads = new Thread[2];
            for (int i = 0; i < 2; i++)
            {
                int k = i;
                threads[i] = new Thread(() =>
                {
                    try
                    {
                        depths[k, 0] = Nvtx.RangePush("cs thread " + k + " outer");
                        barrier.SignalAndWait();   // both threads hold one range now
                        depths[k, 1] = Nvtx.RangePush("cs thread " + k + " inner");
                        barrier.SignalAndWait();
                        depths[k, 2] = Nvtx.RangePop();
                        depths[k, 3] = Nvtx.RangePop();
                    }
                    catch (Exception e) { failure = e; }
                });
                threads[i].Start();
            }
            foreach (var t in threads) t.Join();
            Assert.IsNull(failure);
            for (int k = 0; k < 2; k++)
            {
                Assert.AreEqual(Depth(0), depths[k, 0]);
                Assert.AreEqual(Depth(1), depths[k, 1]);
                Assert.AreEqual(Depth(1), depths[k, 2]);
                Assert.AreEqual(Depth(0), depths[k, 3]);
            }
        }
    }
}
