package ctorch_test

// Random numbers through the binding (capi/ctorch.h section 16): how generators, seeds, states
// and options cross into C (a *Generator as an Option and as the fills' argument, nil as the
// default generator, state bytes both ways), lifetimes (Close, Ref, finalizer), error mapping
// and concurrent draws. The values, offsets, launch geometry and torch's golden vectors are
// the C suite's (tests/capi/random_test.c).

import (
	"encoding/binary"
	"reflect"
	"sync"
	"testing"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/cuda"
	"ctorch.dev/ctorch/internal/capi"
)

// newGen makes a generator that is closed at the end of the test.
func newGen(t *testing.T, d ctorch.Device) *ctorch.Generator {
	t.Helper()
	g, err := ctorch.NewGenerator(d)
	return keepOpen(t, g, err)
}

func wantOffset(t *testing.T, g *ctorch.Generator, want int64) {
	t.Helper()
	if got, err := g.Offset(); err != nil || got != want {
		t.Errorf("offset %d (%v), want %d", got, err, want)
	}
}

func wantSeed(t *testing.T, seed func() (int64, error), want int64) {
	t.Helper()
	if got, err := seed(); err != nil || got != want {
		t.Errorf("initial seed %d (%v), want %d", got, err, want)
	}
}

// stateBytes is the 16-byte state layout: the seed then the offset, little-endian.
func stateBytes(seed uint64, offset int64) []byte {
	b := make([]byte, ctorch.RNGStateSize)
	binary.LittleEndian.PutUint64(b[:8], seed)
	binary.LittleEndian.PutUint64(b[8:], uint64(offset))
	return b
}

func f64s(t *testing.T, x *ctorch.Tensor) []float64 {
	t.Helper()
	v, err := x.Float64s()
	noErr(t, err)
	return v
}

// Every random entry point with a generator: each takes it (positional or WithGenerator, the
// offset moves by 4 per small op), the options reach C (shape, dtype, device), and nil means
// the default generator.
func TestRandomCallsTakeTheGenerator(t *testing.T) {
	s := newScope(t)
	g := newGen(t, ctorch.CPU)
	if g.Closed() || g.Handle() == 0 || g.Device() != ctorch.CPU {
		t.Fatalf("new generator: closed %v, handle %#x, device %v", g.Closed(), g.Handle(), g.Device())
	}
	wantSeed(t, g.InitialSeed, ctorch.DefaultSeed)
	noErr(t, g.ManualSeed(5))
	x := s.T(ctorch.Zeros([]int64{10}))
	ops := []func() error{
		func() error { return x.UniformInPlace(2, 3, g) },
		func() error { return x.NormalInPlace(0, 1, g) },
		func() error { return x.RandomInPlace(g) },
		func() error { return x.RandomRangeInPlace(0, 10, g) },
		func() error { return x.BernoulliInPlace(0.5, g) },
		func() error { eqShape(t, s.T(ctorch.Rand([]int64{3, 2}, g)), 3, 2); return nil },
		func() error { eqDType(t, s.T(ctorch.Randn([]int64{3}, ctorch.Float64, g)), ctorch.Float64); return nil },
		func() error {
			eqDType(t, s.T(ctorch.Randint(0, 3, []int64{3}, ctorch.WithGenerator(g))), ctorch.Int64)
			return nil
		},
		func() error { eqDType(t, s.T(ctorch.RandLike(x, ctorch.Float16, g)), ctorch.Float16); return nil },
		func() error { eqShape(t, s.T(ctorch.RandnLike(x, g)), 10); return nil },
	}
	for i, op := range ops {
		noErr(t, op())
		wantOffset(t, g, int64(4*(i+1)))
	}
	// the scalars reach C: uniform_(2, 3) and random_(0, 10) stay in their ranges
	noErr(t, x.UniformInPlace(2, 3, g))
	for _, v := range f64s(t, x) {
		if v < 2 || v >= 3 {
			t.Fatalf("uniform_(2, 3) gave %v", v)
		}
	}
	r := s.T(ctorch.Randint(-3, -1, []int64{50}, g))
	for _, v := range f64s(t, r) {
		if v != -3 && v != -2 {
			t.Fatalf("randint(-3, -1) gave %v", v)
		}
	}
	// nil is the default generator: the fill moves it, not g
	def, err := ctorch.DefaultGenerator(ctorch.CPU)
	noErr(t, err)
	closeLater(t, def)
	before, err := def.Offset()
	noErr(t, err)
	noErr(t, x.BernoulliInPlace(0.25, nil))
	wantOffset(t, def, before+4)
}

