package ctorch_test

// The caching allocator's API (torch.cuda.memory_*; capi/ctorch.h section 15): what works
// without a GPU (the backend name, refused raw-memory arguments), the no-GPU errors, and the
// GPU-only statistics, which skip with the reason here. Sizes follow PyTorch's policy: a request
// above 1 MiB goes to the large pool, and one below 10 MiB gets a 20 MiB segment of its own.

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/cuda"
	"ctorch.dev/ctorch/internal/capi"
)

const miB = int64(1) << 20

func skipIfAllocConf(t *testing.T) {
	t.Helper()
	if v, ok := os.LookupEnv("CTORCH_CUDA_ALLOC_CONF"); ok {
		t.Skipf("CTORCH_CUDA_ALLOC_CONF=%q is set: the test expects the default allocator", v)
	}
}

func TestAllocatorBackend(t *testing.T) {
	skipIfAllocConf(t)
	b, err := cuda.AllocatorBackend()
	noErr(t, err)
	if b != "native" {
		t.Errorf("AllocatorBackend() = %q, want \"native\"", b)
	}
}

// Only the failures: a successful LoadAllocator would change the allocator of this test process.
func TestLoadAllocatorErrors(t *testing.T) {
	e := wantErr(t, cuda.LoadAllocator("/nonexistent/liballoc.so", "a", "f"), ctorch.ErrArgument)
	if e != nil && !strings.Contains(e.Message, "cannot load the allocator library") {
		t.Errorf("message %q", e.Message)
	}
	e = wantErr(t, cuda.LoadAllocator("libm.so.6", "no_such_alloc", "cos"), ctorch.ErrArgument)
	if e != nil && !strings.Contains(e.Message, "has no function 'no_such_alloc'") {
		t.Errorf("message %q", e.Message)
	}
	wantErr(t, cuda.LoadAllocator("lib\x00m.so", "a", "f"), ctorch.ErrArgument)
	// ct_cuda_set_allocator takes C function pointers, which Go functions are not: the binding
	// offers LoadAllocator instead. The raw wrapper exists and refuses NULL functions.
	if st := capi.Ct_cuda_set_allocator(nil, nil, 0); st != capi.CT_ERR_NULL_POINTER {
		t.Errorf("ct_cuda_set_allocator(NULL, NULL): %d, want CT_ERR_NULL_POINTER", st)
	}
	capi.Ct_clear_error()
}

// Raw memory arguments are checked before CUDA is needed, so these errors are the same on any
// machine.
func TestCachingAllocatorArguments(t *testing.T) {
	cudaScope(t)
	for _, bogus := range []uintptr{12345, 0, 0xdeadbeef000} {
		e := wantErr(t, cuda.CachingAllocatorDelete(bogus), ctorch.ErrArgument)
		if e.Code != 100 || !strings.Contains(e.Message, "is not memory from ct_cuda_caching_allocator_alloc") {
			t.Errorf("CachingAllocatorDelete(%#x): %v", bogus, e)
		}
	}
	for _, size := range []int64{0, -1, math.MinInt64} {
		p, err := cuda.CachingAllocatorAlloc(size, -1, nil)
		e := wantErr(t, err, ctorch.ErrArgument)
		if e.Code != 100 || !strings.Contains(e.Message, "size must be positive") {
			t.Errorf("CachingAllocatorAlloc(%d): %v", size, e)
		}
		if p != 0 {
			t.Errorf("CachingAllocatorAlloc(%d) returned address %#x with an error", size, p)
		}
	}
	// A zero (never opened) Stream is refused by the Go layer, a device index that does not
	// fit int32_t too.
	_, err := cuda.CachingAllocatorAlloc(1024, -1, &cuda.Stream{})
	wantClosed(t, err)
	_, err = cuda.CachingAllocatorAlloc(1024, 1<<40, nil)
	wantErr(t, err, ctorch.ErrIndex)
}

