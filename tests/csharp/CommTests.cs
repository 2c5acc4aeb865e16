// torch.cuda.comm and NCCL communicators through the C# binding (CudaComm, NcclComm, NcclGroup;
// ctorch.h sections 20 and 21). On any machine: the generated NcclComm.ReduceOp against the C
// constants, the constants, the exception types of CT_ERR_TIMEOUT and CT_ERR_COMM, argument
// marshalling the binding checks itself (null and disposed arguments, arrays of tensors, devices and
// streams of mismatched lengths, unique ids of the wrong length, timeouts), lifetimes (Dispose
// twice, use after Dispose, foreign handles: 102), and without a GPU the CT_ERR_CUDA_UNAVAILABLE of
// every call as CtorchException (CudaUnavailable) with the live communicator count unchanged.
// On a GPU host (skipped visibly elsewhere; the communicator tests also without NCCL), what the
// binding can get wrong on one GPU: which results are the source itself, scatter/gather round trips
// with chunk sizes and streams, reduce_add, a single-rank communicator's collectives, split, groups,
// wait/check/abort/destroy, the timeout of a peer that never joins as CtorchTimeoutException, and the
// finalizer releasing dropped communicators (NcclCommGcTests). On two GPUs (skipped with fewer):
// torch.cuda.comm across devices, and two ranks on threads of one process running every collective. The C layer's own rules are tested in
// tests/capi.
using System;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Threading;
using Ctorch;
using Ctorch.Swig;
using NUnit.Framework;

namespace Ctorch.Tests
{
    [TestFixture]
    public class CommTests : TestBase
    {
        private long _startComms;

        [SetUp]
        public void StartCommCount() => _startComms = Torch.LiveNcclCommCount;

        [TearDown]
        public void EndCommCount() =>
            Assert.AreEqual(_startComms, Torch.LiveNcclCommCount, "live communicator count after the test");

        // A stream object whose handle is closed (made without a GPU: it never owned a stream).
        private static CudaStream DisposedStream()
        {
            var s = new CudaStream(new CudaStreamHandle(new IntPtr(1), false));
            s.Dispose();
            return s;
        }

        private static Tensor Gone()
        {
            Tensor t = F(9);
            t.Dispose();
            return t;
        }

        // ============================================================ on any machine

        [Test]
        public void ReduceOpsAreTheCConstants()
        {
            Assert.AreEqual(ctorch.CT_COMM_SUM, (int)NcclComm.ReduceOp.Sum);
            Assert.AreEqual(ctorch.CT_COMM_AVG, (int)NcclComm.ReduceOp.Avg);
            Assert.AreEqual(ctorch.CT_COMM_PRODUCT, (int)NcclComm.ReduceOp.Product);
            Assert.AreEqual(ctorch.CT_COMM_MIN, (int)NcclComm.ReduceOp.Min);
            Assert.AreEqual(ctorch.CT_COMM_MAX, (int)NcclComm.ReduceOp.Max);
            Assert.AreEqual(5, Enum.GetValues(typeof(NcclComm.ReduceOp)).Length);
            // torch.distributed.ReduceOp's numbers
            CollectionAssert.AreEqual(new[] { 0, 1, 2, 3, 4 },
                new[] { NcclComm.ReduceOp.Sum, NcclComm.ReduceOp.Avg, NcclComm.ReduceOp.Product,
                        NcclComm.ReduceOp.Min, NcclComm.ReduceOp.Max }.Select(o => (int)o).ToArray());
        }

        [Test]
        public void Constants()
        {
            Assert.AreEqual(128, NcclComm.UniqueIdBytes);
            Assert.AreEqual(-1, NcclComm.NoColor);
            Assert.AreEqual(TimeSpan.FromMinutes(10), NcclComm.DefaultTimeout);
            Assert.AreEqual(10L * 1024 * 1024, CudaComm.DefaultBufferSize);
        }

        [Test]
        public void TimeoutAndCommErrorsHaveTheirOwnExceptions()
        {
            Assert.AreEqual(201, (int)StatusCode.Timeout);
            Assert.AreEqual(303, (int)StatusCode.Comm);
            CtorchException t = CtorchException.FromStatus((int)StatusCode.Timeout);
            Assert.IsInstanceOf<CtorchTimeoutException>(t);
            Assert.AreEqual(StatusCode.Timeout, t.Code);
            Assert.AreEqual("CT_ERR_TIMEOUT", t.StatusName);
            CtorchException c = CtorchException.FromStatus((int)StatusCode.Comm);
            Assert.IsInstanceOf<CtorchCommException>(c);
            Assert.AreEqual(StatusCode.Comm, c.Code);
            Assert.AreEqual("CT_ERR_COMM", c.StatusName);
            // The neighbours of each range stay plain CtorchExceptions.
            Assert.AreEqual(typeof(CtorchException), CtorchException.FromStatus((int)StatusCode.State).GetType());
            Assert.AreEqual(typeof(CtorchException), CtorchException.FromStatus((int)StatusCode.Cuda).GetType());
            // Both keep their type and fields across serialization.
            var f = new System.Runtime.Serialization.Formatters.Binary.BinaryFormatter();
            foreach (CtorchException e in new[] { t, c })
            {
                using (var m = new System.IO.MemoryStream())
                {
                    f.Serialize(m, e);
                    m.Position = 0;
                    var back = (CtorchException)f.Deserialize(m);
                    Assert.AreEqual(e.GetType(), back.GetType());
                    Assert.AreEqual(e.Code, back.Code);
                    Assert.AreEqual(e.StatusName, back.StatusName);
                }
            }
        }

