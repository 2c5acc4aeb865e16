// GPU-only cases of the torch.cuda API: current device and guards that switch devices, streams
// (default / current / new / external, priorities, equality), stream guards, ordering work
// between streams with events, elapsed time, pinned memory with non-blocking copies, the sync
// debug mode on real host waits. On a machine without a GPU every test here is skipped visibly
// (NUnit "ignored", with the reason); the multi-GPU ones also on a machine with one GPU.
using System;
using Ctorch;
using NUnit.Framework;

namespace Ctorch.Tests
{
    [TestFixture]
    public class CudaGpuTests : TestBase
    {
        [Test]
        public void CurrentDeviceSetDeviceAndGuardsOnOneGpu()
        {
            RequireGpu();
            int d0 = Cuda.CurrentDevice;
            Assert.That(d0, Is.InRange(0, Cuda.DeviceCount - 1));
            Cuda.SetDevice(d0);
            Cuda.SetDevice(Device.CudaAt(d0));
            Assert.AreEqual(d0, Cuda.CurrentDevice);
            Fails(StatusCode.Index, () => Cuda.SetDevice(Cuda.DeviceCount));
            Assert.AreEqual(d0, Cuda.CurrentDevice);

            using (Tensor t = Tensor.Zeros(new long[] { 2 }, Device.CudaAt(d0)))
                foreach (Func<DeviceGuard> guard in new Func<DeviceGuard>[] { () => Cuda.UseDevice(d0), () => Cuda.DeviceOf(t) })
                    using (DeviceGuard g = guard())
                    {
                        Assert.AreEqual(d0, g.PreviousDevice);
                        Assert.AreEqual(d0, Cuda.CurrentDevice);
                    }
            Assert.AreEqual(d0, Cuda.CurrentDevice);
        }

        [Test]
        public void DeviceGuardsSwitchDevicesAndRestore()
        {
            RequireGpu(2);
            int d0 = Cuda.CurrentDevice;
            int other = d0 == 0 ? 1 : 0;
            using (DeviceGuard g = Cuda.UseDevice(other))
            {
                Assert.AreEqual(d0, g.PreviousDevice);
                Assert.AreEqual(other, Cuda.CurrentDevice);
                using (Tensor t = Tensor.Zeros(new long[] { 2 }, Device.Cuda))   // "cuda" = the current device
                    Assert.AreEqual(Device.CudaAt(other), t.Device);
                using (Cuda.UseDevice(d0))
                    Assert.AreEqual(d0, Cuda.CurrentDevice);                        // nested
                Assert.AreEqual(other, Cuda.CurrentDevice);
            }
            Assert.AreEqual(d0, Cuda.CurrentDevice);

            using (Tensor t = Tensor.Ones(new long[] { 3 }, Device.CudaAt(other)))
            {
                using (DeviceGuard g = Cuda.DeviceOf(t))
                {
                    Assert.AreEqual(d0, g.PreviousDevice);
                    Assert.AreEqual(other, Cuda.CurrentDevice);
                }
                Assert.AreEqual(d0, Cuda.CurrentDevice);
            }

            // Restored when the body throws.
            Assert.Throws<InvalidOperationException>(() =>
            {
                using (Cuda.UseDevice(other)) throw new InvalidOperationException("inside the guard");
            });
            Assert.AreEqual(d0, Cuda.CurrentDevice);

            // A stream guard switches to the stream's device and restores device and stream.
            using (var s = new CudaStream(other))
            using (CudaStream before = CudaStream.Current(other))
            {
                Assert.AreEqual(other, s.DeviceIndex);
                Assert.AreEqual(Device.CudaAt(other), s.Device);
                using (StreamGuard g = Cuda.UseStream(s))
                {
                    Assert.AreEqual(d0, g.PreviousDevice);
                    Assert.AreEqual(other, Cuda.CurrentDevice);
                    using (CudaStream cur = CudaStream.Current()) Assert.IsTrue(cur == s);
                    using (Tensor t = Tensor.Ones(new long[] { 4 }, Device.Cuda))
                    {
                        Assert.AreEqual(Device.CudaAt(other), t.Device);
                        AreEqual(new[] { 1f, 1f, 1f, 1f }, t);
                    }
                }
                Assert.AreEqual(d0, Cuda.CurrentDevice);
                using (CudaStream after = CudaStream.Current(other)) Assert.IsTrue(after == before);
            }
            // Asking is enough here: the answer depends on the machine's topology.
            GC.KeepAlive(Cuda.CanDeviceAccessPeer(d0, other));
        }

