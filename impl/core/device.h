// Device = (type, index), parsed and printed exactly as torch.device.
#pragma once
#include <cstdint>
#include <string>

#include "impl/abi/tables.h"

namespace ct {

// enum class DeviceType (CPU, CUDA) is in impl/abi/tables.h.

struct Device {
  DeviceType type = DeviceType::CPU;
  int32_t index = -1;  // -1: no index (CPU, or "the current CUDA device" before resolution)

  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_cuda() const { return type == DeviceType::CUDA; }
  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  std::string str() const;
};

Device parse_device(const std::string& s);           // throws Status::DeviceString
Device device_from_c(int32_t type, int32_t index);  // validates, throws Status::Argument
// Resolves "cuda" (no index) to the current CUDA device and checks the device exists.
// CPU devices come back as (CPU, -1).
Device resolve_device(Device d);

}  // namespace ct
