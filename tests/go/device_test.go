package ctorch_test

import (
	"runtime"
	"testing"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/cuda"
)

func TestParseAndPrintDevices(t *testing.T) {
	cases := []struct {
		in   string
		want ctorch.Device
		out  string
	}{
		{"cpu", ctorch.CPU, "cpu"},
		{"cpu:0", ctorch.Device{Type: ctorch.DeviceCPU, Index: 0}, "cpu:0"},
		{"cuda", ctorch.CUDA, "cuda"},
		{"cuda:0", ctorch.CUDADevice(0), "cuda:0"},
		{"cuda:1", ctorch.Device{Type: ctorch.DeviceCUDA, Index: 1}, "cuda:1"},
		{"cuda:12", ctorch.CUDADevice(12), "cuda:12"},
	}
	for _, c := range cases {
		d, err := ctorch.ParseDevice(c.in)
		noErr(t, err)
		if d != c.want {
			t.Errorf("ParseDevice(%q) = %#v, want %#v", c.in, d, c.want)
		}
		if s := d.String(); s != c.out {
			t.Errorf("%#v.String() = %q, want %q", d, s, c.out)
		}
	}
	if !ctorch.CUDA.IsCUDA() || ctorch.CUDA.IsCPU() || !ctorch.CPU.IsCPU() {
		t.Error("IsCUDA/IsCPU")
	}
	if ctorch.DeviceCUDA.String() != "cuda" || ctorch.DeviceCPU.String() != "cpu" {
		t.Error("DeviceType.String")
	}
}

func TestBadDeviceStrings(t *testing.T) {
	for _, s := range []string{"cuda:x", "gpu", "", "cuda:", "cuda:-1", "CPU", "cuda:1:2", "cpu\x00"} {
		d, err := ctorch.ParseDevice(s)
		e := wantErr(t, err, ctorch.ErrDeviceString)
		if e.Code != 107 || e.Name != "CT_ERR_DEVICE_STRING" {
			t.Errorf("ParseDevice(%q): code %d name %s", s, e.Code, e.Name)
		}
		if d != (ctorch.Device{}) {
			t.Errorf("ParseDevice(%q) returned %v with an error", s, d)
		}
	}
}

func TestDTypes(t *testing.T) {
	names := map[ctorch.DType]string{
		ctorch.Uint8: "torch.uint8", ctorch.Int8: "torch.int8", ctorch.Int16: "torch.int16",
		ctorch.Int32: "torch.int32", ctorch.Int64: "torch.int64", ctorch.Float16: "torch.float16",
		ctorch.Float32: "torch.float32", ctorch.Float64: "torch.float64",
		ctorch.Complex64: "torch.complex64", ctorch.Complex128: "torch.complex128",
		ctorch.Bool: "torch.bool", ctorch.BFloat16: "torch.bfloat16",
	}
	sizes := map[ctorch.DType]int{
		ctorch.Uint8: 1, ctorch.Int8: 1, ctorch.Int16: 2, ctorch.Int32: 4, ctorch.Int64: 8,
		ctorch.Float16: 2, ctorch.Float32: 4, ctorch.Float64: 8, ctorch.Complex64: 8,
		ctorch.Complex128: 16, ctorch.Bool: 1, ctorch.BFloat16: 2,
	}
	if len(ctorch.DTypes) != 12 {
		t.Fatalf("%d dtypes, want 12", len(ctorch.DTypes))
	}
	for _, d := range ctorch.DTypes {
		if d.String() != names[d] {
			t.Errorf("DType(%d).String() = %q, want %q", int32(d), d.String(), names[d])
		}
		n, err := d.ItemSize()
		noErr(t, err)
		if n != sizes[d] {
			t.Errorf("%v.ItemSize() = %d, want %d", d, n, sizes[d])
		}
	}
	if _, err := ctorch.DType(42).ItemSize(); err == nil {
		t.Error("ItemSize of DType(42) succeeded")
	}
	if s := ctorch.DType(42).String(); s != "DType(42)" {
		t.Errorf("DType(42).String() = %q", s)
	}
	if !ctorch.BFloat16.IsFloatingPoint() || ctorch.Int32.IsFloatingPoint() || !ctorch.Complex64.IsComplex() {
		t.Error("IsFloatingPoint / IsComplex")
	}
	promo := []struct{ a, b, want ctorch.DType }{
		{ctorch.Int32, ctorch.Float16, ctorch.Float16},
		{ctorch.Uint8, ctorch.Int8, ctorch.Int16},
		{ctorch.Bool, ctorch.Int32, ctorch.Int32},
		{ctorch.Int64, ctorch.Float32, ctorch.Float32},
		{ctorch.Int32, ctorch.Int64, ctorch.Int64},
		{ctorch.Complex64, ctorch.Float64, ctorch.Complex128},
		{ctorch.Float16, ctorch.BFloat16, ctorch.Float32},
		{ctorch.Bool, ctorch.Bool, ctorch.Bool},
	}
	for _, p := range promo {
		got, err := ctorch.PromoteTypes(p.a, p.b)
		noErr(t, err)
		if got != p.want {
			t.Errorf("PromoteTypes(%v, %v) = %v, want %v", p.a, p.b, got, p.want)
		}
	}
	_, err := ctorch.PromoteTypes(ctorch.DType(42), ctorch.Float32)
	wantErr(t, err, ctorch.ErrDType)
}