        [Test]
        public void CommArgumentsCheckedByTheBinding()
        {
            Tensor x = F(1, 2, 3, 4), y = F(5, 6, 7, 8), gone = Gone();
            CudaStream ds = DisposedStream();

            Assert.Throws<ArgumentNullException>(() => CudaComm.Broadcast(null, 0));
            Assert.Throws<ArgumentNullException>(() => CudaComm.Broadcast(x, null));
            Assert.Throws<ObjectDisposedException>(() => CudaComm.Broadcast(gone, 0));

            Assert.Throws<ArgumentNullException>(() => CudaComm.BroadcastOut(null, y));
            Assert.Throws<ArgumentNullException>(() => CudaComm.BroadcastOut(x, null));
            var e = Assert.Throws<ArgumentNullException>(() => CudaComm.BroadcastOut(x, y, null));
            StringAssert.Contains("element 1", e.Message);
            var d = Assert.Throws<ObjectDisposedException>(() => CudaComm.BroadcastOut(x, gone));
            StringAssert.Contains("element 0", d.Message);

            Assert.Throws<ArgumentNullException>(() => CudaComm.BroadcastCoalesced(null, new[] { 0 }));
            Assert.Throws<ArgumentNullException>(() => CudaComm.BroadcastCoalesced(new[] { x }, null));
            Assert.Throws<ArgumentNullException>(() => CudaComm.BroadcastCoalesced(new[] { x, null }, new[] { 0 }));

            Assert.Throws<ArgumentNullException>(() => CudaComm.ReduceAdd(null));
            d = Assert.Throws<ObjectDisposedException>(() => CudaComm.ReduceAdd(new[] { x, gone }));
            StringAssert.Contains("element 1", d.Message);

            Assert.Throws<ArgumentNullException>(() => CudaComm.ReduceAddCoalesced(null));
            Assert.Throws<ArgumentNullException>(() => CudaComm.ReduceAddCoalesced(new[] { new[] { x }, null }));
            var a = Assert.Throws<ArgumentException>(() =>
                CudaComm.ReduceAddCoalesced(new[] { new[] { x, y }, new[] { y } }));
            StringAssert.Contains("row 1 has 1 tensors, row 0 has 2", a.Message);
            Assert.Throws<ArgumentNullException>(() => CudaComm.ReduceAddCoalesced(new[] { new[] { x }, new Tensor[] { null } }));

            Assert.Throws<ArgumentNullException>(() => CudaComm.Scatter(null, new[] { 0 }));
            Assert.Throws<ArgumentNullException>(() => CudaComm.Scatter(x, null));
            // The C function reads one chunk size and one stream per device: other lengths never get there.
            a = Assert.Throws<ArgumentException>(() => CudaComm.Scatter(x, new[] { 0, 0 }, new long[] { 4 }));
            Assert.AreEqual("chunkSizes", a.ParamName);
            a = Assert.Throws<ArgumentException>(() => CudaComm.Scatter(x, new[] { 0 }, null, 0, new CudaStream[2]));
            Assert.AreEqual("streams", a.ParamName);
            d = Assert.Throws<ObjectDisposedException>(() => CudaComm.Scatter(x, new[] { 0, 0 }, null, 0, new[] { null, ds }));
            StringAssert.Contains("element 1", d.Message);

            Assert.Throws<ArgumentNullException>(() => CudaComm.ScatterOut(x, null));
            Assert.Throws<ArgumentNullException>(() => CudaComm.ScatterOut(null, new[] { y }));
            Assert.Throws<ArgumentNullException>(() => CudaComm.ScatterOut(x, new[] { y, null }));
            a = Assert.Throws<ArgumentException>(() => CudaComm.ScatterOut(x, new[] { y }, 0, new CudaStream[0]));
            Assert.AreEqual("streams", a.ParamName);
            Assert.Throws<ObjectDisposedException>(() => CudaComm.ScatterOut(x, new[] { y }, 0, new[] { ds }));

            Assert.Throws<ArgumentNullException>(() => CudaComm.Gather(null));
            Assert.Throws<ArgumentNullException>(() => CudaComm.Gather(new[] { x, null }, 0, Device.Cpu));
            Assert.Throws<ArgumentOutOfRangeException>(() => CudaComm.Gather(new[] { x }, 0, -2));
            Assert.Throws<ArgumentNullException>(() => CudaComm.GatherOut(null, y));
            Assert.Throws<ArgumentNullException>(() => CudaComm.GatherOut(new[] { x }, null));
            Assert.Throws<ObjectDisposedException>(() => CudaComm.GatherOut(new[] { x }, gone));

            // Nothing was disposed or changed by the refused calls.
            Assert.IsFalse(x.IsDisposed || y.IsDisposed);
            AreEqual(new float[] { 1, 2, 3, 4 }, x);
            AreEqual(new float[] { 5, 6, 7, 8 }, y);
        }

