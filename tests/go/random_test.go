package ctorch_test

// Random numbers (capi/ctorch.h section 16): generators, seeds and states, the random
// factories and in-place fills, their errors, and torch.cuda's seed and state functions. The
// reference values of TestRandReferenceValues were computed independently of ctorch (cuRAND's
// Philox4x32-10 on the host); the other tests check what follows from the definitions (same
// seed, same values; ranges; the state's layout; offsets) and statistics with wide margins.
// The GPU tests at the end skip, with the reason, without a GPU.

import (
	"encoding/binary"
	"math"
	"reflect"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/cuda"
	"ctorch.dev/ctorch/internal/capi"
)

// torch.manual_seed(67280421310721); torch.rand(7), printed with %.9g.
var referenceRand7 = []string{"0.393125594", "0.511568964", "0.885066867", "0.440388322", "0.89984709",
	"0.121816903", "0.530436516"}

func referenceBits(t *testing.T) []uint32 {
	t.Helper()
	bits := make([]uint32, len(referenceRand7))
	for i, s := range referenceRand7 {
		v, err := strconv.ParseFloat(s, 32)
		noErr(t, err)
		bits[i] = math.Float32bits(float32(v))
	}
	return bits
}

// eqRandBits checks that x (float32) holds exactly the reference values.
func eqRandBits(t *testing.T, x *ctorch.Tensor) {
	t.Helper()
	got, err := x.Float32s()
	noErr(t, err)
	want := referenceBits(t)
	if len(got) != len(want) {
		t.Fatalf("%d values, want %d", len(got), len(want))
	}
	for i := range got {
		if math.Float32bits(got[i]) != want[i] {
			t.Fatalf("value %d is %.9g (bits %#08x), want %s (bits %#08x); all: %v", i, got[i],
				math.Float32bits(got[i]), referenceRand7[i], want[i], got)
		}
	}
}

// newGen makes a generator that is closed at the end of the test.
func newGen(t *testing.T, d ctorch.Device) *ctorch.Generator {
	t.Helper()
	g, err := ctorch.NewGenerator(d)
	noErr(t, err)
	closeLater(t, g)
	return g
}

func defaultGen(t *testing.T, d ctorch.Device) *ctorch.Generator {
	t.Helper()
	g, err := ctorch.DefaultGenerator(d)
	noErr(t, err)
	closeLater(t, g)
	return g
}

func offsetOf(t *testing.T, g *ctorch.Generator) int64 {
	t.Helper()
	o, err := g.Offset()
	noErr(t, err)
	return o
}

func wantOffset(t *testing.T, g *ctorch.Generator, want int64) {
	t.Helper()
	if got := offsetOf(t, g); got != want {
		t.Errorf("offset %d, want %d", got, want)
	}
}

// stateBytes is the 16-byte state layout: the seed then the offset, little-endian.
func stateBytes(seed uint64, offset int64) []byte {
	b := make([]byte, 16)
	binary.LittleEndian.PutUint64(b[:8], seed)
	binary.LittleEndian.PutUint64(b[8:], uint64(offset))
	return b
}

func f32s(t *testing.T, x *ctorch.Tensor) []float32 {
	t.Helper()
	v, err := x.Float32s()
	noErr(t, err)
	return v
}

func f64s(t *testing.T, x *ctorch.Tensor) []float64 {
	t.Helper()
	v, err := x.Float64s()
	noErr(t, err)
	return v
}

func i64s(t *testing.T, x *ctorch.Tensor) []int64 {
	t.Helper()
	v, err := x.Int64s()
	noErr(t, err)
	return v
}

// advance is the documented offset increment of one op (docs/random.md, Note [Random launch
// geometry], PyTorch's distribution_nullary_kernel): 4 * ceil(n / (256 * grid * unroll)) with
// grid = min(ceil(n / 256), SMs * threads per SM / 256), on the current CUDA device's figures,
// or without a GPU the reference H100/H200 figures (132 SMs x 2048 threads).
func advance(t *testing.T, n, unroll int64) int64 {
	t.Helper()
	sms, threads := int64(132), int64(2048)
	if cuda.IsAvailable() {
		noErr(t, cuda.WithDevice(-1, func() error { // on one thread: its current device
			dev, err := cuda.CurrentDevice()
			if err != nil {
				return err
			}
			if sms, err = cuda.DeviceProperty(dev, cuda.PropMultiProcessorCount); err != nil {
				return err
			}
			threads, err = cuda.DeviceProperty(dev, cuda.PropMaxThreadsPerMultiProcessor)
			return err
		}))
	}
	grid := (n + 255) / 256
	if max := sms * (threads / 256); grid > max {
		grid = max
	}
	return 4 * ((n-1)/(256*grid*unroll) + 1)
}

