// What the ops tell the stream sanitizer (Note [Stream sanitizer] in impl/core/csan.cc): after
// queueing CUDA work on a stream, the tensors it read and wrote. Costs one branch while the
// sanitizer is off:
//   CT_CSAN_KERNEL(stream, "add", {{a, "self"}, {b, "other"}}, {{out, "out"}});
#pragma once
#include <vector>

#include "impl/core/csan.h"
#include "impl/core/tensor.h"

namespace ct::cuda {

struct CsanTensor {
  const TensorImpl* t;  // CPU tensors (0-dim operands) and nullptr are skipped
  const char* name;
};
// stream: a cudaStream_t. Work queued into a graph capture is not checked (it runs at replay).
void csan_kernel(const void* stream, const char* op, const std::vector<CsanTensor>& reads,
                 const std::vector<CsanTensor>& writes);

}  // namespace ct::cuda

#define CT_CSAN_KERNEL(stream, op, ...)                                          \
  do {                                                                           \
    if (::ct::csan::on()) ::ct::cuda::csan_kernel((stream), (op), __VA_ARGS__);  \
  } while (0)
