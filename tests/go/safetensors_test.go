package ctorch_test

// The safetensors binding (capi/ctorch.h section 27; ctorch's own rules are tested in
// tests/capi/safetensors_test.c): the map <-> parallel arrays marshalling (unicode names, the
// metadata map, sorted keys), the file object's lifetime (tensors outliving Close, Ref, the
// finalizer), errors with their sentinels, and the devices.

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"ctorch.dev/ctorch"
)

func liveSafeTensors(t *testing.T) int64 {
	t.Helper()
	n, err := ctorch.LiveSafeTensorsCount()
	noErr(t, err)
	return n
}

func TestSafeTensorsRoundTrip(t *testing.T) {
	s, dev := setup(t)
	start := liveSafeTensors(t)
	w := s.T(ctorch.FromSlice([]float32{1, 2, 3, 4, 5, 6}, []int64{2, 3}, dev))
	wt := s.T(w.Transpose(0, 1)) // strided: written contiguous
	ids := s.T(ctorch.FromSlice([]int64{-7, 1 << 40}, []int64{2}, ctorch.CPU))
	tensors := map[string]*ctorch.Tensor{"w": w, "wé/😀": wt, "ids": ids}
	meta := map[string]string{"format": "pt", "ключ": "значение ✓"}
	path := filepath.Join(t.TempDir(), "m.safetensors")
	noErr(t, ctorch.SaveSafeTensors(path, tensors, meta))
	b, err := ctorch.SafeTensorsBytes(tensors, meta)
	noErr(t, err)
	disk, err := os.ReadFile(path)
	noErr(t, err)
	if !bytes.Equal(b, disk) {
		t.Fatalf("SafeTensorsBytes (%d bytes) differs from the file SaveSafeTensors wrote (%d bytes)", len(b), len(disk))
	}

	for _, open := range []func() (*ctorch.SafeTensorsFile, error){
		func() (*ctorch.SafeTensorsFile, error) { return ctorch.OpenSafeTensors(path) },
		func() (*ctorch.SafeTensorsFile, error) { return ctorch.LoadSafeTensors(b) },
	} {
		f, err := open()
		noErr(t, err)
		keys, err := f.Keys()
		noErr(t, err)
		if want := []string{"ids", "w", "wé/😀"}; !reflect.DeepEqual(keys, want) {
			t.Errorf("Keys() = %q, want %q", keys, want)
		}
		m, err := f.Metadata()
		noErr(t, err)
		if !reflect.DeepEqual(m, meta) {
			t.Errorf("Metadata() = %v, want %v", m, meta)
		}
		d, err := f.DType("ids")
		noErr(t, err)
		if d != ctorch.Int64 {
			t.Errorf("DType(ids) = %v", d)
		}
		shape, err := f.Shape("wé/😀")
		noErr(t, err)
		if !reflect.DeepEqual(shape, []int64{3, 2}) {
			t.Errorf("Shape = %v", shape)
		}
		x := s.T(f.GetTensor("wé/😀", ctorch.CPU))
		eqShape(t, x, 3, 2)
		eqDType(t, x, ctorch.Float32)
		eqF64(t, x, 1, 4, 2, 5, 3, 6)
		y := s.T(f.GetTensor("ids", dev))
		if got := y.Device(); got != resolved(dev) {
			t.Errorf("device %v, want %v", got, resolved(dev))
		}
		eqI64(t, y, -7, 1<<40)
		// the tensors outlive the file: its mapping stays while they do
		noErr(t, f.Close())
		noErr(t, f.Close()) // idempotent
		eqF64(t, x, 1, 4, 2, 5, 3, 6)
		_, err = f.Keys()
		wantErr(t, err, ctorch.ErrInvalidHandle)
		_, err = f.GetTensor("w", ctorch.CPU)
		wantErr(t, err, ctorch.ErrInvalidHandle)
	}
	all, err := ctorch.LoadSafeTensorsFile(path, ctorch.CPU)
	noErr(t, err)
	if len(all) != 3 {
		t.Errorf("LoadSafeTensorsFile gave %d tensors", len(all))
	}
	for _, x := range all {
		s.keep(x)
	}
	eqF64(t, all["w"], 1, 2, 3, 4, 5, 6)
	if n := liveSafeTensors(t); n != start {
		t.Errorf("live safetensors handles %d, want %d", n, start)
	}
}

