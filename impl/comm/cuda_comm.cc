// Note [torch.cuda.comm]: the functions of torch.cuda.comm as torch/nn/parallel/comm.py and
// torch/csrc/cuda/comm.cpp write them: the same checks in the same order with the same
// messages (a device is an int here, so the Python-side device parsing has no counterpart),
// the same choice between NCCL and copies, the same aliasing of results:
// - broadcast and reduce_add go through NCCL (the communicators of comm::clique, every device
//   on its current stream, inside one ncclGroupStart/End) exactly when PyTorch does: every
//   tensor a contiguous CUDA tensor on a device of its own, and NCCL loadable. Where PyTorch
//   would then fail inside NCCL (tensors of different dtypes, or a dtype NCCL has no type for,
//   such as int16) ctorch copies instead (docs/differences.md). Otherwise, and inside the
//   calling thread's ct_nccl_group_start/end: non-blocking copies (and adds) on the current
//   streams. The cliques' communicators serve one thread at a time (Clique::mu, one mutex for
//   all of them, held from the group's start to its end).
// - reduce_add_coalesced needs every input (row) to hold the same tensors in number, dtype and
//   shape, checked before any work (PyTorch fails later or adds with the first row's shapes).
// - A broadcast result on the source's device is the source; a scatter chunk for the source's
//   device is a view of it; reduce_add of one tensor is that tensor.
// - scatter's streams work as PyTorch's OptionalCUDAStreamGuard: a given stream stays current on
//   its device until the next given stream replaces it, or the call returns.
// Complex tensors stay complex (PyTorch's Python layer passes them as view_as_real, so its
// results come back as real [..., 2] tensors); NCCL carries them as pairs of reals.
#include "impl/comm/cuda_comm.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <mutex>
#include <set>

#include "impl/comm/communicator.h"
#include "impl/comm/nccl.h"
#include "impl/core/error.h"
#include "impl/cuda/runtime.h"
#include "impl/cuda/sanitize.h"
#include "impl/ops/ops.h"

namespace ct::comm {

namespace {

// Tensor.get_device(): the CUDA index, -1 for the CPU.
int get_device(const Tensor& t) { return t->device().is_cuda() ? t->device().index : -1; }

Device cuda_device(int index) { return Device{DeviceType::CUDA, index}; }

// "2x3" (comm.py's reduce_add message joins sizes with 'x'; a 0-dim size is "")
std::string sizes_x(const Shape& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "x" : "") + std::to_string(s[i]);
  return out;
}

// nccl::is_available (torch/csrc/cuda/nccl.cpp) plus what NCCL would refuse later: every
// tensor a contiguous CUDA tensor on a device of its own, one dtype NCCL carries, NCCL loadable.
// Never inside the calling thread's ct_nccl_group_start/end: the cliques' blocking communicators
// cannot join a group of the nonblocking ones, and their work would only be launched at the
// caller's group end, after this call has handed back its results.
bool use_nccl(const std::vector<Tensor>& ts) {
  if (in_group()) return false;
  std::set<int> seen;
  for (const Tensor& t : ts) {
    if (!t->device().is_cuda() || !t->is_contiguous() || t->dtype != ts[0]->dtype) return false;
    if (!seen.insert(t->device().index).second) return false;
  }
  ncclDataType_t type;
  return nccl_type_of(ts[0]->dtype, &type, nullptr) && nccl_loadable();
}

// ncclGroupStart now, ncclGroupEnd at end() (checked) or when an error leaves the scope.
class NcclGroup {
 public:
  NcclGroup() { check(nccl().group_start(), "ncclGroupStart"); }
  NcclGroup(const NcclGroup&) = delete;
  NcclGroup& operator=(const NcclGroup&) = delete;
  ~NcclGroup() {
    if (open_) (void)nccl().group_end();
  }
  void end() {
    open_ = false;
    check(nccl().group_end(), "ncclGroupEnd");
  }

