// Sections 12a, 13 and 14 of ctorch.h: pinned memory, streams and events.
#include "capi/api.h"
#include "capi/handles.h"
#include "impl/alloc/allocator.h"
#include "impl/cuda/runtime.h"
#include "impl/cuda/stream.h"
#include "impl/ops/ops.h"

using namespace ct;
using namespace ct::capi;

namespace {
cuda::Stream stream_arg(ct_stream s, const char* name = "stream") { return StreamTable::get().lookup(s, name); }
cuda::Event event_arg(ct_event e, const char* name = "event") { return EventTable::get().lookup(e, name); }
// NULL means the current stream of the current device (torch's default for record/wait).
cuda::Stream stream_or_current(ct_stream s) { return s ? stream_arg(s) : cuda::current_stream(-1); }

void put_stream(ct_stream* out, cuda::Stream s) {
  need(out, "out");
  *out = StreamTable::get().add(std::move(s));
}
}  // namespace

extern "C" {

// ---- 12a

CT_API ct_status ct_tensor_pin_memory(ct_tensor t, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::pin_memory(get(t)); });
  CT_API_END
}

CT_API ct_status ct_tensor_is_pinned(ct_tensor t, int32_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = alloc::is_pinned(get(t)->storage->data_ptr) ? 1 : 0;
  CT_API_END
}

CT_API ct_status ct_tensor_record_stream(ct_tensor t, ct_stream s) {
  CT_API_BEGIN
  Tensor x = get(t);
  cuda::Stream st = stream_arg(s);
  CT_CHECK(x->device().is_cuda(), CT_ERR_DEVICE, "record_stream: expected a CUDA tensor, got a tensor on ",
           x->device().str());
  CT_CHECK(x->device().index == st->device, CT_ERR_DEVICE, "record_stream: the tensor is on ", x->device().str(),
           " but the stream is on cuda:", st->device);
  alloc::record_stream(x->storage->data_ptr, st);
  CT_API_END
}

// ---- 13. streams

CT_API ct_status ct_stream_create(int32_t device, int32_t priority, ct_stream* out) {
  CT_API_BEGIN
  need(out, "out");
  put_stream(out, cuda::create_stream(device, priority));
  CT_API_END
}

CT_API ct_status ct_stream_priority_range(int32_t* least, int32_t* greatest) {
  CT_API_BEGIN
  need(least, "least");
  need(greatest, "greatest");
  int l = 0, g = 0;
  cuda::priority_range(&l, &g);
  *least = l;
  *greatest = g;
  CT_API_END
}

CT_API ct_status ct_stream_default(int32_t device, ct_stream* out) {
  CT_API_BEGIN
  need(out, "out");
  put_stream(out, cuda::default_stream(device));
  CT_API_END
}

CT_API ct_status ct_stream_current(int32_t device, ct_stream* out) {
  CT_API_BEGIN
  need(out, "out");
  put_stream(out, cuda::current_stream(device));
  CT_API_END
}

CT_API ct_status ct_stream_set_current(ct_stream s) {
  CT_API_BEGIN
  cuda::set_current_stream(stream_arg(s));
  CT_API_END
}

CT_API ct_status ct_stream_guard_enter(ct_stream s, ct_stream* prev_stream, int32_t* prev_device) {
  CT_API_BEGIN
  need(prev_stream, "prev_stream");
  need(prev_device, "prev_device");
  cuda::SavedStream saved = cuda::stream_guard_enter(stream_arg(s));
  try {
    *prev_stream = StreamTable::get().add(saved.stream);
  } catch (...) {
    cuda::stream_guard_exit(saved);
    throw;
  }
  *prev_device = saved.device;
  CT_API_END
}

CT_API ct_status ct_stream_guard_exit(ct_stream prev_stream, int32_t prev_device) {
  CT_API_BEGIN
  cuda::SavedStream saved{stream_arg(prev_stream, "prev_stream"), prev_device};
  StreamTable::get().release(prev_stream);  // released whether or not the restore succeeds
  cuda::stream_guard_exit(saved);
  CT_API_END
}

