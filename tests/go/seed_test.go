package ctorch_test

import (
	"testing"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/cuda"
)

// The device-agnostic examples of the seed tutorials on to(device) (seeds 003 and 004), on
// "cuda" when available, else "cpu".

// device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
func TestSeedPickDevice(t *testing.T) {
	name := "cpu"
	if cudaTensors() {
		name = "cuda:0"
	}
	dev, err := ctorch.ParseDevice(name)
	noErr(t, err)
	if dev.String() != name {
		t.Errorf("device prints %q, want %q", dev, name)
	}
	if cuda.IsAvailable() != (cuda.DeviceCount() > 0) {
		t.Error("is_available disagrees with device_count")
	}
}

// tensor = torch.tensor([1,2,3]); tensor_on_gpu = tensor.to(device);
// tensor_back_on_cpu = tensor_on_gpu.cpu().numpy()
func TestSeedTensorToDeviceAndBack(t *testing.T) {
	s, dev := setup(t)
	tensor := s.T(ctorch.FromSlice([]int64{1, 2, 3}, nil))
	eqRepr(t, tensor, "tensor([1, 2, 3])")
	if tensor.Device().String() != "cpu" {
		t.Errorf("default device %v, want cpu", tensor.Device())
	}

	onDev := s.T(tensor.To(dev))
	same, err := onDev.IsSame(tensor)
	noErr(t, err)
	if dev.IsCPU() {
		// "if the tensor is already on the device, to(device) makes no copy"
		if !same {
			t.Error("to(cpu) of a cpu tensor made a copy")
		}
		eqRepr(t, onDev, "tensor([1, 2, 3])")
	} else {
		if same {
			t.Error("to(cuda) returned the cpu tensor")
		}
		if onDev.Device() != ctorch.CUDADevice(0) {
			t.Errorf("device %v, want cuda:0", onDev.Device())
		}
		eqRepr(t, onDev, "tensor([1, 2, 3], device='cuda:0')")
	}

	back := s.T(onDev.CPU())
	eqI64(t, back, 1, 2, 3)
	if back.Device() != ctorch.CPU {
		t.Errorf("cpu() gave %v", back.Device())
	}
	// the tensor on the device stays there
	if onDev.Device().Type != dev.Type {
		t.Errorf("original moved to %v", onDev.Device())
	}
	// derived tensors stay on the device of their inputs
	sum := s.T(onDev.Add(onDev))
	if sum.Device() != onDev.Device() {
		t.Errorf("result on %v, inputs on %v", sum.Device(), onDev.Device())
	}
	eqI64(t, sum, 2, 4, 6)
}

// x = torch.rand(2); y = x + torch.rand(2) (a new tensor); x.add_(torch.rand(2)) (in place)
func TestSeedInPlaceVersusNew(t *testing.T) {
	s, dev := setup(t)
	x := s.T(ctorch.FromSlice([]float32{0.25, 0.5}, nil, dev))
	r := s.T(ctorch.FromSlice([]float32{1, 2}, nil, dev))
	y := s.T(x.Add(r))
	eqF64(t, y, 1.25, 2.5)
	eqF64(t, x, 0.25, 0.5) // x unchanged
	noErr(t, x.AddInPlace(r))
	eqF64(t, x, 1.25, 2.5) // x changed in place
	shares(t, x, y, false)
}