// Seeds and the state's bytes both ways; Ref and DefaultGenerator share one generator.
func TestGeneratorSeedsAndState(t *testing.T) {
	s := newScope(t)
	g := newGen(t, ctorch.CPU)
	noErr(t, g.ManualSeed(123))
	a := s.T(ctorch.Rand([]int64{6}, ctorch.Float64, g))
	state, err := g.GetState()
	noErr(t, err)
	if !reflect.DeepEqual(state, stateBytes(123, 4)) {
		t.Errorf("state % x, want seed 123, offset 4", state)
	}
	b := s.T(ctorch.Rand([]int64{6}, ctorch.Float64, g))
	h := newGen(t, ctorch.CPU)
	noErr(t, h.SetState(state))
	wantSeed(t, h.InitialSeed, 123)
	eqF64(t, s.T(ctorch.Rand([]int64{6}, ctorch.Float64, h)), f64s(t, b)...)
	noErr(t, h.SetState(stateBytes(123, 0))) // a state written by hand
	eqF64(t, s.T(ctorch.Rand([]int64{6}, ctorch.Float64, h)), f64s(t, a)...)

	got, err := g.Seed() // a new seed, returned and reported
	noErr(t, err)
	wantSeed(t, g.InitialSeed, got)
	wantOffset(t, g, 0)

	r, err := g.Ref()
	noErr(t, err)
	closeLater(t, r)
	noErr(t, r.ManualSeed(77))
	wantSeed(t, g.InitialSeed, 77)

	d1, err := ctorch.DefaultGenerator(ctorch.CPU)
	noErr(t, err)
	d2, err := ctorch.DefaultGenerator(ctorch.CPU)
	noErr(t, err)
	closeLater(t, d1, d2)
	noErr(t, ctorch.ManualSeed(99))
	wantSeed(t, d2.InitialSeed, 99)
	wantSeed(t, ctorch.InitialSeed, 99)
	got, err = ctorch.Seed()
	noErr(t, err)
	wantSeed(t, d1.InitialSeed, got)
	noErr(t, ctorch.ManualSeed(ctorch.DefaultSeed))
}

// Errors: bad arguments map to ErrArgument/ErrShape with the op's name and leave the generator
// alone; a closed or nil generator is ErrInvalidHandle everywhere, never a crash.
func TestRandomErrors(t *testing.T) {
	s := newScope(t)
	g := newGen(t, ctorch.CPU)
	x := s.T(ctorch.Zeros([]int64{4}))
	e := wantErr(t, x.UniformInPlace(2, 1, g), ctorch.ErrArgument)
	if e.Op != "uniform_" || e.Code != 100 {
		t.Errorf("got %v", e)
	}
	wantErr(t, x.BernoulliInPlace(1.5, g), ctorch.ErrArgument)
	wantErr(t, s.E(ctorch.Randint(6, 5, []int64{3}, g)), ctorch.ErrArgument)
	wantErr(t, s.E(ctorch.Rand([]int64{-1}, g)), ctorch.ErrShape)
	wantOffset(t, g, 0)
	good, err := g.GetState()
	noErr(t, err)
	for _, bad := range [][]byte{good[:15], append(append([]byte{}, good...), 0), nil, stateBytes(1, 2)} {
		if e := wantErr(t, g.SetState(bad), ctorch.ErrArgument); e.Op != "generator_set_state" {
			t.Errorf("SetState(% x): %v", bad, e)
		}
	}

	c, err := ctorch.NewGenerator(ctorch.CPU)
	noErr(t, err)
	noErr(t, c.Close())
	noErr(t, c.Close()) // idempotent
	if !c.Closed() || c.Handle() != 0 {
		t.Error("Closed()/Handle() of a closed generator")
	}
	var none *ctorch.Generator
	noErr(t, none.Close())
	check := func(err error) {
		t.Helper()
		wantErr(t, err, ctorch.ErrInvalidHandle)
	}
	for _, gg := range []*ctorch.Generator{c, none} {
		check(gg.ManualSeed(1))
		_, err = gg.Seed()
		check(err)
		_, err = gg.InitialSeed()
		check(err)
		_, err = gg.Offset()
		check(err)
		_, err = gg.GetState()
		check(err)
		check(gg.SetState(good))
		_, err = gg.DeviceErr()
		check(err)
		_, err = gg.Ref()
		check(err)
		if gg.Device() != (ctorch.Device{}) {
			t.Errorf("Device() of a closed generator is %v", gg.Device())
		}
	}
	check(x.NormalInPlace(0, 1, c))
	check(s.E(ctorch.Randn([]int64{2}, ctorch.WithGenerator(c))))
	dead := s.T(ctorch.Zeros([]int64{2}))
	noErr(t, dead.Close())
	check(dead.UniformInPlace(0, 1, g))
	check(s.E(ctorch.RandLike(dead)))
}

