// Package ctorch is PyTorch's tensor (and torch.cuda) semantics for Go, on top of the C
// library libctorch.so.
//
//	dev := ctorch.CPU
//	if cuda.IsAvailable() {
//		dev = ctorch.CUDA
//	}
//	x, err := ctorch.FromSlice([]int64{1, 2, 3}, nil)   // torch.tensor([1, 2, 3])
//	if err != nil { ... }
//	defer x.Close()
//	y, err := x.To(dev)                                 // x.to(device)
//	...
//	fmt.Println(y)                                      // tensor([1, 2, 3], device='cuda:0')
//
// Every fallible call returns an error (an *Error carrying the library's status code, name and
// message; compare with errors.Is(err, ctorch.ErrShape) and friends). Tensors own a native
// handle: Close them (a finalizer is only a safety net). Random numbers: ManualSeed, Rand,
// Randn, Randint, the in-place fills (Tensor.UniformInPlace, ...) and Generator, whose values
// are the same on the CPU as on CUDA (see Generator). Matrix products: Tensor.Matmul, Mm, Bmm,
// Dot, Mv and Addmm. torch.fft: FFT, IFFT, RFFT, IRFFT, HFFT, FFTN, IFFTN, RFFTN, IRFFTN,
// FFT2, IFFT2, FFTFreq, FFTShift and IFFTShift (options FFTLength, FFTDim, FFTSizes, FFTDims
// and a FFTNorm). See docs/go.md.
package ctorch
