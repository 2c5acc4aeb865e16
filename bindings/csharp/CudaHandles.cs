// The SafeHandles that own one counted reference to a native CUDA stream, event, graph, graphed
// callable, NCCL communicator or jitted function.
using System;
using Ctorch.Swig;

namespace Ctorch
{
    /// <summary>One counted reference to a native stream (a <c>ct_stream</c>), released by
    /// <c>ct_stream_release</c> (see <see cref="NativeHandle"/>).</summary>
    public sealed class CudaStreamHandle : NativeHandle
    {
        /// <inheritdoc cref="NativeHandle(IntPtr, bool)"/>
        public CudaStreamHandle(IntPtr preexistingHandle, bool ownsHandle) : base(preexistingHandle, ownsHandle) { }

        protected override void Release(IntPtr h) => ctorch.ct_stream_release(h);
    }

    /// <summary>One counted reference to a native event (a <c>ct_event</c>), released by
    /// <c>ct_event_release</c> (see <see cref="NativeHandle"/>).</summary>
    public sealed class CudaEventHandle : NativeHandle
    {
        /// <inheritdoc cref="NativeHandle(IntPtr, bool)"/>
        public CudaEventHandle(IntPtr preexistingHandle, bool ownsHandle) : base(preexistingHandle, ownsHandle) { }

        protected override void Release(IntPtr h) => ctorch.ct_event_release(h);
    }

    /// <summary>One counted reference to a native CUDA graph (a <c>ct_cuda_graph</c>), released
    /// by <c>ct_cuda_graph_release</c> (see <see cref="NativeHandle"/>).</summary>
    public sealed class CudaGraphHandle : NativeHandle
    {
        /// <inheritdoc cref="NativeHandle(IntPtr, bool)"/>
        public CudaGraphHandle(IntPtr preexistingHandle, bool ownsHandle) : base(preexistingHandle, ownsHandle) { }

        protected override void Release(IntPtr h) => ctorch.ct_cuda_graph_release(h);
    }

    /// <summary>One counted reference to a native graphed callable (a <c>ct_cuda_graphed</c>),
    /// released by <c>ct_cuda_graphed_release</c> (see <see cref="NativeHandle"/>).</summary>
    public sealed class GraphedCallableHandle : NativeHandle
    {
        /// <inheritdoc cref="NativeHandle(IntPtr, bool)"/>
        public GraphedCallableHandle(IntPtr preexistingHandle, bool ownsHandle) : base(preexistingHandle, ownsHandle) { }

        protected override void Release(IntPtr h) => ctorch.ct_cuda_graphed_release(h);
    }

    /// <summary>One counted reference to a native NCCL communicator (a <c>ct_nccl_comm</c>),
    /// released by <c>ct_nccl_comm_release</c> (see <see cref="NativeHandle"/>). The last release
    /// destroys the communicator, which waits for its queued work (at most its timeout).</summary>
    public sealed class NcclCommHandle : NativeHandle
    {
        /// <inheritdoc cref="NativeHandle(IntPtr, bool)"/>
        public NcclCommHandle(IntPtr preexistingHandle, bool ownsHandle) : base(preexistingHandle, ownsHandle) { }

        protected override void Release(IntPtr h) => ctorch.ct_nccl_comm_release(h);
    }

    /// <summary>One counted reference to a native jitted function (a <c>ct_cuda_jit_fn</c>),
    /// released by <c>ct_cuda_jit_release</c> (see <see cref="NativeHandle"/>).</summary>
    public sealed class JitFunctionHandle : NativeHandle
    {
        /// <inheritdoc cref="NativeHandle(IntPtr, bool)"/>
        public JitFunctionHandle(IntPtr preexistingHandle, bool ownsHandle) : base(preexistingHandle, ownsHandle) { }

        protected override void Release(IntPtr h) => JitFunction.NativeRelease(h);
    }
}
