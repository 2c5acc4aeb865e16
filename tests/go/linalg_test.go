package ctorch_test

// Matrix products (Matmul, Mm, Bmm, Dot, Mv, Addmm), the torch.backends.cuda.matmul switches and
// cuda.CurrentBLASHandle. Expected values are written out by hand or computed here in float64
// (complex128) from the operands' values; they do not come from ctorch. The products run on the
// suite's test device (CUDA where there is a GPU); TestGPUMatrixProducts compares CUDA with
// the CPU.

import (
	"math"
	"math/cmplx"
	"runtime"
	"strings"
	"testing"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/cuda"
)

// seq is n deterministic values in [-1, 1] that are not short binary fractions (so products
// and sums are rounded in float32 and below).
func seq(n int, salt float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Sin(float64(i)*1.7 + salt)
	}
	return v
}

// refMatmul is C = A B for row-major A (n x k) and B (k x m), in float64, with the sum of the
// absolute values of the terms of each entry (the scale of its rounding error).
func refMatmul(a, b []float64, n, k, m int) (c, scale []float64) {
	c, scale = make([]float64, n*m), make([]float64, n*m)
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			for p := 0; p < k; p++ {
				c[i*m+j] += a[i*k+p] * b[p*m+j]
				scale[i*m+j] += math.Abs(a[i*k+p] * b[p*m+j])
			}
		}
	}
	return c, scale
}

// wantMessage checks the error's sentinel, Op and exact message (prefix: message must start
// with it).
func wantMessage(t *testing.T, err error, sentinel error, op, prefix string) {
	t.Helper()
	e := wantErr(t, err, sentinel)
	if e.Op != op {
		t.Errorf("error op %q, want %q (%v)", e.Op, op, err)
	}
	if !strings.HasPrefix(e.Message, prefix) {
		t.Errorf("error message %q, want it to start with %q", e.Message, prefix)
	}
}

func TestMm(t *testing.T) {
	s := newScope(t)
	dev := testDevice()
	for _, dt := range []ctorch.DType{ctorch.Float32, ctorch.Float64} {
		// [[1 2 3] [4 5 6]] x [[7 8] [9 10] [11 12]] = [[58 64] [139 154]] (by hand)
		a := s.T(ctorch.FromSlice([]float64{1, 2, 3, 4, 5, 6}, []int64{2, 3}, dt, dev))
		b := s.T(ctorch.FromSlice([]float64{7, 8, 9, 10, 11, 12}, []int64{3, 2}, dt, dev))
		c := s.T(a.Mm(b))
		eqShape(t, c, 2, 2)
		eqDType(t, c, dt)
		if c.Device() != a.Device() {
			t.Errorf("device %v, want %v", c.Device(), a.Device())
		}
		eqF64(t, c, 58, 64, 139, 154)
		eqF64(t, s.T(a.Matmul(b)), 58, 64, 139, 154)
		// b^T times a^T = (a b)^T, through transposed (non-contiguous) views
		bt := s.T(b.Transpose(0, 1))
		at := s.T(a.Transpose(0, 1))
		eqF64(t, s.T(bt.Mm(at)), 58, 139, 64, 154)
		// the other order: (3x2)(2x3) = [[39 54 69] [49 68 87] [59 82 105]]
		eqF64(t, s.T(b.Mm(a)), 39, 54, 69, 49, 68, 87, 59, 82, 105)
	}
	// values that round: float64 within 1e-15, float32 within its precision
	av, bv := seq(5*7, 0.3), seq(7*4, 1.1)
	want, scale := refMatmul(av, bv, 5, 7, 4)
	for _, dt := range []ctorch.DType{ctorch.Float64, ctorch.Float32} {
		a := s.T(ctorch.FromSlice(av, []int64{5, 7}, dev))
		b := s.T(ctorch.FromSlice(bv, []int64{7, 4}, dev))
		if dt == ctorch.Float32 {
			// the reference is computed from the float32 values the tensors hold
			a, b = s.T(a.To(dt)), s.T(b.To(dt))
			af, err := a.Float64s()
			noErr(t, err)
			bf, err := b.Float64s()
			noErr(t, err)
			want, scale = refMatmul(af, bf, 5, 7, 4)
		}
		got, err := s.T(a.Mm(b)).Float64s()
		noErr(t, err)
		eps := 1e-15 // about (k + 1) units of roundoff of the dtype
		if dt == ctorch.Float32 {
			eps = 5e-7
		}
		for i := range want {
			if d := math.Abs(got[i] - want[i]); d > eps*(scale[i]+1) {
				t.Fatalf("%v: entry %d is %v, want %v (error %g)", dt, i, got[i], want[i], d)
			}
		}
	}
	// empty products: (2x0)(0x3) is zeros, (0x3)(3x2) is empty
	z := s.T(ctorch.Empty([]int64{2, 0}, ctorch.Float64, dev))
	z2 := s.T(ctorch.Empty([]int64{0, 3}, ctorch.Float64, dev))
	r := s.T(z.Mm(z2))
	eqShape(t, r, 2, 3)
	eqF64(t, r, 0, 0, 0, 0, 0, 0)
	m := s.T(ctorch.Ones([]int64{3, 2}, ctorch.Float64, dev))
	eqShape(t, s.T(z2.Mm(m)), 0, 2)
}

