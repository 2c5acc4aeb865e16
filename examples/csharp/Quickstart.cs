// The quickstart in C#: the device-agnostic to(device) example of the PyTorch tutorials,
//
//   device = "cuda" if torch.cuda.is_available() else "cpu"
//   tensor = torch.tensor([1, 2, 3])
//   print(tensor, tensor.device)
//   tensor_on_gpu = tensor.to(device)
//   ...
//
// then a tour, each part on CUDA if present, else on the CPU: a side stream timed by two
// events (CUDA only), torch.manual_seed + torch.randn, a matmul of known matrices,
// torch.fft.rfft and torch.cuda.memory_summary (CUDA only). It checks the values it prints:
// a wrong one ends it with an exception (exit status 1).
//
// Run it with: bazel run //examples/csharp:quickstart (or tools/demo.sh csharp)
using System;
using System.Linq;
using System.Numerics;
using Ctorch;

public static class Quickstart
{
    public static int Main(string[] args)
    {
        Console.WriteLine("-- devices");
        Console.WriteLine($"ctorch {Torch.Version}, cuda available: {Cuda.IsAvailable}, device count: {Cuda.DeviceCount}");
        for (int d = 0; d < Cuda.DeviceCount; d++)
        {
            var (major, minor) = Cuda.GetDeviceCapability(d);
            Console.WriteLine($"  cuda:{d} {Cuda.GetDeviceName(d)}, capability {major}.{minor}");
        }
        if (!Cuda.IsAvailable)
        {
            try
            {
                Cuda.CheckAvailable();
            }
            catch (CtorchException e)
            {
                Console.WriteLine($"  ({e.NativeMessage})");
            }
        }

        Console.WriteLine("\n-- tensors on the device");
        // device = "cuda" if torch.cuda.is_available() else "cpu"
        Device device = Cuda.IsAvailable ? Device.Cuda : Device.Cpu;
        Console.WriteLine($"device: {device}");

        // Every tensor created inside the scope is disposed at its end.
        using (DisposeScope.Begin())
        {
            // tensor = torch.tensor([1, 2, 3]); print(tensor, tensor.device)
            Tensor tensor = Tensor.FromArray(new long[] { 1, 2, 3 });
            Console.WriteLine($"{tensor} {tensor.Device}");

            // tensor_on_gpu = tensor.to(device)
            Tensor onDevice = tensor.To(device);
            Console.WriteLine(onDevice);
            Console.WriteLine($"to() returned the same tensor: {onDevice.IsSame(tensor)}");

            // Tensors made from tensors on the device stay there.
            Tensor x = Tensor.Ones(new long[] { 2, 3 }, device);
            Tensor y = Tensor.Arange(6.0, DType.Float32, device).View(2, 3);
            Tensor z = x + y * 2.0;
            Console.WriteLine($"x + y * 2 =\n{z}");

            // In place: x.add_(y)
            x.Add_(y);
            Console.WriteLine($"x after add_ =\n{x}");

            // Back to the CPU (tensor.cpu()) and into a .NET array.
            float[] values = z.Cpu().ToArray<float>();
            Console.WriteLine($"as a float[]: [{string.Join(", ", values)}]");
            Console.WriteLine($"sum: {z.Sum().ItemDouble()}, max along dim 1: {z.Max(1).Values}");
        }

        Console.WriteLine("\n-- a stream and an event");
        if (device.IsCuda)
            StreamAndEvent(device);
        else
            using (var e = new CudaEvent(enableTiming: true))    // events exist without a GPU until recorded
            {
                Console.WriteLine($"streams are CUDA-only; an event never recorded is done: Query() = {e.Query()}");
                Check(e.Query(), "an event never recorded is done");
            }
        Random(device);
        Matmul(device);
        Fft(device);
        Memory(device);
        return 0;
    }

    // A value the reader can check: a wrong one is a bug, so the example fails.
    static void Check(bool ok, string what)
    {
        if (!ok) throw new InvalidOperationException("expected: " + what);
    }

