// Scoped guards: `with torch.cuda.device(d):`, `with torch.cuda.device_of(t):` and
// `with torch.cuda.stream(s):` as IDisposable objects for `using`.
using System;
using System.Threading;
using Ctorch.Swig;

namespace Ctorch
{
    /// <summary>
    /// torch.cuda.device(d) / torch.cuda.device_of(t): makes a CUDA device current for the
    /// calling thread and makes the previous one current again on Dispose.
    /// <code>
    /// using (Cuda.UseDevice(1))
    /// {
    ///     var t = Tensor.Zeros(new long[] { 3 }, Device.Cuda);   // on cuda:1
    /// }                                                          // the previous device is back
    /// </code>
    /// A negative device (and a CPU tensor for device_of) changes nothing, as in PyTorch; such a
    /// guard has nothing to restore. Without a GPU, a guard for a device &gt;= 0 throws
    /// CtorchException (CudaUnavailable) from its constructor and changes nothing. The current
    /// device is per thread: dispose the guard on the thread that created it.
    /// </summary>
    public sealed class DeviceGuard : IDisposable
    {
        private readonly int _prev;
        private readonly int _threadId;
        private bool _disposed;

        /// <summary>Makes device current (negative: no change).</summary>
        public DeviceGuard(int device)
        {
            int prev;
            Native.Check(ctorch.ct_cuda_exchange_device(device, out prev));
            _prev = device < 0 ? -1 : prev;
            _threadId = Thread.CurrentThread.ManagedThreadId;
        }

        /// <summary>Makes a CUDA device current ("cuda" without an index: no change).</summary>
        public DeviceGuard(Device device) : this(Cuda.IndexOf(device, nameof(device))) { }

        /// <summary>Makes the device of tensor current (nothing for a CPU tensor).</summary>
        public DeviceGuard(Tensor tensor)
        {
            using (var a = new Lease(tensor, nameof(tensor)))
            {
                int prev;
                Native.Check(ctorch.ct_cuda_exchange_device_of(a.Ptr, out prev));
                _prev = prev;
            }
            _threadId = Thread.CurrentThread.ManagedThreadId;
        }

        /// <summary>The device that Dispose makes current again; -1 when the guard changed
        /// nothing and restores nothing.</summary>
        public int PreviousDevice => _prev;

        /// <summary>Restores the previous device. Calling it again does nothing.</summary>
        public void Dispose()
        {
            if (_disposed) return;
            _disposed = true;
            if (_prev < 0) return;
            if (Thread.CurrentThread.ManagedThreadId != _threadId)
                throw new InvalidOperationException("a DeviceGuard must be disposed on the thread that created it " +
                                                    "(the current CUDA device is per thread)");
            Native.Check(ctorch.ct_cuda_set_device(_prev));
        }
    }

    /// <summary>
    /// torch.cuda.stream(s): makes s's device the current device and s its current stream for
    /// the calling thread; Dispose restores both (ct_stream_guard_enter / ct_stream_guard_exit).
    /// <code>
    /// using (var s = new CudaStream())
    /// using (Cuda.UseStream(s))
    /// {
    ///     var y = x * 2.0;          // queued on s
    /// }
    /// </code>
    /// A null stream makes a guard that does nothing (as torch.cuda.stream(None)). Dispose it on
    /// the thread that created it.
    /// </summary>
    public sealed class StreamGuard : IDisposable
    {
        private readonly CudaStreamHandle _prevStream; // null: nothing to restore
        private readonly int _prevDevice;
        private readonly int _threadId;
        private bool _disposed;

        /// <summary>Makes stream (and its device) current; null: no change.</summary>
        public StreamGuard(CudaStream stream)
        {
            _threadId = Thread.CurrentThread.ManagedThreadId;
            _prevDevice = -1;
            if ((object)stream == null) return;
            using (var a = stream.Use())
            {
                IntPtr prev;
                int prevDevice;
                Native.Check(ctorch.ct_stream_guard_enter(a.Ptr, out prev, out prevDevice));
                _prevStream = new CudaStreamHandle(prev, true);
                _prevDevice = prevDevice;
            }
        }

        /// <summary>The device that Dispose makes current again (-1 for a null-stream guard).</summary>
        public int PreviousDevice => _prevDevice;

        /// <summary>Restores the previous stream and device. Calling it again does nothing.</summary>
        public void Dispose()
        {
            if (_disposed) return;
            _disposed = true;
            if (_prevStream == null) return;
            // ct_stream_guard_exit releases the previous stream's reference when it succeeds.
            PreviousStream.Restore(_prevStream, _threadId, "a StreamGuard", "the current stream and device are per thread",
                                   prev => ctorch.ct_stream_guard_exit(prev, _prevDevice), false);
        }
    }

    /// <summary>The end of a scope that made a stream current and holds a reference to the
    /// previous one (<see cref="StreamGuard"/>, <see cref="GraphCapture"/>).</summary>
    internal static class PreviousStream
    {
        /// <summary>Calls exit with prev's raw handle, which makes it current again and releases
        /// prev's reference (when exit succeeds, or always with exitAlwaysReleases); a failing
        /// status becomes CtorchException, thrown once prev is released. On another thread than
        /// threadId nothing is called: prev is released and InvalidOperationException says that
        /// scope must be disposed on the thread that created it, because of why.</summary>
        internal static void Restore(CudaStreamHandle prev, int threadId, string scope, string why,
                                     Func<IntPtr, int> exit, bool exitAlwaysReleases)
        {
            if (Thread.CurrentThread.ManagedThreadId != threadId)
            {
                prev.Dispose();
                throw new InvalidOperationException(scope + " must be disposed on the thread that created it (" + why + ")");
            }
            CtorchException error = null;
            bool added = false;
            try
            {
                prev.DangerousAddRef(ref added);
                int st = exit(prev.DangerousGetHandle());
                if (st == 0 || exitAlwaysReleases) prev.SetHandleAsInvalid();
                if (st != 0) error = CtorchException.FromStatus(st);
            }
            finally
            {
                if (added) prev.DangerousRelease();
            }
            if (error != null)
            {
                prev.Dispose();
                throw error;
            }
        }
    }
}
