#include "impl/core/device.h"

#include <cctype>

#include "impl/core/error.h"

namespace ct {

std::string Device::str() const {
  std::string s = is_cpu() ? "cpu" : "cuda";
  if (index >= 0) s += ":" + std::to_string(index);
  return s;
}

Device parse_device(const std::string& s) {
  // Same grammar as c10::Device: (cpu|cuda)(:[0-9]+)?, no sign, no leading zeros, no spaces.
  auto bad = [&](const char* why) {
    fail(Status::DeviceString, "Invalid device string: '", s, "' (", why,
         "; expected 'cpu', 'cuda' or 'cuda:N' with N a non-negative integer)");
  };
  auto colon = s.find(':');
  std::string type = s.substr(0, colon);
  Device d;
  if (type == "cpu") d.type = DeviceType::CPU;
  else if (type == "cuda") d.type = DeviceType::CUDA;
  else bad("unknown device type");
  if (colon == std::string::npos) return d;
  std::string idx = s.substr(colon + 1);
  if (idx.empty()) bad("missing device index after ':'");
  for (char c : idx)
    if (!std::isdigit(static_cast<unsigned char>(c))) bad("device index is not a number");
  if (idx.size() > 1 && idx[0] == '0') bad("device index has a leading zero");
  if (idx.size() > 9) bad("device index is too large");
  d.index = std::stoi(idx);
  if (d.is_cpu() && d.index != 0) {
    fail(Status::DeviceString, "Invalid device string: '", s,
         "' (CPU device index must be zero, got ", d.index, ")");
  }
  return d;
}

Device device_from_c(int32_t type, int32_t index) {
  CT_CHECK(type >= 0 && type < kDeviceTypeCount, Status::Argument, "invalid device type ", type,
           " (expected CT_CPU = 0 or CT_CUDA = 1)");
  CT_CHECK(index >= -1, Status::Argument, "invalid device index ", index,
           " (expected -1 for 'no index' or a non-negative index)");
  Device d{static_cast<DeviceType>(type), index};
  CT_CHECK(!(d.is_cpu() && index > 0), Status::Argument,
           "CPU device index must be -1 or 0, got ", index);
  return d;
}

}  // namespace ct
