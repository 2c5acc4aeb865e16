package cuda

// The random number functions of torch.cuda: seeds and generator states of the CUDA devices'
// default generators (capi/ctorch.h section 16). Generators themselves, torch.manual_seed and
// the random ops are in package ctorch (ctorch.Generator, ctorch.ManualSeed, ctorch.Rand, ...;
// the default generator of cuda:i is ctorch.DefaultGenerator(ctorch.CUDADevice(i))).

import (
	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/internal/capi"
)

// ManualSeed is torch.cuda.manual_seed(seed): seeds the default generator of the current CUDA
// device of the calling thread (its offset starts again at 0). Without CUDA it does nothing
// and returns nil, as in PyTorch.
func ManualSeed(seed int64) error {
	return call("cuda_manual_seed", func() int { return capi.Ct_cuda_manual_seed(seed) })
}

// ManualSeedAll is torch.cuda.manual_seed_all(seed): seeds the default generator of every CUDA
// device. Without CUDA it does nothing and returns nil.
func ManualSeedAll(seed int64) error {
	return call("cuda_manual_seed_all", func() int { return capi.Ct_cuda_manual_seed_all(seed) })
}

// Seed is torch.cuda.seed(): seeds the current device's default generator with a
// non-deterministic value (read it back with InitialSeed). Without CUDA it does nothing.
func Seed() error {
	return call("cuda_seed", func() int { return capi.Ct_cuda_seed() })
}

// SeedAll is torch.cuda.seed_all(): seeds every device's default generator with one
// non-deterministic value. Without CUDA it does nothing.
func SeedAll() error {
	return call("cuda_seed_all", func() int { return capi.Ct_cuda_seed_all() })
}

// InitialSeed is torch.cuda.initial_seed(): the seed of the current device's default
// generator. ErrCUDAUnavailable without CUDA.
func InitialSeed() (int64, error) {
	out := []int64{0}
	err := call("cuda_initial_seed", func() int { return capi.Ct_cuda_initial_seed(out) })
	return out[0], err
}

// GetRngState is torch.cuda.get_rng_state(device): the ctorch.RNGStateSize (16) bytes of the
// state of device's default generator (-1: the current device of the calling thread), the
// seed then the offset, little-endian, for SetRngState or ctorch.Generator.SetState.
// ErrCUDAUnavailable without CUDA, ErrIndex for a device that is not visible.
func GetRngState(device int) ([]byte, error) {
	if err := checkIndex("cuda_get_rng_state", device); err != nil {
		return nil, err
	}
	buf := make([]byte, ctorch.RNGStateSize)
	needed := []int64{0}
	err := call("cuda_get_rng_state", func() int {
		return capi.Ct_cuda_get_rng_state(device, buf, int64(len(buf)), needed)
	})
	if err != nil {
		return nil, err
	}
	return buf[:needed[0]], nil
}

// SetRngState is torch.cuda.set_rng_state(state, device): sets the state of device's default
// generator (-1: the current device) from GetRngState's bytes (or any generator's GetState).
// ErrArgument when state is not 16 bytes or its offset is negative or not a multiple of 4;
// ErrCUDAUnavailable without CUDA.
func SetRngState(state []byte, device int) error {
	if err := checkIndex("cuda_set_rng_state", device); err != nil {
		return err
	}
	data := state
	if len(data) == 0 {
		data = []byte{0} // not NULL, so that the library reports the wrong size (0 bytes)
	}
	return call("cuda_set_rng_state", func() int {
		return capi.Ct_cuda_set_rng_state(data, int64(len(state)), device)
	})
}

// GetRngStateAll is torch.cuda.get_rng_state_all(): the state of every device's default
// generator, one 16-byte slice per device in device order (none without CUDA).
func GetRngStateAll() ([][]byte, error) {
	var states [][]byte
	err := call("cuda_get_rng_state_all", func() int {
		// ask for the size, then copy, on one locked thread
		needed := []int64{0}
		st := capi.Ct_cuda_get_rng_state_all(nil, 0, needed)
		if st != 0 && st != capi.CT_ERR_BUFFER_SIZE {
			return st
		}
		if needed[0] == 0 {
			return 0
		}
		buf := make([]byte, needed[0])
		if st = capi.Ct_cuda_get_rng_state_all(buf, int64(len(buf)), needed); st != 0 {
			return st
		}
		for off := 0; off+ctorch.RNGStateSize <= len(buf); off += ctorch.RNGStateSize {
			states = append(states, buf[off:off+ctorch.RNGStateSize:off+ctorch.RNGStateSize])
		}
		return 0
	})
	if err != nil {
		return nil, err
	}
	return states, nil
}

// SetRngStateAll is torch.cuda.set_rng_state_all(states): sets the state of every device's
// default generator, states[i] for device i. ErrArgument unless there is one 16-byte state per
// device (none without CUDA) and every state is valid; nothing changes then.
func SetRngStateAll(states [][]byte) error {
	var all []byte
	for i, s := range states {
		if len(s) != ctorch.RNGStateSize {
			return goError("cuda_set_rng_state_all", ctorch.CodeArgument,
				"state %d is %d bytes, expected %d", i, len(s), ctorch.RNGStateSize)
		}
		all = append(all, s...)
	}
	return call("cuda_set_rng_state_all", func() int {
		return capi.Ct_cuda_set_rng_state_all(all, int64(len(all)))
	})
}
