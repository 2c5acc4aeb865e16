// The SafeHandles that own one counted reference to a native CUDA stream or event.
using System;
using System.Runtime.InteropServices;
using Ctorch.Swig;

namespace Ctorch
{
    /// <summary>
    /// One counted reference to a native stream (a <c>ct_stream</c>). Releasing it calls
    /// <c>ct_stream_release</c> exactly once: from <see cref="SafeHandle.Dispose()"/>, or from the
    /// critical finalizer when the handle was never disposed. Zero is the invalid value.
    /// </summary>
    public sealed class CudaStreamHandle : SafeHandle
    {
        /// <summary>An invalid (zero) handle, as P/Invoke marshalling needs.</summary>
        public CudaStreamHandle() : base(IntPtr.Zero, true) { }

        /// <summary>Wraps a raw handle. With ownsHandle the reference it stands for is released
        /// when this SafeHandle is disposed or finalized.</summary>
        public CudaStreamHandle(IntPtr preexistingHandle, bool ownsHandle) : base(IntPtr.Zero, ownsHandle)
        {
            SetHandle(preexistingHandle);
        }

        public override bool IsInvalid => handle == IntPtr.Zero;

        protected override bool ReleaseHandle()
        {
            // Runs at most once; a failure (CT_ERR_INVALID_HANDLE, only possible when the same
            // reference was released through the raw API) cannot be reported from a finalizer.
            ctorch.ct_stream_release(handle);
            return true;
        }
    }

    /// <summary>
    /// One counted reference to a native event (a <c>ct_event</c>); <c>ct_event_release</c> is
    /// called exactly once, by Dispose or by the finalizer. Zero is the invalid value.
    /// </summary>
    public sealed class CudaEventHandle : SafeHandle
    {
        /// <summary>An invalid (zero) handle, as P/Invoke marshalling needs.</summary>
        public CudaEventHandle() : base(IntPtr.Zero, true) { }

        /// <summary>Wraps a raw handle. With ownsHandle the reference it stands for is released
        /// when this SafeHandle is disposed or finalized.</summary>
        public CudaEventHandle(IntPtr preexistingHandle, bool ownsHandle) : base(IntPtr.Zero, ownsHandle)
        {
            SetHandle(preexistingHandle);
        }

        public override bool IsInvalid => handle == IntPtr.Zero;

        protected override bool ReleaseHandle()
        {
            ctorch.ct_event_release(handle);
            return true;
        }
    }
}
