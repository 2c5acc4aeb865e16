// Quickstart: the device-agnostic to(device) example of the PyTorch tutorials, in Go,
//
//	import torch
//	device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
//	tensor = torch.tensor([1, 2, 3])            # created on the CPU
//	print(tensor, tensor.device)
//	tensor_on_gpu = tensor.to(device)           # moved (no copy if already there)
//	print(tensor_on_gpu)
//	y = tensor_on_gpu + tensor_on_gpu           # runs where its inputs are
//	print(y)
//	print(y.cpu().numpy())                      # back to the host
//
// then a tour, each part on CUDA if present, else on the CPU: a side stream timed by two
// events (CUDA only), torch.manual_seed + torch.randn, a matmul of known matrices,
// torch.fft.rfft and torch.cuda.memory_summary (CUDA only). It checks the values it prints:
// a wrong one ends it with exit status 1.
//
// Run it with `bazel run //examples/go:quickstart` (or tools/demo.sh go).
package main

import (
	"fmt"
	"log"
	"math"
	"math/cmplx"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/cuda"
)

func main() {
	major, minor, patch, err := ctorch.Version()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("-- devices")
	fmt.Printf("ctorch %d.%d.%d, cuda available: %v, device count: %d\n",
		major, minor, patch, cuda.IsAvailable(), cuda.DeviceCount())
	for d := 0; d < cuda.DeviceCount(); d++ {
		n, err := cuda.DeviceName(d)
		if err != nil {
			log.Fatal(err)
		}
		cmaj, cmin, err := cuda.DeviceCapability(d)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("  cuda:%d %s, capability %d.%d\n", d, n, cmaj, cmin)
	}
	if err := cuda.CheckAvailable(); err != nil {
		fmt.Printf("  (%v)\n", err)
	}

	fmt.Println("\n-- tensors on the device")
	// device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
	name := "cpu"
	if cuda.IsAvailable() {
		name = "cuda:0"
	}
	device, err := ctorch.ParseDevice(name)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("device:", device)

	// tensor = torch.tensor([1, 2, 3])
	tensor, err := ctorch.FromSlice([]int64{1, 2, 3}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer tensor.Close()
	fmt.Println(tensor, tensor.Device())

	// tensor_on_gpu = tensor.to(device)
	onDevice, err := tensor.To(device)
	if err != nil {
		log.Fatal(err)
	}
	defer onDevice.Close()
	same, _ := onDevice.IsSame(tensor)
	fmt.Printf("%v (the same tensor as before: %v)\n", onDevice, same)

	// A float tensor created directly on the device, then arithmetic there.
	x, err := ctorch.FromSlice([]float32{0.5, 1.5, 2.5}, nil, device)
	if err != nil {
		log.Fatal(err)
	}
	defer x.Close()
	y, err := onDevice.Add(x) // int64 + float32 -> float32, on the device of the inputs
	if err != nil {
		log.Fatal(err)
	}
	defer y.Close()
	fmt.Println("tensor + x =", y)

	// In place: x.add_(tensor_on_gpu)
	if err := x.AddInPlace(onDevice); err != nil {
		log.Fatal(err)
	}
	fmt.Println("x after add_ =", x)

	// tensor_back_on_cpu = y.cpu().numpy()
	back, err := y.CPU()
	if err != nil {
		log.Fatal(err)
	}
	defer back.Close()
	values, err := back.Float32s()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("back on the host:", values)

	// Errors are values: adding tensors of shapes (3,) and (2,) fails.
	two, err := ctorch.Zeros([]int64{2}, device)
	if err != nil {
		log.Fatal(err)
	}
	defer two.Close()
	if _, err := y.Add(two); err != nil {
		fmt.Println("expected error:", err)
	}

	for _, section := range []func(ctorch.Device) error{streamAndEvent, random, matmul, fft, memory} {
		if err := section(device); err != nil {
			log.Fatal(err)
		}
	}
}

// check: a value the reader can check; a wrong one is a bug, so the example fails.
func check(ok bool, what string, args ...any) error {
	if !ok {
		return fmt.Errorf("expected "+what, args...)
	}
	return nil
}

// streamAndEvent, on CUDA:
//
//	side = torch.cuda.Stream()
//	start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
//	side.wait_stream(torch.cuda.current_stream()); start.record(side)
//	with torch.cuda.stream(side): total = (torch.ones(1000, 1000, device=device) * 2).sum()
//	end.record(side); end.synchronize(); torch.cuda.current_stream().wait_stream(side)
func streamAndEvent(device ctorch.Device) error {
	fmt.Println("\n-- a stream and an event")
	start, err := cuda.NewEvent(cuda.EventEnableTiming) // events exist without a GPU until recorded
	if err != nil {
		return err
	}
	defer start.Close()
	if !device.IsCUDA() {
		done, err := start.Query()
		if err != nil {
			return err
		}
		fmt.Println("streams are CUDA-only; an event never recorded is done: Query() =", done)
		return check(done, "an event never recorded is done")
	}
	end, err := cuda.NewEvent(cuda.EventEnableTiming)
	if err != nil {
		return err
	}
	defer end.Close()
	side, err := cuda.NewStream(-1, 0)
	if err != nil {
		return err
	}
	defer side.Close()
	current, err := cuda.CurrentStream(-1)
	if err != nil {
		return err
	}
	defer current.Close()
	if err := side.WaitStream(current); err != nil {
		return err
	}
	var total *ctorch.Tensor
	err = cuda.WithStream(side, func() error { // with torch.cuda.stream(side):
		if err := start.Record(nil); err != nil { // nil: the current stream, side
			return err
		}
		ones, err := ctorch.Ones([]int64{1000, 1000}, device)
		if err != nil {
			return err
		}
		defer ones.Close()
		twos, err := ones.MulInt(2)
		if err != nil {
			return err
		}
		defer twos.Close()
		if total, err = twos.Sum(); err != nil {
			return err
		}
		return end.Record(nil)
	})
	if err != nil {
		return err
	}
	defer total.Close()
	if err := end.Synchronize(); err != nil {
		return err
	}
	if err := current.WaitStream(side); err != nil { // before the current stream reads total
		return err
	}
	sum, err := total.Item()
	if err != nil {
		return err
	}
	ms, err := start.ElapsedTime(end)
	if err != nil {
		return err
	}
	fmt.Printf("on %v: (ones(1000, 1000) * 2).sum() = %.1f in %.3f ms\n", side, sum, ms)
	return check(sum == 2e6, "sum = 2e6, got %v", sum)
}

// random: torch.manual_seed(0); torch.randn(2, 3, device=device), torch.cuda's values on any device.
func random(device ctorch.Device) error {
	fmt.Println("\n-- a seeded random matrix: torch.manual_seed(0); torch.randn(2, 3)")
	torchCUDA := []float32{-0.9247, -0.4253, -2.6438, 0.1452, -0.1209, -0.5797}
	if err := ctorch.ManualSeed(0); err != nil {
		return err
	}
	r, err := ctorch.Randn([]int64{2, 3}, device)
	if err != nil {
		return err
	}
	defer r.Close()
	fmt.Println(r)
	v, err := r.Float32s()
	if err != nil {
		return err
	}
	for i := range v {
		if err := check(math.Abs(float64(v[i]-torchCUDA[i])) < 1e-4, "randn value %d = %v, got %v", i, torchCUDA[i], v[i]); err != nil {
			return err
		}
	}
	return nil
}

func matmul(device ctorch.Device) error {
	fmt.Println("\n-- a matmul: [[1, 2, 3], [4, 5, 6]] @ [[7, 8], [9, 10], [11, 12]]")
	a, err := ctorch.FromSlice([]float32{1, 2, 3, 4, 5, 6}, []int64{2, 3}, device)
	if err != nil {
		return err
	}
	defer a.Close()
	b, err := ctorch.FromSlice([]float32{7, 8, 9, 10, 11, 12}, []int64{3, 2}, device)
	if err != nil {
		return err
	}
	defer b.Close()
	c, err := a.Matmul(b)
	if err != nil {
		return err
	}
	defer c.Close()
	fmt.Println(c)
	v, err := c.Float32s()
	if err != nil {
		return err
	}
	return check(fmt.Sprint(v) == "[58 64 139 154]", "[58 64 139 154], got %v", v)
}

func fft(device ctorch.Device) error {
	fmt.Println("\n-- an FFT: torch.fft.rfft(torch.tensor([1., 2., 3., 4.]))")
	signal, err := ctorch.FromSlice([]float32{1, 2, 3, 4}, nil, device)
	if err != nil {
		return err
	}
	defer signal.Close()
	spectrum, err := ctorch.RFFT(signal)
	if err != nil {
		return err
	}
	defer spectrum.Close()
	fmt.Println(spectrum)
	v, err := spectrum.Complex64s()
	if err != nil {
		return err
	}
	want := []complex128{10, -2 + 2i, -2}
	for i := range want {
		if err := check(cmplx.Abs(complex128(v[i])-want[i]) < 1e-5, "rfft value %d = %v, got %v", i, want[i], v[i]); err != nil {
			return err
		}
	}
	return nil
}

func memory(device ctorch.Device) error {
	fmt.Println("\n-- memory")
	if !device.IsCUDA() {
		fmt.Println("memory statistics are CUDA-only (torch.cuda.memory_allocated, memory_summary)")
		return nil
	}
	kept, err := ctorch.Ones([]int64{1024}, device)
	if err != nil {
		return err
	}
	defer kept.Close()
	allocated, err := cuda.MemoryAllocated(0)
	if err != nil {
		return err
	}
	fmt.Printf("torch.cuda.memory_allocated(0) = %d bytes\n", allocated)
	if err := check(allocated >= 4096, "at least the 4 KiB tensor kept alive, got %d", allocated); err != nil {
		return err
	}
	summary, err := cuda.MemorySummary(0, true)
	if err != nil {
		return err
	}
	fmt.Println(summary)
	return nil
}
