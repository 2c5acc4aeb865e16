package ctorch

// Saving and loading tensors in the safetensors format (capi/ctorch.h section 27;
// safetensors.torch.save_file, save, safe_open, load; docs/safetensors.md):
//
//	safetensors.torch.save_file({"w": w}, path, metadata={"format": "pt"})
//	    ->  ctorch.SaveSafeTensors(path, map[string]*ctorch.Tensor{"w": w}, map[string]string{"format": "pt"})
//	with safe_open(path, framework="pt", device="cuda:0") as f: t = f.get_tensor("w")
//	    ->  f, err := ctorch.OpenSafeTensors(path); defer f.Close(); t, err := f.GetTensor("w", ctorch.CUDADevice(0))
//
// Files are written byte for byte as safetensors.torch.save_file writes them (tensors of any
// device and strides; metadata nil or empty: none). A file is opened through a private memory
// mapping: a CPU tensor from GetTensor is the mapped bytes themselves (zero-copy; writing into
// it never changes the file) and keeps the mapping alive after the file is closed. Error.Op is
// the C function's name without "ct_" ("safetensors_open", ...).

import (
	"runtime"
	"sort"
	"strings"

	"ctorch.dev/ctorch/internal/capi"
)

// SaveSafeTensors is safetensors.torch.save_file(tensors, path, metadata): writes the tensors
// and the metadata (nil or empty: no "__metadata__") to a new file at path. ErrArgument for a
// name "__metadata__", a string that is not UTF-8 or has a NUL byte, a file that cannot be
// written; ErrNotSupported for Complex128; ErrInvalidHandle for a nil or closed tensor.
func SaveSafeTensors(path string, tensors map[string]*Tensor, metadata map[string]string) error {
	const op = "safetensors_save_file"
	if path == "" || strings.IndexByte(path, 0) >= 0 {
		return goError(op, CodeArgument, "path %q is empty or contains a NUL byte", path)
	}
	_, err := saveSafeTensors(op, path, tensors, metadata)
	return err
}

// SafeTensorsBytes is safetensors.torch.save(tensors, metadata): the bytes of the file
// SaveSafeTensors would write. Errors as SaveSafeTensors.
func SafeTensorsBytes(tensors map[string]*Tensor, metadata map[string]string) ([]byte, error) {
	return saveSafeTensors("safetensors_save_buffer", "", tensors, metadata)
}

