package ctorch

import "ctorch.dev/ctorch/internal/capi"

// Version returns the runtime version of the loaded libctorch (ct_version). A program built
// against major M runs on any library of major M whose minor is at least the one it was built
// with (HeaderVersion).
func Version() (major, minor, patch int, err error) {
	ma, mi, pa := []int32{0}, []int32{0}, []int32{0}
	err = call("version", func() int { return capi.Ct_version(ma, mi, pa) })
	return int(ma[0]), int(mi[0]), int(pa[0]), err
}

// HeaderVersion is the version of capi/ctorch.h this package was built with.
func HeaderVersion() (major, minor, patch int) {
	return capi.CT_VERSION_MAJOR, capi.CT_VERSION_MINOR, capi.CT_VERSION_PATCH
}

// NumThreads is torch.get_num_threads(): the threads CPU kernels use for large tensors
// (default: hardware concurrency, or the CT_NUM_THREADS environment variable).
func NumThreads() (int, error) {
	out := []int32{0}
	err := call("get_num_threads", func() int { return capi.Ct_get_num_threads(out) })
	return int(out[0]), err
}

// SetNumThreads is torch.set_num_threads(n), 1 <= n <= 4096 (ErrArgument otherwise; ctorch.h says why).
func SetNumThreads(n int) error {
	if int(int32(n)) != n {
		return goError("set_num_threads", CodeArgument, "number of threads %d out of range", n)
	}
	return call("set_num_threads", func() int { return capi.Ct_set_num_threads(n) })
}
