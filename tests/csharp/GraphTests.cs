// CUDA graphs through the C# binding (CudaGraph, GraphCapture, GraphedCallable; ctorch.h
// section 19). On any machine: lifetimes (Dispose twice, use after Dispose, NewReference, live
// counts back at their start; the finalizer in GcTests.cs), released and foreign handles (102),
// argument checks of the binding (null and disposed arguments, arrays of tensors, strings), the
// generated CaptureMode against the C constants, and without a GPU the CT_ERR_CUDA_UNAVAILABLE of
// every graph call as CtorchException (CudaUnavailable), with nothing changed by the failed call.
// On a GPU host (skipped visibly elsewhere): what only the binding can get wrong there: a capture
// scope and a replay give the eager result; the scope ends the capture and restores the stream
// when its body throws, and reports an invalidated capture; pool ids shared between graphs; debug
// dumps; graphed callables with a Func, a Func<Tensor[]> and an Action replay with new inputs, own
// and dispose what they should, and an exception thrown inside the delegate (during warm-up or
// during the capture) comes back as that very exception with the capture discarded.
// The C layer's own rules (capture modes, memory pools, random numbers, illegal operations) are
// tested in tests/capi.
using System;
using System.IO;
using Ctorch;
using Ctorch.Swig;
using NUnit.Framework;

namespace Ctorch.Tests
{
    [TestFixture]
    public class GraphTests : TestBase
    {
        private long _startGraphs, _startCallables;

        [SetUp]
        public void StartGraphCounts()
        {
            _startGraphs = Torch.LiveCudaGraphCount;
            _startCallables = Torch.LiveGraphedCallableCount;
        }

        [TearDown]
        public void EndGraphCounts()
        {
            Assert.AreEqual(_startGraphs, Torch.LiveCudaGraphCount, "live graph count after the test");
            Assert.AreEqual(_startCallables, Torch.LiveGraphedCallableCount, "live graphed-callable count after the test");
            Assert.IsFalse(Cuda.IsCurrentStreamCapturing, "the test left a capture running");
        }

        // ============================================================ on any machine

        [Test]
        public void CaptureModesAreTheCConstants()
        {
            Assert.AreEqual(ctorch.CT_CAPTURE_MODE_GLOBAL, (int)CaptureMode.Global);
            Assert.AreEqual(ctorch.CT_CAPTURE_MODE_THREAD_LOCAL, (int)CaptureMode.ThreadLocal);
            Assert.AreEqual(ctorch.CT_CAPTURE_MODE_RELAXED, (int)CaptureMode.Relaxed);
            Assert.AreEqual(3, Enum.GetValues(typeof(CaptureMode)).Length);
        }

        [Test]
        public void GraphsAreCreatedReferencedAndReleased()
        {
            long n0 = Torch.LiveCudaGraphCount;
            var g = new CudaGraph();
            Assert.AreEqual(n0 + 1, Torch.LiveCudaGraphCount);
            Assert.IsFalse(g.IsDisposed);
            Assert.AreEqual("<torch.cuda.CUDAGraph>", g.ToString());
            using (CudaGraph g2 = CudaGraph.Create())
                Assert.AreEqual(n0 + 2, Torch.LiveCudaGraphCount);
            Assert.AreEqual(n0 + 1, Torch.LiveCudaGraphCount);

            // A second reference keeps the native graph when the first object is disposed.
            CudaGraph r = g.NewReference();
            Assert.AreNotSame(g, r);
            g.Dispose();
            g.Dispose();   // twice: nothing
            Assert.IsTrue(g.IsDisposed);
            Assert.AreEqual("CudaGraph(disposed)", g.ToString());
            Assert.AreEqual(n0 + 1, Torch.LiveCudaGraphCount, "r still holds the graph");
            using (CudaGraph r2 = r.NewReference()) Assert.IsFalse(r2.IsDisposed);
            r.Dispose();
            Assert.AreEqual(n0, Torch.LiveCudaGraphCount);

            // Every use of a disposed graph is ObjectDisposedException, before any native call.
            Assert.Throws<ObjectDisposedException>(() => g.NewReference());
            Assert.Throws<ObjectDisposedException>(() => g.CaptureBegin());
            Assert.Throws<ObjectDisposedException>(() => g.CaptureEnd());
            Assert.Throws<ObjectDisposedException>(() => g.Replay());
            Assert.Throws<ObjectDisposedException>(() => g.Reset());
            Assert.Throws<ObjectDisposedException>(() => g.Pool());
            Assert.Throws<ObjectDisposedException>(() => g.EnableDebugMode());
            Assert.Throws<ObjectDisposedException>(() => g.DebugDump("graph.dot"));
            Assert.Throws<ObjectDisposedException>(() => g.Capture());
            Assert.Throws<ObjectDisposedException>(() => Cuda.Graph(g));
        }