 private:
  bool open_ = true;
};

struct NcclArgs {
  std::vector<int> devices;
  Clique* clique = nullptr;
  ncclDataType_t type = ncclFloat32;
  size_t count = 0;
};

NcclArgs nccl_args(const std::vector<Tensor>& ts, const char* op) {
  NcclArgs a;
  for (const Tensor& t : ts) a.devices.push_back(t->device().index);
  int factor = 1;
  a.type = nccl_dtype(ts[0]->dtype, op, &factor);
  a.count = static_cast<size_t>(ts[0]->numel()) * static_cast<size_t>(factor);
  a.clique = &clique(a.devices);
  return a;
}

cudaStream_t current_cuda_stream(int device) { return cuda::current_stream(device)->stream; }

// nccl::broadcast: ts[0] (rank 0) to the others, each on its device's current stream.
void nccl_broadcast(const std::vector<Tensor>& ts) {
  NcclArgs a = nccl_args(ts, "broadcast");
  const Nccl& n = nccl();
  {
    std::lock_guard<std::mutex> lock(a.clique->mu);  // released after the group's end
    NcclGroup group;
    for (size_t i = 0; i < ts.size(); ++i) {
      cuda::DeviceGuard g(a.devices[i]);
      ncclComm_t c = a.clique->comms[i];
      check(n.broadcast(ts[i]->data(), ts[i]->data(), a.count, a.type, 0, c, current_cuda_stream(a.devices[i])),
            "ncclBroadcast", c);
    }
    group.end();
  }
  cuda::CsanReports races;  // Note [Stream sanitizer]: every device's part, raised once
  for (size_t i = 0; i < ts.size() && csan::on(); ++i) {
    const TensorImpl* t = ts[i].get();
    races.kernel(cuda::current_stream(a.devices[i]), "broadcast", {{i == 0 ? t : nullptr, "tensor"}},
                 {{i == 0 ? nullptr : t, "out"}});
  }
  races.raise("broadcast");
}

// nccl::reduce with op SUM into out (on inputs[root]'s device). bool travels as uint8 and is
// reduced with max, a logical or, as torch.distributed does.
void nccl_reduce(const std::vector<Tensor>& inputs, const Tensor& out, int root) {
  NcclArgs a = nccl_args(inputs, "reduce_add");
  ncclRedOp_t op = inputs[0]->dtype == DType::Bool ? ncclMax : ncclSum;
  const Nccl& n = nccl();
  {
    std::lock_guard<std::mutex> lock(a.clique->mu);  // released after the group's end
    NcclGroup group;
    for (size_t i = 0; i < inputs.size(); ++i) {
      cuda::DeviceGuard g(a.devices[i]);
      ncclComm_t c = a.clique->comms[i];
      void* recv = static_cast<int>(i) == root ? out->data() : nullptr;
      check(n.reduce(inputs[i]->data(), recv, a.count, a.type, op, root, c, current_cuda_stream(a.devices[i])),
            "ncclReduce", c);
    }
    group.end();
  }
  cuda::CsanReports races;  // Note [Stream sanitizer]: every device's part, raised once
  for (size_t i = 0; i < inputs.size() && csan::on(); ++i) {
    const TensorImpl* written = static_cast<int>(i) == root ? out.get() : nullptr;
    races.kernel(cuda::current_stream(a.devices[i]), "reduce_add", {{inputs[i].get(), "inputs"}}, {{written, "out"}});
  }
  races.raise("reduce_add");
}

// _broadcast_out_impl: no checks.
void broadcast_out_impl(const Tensor& t, const std::vector<Tensor>& outs) {
  if (outs.empty()) return;
  std::vector<Tensor> all{t};
  all.insert(all.end(), outs.begin(), outs.end());
  if (use_nccl(all)) {
    nccl_broadcast(all);
    return;
  }
  for (const Tensor& o : outs) ops::copy_(o, t, true);
}

// The C++ take_tensors (torch/csrc/utils/tensor_flatten.cpp, fine_grained false): buckets of
// one dtype, a bucket closed once it reaches limit bytes; the open ones follow in dtype order.
std::vector<std::vector<size_t>> take_tensors_cc(const std::vector<Tensor>& ts, int64_t limit) {
  std::vector<std::vector<size_t>> out;
  std::map<int, std::pair<std::vector<size_t>, int64_t>> groups;
  for (size_t i = 0; i < ts.size(); ++i) {
    auto& g = groups[static_cast<int>(ts[i]->dtype)];
    g.first.push_back(i);
    g.second += ts[i]->numel() * ts[i]->itemsize();
    if (g.second >= limit) {
      out.push_back(std::move(g.first));
      g = {};
    }
  }
  for (auto& kv : groups)
    if (!kv.second.first.empty()) out.push_back(std::move(kv.second.first));
  return out;
}

// comm.py's _take_tensors: a bucket of one dtype is closed before a tensor that would take it
// past limit bytes; the open ones follow in the order their dtypes first appeared.
std::vector<std::vector<size_t>> take_tensors_py(const std::vector<Tensor>& ts, int64_t limit) {
  std::vector<std::vector<size_t>> out;
  std::vector<DType> order;
  std::map<int, std::pair<std::vector<size_t>, int64_t>> groups;
  for (size_t i = 0; i < ts.size(); ++i) {
    int key = static_cast<int>(ts[i]->dtype);
    if (!groups.count(key)) order.push_back(ts[i]->dtype);
    auto& g = groups[key];
    int64_t size = ts[i]->numel() * ts[i]->itemsize();
    if (g.second + size > limit && g.second > 0) {
      out.push_back(std::move(g.first));
      g = {};
    }
    g.first.push_back(i);
    g.second += size;
  }
  for (DType d : order) {
    auto& g = groups[static_cast<int>(d)];
    if (!g.first.empty()) out.push_back(std::move(g.first));
  }
  return out;
}

// _flatten_dense_tensors: one 1-d tensor of the bucket's tensors (the tensor itself, as a
// view, when the bucket has one)
Tensor flatten(const std::vector<Tensor>& ts, const std::vector<size_t>& bucket) {
  std::vector<Tensor> flat;
  for (size_t i : bucket) flat.push_back(ops::view(ops::contiguous(ts[i]), Shape{ts[i]->numel()}));
  return flat.size() == 1 ? flat[0] : ops::cat(flat, 0);
}

// reduce_add_coalesced adds tensor i of every input (row) to tensor i of the others, and buckets
// each row by its dtypes and sizes: every row needs the same tensors in number, dtype and shape.
// PyTorch does not check this: mismatched rows fail later in its bucket reordering (a KeyError),
// or are added with the first row's shapes.
void check_same_columns(const std::vector<std::vector<Tensor>>& inputs) {
  const std::vector<Tensor>& first = inputs[0];
  const char* why = " (tensor i of every input is added to tensor i of the others, so they need one dtype and shape)";
  for (size_t d = 1; d < inputs.size(); ++d) {
    CT_CHECK(inputs[d].size() == first.size(), Status::Argument, "reduce_add_coalesced: input ", d, " has ",
             inputs[d].size(), " tensors, but input 0 has ", first.size(), why);
    for (size_t i = 0; i < first.size(); ++i) {
      const Tensor& a = first[i];
      const Tensor& b = inputs[d][i];
      CT_CHECK(b->dtype == a->dtype, Status::DType, "reduce_add_coalesced: tensor ", i, " of input ", d,
               " has dtype ", dtype_name(b->dtype), ", but tensor ", i, " of input 0 has dtype ", dtype_name(a->dtype),
               why);
      CT_CHECK(b->sizes == a->sizes, Status::Shape, "reduce_add_coalesced: tensor ", i, " of input ", d,
               " has shape ", shape_str(b->sizes), ", but tensor ", i, " of input 0 has shape ", shape_str(a->sizes),
               why);
    }
  }
}

// _unflatten_dense_tensors: views of flat shaped like the bucket's tensors, stored at their
// positions in out.
void unflatten(const Tensor& flat, const std::vector<Tensor>& like, const std::vector<size_t>& bucket,
               std::vector<Tensor>& out) {
  int64_t offset = 0;
  for (size_t i : bucket) {
    int64_t n = like[i]->numel();
    if (n == 0) {
      out[i] = ops::empty(like[i]->sizes, flat->dtype, flat->device());
      continue;
    }
    out[i] = ops::view(ops::narrow(flat, 0, offset, n), like[i]->sizes);
    offset += n;
  }
}

// split_with_sizes(sizes, dim) as views
std::vector<Tensor> split_with_sizes(const Tensor& t, const std::vector<int64_t>& sizes, int64_t dim) {
  CT_CHECK(t->dim() != 0, Status::Shape, "split expects at least a 1-dimensional tensor");
  int64_t total = 0;
  bool negative = false;
  for (int64_t s : sizes) {
    negative = negative || s < 0;
    total += s;
  }
  std::string list = "[";
  for (size_t i = 0; i < sizes.size(); ++i) list += (i ? ", " : "") + std::to_string(sizes[i]);
  list += "]";
  CT_CHECK(!negative, Status::Argument,
           "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=", list);
  CT_CHECK(total == t->sizes[dim], Status::Argument, "split_with_sizes expects split_sizes to sum exactly to ",
           t->sizes[dim], " (input tensor's size at dimension ", dim, "), but got split_sizes=", list);
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t s : sizes) {
    out.push_back(ops::narrow(t, dim, start, s));
    start += s;
  }
  return out;
}