func meanStd(v []float64) (mean, std float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for _, x := range v {
		std += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(std / float64(len(v)))
}

// TestRandReferenceValues: torch.manual_seed(default seed); torch.rand(7) on the CPU gives
// cuRAND Philox's values bit for bit, and the default generator's offset moves by 4 per op.
func TestRandReferenceValues(t *testing.T) {
	s := newScope(t)
	noErr(t, ctorch.ManualSeed(ctorch.DefaultSeed))
	if ctorch.DefaultSeed != 67280421310721 || ctorch.RNGStateSize != 16 {
		t.Errorf("DefaultSeed %d, RNGStateSize %d", ctorch.DefaultSeed, ctorch.RNGStateSize)
	}
	seed, err := ctorch.InitialSeed()
	noErr(t, err)
	if seed != 67280421310721 {
		t.Errorf("InitialSeed() = %d after ManualSeed(67280421310721)", seed)
	}
	cpu := defaultGen(t, ctorch.CPU)
	wantOffset(t, cpu, 0)

	x := s.T(ctorch.Rand([]int64{7}))
	eqShape(t, x, 7)
	eqDType(t, x, ctorch.Float32)
	if x.Device() != ctorch.CPU {
		t.Errorf("device %v, want cpu", x.Device())
	}
	eqRandBits(t, x)
	wantOffset(t, cpu, 4)

	y := s.T(ctorch.Randn([]int64{1<<20 + 3}))
	eqShape(t, y, 1<<20+3)
	want := 4 + advance(t, 1<<20+3, 4)
	if !cuda.IsAvailable() && want != 8 {
		t.Fatalf("advance() = %d for 2^20+3 elements, want 4", want-4)
	}
	wantOffset(t, cpu, want)

	// a fresh generator starts at the default seed: the same values, and the default
	// generator does not move
	g := newGen(t, ctorch.CPU)
	eqRandBits(t, s.T(ctorch.Rand([]int64{7}, g)))
	wantOffset(t, g, 4)
	wantOffset(t, cpu, want)
	// the seed again: the same values once more (through WithGenerator)
	noErr(t, g.ManualSeed(ctorch.DefaultSeed))
	wantOffset(t, g, 0)
	eqRandBits(t, s.T(ctorch.Rand([]int64{7}, ctorch.WithGenerator(g))))
	// and through a Float32 tensor filled in place
	z := s.T(ctorch.Zeros([]int64{7}))
	noErr(t, g.ManualSeed(ctorch.DefaultSeed))
	noErr(t, z.UniformInPlace(0, 1, g))
	eqRandBits(t, z)
	// and as rand_like of a float32 tensor
	noErr(t, g.ManualSeed(ctorch.DefaultSeed))
	eqRandBits(t, s.T(ctorch.RandLike(z, g)))
}

func TestRandSameSeedSameValues(t *testing.T) {
	s := newScope(t)
	draw := func() (*ctorch.Tensor, *ctorch.Tensor, *ctorch.Tensor) {
		return s.T(ctorch.Rand([]int64{5, 3})), s.T(ctorch.Randn([]int64{4}, ctorch.Float64)),
			s.T(ctorch.Randint(-100, 100, []int64{6}))
	}
	noErr(t, ctorch.ManualSeed(42))
	a1, b1, c1 := draw()
	a2, b2, c2 := draw() // the sequence goes on: other values
	noErr(t, ctorch.ManualSeed(42))
	a3, b3, c3 := draw()
	if !reflect.DeepEqual(f32s(t, a1), f32s(t, a3)) || !reflect.DeepEqual(f64s(t, b1), f64s(t, b3)) ||
		!reflect.DeepEqual(i64s(t, c1), i64s(t, c3)) {
		t.Error("the same seed gave other values")
	}
	if reflect.DeepEqual(f32s(t, a1), f32s(t, a2)) || reflect.DeepEqual(f64s(t, b1), f64s(t, b2)) ||
		reflect.DeepEqual(i64s(t, c1), i64s(t, c2)) {
		t.Error("the second draws repeat the first")
	}
	seed, err := ctorch.InitialSeed()
	noErr(t, err)
	if seed != 42 {
		t.Errorf("InitialSeed() = %d, want 42", seed)
	}

	// torch.manual_seed(-1): the same 64 bits (initial_seed() is 2^64-1)
	noErr(t, ctorch.ManualSeed(-1))
	seed, err = ctorch.InitialSeed()
	noErr(t, err)
	if uint64(seed) != math.MaxUint64 {
		t.Errorf("InitialSeed() = %d after ManualSeed(-1)", uint64(seed))
	}
	state, err := defaultGen(t, ctorch.CPU).GetState()
	noErr(t, err)
	if !reflect.DeepEqual(state, stateBytes(math.MaxUint64, 0)) {
		t.Errorf("state % x after ManualSeed(-1)", state)
	}

	// torch.seed(): a new seed, reported by initial_seed, and the offset back at 0
	x := s.T(ctorch.Rand([]int64{3}))
	_ = x
	got, err := ctorch.Seed()
	noErr(t, err)
	seed, err = ctorch.InitialSeed()
	noErr(t, err)
	if seed != got {
		t.Errorf("Seed() returned %d, InitialSeed() is %d", got, seed)
	}
	wantOffset(t, defaultGen(t, ctorch.CPU), 0)
	noErr(t, ctorch.ManualSeed(ctorch.DefaultSeed))
}

func TestGeneratorBasics(t *testing.T) {
	s := newScope(t)
	g := newGen(t, ctorch.CPU)
	if g.Closed() || g.Handle() == 0 {
		t.Error("a new generator reports closed")
	}
	if d := g.Device(); d != ctorch.CPU {
		t.Errorf("Device() = %v, want cpu", d)
	}
	seed, err := g.InitialSeed()
	noErr(t, err)
	if seed != ctorch.DefaultSeed {
		t.Errorf("InitialSeed() = %d, want the default seed", seed)
	}
	wantOffset(t, g, 0)
	state, err := g.GetState()
	noErr(t, err)
	if !reflect.DeepEqual(state, stateBytes(uint64(ctorch.DefaultSeed), 0)) {
		t.Errorf("state % x, want the default seed and offset 0", state)
	}

	// offset: +4 per small op, whichever op
	noErr(t, g.ManualSeed(5))
	wantOffset(t, g, 0)
	x := s.T(ctorch.Zeros([]int64{10}))
	ops := []func() error{
		func() error { return x.UniformInPlace(0, 1, g) },
		func() error { return x.NormalInPlace(0, 1, g) },
		func() error { return x.RandomInPlace(g) },
		func() error { return x.RandomRangeInPlace(0, 10, g) },
		func() error { return x.BernoulliInPlace(0.5, g) },
		func() error { s.T(ctorch.Rand([]int64{3}, g)); return nil },
		func() error { s.T(ctorch.Randn([]int64{3}, g)); return nil },
		func() error { s.T(ctorch.Randint(0, 3, []int64{3}, g)); return nil },
		func() error { s.T(ctorch.RandLike(x, g)); return nil },
		func() error { s.T(ctorch.RandnLike(x, g)); return nil },
	}
	for i, op := range ops {
		noErr(t, op())
		wantOffset(t, g, int64(4*(i+1)))
	}
	state, err = g.GetState()
	noErr(t, err)
	if !reflect.DeepEqual(state, stateBytes(5, 40)) {
		t.Errorf("state % x, want seed 5 and offset 40", state)
	}

	// Seed(): a non-deterministic seed, returned and reported, offset 0
	got, err := g.Seed()
	noErr(t, err)
	seed, err = g.InitialSeed()
	noErr(t, err)
	if seed != got {
		t.Errorf("Seed() returned %d, InitialSeed() is %d", got, seed)
	}
	wantOffset(t, g, 0)

	// Ref: the same generator
	r, err := g.Ref()
	noErr(t, err)
	closeLater(t, r)
	noErr(t, r.ManualSeed(77))
	seed, err = g.InitialSeed()
	noErr(t, err)
	if seed != 77 {
		t.Errorf("seeding a Ref did not seed the generator (%d)", seed)
	}
	noErr(t, g.Close())
	wantOffset(t, r, 0) // r still holds it

	// DefaultGenerator returns references to one generator, the one ManualSeed seeds
	d1, d2 := defaultGen(t, ctorch.CPU), defaultGen(t, ctorch.CPU)
	noErr(t, d1.ManualSeed(99))
	seed, err = d2.InitialSeed()
	noErr(t, err)
	if seed != 99 {
		t.Errorf("the two default generators differ (%d)", seed)
	}
	seed, err = ctorch.InitialSeed()
	noErr(t, err)
	if seed != 99 {
		t.Errorf("torch.initial_seed() is %d after seeding the default generator with 99", seed)
	}
	noErr(t, ctorch.ManualSeed(3))
	seed, err = d1.InitialSeed()
	noErr(t, err)
	if seed != 3 {
		t.Errorf("ManualSeed(3) left the default generator at %d", seed)
	}
	noErr(t, ctorch.ManualSeed(ctorch.DefaultSeed))
}

// Large ops advance the offset by the launch geometry's number of draws per thread.
func TestGeneratorOffsetFollowsLaunchGeometry(t *testing.T) {
	s := newScope(t)
	g := newGen(t, ctorch.CPU)
	type op struct {
		name   string
		unroll int64 // values per Philox call: 4 for float draws and 32-bit integers, else 2
		run    func(n int64) *ctorch.Tensor
	}
	ops := []op{
		{"rand float32", 4, func(n int64) *ctorch.Tensor { return s.T(ctorch.Rand([]int64{n}, g)) }},
		{"rand float16", 4, func(n int64) *ctorch.Tensor { return s.T(ctorch.Rand([]int64{n}, ctorch.Float16, g)) }},
		{"rand float64", 2, func(n int64) *ctorch.Tensor { return s.T(ctorch.Rand([]int64{n}, ctorch.Float64, g)) }},
		{"randn float32", 4, func(n int64) *ctorch.Tensor { return s.T(ctorch.Randn([]int64{n}, g)) }},
		{"randn float64", 2, func(n int64) *ctorch.Tensor { return s.T(ctorch.Randn([]int64{n}, ctorch.Float64, g)) }},
		{"randint(0, 10)", 4, func(n int64) *ctorch.Tensor { return s.T(ctorch.Randint(0, 10, []int64{n}, g)) }},
		{"randint(-2^62, 2^62)", 2, func(n int64) *ctorch.Tensor {
			return s.T(ctorch.Randint(-1<<62, 1<<62, []int64{n}, g))
		}},
	}
	// with the reference geometry: one draw per thread up to 1081344 elements (x unroll / 4)
	for _, n := range []int64{1, 7, 257, 540672, 540673, 1081344, 1081345, 1<<20 + 3, 1 << 22} {
		for _, o := range ops {
			before := offsetOf(t, g)
			x := o.run(n)
			if x.Numel() != n {
				t.Fatalf("%s: %d elements, want %d", o.name, x.Numel(), n)
			}
			if got, want := offsetOf(t, g)-before, advance(t, n, o.unroll); got != want {
				t.Errorf("%s of %d elements: the offset moved by %d, want %d", o.name, n, got, want)
			}
			noErr(t, x.Close())
		}
	}
	if !cuda.IsAvailable() {
		// the figures by hand: 4 * ceil(n / (270336 * unroll))
		for _, c := range [][3]int64{{1 << 22, 4, 16}, {1 << 22, 2, 32}, {1081345, 4, 8}, {540673, 2, 8}, {540672, 2, 4}} {
			if got := advance(t, c[0], c[1]); got != c[2] {
				t.Errorf("advance(%d, %d) = %d, want %d", c[0], c[1], got, c[2])
			}
		}
	}
}

func TestGeneratorStateRoundTrip(t *testing.T) {
	s := newScope(t)
	g := newGen(t, ctorch.CPU)
	noErr(t, g.ManualSeed(123))
	a := s.T(ctorch.Rand([]int64{6}, g))
	state, err := g.GetState()
	noErr(t, err)
	if !reflect.DeepEqual(state, stateBytes(123, 4)) {
		t.Errorf("state % x, want seed 123, offset 4", state)
	}
	b := s.T(ctorch.Randn([]int64{6}, ctorch.Float64, g))
	c := s.T(ctorch.Randint(0, 1000, []int64{6}, g))
	noErr(t, g.SetState(state))
	wantOffset(t, g, 4)
	eqF64(t, s.T(ctorch.Randn([]int64{6}, ctorch.Float64, g)), f64s(t, b)...)
	eqI64(t, s.T(ctorch.Randint(0, 1000, []int64{6}, g)), i64s(t, c)...)
	if reflect.DeepEqual(f64s(t, a), f64s(t, b)[:6]) {
		t.Error("successive draws agree")
	}

	// the state moves to another generator, and to the default one
	h := newGen(t, ctorch.CPU)
	noErr(t, h.SetState(state))
	seed, err := h.InitialSeed()
	noErr(t, err)
	if seed != 123 {
		t.Errorf("InitialSeed() = %d after SetState", seed)
	}
	eqF64(t, s.T(ctorch.Randn([]int64{6}, ctorch.Float64, h)), f64s(t, b)...)
	def := defaultGen(t, ctorch.CPU)
	saved, err := def.GetState()
	noErr(t, err)
	noErr(t, def.SetState(state))
	eqF64(t, s.T(ctorch.Randn([]int64{6}, ctorch.Float64)), f64s(t, b)...)
	noErr(t, def.SetState(saved))
	got, err := def.GetState()
	noErr(t, err)
	if !reflect.DeepEqual(got, saved) {
		t.Errorf("default state % x, want % x", got, saved)
	}

	// a state written by hand
	noErr(t, h.SetState(stateBytes(123, 0)))
	eqF64(t, s.T(ctorch.Rand([]int64{6}, ctorch.Float32, h)), f64s(t, s.T(a.To(ctorch.Float64)))...)
}

// Two generators with one seed agree, whatever the default generator does in between.
func TestGeneratorsAreIndependent(t *testing.T) {
	s := newScope(t)
	g1, g2 := newGen(t, ctorch.CPU), newGen(t, ctorch.CPU)
	noErr(t, g1.ManualSeed(2024))
	noErr(t, g2.ManualSeed(2024))
	noErr(t, ctorch.ManualSeed(2024))
	def := defaultGen(t, ctorch.CPU)

	a := s.T(ctorch.Rand([]int64{8}, g1))
	s.T(ctorch.Rand([]int64{100})) // default generator
	s.T(ctorch.Randn([]int64{100}))
	b := s.T(ctorch.Rand([]int64{8}, g2))
	eqF64(t, b, f64s(t, a)...)
	wantOffset(t, g1, 4)
	wantOffset(t, g2, 4)
	wantOffset(t, def, 8)
	// the default generator with the same seed gave the same first values too
	noErr(t, ctorch.ManualSeed(2024))
	eqF64(t, s.T(ctorch.Rand([]int64{8})), f64s(t, a)...)

	// drawing from g1 does not move g2
	x := s.T(ctorch.Empty([]int64{8}))
	noErr(t, x.UniformInPlace(0, 1, g1))
	wantOffset(t, g1, 8)
	wantOffset(t, g2, 4)
	noErr(t, x.UniformInPlace(0, 1, g2))
	y := s.T(ctorch.Empty([]int64{8}))
	noErr(t, g1.ManualSeed(2024))
	noErr(t, y.UniformInPlace(0, 1, g1)) // offset 0 again: a's values
	eqF64(t, y, f64s(t, a)...)
}

// Generators are thread-safe: concurrent draws take distinct offsets, so they give exactly the
// values that the same number of draws in a row gives.
func TestGeneratorConcurrentDraws(t *testing.T) {
	s := newScope(t)
	const workers, each = 8, 40
	g := newGen(t, ctorch.CPU)
	noErr(t, g.ManualSeed(11))
	var mu sync.Mutex
	got := map[[3]float32]int{}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				x, err := ctorch.Rand([]int64{3}, g)
				if err != nil {
					errs <- err
					return
				}
				v, err := x.Float32s()
				x.Close()
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				got[[3]float32{v[0], v[1], v[2]}]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	wantOffset(t, g, 4*workers*each)

	noErr(t, g.ManualSeed(11))
	want := map[[3]float32]int{}
	for i := 0; i < workers*each; i++ {
		v := f32s(t, s.T(ctorch.Rand([]int64{3}, g)))
		want[[3]float32{v[0], v[1], v[2]}]++
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("concurrent draws (%d distinct) differ from the same draws in a row (%d distinct)", len(got), len(want))
	}
}

func TestRandomRanges(t *testing.T) {
	s := newScope(t)
	noErr(t, ctorch.ManualSeed(7))
	const n = 20000

	// uniform_(from, to): [from, to), spread over the range
	for _, dt := range []ctorch.DType{ctorch.Float32, ctorch.Float64} {
		x := s.T(ctorch.Empty([]int64{n}, dt))
		noErr(t, x.UniformInPlace(-2, 3, nil))
		v := f64s(t, x)
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, e := range v {
			if !(e >= -2 && e < 3) {
				t.Fatalf("%v: uniform_(-2, 3) gave %v", dt, e)
			}
			lo, hi = math.Min(lo, e), math.Max(hi, e)
		}
		if lo > -1.99 || hi < 2.99 {
			t.Errorf("%v: uniform_(-2, 3) spans [%v, %v] in %d draws", dt, lo, hi, n)
		}
		if m, _ := meanStd(v); math.Abs(m-0.5) > 0.05 {
			t.Errorf("%v: uniform_(-2, 3) has mean %v", dt, m)
		}
	}
	x := s.T(ctorch.Empty([]int64{5}))
	noErr(t, x.UniformInPlace(1.5, 1.5, nil)) // from == to: every value is from
	eqF64(t, x, 1.5, 1.5, 1.5, 1.5, 1.5)

	// rand: [0, 1), mean 1/2, variance 1/12
	r := f64s(t, s.T(ctorch.Rand([]int64{n}, ctorch.Float64)))
	for _, e := range r {
		if !(e >= 0 && e < 1) {
			t.Fatalf("rand gave %v", e)
		}
	}
	if m, sd := meanStd(r); math.Abs(m-0.5) > 0.01 || math.Abs(sd-math.Sqrt(1.0/12)) > 0.01 {
		t.Errorf("rand: mean %v, std %v", m, sd)
	}

	// normal: randn and normal_(mean, std)
	if m, sd := meanStd(f64s(t, s.T(ctorch.Randn([]int64{n})))); math.Abs(m) > 0.03 || math.Abs(sd-1) > 0.03 {
		t.Errorf("randn: mean %v, std %v", m, sd)
	}
	y := s.T(ctorch.Empty([]int64{n}, ctorch.Float64))
	noErr(t, y.NormalInPlace(10, 2, nil))
	if m, sd := meanStd(f64s(t, y)); math.Abs(m-10) > 0.06 || math.Abs(sd-2) > 0.06 {
		t.Errorf("normal_(10, 2): mean %v, std %v", m, sd)
	}
	noErr(t, x.NormalInPlace(5, 0, nil)) // std 0: the mean
	eqF64(t, x, 5, 5, 5, 5, 5)

	// randint(low, high): [low, high), every value, default dtype int64
	ri := s.T(ctorch.Randint(-5, 5, []int64{n}))
	eqDType(t, ri, ctorch.Int64)
	seen := map[int64]bool{}
	for _, e := range i64s(t, ri) {
		if e < -5 || e >= 5 {
			t.Fatalf("randint(-5, 5) gave %d", e)
		}
		seen[e] = true
	}
	if len(seen) != 10 {
		t.Errorf("randint(-5, 5) gave %d distinct values in %d draws", len(seen), n)
	}
	for _, dt := range []ctorch.DType{ctorch.Int16, ctorch.Uint8, ctorch.Int32, ctorch.Float32, ctorch.Float64} {
		ri := s.T(ctorch.Randint(3, 7, []int64{1000}, dt))
		eqDType(t, ri, dt)
		seen := map[int64]bool{}
		for _, e := range f64s(t, ri) {
			if e != math.Trunc(e) || e < 3 || e >= 7 {
				t.Fatalf("%v: randint(3, 7) gave %v", dt, e)
			}
			seen[int64(e)] = true
		}
		if len(seen) != 4 {
			t.Errorf("%v: randint(3, 7) gave %v", dt, seen)
		}
	}
	big := s.T(ctorch.Randint(-1<<62, 1<<62, []int64{1000}))
	for _, e := range i64s(t, big) {
		if e < -1<<62 || e >= 1<<62 {
			t.Fatalf("randint(-2^62, 2^62) gave %d", e)
		}
	}

	// random_(from, to) in place
	z := s.T(ctorch.Empty([]int64{1000}, ctorch.Int32))
	noErr(t, z.RandomRangeInPlace(-3, 2, nil))
	seen = map[int64]bool{}
	for _, e := range i64s(t, z) {
		if e < -3 || e >= 2 {
			t.Fatalf("random_(-3, 2) gave %d", e)
		}
		seen[e] = true
	}
	if len(seen) != 5 {
		t.Errorf("random_(-3, 2) gave %v", seen)
	}

	// random_(): the dtype's range
	u8 := s.T(ctorch.Empty([]int64{n}, ctorch.Uint8))
	noErr(t, u8.RandomInPlace(nil))
	bytes, err := u8.Uint8s()
	noErr(t, err)
	seen = map[int64]bool{}
	for _, e := range bytes {
		seen[int64(e)] = true
	}
	if len(seen) != 256 {
		t.Errorf("random_() on uint8 gave %d distinct values in %d draws", len(seen), n)
	}
	b := s.T(ctorch.Empty([]int64{100}, ctorch.Bool))
	noErr(t, b.RandomInPlace(nil))
	bools, err := b.Bools()
	noErr(t, err)
	count := 0
	for _, e := range bools {
		if e {
			count++
		}
	}
	if count == 0 || count == 100 {
		t.Errorf("random_() on bool gave %d trues of 100", count)
	}
	i8 := s.T(ctorch.Empty([]int64{1000}, ctorch.Int8))
	noErr(t, i8.RandomInPlace(nil))
	for _, e := range i64s(t, i8) {
		if e < 0 { // [0, 127]
			t.Fatalf("random_() on int8 gave %d", e)
		}
	}
	f := s.T(ctorch.Empty([]int64{1000}, ctorch.Float32))
	noErr(t, f.RandomInPlace(nil))
	for _, e := range f64s(t, f) {
		if e != math.Trunc(e) || e < 0 || e > 1<<24 {
			t.Fatalf("random_() on float32 gave %v", e)
		}
	}

	// bernoulli_(p)
	for _, dt := range []ctorch.DType{ctorch.Float32, ctorch.Float64, ctorch.Int64, ctorch.Uint8, ctorch.Bool, ctorch.Float16} {
		w := s.T(ctorch.Full([]int64{500}, 7, dt))
		noErr(t, w.BernoulliInPlace(0, nil))
		for _, e := range f64s(t, w) {
			if e != 0 {
				t.Fatalf("%v: bernoulli_(0) gave %v", dt, e)
			}
		}
		noErr(t, w.BernoulliInPlace(1, nil))
		for _, e := range f64s(t, w) {
			if e != 1 {
				t.Fatalf("%v: bernoulli_(1) gave %v", dt, e)
			}
		}
	}
	w := s.T(ctorch.Empty([]int64{n}))
	noErr(t, w.BernoulliInPlace(0.25, nil))
	v := f64s(t, w)
	for _, e := range v {
		if e != 0 && e != 1 {
			t.Fatalf("bernoulli_(0.25) gave %v", e)
		}
	}
	if m, _ := meanStd(v); math.Abs(m-0.25) > 0.02 {
		t.Errorf("bernoulli_(0.25) has mean %v", m)
	}
	noErr(t, ctorch.ManualSeed(ctorch.DefaultSeed))
}

// float16, bfloat16 and float64 variants of the factories, and the *_like forms.
func TestRandDTypes(t *testing.T) {
	s := newScope(t)
	noErr(t, ctorch.ManualSeed(9))
	for _, dt := range []ctorch.DType{ctorch.Float16, ctorch.BFloat16, ctorch.Float64, ctorch.Float32} {
		x := s.T(ctorch.Rand([]int64{2, 500}, dt))
		eqDType(t, x, dt)
		eqShape(t, x, 2, 500)
		v := f64s(t, x)
		distinct := map[float64]bool{}
		for _, e := range v {
			if !(e >= 0 && e < 1) {
				t.Fatalf("%v: rand gave %v", dt, e)
			}
			distinct[e] = true
		}
		if len(distinct) < 100 {
			t.Errorf("%v: rand gave %d distinct values of 1000", dt, len(distinct))
		}
		y := s.T(ctorch.Randn([]int64{4000}, dt))
		eqDType(t, y, dt)
		if m, sd := meanStd(f64s(t, y)); math.Abs(m) > 0.1 || math.Abs(sd-1) > 0.1 {
			t.Errorf("%v: randn mean %v, std %v", dt, m, sd)
		}
		z := s.T(ctorch.Empty([]int64{1000}, dt))
		noErr(t, z.UniformInPlace(-1, 1, nil))
		for _, e := range f64s(t, z) {
			if !(e >= -1 && e < 1) {
				t.Fatalf("%v: uniform_(-1, 1) gave %v", dt, e)
			}
		}
		noErr(t, z.NormalInPlace(0, 1, nil))

		// rand_like keeps shape and dtype; a DType option changes the dtype
		l := s.T(ctorch.RandLike(x))
		eqDType(t, l, dt)
		eqShape(t, l, 2, 500)
		l = s.T(ctorch.RandnLike(x, ctorch.Float64))
		eqDType(t, l, ctorch.Float64)
		eqShape(t, l, 2, 500)
	}

	// *_like with a generator gives the factory's values
	g := newGen(t, ctorch.CPU)
	base := s.T(ctorch.Zeros([]int64{3, 4}, ctorch.Float64))
	noErr(t, g.ManualSeed(31))
	a := s.T(ctorch.RandnLike(base, g))
	noErr(t, g.ManualSeed(31))
	b := s.T(ctorch.Randn([]int64{3, 4}, ctorch.Float64, g))
	eqF64(t, a, f64s(t, b)...)
	// ... also with a Device option (drawn on that device, here the CPU)
	noErr(t, g.ManualSeed(31))
	c := s.T(ctorch.RandnLike(base, ctorch.CPU, g))
	eqShape(t, c, 3, 4)
	eqDType(t, c, ctorch.Float64)
	eqF64(t, c, f64s(t, b)...)
	// a nil *Generator as an option is the default generator
	noErr(t, ctorch.ManualSeed(ctorch.DefaultSeed))
	var none *ctorch.Generator
	eqRandBits(t, s.T(ctorch.Rand([]int64{7}, none)))

	// integer dtypes have no rand/randn
	_, err := ctorch.Rand([]int64{3}, ctorch.Int64)
	wantErr(t, err, ctorch.ErrDType)
	_, err = ctorch.Randn([]int64{3}, ctorch.Int32)
	wantErr(t, err, ctorch.ErrDType)
	ints := s.T(ctorch.Zeros([]int64{3}, ctorch.Int64))
	_, err = ctorch.RandLike(ints)
	wantErr(t, err, ctorch.ErrDType)
	wantErr(t, ints.UniformInPlace(0, 1, nil), ctorch.ErrDType)
	wantErr(t, ints.NormalInPlace(0, 1, nil), ctorch.ErrDType)
	l := s.T(ctorch.RandLike(ints, ctorch.Float32)) // a float dtype asked for
	eqDType(t, l, ctorch.Float32)
	cplx := s.T(ctorch.Zeros([]int64{3}, ctorch.Complex64))
	wantErr(t, cplx.RandomInPlace(nil), ctorch.ErrDType)
	wantErr(t, cplx.BernoulliInPlace(0.5, nil), ctorch.ErrDType)
	noErr(t, ctorch.ManualSeed(ctorch.DefaultSeed))
}

func TestRandomErrors(t *testing.T) {
	s := newScope(t)
	g := newGen(t, ctorch.CPU)
	noErr(t, g.ManualSeed(1))
	x := s.T(ctorch.Zeros([]int64{4}))
	before := f32s(t, x)

	e := wantErr(t, x.UniformInPlace(2, 1, g), ctorch.ErrArgument)
	if e.Op != "uniform_" || e.Code != 100 {
		t.Errorf("got %v", e)
	}
	wantErr(t, x.NormalInPlace(0, -1, g), ctorch.ErrArgument)
	wantErr(t, x.BernoulliInPlace(1.5, g), ctorch.ErrArgument)
	wantErr(t, x.BernoulliInPlace(-0.1, g), ctorch.ErrArgument)
	wantErr(t, x.BernoulliInPlace(math.NaN(), g), ctorch.ErrArgument)
	wantErr(t, x.RandomRangeInPlace(5, 5, g), ctorch.ErrArgument)
	u8 := s.T(ctorch.Zeros([]int64{4}, ctorch.Uint8))
	wantErr(t, u8.RandomRangeInPlace(0, 300, g), ctorch.ErrArgument) // 299 does not fit uint8
	wantErr(t, u8.RandomRangeInPlace(-1, 3, g), ctorch.ErrArgument)
	_, err := ctorch.Randint(5, 5, []int64{3}, g)
	wantErr(t, err, ctorch.ErrArgument)
	_, err = ctorch.Randint(6, 5, []int64{3})
	wantErr(t, err, ctorch.ErrArgument)
	_, err = ctorch.Randint(0, 1000, []int64{3}, ctorch.Uint8, g)
	wantErr(t, err, ctorch.ErrArgument)
	_, err = ctorch.Rand([]int64{-1}, g)
	wantErr(t, err, ctorch.ErrShape)
	// nothing was drawn, nothing changed
	wantOffset(t, g, 0)
	eqF64(t, x, float64(before[0]), float64(before[1]), float64(before[2]), float64(before[3]))

	// set_state: 16 bytes with a valid offset, or nothing changes
	noErr(t, g.ManualSeed(8))
	s.T(ctorch.Rand([]int64{2}, g))
	good, err := g.GetState()
	noErr(t, err)
	for _, bad := range [][]byte{good[:15], append(append([]byte{}, good...), 0), nil, {}, stateBytes(1, 2), stateBytes(1, -4)} {
		e := wantErr(t, g.SetState(bad), ctorch.ErrArgument)
		if e.Code != 100 || e.Op != "generator_set_state" {
			t.Errorf("SetState(% x): %v", bad, e)
		}
	}
	got, err := g.GetState()
	noErr(t, err)
	if !reflect.DeepEqual(got, good) {
		t.Errorf("state % x after failed SetState calls, want % x", got, good)
	}

	// a closed or nil generator: ErrInvalidHandle (102) everywhere, never a crash
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
		if e := wantErr(t, err, ctorch.ErrInvalidHandle); e.Code != 102 {
			t.Errorf("code %d", e.Code)
		}
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
		if gg.Device() != (ctorch.Device{}) {
			t.Errorf("Device() of a closed generator is %v", gg.Device())
		}
		_, err = gg.Ref()
		check(err)
	}
	// (a nil *Generator given to an op is the default generator: TestRandDTypes)
	check(x.UniformInPlace(0, 1, c))
	check(x.NormalInPlace(0, 1, c))
	check(x.RandomInPlace(c))
	check(x.RandomRangeInPlace(0, 2, c))
	check(x.BernoulliInPlace(0.5, c))
	check(s.E(ctorch.Rand([]int64{2}, c)))
	check(s.E(ctorch.Randn([]int64{2}, ctorch.WithGenerator(c))))
	check(s.E(ctorch.Randint(0, 2, []int64{2}, c)))
	check(s.E(ctorch.RandLike(x, c)))
	check(s.E(ctorch.RandnLike(x, ctorch.CPU, c)))
	// a closed tensor
	dead := s.T(ctorch.Zeros([]int64{2}))
	noErr(t, dead.Close())
	wantErr(t, dead.UniformInPlace(0, 1, g), ctorch.ErrInvalidHandle)
	wantErr(t, dead.BernoulliInPlace(0.5, nil), ctorch.ErrInvalidHandle)
	_, err = ctorch.RandLike(dead)
	wantErr(t, err, ctorch.ErrInvalidHandle)
	_, err = ctorch.RandnLike(dead, ctorch.CPU)
	wantErr(t, err, ctorch.ErrInvalidHandle)

	// at the C level: a NULL generator is the default one, a released or foreign handle is 102
	h := []int64{0}
	if st := capi.Ct_generator_create(capi.CT_CPU, -1, h); st != 0 {
		t.Fatalf("ct_generator_create: %d", st)
	}
	out := []int64{0}
	if st := capi.Ct_generator_offset(h[0], out); st != 0 || out[0] != 0 {
		t.Errorf("ct_generator_offset: %d, %d", st, out[0])
	}
	if st := capi.Ct_generator_release(h[0]); st != 0 {
		t.Errorf("ct_generator_release: %d", st)
	}
	if st := capi.Ct_generator_offset(h[0], out); st != capi.CT_ERR_INVALID_HANDLE {
		t.Errorf("ct_generator_offset of a released handle: %d, want 102", st)
	}
	if st := capi.Ct_generator_release(h[0]); st != capi.CT_ERR_INVALID_HANDLE {
		t.Errorf("second ct_generator_release: %d, want 102", st)
	}
	if st := capi.Ct_generator_offset(0, out); st != capi.CT_ERR_INVALID_HANDLE {
		t.Errorf("ct_generator_offset(NULL): %d, want 102", st)
	}
	if st := capi.Ct_generator_offset(x.Handle(), out); st != capi.CT_ERR_INVALID_HANDLE {
		t.Errorf("ct_generator_offset of a tensor handle: %d, want 102", st)
	}
	if st := capi.Ct_tensor_uniform_(x.Handle(), 0, 1, x.Handle()); st != capi.CT_ERR_INVALID_HANDLE {
		t.Errorf("ct_tensor_uniform_ with a tensor handle as the generator: %d, want 102", st)
	}
	runtime.KeepAlive(x)
	capi.Ct_clear_error()
}