        [Test]
        public void RawGraphHandles()
        {
            long n0 = Torch.LiveCudaGraphCount;
            IntPtr raw;
            Assert.AreEqual(0, ctorch.ct_cuda_graph_create(out raw));
            Assert.AreNotEqual(IntPtr.Zero, raw);
            Assert.AreEqual(0, ctorch.ct_cuda_graph_retain(raw));
            Assert.AreEqual(0, ctorch.ct_cuda_graph_release(raw));
            Assert.AreEqual(n0 + 1, Torch.LiveCudaGraphCount, "one reference left");
            // The last reference, through the idiomatic layer.
            using (CudaGraph g = CudaGraph.FromHandle(raw)) Assert.IsFalse(g.IsDisposed);
            Assert.AreEqual(n0, Torch.LiveCudaGraphCount);
            Assert.AreEqual(102, ctorch.ct_cuda_graph_release(raw));   // released: an error, not a crash

            // A stale handle through the idiomatic layer (a wrapper that does not own it).
            using (var ghost = new CudaGraph(new CudaGraphHandle(raw, false)))
            {
                Fails(StatusCode.InvalidHandle, () => ghost.NewReference());
                Fails(StatusCode.InvalidHandle, () => ghost.Replay());
                Fails(StatusCode.InvalidHandle, () => ghost.Reset());
                Fails(StatusCode.InvalidHandle, () => ghost.Pool());
                Fails(StatusCode.InvalidHandle, () => ghost.CaptureBegin());
                Fails(StatusCode.InvalidHandle, () => ghost.CaptureEnd());
                Fails(StatusCode.InvalidHandle, () => ghost.EnableDebugMode());
                Fails(StatusCode.InvalidHandle, () => ghost.DebugDump("graph.dot"));
                Fails(StatusCode.InvalidHandle, () => ghost.Capture());
            }
            Assert.IsFalse(Cuda.IsCurrentStreamCapturing);
        }

        [Test]
        public void ForeignCallableHandlesGive102()
        {
            // A GraphedCallable wrapping a graph's handle (not owned): every call reaches the C
            // layer, which rejects it. Leaving a capture scope needs a capture only a GPU gives;
            // the raw layer reaches it with no graph.
            using (var g = new CudaGraph())
            using (Tensor t = F(1, 2))
            {
                var ghost = new GraphedCallable(new GraphedCallableHandle(g.Handle.DangerousGetHandle(), false));
                Assert.AreEqual(0, ghost.StaticInputs.Count);
                Assert.AreEqual(0, ghost.Outputs.Count);
                Fails(StatusCode.InvalidHandle, () => ghost.Run());
                Fails(StatusCode.InvalidHandle, () => ghost.Run(t));
                Fails(StatusCode.InvalidHandle, () => ghost.GetGraph());
                Fails(StatusCode.InvalidHandle, () => ghost.NewReference());
                ghost.Dispose();
                Assert.IsTrue(ghost.IsDisposed);
                Assert.AreEqual("GraphedCallable(disposed)", ghost.ToString());
                Assert.Throws<ObjectDisposedException>(() => ghost.Run());
                Assert.Throws<ObjectDisposedException>(() => ghost.GetGraph());
                Assert.Throws<ObjectDisposedException>(() => ghost.NewReference());
                Assert.IsFalse(g.IsDisposed, "the wrapper did not own the handle");
                Assert.IsFalse(t.IsDisposed);
            }
            Assert.AreEqual(102, ctorch.ct_cuda_graphed_retain(IntPtr.Zero));
            Assert.AreEqual(102, ctorch.ct_cuda_graphed_release(IntPtr.Zero));
            Assert.AreEqual(102, ctorch.ct_cuda_graph_capture_exit(IntPtr.Zero, IntPtr.Zero, -1));
        }

