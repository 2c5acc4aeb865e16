// CudaStream and CudaEvent on any machine: events without a GPU, the no-GPU errors of every
// way to get a stream, released / foreign / disposed objects through the idiomatic layer (102,
// ObjectDisposedException; the C layer's handle checks themselves are tests/capi/cuda_test.c's),
// stream guards that fail cleanly, live counts of streams and events back at their start.
using System;
using Ctorch;
using Ctorch.Swig;
using NUnit.Framework;

namespace Ctorch.Tests
{
    [TestFixture]
    public class StreamEventTests : TestBase
    {
        // A CudaStream wrapping a value that is not a stream handle (an event's), not owned: every
        // call must fail with CT_ERR_INVALID_HANDLE in the C layer.
        private static CudaStream ForeignStream(CudaEvent e) =>
            new CudaStream(new CudaStreamHandle(e.Handle.DangerousGetHandle(), false));

        [Test]
        public void EventsWorkWithoutAGpuUntilRecorded()
        {
            long n0 = Torch.LiveEventCount;
            foreach (bool timing in new[] { false, true })
            {
                foreach (bool blocking in new[] { false, true })
                {
                    using (var e = new CudaEvent(timing, blocking))
                    {
                        Assert.AreEqual(n0 + 1, Torch.LiveEventCount);
                        Assert.IsTrue(e.Query(), "an event never recorded counts as done");
                        e.Synchronize();   // returns at once
                        Assert.IsFalse(e.IsDisposed);
                    }
                    Assert.AreEqual(n0, Torch.LiveEventCount);
                }
            }
            CudaEvent c = CudaEvent.Create(enableTiming: true);
            Assert.AreEqual(n0 + 1, Torch.LiveEventCount);
            c.Dispose();
            c.Dispose();   // harmless
            Assert.IsTrue(c.IsDisposed);
            Assert.AreEqual(n0, Torch.LiveEventCount);
        }

        [Test]
        public void EventSynchronizeOfAnUnrecordedEventDoesNotWaitEvenInErrorMode()
        {
            using (var e = new CudaEvent())
            {
                try
                {
                    Cuda.SetSyncDebugMode(SyncDebugMode.Error);
                    e.Synchronize();   // nothing recorded: nothing to wait for
                    Assert.IsTrue(e.Query());
                }
                finally
                {
                    Cuda.SetSyncDebugMode(SyncDebugMode.Default);
                }
            }
        }

        [Test]
        public void ElapsedTimeNeedsTimingEventsThatWereRecorded()
        {
            using (var a = new CudaEvent(enableTiming: true))
            using (var b = new CudaEvent(enableTiming: true))
            using (var plain = new CudaEvent())
            {
                CtorchException e = Fails(StatusCode.State, () => a.ElapsedTime(b));
                StringAssert.Contains("recorded", e.NativeMessage);
                e = Fails(StatusCode.State, () => a.ElapsedTime(plain));
                StringAssert.Contains("enable_timing", e.NativeMessage);
                Fails(StatusCode.State, () => plain.ElapsedTime(a));
                Assert.Throws<ArgumentNullException>(() => a.ElapsedTime(null));
            }
        }

        [Test]
        public void EventNewReferenceSharesTheNativeEvent()
        {
            long n0 = Torch.LiveEventCount;
            var e = new CudaEvent();
            CudaEvent f = e.NewReference();
            Assert.AreNotSame(e, f);
            Assert.AreEqual(e.Handle.DangerousGetHandle(), f.Handle.DangerousGetHandle());
            Assert.AreEqual(n0 + 1, Torch.LiveEventCount);   // handles, not references
            e.Dispose();
            Assert.IsTrue(f.Query());                         // still alive through f
            Assert.AreEqual(n0 + 1, Torch.LiveEventCount);
            f.Dispose();
            Assert.AreEqual(n0, Torch.LiveEventCount);
        }

        [Test]
        public void ADisposedEventThrowsObjectDisposed()
        {
            var e = new CudaEvent(enableTiming: true);
            var other = new CudaEvent(enableTiming: true);
            e.Dispose();
            Assert.Throws<ObjectDisposedException>(() => e.Query());
            Assert.Throws<ObjectDisposedException>(() => e.Synchronize());
            Assert.Throws<ObjectDisposedException>(() => e.Record());
            Assert.Throws<ObjectDisposedException>(() => e.Wait());
            Assert.Throws<ObjectDisposedException>(() => e.NewReference());
            Assert.Throws<ObjectDisposedException>(() => e.ElapsedTime(other));
            Assert.Throws<ObjectDisposedException>(() => other.ElapsedTime(e));
            Assert.AreEqual("CudaEvent(disposed)", e.ToString());
            Assert.IsTrue(other.Query());
            other.Dispose();
        }

