// torch.cuda.make_graphed_callables for C# functions: ct_cuda_make_graphed_callable called
// through a DllImport with a trampoline into a delegate (section 19 of capi/ctorch.h), and the
// callable it returns.
using System;
using System.Collections.Generic;
using System.Collections.ObjectModel;
using System.Runtime.ExceptionServices;
using System.Runtime.InteropServices;
using Ctorch.Swig;

namespace Ctorch
{
    /// <summary>
    /// A function captured into a CUDA graph (torch.cuda.make_graphed_callables), made by
    /// <see cref="CudaGraph.MakeGraphed(Func{Tensor[]}, Tensor[], int, long)"/>:
    /// <see cref="Run"/> copies new inputs into the static inputs and replays the graph, which
    /// rewrites <see cref="Outputs"/>.
    /// <code>
    /// using (GraphedCallable f = CudaGraph.MakeGraphed(() => (x * 2.0).Sin(), new[] { x }))
    /// {
    ///     Tensor y = f.Run(newX)[0];   // sin(2 * newX), the same tensor as f.Outputs[0]
    /// }
    /// </code>
    /// Each object owns one reference to the native callable through its
    /// <see cref="GraphedCallableHandle"/>; Dispose releases it (the handle's finalizer does
    /// otherwise) and disposes the outputs the callable owns.
    /// </summary>
    public sealed class GraphedCallable : NativeObject<GraphedCallableHandle>
    {
        private static readonly Tensor[] s_none = new Tensor[0];

        private readonly Tensor[] _staticInputs, _outputs, _owned;

        /// <summary>Wraps a handle; the GraphedCallable takes over its disposal. It knows no static
        /// inputs or outputs (<see cref="StaticInputs"/> and <see cref="Outputs"/> are empty).</summary>
        public GraphedCallable(GraphedCallableHandle handle) : this(handle, s_none, s_none, s_none) { }

        private GraphedCallable(GraphedCallableHandle handle, Tensor[] staticInputs, Tensor[] outputs, Tensor[] owned)
            : base(handle, "callable", "GraphedCallable")
        {
            _staticInputs = staticInputs;
            _outputs = outputs;
            _owned = owned;
        }

        /// <summary>A GraphedCallable for a raw ct_cuda_graphed handle that owns one reference.</summary>
        public static GraphedCallable FromHandle(IntPtr handle) => new GraphedCallable(new GraphedCallableHandle(handle, true));

        /// <summary>Another GraphedCallable object for the same native callable
        /// (ct_cuda_graphed_retain adds a reference), with the same static inputs and outputs;
        /// disposing it releases only its reference (the outputs stay with this object).</summary>
        public GraphedCallable NewReference()
        {
            using (var a = Use())
            {
                Native.Check(ctorch.ct_cuda_graphed_retain(a.Ptr));
                return new GraphedCallable(new GraphedCallableHandle(a.Ptr, true), _staticInputs, _outputs, s_none);
            }
        }

        /// <summary>The tensors the function reads, as given at creation (the caller still owns
        /// them; the native callable holds its own references).</summary>
        public IReadOnlyList<Tensor> StaticInputs => Array.AsReadOnly(_staticInputs);

        /// <summary>What the function returned while it was captured; each <see cref="Run"/>
        /// rewrites them. Empty for a function given as an Action.</summary>
        public IReadOnlyList<Tensor> Outputs => Array.AsReadOnly(_outputs);

        /// <summary>Runs the callable on the current stream: copies inputs[i] into static input i
        /// (none: the static inputs keep their values), then replays the graph, and returns
        /// <see cref="Outputs"/> (the same tensors each time, rewritten; read them after the stream
        /// got there, as with any result). Give as many inputs as there are static inputs, each
        /// with its static input's shape, dtype and device (CtorchException Argument, Shape, DType,
        /// Device otherwise).</summary>
        public IReadOnlyList<Tensor> Run(params Tensor[] inputs)
        {
            if (inputs == null) throw new ArgumentNullException(nameof(inputs));
            using (var a = Use())
            using (var l = new MultiLease(inputs, nameof(inputs)))
            {
                Native.Check(ctorch.ct_cuda_graphed_run(a.Ptr, l.Ptrs, inputs.Length));
            }
            return Outputs;
        }

        /// <summary>The callable's graph, for its <see cref="CudaGraph.Pool"/> or a replay of its
        /// own (a new CudaGraph object: dispose it).</summary>
        public CudaGraph GetGraph()
        {
            using (var a = Use())
            {
                IntPtr r;
                Native.Check(ctorch.ct_cuda_graphed_graph(a.Ptr, out r));
                return CudaGraph.FromHandle(r);
            }
        }

        /// <summary>Releases the native reference and disposes the outputs this object owns.
        /// Calling it again does nothing.</summary>
        public override void Dispose()
        {
            base.Dispose();
            foreach (Tensor t in _owned) t.Dispose();
        }

        public override string ToString() => IsDisposed ? "GraphedCallable(disposed)" : "<GraphedCallable>";

        // ---------------------------------------------------------------- making one

        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        private delegate int GraphFn(IntPtr ctx);