        [Test]
        public void ArgumentsCheckedByTheBinding()
        {
            Assert.Throws<ArgumentNullException>(() => new CudaGraph((CudaGraphHandle)null));
            Assert.Throws<ArgumentException>(() => CudaGraph.FromHandle(IntPtr.Zero));
            Assert.Throws<ArgumentNullException>(() => new GraphedCallable(null));
            Assert.Throws<ArgumentException>(() => GraphedCallable.FromHandle(IntPtr.Zero));
            Assert.Throws<ArgumentNullException>(() => Cuda.Graph(null));

            int calls = 0;
            long n0 = Torch.LiveCudaGraphCount, c0 = Torch.LiveGraphedCallableCount;
            using (Tensor x = F(1, 2))
            {
                Tensor gone = F(3);
                gone.Dispose();
                Assert.Throws<ArgumentNullException>(() => CudaGraph.MakeGraphed((Func<Tensor>)null, new[] { x }));
                Assert.Throws<ArgumentNullException>(() => CudaGraph.MakeGraphed((Func<Tensor[]>)null, new[] { x }));
                Assert.Throws<ArgumentNullException>(() => CudaGraph.MakeGraphed((Action)null, new[] { x }));
                Assert.Throws<ArgumentNullException>(() => CudaGraph.MakeGraphed(() => { calls++; }, null));
                Assert.Throws<ArgumentNullException>(() => CudaGraph.MakeGraphed(() => { calls++; }, new[] { x, null }));
                var e = Assert.Throws<ObjectDisposedException>(() => CudaGraph.MakeGraphed(() => { calls++; }, new[] { x, gone }));
                StringAssert.Contains("element 1", e.Message);
                Assert.AreEqual(0, calls, "the function ran although the arguments were bad");
                Assert.IsFalse(x.IsDisposed);

                using (var g = new CudaGraph())
                {
                    Assert.Throws<ArgumentNullException>(() => g.DebugDump(null));
                    Assert.Throws<ArgumentException>(() => g.DebugDump("graph\0.dot"));
                }
            }
            Assert.AreEqual(n0, Torch.LiveCudaGraphCount);
            Assert.AreEqual(c0, Torch.LiveGraphedCallableCount);
        }

        [Test]
        public void WithoutGpuEveryGraphCallFailsWith301()
        {
            RequireNoGpu();
            Assert.IsFalse(Cuda.IsCurrentStreamCapturing);
            Unavailable(() => CudaGraph.PoolHandle());
            Unavailable(() => Cuda.GraphPoolHandle());
            long n0 = Torch.LiveCudaGraphCount;
            using (var g = new CudaGraph())
            {
                Unavailable(() => g.CaptureBegin());
                Unavailable(() => g.CaptureBegin(0, CaptureMode.ThreadLocal));
                Unavailable(() => g.CaptureEnd());
                Unavailable(() => g.Replay());
                Unavailable(() => g.Reset());
                Unavailable(() => g.Pool());
                Unavailable(() => g.EnableDebugMode());
                Unavailable(() => g.DebugDump("graph.dot"));
                // A capture scope that cannot begin changes nothing and holds nothing.
                Unavailable(() => g.Capture());
                Unavailable(() => g.Capture(0, null, CaptureMode.Relaxed));
                Unavailable(() => Cuda.Graph(g, 0, null, CaptureMode.ThreadLocal));
                Assert.IsFalse(Cuda.IsCurrentStreamCapturing);
            }
            // Had a failed scope kept its lease on the handle, Dispose could not release it.
            Assert.AreEqual(n0, Torch.LiveCudaGraphCount);

            long c0 = Torch.LiveGraphedCallableCount;
            using (Tensor x = F(1, 2))
            {
                int calls = 0;
                Unavailable(() => CudaGraph.MakeGraphed(() => { calls++; return x * 2.0; }, new[] { x }));
                Unavailable(() => CudaGraph.MakeGraphed(() => { calls++; return new[] { x + 1.0, x }; }, new[] { x }, 0));
                Unavailable(() => CudaGraph.MakeGraphed(() => { calls++; }, new Tensor[0], 1, 0));
                Assert.AreEqual(0, calls, "the function ran without CUDA");
                Assert.IsFalse(x.IsDisposed, "a static input was disposed");
                Assert.AreEqual(c0, Torch.LiveGraphedCallableCount);
            }
        }

