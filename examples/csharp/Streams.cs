// torch.cuda streams and events in C#: the PyTorch pattern
//
//   s = torch.cuda.Stream()
//   start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
//   x = torch.arange(1 << 20, dtype=torch.float64).pin_memory()
//   with torch.cuda.stream(s):
//       start.record()
//       g = x.to("cuda", non_blocking=True)
//       y = (g * 2).sum()
//       end.record()
//   torch.cuda.current_stream().wait_stream(s)
//   end.synchronize()
//   print(y.item(), start.elapsed_time(end), "ms")
//
// Without a GPU it prints what works anyway (build architectures, events, the sync debug mode)
// and why CUDA is unavailable. Run it with: bazel run //examples/csharp:streams
using System;
using Ctorch;

public static class Streams
{
    public static int Main(string[] args)
    {
        Console.WriteLine($"built for: {string.Join(" ", Cuda.GetArchList())}");
        Console.WriteLine($"gencode flags: {Cuda.GetGencodeFlags()}");
        Console.WriteLine($"sync debug mode: {Cuda.GetSyncDebugMode()}");

        // Events can be made without a GPU; the CUDA event exists from the first record.
        using (var e = new CudaEvent(enableTiming: true))
            Console.WriteLine($"a new event is done: {e.Query()}");

        if (!Cuda.IsAvailable)
        {
            try
            {
                using (var s = new CudaStream()) { }
            }
            catch (CtorchException e)
            {
                Console.WriteLine($"no stream: {e.StatusName}: {e.NativeMessage}");
            }
            return 0;
        }

        Console.WriteLine($"device {Cuda.CurrentDevice}: {Cuda.GetDeviceName(Cuda.CurrentDevice)}");
        var (free, total) = Cuda.MemGetInfo();
        Console.WriteLine($"memory: {free >> 20} MiB free of {total >> 20} MiB");
        var (least, greatest) = CudaStream.PriorityRange;
        Console.WriteLine($"stream priorities: {least} (lowest) .. {greatest} (highest)");

        using (DisposeScope.Begin())
        using (var s = new CudaStream())
        using (var start = new CudaEvent(enableTiming: true))
        using (var end = new CudaEvent(enableTiming: true))
        using (CudaStream main = CudaStream.Current())
        {
            Tensor x = Tensor.Arange((double)(1 << 20), DType.Float64).PinMemory();
            Tensor y;
            using (Cuda.UseStream(s))                 // with torch.cuda.stream(s):
            {
                start.Record();                       // on s, the current stream now
                Tensor g = x.To(Device.Cuda, null, nonBlocking: true);
                y = (g * 2.0).Sum();
                end.Record();
            }
            main.WaitStream(s);                       // main's later work waits for s
            y.RecordStream(main);                     // y was allocated on s, is used on main
            end.Synchronize();
            Console.WriteLine($"sum = {y.ItemDouble()} (expected 2 * (0 + 1 + ... + (2^20 - 1)) = {(double)(1 << 20) * ((1 << 20) - 1)})");
            Console.WriteLine($"elapsed on {s}: {start.ElapsedTime(end):F3} ms");
        }
        return 0;
    }
}
