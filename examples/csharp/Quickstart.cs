// The device-agnostic quickstart of PyTorch's to(device) tutorials, in C#:
//
//   device = "cuda" if torch.cuda.is_available() else "cpu"
//   tensor = torch.tensor([1, 2, 3])
//   print(tensor, tensor.device)
//   tensor_on_gpu = tensor.to(device)
//   ...
//
// Run it with: bazel run //examples/csharp:quickstart
using System;
using Ctorch;

public static class Quickstart
{
    public static int Main(string[] args)
    {
        Console.WriteLine($"ctorch {Torch.Version}");
        Console.WriteLine($"cuda available: {Cuda.IsAvailable}, device count: {Cuda.DeviceCount}");

        // device = "cuda" if torch.cuda.is_available() else "cpu"
        Device device = Cuda.IsAvailable ? Device.Cuda : Device.Cpu;
        Console.WriteLine($"device: {device}");
        if (device.IsCuda)
        {
            var (major, minor) = Cuda.GetDeviceCapability(0);
            Console.WriteLine($"gpu 0: {Cuda.GetDeviceName(0)}, capability {major}.{minor}");
        }
        else
        {
            try
            {
                Cuda.CheckAvailable();
            }
            catch (CtorchException e)
            {
                Console.WriteLine($"why no cuda: {e.StatusName}: {e.NativeMessage}");
            }
        }

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
        return 0;
    }
}
