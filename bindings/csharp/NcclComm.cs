// NCCL communicators for processes and hosts: torch.distributed's NCCL backend (section 21 of
// capi/ctorch.h; docs/csharp.md "Communication (NCCL)"). The enum NcclComm.ReduceOp is generated
// from capi/abi.toml into Abi.g.cs.
using System;
using System.Threading;
using Ctorch.Swig;

namespace Ctorch
{
    /// <summary>
    /// An NCCL communicator: nranks processes (or threads), each with one GPU, that run
    /// collectives together; every member calls the same collectives in the same order. One member
    /// gets a unique id (<see cref="GetUniqueId"/>), the program moves those bytes to the others
    /// with its own transport (a file, a socket, an environment variable), and each member joins
    /// with its rank:
    /// <code>
    /// byte[] id = rank == 0 ? NcclComm.GetUniqueId() : ReadIdFromSomewhere();
    /// using (var comm = new NcclComm(nranks, id, rank, device: rank % Cuda.DeviceCount))
    /// {
    ///     comm.AllReduce(t);                       // sum over all members, queued on the current stream
    ///     comm.Wait(TimeSpan.FromSeconds(30));     // or synchronize the stream
    /// }
    /// </code>
    /// Collectives are asynchronous like any op: each is queued on a stream (null: the current
    /// stream of the communicator's device) and returns. Tensors must be dense, contiguous CUDA
    /// tensors on the communicator's device. A collective that does not finish within the
    /// communicator's timeout, or an error NCCL or a peer reports, aborts the communicator (a
    /// watchdog checks every 100 ms); every later call then throws
    /// <see cref="CtorchTimeoutException"/> or <see cref="CtorchCommException"/> saying what
    /// happened, and after <see cref="Abort"/> or <see cref="Destroy"/> CtorchException (State).
    /// Each NcclComm object owns one reference to the native communicator through its
    /// <see cref="NcclCommHandle"/>; <see cref="NativeObject{T}.Dispose"/> releases it (the
    /// handle's finalizer does otherwise), and the last release destroys the communicator (waiting
    /// for its queued work, at most its timeout). Without CUDA every call throws CtorchException
    /// (CudaUnavailable), without NCCL (libnccl.so.2, loaded at first use) CtorchException
    /// (NotSupported) naming the library; <see cref="IsAvailable"/> tells first.
    /// </summary>
    public sealed partial class NcclComm : NativeObject<NcclCommHandle>
    {
        /// <summary>The length of a unique id in bytes (CT_NCCL_UNIQUE_ID_BYTES).</summary>
        public static readonly int UniqueIdBytes = ctorch.CT_NCCL_UNIQUE_ID_BYTES;

        /// <summary><see cref="Split"/>'s color for "not a member of any new communicator"
        /// (CT_NCCL_SPLIT_NOCOLOR).</summary>
        public static readonly int NoColor = ctorch.CT_NCCL_SPLIT_NOCOLOR;

        /// <summary>The timeout of a communicator made without one (CT_NCCL_DEFAULT_TIMEOUT_MS,
        /// torch.distributed's 10 minutes).</summary>
        public static readonly TimeSpan DefaultTimeout = TimeSpan.FromMilliseconds(ctorch.CT_NCCL_DEFAULT_TIMEOUT_MS);

        /// <summary>Wraps a handle; the NcclComm takes over its disposal.</summary>
        public NcclComm(NcclCommHandle handle) : base(handle, "comm", "NcclComm") { }

        /// <summary>Joins the communicator of nranks members named by uniqueId (the
        /// <see cref="UniqueIdBytes"/> bytes of <see cref="GetUniqueId"/>, from any member) as rank
        /// (0 &lt;= rank &lt; nranks), on CUDA device (-1: the current device). Waits until every
        /// member has joined, at most timeout (null: <see cref="DefaultTimeout"/>), which is also the
        /// communicator's timeout for its collectives; when a member does not come in time:
        /// <see cref="CtorchTimeoutException"/>, and nothing is left behind. A null id is
        /// ArgumentNullException, one of the wrong length ArgumentException; an id of the right
        /// length that NCCL cannot use is CtorchException (Argument or Comm).</summary>
        public NcclComm(int nranks, byte[] uniqueId, int rank, int device = -1, TimeSpan? timeout = null)
            : this(NewHandle(nranks, uniqueId, rank, device, timeout)) { }

