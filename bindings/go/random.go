package ctorch

// Random numbers: torch.Generator, torch.manual_seed / seed / initial_seed, the random
// factories (rand, randn, randint, rand_like, randn_like) and the in-place fills (uniform_,
// normal_, random_, bernoulli_) (capi/ctorch.h section 16). The torch.cuda seed and state
// functions are in package cuda.

import (
	"runtime"

	"ctorch.dev/ctorch/internal/capi"
)

const (
	// DefaultSeed is the seed of every generator until it is seeded otherwise (PyTorch's
	// default_rng_seed_val, 67280421310721).
	DefaultSeed int64 = capi.CT_DEFAULT_SEED
	// RNGStateSize is the size in bytes of a generator state (Generator.GetState,
	// cuda.GetRngState): the seed (uint64) then the Philox offset (int64), little-endian.
	RNGStateSize = capi.CT_RNG_STATE_SIZE
)

// Generator is torch.Generator: it owns one reference (handle) to a random number generator of
// one device (the CPU or one CUDA device). Every device draws from a Philox4x32-10 generator
// whose state is a seed and an offset, as torch.cuda's, so CPU and CUDA tensors get the same
// uniform, integer and Bernoulli values from the same seed, bit for bit (normal values differ
// by the GPU's fast sine and cosine: within 2^-18 of the standard deviation for float32; see
// docs/random.md). Unlike PyTorch's, the CPU generator is therefore not a Mersenne Twister.
//
// A *Generator is an Option of the random factories (Rand(shape, gen), Randint(...), RandLike,
// ...; WithGenerator spells it out), and the last argument of the in-place fills
// (t.UniformInPlace(0, 1, gen)); nil there means the default generator of the tensor's device.
// A generator must be on the device of the tensor it fills (ErrDevice otherwise).
//
// Close releases it (idempotent, safe on a nil *Generator); a finalizer releases a Generator
// that becomes unreachable without Close. Using a closed Generator returns an error matching
// ErrInvalidHandle. Generators may be used from several goroutines: concurrent draws take
// distinct offsets. A Generator must not be copied by value.
type Generator struct{ o capi.Owned }

func wrapGenerator(h int64) *Generator {
	g := &Generator{}
	g.o.Set(h)
	runtime.SetFinalizer(g, (*Generator).finalize)
	return g
}

func (g *Generator) finalize() { g.o.Finalize(capi.GeneratorRelease) }

// LiveGeneratorCount returns the number of live generator handles in the process (for leak
// checks; the default generators' own references count too).
func LiveGeneratorCount() (int64, error) {
	out := []int64{0}
	if err := call("live_generator_count", func() int { return capi.Ct_live_generator_count(out) }); err != nil {
		return 0, err
	}
	return out[0], nil
}

func newGenerator(op string, device Device, f func(typ, index int, out []int64) int) (*Generator, error) {
	if err := device.check(op); err != nil {
		return nil, err
	}
	out := []int64{0}
	if err := call(op, func() int { return f(int(device.Type), device.Index, out) }); err != nil {
		return nil, err
	}
	return wrapGenerator(out[0]), nil
}

// NewGenerator is torch.Generator(device): a new generator of its own for device (CPU, or a
// CUDA device; ctorch.CUDA is the current device of the calling thread), seeded with
// DefaultSeed. A CPU generator needs no GPU; a CUDA one fails with ErrCUDAUnavailable without
// CUDA and ErrIndex for a device that is not visible.
func NewGenerator(device Device) (*Generator, error) {
	return newGenerator("generator_create", device, capi.Ct_generator_create)
}

// DefaultGenerator is the default generator of device (torch.default_generator for CPU,
// torch.cuda.default_generators[i] for CUDADevice(i); ctorch.CUDA: the current device): the one
// the random ops use when given no generator, and the one ManualSeed seeds. The result is a
// new reference to it; closing it does not affect the generator itself.
func DefaultGenerator(device Device) (*Generator, error) {
	return newGenerator("default_generator", device, capi.Ct_default_generator)
}

// Close releases the generator's handle. Closing twice, or closing a nil *Generator, does
// nothing and returns nil.
func (g *Generator) Close() error {
	if g == nil {
		return nil
	}
	return failed("generator_release", g.o.Release(g, capi.GeneratorRelease))
}

// Closed reports whether g is nil or has been closed.
func (g *Generator) Closed() bool { return g.Handle() == 0 }

