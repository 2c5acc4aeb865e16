// The stream sanitizer's binding (CudaSanitizer, section 24 of ctorch.h): the mode enum against
// the C constants, the argument error, the report count, the managed callback (kept alive while
// registered, released once cleared, called from a managed thread and from a native thread the
// runtime has never seen, with the report's UTF-8 bytes, an exception it throws kept from C) and
// CtorchDataRaceException. The C suite (tests/capi/sanitizer_test.c) owns the races themselves;
// the GPU cases here are the seed's side-stream race through the callback and the exception,
// skipped (visibly) without CUDA. Each test puts the mode it found back (off unless
// CTORCH_CUDA_SANITIZER is set) and clears the callback.
using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;
using System.Threading;
using Ctorch;
using Ctorch.Swig;
using NUnit.Framework;

namespace Ctorch.Tests
{
    [TestFixture]
    public class CudaSanitizerTests : TestBase
    {
        private SanitizerMode _modeBefore;

        [SetUp]
        public void RememberMode() => _modeBefore = CudaSanitizer.Mode;

        [TearDown]
        public void SanitizerBack()
        {
            CudaSanitizer.SetCallback(null);
            CudaSanitizer.Mode = SanitizerMode.Off; // forgets what the test left
            CudaSanitizer.Mode = _modeBefore;
        }

        // pthread_create, to call the binding's C callback on a thread the runtime has never
        // seen, as ctorch may (libpthread.so.0 resolves it on every glibc).
        [DllImport("libpthread.so.0", EntryPoint = "pthread_create")]
        private static extern int PthreadCreate(out IntPtr thread, IntPtr attr, IntPtr start, IntPtr arg);

        [DllImport("libpthread.so.0", EntryPoint = "pthread_join")]
        private static extern int PthreadJoin(IntPtr thread, IntPtr ret);

        private const string ManagedThreadName = "sanitizer-test-thread";

        // Calls the function pointer C holds (the binding's trampoline) with text's UTF-8 bytes,
        // as ctorch would: on a new native thread (onNewThread) or on a managed one. The native thread
        // starts right in the trampoline: its argument is the report; the trampoline's second
        // parameter (user, unused) and its missing return value are registers the x86-64 calling
        // convention lets a start routine leave undefined.
        private static void Report(string text, bool onNewThread)
        {
            byte[] bytes = Encoding.UTF8.GetBytes(text + "\0");
            IntPtr buf = Marshal.AllocHGlobal(bytes.Length);
            try
            {
                Marshal.Copy(bytes, 0, buf, bytes.Length);
                IntPtr fn = Marshal.GetFunctionPointerForDelegate(CudaSanitizer.Trampoline);
                if (!onNewThread) // on a managed thread of its own, named (no stale reference
                {                 // to the callback stays on this thread's stack)
                    OnOwnThread(() =>
                    {
                        Thread.CurrentThread.Name = ManagedThreadName;
                        CudaSanitizer.Trampoline(buf, IntPtr.Zero);
                    });
                    return;
                }
                IntPtr thread;
                Assert.AreEqual(0, PthreadCreate(out thread, IntPtr.Zero, fn, buf), "pthread_create");
                Assert.AreEqual(0, PthreadJoin(thread, IntPtr.Zero), "pthread_join");
            }
            finally
            {
                Marshal.FreeHGlobal(buf);
            }
        }

