package cuda

import "ctorch.dev/ctorch/internal/capi"

// Init is torch.cuda.init(): it initializes CUDA, and is idempotent. Without a GPU or a driver
// it returns an error matching ctorch.ErrCUDAUnavailable whose message gives the reason.
func Init() error {
	return call("cuda_init", func() int { return capi.Ct_cuda_init() })
}

// IsInitialized is torch.cuda.is_initialized(): true once a call needed a GPU and reached one
// (Init, CurrentDevice, a CUDA tensor ...). IsAvailable and DeviceCount do not initialize, and
// neither does IsInitialized.
func IsInitialized() bool {
	out := []int32{0}
	if err := call("cuda_is_initialized", func() int { return capi.Ct_cuda_is_initialized(out) }); err != nil {
		return false
	}
	return out[0] != 0
}

// DeviceCountNVML is torch.cuda._device_count_nvml(): the visible devices as NVML, the NVIDIA
// driver's management library, counts them, without initializing CUDA; 0 when
// CUDA_VISIBLE_DEVICES names none, -1 when NVML cannot be used (no driver) or for MIG UUIDs.
func DeviceCountNVML() int {
	out := []int32{-1}
	if err := call("cuda_device_count_nvml", func() int { return capi.Ct_cuda_device_count_nvml(out) }); err != nil {
		return -1
	}
	return int(out[0])
}

// The NVML figures (section 23 of capi/ctorch.h). NVML is loaded at the first query; without
// the driver's libnvidia-ml.so.1 each returns an error matching ctorch.ErrNotSupported that
// names it. device is a CUDA device index, mapped to NVML's through CUDA_VISIBLE_DEVICES as
// torch maps it (ctorch.ErrIndex, "device N is not visible (CUDA_VISIBLE_DEVICES=[...])", for
// one with no GPU); -1 is the calling thread's current device (which needs CUDA).

func intFigure(op string, device int, f func(int, []int32) int) (int, error) {
	if err := checkIndex(op, device); err != nil {
		return 0, err
	}
	out := []int32{0}
	err := call(op, func() int { return f(device, out) })
	return int(out[0]), err
}

// Utilization is torch.cuda.utilization(device): percent (0..100) of the last sample period
// during which a kernel ran.
func Utilization(device int) (int, error) {
	return intFigure("cuda_utilization", device, capi.Ct_cuda_utilization)
}

// MemoryUsage is torch.cuda.memory_usage(device): percent (0..100) of the last sample period
// during which device memory was read or written (not bytes: see DeviceMemoryUsed).
func MemoryUsage(device int) (int, error) {
	return intFigure("cuda_memory_usage", device, capi.Ct_cuda_memory_usage)
}

// Temperature is torch.cuda.temperature(device): the GPU die's temperature in degrees Celsius.
func Temperature(device int) (int, error) {
	return intFigure("cuda_temperature", device, capi.Ct_cuda_temperature)
}

// PowerDraw is torch.cuda.power_draw(device): the board's power draw in milliwatts.
func PowerDraw(device int) (int, error) {
	return intFigure("cuda_power_draw", device, capi.Ct_cuda_power_draw)
}

// ClockRate is torch.cuda.clock_rate(device): the current SM clock in MHz.
func ClockRate(device int) (int, error) {
	return intFigure("cuda_clock_rate", device, capi.Ct_cuda_clock_rate)
}

// DeviceMemoryUsed is torch.cuda.device_memory_used(device): bytes of device memory in use by
// every process and the driver's reserve (nvidia-smi's total - free).
func DeviceMemoryUsed(device int) (int64, error) {
	if err := checkIndex("cuda_device_memory_used", device); err != nil {
		return 0, err
	}
	out := []int64{0}
	err := call("cuda_device_memory_used", func() int { return capi.Ct_cuda_device_memory_used(device, out) })
	return out[0], err
}

// ListGPUProcesses is torch.cuda.list_gpu_processes(device): "GPU:<NVML index>", then "no
// processes are running" or one line a process ("process      12345 uses     1234.000 MB GPU
// memory"), joined by "\n". Errors are errors (torch returns some as the text).
func ListGPUProcesses(device int) (string, error) {
	if err := checkIndex("cuda_list_gpu_processes", device); err != nil {
		return "", err
	}
	return stringCall("cuda_list_gpu_processes", func(buf []byte, cap int64, needed []int64) int {
		return capi.Ct_cuda_list_gpu_processes(device, buf, cap, needed)
	})
}
