// torch.cuda.CUDAGraph, torch.cuda.graph and torch.cuda.graph_pool_handle: CUDA graphs
// (section 19 of capi/ctorch.h; docs/graphs.md for the semantics, docs/csharp.md "CUDA graphs").
using System;
using System.Threading;
using Ctorch.Swig;

namespace Ctorch
{
    /// <summary>
    /// A CUDA graph, as torch.cuda.CUDAGraph: the kernels and copies queued on a stream between
    /// <see cref="CaptureBegin"/> and <see cref="CaptureEnd"/> (or inside a
    /// <see cref="Capture"/> scope) are recorded instead of run; <see cref="Replay"/> then runs
    /// all of them again with one launch, reading and writing the very tensors the capture used.
    /// <code>
    /// using (var g = new CudaGraph())
    /// {
    ///     Tensor y;
    ///     using (g.Capture()) y = (x * 2.0).Sin();   // recorded on a side stream, not run
    ///     x.Copy_(newX);
    ///     g.Replay();                                 // y is now sin(2 * newX)
    /// }
    /// </code>
    /// Tensors created while capturing come from the graph's private memory pool; they stay valid
    /// after the graph is disposed (the pool's memory is kept until no tensor uses it). Each
    /// CudaGraph object owns one reference to a native graph through its
    /// <see cref="CudaGraphHandle"/>; <see cref="NativeObject{T}.Dispose"/> releases it (the
    /// handle's finalizer does otherwise), and the last release resets the graph. Creating a
    /// graph works without a GPU; everything else then throws CtorchException
    /// (CudaUnavailable).
    /// </summary>
    public sealed class CudaGraph : NativeObject<CudaGraphHandle>
    {
        /// <summary>Wraps a handle; the CudaGraph takes over its disposal.</summary>
        public CudaGraph(CudaGraphHandle handle) : base(handle, "graph", "CudaGraph") { }

        /// <summary>torch.cuda.CUDAGraph(): a new, empty graph.</summary>
        public CudaGraph() : this(NewHandle()) { }

        private static CudaGraphHandle NewHandle()
        {
            IntPtr r;
            Native.Check(ctorch.ct_cuda_graph_create(out r));
            return new CudaGraphHandle(r, true);
        }

        /// <summary>Same as the constructor.</summary>
        public static CudaGraph Create() => new CudaGraph();

        /// <summary>A CudaGraph for a raw ct_cuda_graph handle that owns one reference (for
        /// interop with code using the C API).</summary>
        public static CudaGraph FromHandle(IntPtr handle) => new CudaGraph(new CudaGraphHandle(handle, true));

        /// <summary>Another CudaGraph object for the same native graph (ct_cuda_graph_retain adds
        /// a reference): disposing one leaves the other usable.</summary>
        public CudaGraph NewReference()
        {
            using (var a = Use())
            {
                Native.Check(ctorch.ct_cuda_graph_retain(a.Ptr));
                return FromHandle(a.Ptr);
            }
        }

        // ---------------------------------------------------------------- capture

        /// <summary>graph.capture_begin(pool, capture_error_mode): starts capturing the work
        /// queued on the calling thread's current stream, which must not be the default stream
        /// (CtorchException, State; make a side stream current first, or use
        /// <see cref="Capture"/>, which does). pool: 0 for a new private pool, or an id from
        /// <see cref="PoolHandle"/> or another graph's <see cref="Pool"/> to share one.</summary>
        public void CaptureBegin(long pool = 0, CaptureMode captureErrorMode = CaptureMode.Global)
        {
            using (var a = Use()) Native.Check(ctorch.ct_cuda_graph_capture_begin(a.Ptr, pool, (int)captureErrorMode));
        }

        /// <summary>graph.capture_end(): ends the capture (on the stream it began on, current
        /// again) and makes the graph ready to replay. When an operation CUDA forbids during a
        /// capture invalidated it, this throws CtorchException (State) naming the operation, and
        /// the graph is as after <see cref="Reset"/>.</summary>
        public void CaptureEnd()
        {
            using (var a = Use()) Native.Check(ctorch.ct_cuda_graph_capture_end(a.Ptr));
        }

