package ctorch_test

// Section 23 of capi/ctorch.h through package cuda: the NVML figures (int32 and int64 out
// slices, the string of ListGPUProcesses), Init and IsInitialized, and the errors (ErrNotSupported
// naming libnvidia-ml.so.1 without the driver, ErrCUDAUnavailable without CUDA, ErrIndex for a
// device with no GPU or an index beyond int32). The values are checked by the C suite and,
// against nvidia-smi, by tests/gpu/nvml_compare.py.

import (
	"math"
	"regexp"
	"strings"
	"testing"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/cuda"
)

var intFigures = []struct {
	name string
	f    func(int) (int, error)
}{
	{"Utilization", cuda.Utilization}, {"MemoryUsage", cuda.MemoryUsage}, {"Temperature", cuda.Temperature},
	{"PowerDraw", cuda.PowerDraw}, {"ClockRate", cuda.ClockRate},
}

func wantNoNVML(t *testing.T, err error) {
	t.Helper()
	e := wantErr(t, err, ctorch.ErrNotSupported)
	if e.Code != 500 || !strings.Contains(e.Message, "libnvidia-ml.so.1") {
		t.Errorf("got %v, want code 500 naming libnvidia-ml.so.1", err)
	}
}

func needNVML(t *testing.T) {
	t.Helper()
	needGPUs(t, 1)
	if n := cuda.DeviceCountNVML(); n < 0 {
		t.Fatalf("a GPU but NVML cannot be used (count %d): is libnvidia-ml.so.1 missing?", n)
	}
}

func TestNVMLWithoutDriver(t *testing.T) {
	skipWithGPU(t)
	if cuda.DeviceCountNVML() >= 0 {
		t.Skip("libnvidia-ml.so.1 loads here")
	}
	if n := cuda.DeviceCountNVML(); n != -1 {
		t.Errorf("DeviceCountNVML() = %d, want -1", n)
	}
	for _, q := range intFigures {
		for _, d := range []int{-1, 0, 1} {
			v, err := q.f(d)
			wantNoNVML(t, err)
			if v != 0 {
				t.Errorf("%s(%d) = %d with an error, want 0", q.name, d, v)
			}
		}
	}
	used, err := cuda.DeviceMemoryUsed(0)
	wantNoNVML(t, err)
	if used != 0 {
		t.Errorf("DeviceMemoryUsed(0) = %d with an error", used)
	}
	s, err := cuda.ListGPUProcesses(-1)
	wantNoNVML(t, err) // the size query's error, not an empty string
	if s != "" {
		t.Errorf("ListGPUProcesses(-1) = %q with an error", s)
	}
}

func TestNVMLDeviceBeyondInt32(t *testing.T) {
	for _, q := range intFigures {
		_, err := q.f(math.MaxInt32 + 1)
		wantErr(t, err, ctorch.ErrIndex)
	}
	_, err := cuda.DeviceMemoryUsed(math.MinInt32 - 1)
	wantErr(t, err, ctorch.ErrIndex)
	_, err = cuda.ListGPUProcesses(math.MaxInt32 + 1)
	wantErr(t, err, ctorch.ErrIndex)
}

func TestInitWithoutGPU(t *testing.T) {
	skipWithGPU(t)
	if cuda.IsInitialized() {
		t.Error("IsInitialized() without a GPU")
	}
	wantUnavailable(t, cuda.Init())
	wantUnavailable(t, cuda.Init())
	if cuda.IsInitialized() {
		t.Error("IsInitialized() after a failed Init")
	}
}

func TestGPUInitIsIdempotent(t *testing.T) {
	needGPUs(t, 1)
	noErr(t, cuda.Init())
	noErr(t, cuda.Init())
	if !cuda.IsInitialized() {
		t.Error("IsInitialized() is false after Init")
	}
}

func TestGPUNVMLFigures(t *testing.T) {
	needNVML(t)
	if n, c := cuda.DeviceCountNVML(), cuda.DeviceCount(); n != c {
		t.Errorf("DeviceCountNVML() = %d, DeviceCount() = %d", n, c)
	}
	ranges := map[string][2]int{"Utilization": {0, 100}, "MemoryUsage": {0, 100}, "Temperature": {1, 120},
		"PowerDraw": {1, math.MaxInt32}, "ClockRate": {1, 5000}}
	for d := -1; d < cuda.DeviceCount(); d++ {
		for _, q := range intFigures {
			v, err := q.f(d)
			noErr(t, err)
			if r := ranges[q.name]; v < r[0] || v > r[1] {
				t.Errorf("%s(%d) = %d, want %d..%d", q.name, d, v, r[0], r[1])
			}
		}
		used, err := cuda.DeviceMemoryUsed(d)
		noErr(t, err)
		if used <= 0 {
			t.Errorf("DeviceMemoryUsed(%d) = %d", d, used)
		}
	}
	_, err := cuda.Temperature(64)
	if e := wantErr(t, err, ctorch.ErrIndex); !strings.Contains(e.Message, "device 64 is not visible (CUDA_VISIBLE_DEVICES=") {
		t.Errorf("message %q", e.Message)
	}
}

func TestGPUListGPUProcesses(t *testing.T) {
	needNVML(t)
	s := newScope(t)
	s.T(ctorch.Empty([]int64{1 << 20}, ctorch.WithDevice(ctorch.CUDADevice(0)))) // memory of this process
	text, err := cuda.ListGPUProcesses(0)
	noErr(t, err)
	lines := strings.Split(text, "\n")
	if !regexp.MustCompile(`^GPU:\d+$`).MatchString(lines[0]) || len(lines) < 2 {
		t.Fatalf("ListGPUProcesses(0) = %q", text)
	}
	line := regexp.MustCompile(`^process +\d+ uses +(\d+\.\d{3}|N/A) MB GPU memory$`)
	for _, l := range lines[1:] {
		if !line.MatchString(l) {
			t.Errorf("line %q", l)
		}
	}
}
