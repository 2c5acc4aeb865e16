// What the ops tell the stream sanitizer (Note [Stream sanitizer] in impl/core/csan.cc): after
// queueing CUDA work on a stream, the tensors it read and wrote. Costs one branch while the
// sanitizer is off:
//   CT_CSAN_KERNEL(stream, "add", {{a, "self"}, {b, "other"}}, {{out, "out"}});
// An op with several steps (a copy and the host's wait for it, a loop over devices) records each
// step in a CsanReports and raises once at its end, so that a race never leaves it half done.
#pragma once
#include <string>
#include <vector>

#include "impl/core/csan.h"
#include "impl/core/tensor.h"
#include "impl/cuda/stream.h"

namespace ct::cuda {

struct CsanTensor {
  const TensorImpl* t;  // CPU tensors (0-dim operands) and nullptr are skipped
  const char* name;
};

inline csan::StreamKey csan_key(const Stream& s) { return csan::stream_key(s->device, s->stream); }

// The reports of an op's steps, raised (error mode) by raise() at the op's end.
class CsanReports {
 public:
  // Work queued into a graph capture is not checked (it runs at replay).
  void kernel(const Stream& s, const char* op, const std::vector<CsanTensor>& reads,
              const std::vector<CsanTensor>& writes);
  void raise(const char* op) const { csan::raise(op, found_); }

 private:
  std::vector<std::string> found_;
};

// One step, raised at once.
void csan_kernel(const Stream& s, const char* op, const std::vector<CsanTensor>& reads,
                 const std::vector<CsanTensor>& writes);

}  // namespace ct::cuda

#define CT_CSAN_KERNEL(stream, op, ...)                                          \
  do {                                                                           \
    if (::ct::csan::on()) ::ct::cuda::csan_kernel((stream), (op), __VA_ARGS__);  \
  } while (0)