func TestSafeTensorsZeroCopyAndCopyOnWrite(t *testing.T) {
	s := newScope(t)
	x := s.T(ctorch.FromSlice([]float64{1.5, 2.5}, []int64{2}, ctorch.CPU))
	path := filepath.Join(t.TempDir(), "z.safetensors")
	noErr(t, ctorch.SaveSafeTensors(path, map[string]*ctorch.Tensor{"x": x}, nil))
	before, err := os.ReadFile(path)
	noErr(t, err)
	f, err := ctorch.OpenSafeTensors(path)
	noErr(t, err)
	defer f.Close()
	m, err := f.Metadata()
	noErr(t, err)
	if len(m) != 0 {
		t.Errorf("metadata %v, want none", m)
	}
	a := s.T(f.GetTensor("x", ctorch.CPU))
	b := s.T(f.GetTensor("x", ctorch.CPU))
	pa, err := a.DataPtr()
	noErr(t, err)
	pb, err := b.DataPtr()
	noErr(t, err)
	if pa != pb {
		t.Errorf("two CPU tensors of one open file at %#x and %#x: not the one mapping", pa, pb)
	}
	noErr(t, a.Fill(9))
	eqF64(t, b, 9, 9) // the same private mapping
	after, err := os.ReadFile(path)
	noErr(t, err)
	if !bytes.Equal(before, after) {
		t.Errorf("writing into a mapped tensor changed the file")
	}
}

func TestSafeTensorsRefAndFinalizer(t *testing.T) {
	start := liveSafeTensors(t)
	b, err := ctorch.SafeTensorsBytes(map[string]*ctorch.Tensor{}, nil)
	noErr(t, err)
	if len(b) != 16 || string(b[8:]) != "{}      " {
		t.Errorf("empty file %q", b)
	}
	f, err := ctorch.LoadSafeTensors(b)
	noErr(t, err)
	g, err := f.Ref()
	noErr(t, err)
	if f.Handle() != g.Handle() || f.Closed() {
		t.Errorf("Ref: handles %d and %d", f.Handle(), g.Handle())
	}
	noErr(t, f.Close())
	if !f.Closed() {
		t.Errorf("Closed() false after Close")
	}
	keys, err := g.Keys() // g's reference keeps the file
	noErr(t, err)
	if len(keys) != 0 {
		t.Errorf("keys %q", keys)
	}
	g = nil
	for i := 0; i < 4; i++ {
		_, err := ctorch.LoadSafeTensors(b) // dropped without Close
		noErr(t, err)
	}
	collectUntil(t, "safetensors files", liveSafeTensors, start)
	var nilFile *ctorch.SafeTensorsFile
	noErr(t, nilFile.Close())
	_, err = nilFile.Keys()
	wantErr(t, err, ctorch.ErrInvalidHandle)
	if nilFile.Handle() != 0 || !nilFile.Closed() {
		t.Errorf("nil file has a handle")
	}
	_, err = nilFile.Ref()
	wantErr(t, err, ctorch.ErrInvalidHandle)
}