        [Test]
        public void CommunicatorArgumentsCheckedByTheBinding()
        {
            Assert.Throws<ArgumentNullException>(() => new NcclComm(1, null, 0));
            foreach (int n in new[] { 0, 1, 127, 129, 256 })
            {
                var e = Assert.Throws<ArgumentException>(() => new NcclComm(1, new byte[n], 0), "length " + n);
                Assert.AreEqual("uniqueId", e.ParamName);
                StringAssert.Contains("128 bytes", e.Message);
            }
            Assert.Throws<ArgumentException>(() => NcclComm.InitRank(1, new byte[3], 0));
            var id = new byte[NcclComm.UniqueIdBytes];
            Assert.Throws<ArgumentOutOfRangeException>(() => new NcclComm(1, id, 0, 0, TimeSpan.Zero));
            Assert.Throws<ArgumentOutOfRangeException>(() => new NcclComm(1, id, 0, 0, TimeSpan.FromSeconds(-1)));
            Assert.Throws<ArgumentOutOfRangeException>(() => new NcclComm(1, id, 0, 0, Timeout.InfiniteTimeSpan));
            Assert.Throws<ArgumentNullException>(() => new NcclComm((NcclCommHandle)null));
            Assert.Throws<ArgumentException>(() => NcclComm.FromHandle(IntPtr.Zero));
        }

        [Test]
        public void TimeoutsGoInWholeMillisecondsRoundedUp()
        {
            Assert.AreEqual(0, NcclComm.Milliseconds(null, "t"), "null: the C default");
            Assert.AreEqual(1, NcclComm.Milliseconds(TimeSpan.FromTicks(1), "t"), "never 0 (the default) for a positive timeout");
            Assert.AreEqual(1000, NcclComm.Milliseconds(TimeSpan.FromSeconds(1), "t"));
            Assert.AreEqual(1001, NcclComm.Milliseconds(TimeSpan.FromTicks(TimeSpan.TicksPerSecond + 1), "t"));
            Assert.AreEqual(TimeSpan.MaxValue.Ticks / TimeSpan.TicksPerMillisecond + 1, NcclComm.Milliseconds(TimeSpan.MaxValue, "t"));
            var e = Assert.Throws<ArgumentOutOfRangeException>(() => NcclComm.Milliseconds(TimeSpan.Zero, "wait"));
            Assert.AreEqual("wait", e.ParamName);
        }

        // The code of a call on a foreign handle: 102, or without CUDA 301, which every call of
        // section 21 checks first.
        private static StatusCode ForeignHandleCode => Cuda.IsAvailable ? StatusCode.InvalidHandle : StatusCode.CudaUnavailable;

        [Test]
        public void ForeignAndDisposedCommunicators()
        {
            StatusCode code = ForeignHandleCode;
            using (var g = new CudaGraph())
            using (Tensor t = F(1, 2), u = F(3, 4))
            {
                // A communicator wrapping a graph's handle (not owned): every call reaches the C
                // layer, which rejects it.
                var ghost = new NcclComm(new NcclCommHandle(g.Handle.DangerousGetHandle(), false));
                Assert.IsFalse(ghost.IsDisposed);
                Fails(code, () => ghost.NewReference());
                Fails(code, () => ghost.Split(0));
                Fails(code, () => ghost.Split(NcclComm.NoColor, 3));
                Fails(code, () => { int r = ghost.Rank; });
                Fails(code, () => { int r = ghost.Size; });
                Fails(code, () => { int r = ghost.DeviceIndex; });
                Fails(code, () => { Device r = ghost.Device; });
                Fails(code, () => ghost.Check());
                Fails(code, () => ghost.Wait());
                Fails(code, () => ghost.Wait(TimeSpan.FromMilliseconds(10)));
                Fails(code, () => ghost.Abort());
                Fails(code, () => ghost.Destroy());
                Fails(code, () => ghost.AllReduce(t));
                Fails(code, () => ghost.AllReduce(t, NcclComm.ReduceOp.Max, null));
                Fails(code, () => ghost.Broadcast(t, 0));
                Fails(code, () => ghost.Reduce(t, 0, NcclComm.ReduceOp.Min));
                Fails(code, () => ghost.AllGather(u, t));
                Fails(code, () => ghost.ReduceScatter(u, t, NcclComm.ReduceOp.Product));
                Fails(code, () => ghost.AllToAll(u, t));
                Fails(code, () => ghost.Send(t, 0));
                Fails(code, () => ghost.Recv(t, 0));
                StringAssert.StartsWith("NcclComm(CT_", ghost.ToString());

                // Tensors are checked before the call: null and disposed ones never get there.
                Assert.Throws<ArgumentNullException>(() => ghost.AllReduce(null));
                Assert.Throws<ArgumentNullException>(() => ghost.AllGather(null, t));
                Assert.Throws<ArgumentNullException>(() => ghost.AllToAll(u, null));
                Assert.Throws<ObjectDisposedException>(() => ghost.Send(Gone(), 0));
                Assert.Throws<ObjectDisposedException>(() => ghost.ReduceScatter(u, t, NcclComm.ReduceOp.Sum, DisposedStream()));
                Assert.Throws<ArgumentOutOfRangeException>(() => ghost.Wait(TimeSpan.Zero));

                ghost.Dispose();
                ghost.Dispose();   // twice: nothing
                Assert.IsTrue(ghost.IsDisposed);
                Assert.AreEqual("NcclComm(disposed)", ghost.ToString());
                Assert.Throws<ObjectDisposedException>(() => ghost.NewReference());
                Assert.Throws<ObjectDisposedException>(() => ghost.Split(0));
                Assert.Throws<ObjectDisposedException>(() => { int r = ghost.Rank; });
                Assert.Throws<ObjectDisposedException>(() => { int r = ghost.Size; });
                Assert.Throws<ObjectDisposedException>(() => { int r = ghost.DeviceIndex; });
                Assert.Throws<ObjectDisposedException>(() => ghost.Check());
                Assert.Throws<ObjectDisposedException>(() => ghost.Wait());
                Assert.Throws<ObjectDisposedException>(() => ghost.Abort());
                Assert.Throws<ObjectDisposedException>(() => ghost.Destroy());
                Assert.Throws<ObjectDisposedException>(() => ghost.AllReduce(t));
                Assert.Throws<ObjectDisposedException>(() => ghost.Broadcast(t, 0));
                Assert.Throws<ObjectDisposedException>(() => ghost.Reduce(t, 0));
                Assert.Throws<ObjectDisposedException>(() => ghost.AllGather(u, t));
                Assert.Throws<ObjectDisposedException>(() => ghost.ReduceScatter(u, t));
                Assert.Throws<ObjectDisposedException>(() => ghost.AllToAll(u, t));
                Assert.Throws<ObjectDisposedException>(() => ghost.Send(t, 0));
                Assert.Throws<ObjectDisposedException>(() => ghost.Recv(t, 0));
                Assert.IsFalse(g.IsDisposed, "the wrapper did not own the handle");
            }
            // The raw layer: NULL, as the foreign handle above.
            Assert.AreEqual((int)code, ctorch.ct_nccl_comm_retain(IntPtr.Zero));
            Assert.AreEqual((int)code, ctorch.ct_nccl_comm_release(IntPtr.Zero));
        }