        [Test]
        public void DefaultCurrentAndNewStreams()
        {
            RequireGpu();
            int d = Cuda.CurrentDevice;
            using (CudaStream def = CudaStream.Default())
            using (CudaStream cur = CudaStream.Current())
            using (CudaStream def2 = Cuda.DefaultStream(d))
            {
                Assert.AreEqual(0L, def.CudaHandle);   // the legacy NULL stream
                Assert.AreEqual(d, def.DeviceIndex);
                Assert.AreEqual(Device.CudaAt(d), def.Device);
                Assert.AreEqual(0, def.Priority);
                Assert.IsTrue(cur == def, "the current stream starts as the default stream");
                Assert.AreNotSame(def, def2);
                Assert.IsTrue(def.Equals(def2));
                Assert.AreEqual(def.GetHashCode(), def2.GetHashCode());
                Assert.AreEqual("<torch.cuda.Stream device=cuda:" + d + " cuda_stream=0x0>", def.ToString());

                var (least, greatest) = CudaStream.PriorityRange;
                Assert.AreEqual(0, least);
                Assert.LessOrEqual(greatest, least);
                using (var s = new CudaStream())
                using (var high = new CudaStream(d, greatest - 100))                  // clamped
                using (var low = CudaStream.Create(Device.CudaAt(d), least + 100))   // clamped
                {
                    Assert.AreNotEqual(0L, s.CudaHandle);
                    Assert.IsFalse(s == def);
                    Assert.IsTrue(s != def);
                    Assert.IsFalse(s.Equals(high));
                    Assert.AreEqual(0, s.Priority);
                    Assert.AreEqual(greatest, high.Priority);
                    Assert.AreEqual(least, low.Priority);
                    Assert.AreEqual(d, s.DeviceIndex);
                    Assert.IsTrue(s.Query(), "nothing queued yet");
                    s.Synchronize();
                    StringAssert.StartsWith("<torch.cuda.Stream device=cuda:" + d + " cuda_stream=0x", s.ToString());
                    using (CudaStream again = s.NewReference())
                        Assert.IsTrue(again == s);
                    Assert.IsTrue(s.Query());   // still usable after the other reference went
                }
            }
        }

        [Test]
        public void SetCurrentAndStreamGuardsRestore()
        {
            RequireGpu();
            using (CudaStream def = CudaStream.Default())
            using (var s = new CudaStream())
            {
                using (StreamGuard g = Cuda.UseStream(s))
                {
                    Assert.AreEqual(Cuda.CurrentDevice, g.PreviousDevice);
                    using (CudaStream cur = CudaStream.Current()) Assert.IsTrue(cur == s);
                    using (var s2 = new CudaStream())
                    {
                        using (new StreamGuard(s2))
                        using (CudaStream cur = CudaStream.Current())
                            Assert.IsTrue(cur == s2);
                    }
                    using (CudaStream cur = CudaStream.Current()) Assert.IsTrue(cur == s, "the inner guard restored s");
                }
                using (CudaStream cur = CudaStream.Current()) Assert.IsTrue(cur == def);

                Assert.Throws<InvalidOperationException>(() =>
                {
                    using (Cuda.UseStream(s)) throw new InvalidOperationException("inside the guard");
                });
                using (CudaStream cur = CudaStream.Current()) Assert.IsTrue(cur == def, "restored after an exception");

                CudaStream.SetCurrent(s);
                try
                {
                    using (CudaStream cur = Cuda.CurrentStream()) Assert.IsTrue(cur == s);
                }
                finally
                {
                    Cuda.SetStream(def);
                }
                using (CudaStream cur = CudaStream.Current()) Assert.IsTrue(cur == def);
            }
        }

        [Test]
        public void ExternalStreams()
        {
            RequireGpu();
            using (var s = new CudaStream(-1, CudaStream.PriorityRange.Greatest))
            using (CudaStream ext = CudaStream.External(s.CudaHandle, s.DeviceIndex))
            using (CudaStream ext2 = CudaStream.External(new IntPtr(s.CudaHandle)))
            using (CudaStream def = CudaStream.Default())
            using (CudaStream extDefault = CudaStream.External(0L))
            {
                Assert.IsTrue(ext == s, "same device and cudaStream_t");
                Assert.IsTrue(ext2.Equals((object)s));
                Assert.AreEqual(s.GetHashCode(), ext.GetHashCode());
                Assert.AreEqual(s.Priority, ext.Priority);   // read back from CUDA
                Assert.IsTrue(extDefault == def);

                using (Cuda.UseStream(ext))
                using (Tensor x = Tensor.Arange(4.0, DType.Float32, Device.Cuda))
                using (Tensor y = x * 2.0)
                {
                    ext.Synchronize();
                    AreEqual(new[] { 0f, 2f, 4f, 6f }, y);
                }
            }
        }