    // side = torch.cuda.Stream(); start, end = torch.cuda.Event(enable_timing=True) (twice)
    // side.wait_stream(torch.cuda.current_stream()); start.record(side)
    // with torch.cuda.stream(side): total = (torch.ones(1000, 1000, device=device) * 2).sum()
    // end.record(side); end.synchronize(); torch.cuda.current_stream().wait_stream(side)
    static void StreamAndEvent(Device device)
    {
        using (var side = new CudaStream())
        using (CudaStream current = CudaStream.Current())
        using (var start = new CudaEvent(enableTiming: true))
        using (var end = new CudaEvent(enableTiming: true))
        using (DisposeScope.Begin())
        {
            side.WaitStream(current);
            start.Record(side);
            Tensor total;
            using (Cuda.UseStream(side))                          // with torch.cuda.stream(side):
                total = (Tensor.Ones(new long[] { 1000, 1000 }, device) * 2.0).Sum();
            end.Record(side);
            end.Synchronize();
            current.WaitStream(side);                             // before the current stream reads total
            Console.WriteLine($"on {side}: (ones(1000, 1000) * 2).sum() = {total.ItemDouble():F1} in {start.ElapsedTime(end):F3} ms");
            Check(total.ItemDouble() == 2e6, "sum = 2e6");
        }
    }

    // torch.manual_seed(0); torch.randn(2, 3, device=device): torch.cuda's values on any device.
    static void Random(Device device)
    {
        Console.WriteLine("\n-- a seeded random matrix: torch.manual_seed(0); torch.randn(2, 3)");
        float[] torchCuda = { -0.9247f, -0.4253f, -2.6438f, 0.1452f, -0.1209f, -0.5797f };
        Torch.ManualSeed(0);
        using (Tensor r = Tensor.Randn(new long[] { 2, 3 }, device))
        {
            Console.WriteLine(r);
            float[] v = r.ToArray<float>();
            for (int i = 0; i < v.Length; i++)
                Check(Math.Abs(v[i] - torchCuda[i]) < 1e-4, $"randn value {i} = {torchCuda[i]}");
        }
    }

    static void Matmul(Device device)
    {
        Console.WriteLine("\n-- a matmul: [[1, 2, 3], [4, 5, 6]] @ [[7, 8], [9, 10], [11, 12]]");
        using (DisposeScope.Begin())
        {
            Tensor a = Tensor.FromArray(new float[] { 1, 2, 3, 4, 5, 6 }, new long[] { 2, 3 }, device);
            Tensor b = Tensor.FromArray(new float[] { 7, 8, 9, 10, 11, 12 }, new long[] { 3, 2 }, device);
            Tensor c = a.Matmul(b);
            Console.WriteLine(c);
            Check(c.ToArray<float>().SequenceEqual(new float[] { 58, 64, 139, 154 }), "[[58, 64], [139, 154]]");
        }
    }

    static void Fft(Device device)
    {
        Console.WriteLine("\n-- an FFT: torch.fft.rfft(torch.tensor([1., 2., 3., 4.]))");
        using (DisposeScope.Begin())
        {
            Tensor spectrum = FFT.Rfft(Tensor.FromArray(new float[] { 1, 2, 3, 4 }, new long[] { 4 }, device));
            Console.WriteLine(spectrum);
            Complex[] want = { new Complex(10, 0), new Complex(-2, 2), new Complex(-2, 0) };
            for (int i = 0; i < want.Length; i++)
                Check(Complex.Abs(spectrum[i].ItemComplex() - want[i]) < 1e-5, $"rfft value {i} = {want[i]}");
        }
    }

    static void Memory(Device device)
    {
        Console.WriteLine("\n-- memory");
        if (!device.IsCuda)
        {
            Console.WriteLine("memory statistics are CUDA-only (torch.cuda.memory_allocated, memory_summary)");
            return;
        }
        using (Tensor kept = Tensor.Ones(new long[] { 1024 }, device))
        {
            long allocated = Cuda.MemoryAllocated(0);
            Console.WriteLine($"torch.cuda.memory_allocated(0) = {allocated} bytes");
            Check(allocated >= 4096, "at least the 4 KiB tensor kept alive");
            Console.WriteLine(Cuda.MemorySummary(0, abbreviated: true));
        }
    }
}
