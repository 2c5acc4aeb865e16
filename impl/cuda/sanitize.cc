#include "impl/cuda/sanitize.h"

#include <cuda_runtime_api.h>

#include "impl/core/error.h"
#include "impl/cuda/capture.h"

namespace ct::cuda {

namespace {
std::vector<csan::Arg> args_of(const std::vector<CsanTensor>& ts) {
  std::vector<csan::Arg> out;
  for (const CsanTensor& c : ts) {
    if (!c.t || !c.t->device().is_cuda() || c.t->storage->data() == nullptr) continue;
    const void* data = c.t->storage->data();
    out.push_back(csan::Arg{data, c.name, csan::TensorDesc{c.t->dtype, c.t->sizes, c.t->device().index, c.t->offset, data}});
  }
  return out;
}
}  // namespace

void CsanReports::kernel(const Stream& s, const char* op, const std::vector<CsanTensor>& reads,
                         const std::vector<CsanTensor>& writes) {
  if (!csan::on() || capture_of(s->stream) != 0) return;
  std::vector<std::string> r = csan::kernel(csan_key(s), op, args_of(reads), args_of(writes));
  found_.insert(found_.end(), r.begin(), r.end());
}

void csan_kernel(const Stream& s, const char* op, const std::vector<CsanTensor>& reads,
                 const std::vector<CsanTensor>& writes) {
  CsanReports r;
  r.kernel(s, op, reads, writes);
  r.raise(op);
}

}  // namespace ct::cuda