        /// <summary>
        /// torch.cuda.graph(graph, pool, stream, capture_error_mode) for <c>using</c>: waits for
        /// the device, makes stream current (null: the side stream ctorch keeps per device for
        /// captures) and begins the capture; disposing the scope ends the capture and restores the
        /// previous stream and device, also when the body throws.
        /// <code>
        /// using (g.Capture()) y = x.Exp() + 1.0;
        /// </code>
        /// When the body did something CUDA forbids during a capture, that call throws
        /// CtorchException (State) and so does the scope's Dispose (capture_end's error, after
        /// restoring the stream). Dispose the scope on the thread that created it.
        /// </summary>
        public GraphCapture Capture(long pool = 0, CudaStream stream = null,
                                    CaptureMode captureErrorMode = CaptureMode.Global) =>
            new GraphCapture(this, pool, stream, captureErrorMode);

        // ---------------------------------------------------------------- replay

        /// <summary>graph.replay(): runs the captured work on the current stream and advances the
        /// generators it drew random numbers from (each replay draws new numbers). Without a
        /// finished capture: CtorchException (State).</summary>
        public void Replay()
        {
            using (var a = Use()) Native.Check(ctorch.ct_cuda_graph_replay(a.Ptr));
        }

        /// <summary>graph.reset(): drops the captured graph and gives its pool back (its memory
        /// returns to CUDA with <see cref="Cuda.EmptyCache"/> once no tensor uses it); the graph
        /// can capture again. A capture still under way is ended and discarded.</summary>
        public void Reset()
        {
            using (var a = Use()) Native.Check(ctorch.ct_cuda_graph_reset(a.Ptr));
        }

        /// <summary>graph.pool(): the id of the graph's private memory pool, for another graph's
        /// <see cref="CaptureBegin"/> or <see cref="Capture"/> (the graphs are then captured and
        /// replayed in the same order). Before a successful capture: CtorchException (State).</summary>
        public long Pool()
        {
            using (var a = Use()) return Out.Get<long>(ctorch.ct_cuda_graph_pool, a.Ptr);
        }

        /// <summary>torch.cuda.graph_pool_handle(): a new pool id that graphs can share.</summary>
        public static long PoolHandle() => Out.Get<long>(ctorch.ct_cuda_graph_pool_handle);

        // ---------------------------------------------------------------- debugging

        /// <summary>graph.enable_debug_mode(): keeps the captured graph so that
        /// <see cref="DebugDump"/> can write it; call it before the capture ends. Unlike
        /// PyTorch's, it applies to this graph only.</summary>
        public void EnableDebugMode()
        {
            using (var a = Use()) Native.Check(ctorch.ct_cuda_graph_enable_debug_mode(a.Ptr));
        }

        /// <summary>graph.debug_dump(path): writes the captured graph as Graphviz DOT to path.
        /// Without <see cref="EnableDebugMode"/> before the capture ended: CtorchException
        /// (State); a file that cannot be written: CtorchException (Cuda). A null path is
        /// ArgumentNullException, one with a NUL character ArgumentException.</summary>
        public void DebugDump(string path)
        {
            Cuda.CheckCString(path, nameof(path));
            using (var a = Use()) Native.Check(ctorch.ct_cuda_graph_debug_dump(a.Ptr, path));
        }

        // ---------------------------------------------------------------- graphed callables

        /// <summary>torch.cuda.make_graphed_callables for a function that returns its results:
        /// runs fn numWarmupIters times on a side stream, then captures one more call into a graph
        /// (a private pool, or pool's). The returned callable's <see cref="GraphedCallable.Run"/>
        /// copies new inputs into staticInputs (the CUDA tensors fn reads) and replays the graph,
        /// which rewrites <see cref="GraphedCallable.Outputs"/>: the tensors fn returned while it
        /// was captured. The callable owns the tensors fn returns (except static inputs): those of
        /// the captured call until it is disposed, those of the warm-up calls are disposed when
        /// this returns. The temporaries fn creates and does not return are disposed after each
        /// call. fn runs only during this call, on the calling thread; an exception it throws
        /// comes back out of this method, and the capture is discarded.</summary>
        public static GraphedCallable MakeGraphed(Func<Tensor[]> fn, Tensor[] staticInputs,
                                                  int numWarmupIters = 3, long pool = 0)
        {
            if (fn == null) throw new ArgumentNullException(nameof(fn));
            return GraphedCallable.Make(fn, true, staticInputs, numWarmupIters, pool);
        }

