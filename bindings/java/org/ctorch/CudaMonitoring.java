package org.ctorch;

import org.ctorch.swig.ctorch;

/**
 * {@link Cuda}'s device monitoring through NVML, the NVIDIA driver's management library
 * (section 23 of ctorch.h): {@code torch.cuda.utilization}, {@code memory_usage},
 * {@code temperature}, {@code power_draw}, {@code clock_rate}, {@code device_memory_used},
 * {@code list_gpu_processes}, and the device count that does not initialize CUDA. NVML is
 * loaded at the first query; without the driver's {@code libnvidia-ml.so.1} every query throws
 * a {@link CtorchException} with code 500 (CT_ERR_NOT_SUPPORTED) naming it.
 *
 * <p>{@code device} is a CUDA device index, mapped to NVML's through
 * {@code CUDA_VISIBLE_DEVICES} as torch maps it (code 105, CT_ERR_INDEX, "device N is not
 * visible (CUDA_VISIBLE_DEVICES=[...])" for one with no GPU); the methods without it, and a
 * negative index, query the calling thread's current device (which needs CUDA: code 301
 * without it).
 */
abstract class CudaMonitoring extends CudaStreams {
  static {
    Native.ensureLoaded();
  }

  /**
   * {@code torch.cuda._device_count_nvml()}: the visible devices as NVML counts them, without
   * initializing CUDA; 0 when {@code CUDA_VISIBLE_DEVICES} names none, -1 when NVML cannot be
   * used (no driver) or for MIG UUIDs.
   */
  public static int deviceCountNvml() {
    return Native.intOut(ctorch::ct_cuda_device_count_nvml);
  }

  /** {@code torch.cuda.utilization()}: % of the last sample period a kernel ran (0..100). */
  public static int utilization() {
    return utilization(-1);
  }

  /** {@code torch.cuda.utilization(device)}. */
  public static int utilization(int device) {
    return Native.intOut(out -> ctorch.ct_cuda_utilization(device, out));
  }

  /**
   * {@code torch.cuda.memory_usage()}: % of the last sample period device memory was read or
   * written (0..100; not bytes: see {@link #deviceMemoryUsed()}).
   */
  public static int memoryUsage() {
    return memoryUsage(-1);
  }

  /** {@code torch.cuda.memory_usage(device)}. */
  public static int memoryUsage(int device) {
    return Native.intOut(out -> ctorch.ct_cuda_memory_usage(device, out));
  }

  /** {@code torch.cuda.temperature()}: the GPU die's temperature in degrees Celsius. */
  public static int temperature() {
    return temperature(-1);
  }

  /** {@code torch.cuda.temperature(device)}. */
  public static int temperature(int device) {
    return Native.intOut(out -> ctorch.ct_cuda_temperature(device, out));
  }

  /** {@code torch.cuda.power_draw()}: the board's power draw in milliwatts. */
  public static int powerDraw() {
    return powerDraw(-1);
  }

  /** {@code torch.cuda.power_draw(device)}, in milliwatts. */
  public static int powerDraw(int device) {
    return Native.intOut(out -> ctorch.ct_cuda_power_draw(device, out));
  }

  /** {@code torch.cuda.clock_rate()}: the current SM clock in MHz. */
  public static int clockRate() {
    return clockRate(-1);
  }

  /** {@code torch.cuda.clock_rate(device)}, in MHz. */
  public static int clockRate(int device) {
    return Native.intOut(out -> ctorch.ct_cuda_clock_rate(device, out));
  }

  /**
   * {@code torch.cuda.device_memory_used()}: bytes of device memory in use by every process
   * and the driver's reserve (nvidia-smi's total - free).
   */
  public static long deviceMemoryUsed() {
    return deviceMemoryUsed(-1);
  }

  /** {@code torch.cuda.device_memory_used(device)}, in bytes. */
  public static long deviceMemoryUsed(int device) {
    return Native.longOut(out -> ctorch.ct_cuda_device_memory_used(device, out));
  }

  /**
   * {@code torch.cuda.list_gpu_processes()}: "GPU:&lt;NVML index&gt;", then "no processes are
   * running" or one line a process ("process      12345 uses     1234.000 MB GPU memory"),
   * joined by "\n". Errors are exceptions (torch returns some as the text).
   */
  public static String listGpuProcesses() {
    return listGpuProcesses(-1);
  }

  /** {@code torch.cuda.list_gpu_processes(device)}. */
  public static String listGpuProcesses(int device) {
    return Native.string((buf, cap, needed) ->
        ctorch.ct_cuda_list_gpu_processes(device, buf, cap, needed));
  }
}
