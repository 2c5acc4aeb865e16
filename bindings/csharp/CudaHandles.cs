// The SafeHandles that own one counted reference to a native CUDA stream or event.
using System;
using Ctorch.Swig;

namespace Ctorch
{
    /// <summary>One counted reference to a native stream (a <c>ct_stream</c>), released by
    /// <c>ct_stream_release</c> (see <see cref="NativeHandle"/>).</summary>
    public sealed class CudaStreamHandle : NativeHandle
    {
        /// <summary>An invalid (zero) handle, as P/Invoke marshalling needs.</summary>
        public CudaStreamHandle() : base(IntPtr.Zero, true) { }

        /// <summary>Wraps a raw handle. With ownsHandle the reference it stands for is released
        /// when this SafeHandle is disposed or finalized.</summary>
        public CudaStreamHandle(IntPtr preexistingHandle, bool ownsHandle) : base(preexistingHandle, ownsHandle) { }

        protected override void Release(IntPtr h) => ctorch.ct_stream_release(h);
    }

    /// <summary>One counted reference to a native event (a <c>ct_event</c>), released by
    /// <c>ct_event_release</c> (see <see cref="NativeHandle"/>).</summary>
    public sealed class CudaEventHandle : NativeHandle
    {
        /// <summary>An invalid (zero) handle, as P/Invoke marshalling needs.</summary>
        public CudaEventHandle() : base(IntPtr.Zero, true) { }

        /// <summary>Wraps a raw handle. With ownsHandle the reference it stands for is released
        /// when this SafeHandle is disposed or finalized.</summary>
        public CudaEventHandle(IntPtr preexistingHandle, bool ownsHandle) : base(preexistingHandle, ownsHandle) { }

        protected override void Release(IntPtr h) => ctorch.ct_event_release(h);
    }
}
