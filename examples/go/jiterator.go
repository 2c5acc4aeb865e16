// Jiterator: elementwise CUDA functions written at run time, in Go (torch.cuda.jiterator).
//
//	import torch
//	from torch.cuda.jiterator import _create_jit_fn, _create_multi_output_jit_fn
//	gelu = _create_jit_fn("""template <typename T> T gelu(T x, T k) {
//	    return T(0.5) * x * (T(1) + tanh(T(0.7978845608028654) * (x + k * x * x * x))); }""", k=0.044715)
//	y = gelu(torch.linspace(-3, 3, 7, device="cuda"))
//	gelu(x, out=torch.empty(7, dtype=torch.float64, device="cuda"))
//	sum_diff = _create_multi_output_jit_fn("""template <typename T>
//	    void sum_diff(T a, T b, T& s, T& d) { s = a + b; d = a - b; }""", num_outputs=2)
//	s, d = sum_diff(a, b)
//
// Run it with `bazel run //examples/go:jiterator`. Without a GPU it creates the functions
// (creation only parses the code), prints why they cannot run, and stops.
package main

import (
	"fmt"
	"log"
	"math"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/cuda"
)

const geluCode = `template <typename T> T gelu(T x, T k) {
  return T(0.5) * x * (T(1) + tanh(T(0.7978845608028654) * (x + k * x * x * x))); }`

const sumDiffCode = `template <typename T> void sum_diff(T a, T b, T& s, T& d) { s = a + b; d = a - b; }`

func main() {
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

func run() error {
	gelu, err := cuda.NewJitFunction(geluCode, cuda.DoubleArg("k", 0.044715))
	if err != nil {
		return err
	}
	defer gelu.Close()
	sumDiff, err := cuda.NewMultiOutputJitFunction(sumDiffCode, 2)
	if err != nil {
		return err
	}
	defer sumDiff.Close()
	for _, f := range []*cuda.JitFunction{gelu, sumDiff} {
		name, _ := f.Name()
		n, _ := f.NumOutputs()
		fmt.Printf("jitted %s: %d output(s)\n", name, n)
	}
	if err := cuda.CheckAvailable(); err != nil {
		fmt.Println("running them needs CUDA; here:", err)
		return nil
	}

	xs := []float32{-3, -2, -1, 0, 1, 2, 3}
	x, err := ctorch.FromSlice(xs, nil, ctorch.CUDA)
	if err != nil {
		return err
	}
	defer x.Close()
	outs, err := gelu.Call([]*ctorch.Tensor{x})
	if err != nil {
		return err
	}
	defer outs[0].Close()
	got, err := ctorch.ToSlice[float64](outs[0])
	if err != nil {
		return err
	}
	if err := checkGelu(xs, got); err != nil {
		return err
	}
	fmt.Println("gelu(x) =", got)

	// the out form (out=): into a float64 tensor of ours, computed in float32 and stored as float64
	g64, err := ctorch.Empty([]int64{int64(len(xs))}, ctorch.Float64, ctorch.CUDA)
	if err != nil {
		return err
	}
	defer g64.Close()
	if err := gelu.CallOut([]*ctorch.Tensor{g64}, []*ctorch.Tensor{x}); err != nil {
		return err
	}
	if got, err = ctorch.ToSlice[float64](g64); err != nil {
		return err
	}
	if err := checkGelu(xs, got); err != nil {
		return err
	}
	fmt.Println("gelu(x) into a float64 tensor =", got)

	// two outputs; the second input broadcasts against the first
	y, err := ctorch.FromSlice([]float32{10}, nil, ctorch.CUDA)
	if err != nil {
		return err
	}
	defer y.Close()
	sd, err := sumDiff.Call([]*ctorch.Tensor{x, y})
	if err != nil {
		return err
	}
	for _, t := range sd {
		defer t.Close()
	}
	s, _ := ctorch.ToSlice[float32](sd[0])
	d, _ := ctorch.ToSlice[float32](sd[1])
	for i, v := range xs {
		if s[i] != v+10 || d[i] != v-10 {
			return fmt.Errorf("sum_diff(%v, 10) = %v, %v", v, s[i], d[i])
		}
	}
	fmt.Println("x + 10 =", s, " x - 10 =", d)
	kernels, err := cuda.JitKernelCount()
	fmt.Println("kernels compiled in this process:", kernels, err)
	return nil
}

// checkGelu compares got with the tanh-form gelu of xs computed on the host.
func checkGelu(xs []float32, got []float64) error {
	for i, v := range xs {
		w := 0.5 * float64(v) * (1 + math.Tanh(0.7978845608028654*(float64(v)+0.044715*math.Pow(float64(v), 3))))
		if math.Abs(got[i]-w) > 1e-5 {
			return fmt.Errorf("gelu(%v) = %v, want %v", v, got[i], w)
		}
	}
	return nil
}
