// The torch.cuda functions of CUDA graphs (section 19 of capi/ctorch.h): graph, graph_pool_handle,
// is_current_stream_capturing. The graph itself is CudaGraph (CudaGraph.cs).
using System;
using Ctorch.Swig;

namespace Ctorch
{
    public static partial class Cuda
    {
        /// <summary>torch.cuda.is_current_stream_capturing(): true when the calling thread's
        /// current stream of the current device is capturing a graph (false without CUDA).</summary>
        public static bool IsCurrentStreamCapturing => Out.Get<int>(ctorch.ct_cuda_is_current_stream_capturing) != 0;

        /// <summary>torch.cuda.graph_pool_handle(): a new memory pool id that graphs captured (and
        /// replayed) in order can share; same as <see cref="CudaGraph.PoolHandle"/>.</summary>
        public static long GraphPoolHandle() => CudaGraph.PoolHandle();

        /// <summary>torch.cuda.graph(graph, pool, stream, capture_error_mode): the capture scope
        /// for <c>using</c>; same as <see cref="CudaGraph.Capture"/>.</summary>
        public static GraphCapture Graph(CudaGraph graph, long pool = 0, CudaStream stream = null,
                                         CaptureMode captureErrorMode = CaptureMode.Global)
        {
            if ((object)graph == null) throw new ArgumentNullException(nameof(graph));
            return graph.Capture(pool, stream, captureErrorMode);
        }
    }
}
