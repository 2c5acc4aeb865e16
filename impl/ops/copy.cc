#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "impl/core/error.h"
#include "impl/ops/cpu/convert.h"
#include "impl/ops/cpu/loops.h"
#include "impl/ops/cpu/simd.h"
#include "impl/alloc/allocator.h"
#include "impl/alloc/cuda_memory.h"
#include "impl/cuda/capture.h"
#include "impl/ops/cuda_dispatch.h"
#include "impl/ops/ops.h"

namespace ct::ops {

namespace {

template <typename To, typename From>
void cast_loop(const cpu::StridedOperands<2>& o) {
  cpu::for_each<2>(o, cpu::kGrainSize, [](std::array<char*, 2> p, const std::array<int64_t, 2>& st, int64_t n) {
    if (st[0] == sizeof(To) && st[1] == sizeof(From)) {
      To* d = reinterpret_cast<To*>(p[0]);
      const From* s = reinterpret_cast<const From*>(p[1]);
      if constexpr (std::is_same_v<To, From>) {
        std::memcpy(d, s, n * sizeof(To));
      } else if constexpr (cpu::has_convert_n_v<To, From>) {
        cpu::convert_n(s, d, n);  // float16/bfloat16 <-> float32 (Note [CPU SIMD kernels])
      } else {
        for (int64_t i = 0; i < n; ++i) d[i] = cpu::convert<To>(s[i]);
      }
    } else {
      for (int64_t i = 0; i < n; ++i) {
        *reinterpret_cast<To*>(p[0] + i * st[0]) = cpu::convert<To>(*reinterpret_cast<const From*>(p[1] + i * st[1]));
      }
    }
  });
}

// Note [Copies between devices]: host<->device copies of contiguous data of one dtype are one
// cudaMemcpyAsync on the current stream of the CUDA side; anything else is staged through a
// contiguous temporary (cast on the device with the cast kernel, or on the CPU). As in
// PyTorch, a copy that is not non_blocking waits for its stream before returning (so results
// look synchronous), and a non_blocking copy between pinned host memory and the device is
// truly asynchronous. Copies between two GPUs run on the source device's current stream,
// ordered after the destination's current stream and before its later work (two events),
// with cudaMemcpyPeerAsync (direct over NVLink/PCIe where peer access exists, else staged by
// the driver).

// One memcpy moves src into dst: one dtype, one shape, the same dense layout (both contiguous,
// or both laid out alike, as a transposed tensor and its like-strided copy).
bool plain(const Tensor& a, const Tensor& b) {
  if (a->dtype != b->dtype || a->sizes != b->sizes) return false;
  if (a->is_contiguous() && b->is_contiguous()) return true;
  for (int64_t d = 0; d < a->dim(); ++d)
    if (a->sizes[d] != 1 && a->strides[d] != b->strides[d]) return false;
  return is_non_overlapping_and_dense(a.get());
}

void sync_stream(const CudaScope& sc, const char* what) {
  cuda::on_host_sync(what);
  cuda::check(cudaStreamSynchronize(static_cast<cudaStream_t>(sc.stream)), what);
  if (csan::on()) csan::stream_synchronize(cuda::csan_key(sc.stream_ref));
}

void memcpy_async(void* dst, const void* src, int64_t n, cudaMemcpyKind kind, const CudaScope& sc) {
  cuda::check(cudaMemcpyAsync(dst, src, static_cast<size_t>(n), kind, static_cast<cudaStream_t>(sc.stream)),
              "cudaMemcpyAsync");
}

// A copy between the GPU and host memory that the host then waits for: refused during a capture
// (Note [Illegal operations during capture]) before anything is queued. The stream sanitizer
// learns of the copy (reads, writes) before the wait, which orders every stream after it, and
// a race is raised once the copy is done.
void blocking_copy(void* dst, const void* src, int64_t n, cudaMemcpyKind kind, const CudaScope& sc, const char* what,
                   const std::vector<cuda::CsanTensor>& reads, const std::vector<cuda::CsanTensor>& writes) {
  cuda::check_capture_safe(what, static_cast<cudaStream_t>(sc.stream));
  memcpy_async(dst, src, n, kind, sc);
  cuda::CsanReports races;
  races.kernel(sc.stream_ref, "copy_", reads, writes);
  sync_stream(sc, what);
  races.raise("copy_");
}

void copy_same_cuda_device(const Tensor& dst, const Tensor& src) {
  CudaScope sc(dst->device());
  if (src->device().is_cuda() && plain(dst, src)) {
    memcpy_async(dst->data(), src->data(), dst->numel() * dst->itemsize(), cudaMemcpyDeviceToDevice, sc);
  } else {
    cuda_ops::cast(cuda_iter<2>(dst->sizes, {dst.get(), src.get()}), sc.stream);
  }
  CT_CSAN_KERNEL(sc.stream_ref, "copy_", {{src.get(), "src"}}, {{dst.get(), "self"}});
}

// dst's bytes from src, one side on the host, on the CUDA side's current stream. The host
// waits for the copy unless non_blocking and the host side is pinned memory, whose block then
// records the copy (Note [Pinned memory reuse]).
void memcpy_host_device(const Tensor& dst, const Tensor& src, bool to_device, bool non_blocking) {
  const Tensor& host = to_device ? src : dst;
  const Device& dev = to_device ? dst->device() : src->device();
  CudaScope sc(dev);
  const int64_t n = dst->numel() * dst->itemsize();
  const cudaMemcpyKind kind = to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
  if (!non_blocking || !alloc::is_pinned(host->storage->data_ptr)) {
    const char* what = to_device ? "copy from host to device" : "copy from device to host";
    blocking_copy(dst->data(), src->data(), n, kind, sc, what, {{src.get(), "src"}}, {{dst.get(), "self"}});
    return;
  }
  memcpy_async(dst->data(), src->data(), n, kind, sc);
  CT_CSAN_KERNEL(sc.stream_ref, "copy_", {{src.get(), "src"}}, {{dst.get(), "self"}});
  // Only an asynchronous copy from or to pinned memory can be captured into a graph (Note
  // [Illegal operations during capture]). Its block then records no event: keeping the pinned
  // tensor alive while the graph replays is the caller's part (docs/graphs.md).
  if (!cuda::capture_of(static_cast<cudaStream_t>(sc.stream)))
    alloc::host_allocator().record_event(host->storage->data(), dev.index, sc.stream);
}

void copy_h2d(const Tensor& dst, const Tensor& src_in, bool non_blocking) {
  Tensor src = expand(src_in, dst->sizes);
  if (plain(dst, src)) {
    memcpy_host_device(dst, src, true, non_blocking);
    return;
  }
  // staged on the host in dst's layout (when dense) and src's dtype, cast on the device if needed
  Tensor h = empty_tensor(dst->sizes, src->dtype, Device{});
  if (is_non_overlapping_and_dense(dst.get())) h->strides = dst->strides;
  copy_(h, src);
  if (plain(dst, h)) {
    copy_h2d(dst, h, false);
    return;
  }
  Tensor d = empty_tensor(dst->sizes, h->dtype, dst->device());
  d->strides = h->strides;
  copy_h2d(d, h, false);
  copy_same_cuda_device(dst, d);
}

void copy_d2h(const Tensor& dst, const Tensor& src_in, bool non_blocking) {
  Tensor src = expand(src_in, dst->sizes);
  if (!plain(dst, src)) {
    Tensor d = empty_tensor(dst->sizes, dst->dtype, src->device());
    if (is_non_overlapping_and_dense(dst.get())) d->strides = dst->strides;
    copy_same_cuda_device(d, src);
    src = d;
  }
  if (plain(dst, src)) {
    memcpy_host_device(dst, src, false, non_blocking);
    return;
  }
  Tensor h = empty_tensor(dst->sizes, dst->dtype, Device{});
  h->strides = src->strides;  // src is dense here (a device-side copy of dst's shape)
  copy_d2h(h, src, false);
  copy_(dst, h);
}

void copy_d2d_peer(const Tensor& dst, const Tensor& src_in) {
  Tensor src = expand(src_in, dst->sizes);
  if (!(src->dtype == dst->dtype && src->is_contiguous())) {
    Tensor s2 = empty_tensor(dst->sizes, dst->dtype, src->device());
    copy_same_cuda_device(s2, src);
    src = s2;
  }
  Tensor target = dst->is_contiguous() ? dst : empty_tensor(dst->sizes, dst->dtype, dst->device());
  {
    auto dst_stream = cuda::current_stream(dst->device().index);
    CudaScope ssc(src->device());
    cuda::stream_wait_stream(ssc.stream_ref, dst_stream);  // dst's earlier work before the copy
    cuda::check(cudaMemcpyPeerAsync(target->data(), dst->device().index, src->data(), src->device().index,
                                    static_cast<size_t>(dst->numel() * dst->itemsize()),
                                    static_cast<cudaStream_t>(ssc.stream)),
                "cudaMemcpyPeerAsync");
    cuda::CsanReports races;  // raised once the copy is whole
    races.kernel(ssc.stream_ref, "copy_", {{src.get(), "src"}}, {{target.get(), "self"}});
    cuda::stream_wait_stream(dst_stream, ssc.stream_ref);  // dst's later work after the copy
    if (target.get() != dst.get()) copy_same_cuda_device(dst, target);
    races.raise("copy_");
  }
}

}  // namespace

void copy_(const Tensor& dst, const Tensor& src, bool non_blocking) {
  Shape b = broadcast_shapes(dst->sizes, src->sizes);
  CT_CHECK(b == dst->sizes, Status::Shape, "copy_: the source of shape ", shape_str(src->sizes),
           " can't be broadcast to the destination shape ", shape_str(dst->sizes));
  if (dst->numel() == 0 || src.get() == dst.get()) return;
  Tensor s = src;
  if (src->storage == dst->storage) s = clone(src);  // overlapping memory
  const Device dd = dst->device(), sd = s->device();
  if (dd.is_cpu() && sd.is_cpu()) {
    auto o = cpu::make_operands<2>(dst->sizes, {dst.get(), s.get()});
    CT_DISPATCH_ALL(dst->dtype, "copy_", [&] {
      using To = scalar_t;
      CT_DISPATCH_ALL(s->dtype, "copy_", [&] { cast_loop<To, scalar_t>(o); });
    });
  } else if (dd.is_cuda() && (sd == dd || (sd.is_cpu() && s->dim() == 0))) {
    copy_same_cuda_device(dst, s);
  } else if (dd.is_cuda() && sd.is_cpu()) {
    copy_h2d(dst, s, non_blocking);
  } else if (dd.is_cpu()) {
    copy_d2h(dst, s, non_blocking);
  } else {
    copy_d2d_peer(dst, s);
  }
}

Tensor clone(const Tensor& t) {
  Tensor out = empty_tensor(t->sizes, t->dtype, t->device());
  copy_(out, t);
  return out;
}

Tensor contiguous(const Tensor& t) { return t->is_contiguous() ? t : clone(t); }

Tensor to(const Tensor& t, Device dev, DType dtype, bool copy, bool non_blocking) {
  if (!copy && dev == t->device() && dtype == t->dtype) return t;
  // non_blocking to the CPU lands in pinned memory, so the copy can be truly asynchronous
  bool pinned = non_blocking && dev.is_cpu() && t->device().is_cuda();
  // PyTorch's memory_format=torch.preserve_format: a dense layout is kept (x.t().to(float16) is a
  // transposed tensor too, and one pass over memory), any other gets its dims' order
  Tensor out = empty_tensor(t->sizes, dtype, dev, pinned);
  out->strides = cpu::strides_for(t->sizes, {t.get()});
  copy_(out, t, non_blocking);
  return out;
}

Tensor pin_memory(const Tensor& t) {
  CT_CHECK(t->device().is_cpu(), Status::Device, "cannot pin '", t->device().str(),
           "' memory: only dense CPU tensors can be pinned");
  Tensor out = empty_tensor(t->sizes, t->dtype, Device{}, true);
  copy_(out, t);
  return out;
}

void copy_to_buffer(const Tensor& t, void* data, int64_t nbytes) {
  int64_t need = t->numel() * t->itemsize();
  CT_CHECK(nbytes == need, Status::BufferSize, "copy_to_buffer: buffer has ", nbytes,
           " bytes but the tensor of shape ", shape_str(t->sizes), " and dtype ", dtype_name(t->dtype),
           " needs exactly ", need);
  if (need == 0) return;
  CT_CHECK(data != nullptr, Status::NullPointer, "copy_to_buffer: data is NULL");
  Tensor c = t->is_contiguous() ? t : clone(t);
  if (c->device().is_cpu()) {
    std::memcpy(data, c->data(), need);
    return;
  }
  CudaScope sc(c->device());
  blocking_copy(data, c->data(), need, cudaMemcpyDeviceToHost, sc, "copy to a host buffer", {{c.get(), "self"}}, {});
}

Tensor from_buffer(const void* data, int64_t nbytes, const Shape& sizes, DType dtype, Device dev) {
  int64_t n = numel_of(sizes);
  int64_t need;
  CT_CHECK(!__builtin_mul_overflow(n, itemsize(dtype), &need), Status::BufferSize, "from_buffer: shape ",
           shape_str(sizes), " of ", dtype_name(dtype), " needs more bytes than fit in int64");
  CT_CHECK(nbytes == need, Status::BufferSize, "from_buffer: buffer has ", nbytes,
           " bytes but shape ", shape_str(sizes), " of ", dtype_name(dtype), " needs exactly ", need);
  CT_CHECK(data != nullptr || need == 0, Status::NullPointer, "from_buffer: data is NULL");
  Tensor out = empty_tensor(sizes, dtype, dev);
  if (need == 0) return out;
  // A bool element is the byte 0 or 1 (any other value is undefined behaviour in the kernels):
  // a buffer's non-zero bytes become 1.
  std::vector<uint8_t> bools;
  if (dtype == DType::Bool) {
    const auto* b = static_cast<const uint8_t*>(data);
    bools.assign(b, b + need);
    for (uint8_t& x : bools) x = x != 0;
    data = bools.data();
  }
  if (dev.is_cpu()) {
    std::memcpy(out->data(), data, need);
  } else {
    CudaScope sc(dev);
    // waited for: the caller may reuse its buffer at once
    blocking_copy(out->data(), data, need, cudaMemcpyHostToDevice, sc, "copy from a host buffer", {}, {{out.get(), "out"}});
  }
  return out;
}

namespace {
Tensor single(const Tensor& t, const char* what) {
  CT_CHECK(t->numel() == 1, Status::Shape, "a Tensor with ", t->numel(),
           " elements cannot be converted to Scalar (", what, ")");
  return t;
}
}  // namespace

double item_double(const Tensor& t) {
  single(t, "item");
  double v = 0;
  Tensor out = empty_tensor({}, DType::Float64, Device{});
  copy_(out, t->dim() == 0 ? t : make_view(t, {}, {}, t->offset));
  std::memcpy(&v, out->data(), sizeof v);
  return v;
}

int64_t item_int64(const Tensor& t) {
  single(t, "item");
  Tensor src = t->dim() == 0 ? t : make_view(t, {}, {}, t->offset);
  if (is_floating(t->dtype) || is_complex(t->dtype)) {
    double v = item_double(src);
    CT_CHECK(std::isfinite(v), Status::Argument, "item: cannot convert ", v, " to an integer");
    CT_CHECK(v > -9.3e18 && v < 9.3e18, Status::Argument, "item: value ", v, " does not fit in int64");
    return static_cast<int64_t>(v);
  }
  Tensor out = empty_tensor({}, DType::Int64, Device{});
  copy_(out, src);
  int64_t v = 0;
  std::memcpy(&v, out->data(), sizeof v);
  return v;
}

std::pair<double, double> item_complex(const Tensor& t) {
  single(t, "item");
  Tensor out = empty_tensor({}, DType::Complex128, Device{});
  copy_(out, t->dim() == 0 ? t : make_view(t, {}, {}, t->offset));
  double v[2];
  std::memcpy(v, out->data(), sizeof v);
  return {v[0], v[1]};
}

}  // namespace ct::ops
