// CUDA device enumeration through the statically linked CUDA runtime. Everything here works
// (and reports "unavailable") on machines without a GPU or a driver.
#pragma once
#include <cstdint>
#include <string>

namespace ct::cuda {

bool is_available();
int device_count();               // 0 when CUDA is unavailable
void check_available();           // throws CT_ERR_CUDA_UNAVAILABLE with the runtime's reason
int current_device();             // throws when unavailable
void check_device_index(int device);  // throws CT_ERR_INDEX with the visible count
std::string device_name(int device);
int64_t device_property(int device, int32_t prop);  // prop: ct_device_property

}  // namespace ct::cuda