func TestMatmulShapeRules(t *testing.T) {
	s := newScope(t)
	dev := testDevice()
	v := s.T(ctorch.FromSlice([]float64{1, 2, 3}, nil, dev))
	w := s.T(ctorch.FromSlice([]float64{4, 5, 6}, nil, dev))
	a := s.T(ctorch.FromSlice([]float64{1, 2, 3, 4, 5, 6}, []int64{2, 3}, dev))
	b := s.T(ctorch.FromSlice([]float64{7, 8, 9, 10, 11, 12}, []int64{3, 2}, dev))

	// 1-D x 1-D: the dot product, 0-dim: 4 + 10 + 18 = 32
	r := s.T(v.Matmul(w))
	eqShape(t, r)
	eqF64(t, r, 32)
	// 1-D x 2-D: a row vector, removed: [1 2 3] b = [58 64]
	r = s.T(v.Matmul(b))
	eqShape(t, r, 2)
	eqF64(t, r, 58, 64)
	// 2-D x 1-D: a column vector, removed: a [4 5 6] = [32 77]
	r = s.T(a.Matmul(w))
	eqShape(t, r, 2)
	eqF64(t, r, 32, 77)

	// batched, with broadcast batch dimensions: (2,1,3,4) x (5,4,2) -> (2,5,3,2)
	xv, yv := seq(2*3*4, 0.5), seq(5*4*2, 2.5)
	x := s.T(ctorch.FromSlice(xv, []int64{2, 1, 3, 4}, dev))
	y := s.T(ctorch.FromSlice(yv, []int64{5, 4, 2}, dev))
	r = s.T(x.Matmul(y))
	eqShape(t, r, 2, 5, 3, 2)
	eqDType(t, r, ctorch.Float64)
	got, err := r.Float64s()
	noErr(t, err)
	for b0 := 0; b0 < 2; b0++ {
		for b1 := 0; b1 < 5; b1++ {
			want, _ := refMatmul(xv[b0*12:(b0+1)*12], yv[b1*8:(b1+1)*8], 3, 4, 2)
			for e := range want {
				if g := got[((b0*5+b1)*3)*2+e]; math.Abs(g-want[e]) > 1e-14 {
					t.Fatalf("r[%d,%d] entry %d is %v, want %v", b0, b1, e, g, want[e])
				}
			}
		}
	}
	// a few entries written out: r[0,0,0,0] = sum_p x[0,0,0,p] y[0,p,0]
	for _, c := range [][3]int{{0, 0, 0}, {1, 4, 5}, {1, 2, 3}} { // (b0, b1, i*2+j)
		i, j := c[2]/2, c[2]%2
		var want float64
		for p := 0; p < 4; p++ {
			want += xv[c[0]*12+i*4+p] * yv[c[1]*8+p*2+j]
		}
		if g := got[(c[0]*5+c[1])*6+c[2]]; math.Abs(g-want) > 1e-14 {
			t.Errorf("r[%d,%d,%d,%d] = %v, want %v", c[0], c[1], i, j, g, want)
		}
	}

	// batched x 1-D and 1-D x batched: (2,3,4) x (4) -> (2,3); (4) x (2,4,3) -> (2,3)
	bt := s.T(ctorch.FromSlice([]float64{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2}, []int64{2, 3, 4}, dev))
	u := s.T(ctorch.FromSlice([]float64{1, 2, 3, 4}, nil, dev))
	r = s.T(bt.Matmul(u))
	eqShape(t, r, 2, 3)
	eqF64(t, r, 1, 2, 3, 4, 10, 20)
	bt2 := s.T(bt.Transpose(1, 2)) // (2,4,3)
	r = s.T(u.Matmul(bt2))
	eqShape(t, r, 2, 3)
	eqF64(t, r, 1, 2, 3, 4, 10, 20)

	// errors
	sc := s.T(ctorch.Scalar(2.0, dev))
	wantMessage(t, s.E(sc.Matmul(v)), ctorch.ErrShape, "matmul",
		"both arguments to matmul need to be at least 1D, but they are 0D and 1D")
	wantMessage(t, s.E(v.Matmul(a)), ctorch.ErrShape, "matmul", "mat1 and mat2 shapes cannot be multiplied (1x3 and 2x3)")
	wantErr(t, s.E(x.Matmul(b)), ctorch.ErrShape) // inner sizes 4 and 3
}