// Without a GPU every statistic and control fails with 301 and the reason.
func TestCUDAMemoryWithoutGPU(t *testing.T) {
	skipWithGPU(t)
	cudaScope(t)
	for _, dev := range []int{-1, 0, 1} {
		for name, f := range map[string]func(int) (int64, error){
			"MemoryAllocated": cuda.MemoryAllocated, "MaxMemoryAllocated": cuda.MaxMemoryAllocated,
			"MemoryReserved": cuda.MemoryReserved, "MaxMemoryReserved": cuda.MaxMemoryReserved,
		} {
			v, err := f(dev)
			wantUnavailable(t, err)
			if v != 0 {
				t.Errorf("%s(%d) = %d with an error", name, dev, v)
			}
		}
		wantUnavailable(t, cuda.ResetPeakMemoryStats(dev))
		wantUnavailable(t, cuda.ResetMaxMemoryAllocated(dev))
		wantUnavailable(t, cuda.ResetAccumulatedMemoryStats(dev))
		_, err := cuda.MemoryStat(dev, "allocated_bytes.all.current")
		wantUnavailable(t, err)
		_, err = cuda.MemoryStat(dev, "no.such.key") // the device is checked first
		wantUnavailable(t, err)
		keys, err := cuda.MemoryStatsKeys(dev)
		wantUnavailable(t, err)
		if keys != nil {
			t.Errorf("MemoryStatsKeys(%d) = %q with an error", dev, keys)
		}
		m, err := cuda.MemoryStats(dev)
		wantUnavailable(t, err)
		if m != nil {
			t.Errorf("MemoryStats(%d) returned a map with an error", dev)
		}
		summary, err := cuda.MemorySummary(dev, false)
		wantUnavailable(t, err)
		if summary != "" {
			t.Errorf("MemorySummary(%d) = %q with an error", dev, summary)
		}
		snap, err := cuda.MemorySnapshot(dev)
		wantUnavailable(t, err)
		if snap != "" {
			t.Errorf("MemorySnapshot(%d) = %q with an error", dev, snap)
		}
		wantUnavailable(t, cuda.SetPerProcessMemoryFraction(0.5, dev))
		p, err := cuda.CachingAllocatorAlloc(16, dev, nil)
		wantUnavailable(t, err)
		if p != 0 {
			t.Errorf("CachingAllocatorAlloc(16, %d) = %#x with an error", dev, p)
		}
	}
	wantUnavailable(t, cuda.EmptyCache())
	// Indices that do not fit the C int32_t are refused by the Go layer, not truncated.
	_, err := cuda.MemoryAllocated(1 << 32)
	wantErr(t, err, ctorch.ErrIndex)
	wantErr(t, cuda.ResetPeakMemoryStats(-1<<40), ctorch.ErrIndex)
	_, err = cuda.MemoryStats(1 << 33)
	wantErr(t, err, ctorch.ErrIndex)
	wantErr(t, cuda.SetPerProcessMemoryFraction(0.5, 1<<31), ctorch.ErrIndex)
}

// ---- GPU-only ----

// memStat reads one statistic of the current device (the test's thread is locked).
func memStat(t *testing.T, key string) int64 {
	t.Helper()
	v, err := cuda.MemoryStat(-1, key)
	noErr(t, err)
	return v
}

func gpuBytes(t *testing.T, s *scope, n int64) *ctorch.Tensor {
	t.Helper()
	return s.T(ctorch.Empty([]int64{n}, ctorch.Uint8, ctorch.CUDA))
}

func gpuMemoryTest(t *testing.T) *scope {
	t.Helper()
	skipIfAllocConf(t)
	s := gpuTest(t, 1)
	noErr(t, cuda.EmptyCache())
	t.Cleanup(func() { noErr(t, cuda.EmptyCache()) })
	return s
}

type snapshot struct {
	Device   int `json:"device"`
	Segments []struct {
		Address       uint64 `json:"address"`
		TotalSize     int64  `json:"total_size"`
		AllocatedSize int64  `json:"allocated_size"`
		ActiveSize    int64  `json:"active_size"`
		SegmentType   string `json:"segment_type"`
		Stream        uint64 `json:"stream"`
		Blocks        []struct {
			Address uint64 `json:"address"`
			Size    int64  `json:"size"`
			State   string `json:"state"`
		} `json:"blocks"`
	} `json:"segments"`
}