        [Test]
        public void WithoutGpuEveryCommCallFailsWith301()
        {
            RequireNoGpu();
            Assert.IsFalse(NcclComm.IsAvailable);
            Assert.GreaterOrEqual(Torch.LiveNcclCommCount, 0);
            Unavailable(() => { Version v = NcclComm.Version; });
            Unavailable(() => NcclComm.GetUniqueId());
            var id = new byte[NcclComm.UniqueIdBytes];
            Unavailable(() => new NcclComm(1, id, 0));
            Unavailable(() => new NcclComm(2, id, 1, 0, TimeSpan.FromSeconds(1)));
            Unavailable(() => NcclComm.InitRank(1, id, 0, -1));
            Unavailable(() => NcclComm.GroupStart());
            Unavailable(() => NcclComm.GroupEnd());
            Unavailable(() => NcclComm.Group());

            using (Tensor x = F(1, 2, 3, 4), y = F(0, 0, 0, 0), z = F(0, 0, 0, 0, 0, 0, 0, 0))
            {
                Unavailable(() => CudaComm.Broadcast(x, 0));
                Unavailable(() => CudaComm.Broadcast(x, 0, 1));
                Unavailable(() => CudaComm.BroadcastOut(x, y));
                Unavailable(() => CudaComm.BroadcastCoalesced(new[] { x, y }, new[] { 0, 1 }));
                Unavailable(() => CudaComm.BroadcastCoalesced(new[] { x }, new[] { 0 }, 1024));
                Unavailable(() => CudaComm.ReduceAdd(new[] { x, y }));
                Unavailable(() => CudaComm.ReduceAdd(new[] { x, y }, 0));
                Unavailable(() => CudaComm.ReduceAddCoalesced(new[] { new[] { x }, new[] { y } }));
                Unavailable(() => CudaComm.ReduceAddCoalesced(new[] { new[] { x }, new[] { y } }, 0, 1024));
                Unavailable(() => CudaComm.Scatter(x, new[] { 0, 1 }));
                Unavailable(() => CudaComm.Scatter(x, new[] { 0, 1 }, new long[] { 1, 3 }, 0, new CudaStream[2]));
                Unavailable(() => CudaComm.ScatterOut(x, new[] { y }));
                Unavailable(() => CudaComm.ScatterOut(x, new[] { y }, 0, new CudaStream[1]));
                Unavailable(() => CudaComm.Gather(new[] { x, y }));
                Unavailable(() => CudaComm.Gather(new[] { x, y }, 0, Device.Cpu));
                Unavailable(() => CudaComm.Gather(new[] { x, y }, 0, 0));
                Unavailable(() => CudaComm.GatherOut(new[] { x, y }, z));
                AreEqual(new float[] { 0, 0, 0, 0 }, y);
            }
            Assert.AreEqual(_startComms, Torch.LiveNcclCommCount);
        }

        // ============================================================ on a GPU: torch.cuda.comm

        private static readonly Device Cuda0 = Device.CudaAt(0);

        private static Tensor C(params float[] v) => Tensor.FromArray(v, new long[] { v.Length }, Cuda0);

        // Work queued on s from now on waits for the work queued so far on the current stream.
        private static void WaitForCurrent(CudaStream s)
        {
            using (CudaStream current = CudaStream.Current(s.DeviceIndex)) s.WaitStream(current);
        }

