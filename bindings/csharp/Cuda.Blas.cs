// torch.cuda.current_blas_handle (section 17 of capi/ctorch.h).
using System;
using Ctorch.Swig;

namespace Ctorch
{
    public static partial class Cuda
    {
        /// <summary>torch.cuda.current_blas_handle(): the calling thread's cuBLAS handle for the
        /// current device, as the bits of a <c>cublasHandle_t</c> (<c>new IntPtr(h)</c> for
        /// interop). As in PyTorch there is one handle per (device, thread), created at the first
        /// product or at this call and bound to the current stream (again before each product);
        /// the same thread and device always get the same handle, which lives as long as the
        /// thread, together with a cuBLAS workspace per (thread, stream) taken from the caching
        /// allocator (32 MiB on Hopper and newer, about 8 MiB before: it counts in
        /// <see cref="MemoryAllocated(int)"/> until the thread ends). CtorchException
        /// (CudaUnavailable) without a GPU; (NotSupported) when cuBLAS cannot be loaded.</summary>
        public static long CurrentBlasHandle() =>
            Out.Get<long>(ctorch.ct_cuda_current_blas_handle);
    }
}
