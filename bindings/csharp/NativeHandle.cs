// The SafeHandle shape shared by the handles that own one counted reference to a native stream,
// event or generator, and the base of the objects that hold one (CudaStream, CudaEvent, Generator).
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

    /// <summary>
    /// The base of <see cref="CudaStream"/>, <see cref="CudaEvent"/> and <see cref="Generator"/>:
    /// an object that owns one counted reference to a native object through its SafeHandle;
    /// <see cref="Dispose"/> releases it (the handle's finalizer does otherwise).
    /// </summary>
    public abstract class NativeObject<THandle> : IDisposable where THandle : NativeHandle
    {
        private readonly THandle _handle;
        private readonly string _arg, _type; // the name of an argument of this type, the type's name

        internal NativeObject(THandle handle, string arg, string type)
        {
            if (handle == null) throw new ArgumentNullException(nameof(handle));
            if (handle.IsInvalid) throw new ArgumentException("invalid (zero) " + arg + " handle", nameof(handle));
            _handle = handle;
            _arg = arg;
            _type = type;
        }

        /// <summary>The SafeHandle owning the native reference.</summary>
        public THandle Handle => _handle;

        /// <summary>True after <see cref="Dispose"/>.</summary>
        public bool IsDisposed => _handle.IsClosed;

        /// <summary>Releases the native reference now. Calling it again does nothing.</summary>
        public virtual void Dispose() => _handle.Dispose();

        internal Lease Use() => new Lease(_handle, _arg, _type);

        /// <summary>A lease on o's handle; null o is ArgumentNullException(name).</summary>
        internal static Lease Use(NativeObject<THandle> o, string name)
        {
            if ((object)o == null) throw new ArgumentNullException(name);
            return new Lease(o._handle, name, o._type);
        }

        /// <summary>A lease on o's handle, or for null o the empty lease (a zero pointer: the C
        /// function's default, e.g. the current stream or the default generator).</summary>
        internal static Lease UseOrNull(NativeObject<THandle> o, string name) =>
            (object)o == null ? default(Lease) : new Lease(o._handle, name, o._type);
    }
}