func memorySnapshot(t *testing.T, device int) snapshot {
	t.Helper()
	full, err := cuda.MemorySummary(device, false)
	noErr(t, err)
	short, err := cuda.MemorySummary(device, true)
	noErr(t, err)
	if !strings.Contains(full, "ctorch CUDA memory summary, device ID") || !strings.Contains(full, "from large pool") ||
		strings.Contains(short, "from large pool") {
		t.Errorf("MemorySummary:\n%s\nabbreviated:\n%s", full, short)
	}
	js, err := cuda.MemorySnapshot(device)
	noErr(t, err)
	var s snapshot
	if err := json.Unmarshal([]byte(js), &s); err != nil {
		t.Fatalf("MemorySnapshot is not JSON (%v): %s", err, js)
	}
	return s
}

// Statistics through the binding: the stats map and its keys, single stats by name, the peaks
// and their resets, the snapshot's JSON. The pool policy and the figures are the C suite's
// (tests/capi/memory_test.c).
func TestGPUMemoryStats(t *testing.T) {
	s := gpuMemoryTest(t)
	noErr(t, cuda.ResetPeakMemoryStats(-1))
	base, err := cuda.MemoryAllocated(-1)
	noErr(t, err)
	x := gpuBytes(t, s, 5*miB)
	m, err := cuda.MemoryStats(-1)
	noErr(t, err)
	keys, err := cuda.MemoryStatsKeys(-1)
	noErr(t, err)
	if !reflect.DeepEqual(m.Keys, keys) || len(m.Values) != len(keys) || len(keys) != 122 {
		t.Errorf("MemoryStats: %d keys, %d values; MemoryStatsKeys: %d keys, want 122", len(m.Keys), len(m.Values), len(keys))
	}
	if v, ok := m.Get("allocated_bytes.all.current"); !ok || v != base+5*miB || memStat(t, "allocated_bytes.all.current") != v {
		t.Errorf("allocated_bytes.all.current = %d, %v; want %d", v, ok, base+5*miB)
	}
	if _, ok := m.Get("no.such.key"); ok {
		t.Errorf("MemoryStats has key no.such.key")
	}
	_, err = cuda.MemoryStat(-1, "no.such.key")
	if e := wantErr(t, err, ctorch.ErrArgument); !strings.Contains(e.Message, "unknown memory_stats key 'no.such.key'") {
		t.Errorf("MemoryStat(no.such.key): %v", e)
	}
	_, err = cuda.MemoryStats(cuda.DeviceCount())
	wantErr(t, err, ctorch.ErrIndex)
	found := false
	p, err := x.DataPtr()
	noErr(t, err)
	for _, seg := range memorySnapshot(t, -1).Segments {
		for _, b := range seg.Blocks {
			found = found || (b.Address == uint64(p) && b.Size == 5*miB && b.State == "active_allocated")
		}
	}
	if !found {
		t.Errorf("the 5 MiB block at %#x is not in the snapshot", p)
	}
	noErr(t, x.Close())
	peak, err := cuda.MaxMemoryAllocated(-1)
	noErr(t, err)
	maxRes, err := cuda.MaxMemoryReserved(-1)
	noErr(t, err)
	if res, _ := cuda.MemoryReserved(-1); peak != base+5*miB || maxRes < res || res < 5*miB {
		t.Errorf("MaxMemoryAllocated %d (want %d), MaxMemoryReserved %d, MemoryReserved %d", peak, base+5*miB, maxRes, res)
	}
	noErr(t, cuda.ResetMaxMemoryAllocated(-1))
	if p, _ := cuda.MaxMemoryAllocated(-1); p != base {
		t.Errorf("MaxMemoryAllocated = %d after ResetMaxMemoryAllocated, want %d", p, base)
	}
	noErr(t, cuda.ResetAccumulatedMemoryStats(-1))
	if v := memStat(t, "allocated_bytes.all.allocated"); v != 0 {
		t.Errorf("allocated_bytes.all.allocated = %d after ResetAccumulatedMemoryStats", v)
	}
}