func TestBmmDotMv(t *testing.T) {
	s := newScope(t)
	dev := testDevice()
	// bmm: batch 0 is [[1 2 3] [4 5 6]] x [[7 8] [9 10] [11 12]], batch 1 the identity-like
	// [[1 0 0] [0 1 0]] x [[1 2] [3 4] [5 6]] = [[1 2] [3 4]]
	x := s.T(ctorch.FromSlice([]float32{1, 2, 3, 4, 5, 6, 1, 0, 0, 0, 1, 0}, []int64{2, 2, 3}, dev))
	y := s.T(ctorch.FromSlice([]float32{7, 8, 9, 10, 11, 12, 1, 2, 3, 4, 5, 6}, []int64{2, 3, 2}, dev))
	r := s.T(x.Bmm(y))
	eqShape(t, r, 2, 2, 2)
	eqDType(t, r, ctorch.Float32)
	eqF64(t, r, 58, 64, 139, 154, 1, 2, 3, 4)
	// bmm agrees with Matmul on 3-D operands, also for a float64 batch of 4 against the reference
	eqF64(t, s.T(x.Matmul(y)), 58, 64, 139, 154, 1, 2, 3, 4)
	xv, yv := seq(4*3*5, 0.1), seq(4*5*2, 0.9)
	bx := s.T(ctorch.FromSlice(xv, []int64{4, 3, 5}, dev))
	by := s.T(ctorch.FromSlice(yv, []int64{4, 5, 2}, dev))
	got, err := s.T(bx.Bmm(by)).Float64s()
	noErr(t, err)
	for b := 0; b < 4; b++ {
		want, _ := refMatmul(xv[b*15:(b+1)*15], yv[b*10:(b+1)*10], 3, 5, 2)
		for e := range want {
			if math.Abs(got[b*6+e]-want[e]) > 1e-14 {
				t.Fatalf("bmm batch %d entry %d is %v, want %v", b, e, got[b*6+e], want[e])
			}
		}
	}

	// dot: [1 2 3].[4 5 6] = 32; [0.5 -1.5 2.25].[2 4 -4] = 1 - 6 - 9 = -14
	v := s.T(ctorch.FromSlice([]float64{1, 2, 3}, nil, dev))
	w := s.T(ctorch.FromSlice([]float64{4, 5, 6}, nil, dev))
	d := s.T(v.Dot(w))
	eqShape(t, d)
	eqDType(t, d, ctorch.Float64)
	eqF64(t, d, 32)
	p := s.T(ctorch.FromSlice([]float32{0.5, -1.5, 2.25}, nil, dev))
	q := s.T(ctorch.FromSlice([]float32{2, 4, -4}, nil, dev))
	eqF64(t, s.T(p.Dot(q)), -14)
	item, err := s.T(p.Dot(q)).Item()
	noErr(t, err)
	if item != -14 {
		t.Errorf("item %v, want -14", item)
	}

	// mv: [[1 2 3] [4 5 6]] [1 0 -1] = [-2 -2]; [[1 2 3] [4 5 6]] [0.5 0.25 2] = [7 15.25]
	a := s.T(ctorch.FromSlice([]float64{1, 2, 3, 4, 5, 6}, []int64{2, 3}, dev))
	mv := s.T(a.Mv(s.T(ctorch.FromSlice([]float64{1, 0, -1}, nil, dev))))
	eqShape(t, mv, 2)
	eqF64(t, mv, -2, -2)
	eqF64(t, s.T(a.Mv(s.T(ctorch.FromSlice([]float64{0.5, 0.25, 2}, nil, dev)))), 7, 15.25)
	// a transposed matrix: a^T [1 1] = [5 7 9]
	at := s.T(a.Transpose(0, 1))
	eqF64(t, s.T(at.Mv(s.T(ctorch.FromSlice([]float64{1, 1}, nil, dev)))), 5, 7, 9)

	// errors
	v2 := s.T(ctorch.FromSlice([]float64{1, 2}, nil, dev))
	y3 := s.T(ctorch.Ones([]int64{3, 3, 2}, ctorch.Float32, dev))
	wantMessage(t, s.E(x.Bmm(y3)), ctorch.ErrShape, "bmm",
		"Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [3, 3].")
	wantMessage(t, s.E(x.Bmm(s.T(ctorch.Ones([]int64{3, 2}, dev)))), ctorch.ErrShape, "bmm", "batch2 must be a 3D tensor")
	wantMessage(t, s.E(v.Dot(v2)), ctorch.ErrShape, "dot",
		"inconsistent tensor size, expected tensor [3] and src [2] to have the same number of elements, but got 3 and 2 elements respectively")
	wantMessage(t, s.E(v.Dot(a)), ctorch.ErrShape, "dot", "1D tensors expected, but got 1D and 2D tensors")
	wantMessage(t, s.E(v.Dot(q)), ctorch.ErrDType, "dot",
		"dot : expected both vectors to have same dtype, but found Double and Float")
	wantMessage(t, s.E(a.Mv(v2)), ctorch.ErrShape, "mv", "size mismatch, got input (2), mat (2x3), vec (2)")
	wantMessage(t, s.E(v.Mv(v)), ctorch.ErrShape, "mv", "vector + matrix @ vector expected, got 1, 1, 1")
}

