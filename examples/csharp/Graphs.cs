// CUDA graphs in C#: the PyTorch pattern
//
//   g = torch.cuda.CUDAGraph()
//   x = torch.rand(1 << 16, device="cuda")
//   with torch.cuda.graph(g):                 # recorded on a side stream, not run
//       y = ((x * 2 + 1).sin() * 3).exp()
//   x.copy_(new_x)
//   g.replay()                                # y is now the chain of new_x
//
//   f = torch.cuda.make_graphed_callables(lambda t: (t * t).tanh(), (x,))
//   f(new_x)
//
// A chain of small elementwise ops is captured once and replayed with new input; the result
// equals the eager one. Without a GPU it prints that graphs need CUDA and exits 0.
// Run it with: bazel run //examples/csharp:graphs
using System;
using System.Diagnostics;
using Ctorch;

public static class Graphs
{
    // The chain: each op is one small kernel launch eagerly, all of them one launch in a graph.
    private static Tensor Chain(Tensor x) => (((x * 2.0) + 1.0).Sin() * 3.0).Exp();

    private static float MaxAbsDiff(Tensor a, Tensor b)
    {
        float[] u = a.ToArray<float>(), v = b.ToArray<float>();
        float m = 0;
        for (int i = 0; i < u.Length; i++) m = Math.Max(m, Math.Abs(u[i] - v[i]));
        return m;
    }

    public static int Main(string[] args)
    {
        Console.WriteLine($"capturing now: {Cuda.IsCurrentStreamCapturing}");
        if (!Cuda.IsAvailable)
        {
            // A graph object can be made anywhere; capturing needs CUDA.
            using (var g = new CudaGraph())
            {
                try
                {
                    using (g.Capture()) { }
                }
                catch (CtorchException e)
                {
                    Console.WriteLine($"CUDA graphs need CUDA: {e.StatusName}: {e.NativeMessage}");
                }
            }
            return 0;
        }

        using (DisposeScope.Begin())
        using (var g = new CudaGraph())
        {
            Tensor x = Tensor.Rand(new long[] { 1 << 16 }, Device.Cuda);
            Tensor newX = Tensor.Rand(new long[] { 1 << 16 }, Device.Cuda);

            Tensor y;
            using (g.Capture())                        // with torch.cuda.graph(g):
                y = Chain(x);
            Console.WriteLine($"captured into pool {g.Pool()}");

            x.Copy_(newX);                             // new input, in the captured tensor
            g.Replay();
            Tensor eager = Chain(newX);
            Console.WriteLine($"replay vs eager: max |difference| = {MaxAbsDiff(y, eager)}");

            // Host time per launch: the 5 eager ops against one replay.
            const int n = 200;
            Cuda.Synchronize();
            var sw = Stopwatch.StartNew();
            for (int i = 0; i < n; i++)
                using (DisposeScope.Begin()) Chain(x);
            double eagerUs = sw.Elapsed.TotalMilliseconds * 1000 / n;
            Cuda.Synchronize();
            sw.Restart();
            for (int i = 0; i < n; i++) g.Replay();
            double replayUs = sw.Elapsed.TotalMilliseconds * 1000 / n;
            Cuda.Synchronize();
            Console.WriteLine($"host time per call: eager {eagerUs:F1} us, replay {replayUs:F1} us");

            // make_graphed_callables: a delegate captured once, run with new inputs.
            Tensor input = Tensor.Zeros(new long[] { 1 << 16 }, Device.Cuda);
            using (GraphedCallable f = CudaGraph.MakeGraphed(() => (input * input).Tanh(), new[] { input }))
            {
                Tensor result = f.Run(newX)[0];       // f(new_x)
                Tensor expected = (newX * newX).Tanh();
                Console.WriteLine($"graphed callable vs eager: max |difference| = {MaxAbsDiff(result, expected)}");
            }
        }
        return 0;
    }
}