CT_API ct_status ct_stream_external(int64_t cuda_stream, int32_t device, ct_stream* out) {
  CT_API_BEGIN
  need(out, "out");
  put_stream(out, cuda::external_stream(reinterpret_cast<cudaStream_t>(static_cast<intptr_t>(cuda_stream)), device));
  CT_API_END
}

CT_API ct_status ct_stream_retain(ct_stream s) {
  CT_API_BEGIN
  StreamTable::get().retain(s);
  CT_API_END
}

CT_API ct_status ct_stream_release(ct_stream s) {
  CT_API_BEGIN
  StreamTable::get().release(s);
  CT_API_END
}

CT_API ct_status ct_stream_device(ct_stream s, int32_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = stream_arg(s)->device;
  CT_API_END
}

CT_API ct_status ct_stream_priority(ct_stream s, int32_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = stream_arg(s)->priority;
  CT_API_END
}

CT_API ct_status ct_stream_cuda_handle(ct_stream s, int64_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = static_cast<int64_t>(reinterpret_cast<intptr_t>(stream_arg(s)->stream));
  CT_API_END
}

CT_API ct_status ct_stream_synchronize(ct_stream s) {
  CT_API_BEGIN
  cuda::stream_synchronize(stream_arg(s));
  CT_API_END
}

CT_API ct_status ct_stream_query(ct_stream s, int32_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = cuda::stream_query(stream_arg(s)) ? 1 : 0;
  CT_API_END
}

CT_API ct_status ct_stream_wait_stream(ct_stream s, ct_stream other) {
  CT_API_BEGIN
  cuda::stream_wait_stream(stream_arg(s), stream_arg(other, "other"));
  CT_API_END
}

// ---- 14. events

CT_API ct_status ct_event_create(ct_event_flags flags, ct_event* out) {
  CT_API_BEGIN
  need(out, "out");
  CT_CHECK((flags & ~(CT_EVENT_ENABLE_TIMING | CT_EVENT_BLOCKING)) == 0, CT_ERR_ARGUMENT, "unknown event flags ", flags,
           " (expected CT_EVENT_ENABLE_TIMING | CT_EVENT_BLOCKING)");
  *out = EventTable::get().add(cuda::create_event(flags & CT_EVENT_ENABLE_TIMING, flags & CT_EVENT_BLOCKING));
  CT_API_END
}

CT_API ct_status ct_event_retain(ct_event e) {
  CT_API_BEGIN
  EventTable::get().retain(e);
  CT_API_END
}

CT_API ct_status ct_event_release(ct_event e) {
  CT_API_BEGIN
  EventTable::get().release(e);
  CT_API_END
}

CT_API ct_status ct_event_record(ct_event e, ct_stream s) {
  CT_API_BEGIN
  cuda::Event ev = event_arg(e);
  cuda::event_record(ev, stream_or_current(s));
  CT_API_END
}

CT_API ct_status ct_event_wait(ct_event e, ct_stream s) {
  CT_API_BEGIN
  cuda::Event ev = event_arg(e);
  cuda::event_wait(ev, stream_or_current(s));
  CT_API_END
}

CT_API ct_status ct_event_query(ct_event e, int32_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = cuda::event_query(event_arg(e)) ? 1 : 0;
  CT_API_END
}

CT_API ct_status ct_event_synchronize(ct_event e) {
  CT_API_BEGIN
  cuda::event_synchronize(event_arg(e));
  CT_API_END
}

CT_API ct_status ct_event_elapsed_time(ct_event start, ct_event end, double* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = cuda::event_elapsed_ms(event_arg(start, "start"), event_arg(end, "end"));
  CT_API_END
}

CT_API ct_status ct_stream_record_event(ct_stream s, ct_event e) {
  CT_API_BEGIN
  cuda::Stream st = stream_arg(s);
  cuda::event_record(event_arg(e), st);
  CT_API_END
}

CT_API ct_status ct_stream_wait_event(ct_stream s, ct_event e) {
  CT_API_BEGIN
  cuda::Stream st = stream_arg(s);
  cuda::event_wait(event_arg(e), st);
  CT_API_END
}

CT_API ct_status ct_live_stream_count(int64_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = StreamTable::get().live();
  CT_API_END
}

CT_API ct_status ct_live_event_count(int64_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = EventTable::get().live();
  CT_API_END
}

}  // extern "C"