        /// <summary><see cref="MakeGraphed(Func{Tensor[]}, Tensor[], int, long)"/> for a function
        /// with one result (<see cref="GraphedCallable.Outputs"/> then holds it alone).</summary>
        public static GraphedCallable MakeGraphed(Func<Tensor> fn, Tensor[] staticInputs,
                                                  int numWarmupIters = 3, long pool = 0)
        {
            if (fn == null) throw new ArgumentNullException(nameof(fn));
            return GraphedCallable.Make(() => new[] { fn() }, true, staticInputs, numWarmupIters, pool);
        }

        /// <summary>torch.cuda.make_graphed_callables for a function that keeps its results
        /// itself (it writes them into tensors the caller holds, e.g. fields it assigns): as
        /// <see cref="MakeGraphed(Func{Tensor[]}, Tensor[], int, long)"/>, but the binding owns
        /// and disposes nothing fn creates (<see cref="GraphedCallable.Outputs"/> is empty).</summary>
        public static GraphedCallable MakeGraphed(Action fn, Tensor[] staticInputs,
                                                  int numWarmupIters = 3, long pool = 0)
        {
            if (fn == null) throw new ArgumentNullException(nameof(fn));
            return GraphedCallable.Make(() => { fn(); return null; }, false, staticInputs, numWarmupIters, pool);
        }

        public override string ToString() => IsDisposed ? "CudaGraph(disposed)" : "<torch.cuda.CUDAGraph>";
    }

    /// <summary>
    /// The capture scope of <see cref="CudaGraph.Capture"/> (<c>with torch.cuda.graph(g):</c>,
    /// ct_cuda_graph_capture_enter / ct_cuda_graph_capture_exit). While it is open it keeps the
    /// graph's native reference (disposing the CudaGraph inside the scope releases it only when
    /// the scope ends). Dispose it on the thread that created it.
    /// </summary>
    public sealed class GraphCapture : IDisposable
    {
        private Lease _graph;                          // the graph's handle, held until Dispose
        private readonly CudaStreamHandle _prevStream; // the stream Dispose makes current again
        private readonly int _prevDevice;
        private readonly int _threadId;
        private bool _disposed;

        internal GraphCapture(CudaGraph graph, long pool, CudaStream stream, CaptureMode mode)
        {
            _threadId = Thread.CurrentThread.ManagedThreadId;
            _graph = graph.Use();
            try
            {
                using (var s = CudaStream.UseOrNull(stream, nameof(stream)))
                {
                    IntPtr prev;
                    int prevDevice;
                    Native.Check(ctorch.ct_cuda_graph_capture_enter(_graph.Ptr, pool, (int)mode, s.Ptr,
                                                                     out prev, out prevDevice));
                    _prevStream = new CudaStreamHandle(prev, true);
                    _prevDevice = prevDevice;
                }
            }
            catch
            {
                _graph.Dispose();   // a failed enter changed nothing
                throw;
            }
        }

        /// <summary>The device that Dispose makes current again.</summary>
        public int PreviousDevice => _prevDevice;

        /// <summary>Ends the capture and restores the previous stream and device; throws
        /// CtorchException (State) when the capture was invalidated. Calling it again does
        /// nothing.</summary>
        public void Dispose()
        {
            if (_disposed) return;
            _disposed = true;
            try
            {
                // ct_cuda_graph_capture_exit always releases the previous stream's reference.
                PreviousStream.Restore(_prevStream, _threadId, "a GraphCapture",
                                       "the capturing stream is that thread's current stream",
                                       prev => ctorch.ct_cuda_graph_capture_exit(_graph.Ptr, prev, _prevDevice), true);
            }
            finally
            {
                _graph.Dispose();
            }
        }
    }
}