func TestAddmm(t *testing.T) {
	s := newScope(t)
	dev := testDevice()
	// a b = [[58 64] [139 154]] (TestMm)
	a := s.T(ctorch.FromSlice([]float64{1, 2, 3, 4, 5, 6}, []int64{2, 3}, dev))
	b := s.T(ctorch.FromSlice([]float64{7, 8, 9, 10, 11, 12}, []int64{3, 2}, dev))
	in := s.T(ctorch.FromSlice([]float64{1, 2, 3, 4}, []int64{2, 2}, dev))

	// PyTorch's defaults beta = alpha = 1: in + a b
	r := s.T(in.Addmm(a, b, 1, 1))
	eqShape(t, r, 2, 2)
	eqDType(t, r, ctorch.Float64)
	eqF64(t, r, 59, 66, 142, 158)
	// 0.5 in + 2 a b
	eqF64(t, s.T(in.Addmm(a, b, 0.5, 2)), 116.5, 129, 279.5, 310)
	// -1 in + 0.25 a b
	eqF64(t, s.T(in.Addmm(a, b, -1, 0.25)), 13.5, 14, 31.75, 34.5)
	// alpha = 0: beta in only
	eqF64(t, s.T(in.Addmm(a, b, 3, 0)), 3, 6, 9, 12)
	// the input broadcasts: a row [10 20], a column [[1] [2]], a 0-dim 100
	row := s.T(ctorch.FromSlice([]float64{10, 20}, nil, dev))
	eqF64(t, s.T(row.Addmm(a, b, 1, 1)), 68, 84, 149, 174)
	col := s.T(ctorch.FromSlice([]float64{1, 2}, []int64{2, 1}, dev))
	eqF64(t, s.T(col.Addmm(a, b, 2, 1)), 60, 66, 143, 158)
	sc := s.T(ctorch.Scalar(100.0, dev))
	r = s.T(sc.Addmm(a, b, 1, 1))
	eqShape(t, r, 2, 2)
	eqF64(t, r, 158, 164, 239, 254)

	// beta = 0 ignores the input, NaN and infinities included (PyTorch's rule)
	nan := s.T(ctorch.Full([]int64{2, 2}, math.NaN(), ctorch.Float64, dev))
	eqF64(t, s.T(nan.Addmm(a, b, 0, 2)), 116, 128, 278, 308)
	inf := s.T(ctorch.Full([]int64{2}, math.Inf(1), ctorch.Float64, dev))
	eqF64(t, s.T(inf.Addmm(a, b, 0, 1)), 58, 64, 139, 154)
	// ... while any other beta lets NaN through
	got, err := s.T(nan.Addmm(a, b, 1e-30, 1)).Float64s()
	noErr(t, err)
	for i, g := range got {
		if !math.IsNaN(g) {
			t.Errorf("entry %d is %v, want NaN", i, g)
		}
	}

	// float32, against a float64 reference
	av, bv, iv := seq(4*6, 0.7), seq(6*3, 1.9), seq(4*3, 2.3)
	a32 := s.T(ctorch.FromSlice(av, []int64{4, 6}, ctorch.Float32, dev))
	b32 := s.T(ctorch.FromSlice(bv, []int64{6, 3}, ctorch.Float32, dev))
	i32 := s.T(ctorch.FromSlice(iv, []int64{4, 3}, ctorch.Float32, dev))
	af, _ := a32.Float64s()
	bf, _ := b32.Float64s()
	inf32, _ := i32.Float64s()
	prod, scale := refMatmul(af, bf, 4, 6, 3)
	r = s.T(i32.Addmm(a32, b32, 0.75, -1.5))
	eqDType(t, r, ctorch.Float32)
	got, err = r.Float64s()
	noErr(t, err)
	for i := range prod {
		want := 0.75*inf32[i] - 1.5*prod[i]
		if d := math.Abs(got[i] - want); d > 8e-7*(1.5*scale[i]+0.75*math.Abs(inf32[i])+1) {
			t.Fatalf("float32 addmm entry %d is %v, want %v", i, got[i], want)
		}
	}

	// errors
	wantErr(t, s.E(row.Addmm(a, a, 1, 1)), ctorch.ErrShape) // (2x3)(2x3)
	three := s.T(ctorch.FromSlice([]float64{1, 2, 3}, nil, dev))
	wantErr(t, s.E(three.Addmm(a, b, 1, 1)), ctorch.ErrShape) // (3) does not broadcast to (2,2)
	in32 := s.T(ctorch.Ones([]int64{2, 2}, ctorch.Float32, dev))
	wantMessage(t, s.E(in32.Addmm(a, b, 1, 1)), ctorch.ErrDType, "addmm", "self and mat2 must have the same dtype")
	wantMessage(t, s.E(in.Addmm(a, a32, 1, 1)), ctorch.ErrDType, "addmm",
		"expected m1 and m2 to have the same dtype, but got: double != float")
}

