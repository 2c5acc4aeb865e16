// Graphs: CUDA graphs in Go (torch.cuda.CUDAGraph, torch.cuda.graph, make_graphed_callables).
//
//	import torch
//	x = torch.tensor([0.5, -1.0, 2.0, 0.25], device="cuda")
//	g = torch.cuda.CUDAGraph()
//	with torch.cuda.graph(g):                 # captured, not run
//	    y = ((x * 2 + 1).exp() - x) / 3
//	x.copy_(torch.tensor([3.0, 1.0, -2.0, 0.0]))
//	g.replay()                                # y is computed for the new x
//	assert torch.equal(y, ((x * 2 + 1).exp() - x) / 3)
//	f = torch.cuda.make_graphed_callables(lambda a, b: a * b + 1, (x, w))
//	print(f(x2, w2))
//
// Run it with `bazel run //examples/go:graphs`. Without a GPU it says that graphs need CUDA
// and stops.
package main

import (
	"fmt"
	"log"
	"reflect"
	"runtime"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/cuda"
)

func main() {
	if err := cuda.CheckAvailable(); err != nil {
		fmt.Println("CUDA graphs need CUDA; here:", err)
		return
	}
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

// chain is a short chain of elementwise ops: ((x * 2 + 1).exp() - x) / 3.
func chain(x *ctorch.Tensor) (*ctorch.Tensor, error) {
	a, err := x.MulInt(2)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	if err := a.AddIntInPlace(1); err != nil {
		return nil, err
	}
	if err := a.ExpInPlace(); err != nil {
		return nil, err
	}
	if err := a.SubInPlace(x); err != nil {
		return nil, err
	}
	return a.DivInt(3)
}

func cudaTensor(v ...float32) (*ctorch.Tensor, error) { return ctorch.FromSlice(v, nil, ctorch.CUDA) }

func run() error {
	// Replay runs on the current stream, which is per OS thread: keep this goroutine on one.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	x, err := cudaTensor(0.5, -1, 2, 0.25)
	if err != nil {
		return err
	}
	defer x.Close()

	// Capture: the ops queued inside the function are recorded, not run. y is a "static
	// output": it lives in the graph's private pool and every replay writes into it.
	g, err := cuda.NewGraph()
	if err != nil {
		return err
	}
	defer g.Close()
	var y *ctorch.Tensor
	if err := g.Capture(func() (err error) {
		y, err = chain(x)
		return err
	}); err != nil {
		return err
	}
	defer y.Close()

	// Replay with new values in the static input, and compare with the eager ops.
	for _, in := range [][]float32{{0.5, -1, 2, 0.25}, {3, 1, -2, 0}} {
		nx, err := cudaTensor(in...)
		if err != nil {
			return err
		}
		err = x.CopyFrom(nx)
		nx.Close()
		if err != nil {
			return err
		}
		if err := g.Replay(); err != nil {
			return err
		}
		got, err := y.Float32s()
		if err != nil {
			return err
		}
		e, err := chain(x)
		if err != nil {
			return err
		}
		want, err := e.Float32s()
		e.Close()
		if err != nil {
			return err
		}
		fmt.Printf("x = %v\n  replay %v\n  eager  %v (equal: %v)\n", in, got, want, reflect.DeepEqual(got, want))
		if !reflect.DeepEqual(got, want) {
			return fmt.Errorf("the replay differs from the eager result")
		}
	}

	// A graphed callable: a Go function captured once (after warm-up runs), then run with new
	// inputs, which are copied into its static inputs before each replay.
	w, err := cudaTensor(1, 2, 3, 4)
	if err != nil {
		return err
	}
	defer w.Close()
	var out *ctorch.Tensor
	f, err := cuda.MakeGraphed(func() (err error) {
		out.Close() // the previous (warm-up) call's result; nil at first
		out, err = x.Mul(w)
		if err == nil {
			err = out.AddIntInPlace(1)
		}
		return err
	}, []*ctorch.Tensor{x, w})
	if err != nil {
		return err
	}
	defer f.Close()
	defer func() { out.Close() }()
	x2, err := cudaTensor(1, 1, 2, 2)
	if err != nil {
		return err
	}
	defer x2.Close()
	w2, err := cudaTensor(10, 20, 30, 40)
	if err != nil {
		return err
	}
	defer w2.Close()
	if err := f.Run(x2, w2); err != nil {
		return err
	}
	got, err := out.Float32s()
	if err != nil {
		return err
	}
	want := []float32{11, 21, 61, 81}
	fmt.Printf("graphed x * w + 1 with x = [1 1 2 2], w = [10 20 30 40]: %v (want %v)\n", got, want)
	if !reflect.DeepEqual(got, want) {
		return fmt.Errorf("the graphed callable gives %v, want %v", got, want)
	}
	return nil
}