        // ============================================================ on a GPU

        private static float[] Eager(Tensor x) => ((x * 2.0) + 1.0).Sin().ToArray<float>();

        [Test]
        public void CaptureScopeAndReplayGiveTheEagerResult()
        {
            RequireGpu();
            using (Tensor x = Tensor.Rand(new long[] { 1000 }, Device.Cuda))
            using (Tensor x2 = Tensor.Rand(new long[] { 1000 }, Device.Cuda))
            using (CudaStream before = CudaStream.Current())
            using (var g = new CudaGraph())
            {
                float[] expected = Eager(x), expected2 = Eager(x2);
                Tensor y;
                using (g.Capture())
                {
                    Assert.IsTrue(Cuda.IsCurrentStreamCapturing);
                    using (CudaStream during = CudaStream.Current())
                        Assert.AreNotEqual(before, during, "the capture runs on a side stream");
                    y = ((x * 2.0) + 1.0).Sin();
                }
                Assert.IsFalse(Cuda.IsCurrentStreamCapturing);
                using (CudaStream after = CudaStream.Current()) Assert.AreEqual(before, after, "the stream is restored");
                g.Replay();
                CollectionAssert.AreEqual(expected, y.ToArray<float>());
                x.Copy_(x2);
                g.Replay();
                CollectionAssert.AreEqual(expected2, y.ToArray<float>(), "a replay reads the new input");
            }
        }

        [Test]
        public void ManualCaptureOnASideStreamInEveryMode()
        {
            RequireGpu();
            using (Tensor x = Tensor.Rand(new long[] { 64 }, Device.Cuda))
            {
                float[] xs = x.ToArray<float>();
                using (var g = new CudaGraph())
                    Fails(StatusCode.State, () => g.CaptureBegin());   // on the default stream
                foreach (CaptureMode mode in new[] { CaptureMode.Global, CaptureMode.ThreadLocal, CaptureMode.Relaxed })
                {
                    using (var s = new CudaStream())
                    using (var g = new CudaGraph())
                    {
                        Tensor y;
                        using (Cuda.UseStream(s))
                        {
                            g.CaptureBegin(0, mode);
                            Assert.IsTrue(Cuda.IsCurrentStreamCapturing);
                            y = x + x;
                            g.CaptureEnd();
                            Assert.IsFalse(Cuda.IsCurrentStreamCapturing);
                            g.Replay();
                            s.Synchronize();
                        }
                        float[] ys = y.ToArray<float>();
                        for (int i = 0; i < xs.Length; i++) Assert.AreEqual(xs[i] + xs[i], ys[i], "mode " + mode);
                        g.Reset();
                        Fails(StatusCode.State, () => g.Replay());   // nothing captured any more
                    }
                }
            }
        }