// Concurrent draws from one generator from several goroutines take distinct offsets.
func TestGeneratorConcurrentDraws(t *testing.T) {
	g := newGen(t, ctorch.CPU)
	const workers, draws = 8, 50
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < draws; i++ {
				x, err := ctorch.Rand([]int64{3}, g)
				if err == nil {
					err = x.Close()
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	wantOffset(t, g, 4*workers*draws)
}

// Close releases one reference (Ref holds its own); the finalizer releases generators dropped
// without Close, and LiveGeneratorCount sees both.
func TestGeneratorLifetimes(t *testing.T) {
	live := func(t *testing.T) int64 {
		n, err := ctorch.LiveGeneratorCount()
		noErr(t, err)
		return n
	}
	start := live(t)
	g, err := ctorch.NewGenerator(ctorch.CPU)
	noErr(t, err)
	r, err := g.Ref()
	noErr(t, err)
	if r.Handle() != g.Handle() || live(t) != start+1 {
		t.Errorf("Ref: handle %#x of %#x, %d live handles, want %d", r.Handle(), g.Handle(), live(t), start+1)
	}
	noErr(t, g.Close())
	wantOffset(t, r, 0) // r still holds it
	noErr(t, r.Close())
	if n := live(t); n != start {
		t.Errorf("%d live generators after closing both references, want %d", n, start)
	}
	kept := newGen(t, ctorch.CPU)
	for i := 0; i < 1000; i++ {
		_, err := ctorch.NewGenerator(ctorch.CPU)
		noErr(t, err)
	}
	collectUntil(t, "generators", live, start+1)
	wantOffset(t, kept, 0)
}

// Without a GPU: CUDA generators fail with ErrCUDAUnavailable, torch.cuda's seeding does
// nothing, its state calls fail, and the *_all calls see zero devices.
func TestRandomWithoutGPU(t *testing.T) {
	skipWithGPU(t)
	s := newScope(t)
	_, err := ctorch.NewGenerator(ctorch.CUDADevice(0))
	wantUnavailable(t, err)
	_, err = ctorch.DefaultGenerator(ctorch.CUDADevice(0))
	wantUnavailable(t, err)
	wantUnavailable(t, s.E(ctorch.Rand([]int64{3}, ctorch.CUDA)))
	wantUnavailable(t, s.E(ctorch.RandLike(s.T(ctorch.Zeros([]int64{3})), ctorch.CUDA)))
	noErr(t, cuda.ManualSeed(1))
	noErr(t, cuda.ManualSeedAll(1))
	noErr(t, cuda.Seed())
	noErr(t, cuda.SeedAll())
	_, err = cuda.InitialSeed()
	wantUnavailable(t, err)
	_, err = cuda.GetRngState(-1)
	wantUnavailable(t, err)
	wantUnavailable(t, cuda.SetRngState(stateBytes(1, 0), 0))
	_, err = cuda.GetRngState(1 << 40)
	wantErr(t, err, ctorch.ErrIndex)
	all, err := cuda.GetRngStateAll()
	if err != nil || len(all) != 0 {
		t.Errorf("GetRngStateAll() = %v, %v without a GPU", all, err)
	}
	noErr(t, cuda.SetRngStateAll(nil))
	wantErr(t, cuda.SetRngStateAll([][]byte{stateBytes(1, 0)}), ctorch.ErrArgument)
	// at the C level a generator handle that is a tensor's is refused
	x := s.T(ctorch.Zeros([]int64{2}))
	if st := capi.Ct_tensor_uniform_(x.Handle(), 0, 1, x.Handle()); st != capi.CT_ERR_INVALID_HANDLE {
		t.Errorf("ct_tensor_uniform_ with a tensor handle as the generator: %d, want 102", st)
	}
	capi.Ct_clear_error()
}

// torch.cuda's state calls marshal 16 bytes per device both ways.
func TestGPURngState(t *testing.T) {
	s := gpuTest(t, 1)
	dev := currentDevice(t)
	noErr(t, cuda.ManualSeed(7))
	wantSeed(t, cuda.InitialSeed, 7)
	state, err := cuda.GetRngState(dev)
	noErr(t, err)
	if !reflect.DeepEqual(state, stateBytes(7, 0)) {
		t.Errorf("state % x, want seed 7 offset 0", state)
	}
	a := s.T(ctorch.Rand([]int64{64}, ctorch.CUDA))
	noErr(t, cuda.SetRngState(state, -1))
	eqF64(t, s.T(s.T(ctorch.Rand([]int64{64}, ctorch.CUDA)).CPU()), f64s(t, s.T(a.CPU()))...)
	wantErr(t, cuda.SetRngState(state[:15], -1), ctorch.ErrArgument)
	cg, err := ctorch.DefaultGenerator(ctorch.CUDADevice(dev))
	noErr(t, err)
	closeLater(t, cg)
	if cg.Device() != ctorch.CUDADevice(dev) {
		t.Errorf("default CUDA generator on %v", cg.Device())
	}
	noErr(t, cuda.ManualSeedAll(99))
	all, err := cuda.GetRngStateAll()
	noErr(t, err)
	if len(all) != cuda.DeviceCount() || !reflect.DeepEqual(all[0], stateBytes(99, 0)) {
		t.Fatalf("states %v for %d devices", all, cuda.DeviceCount())
	}
	noErr(t, cuda.SetRngStateAll(all))
	noErr(t, cuda.SeedAll())
	noErr(t, cuda.Seed())
	noErr(t, ctorch.ManualSeed(ctorch.DefaultSeed))
}
