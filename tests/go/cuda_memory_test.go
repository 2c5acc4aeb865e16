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
	"sort"
	"strings"
	"testing"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/cuda"
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
	needGPUs(t, 1)
	skipIfAllocConf(t)
	s := cudaScope(t)
	lockThread(t)
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

// A 5 MiB tensor lives in a 20 MiB large-pool segment; freeing it keeps the segment reserved
// until EmptyCache.
func TestGPUMemoryLargePool(t *testing.T) {
	s := gpuMemoryTest(t)
	if a, r := memStat(t, "allocated_bytes.large_pool.current"), memStat(t, "reserved_bytes.large_pool.current"); a != 0 || r != 0 {
		t.Fatalf("after EmptyCache the large pool holds %d allocated / %d reserved bytes, want 0 / 0", a, r)
	}
	dev := currentDevice(t)
	x := gpuBytes(t, s, 5*miB)
	if got := memStat(t, "allocated_bytes.large_pool.current"); got != 5*miB {
		t.Errorf("allocated_bytes.large_pool.current = %d, want %d (5 MiB)", got, 5*miB)
	}
	if got := memStat(t, "reserved_bytes.large_pool.current"); got != 20*miB {
		t.Errorf("reserved_bytes.large_pool.current = %d, want %d (20 MiB)", got, 20*miB)
	}
	// The same value for the current device by its index, and in the snapshot: one large
	// segment of 20 MiB with a 5 MiB block in use and the remaining 15 MiB free.
	v, err := cuda.MemoryStat(dev, "allocated_bytes.large_pool.current")
	noErr(t, err)
	if v != 5*miB {
		t.Errorf("MemoryStat(%d, ...) = %d, want %d", dev, v, 5*miB)
	}
	snap := memorySnapshot(t, -1)
	if snap.Device != dev {
		t.Errorf("snapshot of device %d, want %d", snap.Device, dev)
	}
	large := 0
	for _, seg := range snap.Segments {
		if seg.SegmentType != "large" {
			continue
		}
		large++
		if seg.TotalSize != 20*miB || seg.AllocatedSize != 5*miB || len(seg.Blocks) != 2 {
			t.Errorf("large segment %+v, want 20 MiB with 5 MiB allocated in 2 blocks", seg)
			continue
		}
		b0, b1 := seg.Blocks[0], seg.Blocks[1]
		if b0.Size != 5*miB || b0.State != "active_allocated" || b0.Address != seg.Address ||
			b1.Size != 15*miB || b1.State != "inactive" || b1.Address != seg.Address+uint64(5*miB) {
			t.Errorf("blocks %+v, want 5 MiB active_allocated at the segment's start, then 15 MiB inactive", seg.Blocks)
		}
	}
	if large != 1 {
		t.Errorf("%d large segments in the snapshot, want 1", large)
	}

	noErr(t, x.Close())
	if got := memStat(t, "allocated_bytes.large_pool.current"); got != 0 {
		t.Errorf("allocated_bytes.large_pool.current = %d after the free, want 0", got)
	}
	if got := memStat(t, "reserved_bytes.large_pool.current"); got != 20*miB {
		t.Errorf("reserved_bytes.large_pool.current = %d after the free, want %d (cached)", got, 20*miB)
	}
	r, err := cuda.MemoryReserved(-1)
	noErr(t, err)
	if r < 20*miB {
		t.Errorf("MemoryReserved = %d after the free, want at least 20 MiB", r)
	}
	noErr(t, cuda.EmptyCache())
	if got := memStat(t, "reserved_bytes.large_pool.current"); got != 0 {
		t.Errorf("reserved_bytes.large_pool.current = %d after EmptyCache, want 0", got)
	}
	r2, err := cuda.MemoryReserved(-1)
	noErr(t, err)
	if r-r2 != 20*miB {
		t.Errorf("MemoryReserved went from %d to %d with EmptyCache, want 20 MiB less", r, r2)
	}
}

// memoryStatsKeys is PyTorch's memory_stats key set, written out by hand.
func memoryStatsKeys() []string {
	var keys []string
	for _, stat := range []string{"allocation", "segment", "active", "inactive_split", "allocated_bytes",
		"reserved_bytes", "active_bytes", "inactive_split_bytes", "requested_bytes"} {
		for _, pool := range []string{"all", "small_pool", "large_pool"} {
			for _, m := range []string{"current", "peak", "allocated", "freed"} {
				keys = append(keys, stat+"."+pool+"."+m)
			}
		}
	}
	for _, stat := range []string{"oversize_allocations", "oversize_segments"} {
		for _, m := range []string{"current", "peak", "allocated", "freed"} {
			keys = append(keys, stat+"."+m)
		}
	}
	keys = append(keys, "num_alloc_retries", "num_ooms", "num_sync_all_streams", "num_device_alloc",
		"num_device_free", "max_split_size")
	sort.Strings(keys)
	return keys
}

