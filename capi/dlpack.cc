// Section 26 of ctorch.h: DLPack export/import and from_blob (impl/interop, docs/dlpack.md).
#include "capi/api.h"
#include "impl/interop/dlpack.h"

using namespace ct;
using namespace ct::capi;

extern "C" {

CT_API ct_status ct_to_dlpack(ct_tensor t, void** out_capsule) {
  CT_API_BEGIN
  Tensor x = get(t);
  need(out_capsule, "out_capsule");
  *out_capsule = interop::to_dlpack(x);
  CT_API_END
}

CT_API ct_status ct_to_dlpack_versioned(ct_tensor t, void** out_capsule) {
  CT_API_BEGIN
  Tensor x = get(t);
  need(out_capsule, "out_capsule");
  *out_capsule = interop::to_dlpack_versioned(x);
  CT_API_END
}

CT_API ct_status ct_tensor_dlpack(ct_tensor t, int64_t stream, int32_t versioned, void** out_capsule) {
  CT_API_BEGIN
  Tensor x = get(t);
  need(out_capsule, "out_capsule");
  interop::dlpack_stream_handoff(x, stream);
  *out_capsule = versioned ? static_cast<void*>(interop::to_dlpack_versioned(x)) : interop::to_dlpack(x);
  CT_API_END
}

CT_API ct_status ct_tensor_dlpack_device(ct_tensor t, int32_t* device_type, int32_t* device_id) {
  CT_API_BEGIN
  Tensor x = get(t);
  need(device_type, "device_type");
  need(device_id, "device_id");
  interop::dlpack_device(x, device_type, device_id);
  CT_API_END
}

CT_API ct_status ct_from_dlpack(void* capsule, ct_tensor* out) {
  CT_API_BEGIN
  need(capsule, "capsule");
  produce(out, [&] { return interop::from_dlpack(static_cast<DLManagedTensor*>(capsule)); });
  CT_API_END
}

CT_API ct_status ct_from_dlpack_versioned(void* capsule, ct_tensor* out) {
  CT_API_BEGIN
  need(capsule, "capsule");
  produce(out, [&] { return interop::from_dlpack_versioned(static_cast<DLManagedTensorVersioned*>(capsule)); });
  CT_API_END
}

CT_API ct_status ct_dlpack_delete(void* capsule, int32_t versioned) {
  CT_API_BEGIN
  need(capsule, "capsule");
  interop::delete_capsule(capsule, versioned != 0);
  CT_API_END
}

CT_API ct_status ct_from_blob(void* address, const int64_t* sizes, int32_t ndim, const int64_t* strides,
                              ct_dtype dtype, ct_device_type dev_type, int32_t dev_index, ct_blob_deleter deleter,
                              void* ctx, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] {
    Shape sz = shape_arg(sizes, ndim, "sizes");
    std::optional<Shape> st;
    if (strides) st = Shape(strides, strides + ndim);
    DType dt = dtype_arg(dtype);
    Device dev = device_arg(dev_type, dev_index);
    return interop::from_blob(address, sz, st, dt, dev, deleter, ctx);
  });
  CT_API_END
}

}  // extern "C"