        private static unsafe NcclCommHandle NewHandle(int nranks, byte[] uniqueId, int rank, int device, TimeSpan? timeout)
        {
            if (uniqueId == null) throw new ArgumentNullException(nameof(uniqueId));
            if (uniqueId.Length != UniqueIdBytes)
                throw new ArgumentException("a unique id has " + UniqueIdBytes + " bytes (NcclComm.GetUniqueId), got " +
                                            uniqueId.Length, nameof(uniqueId));
            long ms = Milliseconds(timeout, nameof(timeout));
            IntPtr r;
            fixed (byte* p = uniqueId)
                Native.Check(ctorch.ct_nccl_comm_init_rank(nranks, (IntPtr)p, uniqueId.Length, rank, device, ms, out r));
            return new NcclCommHandle(r, true);
        }

        /// <summary>Same as the constructor: joins the communicator named by uniqueId as rank.</summary>
        public static NcclComm InitRank(int nranks, byte[] uniqueId, int rank, int device = -1, TimeSpan? timeout = null) =>
            new NcclComm(nranks, uniqueId, rank, device, timeout);

        /// <summary>An NcclComm for a raw ct_nccl_comm handle that owns one reference (for interop
        /// with code using the C API).</summary>
        public static NcclComm FromHandle(IntPtr handle) => new NcclComm(new NcclCommHandle(handle, true));

        /// <summary>Another NcclComm object for the same native communicator (ct_nccl_comm_retain
        /// adds a reference): disposing one leaves the other usable.</summary>
        public NcclComm NewReference()
        {
            using (var a = Use())
            {
                Native.Check(ctorch.ct_nccl_comm_retain(a.Ptr));
                return FromHandle(a.Ptr);
            }
        }

        // ---------------------------------------------------------------- NCCL itself

        /// <summary>True when CUDA is available and NCCL (libnccl.so.2) can be loaded.</summary>
        public static bool IsAvailable => Out.Get<int>(ctorch.ct_nccl_is_available) != 0;

        /// <summary>The loaded NCCL's version (ncclGetVersion), e.g. 2.28.9.</summary>
        public static Version Version
        {
            get
            {
                int major, minor, patch;
                Native.Check(ctorch.ct_nccl_version(out major, out minor, out patch));
                return new Version(major, minor, patch);
            }
        }

        /// <summary>A new unique id (ncclGetUniqueId): <see cref="UniqueIdBytes"/> bytes that name
        /// one new communicator; give them to every member's constructor.</summary>
        public static unsafe byte[] GetUniqueId()
        {
            var id = new byte[UniqueIdBytes];
            fixed (byte* p = id) Native.Check(ctorch.ct_nccl_get_unique_id((IntPtr)p, id.Length));
            return id;
        }

        // ---------------------------------------------------------------- the communicator

        /// <summary>ncclCommSplit: every member calls it; members with the same color (&gt;= 0)
        /// form a new communicator, ranked by key (ties by their rank here). A member passing
        /// <see cref="NoColor"/> joins none and gets null. The new communicator has this one's
        /// device and timeout; the caller owns it.</summary>
        public NcclComm Split(int color, int key = 0)
        {
            using (var a = Use())
            {
                IntPtr r;
                Native.Check(ctorch.ct_nccl_comm_split(a.Ptr, color, key, out r));
                return r == IntPtr.Zero ? null : FromHandle(r);
            }
        }

        /// <summary>This member's rank (0 .. Size - 1).</summary>
        public int Rank
        {
            get { using (var a = Use()) return Out.Get<int>(ctorch.ct_nccl_comm_rank, a.Ptr); }
        }

        /// <summary>The number of members.</summary>
        public int Size
        {
            get { using (var a = Use()) return Out.Get<int>(ctorch.ct_nccl_comm_size, a.Ptr); }
        }

        /// <summary>The index of the communicator's CUDA device.</summary>
        public int DeviceIndex
        {
            get { using (var a = Use()) return Out.Get<int>(ctorch.ct_nccl_comm_device, a.Ptr); }
        }

        /// <summary>The communicator's CUDA device ("cuda:N").</summary>
        public Device Device => Device.CudaAt(DeviceIndex);

        /// <summary>Returns when the communicator is healthy, without queuing or waiting; otherwise
        /// throws what ended it: <see cref="CtorchCommException"/> (NCCL or a peer reported an
        /// error), <see cref="CtorchTimeoutException"/> (a collective ran past the timeout) or
        /// CtorchException (State: aborted or destroyed here).</summary>
        public void Check()
        {
            using (var a = Use()) Native.Check(ctorch.ct_nccl_comm_check(a.Ptr));
        }

        /// <summary>Waits until the work queued through this communicator so far has finished on
        /// the GPU, at most timeout (null: the communicator's timeout); past it the communicator is
        /// aborted and this throws <see cref="CtorchTimeoutException"/>. Throws as
        /// <see cref="Check"/> does when the communicator failed.</summary>
        public void Wait(TimeSpan? timeout = null)
        {
            long ms = Milliseconds(timeout, nameof(timeout));
            using (var a = Use()) Native.Check(ctorch.ct_nccl_comm_wait(a.Ptr, ms));
        }

