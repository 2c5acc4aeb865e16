// The SafeHandle shape shared by the handles that own one counted reference to a native stream,
// event or generator.
using System;
using System.Runtime.InteropServices;

namespace Ctorch
{
    /// <summary>
    /// One counted reference to a native object. Releasing it calls the object's
    /// <c>ct_*_release</c> exactly once: from <see cref="SafeHandle.Dispose()"/>, or from the
    /// critical finalizer when the handle was never disposed. Zero is the invalid value.
    /// </summary>
    public abstract class NativeHandle : SafeHandle
    {
        /// <summary>Wraps a raw handle (zero: an invalid handle). With ownsHandle the reference
        /// it stands for is released when this SafeHandle is disposed or finalized.</summary>
        protected NativeHandle(IntPtr preexistingHandle, bool ownsHandle) : base(IntPtr.Zero, ownsHandle)
        {
            SetHandle(preexistingHandle);
        }

        /// <summary>True for the zero handle.</summary>
        public override bool IsInvalid => handle == IntPtr.Zero;

        /// <summary>Releases the reference (the object's <c>ct_*_release</c>).</summary>
        protected abstract void Release(IntPtr h);

        protected override bool ReleaseHandle()
        {
            // Runs at most once; a failure (CT_ERR_INVALID_HANDLE, only possible when the same
            // reference was released through the raw API) cannot be reported from a finalizer.
            Release(handle);
            return true;
        }
    }
}