// Float16, BFloat16 and complex products, against float64 (complex128) references computed from
// the values the operands hold.
func TestMatrixProductsOtherDTypes(t *testing.T) {
	s := newScope(t)
	dev := testDevice()
	for _, c := range []struct {
		dt  ctorch.DType
		eps float64 // unit roundoff of the dtype
	}{{ctorch.Float16, 1.0 / 2048}, {ctorch.BFloat16, 1.0 / 256}} {
		// exact: integers (58, 64, 139, 154 have at most 8 significant bits)
		a := s.T(ctorch.FromSlice([]float64{1, 2, 3, 4, 5, 6}, []int64{2, 3}, c.dt, dev))
		b := s.T(ctorch.FromSlice([]float64{7, 8, 9, 10, 11, 12}, []int64{3, 2}, c.dt, dev))
		r := s.T(a.Mm(b))
		eqDType(t, r, c.dt)
		eqF64(t, r, 58, 64, 139, 154)
		eqF64(t, s.T(a.Matmul(s.T(b.Select(1, 0)))), 58, 139)
		// rounded: 6x9 by 9x5, each entry within 2 units of roundoff of the sum of |terms|
		av, bv := seq(6*9, 0.2), seq(9*5, 1.3)
		a = s.T(ctorch.FromSlice(av, []int64{6, 9}, c.dt, dev))
		b = s.T(ctorch.FromSlice(bv, []int64{9, 5}, c.dt, dev))
		ah, err := a.Float64s()
		noErr(t, err)
		bh, err := b.Float64s()
		noErr(t, err)
		want, scale := refMatmul(ah, bh, 6, 9, 5)
		got, err := s.T(a.Mm(b)).Float64s()
		noErr(t, err)
		worst := 0.0
		for i := range want {
			d := math.Abs(got[i] - want[i])
			if d > 2*c.eps*scale[i] {
				t.Fatalf("%v: entry %d is %v, want %v (error %g, bound %g)", c.dt, i, got[i], want[i], d, 2*c.eps*scale[i])
			}
			worst = math.Max(worst, d)
		}
		t.Logf("%v: 6x9x5 product, largest error %g", c.dt, worst)
		// addmm in the dtype: 0.5 * 2 + 1 * a b
		two := s.T(ctorch.Full([]int64{6, 5}, 2, c.dt, dev))
		got, err = s.T(two.Addmm(a, b, 0.5, 1)).Float64s()
		noErr(t, err)
		for i := range want {
			if d := math.Abs(got[i] - (1 + want[i])); d > 2*c.eps*(scale[i]+1) {
				t.Fatalf("%v addmm: entry %d is %v, want %v", c.dt, i, got[i], 1+want[i])
			}
		}
	}

	// complex: [[1+2i 2] [0 i]] x [[3-i 1] [i 1+i]] = [[5+7i 3+4i] [-1 -1+i]] (by hand)
	av := []complex128{1 + 2i, 2, 0, 1i}
	bv := []complex128{3 - 1i, 1, 1i, 1 + 1i}
	wantC := []complex128{5 + 7i, 3 + 4i, -1, -1 + 1i}
	for _, dt := range []ctorch.DType{ctorch.Complex64, ctorch.Complex128} {
		a := s.T(ctorch.FromSlice(av, []int64{2, 2}, dt, dev))
		b := s.T(ctorch.FromSlice(bv, []int64{2, 2}, dt, dev))
		r := s.T(a.Mm(b))
		eqDType(t, r, dt)
		got, err := r.Complex128s()
		noErr(t, err)
		for i := range wantC {
			if got[i] != wantC[i] {
				t.Fatalf("%v mm: %v, want %v", dt, got, wantC)
			}
		}
		// dot does not conjugate: (1+2i)(3-i) + 2i = 5+7i
		v := s.T(ctorch.FromSlice([]complex128{1 + 2i, 2}, nil, dt, dev))
		w := s.T(ctorch.FromSlice([]complex128{3 - 1i, 1i}, nil, dt, dev))
		dv, err := s.T(v.Dot(w)).ItemComplex()
		noErr(t, err)
		if dv != 5+7i {
			t.Errorf("%v dot: %v, want (5+7i)", dt, dv)
		}
		// mv: a [1 i] = [1+2i + 2i, i*i] = [1+4i, -1]
		u := s.T(ctorch.FromSlice([]complex128{1, 1i}, nil, dt, dev))
		got, err = s.T(a.Mv(u)).Complex128s()
		noErr(t, err)
		if got[0] != 1+4i || got[1] != -1 {
			t.Errorf("%v mv: %v, want [(1+4i) (-1+0i)]", dt, got)
		}
	}
	// complex64, rounded: 4x7 by 7x3 against complex128
	n, k, m := 4, 7, 3
	ar, ai, br, bi := seq(n*k, 0.4), seq(n*k, 3.1), seq(k*m, 1.6), seq(k*m, 2.2)
	ac, bc := make([]complex64, n*k), make([]complex64, k*m)
	for i := range ac {
		ac[i] = complex64(complex(ar[i], ai[i]))
	}
	for i := range bc {
		bc[i] = complex64(complex(br[i], bi[i]))
	}
	a := s.T(ctorch.FromSlice(ac, []int64{int64(n), int64(k)}, dev))
	b := s.T(ctorch.FromSlice(bc, []int64{int64(k), int64(m)}, dev))
	got, err := s.T(a.Matmul(b)).Complex128s()
	noErr(t, err)
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			var want complex128
			var scale float64
			for p := 0; p < k; p++ {
				term := complex128(ac[i*k+p]) * complex128(bc[p*m+j])
				want += term
				scale += cmplx.Abs(term)
			}
			if d := cmplx.Abs(got[i*m+j] - want); d > 1e-6*scale {
				t.Fatalf("complex64 entry (%d,%d) is %v, want %v", i, j, got[i*m+j], want)
			}
		}
	}
}