func saveSafeTensors(op, path string, tensors map[string]*Tensor, metadata map[string]string) ([]byte, error) {
	if int(int32(len(tensors))) != len(tensors) || int(int32(len(metadata))) != len(metadata) {
		return nil, goError(op, CodeArgument, "too many tensors or metadata entries")
	}
	names := make([]string, 0, len(tensors))
	for k := range tensors {
		names = append(names, k)
	}
	sort.Strings(names) // a stable order for the error a bad entry gives
	hs := make([]int64, len(names))
	ts := make([]*Tensor, len(names))
	for i, k := range names {
		if strings.IndexByte(k, 0) >= 0 {
			return nil, goError(op, CodeArgument, "tensor name %q contains a NUL byte", k)
		}
		h, err := tensors[k].handle(op)
		if err != nil {
			return nil, err
		}
		hs[i], ts[i] = h, tensors[k]
	}
	keys := make([]string, 0, len(metadata))
	for k := range metadata {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	values := make([]string, len(keys))
	for i, k := range keys {
		values[i] = metadata[k]
		if strings.IndexByte(k, 0) >= 0 || strings.IndexByte(values[i], 0) >= 0 {
			return nil, goError(op, CodeArgument, "metadata entry %q contains a NUL byte", k)
		}
	}
	b, f := capi.SafeTensorsSave(path, names, hs, keys, values)
	keepAlive(ts...)
	if f != nil {
		return nil, failed(op, f)
	}
	return b, nil
}

// SafeTensorsFile is an open safetensors file (safetensors.safe_open): it owns one reference
// (handle) to it. Close releases it (idempotent, safe on a nil *SafeTensorsFile); a finalizer
// releases one that becomes unreachable without Close. Tensors from GetTensor stay valid after
// Close. Using a nil or closed file returns an error matching ErrInvalidHandle. A file may be
// used from several goroutines at once. It must not be copied by value.
type SafeTensorsFile struct{ o capi.Owned }

func wrapSafeTensors(h int64) *SafeTensorsFile {
	f := &SafeTensorsFile{}
	f.o.Set(h)
	runtime.SetFinalizer(f, (*SafeTensorsFile).finalize)
	return f
}

func (f *SafeTensorsFile) finalize() { f.o.Finalize(capi.SafeTensorsRelease) }

// OpenSafeTensors is safetensors.safe_open(path, framework="pt"): maps the file and validates
// it (ErrArgument naming what is wrong, e.g. "... (InvalidOffset)"; ErrArgument when it cannot
// be opened, with the system's reason).
func OpenSafeTensors(path string) (*SafeTensorsFile, error) {
	const op = "safetensors_open"
	if path == "" || strings.IndexByte(path, 0) >= 0 {
		return nil, goError(op, CodeArgument, "path %q is empty or contains a NUL byte", path)
	}
	h, f := capi.SafeTensorsOpen(path, nil)
	if f != nil {
		return nil, failed(op, f)
	}
	return wrapSafeTensors(h), nil
}

// LoadSafeTensors is safetensors.torch.load(data): a file held in memory (the library keeps a
// copy; data may be changed afterwards). Errors as OpenSafeTensors.
func LoadSafeTensors(data []byte) (*SafeTensorsFile, error) {
	h, f := capi.SafeTensorsOpen("", data)
	if f != nil {
		return nil, failed("safetensors_open_buffer", f)
	}
	return wrapSafeTensors(h), nil
}

// Close releases the file's handle; tensors taken from it keep its mapping alive. Closing
// twice, or closing a nil *SafeTensorsFile, does nothing and returns nil.
func (f *SafeTensorsFile) Close() error {
	if f == nil {
		return nil
	}
	return failed("safetensors_release", f.o.Release(f, capi.SafeTensorsRelease))
}

// Closed reports whether f is nil or has been closed.
func (f *SafeTensorsFile) Closed() bool { return f.Handle() == 0 }

// Handle returns the raw ct_safetensors handle (0 for a nil or closed file), still owned by f.
func (f *SafeTensorsFile) Handle() int64 {
	if f == nil {
		return 0
	}
	return f.o.Get()
}

func (f *SafeTensorsFile) handle(op string) (int64, error) {
	if h := f.Handle(); h != 0 {
		return h, nil
	}
	return 0, failed(op, capi.Unusable(f == nil, "SafeTensorsFile"))
}

// Ref returns a second SafeTensorsFile holding a new reference to the same open file
// (ct_safetensors_retain). Close both.
func (f *SafeTensorsFile) Ref() (*SafeTensorsFile, error) {
	const op = "safetensors_retain"
	h, err := f.handle(op)
	if err == nil {
		err = failed(op, capi.SafeTensorsRetain(h))
	}
	runtime.KeepAlive(f)
	if err != nil {
		return nil, err
	}
	return wrapSafeTensors(h), nil
}

// Keys is f.keys(): the tensors' names, sorted.
func (f *SafeTensorsFile) Keys() ([]string, error) {
	return f.strings("safetensors_name", false)
}

func (f *SafeTensorsFile) strings(op string, meta bool) ([]string, error) {
	h, err := f.handle(op)
	if err != nil {
		return nil, err
	}
	defer runtime.KeepAlive(f)
	n, fl := capi.SafeTensorsCount(h, meta)
	if fl != nil {
		return nil, failed(op, fl)
	}
	which := int32(0)
	if meta {
		which = 1
	}
	out := make([]string, n)
	for i := range out {
		s, fl := capi.SafeTensorsString(h, which, int64(i), "")
		if fl != nil {
			return nil, failed(op, fl)
		}
		out[i] = s
	}
	return out, nil
}

// Metadata is f.metadata(): the header's "__metadata__" (empty when it has none).
func (f *SafeTensorsFile) Metadata() (map[string]string, error) {
	const op = "safetensors_metadata_get"
	keys, err := f.strings("safetensors_metadata_key", true)
	if err != nil {
		return nil, err
	}
	h, err := f.handle(op)
	if err != nil {
		return nil, err
	}
	defer runtime.KeepAlive(f)
	m := make(map[string]string, len(keys))
	for _, k := range keys {
		v, fl := capi.SafeTensorsString(h, 2, 0, k)
		if fl != nil {
			return nil, failed(op, fl)
		}
		m[k] = v
	}
	return m, nil
}

func (f *SafeTensorsFile) named(op, name string) (int64, error) {
	if strings.IndexByte(name, 0) >= 0 {
		return 0, goError(op, CodeIndex, "safetensors: the file has no tensor %q (a name never contains a NUL byte)", name)
	}
	return f.handle(op)
}

// DType is the dtype of the tensor name without loading it. ErrIndex when the file has no such
// tensor; ErrNotSupported for a format dtype ctorch lacks (F8_E4M3, U16, ...), named in the
// message.
func (f *SafeTensorsFile) DType(name string) (DType, error) {
	const op = "safetensors_tensor_dtype"
	h, err := f.named(op, name)
	if err != nil {
		return 0, err
	}
	d, fl := capi.SafeTensorsDType(h, name)
	runtime.KeepAlive(f)
	return DType(d), failed(op, fl)
}

// Shape is the shape of the tensor name without loading it (any format dtype). ErrIndex when
// the file has no such tensor.
func (f *SafeTensorsFile) Shape(name string) ([]int64, error) {
	const op = "safetensors_tensor_shape"
	h, err := f.named(op, name)
	if err != nil {
		return nil, err
	}
	s, fl := capi.SafeTensorsShape(h, name)
	runtime.KeepAlive(f)
	if fl != nil {
		return nil, failed(op, fl)
	}
	return s, nil
}

// GetTensor is f.get_tensor(name) on dev: on the CPU the mapped bytes (zero-copy,
// copy-on-write), on CUDA a copy on the device. ErrIndex, ErrNotSupported as DType; device
// errors as Empty's.
func (f *SafeTensorsFile) GetTensor(name string, dev Device) (*Tensor, error) {
	const op = "safetensors_get_tensor"
	h, err := f.named(op, name)
	if err != nil {
		return nil, err
	}
	if int(int32(dev.Index)) != dev.Index {
		return nil, goError(op, CodeArgument, "device index %d does not fit in an int32", dev.Index)
	}
	t, fl := capi.SafeTensorsGet(h, name, int32(dev.Type), int32(dev.Index))
	runtime.KeepAlive(f)
	if fl != nil {
		return nil, failed(op, fl)
	}
	return wrap(t), nil
}

// LoadSafeTensorsFile is safetensors.torch.load_file(path, device): every tensor of the file
// on dev, by name. On failure the tensors made so far are closed.
func LoadSafeTensorsFile(path string, dev Device) (map[string]*Tensor, error) {
	f, err := OpenSafeTensors(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	keys, err := f.Keys()
	if err != nil {
		return nil, err
	}
	out := make(map[string]*Tensor, len(keys))
	for _, k := range keys {
		t, err := f.GetTensor(k, dev)
		if err != nil {
			for _, t := range out {
				t.Close()
			}
			return nil, err
		}
		out[k] = t
	}
	return out, nil
}

// LiveSafeTensorsCount is the number of live safetensors file handles (for leak checks).
func LiveSafeTensorsCount() (int64, error) {
	n, f := capi.SafeTensorsLive()
	return n, failed("live_safetensors_count", f)
}
