// torch.cuda: availability, device count, names, capabilities, properties.
using System;
using Ctorch.Swig;

namespace Ctorch
{
    /// <summary>Integer CUDA device properties (the C constants CT_PROP_*).</summary>
    public enum CudaDeviceProperty
    {
        Major = 0,
        Minor = 1,
        TotalMemory = 2,
        MultiProcessorCount = 3,
        L2CacheSize = 4,
        WarpSize = 5,
        MaxThreadsPerMultiProcessor = 6,
        IsIntegrated = 7,
        PciBusId = 8,
    }

    /// <summary>torch.cuda.get_device_properties(device), read once.</summary>
    public sealed class CudaDeviceProperties
    {
        public int Device { get; }
        public string Name { get; }
        public int Major { get; }
        public int Minor { get; }
        public long TotalMemory { get; }
        public int MultiProcessorCount { get; }
        public long L2CacheSize { get; }
        public int WarpSize { get; }
        public int MaxThreadsPerMultiProcessor { get; }
        public bool IsIntegrated { get; }
        public int PciBusId { get; }

        internal CudaDeviceProperties(int device)
        {
            Device = device;
            Name = Cuda.GetDeviceName(device);
            Major = (int)Cuda.GetDeviceProperty(device, CudaDeviceProperty.Major);
            Minor = (int)Cuda.GetDeviceProperty(device, CudaDeviceProperty.Minor);
            TotalMemory = Cuda.GetDeviceProperty(device, CudaDeviceProperty.TotalMemory);
            MultiProcessorCount = (int)Cuda.GetDeviceProperty(device, CudaDeviceProperty.MultiProcessorCount);
            L2CacheSize = Cuda.GetDeviceProperty(device, CudaDeviceProperty.L2CacheSize);
            WarpSize = (int)Cuda.GetDeviceProperty(device, CudaDeviceProperty.WarpSize);
            MaxThreadsPerMultiProcessor = (int)Cuda.GetDeviceProperty(device, CudaDeviceProperty.MaxThreadsPerMultiProcessor);
            IsIntegrated = Cuda.GetDeviceProperty(device, CudaDeviceProperty.IsIntegrated) != 0;
            PciBusId = (int)Cuda.GetDeviceProperty(device, CudaDeviceProperty.PciBusId);
        }

        public override string ToString() =>
            $"_CudaDeviceProperties(name='{Name}', major={Major}, minor={Minor}, " +
            $"total_memory={TotalMemory / (1024 * 1024)}MB, multi_processor_count={MultiProcessorCount})";
    }

    /// <summary>torch.cuda. Without a GPU or driver, IsAvailable is false, DeviceCount is 0 and
    /// every call that needs a GPU throws CtorchException with Code CudaUnavailable (301).</summary>
    public static class Cuda
    {
        /// <summary>torch.cuda.is_available().</summary>
        public static bool IsAvailable
        {
            get
            {
                int r;
                Native.Check(ctorch.ct_cuda_is_available(out r));
                return r != 0;
            }
        }

        /// <summary>torch.cuda.device_count().</summary>
        public static int DeviceCount
        {
            get
            {
                int r;
                Native.Check(ctorch.ct_cuda_device_count(out r));
                return r;
            }
        }

        /// <summary>Returns when CUDA can be used; otherwise throws CtorchException
        /// (CudaUnavailable) whose message says why.</summary>
        public static void CheckAvailable() => Native.Check(ctorch.ct_cuda_check_available());

        /// <summary>torch.cuda.get_device_name(device).</summary>
        public static string GetDeviceName(int device = 0) =>
            Native.GetString((IntPtr buf, long cap, out long needed) =>
                ctorch.ct_cuda_get_device_name(device, buf, cap, out needed));

        /// <summary>torch.cuda.get_device_capability(device): (major, minor).</summary>
        public static (int Major, int Minor) GetDeviceCapability(int device = 0)
        {
            int major, minor;
            Native.Check(ctorch.ct_cuda_get_device_capability(device, out major, out minor));
            return (major, minor);
        }

        /// <summary>One integer property of a device.</summary>
        public static long GetDeviceProperty(int device, CudaDeviceProperty property)
        {
            long r;
            Native.Check(ctorch.ct_cuda_get_device_property(device, (int)property, out r));
            return r;
        }

        /// <summary>torch.cuda.get_device_properties(device).</summary>
        public static CudaDeviceProperties GetDeviceProperties(int device = 0) => new CudaDeviceProperties(device);
    }
}
