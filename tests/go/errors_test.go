package ctorch_test

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/cuda"
)

func TestErrorValues(t *testing.T) {
	s, dev := setup(t)
	a := s.T(ctorch.Zeros([]int64{3}, dev))
	b := s.T(ctorch.Zeros([]int64{4}, dev))

	// shape mismatch in add
	_, err := a.Add(b)
	e := wantErr(t, err, ctorch.ErrShape)
	if e.Code != 103 || e.Name != "CT_ERR_SHAPE" || e.Op != "add" {
		t.Errorf("error fields %+v", e)
	}
	if !strings.Contains(e.Message, "3") || !strings.Contains(e.Message, "4") {
		t.Errorf("message %q does not name the sizes 3 and 4", e.Message)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "ctorch: add: CT_ERR_SHAPE (103): ") || !strings.HasSuffix(msg, e.Message) {
		t.Errorf("Error() = %q", msg)
	}
	if errors.Is(err, ctorch.ErrDType) || errors.Is(err, ctorch.ErrOutOfMemory) || ctorch.IsOutOfMemory(err) {
		t.Error("a shape error matches other sentinels")
	}
	// errors.Is sees through wrapping.
	wrapped := fmt.Errorf("while adding: %w", err)
	if !errors.Is(wrapped, ctorch.ErrShape) {
		t.Error("errors.Is does not see through %w")
	}
	if !errors.Is(err, &ctorch.Error{Code: 103, Op: "add"}) || errors.Is(err, &ctorch.Error{Code: 103, Op: "sub"}) {
		t.Error("Is with Op")
	}

	_, err = a.Flatten(1<<40, 0)
	wantErr(t, err, ctorch.ErrIndex) // caught by the Go layer (does not fit int32)

	// sentinels print their name
	if ctorch.ErrOutOfMemory.Error() != "ctorch: CT_ERR_OUT_OF_MEMORY (400)" {
		t.Errorf("sentinel prints %q", ctorch.ErrOutOfMemory.Error())
	}
	oom := &ctorch.Error{Code: 400, Name: "CT_ERR_OUT_OF_MEMORY", Message: "tried to allocate 1 TiB"}
	if !ctorch.IsOutOfMemory(fmt.Errorf("x: %w", oom)) || !errors.Is(oom, ctorch.ErrOutOfMemory) {
		t.Error("out-of-memory sentinel")
	}
	if ctorch.StatusName(103) != "CT_ERR_SHAPE" || ctorch.StatusName(400) != "CT_ERR_OUT_OF_MEMORY" ||
		ctorch.StatusName(12345) != "CT_UNKNOWN" || ctorch.StatusName(0) != "CT_OK" {
		t.Error("StatusName")
	}
}

func TestDeviceErrors(t *testing.T) {
	s := newScope(t)
	x := s.T(ctorch.FromSlice([]float32{1, 2}, nil))
	_, err := x.To(ctorch.CUDADevice(1 << 20))
	if err == nil {
		t.Fatal("moving to cuda:1048576 succeeded")
	}
	var e *ctorch.Error
	if !errors.As(err, &e) || (e.Code != ctorch.CodeCUDAUnavailable && e.Code != ctorch.CodeIndex &&
		e.Code != ctorch.CodeDevice && e.Code != ctorch.CodeNotSupported) {
		t.Errorf("To(cuda:1048576): %v", err)
	}
	if !cudaTensors() {
		want := ctorch.ErrCUDAUnavailable // no GPU
		if cuda.IsAvailable() {
			want = ctorch.ErrNotSupported // a GPU, but a library without CUDA tensors
		}
		_, err = x.CUDA()
		wantErr(t, err, want)
		_, err = ctorch.Zeros([]int64{2}, ctorch.CUDA)
		wantErr(t, err, want)
		return
	}
	// With a GPU: different devices do not mix, except 0-dim CPU tensors.
	g := s.T(x.CUDA())
	_, err = g.Add(x)
	wantErr(t, err, ctorch.ErrDevice)
	sc := s.T(ctorch.Scalar(float32(10)))
	eqF64(t, s.T(g.Add(sc)), 11, 12)
}

// TestConcurrentErrorMessages runs many failing calls from many goroutines at once and checks
// that each error's message is the one of its own failure: the thread-local message must be
// read on the OS thread of the failing call (see internal/capi.Call; the direct calls of
// internal/capi/direct.go, cases 4 and 5, read it inside the failing cgo call itself).
func TestConcurrentErrorMessages(t *testing.T) {
	s := newScope(t)
	base := s.T(ctorch.Zeros([]int64{12}))
	prev := runtime.GOMAXPROCS(8)
	defer runtime.GOMAXPROCS(prev)

	const goroutines, iterations = 32, 150
	var wg sync.WaitGroup
	errs := make(chan string, goroutines*iterations)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < iterations; i++ {
				var err error
				var want []string
				var code int
				switch (g + i) % 6 {
				case 0: // a device string unique to this call
					bad := fmt.Sprintf("gpu%d_%d", g, i)
					_, err = ctorch.ParseDevice(bad)
					want, code = []string{"'" + bad + "'"}, 107
				case 1: // a view shape unique to this call
					r, c := int64(g+5), int64(i+7)
					_, err = base.View(r, c)
					want, code = []string{fmt.Sprintf("[%d, %d]", r, c)}, 103
				case 2: // a dim unique to this call
					d := 1000 + g*iterations + i
					_, err = base.SumDims([]int{d}, false)
					want, code = []string{fmt.Sprint(d)}, 105
				case 3: // an index unique to this call
					idx := int64(100000 + g*iterations + i)
					_, err = base.Select(0, idx)
					want, code = []string{fmt.Sprint(idx)}, 105
				case 4: // a dim unique to this call, through a direct call (internal/capi/direct.go)
					d := 1000 + g*iterations + i
					_, err = base.Size(d)
					want, code = []string{fmt.Sprint(d)}, 105
				case 5: // a shape unique to this call, through a direct binary op
					n := int64(100 + g*iterations + i)
					o, e := ctorch.Zeros([]int64{n})
					if e != nil {
						errs <- fmt.Sprintf("goroutine %d iteration %d: Zeros: %v", g, i, e)
						continue
					}
					_, err = base.Add(o)
					o.Close()
					want, code = []string{fmt.Sprintf("(%d)", n), fmt.Sprintf("[%d]", n)}, 103
				}
				var e *ctorch.Error
				if !errors.As(err, &e) {
					errs <- fmt.Sprintf("goroutine %d iteration %d: no *Error: %v", g, i, err)
					continue
				}
				if e.Code != code {
					errs <- fmt.Sprintf("goroutine %d iteration %d: code %d, want %d (%v)", g, i, e.Code, code, err)
				}
				for _, w := range want {
					if !strings.Contains(e.Message, w) {
						errs <- fmt.Sprintf("goroutine %d iteration %d: message %q does not contain %q", g, i, e.Message, w)
					}
				}
				if i%7 == 0 {
					runtime.Gosched()
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	n := 0
	for m := range errs {
		if n < 10 {
			t.Error(m)
		}
		n++
	}
	if n > 0 {
		t.Errorf("%d wrong error messages out of %d calls", n, goroutines*iterations)
	}
}
