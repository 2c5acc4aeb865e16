// The jiterator in C#: the PyTorch pattern
//
//   gelu = torch.cuda.jiterator._create_jit_fn(
//       "template <typename T> T fused_gelu(T x, T k) { ... }", k=0.044715)
//   y = gelu(x)
//   sum_diff = torch.cuda.jiterator._create_multi_output_jit_fn(
//       "template <typename T> void sum_diff(T a, T b, T scale, T& s, T& d) { ... }", num_outputs=2, scale=0.5)
//   s, d = sum_diff(a, b)
//   torch.cuda.jiterator's functions take no out=; ctorch's out form (CallOut) writes into
//   given tensors, here in place: x = gelu(x)
//
// A fused GELU (tanh form: one kernel instead of the eight of the built-in chain; also in place)
// and a two-output op, each compared with the same computation in built-in ops. Without a GPU the
// functions are still made (creation only parses the code) and a call says CUDA is unavailable;
// it exits 0. Run it with: bazel run //examples/csharp:jiterator
using System;
using Ctorch;

public static class Jiterator
{
    private const string GeluCode =
        "template <typename T> T fused_gelu(T x, T k) {\n" +
        "  return T(0.5) * x * (T(1) + ::tanh(T(0.7978845608028654) * (x + k * x * x * x)));\n" +
        "}";

    private const string SumDiffCode =
        "template <typename T> void sum_diff(T a, T b, T scale, T& s, T& d) {\n" +
        "  s = (a + b) * scale;\n" +
        "  d = (a - b) * scale;\n" +
        "}";

    // GELU's tanh form in built-in ops.
    private static Tensor GeluChain(Tensor x) => x * 0.5 * (((x + x * x * x * 0.044715) * 0.7978845608028654).Tanh() + 1.0);

    // max |a - b|, computed on the device
    private static double MaxAbsDiff(Tensor a, Tensor b) => (a - b).Abs().Max().ItemDouble();

    public static int Main(string[] args)
    {
        using (var gelu = JitFunction.Create(GeluCode, ("k", 0.044715)))
        using (var sumDiff = JitFunction.CreateMultiOutput(SumDiffCode, 2, ("scale", 0.5)))
        using (DisposeScope.Begin())
        {
            Console.WriteLine($"{gelu}, {sumDiff}");
            if (!Cuda.IsAvailable)
            {
                try
                {
                    gelu.Call(Tensor.Ones(4));
                }
                catch (CtorchException e) when (e.Code == StatusCode.CudaUnavailable)
                {
                    Console.WriteLine($"running a jitted function needs CUDA: {e.StatusName}: {e.NativeMessage}");
                    return 0;
                }
                Console.WriteLine("a call without CUDA should have failed");
                return 1;
            }

            Tensor x = Tensor.Randn(new long[] { 1 << 20 }, Device.Cuda);
            long kernels = JitFunction.KernelCount;
            Tensor y = gelu.Call(x);                      // compiled now (or loaded from the disk cache)
            double geluDiff = MaxAbsDiff(y, GeluChain(x));
            Tensor xs = x.Clone();
            gelu.CallOut(new[] { xs }, xs);               // the out form, in place: xs = gelu(xs)
            geluDiff = Math.Max(geluDiff, MaxAbsDiff(xs, y));
            Console.WriteLine($"fused_gelu: max |jiterated - built-in chain| = {geluDiff:G3}, " +
                              $"kernels compiled: {JitFunction.KernelCount - kernels}");

            Tensor a = Tensor.Randn(new long[] { 1000, 1 }, Device.Cuda);
            Tensor b = Tensor.Randn(new long[] { 1, 1000 }, Device.Cuda);   // broadcast to 1000 x 1000
            Tensor[] sd = sumDiff.CallMulti(a, b);
            Tensor[] sd2 = sumDiff.CallMulti(new[] { a, b }, ("scale", 2.0));   // an override by name
            double diff = Math.Max(MaxAbsDiff(sd[0], (a + b) * 0.5), MaxAbsDiff(sd[1], (a - b) * 0.5));
            diff = Math.Max(diff, MaxAbsDiff(sd2[0], (a + b) * 2.0));
            Console.WriteLine($"sum_diff: shape [{string.Join(", ", sd[0].Shape)}], max |jiterated - built-in| = {diff:G3}");
            if (geluDiff > 1e-5 || diff > 1e-5)
            {
                Console.WriteLine("the jiterated results differ from the built-in ones");
                return 1;
            }
            return 0;
        }
    }
}
