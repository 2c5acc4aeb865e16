// Profile: seeing the GPU from Go (docs/profiling.md, docs/monitoring.md): a few ops inside NVTX
// ranges, which Nsight Systems shows on the timeline (`nsys profile -t nvtx,cuda ./profile`),
// then the device's NVML figures. As PyTorch:
//
//	with torch.cuda.nvtx.range("matmul"):
//	    c = a @ b
//	print(torch.cuda.utilization(), torch.cuda.temperature(), torch.cuda.power_draw(), ...)
//	print(torch.cuda.list_gpu_processes())
//
// The same program as examples/c/profile.c. Device-agnostic: without CUDA the ops run on the
// CPU (NVTX needs no GPU) and the figures say why they are missing; it exits 0 either way.
// Run it with `bazel run //examples/go:profile`.
package main

import (
	"errors"
	"fmt"
	"log"
	"runtime"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/cuda"
)

func main() {
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

func run() error {
	// NVTX nests pushed ranges per OS thread: the outer range is pushed and popped by hand
	// (torch.cuda.nvtx.range_push / range_pop), so keep this goroutine on one thread.
	// cuda.NvtxPush and cuda.NvtxRange, used below, lock it themselves.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	onCUDA := cuda.IsAvailable()
	device := ctorch.CPU
	if onCUDA {
		device = ctorch.CUDADevice(0)
	}
	fmt.Println("device:", device)

	depth, err := cuda.NvtxRangePush("profile example")
	if err != nil {
		return err
	}
	fmt.Printf("range 'profile example' pushed at depth %d (%d: no profiler attached)\n",
		depth, cuda.NvtxNoPushPopTracking)
	if err := ops(device, onCUDA); err != nil {
		cuda.NvtxRangePop() // the error is ops'
		return err
	}
	if depth, err = cuda.NvtxRangePop(); err != nil {
		return err
	}
	fmt.Printf("range popped at depth %d\n", depth)

	fmt.Printf("NVML device count: %d (-1: NVML cannot be used here)\n", cuda.DeviceCountNVML())
	utilization, err := cuda.Utilization(0)
	if err != nil { // no driver, no GPU: the reason once
		fmt.Println("no NVML figures:", reason(err))
		return nil
	}
	fmt.Println("cuda:0 as NVML sees it:")
	figure("utilization", int64(utilization), nil, "%")
	v, err := cuda.MemoryUsage(0)
	figure("memory_usage", int64(v), err, "% (of the time memory was busy)")
	v, err = cuda.Temperature(0)
	figure("temperature", int64(v), err, "C")
	v, err = cuda.PowerDraw(0)
	figure("power_draw", int64(v), err, "mW")
	v, err = cuda.ClockRate(0)
	figure("clock_rate", int64(v), err, "MHz")
	used, err := cuda.DeviceMemoryUsed(0)
	figure("device_memory_used", used, err, "bytes")
	if text, err := cuda.ListGPUProcesses(0); err != nil {
		fmt.Printf("list_gpu_processes unavailable (%s)\n", reason(err))
	} else {
		fmt.Println(text)
	}
	return nil
}

// ops makes two 512x512 normal matrices in a "setup" range (the defer form, cuda.NvtxPush),
// then multiplies and sums them ten times, each in a "matmul + sum" range (cuda.NvtxRange),
// and marks the end.
func ops(device ctorch.Device, onCUDA bool) error {
	a, b, err := setup(device)
	if err != nil {
		return err
	}
	defer a.Close()
	defer b.Close()
	for i := 0; i < 10; i++ {
		err := cuda.NvtxRange("matmul + sum", func() error { // with torch.cuda.nvtx.range(...):
			c, err := a.Matmul(b)
			if err != nil {
				return err
			}
			defer c.Close()
			s, err := c.Sum()
			if err != nil {
				return err
			}
			return s.Close()
		})
		if err != nil {
			return err
		}
	}
	if err := cuda.NvtxMark("ops done"); err != nil {
		return err
	}
	if onCUDA {
		return cuda.Synchronize(0) // the kernels end inside the outer range
	}
	return nil
}

func setup(device ctorch.Device) (a, b *ctorch.Tensor, err error) {
	pop, err := cuda.NvtxPush("setup")
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if perr := pop(); perr != nil && err == nil {
			a.Close()
			b.Close()
			a, b, err = nil, nil, perr
		}
	}()
	shape := []int64{512, 512}
	if a, err = ctorch.Randn(shape, device); err != nil {
		return nil, nil, err
	}
	if b, err = ctorch.Randn(shape, device); err != nil {
		a.Close()
		return nil, nil, err
	}
	return a, b, nil
}

// figure prints a figure, or why it is missing (not supported by this GPU, no permission).
func figure(name string, value int64, err error, unit string) {
	if err != nil {
		fmt.Printf("  %-22s unavailable (%s)\n", name, reason(err))
	} else {
		fmt.Printf("  %-22s %d %s\n", name, value, unit)
	}
}

// reason is a ctorch error as the C example prints it: the status name and the library's message.
func reason(err error) string {
	var e *ctorch.Error
	if errors.As(err, &e) {
		return e.Name + ": " + e.Message
	}
	return err.Error()
}
