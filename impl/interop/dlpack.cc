// DLPack export/import and from_blob (Note [Foreign memory] in dlpack.h).
#include "impl/interop/dlpack.h"

#include <dlpack/dlpack.h>

#include <cuda_runtime_api.h>

#include <memory>
#include <vector>

#include "impl/core/error.h"
#include "impl/cuda/runtime.h"
#include "impl/cuda/stream.h"

namespace ct::interop {

namespace {

// The one table of ctorch dtypes <-> DLPack type codes (bits = 8 * itemsize, lanes 1), as
// torch's getDLDataType / toScalarType.
struct DlCode {
  DType dtype;
  uint8_t code;
};
constexpr DlCode kDlCodes[] = {
    {DType::UInt8, kDLUInt},        {DType::Int8, kDLInt},         {DType::Int16, kDLInt},
    {DType::Int32, kDLInt},         {DType::Int64, kDLInt},        {DType::Float16, kDLFloat},
    {DType::Float32, kDLFloat},     {DType::Float64, kDLFloat},    {DType::Complex64, kDLComplex},
    {DType::Complex128, kDLComplex}, {DType::Bool, kDLBool},       {DType::BFloat16, kDLBfloat},
};

DLDataType dl_dtype(DType d) {
  for (const DlCode& c : kDlCodes)
    if (c.dtype == d) return DLDataType{c.code, static_cast<uint8_t>(itemsize(d) * 8), 1};
  fail(Status::Internal, "no DLPack type for ", dtype_name(d));
}

// torch's toScalarType, with its messages; the widths torch has and ctorch lacks (uint16/32/64,
// complex32) get the message of an unsupported width (docs/differences.md).
DType ct_dtype_of(const DLDataType& t) {
  CT_CHECK(t.lanes == 1, Status::DType, "ATen does not support lanes != 1");
  for (const DlCode& c : kDlCodes)
    if (c.code == t.code && itemsize(c.dtype) * 8 == t.bits) return c.dtype;
  const unsigned bits = t.bits;
  switch (t.code) {
    case kDLUInt: fail(Status::DType, "Unsupported kUInt bits ", bits);
    case kDLInt: fail(Status::DType, "Unsupported kInt bits ", bits);
    case kDLFloat:
    case kDLBfloat:
    case kDLComplex: fail(Status::DType, "Unsupported kFloat bits ", bits);
    case kDLBool: fail(Status::DType, "Unsupported kDLBool bits ", bits);
    default: fail(Status::DType, "Unsupported code ", static_cast<unsigned>(t.code));
  }
}

// torch's getATenDevice for the device types ctorch has.
Device ct_device_of(const DLDevice& d) {
  switch (d.device_type) {
    case kDLCPU: return Device{DeviceType::CPU, -1};
    case kDLCUDA:
      cuda::check_device_index(d.device_id);
      return Device{DeviceType::CUDA, d.device_id};
    default: fail(Status::Device, "Unsupported device_type: ", static_cast<int>(d.device_type));
  }
}

DLDevice dl_device(const Device& d) {
  // pinned host memory is kDLCPU, as torch's torchDeviceToDLDevice
  if (d.is_cuda()) return DLDevice{kDLCUDA, d.index};
  return DLDevice{kDLCPU, 0};
}

// What an exported struct owns: the storage and the shape arrays the DLTensor points at.
template <class M>
struct Exported {
  std::shared_ptr<Storage> storage;
  std::vector<int64_t> sizes, strides;
  M managed{};
};

template <class M>
void delete_exported(M* m) {
  delete static_cast<Exported<M>*>(m->manager_ctx);
}

void fill_version(DLManagedTensor*) {}
void fill_version(DLManagedTensorVersioned* m) {
  m->version.major = DLPACK_MAJOR_VERSION;
  m->version.minor = DLPACK_MINOR_VERSION;
  m->flags = 0;  // writable, and not a copy
}

template <class M>
M* export_impl(const Tensor& t) {
  auto e = std::make_unique<Exported<M>>();
  e->storage = storage_ref(t);
  e->sizes.assign(t->sizes.begin(), t->sizes.end());
  e->strides.assign(t->strides.begin(), t->strides.end());
  for (size_t i = 0; i < e->sizes.size(); ++i)
    if (e->sizes[i] < 2) e->strides[i] = 1;  // torch's normalization (gh-83069)
  M& m = e->managed;
  m.manager_ctx = e.get();
  m.deleter = &delete_exported<M>;
  DLTensor& dl = m.dl_tensor;
  dl.data = t->storage->data() && t->numel() > 0 ? t->data() : nullptr;  // as torch: an empty tensor has no data
  dl.device = dl_device(t->device());
  dl.ndim = static_cast<int32_t>(t->dim());
  dl.dtype = dl_dtype(t->dtype);
  dl.shape = e->sizes.data();
  dl.strides = e->strides.data();
  dl.byte_offset = 0;
  fill_version(&m);
  e.release();
  return &m;
}

template <class M>
void call_capsule_deleter(void* /*data*/, void* ctx) {
  M* m = static_cast<M*>(ctx);
  if (m->deleter) m->deleter(m);
}

template <class M>
Tensor import_impl(M* m) {
  CT_CHECK(m != nullptr, Status::NullPointer, "from_dlpack: the DLPack struct is NULL");
  const DLTensor& dl = m->dl_tensor;
  DType dtype = ct_dtype_of(dl.dtype);
  Device device = ct_device_of(dl.device);
  // (a bound, as every shape argument of the ABI has: a garbage ndim is an error, not a huge read)
  CT_CHECK(dl.ndim >= 0 && dl.ndim <= 64, Status::Shape, "from_dlpack: ndim ", dl.ndim,
           " is out of range (expected 0..64)");
  CT_CHECK(dl.ndim == 0 || dl.shape != nullptr, Status::NullPointer, "from_dlpack: shape is NULL for ndim ", dl.ndim);
  Shape sizes(dl.shape, dl.shape + dl.ndim);
  std::optional<Shape> strides;
  if (dl.strides) strides = Shape(dl.strides, dl.strides + dl.ndim);  // NULL: compact row-major
  void* data = dl.data ? static_cast<char*>(dl.data) + dl.byte_offset : nullptr;
  return from_blob(data, sizes, strides, dtype, device, &call_capsule_deleter<M>, m);
}

struct BlobOwner {
  BlobDeleter fn;
  void* data;
  void* ctx;
};

void run_blob_deleter(void* p) {
  std::unique_ptr<BlobOwner> o(static_cast<BlobOwner*>(p));
  o->fn(o->data, o->ctx);
}

// torch's getDeviceFromPtr checks for memory said to be on a CUDA device.
void check_cuda_pointer(void* data, const Device& device) {
  cudaPointerAttributes a{};
  cudaError_t err = cudaPointerGetAttributes(&a, data);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    fail(Status::Cuda, "from_blob: cudaPointerGetAttributes failed: ", cudaGetErrorString(err));
  }
  CT_CHECK(a.type != cudaMemoryTypeUnregistered, Status::Device,
           "The specified pointer resides on host memory and is not registered with any CUDA device.");
  CT_CHECK(a.device == device.index, Status::Device, "Specified device ", device.str(),
           " does not match device of data cuda:", a.device);
}

}  // namespace

