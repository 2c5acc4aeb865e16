// Seeing the GPU from C# (docs/profiling.md, docs/monitoring.md): a few ops inside NVTX ranges,
// which Nsight Systems shows on the timeline (`nsys profile -t nvtx,cuda mono Profile.exe`), then
// the device's NVML figures. As PyTorch:
//
//   with torch.cuda.nvtx.range("matmul"):
//       c = a @ b
//   print(torch.cuda.utilization(), torch.cuda.temperature(), torch.cuda.power_draw(), ...)
//   print(torch.cuda.list_gpu_processes())
//
// The same program as examples/c/profile.c. Device-agnostic: without CUDA the ops run on the CPU
// (NVTX needs no GPU) and the figures say why they are missing; it exits 0 either way.
// Run it with: bazel run //examples/csharp:profile
using System;
using Ctorch;

public static class Profile
{
    public static int Main(string[] args)
    {
        bool cuda = Cuda.IsAvailable;
        Device device = cuda ? Device.CudaAt(0) : Device.Cpu;
        Console.WriteLine($"device: {device}");

        int depth = Nvtx.RangePush("profile example");       // torch.cuda.nvtx.range_push
        Console.WriteLine($"range 'profile example' pushed at depth {depth} ({Nvtx.NoPushPopTracking}: no profiler attached)");
        try
        {
            using (DisposeScope.Begin())                      // disposes every tensor made inside
            {
                Tensor a, b;
                using (Nvtx.Range("setup"))                   // with torch.cuda.nvtx.range("setup"):
                {
                    a = Tensor.Randn(new long[] { 512, 512 }, DType.Float32, device);
                    b = Tensor.Randn(new long[] { 512, 512 }, DType.Float32, device);
                }
                for (int i = 0; i < 10; i++)
                {
                    using (Nvtx.Range("matmul + sum"))
                    using (Tensor c = a.Matmul(b))
                    using (Tensor s = c.Sum())
                    {
                        // the tensors are disposed before the range pops (inner using first)
                    }
                }
            }
            Nvtx.Mark("ops done");
            if (cuda) Cuda.Synchronize(0);                    // the kernels end inside the outer range
        }
        finally
        {
            depth = Nvtx.RangePop();
        }
        Console.WriteLine($"range popped at depth {depth}");

        Console.WriteLine($"NVML device count: {Cuda.DeviceCountNvml} (-1: NVML cannot be used here)");
        int utilization;
        try
        {
            utilization = Cuda.Utilization(0);
        }
        catch (CtorchException e)                             // no driver, no GPU: the reason once
        {
            Console.WriteLine($"no NVML figures: {e.StatusName}: {e.NativeMessage}");
            return 0;
        }
        Console.WriteLine("cuda:0 as NVML sees it:");
        Figure("utilization", () => utilization, "%");
        Figure("memory_usage", () => Cuda.MemoryUsage(0), "% (of the time memory was busy)");
        Figure("temperature", () => Cuda.Temperature(0), "C");
        Figure("power_draw", () => Cuda.PowerDraw(0), "mW");
        Figure("clock_rate", () => Cuda.ClockRate(0), "MHz");
        Figure("device_memory_used", () => Cuda.DeviceMemoryUsed(0), "bytes");
        try
        {
            Console.WriteLine(Cuda.ListGpuProcesses(0));
        }
        catch (CtorchException e)
        {
            Console.WriteLine($"list_gpu_processes unavailable ({e.StatusName}: {e.NativeMessage})");
        }
        return 0;
    }

    // A figure, or why it is missing (not supported by this GPU, no permission).
    private static void Figure(string name, Func<long> value, string unit)
    {
        try
        {
            Console.WriteLine($"  {name,-22} {value()} {unit}");
        }
        catch (CtorchException e)
        {
            Console.WriteLine($"  {name,-22} unavailable ({e.StatusName}: {e.NativeMessage})");
        }
    }
}
