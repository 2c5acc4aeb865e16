// torch.cuda: availability, device count, names, capabilities, properties; the current device
// and its guard, synchronize, memory info, peer access, build architectures, sync debug mode,
// and the stream functions (torch.cuda.current_stream, set_stream, stream(s), ...).
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

    /// <summary>torch.cuda.set_sync_debug_mode / get_sync_debug_mode: what happens when an
    /// operation makes the host wait for the GPU (item, copies to the host, synchronize ...).</summary>
    public enum SyncDebugMode
    {
        /// <summary>Nothing ("default", 0).</summary>
        Default = 0,
        /// <summary>A warning on stderr ("warn", 1).</summary>
        Warn = 1,
        /// <summary>The operation fails with CtorchException, Code State ("error", 2).</summary>
        Error = 2,
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
    public static partial class Cuda
    {
        /// <summary>torch.cuda.is_available().</summary>
        public static bool IsAvailable => Out.Get<int>(ctorch.ct_cuda_is_available) != 0;

        /// <summary>torch.cuda.device_count().</summary>
        public static int DeviceCount => Out.Get<int>(ctorch.ct_cuda_device_count);

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

        // ---------------------------------------------------------------- current device

        /// <summary>torch.cuda.current_device(): the current CUDA device of the calling thread.</summary>
        public static int CurrentDevice => Out.Get<int>(ctorch.ct_cuda_current_device);

        /// <summary>torch.cuda.set_device(device) for the calling thread (prefer the scoped
        /// <see cref="UseDevice(int)"/>). CtorchException (Index) for a device that is not visible.</summary>
        public static void SetDevice(int device) => Native.Check(ctorch.ct_cuda_set_device(device));

        /// <summary>torch.cuda.set_device("cuda:N").</summary>
        public static void SetDevice(Device device)
        {
            int index = IndexOf(device, nameof(device));
            if (index < 0) throw new ArgumentException("set_device needs a device index, got " + device, nameof(device));
            SetDevice(index);
        }

        /// <summary><c>with torch.cuda.device(d):</c> — makes device current until the guard is
        /// disposed (negative: no change).</summary>
        public static DeviceGuard UseDevice(int device) => new DeviceGuard(device);

        /// <summary><c>with torch.cuda.device("cuda:N"):</c>.</summary>
        public static DeviceGuard UseDevice(Device device) => new DeviceGuard(device);

        /// <summary><c>with torch.cuda.device_of(t):</c> — makes t's device current until the
        /// guard is disposed (no change for a CPU tensor).</summary>
        public static DeviceGuard DeviceOf(Tensor tensor) => new DeviceGuard(tensor);

        /// <summary>torch.cuda.synchronize(device): waits for all work on device (-1: current).</summary>
        public static void Synchronize(int device = -1) => Native.Check(ctorch.ct_cuda_synchronize(device));

        /// <summary>torch.cuda.mem_get_info(device): (free, total) bytes of device (-1: current).</summary>
        public static (long Free, long Total) MemGetInfo(int device = -1)
        {
            long free, total;
            Native.Check(ctorch.ct_cuda_mem_get_info(device, out free, out total));
            return (free, total);
        }

        /// <summary>torch.cuda.can_device_access_peer(device, peer) (false for device == peer).</summary>
        public static bool CanDeviceAccessPeer(int device, int peer)
        {
            int r;
            Native.Check(ctorch.ct_cuda_can_device_access_peer(device, peer, out r));
            return r != 0;
        }

        /// <summary>torch.cuda.get_arch_list(): the architectures the library was built for, e.g.
        /// { "sm_80", "sm_90", "compute_90" }. Works without a GPU (PyTorch returns [] there).</summary>
        public static string[] GetArchList()
        {
            string s = Native.GetString((IntPtr buf, long cap, out long needed) =>
                ctorch.ct_cuda_get_arch_list(buf, cap, out needed));
            return s.Split(new[] { ' ' }, StringSplitOptions.RemoveEmptyEntries);
        }

        /// <summary>torch.cuda.get_gencode_flags(): the nvcc -gencode flags of the build.</summary>
        public static string GetGencodeFlags() =>
            Native.GetString((IntPtr buf, long cap, out long needed) =>
                ctorch.ct_cuda_get_gencode_flags(buf, cap, out needed));

        /// <summary>torch.cuda.set_sync_debug_mode(mode), process-wide. An undefined enum value
        /// gives CtorchException (Argument).</summary>
        public static void SetSyncDebugMode(SyncDebugMode mode) => Native.Check(ctorch.ct_cuda_set_sync_debug_mode((int)mode));

        /// <summary>torch.cuda.set_sync_debug_mode("default" | "warn" | "error").</summary>
        public static void SetSyncDebugMode(string mode)
        {
            if (mode == null) throw new ArgumentNullException(nameof(mode));
            switch (mode)
            {
                case "default": SetSyncDebugMode(SyncDebugMode.Default); break;
                case "warn": SetSyncDebugMode(SyncDebugMode.Warn); break;
                case "error": SetSyncDebugMode(SyncDebugMode.Error); break;
                default:
                    throw new ArgumentException("invalid value of debug_mode, expected one of `default`, `warn`, `error`, got '" +
                                                mode + "'", nameof(mode));
            }
        }

        /// <summary>torch.cuda.get_sync_debug_mode().</summary>
        public static SyncDebugMode GetSyncDebugMode()
        {
            int r;
            Native.Check(ctorch.ct_cuda_get_sync_debug_mode(out r));
            return (SyncDebugMode)r;
        }

        // ---------------------------------------------------------------- streams

        /// <summary>torch.cuda.current_stream(device) (-1: the current device).</summary>
        public static CudaStream CurrentStream(int device = -1) => CudaStream.Current(device);

        /// <summary>torch.cuda.default_stream(device) (-1: the current device).</summary>
        public static CudaStream DefaultStream(int device = -1) => CudaStream.Default(device);

        /// <summary>torch.cuda.set_stream(stream).</summary>
        public static void SetStream(CudaStream stream) => CudaStream.SetCurrent(stream);

        /// <summary><c>with torch.cuda.stream(s):</c> — makes s and its device current until the
        /// guard is disposed (null: no change).</summary>
        public static StreamGuard UseStream(CudaStream stream) => new StreamGuard(stream);

        // The index of a CUDA device (-1 for "cuda" without one); ArgumentException for a CPU device.
        internal static int IndexOf(Device device, string paramName)
        {
            if (!device.IsCuda) throw new ArgumentException("expected a CUDA device, got " + device, paramName);
            return device.Index;
        }
    }
}
