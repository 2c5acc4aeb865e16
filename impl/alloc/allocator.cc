#include "impl/alloc/allocator.h"

#include <cstdlib>
#include <new>

#include "impl/core/error.h"

namespace ct::alloc {

namespace {
constexpr int64_t kAlign = 64;
}

void* allocate(int64_t nbytes, Device device) {
  if (device.is_cuda()) {
    fail(CT_ERR_NOT_SUPPORTED,
         "CUDA tensors are not available in this version of ctorch (0.1 enumerates CUDA devices "
         "only; tensors on ", device.str(), " arrive with the CUDA runtime). Use device 'cpu'.");
  }
  int64_t rounded = nbytes <= 0 ? kAlign : (nbytes + kAlign - 1) / kAlign * kAlign;
  CT_CHECK(rounded >= nbytes, CT_ERR_OUT_OF_MEMORY, "CPU out of memory: tried to allocate ",
           nbytes, " bytes");
  void* p = std::aligned_alloc(kAlign, static_cast<size_t>(rounded));
  CT_CHECK(p != nullptr, CT_ERR_OUT_OF_MEMORY, "CPU out of memory: tried to allocate ", nbytes,
           " bytes (", static_cast<double>(nbytes) / (1 << 20), " MiB)");
  return p;
}

void deallocate(void* p, int64_t, Device) noexcept { std::free(p); }

}  // namespace ct::alloc