func TestMatrixProductErrors(t *testing.T) {
	s := newScope(t)
	dev := testDevice()
	m43 := s.T(ctorch.Ones([]int64{4, 3}, dev))
	err := s.E(m43.Mm(m43))
	wantMessage(t, err, ctorch.ErrShape, "mm", "mat1 and mat2 shapes cannot be multiplied (4x3 and 4x3)")
	if want := "ctorch: mm: CT_ERR_SHAPE (103): mat1 and mat2 shapes cannot be multiplied (4x3 and 4x3)"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
	d34 := s.T(ctorch.Ones([]int64{3, 4}, ctorch.Float64, dev))
	f42 := s.T(ctorch.Ones([]int64{4, 2}, ctorch.Float32, dev))
	wantMessage(t, s.E(d34.Mm(f42)), ctorch.ErrDType, "mm", "expected m1 and m2 to have the same dtype, but got: double != float")
	wantMessage(t, s.E(d34.Matmul(f42)), ctorch.ErrDType, "matmul", "expected m1 and m2 to have the same dtype, but got: double != float")
	i22 := s.T(ctorch.Ones([]int64{2, 2}, ctorch.Int32, dev))
	wantMessage(t, s.E(i22.Mm(i22)), ctorch.ErrDType, "mm", `"mm" not implemented for 'Int'`)
	l3 := s.T(ctorch.Ones([]int64{3}, ctorch.Int64, dev))
	wantMessage(t, s.E(l3.Dot(l3)), ctorch.ErrDType, "dot", `"dot" not implemented for 'Long'`)
	b22 := s.T(ctorch.Ones([]int64{2, 2}, ctorch.Bool, dev))
	wantMessage(t, s.E(b22.Matmul(b22)), ctorch.ErrDType, "matmul", `"mm" not implemented for 'Bool'`)
	u2 := s.T(ctorch.Ones([]int64{2, 2, 2}, ctorch.Uint8, dev))
	wantMessage(t, s.E(u2.Bmm(u2)), ctorch.ErrDType, "bmm", `"bmm" not implemented for 'Byte'`)
	v3 := s.T(ctorch.Ones([]int64{3}, dev))
	wantMessage(t, s.E(v3.Mm(m43)), ctorch.ErrShape, "mm", "self must be a matrix")
	wantMessage(t, s.E(m43.Mm(v3)), ctorch.ErrShape, "mm", "mat2 must be a matrix")

	// closed and nil operands, in either place
	closed := s.T(ctorch.Ones([]int64{3, 3}, dev))
	noErr(t, closed.Close())
	var nilT *ctorch.Tensor
	for name, f := range map[string]func() (*ctorch.Tensor, error){
		"Mm(closed)":       func() (*ctorch.Tensor, error) { return m43.Mm(closed) },
		"closed.Matmul":    func() (*ctorch.Tensor, error) { return closed.Matmul(m43) },
		"Bmm(nil)":         func() (*ctorch.Tensor, error) { return m43.Bmm(nilT) },
		"nil.Dot":          func() (*ctorch.Tensor, error) { return nilT.Dot(v3) },
		"Mv(closed)":       func() (*ctorch.Tensor, error) { return m43.Mv(closed) },
		"Addmm(m1 closed)": func() (*ctorch.Tensor, error) { return m43.Addmm(closed, m43, 1, 1) },
		"Addmm(m2 nil)":    func() (*ctorch.Tensor, error) { return m43.Addmm(m43, nilT, 1, 1) },
		"closed.Addmm":     func() (*ctorch.Tensor, error) { return closed.Addmm(m43, m43, 1, 1) },
	} {
		r, err := f()
		s.keep(r)
		if r != nil {
			t.Errorf("%s returned a tensor with error %v", name, err)
		}
		if e := wantErr(t, err, ctorch.ErrInvalidHandle); e.Code != 102 {
			t.Errorf("%s: code %d, want 102", name, e.Code)
		}
	}
}

