// The SafeHandle that owns one counted reference to a native tensor.
using System;
using System.Runtime.InteropServices;
using Ctorch.Swig;

namespace Ctorch
{
    /// <summary>
    /// One counted reference to a native tensor (a <c>ct_tensor</c>). Releasing it calls
    /// <c>ct_tensor_release</c> exactly once: from <see cref="SafeHandle.Dispose()"/>, or from
    /// the critical finalizer when the handle was never disposed. Zero is the invalid value.
    /// </summary>
    public sealed class TensorHandle : SafeHandle
    {
        // Before the first tensor exists (also one adopted from the raw layer), the binding's
        // out-of-memory hook is registered: it is what brings dropped tensors' memory back.
        static TensorHandle() { OomHook.EnsureRegistered(); }

        /// <summary>An invalid (zero) handle, as P/Invoke marshalling needs.</summary>
        public TensorHandle() : base(IntPtr.Zero, true) { }

        /// <summary>Wraps a raw handle. With ownsHandle the reference it stands for is released
        /// when this SafeHandle is disposed or finalized.</summary>
        public TensorHandle(IntPtr preexistingHandle, bool ownsHandle) : base(IntPtr.Zero, ownsHandle)
        {
            SetHandle(preexistingHandle);
        }

        public override bool IsInvalid => handle == IntPtr.Zero;

        protected override bool ReleaseHandle()
        {
            // Runs at most once. A failure cannot be reported from a finalizer; the handle is
            // owned by this object, so the only way to fail is a raw ct_tensor_release of the
            // same reference elsewhere, which the C layer reports as CT_ERR_INVALID_HANDLE.
            ctorch.ct_tensor_release(handle);
            return true;
        }
    }
}