// There is no live-generator count in the C API; a released handle is detected instead: the
// library answers 102 for it (handles are generation-checked).
func generatorHandleLive(h int64) bool {
	out := []int64{0}
	var st int
	capi.Call(func() int { st = capi.Ct_generator_offset(h, out); return st })
	return st == 0
}

func TestGeneratorLifetimes(t *testing.T) {
	// Close releases the handle; Ref holds its own reference
	g, err := ctorch.NewGenerator(ctorch.CPU)
	noErr(t, err)
	h := g.Handle()
	r, err := g.Ref()
	noErr(t, err)
	if r.Handle() != h {
		t.Errorf("Ref has handle %#x, want %#x", r.Handle(), h)
	}
	noErr(t, g.Close())
	if !generatorHandleLive(h) {
		t.Fatal("the handle died with the first of two references")
	}
	noErr(t, r.Close())
	if generatorHandleLive(h) {
		t.Fatal("the handle is still live after closing both references")
	}
	d, err := ctorch.DefaultGenerator(ctorch.CPU)
	noErr(t, err)
	dh := d.Handle()
	noErr(t, d.Close())
	if generatorHandleLive(dh) {
		t.Error("a closed default-generator handle is still live")
	}
	d = defaultGen(t, ctorch.CPU) // the default generator itself lives on
	_, err = d.Offset()
	noErr(t, err)

	// the finalizer releases generators dropped without Close
	kept := newGen(t, ctorch.CPU)
	const n = 2000
	hs := make([]int64, 0, n)
	for i := 0; i < n; i++ {
		g, err := ctorch.NewGenerator(ctorch.CPU)
		noErr(t, err)
		hs = append(hs, g.Handle())
	}
	deadline := time.Now().Add(10 * time.Second)
	live := n
	for live > 0 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
		live = 0
		for _, h := range hs {
			if generatorHandleLive(h) {
				live++
			}
		}
	}
	if live != 0 {
		t.Errorf("%d of %d dropped generators still live after collections", live, n)
	}
	if !generatorHandleLive(kept.Handle()) {
		t.Error("a generator still in use was released")
	}
}

