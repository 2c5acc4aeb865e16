// Streams: the torch.cuda stream and event idioms in Go.
//
//	import torch
//	print(torch.cuda.get_arch_list())
//	if torch.cuda.is_available():
//	    x = torch.arange(1 << 12, dtype=torch.float32).pin_memory()
//	    side = torch.cuda.Stream()
//	    start = torch.cuda.Event(enable_timing=True); end = torch.cuda.Event(enable_timing=True)
//	    side.wait_stream(torch.cuda.current_stream())
//	    with torch.cuda.stream(side):
//	        start.record()
//	        g = x.to("cuda", non_blocking=True)     # asynchronous: x is pinned
//	        y = (g * 2).sum()
//	        end.record()
//	    torch.cuda.current_stream().wait_stream(side)
//	    end.synchronize()
//	    print(y.item(), start.elapsed_time(end), "ms")
//
// Run it with `bazel run //examples/go:streams`. Without a GPU it says why and stops.
package main

import (
	"fmt"
	"log"
	"runtime"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/cuda"
)

func main() {
	arch, err := cuda.ArchList()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("built for", arch)
	if err := cuda.CheckAvailable(); err != nil {
		fmt.Println("no GPU here:", err)
		// Events exist without a GPU until they are recorded.
		e, err := cuda.NewEvent(cuda.EventEnableTiming)
		if err != nil {
			log.Fatal(err)
		}
		defer e.Close()
		done, err := e.Query()
		fmt.Println("a new event is done:", done, err)
		return
	}
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

func run() error {
	// The current stream is per OS thread: keep this goroutine on one thread while it uses
	// "the current stream" outside a guard (cuda.WithStream locks it by itself).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	const n = 1 << 12 // the sums stay exact in float32
	host, err := ctorch.Arange(0, n, 1)
	if err != nil {
		return err
	}
	defer host.Close()
	x, err := host.PinMemory()
	if err != nil {
		return err
	}
	defer x.Close()

	side, err := cuda.NewStream(-1, 0)
	if err != nil {
		return err
	}
	defer side.Close()
	start, err := cuda.NewEvent(cuda.EventEnableTiming)
	if err != nil {
		return err
	}
	defer start.Close()
	end, err := cuda.NewEvent(cuda.EventEnableTiming)
	if err != nil {
		return err
	}
	defer end.Close()

	cur, err := cuda.CurrentStream(-1)
	if err != nil {
		return err
	}
	defer cur.Close()
	if err := side.WaitStream(cur); err != nil {
		return err
	}
	var y *ctorch.Tensor
	err = cuda.WithStream(side, func() error { // with torch.cuda.stream(side):
		if err := start.Record(nil); err != nil {
			return err
		}
		g, err := x.To(ctorch.CUDA, ctorch.NonBlocking())
		if err != nil {
			return err
		}
		defer g.Close()
		d, err := g.MulInt(2)
		if err != nil {
			return err
		}
		defer d.Close()
		if y, err = d.Sum(); err != nil {
			return err
		}
		return end.Record(nil)
	})
	if err != nil {
		return err
	}
	defer y.Close()
	if err := cur.WaitStream(side); err != nil {
		return err
	}
	if err := y.RecordStream(cur); err != nil { // y was made on side, is used on cur
		return err
	}
	if err := end.Synchronize(); err != nil {
		return err
	}
	v, err := y.Item()
	if err != nil {
		return err
	}
	ms, err := start.ElapsedTime(end)
	if err != nil {
		return err
	}
	fmt.Printf("sum of 2*arange(%d) = %.0f (want %.0f) on %v, %.3f ms\n", n, v, float64(n)*float64(n-1), side, ms)
	return nil
}