        [Test]
        public void ReleasedEventHandlesGive102()
        {
            IntPtr raw;
            Assert.AreEqual(0, ctorch.ct_event_create(ctorch.CT_EVENT_ENABLE_TIMING | ctorch.CT_EVENT_BLOCKING, out raw));
            Assert.AreNotEqual(IntPtr.Zero, raw);
            Assert.AreEqual(0, ctorch.ct_event_release(raw));

            Assert.AreEqual(102, ctorch.ct_event_release(raw));   // twice: an error, not a crash

            // Through the idiomatic layer, with a wrapper that does not own the stale value.
            using (var ghost = new CudaEvent(new CudaEventHandle(raw, false)))
            using (var live = new CudaEvent(enableTiming: true))
            {
                CtorchException e = Fails(StatusCode.InvalidHandle, () => ghost.Query());
                StringAssert.Contains("released", e.NativeMessage);
                Fails(StatusCode.InvalidHandle, () => ghost.Synchronize());
                Fails(StatusCode.InvalidHandle, () => ghost.Record());
                Fails(StatusCode.InvalidHandle, () => ghost.Wait());
                Fails(StatusCode.InvalidHandle, () => ghost.NewReference());
                Fails(StatusCode.InvalidHandle, () => ghost.ElapsedTime(live));
                Fails(StatusCode.InvalidHandle, () => live.ElapsedTime(ghost));
            }
        }

        [Test]
        public void WithoutGpuEveryWayToGetAStreamFailsWith301()
        {
            RequireNoGpu();
            long n0 = Torch.LiveStreamCount;
            Unavailable(() => new CudaStream());
            Unavailable(() => new CudaStream(0, -1));
            Unavailable(() => new CudaStream(Device.Cuda));
            Unavailable(() => CudaStream.Create(Device.CudaAt(0), priority: -1));
            Unavailable(() => CudaStream.Create());
            Unavailable(() => GC.KeepAlive(CudaStream.PriorityRange));
            Unavailable(() => CudaStream.Default());
            Unavailable(() => CudaStream.Default(0));
            Unavailable(() => CudaStream.Default(Device.CudaAt(0)));
            Unavailable(() => CudaStream.Current());
            Unavailable(() => CudaStream.Current(0));
            Unavailable(() => CudaStream.Current(Device.Cuda));
            Unavailable(() => Cuda.CurrentStream());
            Unavailable(() => Cuda.DefaultStream(0));
            Unavailable(() => CudaStream.External(0L));
            Unavailable(() => CudaStream.External(0x1234L, 0));
            Unavailable(() => CudaStream.External(IntPtr.Zero, -1));
            Assert.AreEqual(n0, Torch.LiveStreamCount);

            // Recording / waiting on "the current stream" (null) needs a GPU too.
            using (var e = new CudaEvent())
            {
                Unavailable(() => e.Record());
                Unavailable(() => e.Wait());
                Assert.IsTrue(e.Query(), "a failed record leaves the event unrecorded");
            }

        }

        [Test]
        public void StreamArguments()
        {
            Assert.Throws<ArgumentException>(() => new CudaStream(Device.Cpu));
            Assert.Throws<ArgumentException>(() => CudaStream.Current(Device.Cpu));
            Assert.Throws<ArgumentException>(() => CudaStream.Default(Device.Cpu));
            Assert.Throws<ArgumentNullException>(() => new CudaStream((CudaStreamHandle)null));
            Assert.Throws<ArgumentException>(() => CudaStream.FromHandle(IntPtr.Zero));
            Assert.Throws<ArgumentNullException>(() => new CudaEvent((CudaEventHandle)null));
            Assert.Throws<ArgumentException>(() => CudaEvent.FromHandle(IntPtr.Zero));
            Assert.Throws<ArgumentNullException>(() => CudaStream.SetCurrent(null));
            Assert.Throws<ArgumentNullException>(() => Cuda.SetStream(null));
            using (Tensor t = F(1))
                Assert.Throws<ArgumentNullException>(() => t.RecordStream(null));
            // torch.cuda.stream(None) is a no-op guard.
            using (StreamGuard g = Cuda.UseStream(null)) Assert.AreEqual(-1, g.PreviousDevice);
            var g2 = new StreamGuard(null);
            g2.Dispose();
            g2.Dispose();
            // Leaving a guard needs the stream only a GPU gives; the raw layer reaches it.
            Assert.AreEqual(102, ctorch.ct_stream_guard_exit(IntPtr.Zero, 0));
        }