// Handle returns the raw ct_generator handle (0 for a nil or closed Generator), still owned by
// g; keep g alive (runtime.KeepAlive) while C code of your own uses it.
func (g *Generator) Handle() int64 {
	if g == nil {
		return 0
	}
	return g.o.Get()
}

func (g *Generator) handle(op string) (int64, error) {
	if h := g.Handle(); h != 0 {
		return h, nil
	}
	return 0, failed(op, capi.Unusable(g == nil, "Generator"))
}

// genArg is the handle of an optional generator: 0 (the device's default generator) for nil,
// an error for a closed one.
func genArg(op string, g *Generator) (int64, error) {
	if g == nil {
		return 0, nil
	}
	return g.handle(op)
}

// Ref returns a second Generator holding a new reference to the same generator
// (ct_generator_retain): both see the same seed and offset. Close both.
func (g *Generator) Ref() (*Generator, error) {
	h, err := g.handle("generator_retain")
	if err == nil {
		err = call("generator_retain", func() int { return capi.Ct_generator_retain(h) })
	}
	runtime.KeepAlive(g)
	if err != nil {
		return nil, err
	}
	return wrapGenerator(h), nil
}

// Device is generator.device: CPU, or the CUDA device with its index. The zero Device{} for a
// nil or closed generator (DeviceErr reports the error).
func (g *Generator) Device() Device {
	d, _ := g.DeviceErr()
	return d
}

// DeviceErr is Device with the error of a nil or closed generator.
func (g *Generator) DeviceErr() (Device, error) {
	h, err := g.handle("generator_device")
	if err != nil {
		return Device{}, err
	}
	d, err := deviceQuery("generator_device", func(typ, idx []int32) int { return capi.Ct_generator_device(h, typ, idx) })
	runtime.KeepAlive(g)
	return d, err
}

func (g *Generator) int64Query(op string, f func(h int64, out []int64) int) (int64, error) {
	h, err := g.handle(op)
	if err != nil {
		return 0, err
	}
	out := []int64{0}
	err = call(op, func() int { return f(h, out) })
	runtime.KeepAlive(g)
	return out[0], err
}

// ManualSeed is generator.manual_seed(seed): sets the seed and starts the offset again at 0.
// The 64 bits of seed are the seed (ManualSeed(-1) is torch's manual_seed(-1), whose
// initial_seed() is 2^64-1).
func (g *Generator) ManualSeed(seed int64) error {
	h, err := g.handle("generator_manual_seed")
	if err != nil {
		return err
	}
	err = call("generator_manual_seed", func() int { return capi.Ct_generator_manual_seed(h, seed) })
	runtime.KeepAlive(g)
	return err
}

// Seed is generator.seed(): seeds g with a non-deterministic value and returns it.
func (g *Generator) Seed() (int64, error) {
	return g.int64Query("generator_seed", capi.Ct_generator_seed)
}

// InitialSeed is generator.initial_seed(): the seed last set (its 64 bits as an int64;
// uint64(s) is the value torch prints).
func (g *Generator) InitialSeed() (int64, error) {
	return g.int64Query("generator_initial_seed", capi.Ct_generator_initial_seed)
}

// Offset is the generator's Philox offset, in 32-bit values: 0 after a seed, advanced by a
// multiple of 4 by every op that draws from g (by 4 for small tensors), as torch.cuda's
// philox offset.
func (g *Generator) Offset() (int64, error) {
	return g.int64Query("generator_offset", capi.Ct_generator_offset)
}

// GetState is generator.get_state(): RNGStateSize (16) bytes, the seed then the offset
// (little-endian), for SetState. The state of a CPU and of a CUDA generator have the same form.
func (g *Generator) GetState() ([]byte, error) {
	h, err := g.handle("generator_get_state")
	if err != nil {
		return nil, err
	}
	buf := make([]byte, RNGStateSize)
	needed := []int64{0}
	err = call("generator_get_state", func() int {
		return capi.Ct_generator_get_state(h, buf, int64(len(buf)), needed)
	})
	runtime.KeepAlive(g)
	if err != nil {
		return nil, err
	}
	return buf[:needed[0]], nil
}

// SetState is generator.set_state(state) with bytes from GetState (of any generator, of any
// device). ErrArgument when state is not RNGStateSize bytes, or its offset is negative or not
// a multiple of 4; g is then unchanged.
func (g *Generator) SetState(state []byte) error {
	h, err := g.handle("generator_set_state")
	if err != nil {
		return err
	}
	data := state
	if len(data) == 0 {
		data = []byte{0} // not NULL, so that the library reports the wrong size (0 bytes)
	}
	err = call("generator_set_state", func() int { return capi.Ct_generator_set_state(h, data, int64(len(state))) })
	runtime.KeepAlive(g)
	runtime.KeepAlive(data)
	return err
}