func TestSafeTensorsErrors(t *testing.T) {
	s := newScope(t)
	x := s.T(ctorch.FromSlice([]float32{1}, []int64{1}, ctorch.CPU))
	c := s.T(x.To(ctorch.Complex128))
	dir := t.TempDir()
	p := filepath.Join(dir, "e.safetensors")
	e := wantErr(t, ctorch.SaveSafeTensors(p, map[string]*ctorch.Tensor{"__metadata__": x}, nil), ctorch.ErrArgument)
	if e.Op != "safetensors_save_file" {
		t.Errorf("Op %q", e.Op)
	}
	wantErr(t, ctorch.SaveSafeTensors(p, map[string]*ctorch.Tensor{"c": c}, nil), ctorch.ErrNotSupported)
	wantErr(t, ctorch.SaveSafeTensors(p, map[string]*ctorch.Tensor{"a\x00b": x}, nil), ctorch.ErrArgument)
	wantErr(t, ctorch.SaveSafeTensors(p, map[string]*ctorch.Tensor{"a": x}, map[string]string{"k": "v\x00"}), ctorch.ErrArgument)
	wantErr(t, ctorch.SaveSafeTensors(p, map[string]*ctorch.Tensor{"a": nil}, nil), ctorch.ErrInvalidHandle)
	wantErr(t, ctorch.SaveSafeTensors(p, map[string]*ctorch.Tensor{"\xff": x}, nil), ctorch.ErrArgument)
	wantErr(t, ctorch.SaveSafeTensors("", map[string]*ctorch.Tensor{"a": x}, nil), ctorch.ErrArgument)
	wantErr(t, ctorch.SaveSafeTensors(filepath.Join(dir, "no", "such"), map[string]*ctorch.Tensor{"a": x}, nil), ctorch.ErrArgument)
	_, err := ctorch.SafeTensorsBytes(map[string]*ctorch.Tensor{"c": c}, nil)
	wantErr(t, err, ctorch.ErrNotSupported)
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("a failed save left %s", p)
	}

	_, err = ctorch.OpenSafeTensors(filepath.Join(dir, "missing"))
	e = wantErr(t, err, ctorch.ErrArgument)
	if e.Op != "safetensors_open" {
		t.Errorf("Op %q", e.Op)
	}
	_, err = ctorch.OpenSafeTensors("")
	wantErr(t, err, ctorch.ErrArgument)
	_, err = ctorch.LoadSafeTensors(nil)
	wantErr(t, err, ctorch.ErrArgument)
	_, err = ctorch.LoadSafeTensors([]byte("\x02\x00\x00\x00\x00\x00\x00\x00{]"))
	e = wantErr(t, err, ctorch.ErrArgument)
	if e.Op != "safetensors_open_buffer" {
		t.Errorf("Op %q", e.Op)
	}

	// a dtype the format has and ctorch does not: listed, its shape known, not loadable
	hdr := `{"q":{"dtype":"F8_E4M3","shape":[2],"data_offsets":[0,2]}}`
	raw := append([]byte{byte(len(hdr)), 0, 0, 0, 0, 0, 0, 0}, hdr...)
	raw = append(raw, 1, 2)
	f, err := ctorch.LoadSafeTensors(raw)
	noErr(t, err)
	defer f.Close()
	shape, err := f.Shape("q")
	noErr(t, err)
	if !reflect.DeepEqual(shape, []int64{2}) {
		t.Errorf("shape %v", shape)
	}
	_, err = f.DType("q")
	wantErr(t, err, ctorch.ErrNotSupported)
	_, err = f.GetTensor("q", ctorch.CPU)
	wantErr(t, err, ctorch.ErrNotSupported)
	_, err = f.GetTensor("nope", ctorch.CPU)
	wantErr(t, err, ctorch.ErrIndex)
	_, err = f.GetTensor("q\x00", ctorch.CPU)
	wantErr(t, err, ctorch.ErrIndex)
	_, err = f.Shape("nope")
	wantErr(t, err, ctorch.ErrIndex)
	_, err = f.DType("nope")
	wantErr(t, err, ctorch.ErrIndex)
	_, err = f.GetTensor("q", ctorch.Device{Type: ctorch.DeviceCPU, Index: 1 << 40})
	wantErr(t, err, ctorch.ErrArgument)
}
