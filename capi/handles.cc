#include "capi/handles.h"

#include "capi/api.h"

namespace ct::capi {

ct_tensor new_handle(Tensor t) { return TensorTable::get().add(std::move(t)); }
Tensor get(ct_tensor h, const char* arg) { return TensorTable::get().lookup(h, arg); }
void retain(ct_tensor h) { TensorTable::get().retain(h); }
void release(ct_tensor h) { TensorTable::get().release(h); }
int64_t live_count() { return TensorTable::get().live(); }

}  // namespace ct::capi
