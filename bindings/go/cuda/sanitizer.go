package cuda

// The CUDA stream sanitizer (capi/ctorch.h section 24; torch.cuda._sanitizer; docs/cuda.md,
// "The stream sanitizer"): it finds a kernel that reads or writes a tensor's memory on one
// stream while a kernel on another stream may still be writing it (or, for a write, reading it),
// with no synchronization in between (an Event recorded after the earlier access and waited
// for, Stream.WaitStream, or the host waiting).
//
// SanitizerError: the racing op returns an error matching ctorch.ErrDataRace (ctorch.IsDataRace)
// after its kernel was queued. SanitizerWarn: each report goes to the function of SetSanitizerCallback (default:
// standard error) and the op succeeds. The environment variable CTORCH_CUDA_SANITIZER switches
// it on when the library loads. Switch it on before the streams start working: what ran while
// it was off is not known. CPU tensors are never checked, and none of this needs a GPU.
// Everything here is process-wide and safe for concurrent use.

import "ctorch.dev/ctorch/internal/capi"

// SanitizerMode is what the stream sanitizer does with a race: SanitizerOff (the default),
// SanitizerError or SanitizerWarn, in abi_gen.go from capi/abi.toml.
type SanitizerMode int32

// String is the mode's name: "off", "error", "warn" (CTORCH_CUDA_SANITIZER=warn gives warn).
func (m SanitizerMode) String() string {
	return capi.EnumName(sanitizerModeNames, int32(m), "SanitizerMode")
}

// SetSanitizerMode sets the mode. Switching it on from SanitizerOff starts with nothing known;
// switching it off forgets everything. Another value is an error matching ctorch.ErrArgument,
// and changes nothing.
func SetSanitizerMode(m SanitizerMode) error {
	return call("cuda_sanitizer_set_mode", func() int { return capi.Ct_cuda_sanitizer_set_mode(int(m)) })
}

// GetSanitizerMode is the current mode.
func GetSanitizerMode() (SanitizerMode, error) {
	out := []int32{0}
	if err := call("cuda_sanitizer_mode", func() int { return capi.Ct_cuda_sanitizer_mode(out) }); err != nil {
		return SanitizerOff, err
	}
	return SanitizerMode(out[0]), nil
}

// EnableSanitizer is torch.cuda._sanitizer.enable_cuda_sanitizer(): SanitizerError (nothing
// changes when it is in that mode already).
func EnableSanitizer() error {
	m, err := GetSanitizerMode()
	if err != nil || m == SanitizerError {
		return err
	}
	return SetSanitizerMode(SanitizerError)
}

// SanitizerReportCount is how many races the sanitizer has reported in this process (both
// modes); it only grows.
func SanitizerReportCount() (int64, error) {
	out := []int64{0}
	err := call("cuda_sanitizer_report_count", func() int { return capi.Ct_cuda_sanitizer_report_count(out) })
	return out[0], err
}

// SetSanitizerCallback makes fn the place where SanitizerWarn's reports go: fn(report) once per
// race, with the report's text (torch's form, without stack traces). nil restores the default,
// which prints each report to standard error. The binding keeps fn reachable until it is
// replaced.
//
// fn runs inside the op that raced, on its goroutine and OS thread (or on a thread Go has never
// seen, when C code sharing the process raced), so it should be short; it may run on several
// goroutines at once. It must not call the sanitizer's functions (ctorch's rule for the C
// callback). A panic in fn is recovered and reported on standard error with the report (it
// must not unwind through ctorch); fn must not call runtime.Goexit (testing's t.FailNow,
// t.Fatal), for the same reason.
func SetSanitizerCallback(fn func(report string)) error {
	return failure("cuda_sanitizer_set_callback", capi.SetSanitizerCallback(fn))
}
