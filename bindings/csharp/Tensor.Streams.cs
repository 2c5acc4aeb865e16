// Tensor: pinned memory and streams (section 12a of capi/ctorch.h).
using System;
using Ctorch.Swig;

namespace Ctorch
{
    public sealed partial class Tensor
    {
        /// <summary>tensor.pin_memory(): a copy of this CPU tensor in page-locked host memory,
        /// from which non-blocking copies to the GPU are truly asynchronous. CtorchException with
        /// Code Device for a CUDA tensor, CudaUnavailable without CUDA.</summary>
        public Tensor PinMemory()
        {
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_tensor_pin_memory(a.Ptr, out r)); return Own(r); }
        }

        /// <summary>tensor.is_pinned(): true when the storage is pinned host memory (false for
        /// ordinary CPU and for CUDA tensors; works without a GPU).</summary>
        public bool IsPinned
        {
            get { using (var a = Use()) { int r; Native.Check(ctorch.ct_tensor_is_pinned(a.Ptr, out r)); return r != 0; } }
        }

        /// <summary>tensor.record_stream(stream): tells the caching allocator that this CUDA
        /// tensor's memory is in use on stream, so it is not reused before the work queued there
        /// (up to the moment the tensor is freed) is done. CtorchException (Device) for a CPU
        /// tensor or a stream of another device.</summary>
        public void RecordStream(CudaStream stream)
        {
            using (var a = Use())
            using (var s = CudaStream.Use(stream, nameof(stream)))
            {
                Native.Check(ctorch.ct_tensor_record_stream(a.Ptr, s.Ptr));
            }
        }
    }
}