        [Test]
        public void TheScopeEndsTheCaptureWhenItsBodyThrows()
        {
            RequireGpu();
            using (Tensor x = Tensor.Ones(new long[] { 8 }, Device.Cuda))
            using (CudaStream before = CudaStream.Current())
            using (var g = new CudaGraph())
            {
                Tensor y = null;
                var thrown = new InvalidOperationException("inside the capture");
                var caught = Assert.Throws<InvalidOperationException>(() =>
                {
                    using (g.Capture())
                    {
                        y = x * 3.0;
                        throw thrown;
                    }
                });
                Assert.AreSame(thrown, caught);
                Assert.IsFalse(Cuda.IsCurrentStreamCapturing);
                using (CudaStream after = CudaStream.Current()) Assert.AreEqual(before, after);
                // Nothing illegal happened: the capture ended normally and replays.
                g.Replay();
                CollectionAssert.AreEqual(new float[] { 3, 3, 3, 3, 3, 3, 3, 3 }, y.ToArray<float>());
            }
        }

        [Test]
        public void AnInvalidatedCaptureIsReportedByTheScope()
        {
            RequireGpu();
            using (Tensor x = Tensor.Ones(new long[] { 8 }, Device.Cuda))
            using (CudaStream before = CudaStream.Current())
            using (var g = new CudaGraph())
            {
                // item() synchronizes with the host: CUDA forbids it while capturing. The call
                // fails, and so does the end of the scope, after restoring the stream.
                CtorchException end = Fails(StatusCode.State, () =>
                {
                    using (g.Capture())
                    {
                        Tensor s = x.Sum();
                        CtorchException inner = Fails(StatusCode.State, () => s.ItemDouble());
                        StringAssert.Contains("captur", inner.NativeMessage);
                    }
                });
                StringAssert.Contains("captur", end.NativeMessage);
                Assert.IsFalse(Cuda.IsCurrentStreamCapturing);
                using (CudaStream after = CudaStream.Current()) Assert.AreEqual(before, after);
                // The graph is as after reset: it can capture again.
                Tensor y;
                using (g.Capture()) y = x + 1.0;
                g.Replay();
                CollectionAssert.AreEqual(new float[] { 2, 2, 2, 2, 2, 2, 2, 2 }, y.ToArray<float>());
            }
        }

        [Test]
        public void PoolsAreSharedBetweenGraphs()
        {
            RequireGpu();
            using (Tensor x = Tensor.Ones(new long[] { 16 }, Device.Cuda))
            using (var g1 = new CudaGraph())
            using (var g2 = new CudaGraph())
            using (var g3 = new CudaGraph())
            {
                Fails(StatusCode.State, () => g1.Pool());   // before a capture
                Tensor a, b, c;
                using (g1.Capture()) a = x + 1.0;
                long pool = g1.Pool();
                Assert.AreNotEqual(0L, pool);
                using (g2.Capture(pool)) b = a * 2.0;
                Assert.AreEqual(pool, g2.Pool(), "g2 shares g1's pool");

                long handle = Cuda.GraphPoolHandle();
                Assert.AreNotEqual(0L, handle);
                Assert.AreNotEqual(pool, handle);
                Assert.AreNotEqual(handle, CudaGraph.PoolHandle(), "each handle is a new pool");
                using (Cuda.Graph(g3, handle)) c = b - 1.0;
                Assert.AreEqual(handle, g3.Pool());

                g1.Replay();
                g2.Replay();
                g3.Replay();
                CollectionAssert.AreEqual(new float[16].Fill(3f), c.ToArray<float>());
            }
        }

        [Test]
        public void DebugDumpWritesTheGraph()
        {
            RequireGpu();
            string path = Path.Combine(Path.GetTempPath(), "ctorch_csharp_graph_" + Guid.NewGuid().ToString("N") + ".dot");
            try
            {
                using (Tensor x = Tensor.Ones(new long[] { 4 }, Device.Cuda))
                using (var g = new CudaGraph())
                {
                    g.EnableDebugMode();
                    using (g.Capture()) GC.KeepAlive(x.Exp());
                    g.DebugDump(path);
                    StringAssert.StartsWith("digraph", File.ReadAllText(path));
                }
                using (Tensor x = Tensor.Ones(new long[] { 4 }, Device.Cuda))
                using (var g = new CudaGraph())
                {
                    using (g.Capture()) GC.KeepAlive(x.Exp());
                    Fails(StatusCode.State, () => g.DebugDump(path));   // debug mode was off
                }
            }
            finally
            {
                File.Delete(path);
            }
        }