// tensor.chunk(n, dim): chunks of ceil(size / n), so possibly fewer than n
std::vector<Tensor> chunk(const Tensor& t, int64_t n, int64_t dim) {
  CT_CHECK(t->dim() != 0, Status::Shape, "chunk expects at least a 1-dimensional tensor");
  int64_t size = t->sizes[dim];
  int64_t split = (size + n - 1) / n;
  if (size == 0) return split_with_sizes(t, std::vector<int64_t>(static_cast<size_t>(n), 0), dim);
  std::vector<int64_t> sizes;
  for (int64_t start = 0; start < size; start += split) sizes.push_back(std::min(split, size - start));
  return split_with_sizes(t, sizes, dim);
}

// OptionalCUDAStreamGuard: use(s) makes s current on its device (and its device current) until
// the next use() or the end of the scope, which restore what was current before.
class StreamScope {
 public:
  StreamScope() = default;
  StreamScope(const StreamScope&) = delete;
  StreamScope& operator=(const StreamScope&) = delete;
  ~StreamScope() {
    try {
      restore();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ctorch warning: restoring the current stream after scatter: %s\n", e.what());
    }
  }
  void use(const cuda::Stream& s) {
    restore();
    saved_ = cuda::stream_guard_enter(s);
    active_ = true;
  }