DLManagedTensor* to_dlpack(const Tensor& t) { return export_impl<DLManagedTensor>(t); }
DLManagedTensorVersioned* to_dlpack_versioned(const Tensor& t) { return export_impl<DLManagedTensorVersioned>(t); }

void dlpack_stream_handoff(const Tensor& t, int64_t stream) {
  if (!t->device().is_cuda()) {
    CT_CHECK(stream == -1, Status::Argument, "stream should be None on cpu.");
    return;
  }
  if (stream == -1) return;  // the consumer synchronizes itself
  CT_CHECK(stream != 2, Status::Argument, "per-thread default stream is not supported.");
  CT_CHECK(stream != 0, Status::Argument, "unsupported stream 0 for ROCm/CUDA");
  const int dev = t->device().index;
  cuda::Stream consumer = stream == 1 ? cuda::default_stream(dev)
                                      : cuda::external_stream(reinterpret_cast<cudaStream_t>(stream), dev);
  const cuda::Stream& current = cuda::current_stream(dev);
  if (consumer->stream != current->stream) cuda::stream_wait_stream(consumer, current);  // an event, no host sync
}

void dlpack_device(const Tensor& t, int32_t* type, int32_t* id) {
  DLDevice d = dl_device(t->device());
  *type = static_cast<int32_t>(d.device_type);
  *id = d.device_id;
}

