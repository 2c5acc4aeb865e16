#include "impl/cuda/exchange.h"

#include "impl/cuda/runtime.h"

namespace ct::cuda {

int exchange_device(int device) {
  if (device < 0 && !is_available()) return -1;
  int cur = current_device();
  if (device >= 0 && device != cur) set_device(device);
  return cur;
}

}  // namespace ct::cuda