 private:
  void restore() {
    if (!active_) return;
    active_ = false;
    cuda::stream_guard_exit(saved_);
  }
  cuda::SavedStream saved_;
  bool active_ = false;
};

// scatter's check of streams[i] against the device of output i
void check_stream(const std::vector<cuda::Stream>& streams, size_t i, int device, StreamScope& scope) {
  if (i >= streams.size() || !streams[i]) return;
  const cuda::Stream& s = streams[i];
  CT_CHECK(s->device == device, Status::Device, "Expected the device associated with the stream at index ", i,
           " (was stream ", static_cast<const void*>(s->stream), " on device cuda:", s->device,
           ") to match the device supplied at that index (expected ", device, ")");
  scope.use(s);
}

// tensor.size(dim) of a 0-dim tensor (which wrap_dim lets through for dims 0 and -1)
void check_has_dims(const Tensor& t, int64_t dim) {
  CT_CHECK(t->dim() > 0, Status::Index, "dimension specified as ", dim, " but tensor has no dimensions");
}

// The checks gather and gather_out share; returns the result's shape. quote: gather_out's
// message puts the device in quotes, gather's does not.
Shape gather_shape(const std::vector<Tensor>& tensors, int64_t& dim, bool quote) {
  CT_CHECK(!tensors.empty(), Status::Argument, "Expected at least one tensor to gather from");
  const Tensor& first = tensors[0];
  dim = wrap_dim(dim, first->dim());
  check_has_dims(first, dim);
  Shape expected = first->sizes;
  int64_t total = 0;
  const char* q = quote ? "'" : "";
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    CT_CHECK(t->device().is_cuda(), Status::Device,
             "Expected all input tensors to be CUDA tensors, but tensor at index ", i, " has device ", q,
             t->device().str(), q);
    CT_CHECK(t->dim() == first->dim(), Status::Shape,
             "Expected all input tensors to have the same number of dimensions, but tensor at index ", i, " has ",
             t->dim(), " dimensions, (expected ", first->dim(), ")");
    expected[dim] = t->sizes[dim];
    for (int64_t d = 0; d < t->dim(); ++d)
      CT_CHECK(d == dim || t->sizes[d] == expected[d], Status::Shape, "Input tensor at index ", i,
               " has invalid shape ", shape_str(t->sizes), ", but expected ", shape_str(expected));
    total += t->sizes[dim];
  }
  expected[dim] = total;
  return expected;
}

// _gather_out_impl: no checks; copies wait for the GPU when out is on the CPU.
void gather_out_impl(const std::vector<Tensor>& tensors, const Tensor& out, int64_t dim) {
  int64_t start = 0;
  for (const Tensor& t : tensors) {
    int64_t n = t->sizes[dim];
    ops::copy_(ops::narrow(out, dim, start, n), t, out->device().is_cuda());
    start += n;
  }
}

}  // namespace