// Without a GPU: CUDA generators cannot be made, torch.cuda's seeding calls do nothing (as in
// PyTorch), and the state calls fail with 301.
func TestRandomWithoutGPU(t *testing.T) {
	if cuda.IsAvailable() {
		t.Skip("CUDA is available (TestGPURandom* cover it)")
	}
	s := newScope(t)
	_, err := ctorch.NewGenerator(ctorch.CUDA)
	wantUnavailable(t, err)
	_, err = ctorch.NewGenerator(ctorch.CUDADevice(0))
	wantUnavailable(t, err)
	_, err = ctorch.DefaultGenerator(ctorch.CUDADevice(0))
	wantUnavailable(t, err)
	_, err = ctorch.Rand([]int64{3}, ctorch.CUDA)
	wantUnavailable(t, err)
	_, err = ctorch.Randint(0, 3, []int64{3}, ctorch.CUDA)
	wantUnavailable(t, err)
	x := s.T(ctorch.Zeros([]int64{3}))
	_, err = ctorch.RandLike(x, ctorch.CUDA)
	wantUnavailable(t, err)

	// seeding is silently ignored, as torch.cuda.manual_seed without CUDA
	noErr(t, cuda.ManualSeed(1))
	noErr(t, cuda.ManualSeedAll(1))
	noErr(t, cuda.Seed())
	noErr(t, cuda.SeedAll())
	// ... and leaves the CPU generator alone
	noErr(t, ctorch.ManualSeed(ctorch.DefaultSeed))
	noErr(t, cuda.ManualSeedAll(5))
	eqRandBits(t, s.T(ctorch.Rand([]int64{7})))
	// torch.manual_seed itself works without a GPU (it seeds the CPU and no CUDA device)
	noErr(t, ctorch.ManualSeed(12))

	_, err = cuda.InitialSeed()
	wantUnavailable(t, err)
	_, err = cuda.GetRngState(0)
	wantUnavailable(t, err)
	_, err = cuda.GetRngState(-1)
	wantUnavailable(t, err)
	wantUnavailable(t, cuda.SetRngState(stateBytes(1, 0), 0))
	wantUnavailable(t, cuda.SetRngState(stateBytes(1, 0)[:15], -1))
	_, err = cuda.GetRngState(1 << 40)
	wantErr(t, err, ctorch.ErrIndex)

	// *_all over zero devices: no states
	all, err := cuda.GetRngStateAll()
	noErr(t, err)
	if len(all) != 0 {
		t.Errorf("GetRngStateAll() = %v without a GPU", all)
	}
	noErr(t, cuda.SetRngStateAll(nil))
	wantErr(t, cuda.SetRngStateAll([][]byte{stateBytes(1, 0)}), ctorch.ErrArgument) // one device too many
	wantErr(t, cuda.SetRngStateAll([][]byte{stateBytes(1, 0)[:15]}), ctorch.ErrArgument)
	noErr(t, ctorch.ManualSeed(ctorch.DefaultSeed))
}

