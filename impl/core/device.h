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
// Resolving "cuda" (no index) to the current device: cuda::resolve_device (impl/cuda/runtime.h).

}  // namespace ct
