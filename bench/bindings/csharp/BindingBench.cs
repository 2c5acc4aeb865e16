// The C# line of the binding-overhead benchmark (bench/bindings/run.sh; see bench/bindings/c for
// the C baseline it is compared with). Through the idiomatic layer (Ctorch.Tensor):
//   noop      : t.Numel on a live 1-element tensor (Tensor.Numel leases the SafeHandle and calls
//               ct_tensor_numel through P/Invoke every time; nothing is cached)
//   small_add : var c = a + b; c.Dispose();  on two live 1-element float32 CPU tensors
// Warm-up of 20000+ iterations, then 7 rounds (noop 1,000,000; small_add 200,000); prints the
// median ns/op of the rounds on stdout as "csharp noop <ns>" and "csharp small_add <ns>".
// With the argument "detail", it also times the raw SWIG layer (Ctorch.Swig.ctorch.*, plain
// P/Invoke on IntPtr, no SafeHandle) and prints those lines on stderr, to split the cost.
using System;
using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;
using Ctorch;
using Ctorch.Swig;

static class BindingBench
{
    const int Rounds = 7;
    const int NoopIters = 1000000;
    const int AddIters = 200000;
    const int WarmupNoop = 200000;
    const int WarmupAdd = 50000;

    // Results go here so that nothing in the loops is dead code.
    static long s_sink;
    static Tensor s_lastTensor;
    static IntPtr s_lastRaw;

    static double NsPerOp(long ticks, int iters) => ticks * (1e9 / Stopwatch.Frequency) / iters;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static double NoopRound(Tensor a, int iters)
    {
        long s = 0;
        var sw = Stopwatch.StartNew();
        for (int i = 0; i < iters; ++i) s += a.Numel;
        sw.Stop();
        s_sink += s;
        return NsPerOp(sw.ElapsedTicks, iters);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static double AddRound(Tensor a, Tensor b, int iters)
    {
        Tensor last = null;
        var sw = Stopwatch.StartNew();
        for (int i = 0; i < iters; ++i)
        {
            Tensor c = a + b;
            c.Dispose();
            last = c;
        }
        sw.Stop();
        s_lastTensor = last;
        return NsPerOp(sw.ElapsedTicks, iters);
    }

    // The raw SWIG layer, for the "detail" split only.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static double RawNoopRound(IntPtr a, int iters)
    {
        long s = 0, n;
        var sw = Stopwatch.StartNew();
        for (int i = 0; i < iters; ++i) { ctorch.ct_tensor_numel(a, out n); s += n; }
        sw.Stop();
        s_sink += s;
        return NsPerOp(sw.ElapsedTicks, iters);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static double RawAddRound(IntPtr a, IntPtr b, int iters)
    {
        IntPtr c = IntPtr.Zero;
        var sw = Stopwatch.StartNew();
        for (int i = 0; i < iters; ++i)
        {
            ctorch.ct_binary(0 /* CT_ADD */, a, b, out c);
            ctorch.ct_tensor_release(c);
        }
        sw.Stop();
        s_lastRaw = c;
        return NsPerOp(sw.ElapsedTicks, iters);
    }

    static double Median(Func<double> round)
    {
        var r = new double[Rounds];
        for (int i = 0; i < Rounds; ++i) r[i] = round();
        Array.Sort(r);
        return r[Rounds / 2];
    }

    static string F(double ns) => ns.ToString("0.0", CultureInfo.InvariantCulture);

    static long LiveTensors()
    {
        long n;
        if (ctorch.ct_live_tensor_count(out n) != 0) throw new InvalidOperationException("ct_live_tensor_count failed");
        return n;
    }

    static int Main(string[] args)
    {
        bool detail = Array.IndexOf(args, "detail") >= 0;
        if (!Stopwatch.IsHighResolution) Console.Error.WriteLine("warning: Stopwatch is not high-resolution");

        using (Tensor a = Tensor.Full(new long[] { 1 }, 1.5, DType.Float32, Device.Cpu))
        using (Tensor b = Tensor.Full(new long[] { 1 }, 2.5, DType.Float32, Device.Cpu))
        {
            using (Tensor c = a + b)
            {
                if (c.Numel != 1 || c.DType != DType.Float32 || c.IsCuda || Math.Abs(c.Item<float>() - 4.0f) > 0)
                    throw new InvalidOperationException("unexpected a + b: " + c);
            }
            long live0 = LiveTensors();

            NoopRound(a, WarmupNoop);
            double noop = Median(() => NoopRound(a, NoopIters));

            AddRound(a, b, WarmupAdd);
            int gc0 = GC.CollectionCount(0);
            double add = Median(() => AddRound(a, b, AddIters));
            int gcAdd = GC.CollectionCount(0) - gc0;

            Console.Out.Write("csharp noop " + F(noop) + "\n" + "csharp small_add " + F(add) + "\n");
            Console.Out.Flush();

            if (detail)
            {
                Console.Error.WriteLine("csharp small_add: " + gcAdd + " gen0 collections in the " + Rounds + " timed rounds");
                IntPtr ra = a.Handle.DangerousGetHandle(), rb = b.Handle.DangerousGetHandle();
                RawNoopRound(ra, WarmupNoop);
                Console.Error.WriteLine("csharp(raw swig p/invoke) noop " + F(Median(() => RawNoopRound(ra, NoopIters))));
                RawAddRound(ra, rb, WarmupAdd);
                Console.Error.WriteLine("csharp(raw swig p/invoke) small_add " + F(Median(() => RawAddRound(ra, rb, AddIters))));
            }

            long live1 = LiveTensors();
            if (live1 != live0)
            {
                Console.Error.WriteLine("error: live tensors " + live0 + " before the loops, " + live1 + " after");
                return 1;
            }
            if (s_sink == 42 && s_lastTensor == null && s_lastRaw == IntPtr.Zero) Console.Error.WriteLine("");
        }
        return 0;
    }
}