func TestGPUCachingAllocatorAlloc(t *testing.T) {
	gpuMemoryTest(t)
	base, err := cuda.MemoryAllocated(-1)
	noErr(t, err)
	p, err := cuda.CachingAllocatorAlloc(1000, -1, nil) // rounded up to 512 bytes: 1024
	noErr(t, err)
	if p == 0 {
		t.Fatal("CachingAllocatorAlloc returned address 0")
	}
	if a, _ := cuda.MemoryAllocated(-1); a != base+1024 {
		t.Errorf("MemoryAllocated = %d, want %d (base + 1024)", a, base+1024)
	}
	found := false
	for _, seg := range memorySnapshot(t, -1).Segments {
		for _, b := range seg.Blocks {
			if b.Address == uint64(p) {
				found = true
				if b.Size != 1024 || b.State != "active_allocated" || seg.SegmentType != "small" {
					t.Errorf("block %+v in a %s segment, want 1024 bytes active_allocated in a small one", b, seg.SegmentType)
				}
			}
		}
	}
	if !found {
		t.Errorf("address %#x not in the snapshot", p)
	}
	noErr(t, cuda.CachingAllocatorDelete(p))
	if a, _ := cuda.MemoryAllocated(-1); a != base {
		t.Errorf("MemoryAllocated = %d after the delete, want %d", a, base)
	}
	e := wantErr(t, cuda.CachingAllocatorDelete(p), ctorch.ErrArgument)
	if e.Code != 100 || !strings.Contains(e.Message, "freed already") {
		t.Errorf("second delete: %v", e)
	}

	// On a stream of one's own, by device index.
	dev := currentDevice(t)
	side := newStream(t, dev, 0)
	q, err := cuda.CachingAllocatorAlloc(3*miB, dev, side)
	noErr(t, err)
	if a := memStat(t, "allocated_bytes.large_pool.current"); a != 3*miB {
		t.Errorf("allocated_bytes.large_pool.current = %d, want 3 MiB", a)
	}
	noErr(t, side.Close())
	noErr(t, cuda.CachingAllocatorDelete(q)) // the memory outlives the Stream value
	_, err = cuda.CachingAllocatorAlloc(1024, dev, side)
	wantClosed(t, err)

	if cuda.DeviceCount() >= 2 {
		other := newStream(t, 1-dev%2, 0)
		_, err = cuda.CachingAllocatorAlloc(1024, dev, other)
		wantErr(t, err, ctorch.ErrDevice)
	}
}

func TestGPUPerProcessMemoryFraction(t *testing.T) {
	s := gpuMemoryTest(t)
	_, total, err := cuda.MemGetInfo(-1)
	noErr(t, err)
	t.Cleanup(func() { noErr(t, cuda.SetPerProcessMemoryFraction(1, -1)) })
	noErr(t, cuda.SetPerProcessMemoryFraction(0.01, -1))
	n := total / 50 // 2% of the device
	x, err := ctorch.Empty([]int64{n}, ctorch.Uint8, ctorch.CUDA)
	s.keep(x)
	if !errors.Is(err, ctorch.ErrOutOfMemory) {
		t.Errorf("allocating 2%% of the device with a 1%% limit: %v, want ErrOutOfMemory", err)
	}
	for _, bad := range []float64{2, -0.1, math.NaN()} {
		e := wantErr(t, cuda.SetPerProcessMemoryFraction(bad, -1), ctorch.ErrArgument)
		if !strings.Contains(e.Message, "between 0 and 1") {
			t.Errorf("SetPerProcessMemoryFraction(%v): %v", bad, e)
		}
	}
	noErr(t, cuda.SetPerProcessMemoryFraction(1, -1))
	y := s.T(ctorch.Empty([]int64{n}, ctorch.Uint8, ctorch.CUDA))
	noErr(t, y.Close())
}
