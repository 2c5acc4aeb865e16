package ctorch

import (
	"fmt"
	"strings"

	"ctorch.dev/ctorch/internal/capi"
)

// DeviceType is the kind of a device: DeviceCPU or DeviceCUDA (abi_gen.go, from capi/abi.toml).
type DeviceType int32

// String is "cpu" or "cuda" ("DeviceType(N)" for another value).
func (t DeviceType) String() string {
	return capi.EnumName(deviceTypeNames, int32(t), "DeviceType")
}

// Device is torch.device: a type and an index. Index -1 means "no index": for CUDA the current
// CUDA device, for CPU the only CPU device. Devices are comparable values; a Device is also an
// Option (Zeros(shape, dev), t.To(dev)).
type Device struct {
	Type  DeviceType
	Index int
}

var (
	// CPU is torch.device("cpu").
	CPU = Device{Type: DeviceCPU, Index: -1}
	// CUDA is torch.device("cuda"): the current CUDA device.
	CUDA = Device{Type: DeviceCUDA, Index: -1}
)

// CUDADevice returns torch.device("cuda", index).
func CUDADevice(index int) Device { return Device{Type: DeviceCUDA, Index: index} }

// ParseDevice parses "cpu", "cpu:0", "cuda" or "cuda:N" exactly as torch.device does
// (ct_device_parse). Anything else fails with ErrDeviceString.
func ParseDevice(s string) (Device, error) {
	if strings.IndexByte(s, 0) >= 0 {
		return Device{}, goError("parse_device", CodeDeviceString, "device string %q contains a NUL byte", s)
	}
	typ, idx := []int32{0}, []int32{0}
	if err := call("parse_device", func() int { return capi.Ct_device_parse(s, typ, idx) }); err != nil {
		return Device{}, err
	}
	return Device{Type: DeviceType(typ[0]), Index: int(idx[0])}, nil
}

// String prints the device as torch does: "cpu", "cuda", "cuda:1" (ct_device_format).
func (d Device) String() string {
	s, err := d.format()
	if err != nil {
		if d.Index < 0 {
			return d.Type.String()
		}
		return fmt.Sprintf("%s:%d", d.Type, d.Index)
	}
	return s
}

// check is op's ErrIndex for an index that does not fit the C API's int32_t.
func (d Device) check(op string) error {
	if int(int32(d.Index)) != d.Index {
		return goError(op, CodeIndex, "device index %d out of range", d.Index)
	}
	return nil
}

func (d Device) format() (string, error) {
	if err := d.check("format_device"); err != nil {
		return "", err
	}
	var s string
	err := call("format_device", func() int {
		needed := []int64{0}
		st := capi.Ct_device_format(int(d.Type), d.Index, nil, 0, needed)
		if st != 0 && st != capi.CT_ERR_BUFFER_SIZE {
			return st
		}
		buf := make([]byte, needed[0]+1)
		st = capi.Ct_device_format(int(d.Type), d.Index, buf, int64(len(buf)), needed)
		if st == 0 {
			s = string(buf[:needed[0]])
		}
		return st
	})
	return s, err
}

// IsCUDA reports whether d is a CUDA device.
func (d Device) IsCUDA() bool { return d.Type == DeviceCUDA }

// IsCPU reports whether d is the CPU.
func (d Device) IsCPU() bool { return d.Type == DeviceCPU }

func (d Device) apply(o *options) { o.device, o.deviceSet = d, true }