        // ct_cuda_make_graphed_callable is %ignore'd by SWIG (it takes a C function pointer); it is
        // exported by libctorch.so, a dependency of libctorch_csharp.so, which dlsym searches too
        // (as for ct_cuda_add_oom_hook, Cuda.OutOfMemory.cs).
        [DllImport("ctorch_csharp", EntryPoint = "ct_cuda_make_graphed_callable", CallingConvention = CallingConvention.Cdecl)]
        private static extern int MakeGraphedCallable(GraphFn fn, IntPtr ctx, IntPtr[] staticInputs, int nInputs,
                                                      int numWarmupIters, long pool, out IntPtr result);

        // One static delegate for every call (ctx says which call it is): its function pointer
        // stays valid for the life of the domain.
        private static readonly GraphFn s_trampoline = Trampoline;

        /// <summary>Makes a callable of fn (ownsResults: the function returns its results, which
        /// the callable takes over; otherwise fn returns null and keeps its results itself).</summary>
        internal static GraphedCallable Make(Func<Tensor[]> fn, bool ownsResults, Tensor[] staticInputs,
                                             int numWarmupIters, long pool)
        {
            if (staticInputs == null) throw new ArgumentNullException(nameof(staticInputs));
            Tensor[] inputs = (Tensor[])staticInputs.Clone();
            var call = new Call(fn, ownsResults, inputs);
            GCHandle ctx = GCHandle.Alloc(call);
            try
            {
                IntPtr r;
                int st;
                using (var l = new MultiLease(inputs, nameof(staticInputs)))
                {
                    st = MakeGraphedCallable(s_trampoline, GCHandle.ToIntPtr(ctx), l.Ptrs, inputs.Length,
                                             numWarmupIters, pool, out r);
                }
                if (st != 0)
                {
                    CtorchException error = CtorchException.FromStatus(st);   // before any other call
                    call.DisposeResults(s_none);
                    if (call.Error != null) ExceptionDispatchInfo.Capture(call.Error).Throw();
                    throw error;
                }
                Tensor[] outputs = call.LastResults;
                Tensor[] owned = call.DisposeResults(outputs);
                return new GraphedCallable(new GraphedCallableHandle(r, true), inputs, outputs, owned);
            }
            finally
            {
                ctx.Free();
            }
        }

        /// <summary>The ct_graph_fn: runs the call's function. Never throws: an exception must not
        /// unwind into native code; it is kept for Make to rethrow, and the status stops
        /// ct_cuda_make_graphed_callable (a ctorch error's own code, else CT_ERR_STATE).</summary>
        private static int Trampoline(IntPtr ctx)
        {
            Call call = null;
            try
            {
                call = (Call)GCHandle.FromIntPtr(ctx).Target;
                call.Invoke();
                return 0;
            }
            catch (Exception e)
            {
                if (call != null && call.Error == null) call.Error = e;
                var ce = e as CtorchException;
                return ce != null && ce.Code != StatusCode.Ok ? (int)ce.Code : (int)StatusCode.State;
            }
        }

        /// <summary>One ct_cuda_make_graphed_callable: the function, and what its calls returned
        /// (the warm-up calls', then the captured call's).</summary>
        private sealed class Call
        {
            private readonly Func<Tensor[]> _fn;
            private readonly bool _ownsResults;
            private readonly Tensor[] _inputs;
            private readonly List<Tensor[]> _results = new List<Tensor[]>();

            /// <summary>What the function threw (the first exception).</summary>
            internal Exception Error;

            internal Call(Func<Tensor[]> fn, bool ownsResults, Tensor[] inputs)
            {
                _fn = fn;
                _ownsResults = ownsResults;
                _inputs = inputs;
            }

            internal void Invoke()
            {
                if (!_ownsResults)
                {
                    _fn();
                    return;
                }
                // The temporaries of one call are disposed at its end (during the capture, their
                // memory goes back to the graph's pool for the rest of that capture).
                using (DisposeScope scope = DisposeScope.Begin())
                {
                    Tensor[] r = _fn();
                    if (r == null)
                        throw new InvalidOperationException("the graphed function returned null instead of its result tensors");
                    r = (Tensor[])r.Clone();
                    for (int i = 0; i < r.Length; i++)
                        if ((object)r[i] == null)
                            throw new InvalidOperationException("result " + i + " of the graphed function is null");
                    foreach (Tensor t in r)
                        if (!IsInput(t)) scope.Detach(t);
                    _results.Add(r);
                }
            }

            private bool IsInput(Tensor t) => Array.IndexOf(_inputs, t) >= 0;

            /// <summary>The results of the last call (the captured one after a success).</summary>
            internal Tensor[] LastResults => _results.Count == 0 ? s_none : _results[_results.Count - 1];

            /// <summary>Disposes every result except the static inputs and those in keep, and
            /// returns those of keep that are owned (not static inputs).</summary>
            internal Tensor[] DisposeResults(Tensor[] keep)
            {
                foreach (Tensor[] r in _results)
                    foreach (Tensor t in r)
                        if (!IsInput(t) && Array.IndexOf(keep, t) < 0) t.Dispose();
                var owned = new List<Tensor>();
                foreach (Tensor t in keep)
                    if (!IsInput(t) && !owned.Contains(t)) owned.Add(t);
                return owned.ToArray();
            }
        }
    }
}