        [Test]
        public void BroadcastToTheSourceDeviceGivesTheSourceItself()
        {
            RequireGpu();
            Tensor x = C(1, 2, 3);
            Tensor[] one = CudaComm.Broadcast(x, 0);
            Assert.AreEqual(1, one.Length);
            Assert.IsTrue(one[0].IsSame(x), "broadcast to [0] returns the source itself");
            Assert.AreNotSame(x, one[0], "as a new object the caller owns");
            // [0, 0]: each result on the source's device is the source (ctorch.h, as torch's comm.broadcast)
            Tensor[] two = CudaComm.Broadcast(x, 0, 0);
            Assert.AreEqual(2, two.Length);
            Assert.AreNotSame(two[0], two[1], "one object per result");
            foreach (Tensor t in two)
            {
                Assert.IsTrue(t.IsSame(x));
                AreEqual(new float[] { 1, 2, 3 }, t);
            }
            // Disposing a result leaves the source usable.
            one[0].Dispose();
            AreEqual(new float[] { 1, 2, 3 }, x);

            // From the CPU: a copy on each device.
            Tensor h = F(4, 5);
            Tensor[] fromHost = CudaComm.Broadcast(h, 0);
            Assert.AreEqual(Cuda0, fromHost[0].Device);
            AreEqual(new float[] { 4, 5 }, fromHost[0]);

            // Into given outputs (a dtype of their own converts).
            Tensor o1 = Tensor.Zeros(new long[] { 3 }, DType.Float32, Cuda0), o2 = Tensor.Zeros(new long[] { 3 }, DType.Float64, Cuda0);
            CudaComm.BroadcastOut(x, o1, o2);
            AreEqual(new float[] { 1, 2, 3 }, o1);
            AreEqual(new double[] { 1, 2, 3 }, o2);
            Fails(StatusCode.Shape, () => CudaComm.BroadcastOut(x, Tensor.Zeros(new long[] { 4 }, DType.Float32, Cuda0)));
            Fails(StatusCode.Device, () => CudaComm.BroadcastOut(x, F(0, 0, 0)));
            Fails(StatusCode.Device, () => CudaComm.Broadcast(x, -1));
        }

        [Test]
        public void BroadcastCoalescedRows()
        {
            RequireGpu();
            Tensor x = C(1, 2), y = Tensor.FromArray(new long[] { 7, 8, 9 }, new long[] { 3 }, Cuda0);
            Tensor[][] r = CudaComm.BroadcastCoalesced(new[] { x, y }, new[] { 0, 0 }, 4);
            Assert.AreEqual(2, r.Length);
            Assert.AreEqual(2, r[0].Length);
            Assert.AreEqual(2, r[1].Length);
            Assert.IsTrue(r[0][0].IsSame(x) && r[0][1].IsSame(y), "the first row is the inputs themselves");
            AreEqual(new float[] { 1, 2 }, r[1][0]);
            AreEqual(new long[] { 7, 8, 9 }, r[1][1]);
            Fails(StatusCode.Device, () => CudaComm.BroadcastCoalesced(new[] { x, F(1) }, new[] { 0, 0 }));
        }

        [Test]
        public void ReduceAddOnOneDevice()
        {
            RequireGpu();
            Tensor a = C(1, 2, 3), b = C(10, 20, 30);
            Tensor s = CudaComm.ReduceAdd(new[] { a, b }, 0);
            Assert.IsFalse(s.IsSame(a) || s.IsSame(b));
            Assert.AreEqual(Cuda0, s.Device);
            AreEqual(new float[] { 11, 22, 33 }, s);
            AreEqual(new float[] { 1, 2, 3 }, a);
            AreEqual(new float[] { 11, 22, 33 }, CudaComm.ReduceAdd(new[] { a, b }));   // the current device
            Assert.IsTrue(CudaComm.ReduceAdd(new[] { a }, 0).IsSame(a), "one input: the input itself");
            Fails(StatusCode.Shape, () => CudaComm.ReduceAdd(new[] { a, C(1, 2) }, 0));

            Tensor[] cols = CudaComm.ReduceAddCoalesced(new[] { new[] { a, C(5) }, new[] { b, C(6) } }, 0, 8);
            Assert.AreEqual(2, cols.Length);
            AreEqual(new float[] { 11, 22, 33 }, cols[0]);
            AreEqual(new float[] { 11 }, cols[1]);
        }

        [Test]
        public void ScatterAndGatherRoundTrip()
        {
            RequireGpu();
            Tensor x = Tensor.Arange(10L, DType.Int64, Cuda0);
            using (var s = new CudaStream(0))
            {
                WaitForCurrent(s);   // x and the outputs below are written on the current stream
                Tensor[] chunks = CudaComm.Scatter(x, new[] { 0, 0 }, new long[] { 3, 7 }, 0, new[] { s, null });
                Assert.AreEqual(2, chunks.Length);
                s.Synchronize();
                AreEqual(new long[] { 0, 1, 2 }, chunks[0]);
                AreEqual(new long[] { 3, 4, 5, 6, 7, 8, 9 }, chunks[1]);
                Assert.AreEqual(x.DataPtr + 3 * 8, chunks[1].DataPtr, "a chunk on the source's device is a view of it");

                AreEqual(Enumerable.Range(0, 10).Select(i => (long)i).ToArray(), CudaComm.Gather(chunks));
                Tensor onHost = CudaComm.Gather(chunks, 0, Device.Cpu);
                Assert.AreEqual(Device.Cpu, onHost.Device);
                AreEqual(Enumerable.Range(0, 10).Select(i => (long)i).ToArray(), onHost);
                Assert.AreEqual(Cuda0, CudaComm.Gather(chunks, 0, 0).Device);

                // Into given outputs, split by their sizes, on a stream each.
                Tensor o1 = Tensor.Zeros(new long[] { 4 }, DType.Int64, Cuda0), o2 = Tensor.Zeros(new long[] { 6 }, DType.Int64, Cuda0);
                WaitForCurrent(s);   // o2 was written (zeros) on the current stream
                CudaComm.ScatterOut(x, new[] { o1, o2 }, 0, new[] { null, s });
                s.Synchronize();
                AreEqual(new long[] { 0, 1, 2, 3 }, o1);
                AreEqual(new long[] { 4, 5, 6, 7, 8, 9 }, o2);
                Tensor back = Tensor.Zeros(new long[] { 10 }, DType.Int64);
                CudaComm.GatherOut(new[] { o1, o2 }, back);
                AreEqual(Enumerable.Range(0, 10).Select(i => (long)i).ToArray(), back);
            }
            // Equal chunks (tensor.chunk): 3 elements over 4 devices make 3 chunks.
            Tensor[] three = CudaComm.Scatter(C(1, 2, 3), new[] { 0, 0, 0, 0 });
            Assert.AreEqual(3, three.Length, "the result has as many tensors as chunks");
            for (int i = 0; i < 3; i++) AreEqual(new float[] { i + 1 }, three[i]);
            // 2-D, along dim 1.
            Tensor m = Tensor.Arange(6L, DType.Int64, Cuda0).View(2, 3);
            Tensor[] cols = CudaComm.Scatter(m, new[] { 0, 0 }, new long[] { 1, 2 }, 1);
            ShapeIs(cols[0], 2, 1);
            AreEqual(new long[] { 1, 2, 4, 5 }, cols[1].Contiguous());
            ShapeIs(CudaComm.Gather(cols, 1), 2, 3);
            Fails(StatusCode.Index, () => CudaComm.Gather(cols, 5));
        }

