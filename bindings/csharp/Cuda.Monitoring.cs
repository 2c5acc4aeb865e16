// torch.cuda's device monitoring through NVML, the NVIDIA driver's management library
// (section 23 of ctorch.h): Utilization, MemoryUsage, Temperature, PowerDraw, ClockRate,
// DeviceMemoryUsed, ListGpuProcesses, the device count that does not initialize CUDA; and
// torch.cuda.init / is_initialized.
using System;
using Ctorch.Swig;

namespace Ctorch
{
    public static partial class Cuda
    {
        /// <summary>torch.cuda.init(): initializes CUDA; idempotent. CtorchException
        /// (CudaUnavailable) with the reason without a GPU or driver.</summary>
        public static void Init() => Native.Check(ctorch.ct_cuda_init());

        /// <summary>torch.cuda.is_initialized(): true once a call needed a GPU and reached one
        /// (Init, CurrentDevice, a CUDA tensor ...); IsAvailable and DeviceCount do not
        /// initialize. Never initializes.</summary>
        public static bool IsInitialized => Out.Get<int>(ctorch.ct_cuda_is_initialized) != 0;

        // ---------------------------------------------------------------- NVML
        // NVML is loaded at the first query; without the driver's libnvidia-ml.so.1 each query
        // throws CtorchException (NotSupported) naming it. device: a CUDA device index, mapped to
        // NVML's through CUDA_VISIBLE_DEVICES as torch maps it (Index, "device N is not visible
        // (CUDA_VISIBLE_DEVICES=[...])", for one with no GPU); -1, the default, is the calling
        // thread's current device (which needs CUDA).

        /// <summary>torch.cuda._device_count_nvml(): the visible devices as NVML counts them,
        /// without initializing CUDA; 0 when CUDA_VISIBLE_DEVICES names none, -1 when NVML cannot
        /// be used (no driver) or for MIG UUIDs.</summary>
        public static int DeviceCountNvml => Out.Get<int>(ctorch.ct_cuda_device_count_nvml);

        /// <summary>torch.cuda.utilization(device): percent (0..100) of the last sample period
        /// during which a kernel ran.</summary>
        public static int Utilization(int device = -1) => Out.Get<int>(ctorch.ct_cuda_utilization, device);

        /// <summary>torch.cuda.memory_usage(device): percent (0..100) of the last sample period
        /// during which device memory was read or written (not bytes: see DeviceMemoryUsed).</summary>
        public static int MemoryUsage(int device = -1) => Out.Get<int>(ctorch.ct_cuda_memory_usage, device);

        /// <summary>torch.cuda.temperature(device): the GPU die's temperature in degrees Celsius.</summary>
        public static int Temperature(int device = -1) => Out.Get<int>(ctorch.ct_cuda_temperature, device);

        /// <summary>torch.cuda.power_draw(device): the board's power draw in milliwatts.</summary>
        public static int PowerDraw(int device = -1) => Out.Get<int>(ctorch.ct_cuda_power_draw, device);

        /// <summary>torch.cuda.clock_rate(device): the current SM clock in MHz.</summary>
        public static int ClockRate(int device = -1) => Out.Get<int>(ctorch.ct_cuda_clock_rate, device);

        /// <summary>torch.cuda.device_memory_used(device): bytes of device memory in use by every
        /// process and the driver's reserve (nvidia-smi's total - free).</summary>
        public static long DeviceMemoryUsed(int device = -1) => Out.Get<long>(ctorch.ct_cuda_device_memory_used, device);

        /// <summary>torch.cuda.list_gpu_processes(device): "GPU:&lt;NVML index&gt;", then "no
        /// processes are running" or one line a process ("process      12345 uses     1234.000 MB
        /// GPU memory"), joined by "\n". Errors are exceptions (torch returns some as the text).</summary>
        public static string ListGpuProcesses(int device = -1) =>
            Native.GetString((IntPtr buf, long cap, out long needed) =>
                ctorch.ct_cuda_list_gpu_processes(device, buf, cap, out needed));
    }
}