        [Test]
        public void ModeRoundTrip()
        {
            Assert.AreEqual(ctorch.CT_CSAN_OFF, (int)SanitizerMode.Off);
            Assert.AreEqual(ctorch.CT_CSAN_ERROR, (int)SanitizerMode.Error);
            Assert.AreEqual(ctorch.CT_CSAN_WARN, (int)SanitizerMode.Warn);
            Assert.AreEqual(3, Enum.GetValues(typeof(SanitizerMode)).Length);
            foreach (var m in new[] { SanitizerMode.Warn, SanitizerMode.Off, SanitizerMode.Error, SanitizerMode.Off })
            {
                CudaSanitizer.Mode = m;
                Assert.AreEqual(m, CudaSanitizer.Mode);
                int raw;
                Assert.AreEqual(0, ctorch.ct_cuda_sanitizer_mode(out raw));
                Assert.AreEqual((int)m, raw);
            }
            CudaSanitizer.Enable(); // enable_cuda_sanitizer(): error mode
            Assert.AreEqual(SanitizerMode.Error, CudaSanitizer.Mode);
            CudaSanitizer.Enable();
            Assert.AreEqual(SanitizerMode.Error, CudaSanitizer.Mode);
        }

        [Test]
        public void InvalidModeIsTheArgumentError()
        {
            CudaSanitizer.Mode = SanitizerMode.Warn;
            CtorchException e = Fails(StatusCode.Argument, () => CudaSanitizer.Mode = (SanitizerMode)3);
            StringAssert.Contains("unknown sanitizer mode 3", e.NativeMessage);
            Fails(StatusCode.Argument, () => CudaSanitizer.Mode = (SanitizerMode)(-1));
            Assert.AreEqual(SanitizerMode.Warn, CudaSanitizer.Mode, "a refused mode changes nothing");
        }

        [Test]
        public void CpuOpsInErrorModeSucceed()
        {
            CudaSanitizer.Enable();
            long n = CudaSanitizer.ReportCount;
            Assert.GreaterOrEqual(n, 0);
            using (var a = Tensor.Ones(4))
            using (var b = a + a)
            {
                b.Add_(a);
                using (var c = b.Sum())
                    Assert.AreEqual(12.0, c.Item<float>());
            }
            Assert.AreEqual(n, CudaSanitizer.ReportCount);
        }

        // Registers a callback that adds "thread name|report" to into, referenced from nowhere
        // else, and returns a weak reference to it (on a thread of its own: no stale reference
        // stays on this thread's stack, which Mono scans conservatively).
        private static WeakReference Register(List<string> into)
        {
            WeakReference weak = null;
            OnOwnThread(() =>
            {
                Action<string> cb = r =>
                {
                    lock (into) into.Add((Thread.CurrentThread.Name ?? "") + "|" + r);
                };
                weak = new WeakReference(cb);
                CudaSanitizer.SetCallback(cb);
            });
            return weak;
        }

        private static void Collect()
        {
            for (int i = 0; i < 3; i++)
            {
                GC.Collect();
                GC.WaitForPendingFinalizers();
            }
        }

        [Test]
        public void CallbackKeptAliveAndCalledFromAnyThread()
        {
            var got = new List<string>();
            WeakReference weak = Register(got);
            Collect();
            Assert.IsTrue(weak.IsAlive, "the registered callback was collected");
            const string text = "CSAN race \u00fc \U0001F600\nsum\nnormal_\n";
            Report(text, false);
            Report(text, true);
            Assert.AreEqual(2, got.Count);
            Assert.AreEqual(ManagedThreadName + "|" + text, got[0]);
            Assert.AreEqual("|" + text, got[1], "the native thread: unnamed, the same bytes");
            // replacing it releases the first one
            var second = new List<string>();
            WeakReference weak2 = Register(second);
            Report("again", true);
            CollectionAssert.AreEqual(new[] { "|again" }, second);
            Assert.AreEqual(2, got.Count);
            Collect();
            Assert.IsFalse(weak.IsAlive, "a replaced callback is no longer kept");
            Assert.IsTrue(weak2.IsAlive);
            CudaSanitizer.SetCallback(null);
            Collect();
            Assert.IsFalse(weak2.IsAlive, "a cleared callback is no longer kept");
            Report("after clearing\n", false); // goes to stderr, not to a callback
            Assert.AreEqual(1, second.Count);
        }