func TestGPUMemoryStats(t *testing.T) {
	s := gpuMemoryTest(t)
	x := gpuBytes(t, s, 5*miB)
	m, err := cuda.MemoryStats(-1)
	noErr(t, err)
	want := memoryStatsKeys()
	if len(want) != 122 {
		t.Fatalf("hand-written key list has %d keys, want 122", len(want))
	}
	if !reflect.DeepEqual(m.Keys, want) {
		t.Errorf("MemoryStats keys %q,\nwant %q", m.Keys, want)
	}
	if len(m.Values) != len(m.Keys) {
		t.Errorf("%d values for %d keys", len(m.Values), len(m.Keys))
	}
	keys, err := cuda.MemoryStatsKeys(-1)
	noErr(t, err)
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("MemoryStatsKeys %q,\nwant %q", keys, want)
	}
	allocated, err := cuda.MemoryAllocated(-1)
	noErr(t, err)
	if v, ok := m.Get("allocated_bytes.all.current"); !ok || v != allocated {
		t.Errorf("MemoryStats[allocated_bytes.all.current] = %d, %v; MemoryAllocated() = %d", v, ok, allocated)
	}
	if allocated < 5*miB {
		t.Errorf("MemoryAllocated() = %d with a 5 MiB tensor alive", allocated)
	}
	reserved, err := cuda.MemoryReserved(-1)
	noErr(t, err)
	if v, _ := m.Get("reserved_bytes.all.current"); v != reserved {
		t.Errorf("MemoryStats[reserved_bytes.all.current] = %d, MemoryReserved() = %d", v, reserved)
	}
	if v, _ := m.Get("allocated_bytes.large_pool.current"); v != 5*miB {
		t.Errorf("MemoryStats[allocated_bytes.large_pool.current] = %d, want 5 MiB", v)
	}
	if v, _ := m.Get("max_split_size"); v != -1 {
		t.Errorf("max_split_size = %d, want -1 (unlimited, the default)", v)
	}
	if _, ok := m.Get("no.such.key"); ok {
		t.Errorf("MemoryStats has key no.such.key")
	}
	_, err = cuda.MemoryStat(-1, "no.such.key")
	if e := wantErr(t, err, ctorch.ErrArgument); e.Code != 100 || !strings.Contains(e.Message, "unknown memory_stats key 'no.such.key'") {
		t.Errorf("MemoryStat(no.such.key): %v", e)
	}
	_, err = cuda.MemoryStat(-1, "")
	wantErr(t, err, ctorch.ErrArgument)
	_, err = cuda.MemoryStats(cuda.DeviceCount())
	wantErr(t, err, ctorch.ErrIndex)
	noErr(t, x.Close())
}

func TestGPUMemoryPeaksAndResets(t *testing.T) {
	s := gpuMemoryTest(t)
	noErr(t, cuda.ResetPeakMemoryStats(-1))
	base, err := cuda.MemoryAllocated(-1)
	noErr(t, err)
	x := gpuBytes(t, s, 5*miB)
	y := gpuBytes(t, s, 3*miB) // split from the 15 MiB that x leaves free in its 20 MiB segment
	noErr(t, x.Close())
	noErr(t, y.Close())
	peak, err := cuda.MaxMemoryAllocated(-1)
	noErr(t, err)
	if peak != base+8*miB {
		t.Errorf("MaxMemoryAllocated = %d, want %d (base + 8 MiB)", peak, base+8*miB)
	}
	if now, _ := cuda.MemoryAllocated(-1); now != base {
		t.Errorf("MemoryAllocated = %d after the frees, want %d", now, base)
	}
	maxRes, err := cuda.MaxMemoryReserved(-1)
	noErr(t, err)
	if res, _ := cuda.MemoryReserved(-1); maxRes < res || res < 20*miB {
		t.Errorf("MaxMemoryReserved = %d, MemoryReserved = %d: want max >= current >= 20 MiB", maxRes, res)
	}
	if r := memStat(t, "reserved_bytes.large_pool.current"); r != 20*miB {
		t.Errorf("reserved_bytes.large_pool.current = %d, want 20 MiB (one segment for both)", r)
	}
	if a := memStat(t, "allocation.large_pool.allocated"); a < 2 {
		t.Errorf("allocation.large_pool.allocated = %d, want at least 2", a)
	}

	noErr(t, cuda.ResetPeakMemoryStats(-1))
	if p, _ := cuda.MaxMemoryAllocated(-1); p != base {
		t.Errorf("MaxMemoryAllocated = %d after ResetPeakMemoryStats, want %d", p, base)
	}
	z := gpuBytes(t, s, 2*miB)
	noErr(t, z.Close())
	noErr(t, cuda.ResetMaxMemoryAllocated(-1))
	if p, _ := cuda.MaxMemoryAllocated(-1); p != base {
		t.Errorf("MaxMemoryAllocated = %d after ResetMaxMemoryAllocated, want %d", p, base)
	}
	noErr(t, cuda.EmptyCache())
	if p, _ := cuda.MaxMemoryReserved(-1); p < 20*miB {
		t.Errorf("MaxMemoryReserved = %d after EmptyCache, want the peak (>= 20 MiB) kept", p)
	}
	noErr(t, cuda.ResetPeakMemoryStats(-1))
	p, _ := cuda.MaxMemoryReserved(-1)
	if r, _ := cuda.MemoryReserved(-1); p != r {
		t.Errorf("MaxMemoryReserved = %d after reset, want MemoryReserved = %d", p, r)
	}

	noErr(t, cuda.ResetAccumulatedMemoryStats(-1))
	for _, k := range []string{"allocated_bytes.all.allocated", "allocated_bytes.all.freed",
		"allocation.large_pool.allocated", "num_device_alloc", "num_device_free", "num_ooms"} {
		if v := memStat(t, k); v != 0 {
			t.Errorf("%s = %d after ResetAccumulatedMemoryStats, want 0", k, v)
		}
	}
	w := gpuBytes(t, s, 5*miB)
	if v := memStat(t, "allocated_bytes.all.allocated"); v != 5*miB {
		t.Errorf("allocated_bytes.all.allocated = %d after a 5 MiB allocation, want 5 MiB", v)
	}
	noErr(t, w.Close())
	if v := memStat(t, "allocated_bytes.all.freed"); v != 5*miB {
		t.Errorf("allocated_bytes.all.freed = %d after freeing it, want 5 MiB", v)
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
