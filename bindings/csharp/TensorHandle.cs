// The SafeHandle that owns one counted reference to a native tensor.
using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;
using Ctorch.Swig;

namespace Ctorch
{
    /// <summary>
    /// One counted reference to a native tensor (a <c>ct_tensor</c>). Releasing it calls
    /// <c>ct_tensor_release</c> exactly once: from <see cref="SafeHandle.Dispose()"/>, or from
    /// the critical finalizer when the handle was never disposed (after the binding's last lease
    /// on it, when a call on another thread still holds one). Zero is the invalid value.
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

        // The binding's own leases (Lease over a Tensor): 2 * (leases held) + (1 once SafeHandle
        // has asked for the release). One Interlocked operation to take a lease and one to give it
        // back, about half of DangerousAddRef + DangerousRelease on Mono. The native reference is
        // released when both counts are done: SafeHandle calls ReleaseHandle once its own count
        // (DangerousAddRef users) is zero after Dispose or in the finalizer, and the release waits
        // for the last lease of ours, if any is still held by another thread.
        private int _leaseState;

        /// <summary>Takes one lease; false once the release was asked for (disposed).</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal bool TryAcquireLease()
        {
            for (;;)
            {
                int s = Volatile.Read(ref _leaseState);
                if ((s & 1) != 0) return false;
                if (Interlocked.CompareExchange(ref _leaseState, s + 2, s) == s) return true;
            }
        }

        /// <summary>Gives a lease back; the last one after a Dispose releases the reference.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal void ReleaseLease()
        {
            if (Interlocked.Add(ref _leaseState, -2) == 1) ReleaseNative();
        }

        protected override bool ReleaseHandle()
        {
            // Runs at most once (SafeHandle's guarantee). Without leases held the reference is
            // released now; otherwise by the last ReleaseLease.
            if (Interlocked.Increment(ref _leaseState) == 1) ReleaseNative();
            return true;
        }

        private void ReleaseNative()
        {
            // Runs exactly once. A failure cannot be reported from a finalizer; the handle is
            // owned by this object, so the only way to fail is a raw ct_tensor_release of the
            // same reference elsewhere, which the C layer reports as CT_ERR_INVALID_HANDLE.
            ctorch.ct_tensor_release(handle);
        }
    }
}
