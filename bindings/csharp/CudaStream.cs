// torch.cuda.Stream: CUDA streams (section 13 of capi/ctorch.h).
using System;
using Ctorch.Swig;

namespace Ctorch
{
    /// <summary>
    /// A CUDA stream, as torch.cuda.Stream. Each CudaStream object owns one reference to a
    /// native stream through its <see cref="CudaStreamHandle"/>; <see cref="Dispose"/> releases it
    /// (the handle's finalizer does otherwise). A stream created here is destroyed with its last
    /// reference; the default stream and external streams are never destroyed by ctorch.
    /// Two CudaStream objects are equal (<c>==</c>, <see cref="Equals(CudaStream)"/>) when they
    /// stand for the same CUDA stream: same device and same cudaStream_t, as in PyTorch.
    /// Without a GPU every way of getting a stream throws CtorchException (CudaUnavailable).
    /// Named CudaStream, not Stream, so that it does not clash with System.IO.Stream.
    /// </summary>
    public sealed class CudaStream : NativeObject<CudaStreamHandle>, IEquatable<CudaStream>
    {
        // A stream's device and cudaStream_t never change: read once, so that equality and the
        // hash code keep working after Dispose.
        private bool _identityKnown;
        private int _device;
        private long _cudaHandle;

        /// <summary>Wraps a handle; the CudaStream takes over its disposal.</summary>
        public CudaStream(CudaStreamHandle handle) : base(handle, "stream", "CudaStream") { }

        /// <summary>torch.cuda.Stream(device, priority): a new stream on device (-1: the current
        /// device). Lower priority numbers are higher priorities; 0 is the default, values beyond
        /// <see cref="PriorityRange"/> are clamped.</summary>
        public CudaStream(int device = -1, int priority = 0) : this(NewHandle(device, priority))
        {
            try
            {
                ReadIdentity();
            }
            catch
            {
                Handle.Dispose();
                throw;
            }
        }

        /// <summary>torch.cuda.Stream(device, priority) with a CUDA device ("cuda" is the current
        /// device).</summary>
        public CudaStream(Device device, int priority = 0) : this(Ctorch.Cuda.IndexOf(device, nameof(device)), priority) { }

        private static CudaStreamHandle NewHandle(int device, int priority)
        {
            IntPtr r;
            Native.Check(ctorch.ct_stream_create(device, priority, out r));
            return new CudaStreamHandle(r, true);
        }

        /// <summary>Same as the constructor: a new stream on device (-1: current).</summary>
        public static CudaStream Create(int device = -1, int priority = 0) => new CudaStream(device, priority);

        /// <summary>Same as the constructor: a new stream on a CUDA device.</summary>
        public static CudaStream Create(Device device, int priority = 0) => new CudaStream(device, priority);

        /// <summary>A CudaStream for a raw ct_stream handle that owns one reference (for interop
        /// with code using the C API).</summary>
        public static CudaStream FromHandle(IntPtr handle) => new CudaStream(new CudaStreamHandle(handle, true));

        // A new reference returned by the C layer.
        internal static CudaStream Own(IntPtr raw)
        {
            var s = new CudaStream(new CudaStreamHandle(raw, true));
            try
            {
                s.ReadIdentity();
            }
            catch
            {
                s.Dispose();
                throw;
            }
            return s;
        }

        // NULL (the current stream) for a null CudaStream.
        /// <summary>Another CudaStream object for the same native stream (ct_stream_retain adds a
        /// reference): disposing one leaves the other usable.</summary>
        public CudaStream NewReference()
        {
            using (var a = Use())
            {
                Native.Check(ctorch.ct_stream_retain(a.Ptr));
                return Own(a.Ptr);
            }
        }

        // ---------------------------------------------------------------- torch.cuda functions

        /// <summary>torch.cuda.Stream.priority_range(): (least, greatest) = (0, most negative).
        /// Throws CtorchException (CudaUnavailable) without a GPU.</summary>
        public static (int Least, int Greatest) PriorityRange
        {
            get
            {
                int least, greatest;
                Native.Check(ctorch.ct_stream_priority_range(out least, out greatest));
                return (least, greatest);
            }
        }