        // ============================================================ on a GPU: communicators

        private static void RequireNccl()
        {
            RequireGpu();
            if (!NcclComm.IsAvailable)
                Assert.Ignore("needs NCCL (libnccl.so.2): ct_nccl_is_available is 0 on this machine");
        }

        private static NcclComm SingleRank() => new NcclComm(1, NcclComm.GetUniqueId(), 0, 0, TimeSpan.FromSeconds(60));

        [Test]
        public void NcclVersionAndUniqueIds()
        {
            RequireNccl();
            Version v = NcclComm.Version;
            Assert.AreEqual(2, v.Major, "NCCL 2.x");
            byte[] a = NcclComm.GetUniqueId(), b = NcclComm.GetUniqueId();
            Assert.AreEqual(128, a.Length);
            Assert.IsTrue(a.Any(x => x != 0), "an id is not all zeros");
            CollectionAssert.AreNotEqual(a, b, "each id is new");
        }

        [Test]
        public void SingleRankCommunicator()
        {
            RequireNccl();
            long n0 = Torch.LiveNcclCommCount;
            using (NcclComm comm = SingleRank())
            {
                Assert.AreEqual(n0 + 1, Torch.LiveNcclCommCount);
                Assert.AreEqual(0, comm.Rank);
                Assert.AreEqual(1, comm.Size);
                Assert.AreEqual(0, comm.DeviceIndex);
                Assert.AreEqual(Cuda0, comm.Device);
                Assert.AreEqual("NcclComm(rank=0, size=1, device=cuda:0)", comm.ToString());
                comm.Check();

                Tensor t = C(1, 2, 3);
                foreach (NcclComm.ReduceOp op in new[] { NcclComm.ReduceOp.Sum, NcclComm.ReduceOp.Avg, NcclComm.ReduceOp.Max,
                                                         NcclComm.ReduceOp.Min, NcclComm.ReduceOp.Product })
                {
                    comm.AllReduce(t, op);
                    AreEqual(new float[] { 1, 2, 3 }, t);   // one member: the reduction of itself
                }
                Tensor i = Tensor.FromArray(new long[] { 5, -7 }, new long[] { 2 }, Cuda0);
                comm.AllReduce(i, NcclComm.ReduceOp.Avg);
                AreEqual(new long[] { 5, -7 }, i);
                Fails(StatusCode.Argument, () => comm.AllReduce(t, (NcclComm.ReduceOp)99));
                Fails(StatusCode.Device, () => comm.AllReduce(F(1, 2)));

                comm.Broadcast(t, 0);
                comm.Reduce(t, 0, NcclComm.ReduceOp.Max);
                AreEqual(new float[] { 1, 2, 3 }, t);

                Tensor o = Tensor.Zeros(new long[] { 3 }, DType.Float32, Cuda0);
                comm.AllGather(o, t);
                AreEqual(new float[] { 1, 2, 3 }, o);
                Tensor o2 = Tensor.Zeros(new long[] { 3 }, DType.Float32, Cuda0);
                comm.ReduceScatter(o2, t, NcclComm.ReduceOp.Sum);
                AreEqual(new float[] { 1, 2, 3 }, o2);
                Tensor o3 = Tensor.Zeros(new long[] { 3 }, DType.Float32, Cuda0);
                comm.AllToAll(o3, t);
                AreEqual(new float[] { 1, 2, 3 }, o3);

                // Send and receive to itself: paired inside a group.
                Tensor got = Tensor.Zeros(new long[] { 3 }, DType.Float32, Cuda0);
                using (NcclComm.Group())
                {
                    comm.Send(t, 0);
                    comm.Recv(got, 0);
                }
                AreEqual(new float[] { 1, 2, 3 }, got);
                NcclComm.GroupStart();
                comm.AllReduce(t);
                NcclComm.GroupEnd();
                Fails(StatusCode.State, () => NcclComm.GroupEnd());   // an end without a start

                // On a stream of our own.
                using (var s = new CudaStream(0))
                {
                    Tensor u = C(4, 5), gathered = Tensor.Zeros(new long[] { 2 }, DType.Float32, Cuda0);
                    WaitForCurrent(s);   // u and gathered were written on the current stream
                    comm.AllReduce(u, NcclComm.ReduceOp.Sum, s);
                    comm.AllGather(gathered, u, s);
                    s.Synchronize();
                    AreEqual(new float[] { 4, 5 }, u);
                }
                comm.Wait();
                comm.Wait(TimeSpan.FromSeconds(30));
                comm.Check();

                // A second reference keeps the communicator.
                using (NcclComm r = comm.NewReference())
                {
                    Assert.AreEqual(n0 + 1, Torch.LiveNcclCommCount, "one communicator, two handles");
                    Assert.AreEqual(1, r.Size);
                }
                comm.Check();
            }
            Assert.AreEqual(n0, Torch.LiveNcclCommCount);
        }

