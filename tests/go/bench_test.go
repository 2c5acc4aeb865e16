// Benchmarks of the Go binding's per-call overhead (issue 7): the Go side of
// bench/bindings (bench/bindings/go/run.sh runs them on the CPU, the C baseline is
// bench/bindings/c). `go test` without -bench does not run them; the GPU test binary that
// tools/gpu_pack.sh builds carries them too (-test.run='^$' -test.bench=SmallAddCUDA).
package ctorch_test

import (
	"runtime"
	"testing"
	"time"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/cuda"
	"ctorch.dev/ctorch/internal/capi"
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

// benchSmallAddOverC times benchSmallAdd's Go loop and the same loop in C (capi.BenchSmallAdd:
// ct_binary + ct_tensor_release with no Go in between, one cgo call) side by side in this
// process: chunks of 1000 iterations alternate between the two (which goes first alternates
// too), each chunk starting from an empty launch queue (a device synchronize, untimed, between
// chunks on CUDA), so drift of the host or the GPU falls on both alike. It reports go-ns/op,
// c-ns/op and their difference go-over-c-ns/op: the binding's cost over C from one process.
func benchSmallAddOverC(b *testing.B, dev ctorch.Device) {
	if dev.IsCUDA() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	x, y := benchPair(b, dev)
	goLoop := func(n int) {
		for i := 0; i < n; i++ {
			c, err := x.Add(y)
			if err != nil {
				b.Fatal(err)
			}
			c.Close()
		}
	}
	cLoop := func(n int) {
		if f := capi.BenchSmallAdd(x.Handle(), y.Handle(), n); f != nil {
			b.Fatalf("the C loop failed: %s: %s", f.Name, f.Message)
		}
	}
	drain := func() {
		if dev.IsCUDA() {
			benchNoErr(b, cuda.Synchronize(0))
		}
	}
	timed := func(loop func(int), n int) time.Duration {
		t0 := time.Now()
		loop(n)
		d := time.Since(t0)
		drain()
		return d
	}
	goLoop(benchWarmup)
	cLoop(benchWarmup)
	drain()
	b.ResetTimer()
	var goT, cT time.Duration
	for done, k := 0, 0; done < b.N; done, k = done+1000, k+1 {
		n := b.N - done
		if n > 1000 {
			n = 1000
		}
		if k%2 == 0 {
			goT += timed(goLoop, n)
			cT += timed(cLoop, n)
		} else {
			cT += timed(cLoop, n)
			goT += timed(goLoop, n)
		}
	}
	b.StopTimer()
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N) }
	b.ReportMetric(per(goT), "go-ns/op")
	b.ReportMetric(per(cT), "c-ns/op")
	b.ReportMetric(per(goT)-per(cT), "go-over-c-ns/op")
	runtime.KeepAlive(x)
	runtime.KeepAlive(y)
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

// BenchmarkSmallAddCPUOverC: the Go binding's cost over C for a + b on the CPU, one process.
func BenchmarkSmallAddCPUOverC(b *testing.B) { benchSmallAddOverC(b, ctorch.CPU) }

// BenchmarkSmallAddCUDAOverC: the same on cuda:0 (skipped without a GPU).
func BenchmarkSmallAddCUDAOverC(b *testing.B) {
	if !cuda.IsAvailable() {
		b.Skip("no GPU")
	}
	benchSmallAddOverC(b, ctorch.CUDADevice(0))
}