        [Test]
        public void WorkOnASideStreamIsOrderedByEvents()
        {
            RequireGpu();
            const int n = 1 << 20;
            using (Tensor x = Tensor.Ones(new long[] { n }, Device.Cuda))
            using (CudaStream main = CudaStream.Current())
            using (var side = new CudaStream())
            {
                side.WaitStream(main);   // x is ready before side reads it
                Tensor y;
                CudaEvent done;
                using (Cuda.UseStream(side))
                {
                    y = x * 3.0;         // queued on side
                    y.Add_(1.0);
                    done = side.RecordEvent();
                }
                using (y)
                using (done)
                {
                    main.WaitEvent(done);    // main's later work waits for side's
                    y.RecordStream(main);    // y, allocated on side, is also used on main
                    using (Tensor z = y - 2.0)
                    using (Tensor total = z.Sum())
                    {
                        Assert.AreEqual(2.0 * n, total.ItemDouble());   // (1 * 3 + 1) - 2 per element
                    }
                    done.Synchronize();
                    Assert.IsTrue(done.Query());
                    side.Synchronize();
                    Assert.IsTrue(side.Query());

                    using (var e = new CudaEvent())
                    {
                        Assert.AreSame(e, side.RecordEvent(e));
                        e.Record(side);
                        e.Wait(main);
                        e.Wait();
                        side.WaitEvent(e);
                        e.Synchronize();
                        Assert.IsTrue(e.Query());
                    }
                }
            }
        }

        [Test]
        public void ElapsedTimeBetweenTimingEvents()
        {
            RequireGpu();
            using (var start = new CudaEvent(enableTiming: true))
            using (var end = new CudaEvent(enableTiming: true, blocking: true))
            using (var plain = new CudaEvent())
            using (Tensor x = Tensor.Ones(new long[] { 1 << 22 }, Device.Cuda))
            {
                start.Record();
                using (Tensor y = x * 2.0)
                using (Tensor z = y.Exp())
                {
                    end.Record();
                    plain.Record();
                    end.Synchronize();
                    Assert.IsTrue(end.Query());
                }
                double ms = start.ElapsedTime(end);
                Assert.GreaterOrEqual(ms, 0.0);
                Assert.Less(ms, 60000.0);
                Fails(StatusCode.State, () => start.ElapsedTime(plain));   // plain has no timing
            }
        }

        [Test]
        public void PinnedMemoryAndNonBlockingCopies()
        {
            RequireGpu();
            var data = new[] { 1f, 2f, 3f, 4f, 5f, 6f };
            using (Tensor host = Tensor.FromArray(data, 2, 3))
            using (Tensor pinned = host.PinMemory())
            using (Tensor g = pinned.To(Device.Cuda, null, nonBlocking: true))
            using (Tensor g10 = g * 10.0)
            using (Tensor back = g10.To(Device.Cpu, null, nonBlocking: true))
            {
                Assert.IsTrue(pinned.IsPinned);
                Assert.IsFalse(host.IsPinned);
                Assert.IsTrue(g.IsCuda);
                Assert.IsFalse(g.IsPinned);
                Assert.IsTrue(back.IsPinned, "a non_blocking GPU-to-CPU copy lands in pinned memory");
                using (CudaStream cur = CudaStream.Current()) cur.Synchronize();
                ShapeIs(back, 2, 3);
                AreEqual(new[] { 10f, 20f, 30f, 40f, 50f, 60f }, back);

                using (Tensor zeros = Tensor.Zeros(2, 3))
                using (Tensor dst = zeros.PinMemory())
                using (CudaStream cur = CudaStream.Current())
                {
                    dst.CopyFrom(g, nonBlocking: true);
                    using (CudaEvent copied = cur.RecordEvent()) copied.Synchronize();
                    AreEqual(data, dst);
                }
                using (Tensor g2 = pinned.Cuda(Cuda.CurrentDevice, nonBlocking: true))
                {
                    Cuda.Synchronize();
                    AreEqual(data, g2.Cpu());
                }
            }
        }

        [Test]
        public void SyncDebugModeErrorStopsHostWaits()
        {
            RequireGpu();
            using (Tensor g = Tensor.Ones(new long[] { 3 }, Device.Cuda))
            using (Tensor total = g.Sum())
            {
                try
                {
                    Cuda.SetSyncDebugMode(SyncDebugMode.Error);
                    CtorchException e = Fails(StatusCode.State, () => total.ItemDouble());
                    StringAssert.Contains("synchronizing", e.NativeMessage);
                    Cuda.Synchronize(); // explicit synchronization is not reported (as in PyTorch)
                    using (CudaStream s = CudaStream.Current()) Fails(StatusCode.State, () => s.Synchronize());
                    Cuda.SetSyncDebugMode(SyncDebugMode.Warn);   // a warning on stderr only
                    Assert.AreEqual(3.0, total.ItemDouble());
                    Cuda.Synchronize();
                }
                finally
                {
                    Cuda.SetSyncDebugMode(SyncDebugMode.Default);
                }
            }
        }

        [Test]
        public void RecordStreamChecksTheDevice()
        {
            RequireGpu();
            using (var s = new CudaStream())
            using (Tensor cpu = F(1, 2))
            using (Tensor g = cpu.Cuda())
            {
                g.RecordStream(s);
                Fails(StatusCode.Device, () => cpu.RecordStream(s));
            }
        }
    }
}
