// Benchmarks of the Go binding's per-call overhead (issue 7): the Go side of
// bench/bindings (bench/bindings/go/run.sh runs them on the CPU, the C baseline is
// bench/bindings/c). `go test` without -bench does not run them; the GPU test binary that
// tools/gpu_pack.sh builds carries them too (-test.run='^$' -test.bench=SmallAddCUDA).
package ctorch_test

import (
	"runtime"
	"testing"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/cuda"
)

// benchWarmup is the number of untimed iterations before the timed loop of each benchmark
// (bench/bindings asks for at least 20000).
const benchWarmup = 20000

var benchSink int64

func benchNoErr(b *testing.B, err error) {
	b.Helper()
	if err != nil {
		b.Fatalf("unexpected error: %v", err)
	}
}

// benchPair returns two live 1-element float32 tensors (1.5 and 2.5) on dev, closed at the end.
func benchPair(b *testing.B, dev ctorch.Device) (*ctorch.Tensor, *ctorch.Tensor) {
	b.Helper()
	x, err := ctorch.Full([]int64{1}, 1.5, ctorch.Float32, dev)
	benchNoErr(b, err)
	b.Cleanup(func() { x.Close() })
	y, err := ctorch.Full([]int64{1}, 2.5, ctorch.Float32, dev)
	benchNoErr(b, err)
	b.Cleanup(func() { y.Close() })
	return x, y
}

// BenchmarkNoop is the no-op call: Numel of a live 1-element tensor (one ct_tensor_numel per
// call; the Go layer caches nothing).
func BenchmarkNoop(b *testing.B) {
	x, _ := benchPair(b, ctorch.CPU)
	if n := x.Numel(); n != 1 {
		b.Fatalf("Numel = %d, want 1", n)
	}
	var s int64
	for i := 0; i < benchWarmup; i++ {
		s += x.Numel()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s += x.Numel()
	}
	b.StopTimer()
	benchSink = s
}

// benchSmallAdd times c = a + b; c.Close() on 1-element float32 tensors (one ct_binary and one
// ct_tensor_release per iteration, like the C side). On CUDA the adds are queued and every 1000
// of them the timer stops for a device synchronize (as bench/gpu_bench.cc's rounds of 1000), so
// a full launch queue never makes the loop wait for the GPU: ns/op is the host cost per call.
func benchSmallAdd(b *testing.B, dev ctorch.Device) {
	if dev.IsCUDA() {
		// The current stream is per OS thread: keep the whole benchmark on one.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	x, y := benchPair(b, dev)
	c, err := x.Add(y)
	benchNoErr(b, err)
	if v, err := c.Item(); err != nil || v != 4 {
		b.Fatalf("1.5 + 2.5 = %v (%v), want 4", v, err)
	}
	benchNoErr(b, c.Close())
	for i := 0; i < benchWarmup; i++ {
		c, err := x.Add(y)
		if err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
	if dev.IsCUDA() {
		benchNoErr(b, cuda.Synchronize(0))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c, err := x.Add(y)
		if err != nil {
			b.Fatal(err)
		}
		c.Close()
		if dev.IsCUDA() && i%1000 == 999 {
			b.StopTimer()
			benchNoErr(b, cuda.Synchronize(0))
			b.StartTimer()
		}
	}
	b.StopTimer()
	if dev.IsCUDA() {
		benchNoErr(b, cuda.Synchronize(0))
	}
}

// BenchmarkSmallAddCPU: a + b on the CPU, result closed each iteration.
func BenchmarkSmallAddCPU(b *testing.B) { benchSmallAdd(b, ctorch.CPU) }

// BenchmarkSmallAddCUDA: the same on cuda:0 (skipped without a GPU); the host cost per call, to
// compare with a bare kernel launch in the GPU benchmark.
func BenchmarkSmallAddCUDA(b *testing.B) {
	if !cuda.IsAvailable() {
		b.Skip("no GPU")
	}
	benchSmallAdd(b, ctorch.CUDADevice(0))
}