        /// <summary>ncclCommAbort: ends the communicator at once, also its collectives still running
        /// or waiting for peers (their results are undefined). Later calls throw CtorchException
        /// (State); dispose it. Aborting twice is allowed.</summary>
        public void Abort()
        {
            using (var a = Use()) Native.Check(ctorch.ct_nccl_comm_abort(a.Ptr));
        }

        /// <summary>Destroys the communicator cleanly (ncclCommFinalize, ncclCommDestroy), reporting
        /// errors, unlike the last Dispose: waits for its queued work, at most its timeout (then it
        /// aborts and throws <see cref="CtorchTimeoutException"/>). Later calls throw
        /// CtorchException (State); dispose it.</summary>
        public void Destroy()
        {
            using (var a = Use()) Native.Check(ctorch.ct_nccl_comm_destroy(a.Ptr));
        }

        // ---------------------------------------------------------------- collectives

        /// <summary>dist.all_reduce(tensor, op): every member's tensor becomes the reduction of all
        /// members' (in place), queued on stream (null: the current stream of the communicator's
        /// device).</summary>
        public void AllReduce(Tensor tensor, ReduceOp op = ReduceOp.Sum, CudaStream stream = null)
        {
            using (var a = Use())
            using (var t = new Lease(tensor, nameof(tensor)))
            using (var s = CudaStream.UseOrNull(stream, nameof(stream)))
            {
                Native.Check(ctorch.ct_nccl_all_reduce(a.Ptr, t.Ptr, (int)op, s.Ptr));
            }
        }

        /// <summary>dist.broadcast(tensor, src=root): root's tensor copied into every member's.</summary>
        public void Broadcast(Tensor tensor, int root, CudaStream stream = null) =>
            OnTensor(ctorch.ct_nccl_broadcast, tensor, root, stream);

        /// <summary>dist.reduce(tensor, dst=root, op): root's tensor becomes the reduction; the
        /// others' is unchanged.</summary>
        public void Reduce(Tensor tensor, int root, ReduceOp op = ReduceOp.Sum, CudaStream stream = null)
        {
            using (var a = Use())
            using (var t = new Lease(tensor, nameof(tensor)))
            using (var s = CudaStream.UseOrNull(stream, nameof(stream)))
            {
                Native.Check(ctorch.ct_nccl_reduce(a.Ptr, t.Ptr, root, (int)op, s.Ptr));
            }
        }

        /// <summary>dist.all_gather_into_tensor(output, input): output (Size times input's elements,
        /// one dtype) receives every member's input, rank by rank.</summary>
        public void AllGather(Tensor output, Tensor input, CudaStream stream = null) =>
            OnPair(ctorch.ct_nccl_all_gather, output, input, stream);

        /// <summary>dist.reduce_scatter_tensor(output, input, op): input has Size times output's
        /// elements; member r gets the reduction of every member's r-th part.</summary>
        public void ReduceScatter(Tensor output, Tensor input, ReduceOp op = ReduceOp.Sum, CudaStream stream = null)
        {
            using (var a = Use())
            using (var o = new Lease(output, nameof(output)))
            using (var i = new Lease(input, nameof(input)))
            using (var s = CudaStream.UseOrNull(stream, nameof(stream)))
            {
                Native.Check(ctorch.ct_nccl_reduce_scatter(a.Ptr, o.Ptr, i.Ptr, (int)op, s.Ptr));
            }
        }

        /// <summary>dist.all_to_all_single(output, input): input and output have the same number of
        /// elements, a multiple of Size; part j of member i's input goes to part i of member j's
        /// output.</summary>
        public void AllToAll(Tensor output, Tensor input, CudaStream stream = null) =>
            OnPair(ctorch.ct_nccl_all_to_all, output, input, stream);

        /// <summary>dist.send(tensor, dst=peer); the peer must call the matching
        /// <see cref="Recv"/> (same number of elements and dtype). Within one member, pair sends and
        /// receives inside a <see cref="Group"/>.</summary>
        public void Send(Tensor tensor, int peer, CudaStream stream = null) =>
            OnTensor(ctorch.ct_nccl_send, tensor, peer, stream);

        /// <summary>dist.recv(tensor, src=peer): receives the peer's matching <see cref="Send"/>
        /// into tensor.</summary>
        public void Recv(Tensor tensor, int peer, CudaStream stream = null) =>
            OnTensor(ctorch.ct_nccl_recv, tensor, peer, stream);

