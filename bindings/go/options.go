package ctorch

// Option configures a factory (Zeros, FromSlice, ...), a move (To) or a conversion. DType and
// Device values are Options themselves, so the PyTorch call
//
//	torch.zeros(2, 3, dtype=torch.float64, device="cuda")
//
// reads
//
//	ctorch.Zeros([]int64{2, 3}, ctorch.Float64, ctorch.CUDA)
//
// WithDType and WithDevice spell the same thing out. Factories default to Float32 on CPU.
// A *Generator is an Option too, for the random factories (Rand, Randn, Randint, RandLike,
// RandnLike): ctorch.Rand([]int64{3}, gen).
type Option interface {
	apply(*options)
}

type options struct {
	dtype       DType
	device      Device
	deviceSet   bool
	nonBlocking bool
	copy        bool
}

type optionFunc func(*options)

func (f optionFunc) apply(o *options) { f(o) }

// WithDType sets the dtype (the same as passing the DType itself).
func WithDType(d DType) Option { return d }

// WithDevice sets the device (the same as passing the Device itself).
func WithDevice(d Device) Option { return d }

// NonBlocking asks To for an asynchronous copy where the devices allow it (non_blocking=True):
// a copy from pinned host memory (Tensor.PinMemory) to a GPU, or from a GPU to the CPU (the
// result is then pinned), is queued on the current stream and To returns at once. Synchronize
// (the stream, an event recorded after the copy, or the device; see package cuda) before
// reading the result on the host. Other copies are synchronous, as in PyTorch.
func NonBlocking() Option { return optionFunc(func(o *options) { o.nonBlocking = true }) }

// ForceCopy makes To return a new tensor even when device and dtype already match (copy=True).
func ForceCopy() Option { return optionFunc(func(o *options) { o.copy = true }) }

// makeOptions is opts applied over the defaults (dtype defaultDType, the CPU), with op's
// ErrIndex for a device index the C API's int32_t cannot hold (never truncated to another
// device).
func makeOptions(op string, defaultDType DType, opts []Option) (options, error) {
	o := applyOptions(defaultDType, opts)
	return o, o.device.check(op)
}

// applyOptions is makeOptions without the device check, for calls that take no device.
func applyOptions(defaultDType DType, opts []Option) options {
	o := options{dtype: defaultDType, device: CPU}
	for _, opt := range opts {
		if opt != nil {
			opt.apply(&o)
		}
	}
	return o
}