func TestCUDAQueries(t *testing.T) {
	n := cuda.DeviceCount()
	n2, err := cuda.DeviceCountErr()
	noErr(t, err)
	if n != n2 {
		t.Errorf("DeviceCount %d != DeviceCountErr %d", n, n2)
	}
	if !cuda.IsAvailable() {
		// No GPU (or no driver) on this machine.
		if n != 0 {
			t.Errorf("DeviceCount = %d without CUDA, want 0", n)
		}
		e := wantErr(t, cuda.CheckAvailable(), ctorch.ErrCUDAUnavailable)
		if e.Code != 301 {
			t.Errorf("code %d, want 301", e.Code)
		}
		_, err = cuda.DeviceName(0)
		wantErr(t, err, ctorch.ErrCUDAUnavailable)
		_, _, err = cuda.DeviceCapability(0)
		wantErr(t, err, ctorch.ErrCUDAUnavailable)
		_, err = cuda.DeviceProperty(0, cuda.PropTotalMemory)
		wantErr(t, err, ctorch.ErrCUDAUnavailable)
		_, err = cuda.GetDeviceProperties(0)
		wantErr(t, err, ctorch.ErrCUDAUnavailable)
		return
	}
	// With a GPU.
	if n < 1 {
		t.Fatalf("IsAvailable but DeviceCount = %d", n)
	}
	noErr(t, cuda.CheckAvailable())
	name, err := cuda.DeviceName(0)
	noErr(t, err)
	if name == "" {
		t.Error("empty device name")
	}
	major, minor, err := cuda.DeviceCapability(0)
	noErr(t, err)
	if major < 3 || minor < 0 {
		t.Errorf("capability %d.%d", major, minor)
	}
	p, err := cuda.GetDeviceProperties(0)
	noErr(t, err)
	if p.Name != name || p.Major != major || p.Minor != minor || p.TotalMemory <= 0 ||
		p.MultiProcessorCount <= 0 || p.WarpSize != 32 || p.L2CacheSize <= 0 ||
		p.MaxThreadsPerMultiProcessor <= 0 {
		t.Errorf("properties %+v", p)
	}
	_, err = cuda.DeviceName(n) // one past the last device
	wantErr(t, err, ctorch.ErrIndex)
	_, err = cuda.DeviceProperty(0, cuda.Property(99))
	wantErr(t, err, ctorch.ErrArgument)
	t.Logf("cuda:0 is %s (sm_%d%d), %+v", name, major, minor, p)
}

func TestVersionAndThreads(t *testing.T) {
	major, minor, patch, err := ctorch.Version()
	noErr(t, err)
	if major != 0 || minor < 1 || patch < 0 {
		t.Errorf("Version() = %d.%d.%d, want 0.1.x or later minor", major, minor, patch)
	}
	hm, hn, hp := ctorch.HeaderVersion()
	if hm != 0 || hn != 1 || hp != 0 {
		t.Errorf("HeaderVersion() = %d.%d.%d, want 0.1.0", hm, hn, hp)
	}
	n, err := ctorch.NumThreads()
	noErr(t, err)
	if n < 1 {
		t.Fatalf("NumThreads() = %d", n)
	}
	noErr(t, ctorch.SetNumThreads(3))
	got, err := ctorch.NumThreads()
	noErr(t, err)
	if got != 3 {
		t.Errorf("NumThreads() = %d after SetNumThreads(3)", got)
	}
	wantErr(t, ctorch.SetNumThreads(0), ctorch.ErrArgument)
	wantErr(t, ctorch.SetNumThreads(-2), ctorch.ErrArgument)
	wantErr(t, ctorch.SetNumThreads(1<<40), ctorch.ErrArgument)
	noErr(t, ctorch.SetNumThreads(n))
	if got, _ := ctorch.NumThreads(); got != n {
		t.Errorf("NumThreads() = %d after restoring %d", got, n)
	}
	_ = runtime.NumCPU()
}
