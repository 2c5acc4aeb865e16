// Section 20 of ctorch.h: communication between the GPUs of one process (torch.cuda.comm).
// The arguments are checked here (pointers, counts, handles); everything else is
// impl/comm/cuda_comm (Note [torch.cuda.comm]).
#include <algorithm>
#include <cstdint>

#include "capi/api.h"
#include "capi/handles.h"
#include "impl/comm/cuda_comm.h"

using namespace ct;
using namespace ct::capi;

static_assert(comm::kDefaultBufferSize == CT_COMM_DEFAULT_BUFFER_SIZE, "the default bucket size, written twice");

namespace {

std::vector<int> devices_arg(const int32_t* devices, int32_t n, const char* name) {
  CT_CHECK(n >= 0, CT_ERR_ARGUMENT, "argument '", name, "': the count must be >= 0, got ", n);
  if (n > 0) need(devices, name);
  return std::vector<int>(devices, devices + n);
}

// n streams (NULL entries allowed), or none when streams is NULL
std::vector<cuda::Stream> streams_arg(const ct_stream* streams, int32_t n) {
  std::vector<cuda::Stream> v;
  if (!streams) return v;
  for (int32_t i = 0; i < n; ++i)
    v.push_back(optional_stream(streams[i], "streams"));
  return v;
}

// Writes one new handle per tensor into outs; when one cannot be made, those already made are
// released and outs is left alone.
void put_tensors(ct_tensor* outs, const std::vector<Tensor>& ts) {
  std::vector<ct_tensor> hs;
  hs.reserve(ts.size());
  try {
    for (const Tensor& t : ts) hs.push_back(new_handle(t));
  } catch (...) {
    for (ct_tensor h : hs) release(h);
    throw;
  }
  std::copy(hs.begin(), hs.end(), outs);
}

}  // namespace

extern "C" {

CT_API ct_status ct_cuda_comm_broadcast(ct_tensor t, const int32_t* devices, int32_t n_devices, ct_tensor* outs) {
  CT_API_BEGIN
  Tensor x = get(t);
  std::vector<int> devs = devices_arg(devices, n_devices, "devices");
  if (n_devices > 0) need(outs, "outs");
  put_tensors(outs, comm::broadcast(x, devs));
  CT_API_END
}

CT_API ct_status ct_cuda_comm_broadcast_out(ct_tensor t, const ct_tensor* outs, int32_t n_outs) {
  CT_API_BEGIN
  Tensor x = get(t);
  comm::broadcast_out(x, tensors_arg(outs, n_outs, "outs"));
  CT_API_END
}

CT_API ct_status ct_cuda_comm_broadcast_coalesced(const ct_tensor* tensors, int32_t n_tensors,
                                                  const int32_t* devices, int32_t n_devices,
                                                  int64_t buffer_size, ct_tensor* outs) {
  CT_API_BEGIN
  std::vector<Tensor> ts = tensors_arg(tensors, n_tensors, "tensors");
  std::vector<int> devs = devices_arg(devices, n_devices, "devices");
  if (n_tensors > 0 && n_devices > 0) need(outs, "outs");
  std::vector<Tensor> flat;
  for (std::vector<Tensor>& row : comm::broadcast_coalesced(ts, devs, buffer_size))
    flat.insert(flat.end(), row.begin(), row.end());
  put_tensors(outs, flat);
  CT_API_END
}

CT_API ct_status ct_cuda_comm_reduce_add(const ct_tensor* inputs, int32_t n_inputs, int32_t destination,
                                         ct_tensor* out) {
  CT_API_BEGIN
  std::vector<Tensor> in = tensors_arg(inputs, n_inputs, "inputs");
  produce(out, [&] { return comm::reduce_add(in, destination); });
  CT_API_END
}

CT_API ct_status ct_cuda_comm_reduce_add_coalesced(const ct_tensor* inputs, int32_t n_devices, int32_t n_tensors,
                                                   int32_t destination, int64_t buffer_size, ct_tensor* outs) {
  CT_API_BEGIN
  CT_CHECK(n_devices >= 0 && n_tensors >= 0, CT_ERR_ARGUMENT, "reduce_add_coalesced: n_devices (", n_devices,
           ") and n_tensors (", n_tensors, ") must be >= 0");
  CT_CHECK(static_cast<int64_t>(n_devices) * n_tensors <= INT32_MAX, CT_ERR_ARGUMENT,
           "reduce_add_coalesced: n_devices * n_tensors is too large");
  std::vector<Tensor> all = tensors_arg(inputs, n_devices * n_tensors, "inputs");
  if (n_tensors > 0) need(outs, "outs");
  std::vector<std::vector<Tensor>> rows;
  for (int32_t d = 0; d < n_devices; ++d)
    rows.emplace_back(all.begin() + d * n_tensors, all.begin() + (d + 1) * n_tensors);
  put_tensors(outs, comm::reduce_add_coalesced(rows, destination, buffer_size));
  CT_API_END
}

CT_API ct_status ct_cuda_comm_scatter(ct_tensor t, const int32_t* devices, int32_t n_devices,
                                      const int64_t* chunk_sizes, int32_t dim, const ct_stream* streams,
                                      ct_tensor* outs, int32_t* n_outs) {
  CT_API_BEGIN
  Tensor x = get(t);
  std::vector<int> devs = devices_arg(devices, n_devices, "devices");
  std::vector<cuda::Stream> ss = streams_arg(streams, n_devices);
  need(n_outs, "n_outs");
  if (n_devices > 0) need(outs, "outs");
  std::vector<int64_t> sizes;
  if (chunk_sizes) sizes.assign(chunk_sizes, chunk_sizes + n_devices);
  std::vector<Tensor> r = comm::scatter(x, devs, chunk_sizes != nullptr, sizes, dim, ss);
  put_tensors(outs, r);
  *n_outs = static_cast<int32_t>(r.size());
  CT_API_END
}

CT_API ct_status ct_cuda_comm_scatter_out(ct_tensor t, const ct_tensor* outs, int32_t n_outs, int32_t dim,
                                          const ct_stream* streams) {
  CT_API_BEGIN
  Tensor x = get(t);
  std::vector<Tensor> os = tensors_arg(outs, n_outs, "outs");
  comm::scatter_out(x, os, dim, streams_arg(streams, n_outs));
  CT_API_END
}

CT_API ct_status ct_cuda_comm_gather(const ct_tensor* tensors, int32_t n, int32_t dim, ct_device_type dest_type,
                                     int32_t dest_index, ct_tensor* out) {
  CT_API_BEGIN
  std::vector<Tensor> ts = tensors_arg(tensors, n, "tensors");
  Device dest = device_from_c(dest_type, dest_type == CT_CPU ? -1 : dest_index);
  produce(out, [&] { return comm::gather(ts, dim, dest); });
  CT_API_END
}

CT_API ct_status ct_cuda_comm_gather_out(const ct_tensor* tensors, int32_t n, ct_tensor out, int32_t dim) {
  CT_API_BEGIN
  std::vector<Tensor> ts = tensors_arg(tensors, n, "tensors");
  comm::gather_out(ts, get(out, "out"), dim);
  CT_API_END
}

}  // extern "C"