        /// <summary>torch.cuda.default_stream(device): the default (legacy NULL) stream of device
        /// (-1: the current device). Dispose the returned object; the stream itself lives on.</summary>
        public static CudaStream Default(int device = -1)
        {
            IntPtr r;
            Native.Check(ctorch.ct_stream_default(device, out r));
            return Own(r);
        }

        /// <summary>torch.cuda.default_stream(device) for a CUDA device.</summary>
        public static CudaStream Default(Device device) => Default(Ctorch.Cuda.IndexOf(device, nameof(device)));

        /// <summary>torch.cuda.current_stream(device): the current stream of device (-1: the
        /// current device) for the calling thread.</summary>
        public static CudaStream Current(int device = -1)
        {
            IntPtr r;
            Native.Check(ctorch.ct_stream_current(device, out r));
            return Own(r);
        }

        /// <summary>torch.cuda.current_stream(device) for a CUDA device.</summary>
        public static CudaStream Current(Device device) => Current(Ctorch.Cuda.IndexOf(device, nameof(device)));

        /// <summary>torch.cuda.set_stream(stream): makes stream the current stream of its device
        /// for the calling thread (prefer the scoped <see cref="StreamGuard"/>).</summary>
        public static void SetCurrent(CudaStream stream)
        {
            using (var a = Use(stream, nameof(stream))) Native.Check(ctorch.ct_stream_set_current(a.Ptr));
        }

        /// <summary>torch.cuda.ExternalStream(stream_ptr, device): wraps a cudaStream_t that the
        /// caller created and owns, on device (-1: current). ctorch never destroys it; keep it alive
        /// while ctorch may use it (also until tensors allocated while it was current are freed).</summary>
        public static CudaStream External(long cudaStream, int device = -1)
        {
            IntPtr r;
            Native.Check(ctorch.ct_stream_external(cudaStream, device, out r));
            return Own(r);
        }

        /// <summary>torch.cuda.ExternalStream with the cudaStream_t as a pointer.</summary>
        public static CudaStream External(IntPtr cudaStream, int device = -1) => External(cudaStream.ToInt64(), device);

        // ---------------------------------------------------------------- properties

        private void ReadIdentity()
        {
            if (_identityKnown) return;
            using (var a = Use())
            {
                int device;
                long h;
                Native.Check(ctorch.ct_stream_device(a.Ptr, out device));
                Native.Check(ctorch.ct_stream_cuda_handle(a.Ptr, out h));
                _device = device;
                _cudaHandle = h;
                _identityKnown = true;
            }
        }

        /// <summary>The index of the stream's CUDA device.</summary>
        public int DeviceIndex
        {
            get { using (var a = Use()) return Out.Get<int>(ctorch.ct_stream_device, a.Ptr); }
        }

        /// <summary>stream.device: "cuda:N".</summary>
        public Device Device => Device.CudaAt(DeviceIndex);

        /// <summary>stream.priority.</summary>
        public int Priority
        {
            get { using (var a = Use()) return Out.Get<int>(ctorch.ct_stream_priority, a.Ptr); }
        }

        /// <summary>stream.cuda_stream: the cudaStream_t's bits (0 for the default stream).</summary>
        public long CudaHandle
        {
            get { using (var a = Use()) return Out.Get<long>(ctorch.ct_stream_cuda_handle, a.Ptr); }
        }

        // ---------------------------------------------------------------- operations

        /// <summary>stream.synchronize(): waits until all work queued on the stream is done.</summary>
        public void Synchronize()
        {
            using (var a = Use()) Native.Check(ctorch.ct_stream_synchronize(a.Ptr));
        }

        /// <summary>stream.query(): true when all work queued on the stream is done (never waits).</summary>
        public bool Query()
        {
            using (var a = Use()) return Out.Get<int>(ctorch.ct_stream_query, a.Ptr) != 0;
        }

        /// <summary>stream.wait_stream(other): work queued here after this call waits for the work
        /// queued on other before it.</summary>
        public void WaitStream(CudaStream other)
        {
            using (var a = Use())
            using (var b = Use(other, nameof(other)))
            {
                Native.Check(ctorch.ct_stream_wait_stream(a.Ptr, b.Ptr));
            }
        }

