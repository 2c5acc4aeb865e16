// An exported DLPack capsule (section 26 of capi/ctorch.h, docs/dlpack.md): a SafeHandle over a
// DLManagedTensor* or DLManagedTensorVersioned* that keeps a tensor's memory alive until its
// deleter runs.
using System;
using System.Runtime.InteropServices;
using Ctorch.Swig;

namespace Ctorch
{
    /// <summary>A DLPack capsule that ctorch exported (<see cref="Tensor.ToDLPack"/>,
    /// <see cref="Tensor.ToDLPackVersioned"/>, <see cref="Tensor.DLPack"/>): the address of a
    /// DLManagedTensor (or, when <see cref="Versioned"/>, a DLManagedTensorVersioned) that keeps
    /// the tensor's memory alive until its deleter runs. Give <see cref="Address"/> to the consumer
    /// and call <see cref="Consume"/> (the consumer calls the deleter from then on), or import it
    /// back with <see cref="Import"/>. Disposing (or the finalizer) calls the deleter of a capsule
    /// that no one consumed (ct_dlpack_delete); disposing twice does nothing.</summary>
    public sealed class DLPackCapsule : SafeHandle
    {
        internal DLPackCapsule(IntPtr address, bool versioned) : base(IntPtr.Zero, true)
        {
            SetHandle(address);
            Versioned = versioned;
        }

        /// <summary>True for a DLManagedTensorVersioned, false for a DLManagedTensor.</summary>
        public bool Versioned { get; }

        /// <summary>The struct's address (IntPtr.Zero once consumed or disposed).</summary>
        public IntPtr Address => IsClosed || IsInvalid ? IntPtr.Zero : handle;

        /// <inheritdoc/>
        public override bool IsInvalid => handle == IntPtr.Zero;

        /// <summary>Says that a consumer took the capsule and returns its address (IntPtr.Zero if
        /// already consumed or disposed): from now on the consumer calls the deleter, and disposing
        /// does nothing.</summary>
        public IntPtr Consume()
        {
            lock (this)
            {
                IntPtr p = Address;
                SetHandleAsInvalid();
                return p;
            }
        }

        /// <summary>torch.from_dlpack on this capsule: a ctorch tensor over the same memory, no
        /// copy; the tensor owns the capsule from then on. ObjectDisposedException once consumed
        /// or disposed; on a CtorchException the capsule stays this object's.</summary>
        public Tensor Import()
        {
            lock (this)
            {
                IntPtr p = Address;
                if (p == IntPtr.Zero)
                    throw new ObjectDisposedException(nameof(DLPackCapsule), "the DLPack capsule was consumed or disposed");
                Tensor t = Versioned ? Tensor.FromDLPackVersioned(p) : Tensor.FromDLPack(p);
                SetHandleAsInvalid();
                return t;
            }
        }

        /// <inheritdoc/>
        protected override bool ReleaseHandle() => ctorch.ct_dlpack_delete(handle, Versioned ? 1 : 0) == 0;
    }
}