        [Test]
        public void AGraphedFuncReplaysWithNewInputs()
        {
            RequireGpu();
            using (Tensor x = Tensor.Rand(new long[] { 256 }, Device.Cuda))
            using (Tensor x2 = Tensor.Rand(new long[] { 256 }, Device.Cuda))
            {
                float[] expected2 = Eager(x2);
                long before = Torch.LiveTensorCount;
                int calls = 0;
                GraphedCallable f = CudaGraph.MakeGraphed(() =>
                {
                    calls++;
                    return ((x * 2.0) + 1.0).Sin();   // the temporaries are disposed by the binding
                }, new[] { x });
                Assert.AreEqual(4, calls, "3 warm-up calls and the captured one");
                Assert.AreEqual(1, f.Outputs.Count);
                Assert.AreEqual(1, f.StaticInputs.Count);
                Assert.AreSame(x, f.StaticInputs[0]);
                Assert.AreEqual(before + 1, Torch.LiveTensorCount, "only the captured output is left");
                Assert.IsFalse(Cuda.IsCurrentStreamCapturing);

                Tensor y = f.Outputs[0];
                Assert.AreSame(y, f.Run(x2)[0]);
                CollectionAssert.AreEqual(expected2, y.ToArray<float>());
                CollectionAssert.AreEqual(x2.ToArray<float>(), x.ToArray<float>(), "the input was copied into the static one");
                x.Copy_(x2 * 0.5);
                float[] expected3 = Eager(x);
                f.Run();   // the static inputs as they are
                CollectionAssert.AreEqual(expected3, y.ToArray<float>());

                using (Tensor wrong = Tensor.Ones(new long[] { 3 }, Device.Cuda))
                    Fails(StatusCode.Shape, () => f.Run(wrong));
                StringAssert.Contains("expected 1 inputs", Fails(StatusCode.Argument, () => f.Run(x2, x2)).NativeMessage);
                Assert.Throws<ArgumentNullException>(() => f.Run(null));
                Assert.Throws<ArgumentNullException>(() => f.Run(x2, null));

                using (CudaGraph g = f.GetGraph())
                {
                    Assert.AreNotEqual(0L, g.Pool());
                    g.Replay();   // a replay of its own
                }
                using (GraphedCallable f2 = f.NewReference())
                {
                    Assert.AreSame(y, f2.Outputs[0]);
                    f.Dispose();
                    f2.Run(x2);   // the native callable lives on
                    Assert.IsTrue(y.IsDisposed, "the first object owned the output");
                }
                f.Dispose();   // twice: nothing
            }
        }

        [Test]
        public void GraphedFuncsOfSeveralResultsAndWarmUps()
        {
            RequireGpu();
            using (Tensor a = Tensor.Rand(new long[] { 32 }, Device.Cuda))
            using (Tensor b = Tensor.Rand(new long[] { 32 }, Device.Cuda))
            {
                float[] av = a.ToArray<float>(), bv = b.ToArray<float>();
                foreach (int warmups in new[] { 0, 1, 3 })
                {
                    int calls = 0;
                    // A static input among the results stays the caller's.
                    using (GraphedCallable f = CudaGraph.MakeGraphed(() =>
                    {
                        calls++;
                        return new[] { a + b, a, a * b };
                    }, new[] { a, b }, warmups))
                    {
                        Assert.AreEqual(warmups + 1, calls);
                        Assert.AreEqual(3, f.Outputs.Count);
                        Assert.AreSame(a, f.Outputs[1]);
                        f.Run(a, b);
                        float[] sum = f.Outputs[0].ToArray<float>(), prod = f.Outputs[2].ToArray<float>();
                        for (int i = 0; i < av.Length; i++)
                        {
                            Assert.AreEqual(av[i] + bv[i], sum[i]);
                            Assert.AreEqual(av[i] * bv[i], prod[i]);
                        }
                    }
                    Assert.IsFalse(a.IsDisposed, "a static input was disposed with the callable");
                }
                // null results are the caller's mistake, reported as such.
                Assert.Throws<InvalidOperationException>(() => CudaGraph.MakeGraphed(() => (Tensor[])null, new[] { a }));
                Assert.Throws<InvalidOperationException>(() => CudaGraph.MakeGraphed(() => new[] { a + b, null }, new[] { a }));
                Assert.IsFalse(Cuda.IsCurrentStreamCapturing);
            }
        }