// The switches of torch.backends.cuda.matmul: PyTorch's defaults, set/get round trips (the
// defaults are restored at the end), and CurrentBLASHandle without a GPU.
func TestMatmulSwitches(t *testing.T) {
	s := newScope(t)
	switches := []struct {
		name string
		get  func() (bool, error)
		set  func(bool) error
		def  bool
	}{
		{"allow_tf32", cuda.AllowTF32, cuda.SetAllowTF32, false},
		{"allow_fp16_reduced_precision_reduction", cuda.AllowFP16ReducedPrecisionReduction, cuda.SetAllowFP16ReducedPrecisionReduction, true},
		{"allow_bf16_reduced_precision_reduction", cuda.AllowBF16ReducedPrecisionReduction, cuda.SetAllowBF16ReducedPrecisionReduction, true},
	}
	get := func(name string, f func() (bool, error)) bool {
		t.Helper()
		v, err := f()
		noErr(t, err)
		return v
	}
	for _, sw := range switches {
		sw := sw
		t.Cleanup(func() {
			if err := sw.set(sw.def); err != nil {
				t.Errorf("restoring %s: %v", sw.name, err)
			}
		})
		if v := get(sw.name, sw.get); v != sw.def {
			t.Errorf("%s is %v by default, want %v", sw.name, v, sw.def)
		}
	}
	for _, sw := range switches {
		for _, v := range []bool{!sw.def, !sw.def, sw.def, !sw.def} {
			noErr(t, sw.set(v))
			if got := get(sw.name, sw.get); got != v {
				t.Errorf("%s is %v after setting %v", sw.name, got, v)
			}
			// the others keep their values
			for _, o := range switches {
				if o.name != sw.name {
					if got := get(o.name, o.get); got != o.def {
						t.Errorf("%s is %v after setting %s, want %v", o.name, got, sw.name, o.def)
					}
				}
			}
		}
		noErr(t, sw.set(sw.def))
	}
	// the switches do not change CPU products (and a product works with each setting)
	a := s.T(ctorch.FromSlice([]float32{1, 2, 3, 4, 5, 6}, []int64{2, 3}))
	b := s.T(ctorch.FromSlice([]float32{7, 8, 9, 10, 11, 12}, []int64{3, 2}))
	for _, sw := range switches {
		noErr(t, sw.set(!sw.def))
	}
	eqF64(t, s.T(a.Mm(b)), 58, 64, 139, 154)
	for _, sw := range switches {
		noErr(t, sw.set(sw.def))
	}
	// the setting is process-wide: a goroutine on another OS thread sees it (this goroutine is
	// locked to its thread, so no other goroutine runs there)
	runtime.LockOSThread()
	noErr(t, cuda.SetAllowTF32(true))
	seen := make(chan bool)
	go func() {
		v, err := cuda.AllowTF32()
		seen <- err == nil && v
	}()
	if !<-seen {
		t.Errorf("another goroutine does not see allow_tf32 = true")
	}
	noErr(t, cuda.SetAllowTF32(false))
	runtime.UnlockOSThread()

	if !cuda.IsAvailable() {
		h, err := cuda.CurrentBLASHandle()
		wantUnavailable(t, err)
		if h != 0 {
			t.Errorf("CurrentBLASHandle() = %#x with an error, want 0", h)
		}
	}
}