// apply makes a *Generator an Option. The random factories find it with generatorOf; options
// itself stays free of pointers (see generatorOf).
func (g *Generator) apply(*options) {}

type generatorOption struct{ g *Generator }

func (generatorOption) apply(*options) {}

// WithGenerator sets the generator of a random factory (the same as passing the *Generator
// itself; nil: the default generator of the result's device). Other calls ignore it.
func WithGenerator(g *Generator) Option { return generatorOption{g} }

// generatorOf returns the last generator among opts (nil: the device's default generator).
// The generator is kept out of the options struct on purpose: with a pointer field there,
// TestOOMHookRecoversDroppedTensors failed every time (165 of 300 dropped tensors still live
// when the collector hook returned). The hook's two sentinel rounds (Note [Waiting for
// finalizers] in internal/capi/oomhook.go) can miss finalizers that a sweep queues after the
// finalizer goroutine has taken the batch holding the first sentinel; the changed heap layout
// made that happen.
func generatorOf(opts []Option) *Generator {
	var g *Generator
	for _, o := range opts {
		switch v := o.(type) {
		case *Generator:
			g = v
		case generatorOption:
			g = v.g
		}
	}
	return g
}

// ---- torch.manual_seed, torch.seed, torch.initial_seed -----------------------------------

// ManualSeed is torch.manual_seed(seed): seeds the default generator of the CPU and of every
// CUDA device (their offsets start again at 0). Works without a GPU.
func ManualSeed(seed int64) error {
	return call("manual_seed", func() int { return capi.Ct_manual_seed(seed) })
}

// Seed is torch.seed(): seeds every default generator (CPU and CUDA) with one non-deterministic
// value and returns it.
func Seed() (int64, error) {
	out := []int64{0}
	err := call("seed", func() int { return capi.Ct_seed(out) })
	return out[0], err
}

// InitialSeed is torch.initial_seed(): the seed of the CPU's default generator.
func InitialSeed() (int64, error) {
	out := []int64{0}
	err := call("initial_seed", func() int { return capi.Ct_initial_seed(out) })
	return out[0], err
}

// ---- random factories --------------------------------------------------------------------

type randFactory func(sizes []int64, ndim int, dtype int, devType int, devIndex int, gen int64, out []int64) int

func randShaped(op string, f randFactory, shape []int64, defaultDType DType, opts []Option) (*Tensor, error) {
	if err := checkShape(op, shape); err != nil {
		return nil, err
	}
	o, err := makeOptions(op, defaultDType, opts)
	if err != nil {
		return nil, err
	}
	gen := generatorOf(opts)
	gh, err := genArg(op, gen)
	if err != nil {
		return nil, err
	}
	t, err := newTensor(op, func(out []int64) int {
		return f(shape, len(shape), int(o.dtype), int(o.device.Type), o.device.Index, gh, out)
	})
	runtime.KeepAlive(gen)
	return t, err
}

// Rand is torch.rand(shape): values uniform in [0, 1). Options: DType (Float32 by default;
// Float64, Float16 and BFloat16 too, ErrDType for others), Device (default CPU) and a
// *Generator (default: the device's default generator; ErrDevice for one of another device).
func Rand(shape []int64, opts ...Option) (*Tensor, error) {
	return randShaped("rand", capi.Ct_rand, shape, Float32, opts)
}

// Randn is torch.randn(shape): standard normal values (mean 0, standard deviation 1). Options
// as Rand.
func Randn(shape []int64, opts ...Option) (*Tensor, error) {
	return randShaped("randn", capi.Ct_randn, shape, Float32, opts)
}

// Randint is torch.randint(low, high, shape): integers uniform in [low, high). Options: DType
// (Int64 by default, as PyTorch; every real dtype), Device, *Generator. ErrArgument unless
// low < high, or when the range does not fit the dtype.
func Randint(low, high int64, shape []int64, opts ...Option) (*Tensor, error) {
	return randShaped("randint", func(s []int64, n, dt, ty, ix int, gen int64, out []int64) int {
		return capi.Ct_randint(low, high, s, n, dt, ty, ix, gen, out)
	}, shape, Int64, opts)
}

type likeRand func(h int64, dtype int, gen int64, out []int64) int

