// Quickstart: the device-agnostic to(device) example of the PyTorch tutorials, in Go.
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
// Run it with `bazel run //examples/go:quickstart`.
package main

import (
	"fmt"
	"log"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/cuda"
)

func main() {
	major, minor, patch, err := ctorch.Version()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("ctorch %d.%d.%d, cuda available: %v, device count: %d\n",
		major, minor, patch, cuda.IsAvailable(), cuda.DeviceCount())

	// device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
	name := "cpu"
	if cuda.IsAvailable() {
		name = "cuda:0"
		if n, err := cuda.DeviceName(0); err == nil {
			fmt.Println("cuda:0 is", n)
		}
	} else if err := cuda.CheckAvailable(); err != nil {
		fmt.Println("using the CPU:", err)
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
}
