// Section 21 of ctorch.h: NCCL communicators (impl/comm/communicator.h).
#include <cstring>

#include "capi/api.h"
#include "capi/handles.h"
#include "impl/comm/communicator.h"
#include "impl/comm/nccl.h"
#include "impl/cuda/runtime.h"

using namespace ct;
using namespace ct::capi;

namespace {
comm::CommunicatorPtr comm_arg(ct_nccl_comm c) { return NcclCommTable::get().lookup(c, "comm"); }


// NCCL, loaded at first use (Note [NCCL loads on first use]); after the CUDA check.
void need_nccl() { comm::nccl(); }
}  // namespace

extern "C" {

CT_API ct_status ct_nccl_is_available(int32_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = cuda::is_available() && comm::nccl_loadable() ? 1 : 0;
  CT_API_END
}

CT_API ct_status ct_nccl_version(int32_t* major, int32_t* minor, int32_t* patch) {
  CT_API_BEGIN
  cuda::check_available();  // first, for every call (section 21)
  need_nccl();
  int a = 0, b = 0, c = 0;
  comm::nccl_version(&a, &b, &c);
  if (major) *major = a;
  if (minor) *minor = b;
  if (patch) *patch = c;
  CT_API_END
}

CT_API ct_status ct_nccl_get_unique_id(void* buf, int64_t cap) {
  CT_API_BEGIN
  cuda::check_available();  // first, for every call (section 21)
  need(buf, "buf");
  CT_CHECK(cap >= CT_NCCL_UNIQUE_ID_BYTES, CT_ERR_BUFFER_SIZE, "the unique id needs ", CT_NCCL_UNIQUE_ID_BYTES,
           " bytes (CT_NCCL_UNIQUE_ID_BYTES), but the buffer has ", cap);
  need_nccl();
  uint8_t id[CT_NCCL_UNIQUE_ID_BYTES];
  comm::get_unique_id(id);
  std::memcpy(buf, id, sizeof id);
  CT_API_END
}

CT_API ct_status ct_nccl_comm_init_rank(int32_t nranks, const void* unique_id, int64_t id_len, int32_t rank,
                                        int32_t device, int64_t timeout_ms, ct_nccl_comm* out) {
  CT_API_BEGIN
  cuda::check_available();  // first, for every call (section 21)
  need(unique_id, "unique_id");
  need(out, "out");
  CT_CHECK(id_len == CT_NCCL_UNIQUE_ID_BYTES, CT_ERR_ARGUMENT, "invalid unique id: expected ", CT_NCCL_UNIQUE_ID_BYTES,
           " bytes (CT_NCCL_UNIQUE_ID_BYTES), got ", id_len);
  need_nccl();
  *out = NcclCommTable::get().add(
      comm::Communicator::init_rank(nranks, static_cast<const uint8_t*>(unique_id), rank, device, timeout_ms));
  CT_API_END
}

CT_API ct_status ct_nccl_comm_split(ct_nccl_comm c, int32_t color, int32_t key, ct_nccl_comm* out) {
  CT_API_BEGIN
  cuda::check_available();  // first, for every call (section 21)
  comm::CommunicatorPtr p = comm_arg(c);
  need(out, "out");
  need_nccl();
  comm::CommunicatorPtr child = p->split(color, key);
  *out = child ? NcclCommTable::get().add(std::move(child)) : nullptr;
  CT_API_END
}

CT_API ct_status ct_nccl_comm_retain(ct_nccl_comm c) {
  CT_API_BEGIN
  cuda::check_available();  // first, for every call (section 21)
  NcclCommTable::get().retain(c);
  CT_API_END
}

CT_API ct_status ct_nccl_comm_release(ct_nccl_comm c) {
  CT_API_BEGIN
  cuda::check_available();  // first, for every call (section 21)
  NcclCommTable::get().release(c);
  CT_API_END
}

CT_API ct_status ct_live_nccl_comm_count(int64_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = NcclCommTable::get().live();
  CT_API_END
}

CT_API ct_status ct_nccl_comm_rank(ct_nccl_comm c, int32_t* out) {
  CT_API_BEGIN
  cuda::check_available();  // first, for every call (section 21)
  comm::CommunicatorPtr p = comm_arg(c);
  need(out, "out");
  *out = p->rank();
  CT_API_END
}

CT_API ct_status ct_nccl_comm_size(ct_nccl_comm c, int32_t* out) {
  CT_API_BEGIN
  cuda::check_available();  // first, for every call (section 21)
  comm::CommunicatorPtr p = comm_arg(c);
  need(out, "out");
  *out = p->size();
  CT_API_END
}

CT_API ct_status ct_nccl_comm_device(ct_nccl_comm c, int32_t* out) {
  CT_API_BEGIN
  cuda::check_available();  // first, for every call (section 21)
  comm::CommunicatorPtr p = comm_arg(c);
  need(out, "out");
  *out = p->device();
  CT_API_END
}

CT_API ct_status ct_nccl_comm_check(ct_nccl_comm c) {
  CT_API_BEGIN
  cuda::check_available();  // first, for every call (section 21)
  comm_arg(c)->check();
  CT_API_END
}

CT_API ct_status ct_nccl_comm_wait(ct_nccl_comm c, int64_t timeout_ms) {
  CT_API_BEGIN
  cuda::check_available();  // first, for every call (section 21)
  comm_arg(c)->wait(timeout_ms);
  CT_API_END
}

CT_API ct_status ct_nccl_comm_abort(ct_nccl_comm c) {
  CT_API_BEGIN
  cuda::check_available();  // first, for every call (section 21)
  comm_arg(c)->abort();
  CT_API_END
}

CT_API ct_status ct_nccl_comm_destroy(ct_nccl_comm c) {
  CT_API_BEGIN
  cuda::check_available();  // first, for every call (section 21)
  comm_arg(c)->destroy();
  CT_API_END
}

CT_API ct_status ct_nccl_all_reduce(ct_nccl_comm c, ct_tensor t, ct_comm_op op, ct_stream s) {
  CT_API_BEGIN
  cuda::check_available();  // first, for every call (section 21)
  comm::CommunicatorPtr p = comm_arg(c);
  Tensor x = get(t, "t");
  CommOp o = comm_op_arg(op);
  p->all_reduce(x, o, optional_stream(s));
  CT_API_END
}

CT_API ct_status ct_nccl_broadcast(ct_nccl_comm c, ct_tensor t, int32_t root, ct_stream s) {
  CT_API_BEGIN
  cuda::check_available();  // first, for every call (section 21)
  comm::CommunicatorPtr p = comm_arg(c);
  Tensor x = get(t, "t");
  p->broadcast(x, root, optional_stream(s));
  CT_API_END
}

CT_API ct_status ct_nccl_reduce(ct_nccl_comm c, ct_tensor t, int32_t root, ct_comm_op op, ct_stream s) {
  CT_API_BEGIN
  cuda::check_available();  // first, for every call (section 21)
  comm::CommunicatorPtr p = comm_arg(c);
  Tensor x = get(t, "t");
  CommOp o = comm_op_arg(op);
  p->reduce(x, root, o, optional_stream(s));
  CT_API_END
}

CT_API ct_status ct_nccl_all_gather(ct_nccl_comm c, ct_tensor output, ct_tensor input, ct_stream s) {
  CT_API_BEGIN
  cuda::check_available();  // first, for every call (section 21)
  comm::CommunicatorPtr p = comm_arg(c);
  Tensor o = get(output, "output");
  Tensor i = get(input, "input");
  p->all_gather(o, i, optional_stream(s));
  CT_API_END
}

CT_API ct_status ct_nccl_reduce_scatter(ct_nccl_comm c, ct_tensor output, ct_tensor input, ct_comm_op op,
                                        ct_stream s) {
  CT_API_BEGIN
  cuda::check_available();  // first, for every call (section 21)
  comm::CommunicatorPtr p = comm_arg(c);
  Tensor o = get(output, "output");
  Tensor i = get(input, "input");
  CommOp r = comm_op_arg(op);
  p->reduce_scatter(o, i, r, optional_stream(s));
  CT_API_END
}

CT_API ct_status ct_nccl_all_to_all(ct_nccl_comm c, ct_tensor output, ct_tensor input, ct_stream s) {
  CT_API_BEGIN
  cuda::check_available();  // first, for every call (section 21)
  comm::CommunicatorPtr p = comm_arg(c);
  Tensor o = get(output, "output");
  Tensor i = get(input, "input");
  p->all_to_all(o, i, optional_stream(s));
  CT_API_END
}

CT_API ct_status ct_nccl_send(ct_nccl_comm c, ct_tensor t, int32_t peer, ct_stream s) {
  CT_API_BEGIN
  cuda::check_available();  // first, for every call (section 21)
  comm::CommunicatorPtr p = comm_arg(c);
  Tensor x = get(t, "t");
  p->send(x, peer, optional_stream(s));
  CT_API_END
}

CT_API ct_status ct_nccl_recv(ct_nccl_comm c, ct_tensor t, int32_t peer, ct_stream s) {
  CT_API_BEGIN
  cuda::check_available();  // first, for every call (section 21)
  comm::CommunicatorPtr p = comm_arg(c);
  Tensor x = get(t, "t");
  p->recv(x, peer, optional_stream(s));
  CT_API_END
}

CT_API ct_status ct_nccl_group_start(void) {
  CT_API_BEGIN
  cuda::check_available();  // first, for every call (section 21)
  need_nccl();
  comm::group_start();
  CT_API_END
}

CT_API ct_status ct_nccl_group_end(void) {
  CT_API_BEGIN
  cuda::check_available();  // first, for every call (section 21)
  need_nccl();
  comm::group_end();
  CT_API_END
}

}  // extern "C"