std::vector<Tensor> broadcast(const Tensor& t, const std::vector<int>& devices) {
  cuda::check_available();
  std::vector<Tensor> out;
  std::vector<Tensor> copies;
  for (int d : devices) {
    CT_CHECK(d >= 0, Status::Device, "Expected non-negative device index, but got ", d);
    if (d == get_device(t)) {
      out.push_back(t);
      continue;
    }
    cuda::check_device_index(d);
    out.push_back(ops::empty(t->sizes, t->dtype, cuda_device(d)));
    copies.push_back(out.back());
  }
  broadcast_out_impl(t, copies);
  return out;
}

void broadcast_out(const Tensor& t, const std::vector<Tensor>& outs) {
  cuda::check_available();
  for (size_t i = 0; i < outs.size(); ++i) {
    CT_CHECK(outs[i]->device().is_cuda(), Status::Device,
             "Expected all output tensors to be CUDA tensors, but output tensor at index ", i, " has device '",
             outs[i]->device().str(), "'");
    CT_CHECK(outs[i]->sizes == t->sizes, Status::Shape,
             "Expected all output tensors to have same shape as the source tensor ", shape_str(t->sizes),
             ", but output tensor at index ", i, " has shape ", shape_str(outs[i]->sizes));
  }
  broadcast_out_impl(t, outs);
}

std::vector<std::vector<Tensor>> broadcast_coalesced(const std::vector<Tensor>& tensors,
                                                     const std::vector<int>& devices, int64_t buffer_size) {
  cuda::check_available();
  CT_CHECK(!devices.empty(), Status::Argument,
           "Expected at least one device to broadcast to (devices[0] is the one that holds the tensors)");
  for (const Tensor& t : tensors)
    CT_CHECK(get_device(t) == devices[0], Status::Device, "All tensors must be on devices[0]: ", devices[0]);
  if (buffer_size <= 0) buffer_size = kDefaultBufferSize;
  std::vector<std::vector<Tensor>> out(devices.size(), std::vector<Tensor>(tensors.size()));
  out[0] = tensors;
  for (const std::vector<size_t>& bucket : take_tensors_cc(tensors, buffer_size)) {
    std::vector<Tensor> flats = broadcast(flatten(tensors, bucket), devices);
    for (size_t d = 1; d < devices.size(); ++d) unflatten(flats[d], tensors, bucket, out[d]);
  }
  return out;
}

Tensor reduce_add(const std::vector<Tensor>& inputs, int destination) {
  cuda::check_available();
  if (destination == -1) destination = cuda::current_device();
  CT_CHECK(!inputs.empty(), Status::Argument, "reduce_add expects at least one input tensor");
  const Shape& size = inputs[0]->sizes;
  int root = -1;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    CT_CHECK(t->device().is_cuda(), Status::Device, "reduce_add expects all inputs to be on GPUs");
    if (get_device(t) == destination) root = static_cast<int>(i);
    CT_CHECK(t->sizes == size, Status::Shape, "input ", i, " has invalid size: got ", sizes_x(t->sizes),
             ", but expected ", sizes_x(size));
  }
  CT_CHECK(root >= 0, Status::Device, "reduce_add expects destination to be on the same GPU with one of the tensors");
  if (inputs.size() == 1) return inputs[0];
  if (use_nccl(inputs)) {
    const Tensor& r = inputs[static_cast<size_t>(root)];
    Tensor result = ops::empty(r->sizes, r->dtype, r->device());
    nccl_reduce(inputs, result, root);
    return result;
  }
  Device dest = cuda_device(destination);
  Tensor result;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (static_cast<int>(i) == root) continue;
    Tensor moved = ops::to(inputs[i], dest, inputs[i]->dtype, false, true);
    if (!result) result = ops::binary(BinaryOp::Add, inputs[static_cast<size_t>(root)], moved);
    else ops::binary_(BinaryOp::Add, result, moved);
  }
  return result;
}

std::vector<Tensor> reduce_add_coalesced(const std::vector<std::vector<Tensor>>& inputs, int destination,
                                         int64_t buffer_size) {
  cuda::check_available();
  CT_CHECK(!inputs.empty(), Status::Argument, "reduce_add_coalesced expects at least one device's tensors");
  if (buffer_size <= 0) buffer_size = kDefaultBufferSize;
  if (destination == -1) destination = cuda::current_device();
  check_same_columns(inputs);
  std::vector<std::vector<std::vector<size_t>>> buckets;
  size_t n_chunks = SIZE_MAX;
  for (const std::vector<Tensor>& row : inputs) {
    buckets.push_back(take_tensors_py(row, buffer_size));
    n_chunks = std::min(n_chunks, buckets.back().size());
  }
  std::vector<Tensor> out(inputs[0].size());
  for (size_t c = 0; c < n_chunks; ++c) {
    std::vector<Tensor> flats;
    for (size_t d = 0; d < inputs.size(); ++d) flats.push_back(flatten(inputs[d], buckets[d][c]));
    unflatten(reduce_add(flats, destination), inputs[0], buckets[0][c], out);
  }
  for (size_t i = 0; i < out.size(); ++i)
    CT_CHECK(out[i], Status::Internal, "reduce_add_coalesced left tensor ", i, " of ", out.size(), " without a result");
  return out;
}

