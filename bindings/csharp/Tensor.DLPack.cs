// DLPack and foreign memory (section 26 of capi/ctorch.h, docs/dlpack.md): torch.utils.dlpack's
// to_dlpack / from_dlpack, Tensor.__dlpack__ and __dlpack_device__, torch.from_blob. DLPack's
// structs travel as IntPtr (a DLManagedTensor* or DLManagedTensorVersioned*).
using System;
using System.Runtime.InteropServices;
using Ctorch.Swig;

namespace Ctorch
{
    public sealed partial class Tensor
    {
        private delegate int ExportCall(IntPtr t, out IntPtr capsule);

        private DLPackCapsule Export(ExportCall call, bool versioned)
        {
            using (var a = Use())
            {
                IntPtr p;
                Native.Check(call(a.Ptr, out p));
                return new DLPackCapsule(p, versioned);
            }
        }

        /// <summary>torch.utils.dlpack.to_dlpack(this): a DLManagedTensor (the legacy form) over
        /// this tensor's memory, no copy, no stream synchronization. The capsule keeps the memory
        /// alive (disposing this tensor is fine) until its deleter runs.</summary>
        public DLPackCapsule ToDLPack() => Export(ctorch.ct_to_dlpack, false);

        /// <summary><see cref="ToDLPack"/> as a DLManagedTensorVersioned (version 1.1, flags
        /// 0).</summary>
        public DLPackCapsule ToDLPackVersioned() => Export(ctorch.ct_to_dlpack_versioned, true);

        /// <summary>this.__dlpack__(stream=stream): the consumer's CUDA stream (a cudaStream_t as a
        /// long; 1 the default stream; -1 no synchronization) waits, through an event, for the work
        /// queued so far on the current stream of this tensor's device; then the tensor is exported
        /// (<paramref name="versioned"/>: a DLManagedTensorVersioned, else a DLManagedTensor).
        /// CtorchException (Argument): "stream should be None on cpu." (CPU tensors take -1),
        /// "per-thread default stream is not supported." (2), "unsupported stream 0 for
        /// ROCm/CUDA".</summary>
        public DLPackCapsule DLPack(long stream, bool versioned = true) =>
            Export((IntPtr t, out IntPtr p) => ctorch.ct_tensor_dlpack(t, stream, versioned ? 1 : 0, out p), versioned);

        /// <summary>this.__dlpack_device__(): DLPack's device type (1 kDLCPU, 2 kDLCUDA) and the
        /// device id.</summary>
        public (int DeviceType, int DeviceId) DLPackDevice
        {
            get
            {
                using (var a = Use())
                {
                    int type, id;
                    Native.Check(ctorch.ct_tensor_dlpack_device(a.Ptr, out type, out id));
                    return (type, id);
                }
            }
        }

        /// <summary>torch.from_dlpack on a DLManagedTensor* (the legacy form) that another library
        /// made: a tensor over its memory, no copy, which owns the struct on success (its deleter
        /// runs once, when the last tensor using the memory is disposed). On a CtorchException the
        /// caller still owns the struct (DType, Device, NotSupported, NullPointer...).</summary>
        public static Tensor FromDLPack(IntPtr capsule)
        {
            IntPtr r;
            Native.Check(ctorch.ct_from_dlpack(capsule, out r));
            return Own(r);
        }

        /// <summary><see cref="FromDLPack"/> for a DLManagedTensorVersioned* (major version 1;
        /// another is CtorchException (NotSupported)).</summary>
        public static Tensor FromDLPackVersioned(IntPtr capsule)
        {
            IntPtr r;
            Native.Check(ctorch.ct_from_dlpack_versioned(capsule, out r));
            return Own(r);
        }

        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        private delegate void BlobDeleter(IntPtr address, IntPtr ctx);

        // ct_from_blob is %ignore'd by SWIG (it takes a C function pointer); it is exported by
        // libctorch.so, a dependency of libctorch_csharp.so (see CudaSanitizer).
        [DllImport("ctorch_csharp", EntryPoint = "ct_from_blob", CallingConvention = CallingConvention.Cdecl)]
        private static extern int NativeFromBlob(IntPtr address, long[] sizes, int ndim, long[] strides, int dtype,
                                                 int devType, int devIndex, BlobDeleter deleter, IntPtr ctx,
                                                 out IntPtr result);

        // The one deleter C calls, referenced for the life of the domain (the native side keeps
        // only a function pointer); ctx is a GCHandle of the program's Action.
        private static readonly BlobDeleter s_blobTrampoline = OnBlobFreed;

        private static void OnBlobFreed(IntPtr address, IntPtr ctx)
        {
            GCHandle h = GCHandle.FromIntPtr(ctx);
            var action = (Action)h.Target;
            h.Free();
            try
            {
                action();
            }
            catch (Exception e) // never unwind into ctorch's native frames
            {
                Console.Error.WriteLine("ctorch: a FromBlob deleter threw (ignored): " + e);
            }
        }

        /// <summary>torch.from_blob(address, shape, strides, deleter=..., dtype=, device=): a tensor
        /// over memory that ctorch did not allocate (host memory, or CUDA memory of
        /// <paramref name="device"/>; IntPtr.Zero only without elements), no copy.
        /// <paramref name="strides"/> (in elements) may be null
        /// (C-contiguous). <paramref name="deleter"/>, if not null, runs exactly once when the last
        /// tensor using the memory (views included) is disposed or finalized, on whatever thread
        /// that happens; never when FromBlob throws. A null deleter leaves the memory to the
        /// caller, who keeps it valid while any tensor uses it. CtorchException: Argument (negative
        /// strides), NullPointer (IntPtr.Zero with elements), Shape, DType, Device (a pointer that
        /// is not memory of that GPU), CudaUnavailable.</summary>
        public static Tensor FromBlob(IntPtr address, long[] shape, DType dtype, Device device, long[] strides = null,
                                      Action deleter = null)
        {
            CheckShape(shape, nameof(shape));
            if (strides != null && strides.Length != shape.Length)
                throw new ArgumentException("strides has " + strides.Length + " values, shape " + shape.Length,
                                            nameof(strides));
            IntPtr ctx = deleter == null ? IntPtr.Zero : GCHandle.ToIntPtr(GCHandle.Alloc(deleter));
            IntPtr r;
            int st = NativeFromBlob(address, shape, shape.Length, strides, (int)dtype, (int)device.Type, device.Index,
                                    deleter == null ? null : s_blobTrampoline, ctx, out r);
            if (st != 0)
            {
                var e = CtorchException.FromStatus(st);
                if (ctx != IntPtr.Zero) GCHandle.FromIntPtr(ctx).Free(); // ctorch never calls it
                throw e;
            }
            return Own(r);
        }
    }
}