        [Test]
        public void AGraphedActionKeepsItsOwnResults()
        {
            RequireGpu();
            using (Tensor x = Tensor.Rand(new long[] { 100 }, Device.Cuda))
            using (Tensor x2 = Tensor.Rand(new long[] { 100 }, Device.Cuda))
            {
                float[] x2v = x2.ToArray<float>();
                Tensor y = null;
                using (GraphedCallable f = CudaGraph.MakeGraphed(() =>
                {
                    if ((object)y != null) y.Dispose();
                    y = x * x;
                }, new[] { x }, 2))
                {
                    Assert.AreEqual(0, f.Outputs.Count);
                    f.Run(x2);
                    float[] yv = y.ToArray<float>();
                    for (int i = 0; i < x2v.Length; i++) Assert.AreEqual(x2v[i] * x2v[i], yv[i]);
                }
                Assert.IsFalse(y.IsDisposed, "an Action's results are the caller's");
                y.Dispose();
            }
        }

        [Test]
        public void AnExceptionInsideTheFunctionComesBack()
        {
            RequireGpu();
            using (Tensor x = Tensor.Ones(new long[] { 8 }, Device.Cuda))
            using (CudaStream before = CudaStream.Current())
            {
                long c0 = Torch.LiveGraphedCallableCount;
                foreach (bool duringCapture in new[] { false, true })
                {
                    var thrown = new ArgumentException("thrown by the graphed function");
                    int calls = 0;
                    var caught = Assert.Throws<ArgumentException>(() => CudaGraph.MakeGraphed(() =>
                    {
                        calls++;
                        Tensor t = x * 2.0;
                        if (Cuda.IsCurrentStreamCapturing == duringCapture) throw thrown;
                        return t;
                    }, new[] { x }, 2));
                    Assert.AreSame(thrown, caught);
                    Assert.AreEqual(duringCapture ? 3 : 1, calls);
                    Assert.IsFalse(Cuda.IsCurrentStreamCapturing, "the capture was discarded");
                    using (CudaStream after = CudaStream.Current()) Assert.AreEqual(before, after);
                    Assert.AreEqual(c0, Torch.LiveGraphedCallableCount);
                }

                // A ctorch error inside the function comes back as that CtorchException.
                CtorchException inner = null;
                var e = Assert.Throws<CtorchException>(() => CudaGraph.MakeGraphed(() =>
                {
                    try
                    {
                        return x.View(3, 5);
                    }
                    catch (CtorchException ex)
                    {
                        inner = ex;
                        throw;
                    }
                }, new[] { x }, 1));
                Assert.AreSame(inner, e);
                Assert.AreEqual(StatusCode.Shape, e.Code);
                Assert.IsFalse(Cuda.IsCurrentStreamCapturing);

                // So does an exception of an Action.
                Assert.Throws<DivideByZeroException>(() => CudaGraph.MakeGraphed(() =>
                {
                    int zero = 0;
                    GC.KeepAlive(1 / zero);
                }, new[] { x }, 0));
                Assert.IsFalse(Cuda.IsCurrentStreamCapturing);
                Assert.IsFalse(x.IsDisposed);
            }
        }
    }

    internal static class ArrayFill
    {
        internal static float[] Fill(this float[] a, float v)
        {
            for (int i = 0; i < a.Length; i++) a[i] = v;
            return a;
        }
    }
}