        [Test]
        public void AForeignStreamThroughTheIdiomaticLayerGives102()
        {
            long e0 = Torch.LiveEventCount;
            using (var ev = new CudaEvent())
            using (CudaStream ghost = ForeignStream(ev))
            using (Tensor t = F(1, 2))
            {
                CtorchException x = Fails(StatusCode.InvalidHandle, () => GC.KeepAlive(ghost.DeviceIndex));
                StringAssert.Contains("not a ctorch stream handle", x.NativeMessage);
                Fails(StatusCode.InvalidHandle, () => GC.KeepAlive(ghost.Device));
                Fails(StatusCode.InvalidHandle, () => GC.KeepAlive(ghost.Priority));
                Fails(StatusCode.InvalidHandle, () => GC.KeepAlive(ghost.CudaHandle));
                Fails(StatusCode.InvalidHandle, () => ghost.Synchronize());
                Fails(StatusCode.InvalidHandle, () => ghost.Query());
                Fails(StatusCode.InvalidHandle, () => ghost.WaitStream(ghost));
                Fails(StatusCode.InvalidHandle, () => ghost.WaitEvent(ev));
                Fails(StatusCode.InvalidHandle, () => ghost.RecordEvent(ev));
                Fails(StatusCode.InvalidHandle, () => ghost.NewReference());
                Fails(StatusCode.InvalidHandle, () => CudaStream.SetCurrent(ghost));
                Fails(StatusCode.InvalidHandle, () => Cuda.SetStream(ghost));
                Fails(StatusCode.InvalidHandle, () => t.RecordStream(ghost));
                Fails(StatusCode.InvalidHandle, () => ev.Record(ghost));
                Fails(StatusCode.InvalidHandle, () => ev.Wait(ghost));
                Assert.AreEqual("CudaStream(CT_ERR_INVALID_HANDLE)", ghost.ToString());
                Assert.IsTrue(ghost.Equals(ghost));
                Assert.IsFalse(ghost.Equals(null));
                Assert.IsFalse(ghost == null);

                // record_event() with no event creates one; when recording fails it is released.
                Assert.AreEqual(e0 + 1, Torch.LiveEventCount);
                Fails(StatusCode.InvalidHandle, () => ghost.RecordEvent());
                Assert.AreEqual(e0 + 1, Torch.LiveEventCount);

                // The stream guard fails cleanly: no stream handle left behind.
                long s0 = Torch.LiveStreamCount;
                Fails(StatusCode.InvalidHandle, () => Cuda.UseStream(ghost));
                Fails(StatusCode.InvalidHandle, () => new StreamGuard(ghost));
                Assert.AreEqual(s0, Torch.LiveStreamCount);
                Assert.IsTrue(ev.Query());
            }
            Assert.AreEqual(e0, Torch.LiveEventCount);
        }

        [Test]
        public void ADisposedStreamThrowsObjectDisposed()
        {
            using (var ev = new CudaEvent())
            using (Tensor t = F(1))
            {
                CudaStream s = ForeignStream(ev);   // not owning: disposing it releases nothing
                s.Dispose();
                s.Dispose();
                Assert.IsTrue(s.IsDisposed);
                Assert.Throws<ObjectDisposedException>(() => GC.KeepAlive(s.DeviceIndex));
                Assert.Throws<ObjectDisposedException>(() => GC.KeepAlive(s.Priority));
                Assert.Throws<ObjectDisposedException>(() => GC.KeepAlive(s.CudaHandle));
                Assert.Throws<ObjectDisposedException>(() => s.Synchronize());
                Assert.Throws<ObjectDisposedException>(() => s.Query());
                Assert.Throws<ObjectDisposedException>(() => s.WaitEvent(ev));
                Assert.Throws<ObjectDisposedException>(() => s.RecordEvent(ev));
                Assert.Throws<ObjectDisposedException>(() => s.RecordEvent());
                Assert.Throws<ObjectDisposedException>(() => CudaStream.SetCurrent(s));
                Assert.Throws<ObjectDisposedException>(() => Cuda.UseStream(s));
                Assert.Throws<ObjectDisposedException>(() => t.RecordStream(s));
                Assert.Throws<ObjectDisposedException>(() => ev.Record(s));
                Assert.Throws<ObjectDisposedException>(() => ev.Wait(s));
                Assert.AreEqual("CudaStream(disposed)", s.ToString());
                // An owning handle of a value that is not a stream: its release (ct_stream_release)
                // fails with 102, which a release cannot report, and touches nothing.
                new CudaStreamHandle(ev.Handle.DangerousGetHandle(), true).Dispose();
                Assert.IsTrue(ev.Query());   // the event the fake handles pointed at is untouched
            }
        }

        [Test]
        public void MemoryStatOfANullForeignOrDisposedStream()
        {
            // The per-stream statistics (ct_cuda_memory_stream_stat) check the handle first,
            // so these errors are the same with or without a GPU.
            using (var ev = new CudaEvent())
            using (Tensor t = F(1))
            {
                using (CudaStream ghost = ForeignStream(ev))
                {
                    CtorchException e = Fails(StatusCode.InvalidHandle, () => ghost.MemoryStat("allocated_bytes.current"));
                    StringAssert.Contains("not a ctorch stream handle", e.NativeMessage);
                    Fails(StatusCode.InvalidHandle, () => ghost.MemoryStat("segment.peak"));
                    Assert.Throws<ArgumentNullException>(() => ghost.MemoryStat(null));
                }

                CudaStream s = ForeignStream(ev);   // not owning: disposing it releases nothing
                s.Dispose();
                Assert.Throws<ObjectDisposedException>(() => s.MemoryStat("allocated_bytes.current"));
                Assert.Throws<ArgumentNullException>(() => s.MemoryStat(null));
                Assert.IsTrue(ev.Query());
            }
        }

    }
}