        [Test]
        public void ThrowingCallbackDoesNotEscape()
        {
            var got = new List<string>();
            CudaSanitizer.SetCallback(r =>
            {
                lock (got) got.Add(r);
                throw new InvalidOperationException("thrown by the test's sanitizer callback (expected)");
            });
            Report("first\n", false);
            Report("second\n", true);
            CollectionAssert.AreEqual(new[] { "first\n", "second\n" }, got);
            using (var a = Tensor.Ones(2))
            using (var b = a * 3.0)
                AreEqual(new[] { 3f, 3f }, b);
        }

        [Test]
        public void DataRaceStatusIsItsOwnException()
        {
            Assert.AreEqual(202, (int)StatusCode.DataRace);
            CtorchException e = CtorchException.FromStatus((int)StatusCode.DataRace);
            Assert.IsInstanceOf<CtorchDataRaceException>(e);
            Assert.AreEqual(StatusCode.DataRace, e.Code);
            Assert.AreEqual("CT_ERR_DATA_RACE", e.StatusName);
        }

        // A = empty(100, 100) on cuda, normal_ on the current stream.
        private static Tensor CudaNormal() =>
            Tensor.Empty(new long[] { 100, 100 }, DType.Float32, Device.Cuda).Normal_(0.0, 1.0);

        // sum(a) on a new side stream, after side.WaitStream(current) when wait is set.
        private static void SumOnSideStream(Tensor a, bool wait)
        {
            using (var current = Cuda.CurrentStream())
            using (var side = new CudaStream())
            {
                if (wait) side.WaitStream(current);
                try
                {
                    using (Cuda.UseStream(side))
                    using (var b = a.Sum())
                        Assert.AreEqual(a.Device, b.Device);
                }
                finally
                {
                    Cuda.Synchronize(); // a stays valid until side is done with it
                }
            }
        }

        [Test]
        public void GpuSideStreamRaceReportedThroughCallback()
        {
            RequireGpu();
            var got = new List<string>();
            CudaSanitizer.Mode = SanitizerMode.Off;
            CudaSanitizer.Mode = SanitizerMode.Warn;
            Register(got);
            Collect();
            long n0 = CudaSanitizer.ReportCount;
            using (var a = CudaNormal())
                SumOnSideStream(a, false);
            Assert.AreEqual(1, got.Count, string.Join("\n", got));
            string r = got[0];
            StringAssert.Contains("CSAN detected a possible data race", r);
            StringAssert.Contains("during kernel:\nsum\nreading from argument(s) self\n", r);
            StringAssert.Contains("during kernel:\nnormal_\nwriting to argument(s) self\n", r);
            Assert.AreEqual(n0 + 1, CudaSanitizer.ReportCount);
            using (var a = CudaNormal())
                SumOnSideStream(a, true);
            Assert.AreEqual(1, got.Count, string.Join("\n", got));
            Assert.AreEqual(n0 + 1, CudaSanitizer.ReportCount);
        }

        [Test]
        public void GpuSideStreamRaceThrowsInErrorMode()
        {
            RequireGpu();
            CudaSanitizer.Mode = SanitizerMode.Off;
            CudaSanitizer.Enable();
            long n0 = CudaSanitizer.ReportCount;
            using (var a = CudaNormal())
            {
                var e = Assert.Throws<CtorchDataRaceException>(() => SumOnSideStream(a, false));
                Assert.AreEqual(StatusCode.DataRace, e.Code);
                StringAssert.Contains("The CUDA stream sanitizer detected 1 error (sum", e.NativeMessage);
                StringAssert.Contains("during kernel:\nnormal_\nwriting to argument(s) self\n", e.NativeMessage);
            }
            Assert.AreEqual(n0 + 1, CudaSanitizer.ReportCount);
            using (var a = CudaNormal())
                SumOnSideStream(a, true);
            Assert.AreEqual(n0 + 1, CudaSanitizer.ReportCount);
        }
    }
}
