package org.ctorch;

/**
 * {@code torch.cuda}: devices, their properties, the current device and its guard, device
 * synchronization and memory, the caching allocator's statistics and cache, a pluggable
 * allocator ({@link #loadAllocator}), the out-of-memory hook's counter
 * ({@link #outOfMemoryHookRuns()}), the seeds and states of the devices' default random number
 * generators, the build's architectures, the sync debug mode, the switches of
 * {@code torch.backends.cuda.matmul} ({@link #setAllowTf32}, ...), the cuBLAS handle
 * ({@link #currentBlasHandle()}), the cuFFT plan caches ({@link #cufftPlanCache(int)}), and
 * the {@code torch.cuda.*} functions about streams and {@link #isCurrentStreamCapturing()}
 * ({@link Stream}, {@link Event} and {@link CudaGraph} are their own classes), {@link #init()} and
 * {@link #isInitialized()}, and the NVML figures ({@link #utilization(int)},
 * {@link #temperature(int)}, {@link #powerDraw(int)}, ..., {@link #listGpuProcesses(int)}). On a machine without a GPU or driver {@link #isAvailable()} is false,
 * {@link #deviceCount()} is 0, and everything that needs a GPU throws a
 * {@link CtorchException} with code 301 (CT_ERR_CUDA_UNAVAILABLE) saying why;
 * {@link #archList()}, {@link #gencodeFlags()}, the sync debug mode, the matmul switches,
 * {@link #allocatorBackend()}, {@link #outOfMemoryHookRuns()} and the seeding functions that
 * torch lets do nothing without CUDA ({@link #manualSeed}, {@link #manualSeedAll},
 * {@link #seed()}, {@link #seedAll()}, {@link #getRngStateAll()}, {@link #setRngStateAll})
 * work without one.
 *
 * <p>The current device and the current streams belong to the calling thread, as in CUDA and
 * PyTorch; a guard ({@link #device(int)}, {@link #deviceOf(Tensor)}, {@link #stream(Stream)})
 * must be closed on the thread that opened it.
 */
public final class Cuda extends CudaMonitoring {
  /*
   * The static methods and nested types live in a chain of package-private abstract classes,
   * one concern per file, which Cuda inherits (Cuda.memoryAllocated(), Cuda.DeviceGuard, ...):
   * CudaDevices (devices, properties, current device and DeviceGuard, synchronize) <-
   * CudaMemory (caching allocator, statistics, pluggable allocator) <- CudaRandom (seeds and
   * states) <- CudaBackends (arch list, sync debug mode, matmul switches, cuBLAS handle) <-
   * CudaPlanCache (cuFFT plan caches) <- CudaStreams (stream functions, StreamGuard) <-
   * CudaMonitoring (NVML: utilization, temperature, ...) <- Cuda.
   */

  private Cuda() {}
}