        // The C signatures of broadcast/send/recv (a tensor and a rank) and of all_gather and
        // all_to_all (output, input).
        private delegate int TensorCall(IntPtr c, IntPtr t, int rank, IntPtr s);

        private delegate int PairCall(IntPtr c, IntPtr output, IntPtr input, IntPtr s);

        private void OnTensor(TensorCall call, Tensor tensor, int rank, CudaStream stream)
        {
            using (var a = Use())
            using (var t = new Lease(tensor, nameof(tensor)))
            using (var s = CudaStream.UseOrNull(stream, nameof(stream)))
            {
                Native.Check(call(a.Ptr, t.Ptr, rank, s.Ptr));
            }
        }

        private void OnPair(PairCall call, Tensor output, Tensor input, CudaStream stream)
        {
            using (var a = Use())
            using (var o = new Lease(output, nameof(output)))
            using (var i = new Lease(input, nameof(input)))
            using (var s = CudaStream.UseOrNull(stream, nameof(stream)))
            {
                Native.Check(call(a.Ptr, o.Ptr, i.Ptr, s.Ptr));
            }
        }

        // ---------------------------------------------------------------- groups

        /// <summary>
        /// ncclGroupStart / ncclGroupEnd for <c>using</c>: the collectives and sends/receives called
        /// in the scope, on this thread, are queued together when it ends (needed for sends and
        /// receives that pair up within one member, and for several communicators at once):
        /// <code>
        /// using (NcclComm.Group())
        /// {
        ///     comm.Send(a, peer);
        ///     comm.Recv(b, peer);
        /// }
        /// </code>
        /// Groups nest. Ending waits for the group's peers, at most the timeout of its communicators
        /// (<see cref="CtorchTimeoutException"/>). Dispose the scope on the thread that created it.
        /// </summary>
        public static NcclGroup Group() => new NcclGroup();

        /// <summary>ncclGroupStart (prefer <see cref="Group"/>).</summary>
        public static void GroupStart() => Native.Check(ctorch.ct_nccl_group_start());

        /// <summary>ncclGroupEnd (prefer <see cref="Group"/>); without a start: CtorchException
        /// (State).</summary>
        public static void GroupEnd() => Native.Check(ctorch.ct_nccl_group_end());

        // ---------------------------------------------------------------- helpers

        /// <summary>A timeout in whole milliseconds for the C layer (0 for null: the default). A
        /// positive timeout below a millisecond rounds up to one; zero, negative and
        /// <see cref="Timeout.InfiniteTimeSpan"/> are ArgumentOutOfRangeException.</summary>
        internal static long Milliseconds(TimeSpan? timeout, string name)
        {
            if (timeout == null) return 0;
            TimeSpan t = timeout.Value;
            if (t <= TimeSpan.Zero)
                throw new ArgumentOutOfRangeException(name, t, "a timeout must be positive (null: the default)");
            return t.Ticks / TimeSpan.TicksPerMillisecond + (t.Ticks % TimeSpan.TicksPerMillisecond != 0 ? 1 : 0);
        }

        public override string ToString()
        {
            if (IsDisposed) return "NcclComm(disposed)";
            try
            {
                return $"NcclComm(rank={Rank}, size={Size}, device=cuda:{DeviceIndex})";
            }
            catch (ObjectDisposedException)
            {
                return "NcclComm(disposed)";   // disposed by another thread during the call
            }
            catch (CtorchException e)
            {
                return "NcclComm(" + e.StatusName + ")";
            }
        }
    }

    /// <summary>
    /// The scope of <see cref="NcclComm.Group"/>: ncclGroupStart when made, ncclGroupEnd when
    /// disposed. Dispose it on the thread that created it (NCCL's groups belong to a thread).
    /// </summary>
    public sealed class NcclGroup : IDisposable
    {
        private readonly int _threadId;
        private bool _disposed;

        internal NcclGroup()
        {
            NcclComm.GroupStart();
            _threadId = Thread.CurrentThread.ManagedThreadId;
        }

        /// <summary>Ends the group (ncclGroupEnd), queuing its work; throws what that reports, e.g.
        /// <see cref="CtorchTimeoutException"/> when a peer did not come. On another thread than the
        /// one that created the scope: InvalidOperationException, and the group stays open on that
        /// thread. Calling it again does nothing.</summary>
        public void Dispose()
        {
            if (_disposed) return;
            if (Thread.CurrentThread.ManagedThreadId != _threadId)
                throw new InvalidOperationException("an NcclGroup must be disposed on the thread that created it " +
                                                    "(NCCL's groups belong to a thread)");
            _disposed = true;
            NcclComm.GroupEnd();
        }
    }
}