Tensor from_dlpack(DLManagedTensor* m) { return import_impl(m); }

Tensor from_dlpack_versioned(DLManagedTensorVersioned* m) {
  CT_CHECK(m != nullptr, Status::NullPointer, "from_dlpack: the DLPack struct is NULL");
  CT_CHECK(m->version.major <= DLPACK_MAJOR_VERSION, Status::NotSupported,
           "unsupported DLPack capsule major version: ", m->version.major,
           ". Maximum supported version: ", DLPACK_MAJOR_VERSION);
  CT_CHECK(m->version.major == DLPACK_MAJOR_VERSION, Status::NotSupported,
           "unsupported DLPack capsule major version: ", m->version.major, " (DLManagedTensorVersioned starts at 1)");
  return import_impl(m);
}

void delete_capsule(void* capsule, bool versioned) {
  CT_CHECK(capsule != nullptr, Status::NullPointer, "the DLPack struct is NULL");
  if (versioned) {
    auto* m = static_cast<DLManagedTensorVersioned*>(capsule);
    if (m->deleter) m->deleter(m);
  } else {
    auto* m = static_cast<DLManagedTensor*>(capsule);
    if (m->deleter) m->deleter(m);
  }
}

Tensor from_blob(void* data, const Shape& sizes, const std::optional<Shape>& strides_arg, DType dtype, Device device,
                 BlobDeleter deleter, void* ctx) {
  const int64_t numel = numel_of(sizes);  // checks sizes >= 0
  Shape strides = strides_arg ? *strides_arg : contiguous_strides(sizes);
  CT_CHECK(strides.size() == sizes.size(), Status::Shape, "mismatch in length of strides and shape");
  for (int64_t s : strides)
    CT_CHECK(s >= 0, Status::Argument, "as_strided: Negative strides are not supported at the moment, got strides: ",
             shape_str(strides));
  CT_CHECK(data != nullptr || numel == 0, Status::NullPointer, "from_blob: the data pointer is NULL for a tensor of ",
           numel, " elements");
  // the bytes the tensor spans: 1 + sum (size - 1) * stride elements
  int64_t span = 0;
  if (numel > 0) {
    int64_t last = 0, term;
    for (size_t i = 0; i < sizes.size(); ++i) {
      CT_CHECK(!__builtin_mul_overflow(sizes[i] - 1, strides[i], &term) && !__builtin_add_overflow(last, term, &last),
               Status::Shape, "from_blob: the strides ", shape_str(strides), " of shape ", shape_str(sizes),
               " overflow int64");
    }
    CT_CHECK(!__builtin_add_overflow(last, 1, &last) && !__builtin_mul_overflow(last, itemsize(dtype), &span),
             Status::Shape, "from_blob: shape ", shape_str(sizes), " needs more bytes than fit in int64");
  }
  if (device.is_cuda()) {
    device = cuda::resolve_device(device);
    if (data) check_cuda_pointer(data, device);
  } else {
    device = Device{DeviceType::CPU, -1};
  }
  // Everything that may throw happens before the deleter is attached: a failed call leaves the
  // memory to the caller.
  std::unique_ptr<BlobOwner> owner = deleter ? std::make_unique<BlobOwner>(BlobOwner{deleter, data, ctx}) : nullptr;
  auto storage = std::make_shared<Storage>(DataPtr(data, device), span);
  auto t = std::make_shared<TensorImpl>();
  t->sizes = sizes;
  t->strides = std::move(strides);
  t->dtype = dtype;
  t->storage = storage.get();
  if (owner) storage->data_ptr = DataPtr(data, owner.release(), &run_blob_deleter, device);  // noexcept from here
  t->storage_owner = std::move(storage);
  return t;
}

}  // namespace ct::interop