// randLike draws a tensor of t's shape: on t's device through the *_like call, or, when a
// Device option asks for another device, directly there (so that the draw comes from that
// device's generator, as torch.rand_like(t, device=...)).
func randLike(op string, t *Tensor, like likeRand, factory randFactory, opts []Option) (*Tensor, error) {
	o, err := likeOptions(op, opts)
	if err != nil {
		return nil, err
	}
	gen := generatorOf(opts)
	gh, err := genArg(op, gen)
	if err != nil {
		return nil, err
	}
	defer runtime.KeepAlive(gen)
	if o.deviceSet {
		shape, err := t.ShapeErr()
		if err != nil {
			return nil, err
		}
		dtype := o.dtype
		if dtype == Undefined {
			if dtype, err = t.dtype(op); err != nil {
				return nil, err
			}
		}
		return newTensor(op, func(out []int64) int {
			return factory(shape, len(shape), int(dtype), int(o.device.Type), o.device.Index, gh, out)
		})
	}
	return t.method1(op, func(h int64, out []int64) int { return like(h, int(o.dtype), gh, out) })
}

// RandLike is torch.rand_like(t): uniform values in [0, 1) with t's shape, dtype and device.
// Options: DType, Device (the values are then drawn on that device) and *Generator.
// ErrDType for a dtype that is not floating point.
func RandLike(t *Tensor, opts ...Option) (*Tensor, error) {
	return randLike("rand_like", t, capi.Ct_rand_like, capi.Ct_rand, opts)
}

// RandnLike is torch.randn_like(t): standard normal values with t's shape, dtype and device.
// Options as RandLike.
func RandnLike(t *Tensor, opts ...Option) (*Tensor, error) {
	return randLike("randn_like", t, capi.Ct_randn_like, capi.Ct_randn, opts)
}

// ---- in-place fills ----------------------------------------------------------------------

// fill runs an in-place random op on t with the optional generator g.
func (t *Tensor) fill(op string, g *Generator, f func(h, gen int64) int) error {
	h, err := t.handle(op)
	if err != nil {
		return err
	}
	gh, err := genArg(op, g)
	if err != nil {
		return err
	}
	err = run(op, func() int { return f(h, gh) }, t)
	runtime.KeepAlive(g)
	return err
}

// UniformInPlace is tensor.uniform_(from, to, generator=g): fills t with values uniform in
// [from, to) (from == to: every value is from) (floating dtypes; ErrDType otherwise). g nil:
// the default generator of t's device. ErrArgument when from > to or to - from is not finite.
func (t *Tensor) UniformInPlace(from, to float64, g *Generator) error {
	return t.fill("uniform_", g, func(h, gen int64) int { return capi.Ct_tensor_uniform_(h, from, to, gen) })
}

// NormalInPlace is tensor.normal_(mean, std, generator=g): fills t with normal values
// (floating dtypes). ErrArgument when std < 0.
func (t *Tensor) NormalInPlace(mean, std float64, g *Generator) error {
	return t.fill("normal_", g, func(h, gen int64) int { return capi.Ct_tensor_normal_(h, mean, std, gen) })
}

// RandomInPlace is tensor.random_(generator=g): fills t with integers uniform in [0, max] of
// t's dtype (2^63-1 for Int64, 127 for Int8, 255 for Uint8, 1 for Bool; floating dtypes: the
// largest integer of the run they hold exactly, 2^24 for Float32, 2^53 for Float64, 2^11 for
// Float16, 2^8 for BFloat16). Every real dtype (ErrDType for complex ones).
func (t *Tensor) RandomInPlace(g *Generator) error {
	return t.fill("random_", g, func(h, gen int64) int { return capi.Ct_tensor_random_(h, gen) })
}

// RandomRangeInPlace is tensor.random_(from, to, generator=g): fills t with integers uniform
// in [from, to). ErrArgument unless from < to and both bounds fit t's dtype.
func (t *Tensor) RandomRangeInPlace(from, to int64, g *Generator) error {
	return t.fill("random_", g, func(h, gen int64) int { return capi.Ct_tensor_random_range_(h, from, to, gen) })
}

// BernoulliInPlace is tensor.bernoulli_(p, generator=g): each element becomes 1 with
// probability p, else 0 (every real dtype). ErrArgument unless 0 <= p <= 1.
func (t *Tensor) BernoulliInPlace(p float64, g *Generator) error {
	return t.fill("bernoulli_", g, func(h, gen int64) int { return capi.Ct_tensor_bernoulli_(h, p, gen) })
}