// ---- on a GPU ------------------------------------------------------------------------------

// torch.rand on CUDA with the default seed gives the CPU's reference values bit for bit, and
// the CPU and CUDA generators agree on uniform and integer draws from any seed.
func TestGPURandMatchesCPU(t *testing.T) {
	needGPUs(t, 1)
	s := newScope(t)
	lockThread(t)
	noErr(t, ctorch.ManualSeed(ctorch.DefaultSeed))
	dev := currentDevice(t)
	cg := defaultGen(t, ctorch.CUDADevice(dev))
	if cg.Device() != ctorch.CUDADevice(dev) {
		t.Errorf("default generator on %v, want cuda:%d", cg.Device(), dev)
	}
	wantOffset(t, cg, 0)
	x := s.T(ctorch.Rand([]int64{7}, ctorch.CUDA))
	if x.Device() != ctorch.CUDADevice(dev) {
		t.Errorf("rand on %v", x.Device())
	}
	eqRandBits(t, s.T(x.CPU()))
	wantOffset(t, cg, 4)
	seed, err := cuda.InitialSeed()
	noErr(t, err)
	if seed != ctorch.DefaultSeed {
		t.Errorf("cuda.InitialSeed() = %d after torch.manual_seed", seed)
	}

	// generators of both devices, one seed: the same uniform and integer values, normal values
	// within a few ulp
	gc, gg := newGen(t, ctorch.CPU), newGen(t, ctorch.CUDA)
	if gg.Device() != ctorch.CUDADevice(dev) {
		t.Errorf("NewGenerator(CUDA) on %v, want cuda:%d", gg.Device(), dev)
	}
	for _, g := range []*ctorch.Generator{gc, gg} {
		noErr(t, g.ManualSeed(4321))
	}
	const n = 100003
	eqF64(t, s.T(s.T(ctorch.Rand([]int64{n}, ctorch.CUDA, gg)).CPU()), f64s(t, s.T(ctorch.Rand([]int64{n}, gc)))...)
	eqI64(t, s.T(s.T(ctorch.Randint(-50, 50, []int64{n}, ctorch.CUDA, gg)).CPU()),
		i64s(t, s.T(ctorch.Randint(-50, 50, []int64{n}, gc)))...)
	nearF64(t, s.T(s.T(ctorch.Randn([]int64{1000}, ctorch.Float64, ctorch.CUDA, gg)).CPU()), 1e-9,
		f64s(t, s.T(ctorch.Randn([]int64{1000}, ctorch.Float64, gc)))...)
	if a, b := offsetOf(t, gc), offsetOf(t, gg); a != b {
		t.Errorf("offsets: cpu %d, cuda %d", a, b)
	}
	y := s.T(ctorch.Empty([]int64{1000}, ctorch.CUDA))
	noErr(t, y.UniformInPlace(-3, 3, gg))
	for _, e := range f64s(t, s.T(y.CPU())) {
		if !(e >= -3 && e < 3) {
			t.Fatalf("uniform_(-3, 3) on CUDA gave %v", e)
		}
	}
	noErr(t, y.BernoulliInPlace(1, gg))
	eqF64(t, s.T(s.T(y.Sum()).CPU()), 1000)

	// a generator of the wrong device type
	_, err = ctorch.Rand([]int64{3}, ctorch.CUDA, gc)
	wantErr(t, err, ctorch.ErrDevice)
	_, err = ctorch.Rand([]int64{3}, gg) // CPU tensor, CUDA generator
	wantErr(t, err, ctorch.ErrDevice)
	wantErr(t, y.UniformInPlace(0, 1, gc), ctorch.ErrDevice)
	cpuX := s.T(ctorch.Zeros([]int64{3}))
	wantErr(t, cpuX.NormalInPlace(0, 1, gg), ctorch.ErrDevice)
	_, err = ctorch.RandLike(cpuX, ctorch.CUDA, gc)
	wantErr(t, err, ctorch.ErrDevice)
	noErr(t, ctorch.ManualSeed(ctorch.DefaultSeed))
}