        [Test]
        public void SplitGivesNullForNoColor()
        {
            RequireNccl();
            using (NcclComm comm = SingleRank())
            {
                Assert.IsNull(comm.Split(NcclComm.NoColor));
                using (NcclComm sub = comm.Split(0, 0))
                {
                    Assert.IsNotNull(sub);
                    Assert.AreEqual(0, sub.Rank);
                    Assert.AreEqual(1, sub.Size);
                    Assert.AreEqual(0, sub.DeviceIndex);
                    Tensor t = C(3, 4);
                    sub.AllReduce(t);
                    sub.Wait();
                    AreEqual(new float[] { 3, 4 }, t);
                }
            }
        }

        [Test]
        public void AbortAndDestroyEndTheCommunicator()
        {
            RequireNccl();
            Tensor t = C(1, 2);
            using (NcclComm comm = SingleRank())
            {
                comm.Abort();
                comm.Abort();   // twice is allowed
                Fails(StatusCode.State, () => comm.Check());
                Fails(StatusCode.State, () => comm.AllReduce(t));
                Fails(StatusCode.State, () => comm.Wait());
            }
            using (NcclComm comm = SingleRank())
            {
                comm.AllReduce(t);
                comm.Destroy();
                Fails(StatusCode.State, () => comm.Check());
                Fails(StatusCode.State, () => comm.Broadcast(t, 0));
            }
        }

        [Test]
        public void PeerThatNeverJoinsTimesOut()
        {
            RequireNccl();
            long n0 = Torch.LiveNcclCommCount;
            byte[] id = NcclComm.GetUniqueId();
            var e = Assert.Throws<CtorchTimeoutException>(() => new NcclComm(2, id, 0, 0, TimeSpan.FromSeconds(1)));
            Assert.AreEqual(StatusCode.Timeout, e.Code);
            Assert.IsFalse(string.IsNullOrEmpty(e.NativeMessage));
            Assert.AreEqual(n0, Torch.LiveNcclCommCount, "nothing is left behind");
        }

        [Test]
        public void GroupMustEndOnItsThread()
        {
            RequireNccl();
            NcclGroup g = NcclComm.Group();
            Exception other = null;
            var th = new Thread(() =>
            {
                try { g.Dispose(); }
                catch (Exception e) { other = e; }
            });
            th.Start();
            th.Join();
            Assert.IsInstanceOf<InvalidOperationException>(other);
            g.Dispose();   // on its own thread: ends the group
            g.Dispose();   // twice: nothing
            Fails(StatusCode.State, () => NcclComm.GroupEnd());
        }

        // ============================================================ on two GPUs (skipped with fewer)

        [Test]
        public void CommAcrossTwoDevices()
        {
            RequireGpu(2);
            Device cuda1 = Device.CudaAt(1);
            Tensor x = C(1, 2, 3, 4);
            Tensor[] b = CudaComm.Broadcast(x, 0, 1);
            Assert.IsTrue(b[0].IsSame(x));
            Assert.AreEqual(cuda1, b[1].Device);
            AreEqual(new float[] { 1, 2, 3, 4 }, b[1]);
            Tensor sum = CudaComm.ReduceAdd(b, 1);   // the destination holds b[1]
            Assert.AreEqual(cuda1, sum.Device);
            AreEqual(new float[] { 2, 4, 6, 8 }, sum);
            Fails(StatusCode.Device, () => CudaComm.ReduceAdd(new[] { x }, 1));   // no input on cuda:1

            Tensor[][] rows = CudaComm.BroadcastCoalesced(new[] { x, C(5) }, new[] { 0, 1 });
            Assert.AreEqual(cuda1, rows[1][1].Device);
            AreEqual(new float[] { 5 }, rows[1][1]);
            Tensor[] cols = CudaComm.ReduceAddCoalesced(rows, 0);
            Assert.AreEqual(Cuda0, cols[0].Device);
            AreEqual(new float[] { 2, 4, 6, 8 }, cols[0]);
            AreEqual(new float[] { 10 }, cols[1]);

            Cuda.Synchronize(0);   // x is written: the side streams may copy it
            using (var s0 = new CudaStream(0))
            using (var s1 = new CudaStream(1))
            {
                Tensor[] parts = CudaComm.Scatter(x, new[] { 0, 1 }, new long[] { 1, 3 }, 0, new[] { s0, s1 });
                s0.Synchronize();
                s1.Synchronize();
                Assert.AreEqual(cuda1, parts[1].Device);
                AreEqual(new float[] { 2, 3, 4 }, parts[1]);
                Tensor back = CudaComm.Gather(parts, 0, cuda1);
                Assert.AreEqual(cuda1, back.Device);
                AreEqual(new float[] { 1, 2, 3, 4 }, back);
                // streams[i] must be on devices[i]
                Fails(StatusCode.Device, () => CudaComm.Scatter(x, new[] { 0, 1 }, null, 0, new[] { s1, s0 }));
            }
        }