        /// <summary>stream.wait_event(event): work queued here after this call waits for the event.</summary>
        public void WaitEvent(CudaEvent cudaEvent)
        {
            using (var a = Use())
            using (var e = CudaEvent.Use(cudaEvent, nameof(cudaEvent)))
            {
                Native.Check(ctorch.ct_stream_wait_event(a.Ptr, e.Ptr));
            }
        }

        /// <summary>stream.record_event(event=None): records the event on this stream and returns
        /// it. With no event, a new one (default flags) is created, recorded and returned: the
        /// caller owns and disposes it.</summary>
        public CudaEvent RecordEvent(CudaEvent cudaEvent = null)
        {
            bool created = (object)cudaEvent == null;
            CudaEvent ev = created ? new CudaEvent() : cudaEvent;
            try
            {
                using (var a = Use())
                using (var e = CudaEvent.Use(ev, nameof(cudaEvent)))
                {
                    Native.Check(ctorch.ct_stream_record_event(a.Ptr, e.Ptr));
                }
            }
            catch
            {
                if (created) ev.Dispose();
                throw;
            }
            return ev;
        }

        // ---------------------------------------------------------------- memory

        /// <summary>A per-stream memory figure (which PyTorch lacks), in the style of
        /// <see cref="Cuda.MemoryStat(string, int)"/>: a value for the blocks and segments the
        /// caching allocator handed out while this stream was current on its device. key is one of
        /// allocation, allocated_bytes, requested_bytes, active, active_bytes, segment,
        /// reserved_bytes followed by .current, .peak, .allocated or .freed, e.g.
        /// "allocated_bytes.current". Peaks and totals reset with the device's
        /// (<see cref="Cuda.ResetPeakMemoryStats(int)"/>,
        /// <see cref="Cuda.ResetAccumulatedMemoryStats(int)"/>); a stream that never allocated
        /// reads 0. An unknown key is CtorchException (Argument), a null key
        /// ArgumentNullException; without the native allocator (cudaMallocAsync, pluggable)
        /// CtorchException (NotSupported).</summary>
        public long MemoryStat(string key)
        {
            if (key == null) throw new ArgumentNullException(nameof(key));
            using (var a = Use())
            {
                long r;
                Native.Check(ctorch.ct_cuda_memory_stream_stat(a.Ptr, key, out r));
                return r;
            }
        }

        // ---------------------------------------------------------------- equality

        /// <summary>True when both stand for the same CUDA stream (same device and cudaStream_t).</summary>
        public bool Equals(CudaStream other)
        {
            if ((object)other == null) return false;
            if (ReferenceEquals(this, other)) return true;
            // A stream disposed before its identity was read (one made by FromHandle or from a
            // handle) equals only itself.
            if (!TryReadIdentity() || !other.TryReadIdentity()) return false;
            return _device == other._device && _cudaHandle == other._cudaHandle;
        }

        public override bool Equals(object obj) => Equals(obj as CudaStream);

        public override int GetHashCode() =>
            TryReadIdentity() ? _cudaHandle.GetHashCode() * 397 ^ _device
                              : System.Runtime.CompilerServices.RuntimeHelpers.GetHashCode(this);

        // The identity is known from now on, or never will be (disposed before it was read).
        private bool TryReadIdentity()
        {
            if (_identityKnown) return true;
            try
            {
                ReadIdentity();
                return true;
            }
            catch (ObjectDisposedException)
            {
                return false;
            }
        }

        public static bool operator ==(CudaStream a, CudaStream b) =>
            (object)a == null ? (object)b == null : a.Equals(b);

        public static bool operator !=(CudaStream a, CudaStream b) => !(a == b);

        /// <summary>As PyTorch prints it: "&lt;torch.cuda.Stream device=cuda:0 cuda_stream=0x0&gt;".</summary>
        public override string ToString()
        {
            if (!_identityKnown)
            {
                if (IsDisposed) return "CudaStream(disposed)";
                try
                {
                    ReadIdentity();
                }
                catch (ObjectDisposedException)
                {
                    return "CudaStream(disposed)";   // disposed by another thread during the call
                }
                catch (CtorchException e)
                {
                    return "CudaStream(" + e.StatusName + ")";
                }
            }
            return $"<torch.cuda.Stream device=cuda:{_device} cuda_stream=0x{_cudaHandle:x}>";
        }
    }
}