func TestGPURngState(t *testing.T) {
	needGPUs(t, 1)
	s := newScope(t)
	lockThread(t)
	dev := currentDevice(t)
	noErr(t, cuda.ManualSeed(7))
	seed, err := cuda.InitialSeed()
	noErr(t, err)
	if seed != 7 {
		t.Errorf("cuda.InitialSeed() = %d after cuda.ManualSeed(7)", seed)
	}
	state, err := cuda.GetRngState(-1)
	noErr(t, err)
	if !reflect.DeepEqual(state, stateBytes(7, 0)) {
		t.Errorf("state % x, want seed 7 offset 0", state)
	}
	same, err := cuda.GetRngState(dev)
	noErr(t, err)
	if !reflect.DeepEqual(same, state) {
		t.Errorf("GetRngState(%d) = % x, GetRngState(-1) = % x", dev, same, state)
	}
	a := s.T(ctorch.Rand([]int64{64}, ctorch.CUDA))
	b := s.T(ctorch.Rand([]int64{64}, ctorch.CUDA))
	noErr(t, cuda.SetRngState(state, -1))
	eqF64(t, s.T(s.T(ctorch.Rand([]int64{64}, ctorch.CUDA)).CPU()), f64s(t, s.T(a.CPU()))...)
	after, err := cuda.GetRngState(dev)
	noErr(t, err)
	noErr(t, cuda.SetRngState(after, dev))
	eqF64(t, s.T(s.T(ctorch.Rand([]int64{64}, ctorch.CUDA)).CPU()), f64s(t, s.T(b.CPU()))...)
	wantErr(t, cuda.SetRngState(state[:15], -1), ctorch.ErrArgument)
	wantErr(t, cuda.SetRngState(stateBytes(7, 6), -1), ctorch.ErrArgument)
	_, err = cuda.GetRngState(cuda.DeviceCount())
	wantErr(t, err, ctorch.ErrIndex)

	// the CUDA state moves to a CPU generator: the same uniform values
	g := newGen(t, ctorch.CPU)
	noErr(t, g.SetState(state))
	eqF64(t, s.T(ctorch.Rand([]int64{64}, g)), f64s(t, s.T(a.CPU()))...)

	// seeding every device, and the states of all
	noErr(t, cuda.ManualSeedAll(99))
	all, err := cuda.GetRngStateAll()
	noErr(t, err)
	if len(all) != cuda.DeviceCount() {
		t.Fatalf("%d states for %d devices", len(all), cuda.DeviceCount())
	}
	for i, st := range all {
		if !reflect.DeepEqual(st, stateBytes(99, 0)) {
			t.Errorf("device %d: state % x, want seed 99 offset 0", i, st)
		}
	}
	c := s.T(ctorch.Rand([]int64{16}, ctorch.CUDA))
	noErr(t, cuda.SetRngStateAll(all))
	eqF64(t, s.T(s.T(ctorch.Rand([]int64{16}, ctorch.CUDA)).CPU()), f64s(t, s.T(c.CPU()))...)
	wantErr(t, cuda.SetRngStateAll(append(all, stateBytes(1, 0))), ctorch.ErrArgument)
	wantErr(t, cuda.SetRngStateAll(nil), ctorch.ErrArgument)

	// seed / seed_all: new seeds, offset 0
	noErr(t, cuda.Seed())
	seed, err = cuda.InitialSeed()
	noErr(t, err)
	state, err = cuda.GetRngState(-1)
	noErr(t, err)
	if !reflect.DeepEqual(state, stateBytes(uint64(seed), 0)) {
		t.Errorf("state % x after cuda.Seed(), initial seed %d", state, seed)
	}
	noErr(t, cuda.SeedAll())
	all, err = cuda.GetRngStateAll()
	noErr(t, err)
	for i := range all {
		if !reflect.DeepEqual(all[i][:8], all[0][:8]) {
			t.Errorf("seed_all gave device %d another seed", i)
		}
	}
	// torch.seed() reaches the CUDA generators too
	got, err := ctorch.Seed()
	noErr(t, err)
	seed, err = cuda.InitialSeed()
	noErr(t, err)
	if seed != got {
		t.Errorf("cuda.InitialSeed() = %d after ctorch.Seed() = %d", seed, got)
	}
	noErr(t, ctorch.ManualSeed(ctorch.DefaultSeed))
}