        // Runs body(rank) for ranks 0 .. n-1 on threads of their own; rethrows the first failure.
        private static void RunRanks(int n, Action<int> body)
        {
            var errors = new Exception[n];
            Thread[] threads = Enumerable.Range(0, n).Select(r => new Thread(() =>
            {
                try
                {
                    using (DisposeScope.Begin()) body(r);
                }
                catch (Exception e) { errors[r] = e; }
            })).ToArray();
            foreach (Thread t in threads) t.Start();
            foreach (Thread t in threads) t.Join();
            Exception first = errors.FirstOrDefault(e => e != null);
            if (first != null) System.Runtime.ExceptionServices.ExceptionDispatchInfo.Capture(first).Throw();
        }

        [Test]
        public void TwoRanksOnTwoDevices()
        {
            RequireNccl();
            RequireGpu(2);
            byte[] id = NcclComm.GetUniqueId();
            RunRanks(2, rank =>
            {
                Device d = Device.CudaAt(rank);
                int peer = 1 - rank;
                using (var comm = new NcclComm(2, id, rank, rank, TimeSpan.FromSeconds(60)))
                {
                    Assert.AreEqual(rank, comm.Rank);
                    Assert.AreEqual(2, comm.Size);
                    Assert.AreEqual(d, comm.Device);
                    Tensor t = Tensor.Full(new long[] { 3 }, rank + 1, DType.Float32, d);
                    comm.AllReduce(t);
                    AreEqual(new float[] { 3, 3, 3 }, t);
                    comm.AllReduce(t, NcclComm.ReduceOp.Avg);
                    AreEqual(new float[] { 3, 3, 3 }, t);
                    Tensor m = Tensor.Full(new long[] { 1 }, rank + 1, DType.Float32, d);
                    comm.AllReduce(m, NcclComm.ReduceOp.Max);
                    AreEqual(new float[] { 2 }, m);

                    Tensor root = Tensor.Full(new long[] { 2 }, 10 * (rank + 1), DType.Float32, d);
                    comm.Broadcast(root, 1);
                    AreEqual(new float[] { 20, 20 }, root);

                    Tensor all = Tensor.Zeros(new long[] { 2 }, DType.Float32, d);
                    comm.AllGather(all, Tensor.Full(new long[] { 1 }, rank + 1, DType.Float32, d));
                    AreEqual(new float[] { 1, 2 }, all);

                    Tensor part = Tensor.Zeros(new long[] { 1 }, DType.Float32, d);
                    comm.ReduceScatter(part, Tensor.FromArray(new float[] { 1 + rank, 10 + rank }, new long[] { 2 }, d));
                    AreEqual(new float[] { rank == 0 ? 3 : 21 }, part);

                    Tensor swapped = Tensor.Zeros(new long[] { 2 }, DType.Float32, d);
                    comm.AllToAll(swapped, Tensor.FromArray(new float[] { 10 * rank, 10 * rank + 1 }, new long[] { 2 }, d));
                    AreEqual(new float[] { rank, 10 + rank }, swapped);

                    Tensor got = Tensor.Zeros(new long[] { 1 }, DType.Float32, d);
                    using (NcclComm.Group())
                    {
                        comm.Send(Tensor.Full(new long[] { 1 }, 100 + rank, DType.Float32, d), peer);
                        comm.Recv(got, peer);
                    }
                    AreEqual(new float[] { 100 + peer }, got);

                    // split by rank: two communicators of one member each
                    using (NcclComm alone = comm.Split(rank, 0))
                    {
                        Assert.AreEqual(1, alone.Size);
                        Assert.AreEqual(0, alone.Rank);
                    }
                    comm.Wait(TimeSpan.FromSeconds(30));
                    comm.Destroy();
                }
            });
        }
    }

    /// <summary>Communicators never disposed are released (and destroyed) by the finalizer.</summary>
    [TestFixture]
    [Category("gc")]
    public class NcclCommGcTests : GcFixture
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void Churn(int n)
        {
            for (int i = 0; i < n; i++)
            {
                var c = new NcclComm(1, NcclComm.GetUniqueId(), 0, 0, TimeSpan.FromSeconds(60));
                if (c.Size != 1) throw new InvalidOperationException("a single-rank communicator has size 1");
                if (i % 3 == 0) c.NewReference().Dispose();
                if (i % 3 == 1) c.Dispose();   // the rest are left to the GC
            }
        }

        [Test]
        public void DroppedCommunicatorsAreReleasedByTheGC()
        {
            RequireGpu();
            if (!NcclComm.IsAvailable) Assert.Ignore("needs NCCL (libnccl.so.2)");
            long start = Torch.LiveNcclCommCount;
            OnOwnThread(() => Churn(12));
            long left = WaitForCount(start, () => Torch.LiveNcclCommCount) - start;
            Assert.That(left, Is.InRange(0L, Residue), "communicators still alive after GC");
        }
    }
}