std::vector<Tensor> scatter(const Tensor& t, const std::vector<int>& devices, bool has_chunk_sizes,
                            const std::vector<int64_t>& chunk_sizes, int64_t dim,
                            const std::vector<cuda::Stream>& streams) {
  cuda::check_available();
  CT_CHECK(!devices.empty(), Status::Argument, "Expected at least one device to scatter to");
  CT_CHECK(!has_chunk_sizes || chunk_sizes.size() == devices.size(), Status::Argument,
           "Expected devices and chunk_sizes to be of same length, but got len(devices) = ", devices.size(),
           " and len(chunk_sizes) = ", chunk_sizes.size());
  dim = wrap_dim(dim, t->dim());
  std::vector<Tensor> chunks = has_chunk_sizes ? split_with_sizes(t, chunk_sizes, dim)
                                               : chunk(t, static_cast<int64_t>(devices.size()), dim);
  StreamScope scope;
  for (size_t i = 0; i < chunks.size(); ++i) {
    int d = devices[i];
    if (t->device().is_cuda() && d == t->device().index) continue;  // a view of the source
    check_stream(streams, i, d, scope);
    CT_CHECK(d >= 0, Status::Device, "Expected non-negative device index, but got ", d);
    cuda::check_device_index(d);
    chunks[i] = ops::to(chunks[i], cuda_device(d), chunks[i]->dtype, false, true);
  }
  return chunks;
}

void scatter_out(const Tensor& t, const std::vector<Tensor>& outs, int64_t dim,
                 const std::vector<cuda::Stream>& streams) {
  cuda::check_available();
  CT_CHECK(!outs.empty(), Status::Argument, "Expected at least one output tensor to scatter to");
  dim = wrap_dim(dim, t->dim());
  check_has_dims(t, dim);
  int64_t total = 0;
  std::vector<int64_t> sizes;
  for (size_t i = 0; i < outs.size(); ++i) {
    const Tensor& o = outs[i];
    CT_CHECK(o->device().is_cuda(), Status::Device,
             "Expected all output tensors to be CUDA tensors, but output tensor at index ", i, " has device '",
             o->device().str(), "'");
    bool same = o->dim() == t->dim();
    for (int64_t d = 0; same && d < t->dim(); ++d) same = d == dim || o->sizes[d] == t->sizes[d];
    CT_CHECK(same, Status::Shape, "Output tensor at index ", i, " has incorrect shape: ", shape_str(o->sizes),
             ". Expected same shape except for scatter dim ", dim, " as the source tensor: ", shape_str(t->sizes));
    sizes.push_back(o->sizes[dim]);
    total += o->sizes[dim];
  }
  int64_t want = t->sizes[dim];
  CT_CHECK(total == want, Status::Shape, "Total size for output tensors along scatter dim ", dim,
           " does not match the source tensor size at dim ", dim, ". Expected ", want, ", but got total size ",
           total);
  std::vector<Tensor> chunks = split_with_sizes(t, sizes, dim);
  StreamScope scope;
  for (size_t i = 0; i < outs.size(); ++i) {
    check_stream(streams, i, outs[i]->device().index, scope);
    ops::copy_(outs[i], chunks[i], true);
  }
}

Tensor gather(const std::vector<Tensor>& tensors, int64_t dim, Device destination) {
  cuda::check_available();
  Shape shape = gather_shape(tensors, dim, false);
  Device dest = cuda::resolve_device(destination);
  Tensor out = ops::empty(shape, tensors[0]->dtype, dest);
  gather_out_impl(tensors, out, dim);
  return out;
}

void gather_out(const std::vector<Tensor>& tensors, const Tensor& out, int64_t dim) {
  cuda::check_available();
  Shape shape = gather_shape(tensors, dim, true);
  CT_CHECK(out->sizes == shape, Status::Shape, "Expected out tensor to have shape ", shape_str(shape), ", but got ",
           shape_str(out->sizes));
  gather_out_impl(tensors, out, dim);
}

}  // namespace ct::comm