// On a GPU: the CPU products again on CUDA, TF32 taking effect, CurrentBLASHandle, and operands
// on two devices.
func TestGPUMatrixProducts(t *testing.T) {
	needGPUs(t, 1)
	s := newScope(t)
	lockThread(t)
	gpu := ctorch.CUDADevice(0)
	// mm on CUDA equals mm on the CPU within 1e-5 (float32), for several shapes
	for _, sh := range [][3]int{{2, 3, 2}, {1, 1, 1}, {17, 33, 9}, {64, 64, 64}} {
		n, k, m := sh[0], sh[1], sh[2]
		a := s.T(ctorch.FromSlice(seq(n*k, 0.6), []int64{int64(n), int64(k)}, ctorch.Float32))
		b := s.T(ctorch.FromSlice(seq(k*m, 1.4), []int64{int64(k), int64(m)}, ctorch.Float32))
		cpu, err := s.T(a.Mm(b)).Float64s()
		noErr(t, err)
		ga, gb := s.T(a.To(gpu)), s.T(b.To(gpu))
		gc := s.T(ga.Mm(gb))
		if gc.Device() != gpu {
			t.Errorf("result on %v, want %v", gc.Device(), gpu)
		}
		got, err := gc.Float64s()
		noErr(t, err)
		for i := range cpu {
			if math.Abs(got[i]-cpu[i]) > 1e-5 {
				t.Fatalf("%dx%dx%d: CUDA entry %d is %v, CPU %v", n, k, m, i, got[i], cpu[i])
			}
		}
	}
	// the hand-computed product on CUDA
	a := s.T(ctorch.FromSlice([]float32{1, 2, 3, 4, 5, 6}, []int64{2, 3}, gpu))
	b := s.T(ctorch.FromSlice([]float32{7, 8, 9, 10, 11, 12}, []int64{3, 2}, gpu))
	eqF64(t, s.T(a.Mm(b)), 58, 64, 139, 154)

	// the handle: nonzero, the same on this (locked) thread, also after products
	h1, err := cuda.CurrentBLASHandle()
	noErr(t, err)
	if h1 == 0 {
		t.Fatalf("CurrentBLASHandle() = 0")
	}
	s.T(a.Mm(b))
	h2, err := cuda.CurrentBLASHandle()
	noErr(t, err)
	if h2 != h1 {
		t.Errorf("CurrentBLASHandle() changed from %#x to %#x on one thread", h1, h2)
	}

	// TF32: float32 products of 1024-long dot products change, within TF32's precision
	big := s.T(ctorch.FromSlice(seq(64*1024, 0.8), []int64{64, 1024}, ctorch.Float32, gpu))
	bigT := s.T(ctorch.FromSlice(seq(1024*64, 1.8), []int64{1024, 64}, ctorch.Float32, gpu))
	full, err := s.T(big.Mm(bigT)).Float64s()
	noErr(t, err)
	noErr(t, cuda.SetAllowTF32(true))
	tf, err := big.Mm(bigT)
	noErr(t, cuda.SetAllowTF32(false))
	fast, err2 := s.T(tf, err).Float64s()
	noErr(t, err2)
	differ, worst := 0, 0.0
	for i := range full {
		if full[i] != fast[i] {
			differ++
		}
		worst = math.Max(worst, math.Abs(full[i]-fast[i]))
	}
	t.Logf("TF32: %d of %d entries differ, largest difference %g", differ, len(full), worst)
	if differ == 0 || worst > 0.32 {
		t.Errorf("TF32 products: %d entries differ (want some), largest difference %g (want < 0.32)", differ, worst)
	}

	// operands on two devices
	c := s.T(ctorch.Ones([]int64{3, 2}, ctorch.Float32))
	wantMessage(t, s.E(a.Mm(c)), ctorch.ErrDevice, "mm", "Expected all tensors to be on the same device")
}
