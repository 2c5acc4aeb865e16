// Sections 5-7 of ctorch.h: handles and metadata, factories, moving data.
#include "capi/api.h"
#include "impl/ops/ops.h"

using namespace ct;
using namespace ct::capi;


extern "C" {

// ---- 5. handles and metadata

CT_API ct_status ct_tensor_retain(ct_tensor t) {
  CT_API_BEGIN
  retain(t);
  CT_API_END
}

CT_API ct_status ct_tensor_release(ct_tensor t) {
  CT_API_BEGIN
  release(t);
  CT_API_END
}

CT_API ct_status ct_live_tensor_count(int64_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = live_count();
  CT_API_END
}

CT_API ct_status ct_tensor_dim(ct_tensor t, int32_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = static_cast<int32_t>(get(t)->dim());
  CT_API_END
}

CT_API ct_status ct_tensor_size(ct_tensor t, int32_t dim, int64_t* out) {
  CT_API_BEGIN
  need(out, "out");
  Tensor x = get(t);
  CT_CHECK(x->dim() > 0, CT_ERR_INDEX, "size(): dimension specified as ", dim, " but tensor has no dimensions");
  *out = x->sizes[wrap_dim(dim, x->dim())];
  CT_API_END
}

CT_API ct_status ct_tensor_stride(ct_tensor t, int32_t dim, int64_t* out) {
  CT_API_BEGIN
  need(out, "out");
  Tensor x = get(t);
  CT_CHECK(x->dim() > 0, CT_ERR_INDEX, "stride(): dimension specified as ", dim, " but tensor has no dimensions");
  *out = x->strides[wrap_dim(dim, x->dim())];
  CT_API_END
}

static ct_status copy_dims(ct_tensor t, bool strides, int64_t* dst, int32_t cap, int32_t* ndim) {
  CT_API_BEGIN
  need(ndim, "ndim");
  Tensor x = get(t);
  put_dims(strides ? x->strides : x->sizes, dst, cap, ndim, "the tensor");
  CT_API_END
}

CT_API ct_status ct_tensor_sizes(ct_tensor t, int64_t* dst, int32_t cap, int32_t* ndim) {
  CT_TRACE_CALL();
  return copy_dims(t, false, dst, cap, ndim);
}
CT_API ct_status ct_tensor_strides(ct_tensor t, int64_t* dst, int32_t cap, int32_t* ndim) {
  CT_TRACE_CALL();
  return copy_dims(t, true, dst, cap, ndim);
}

CT_API ct_status ct_tensor_numel(ct_tensor t, int64_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = get(t)->numel();
  CT_API_END
}

CT_API ct_status ct_tensor_storage_offset(ct_tensor t, int64_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = get(t)->offset;
  CT_API_END
}

CT_API ct_status ct_tensor_dtype(ct_tensor t, ct_dtype* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = static_cast<ct_dtype>(get(t)->dtype);
  CT_API_END
}

CT_API ct_status ct_tensor_device(ct_tensor t, ct_device_type* type, int32_t* index) {
  CT_API_BEGIN
  put_device(get(t)->device(), type, index);
  CT_API_END
}

CT_API ct_status ct_tensor_is_contiguous(ct_tensor t, int32_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = get(t)->is_contiguous() ? 1 : 0;
  CT_API_END
}

CT_API ct_status ct_tensor_data_ptr(ct_tensor t, int64_t* out) {
  CT_API_BEGIN
  need(out, "out");
  Tensor x = get(t);
  // an empty tensor has no data: 0, as torch.empty(0).data_ptr()
  *out = (x->storage->data() && x->numel() > 0) ? static_cast<int64_t>(reinterpret_cast<intptr_t>(x->data())) : 0;
  CT_API_END
}

CT_API ct_status ct_tensor_shares_storage(ct_tensor a, ct_tensor b, int32_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = get(a, "a")->storage == get(b, "b")->storage ? 1 : 0;
  CT_API_END
}

CT_API ct_status ct_tensor_is_same(ct_tensor a, ct_tensor b, int32_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = get(a, "a").get() == get(b, "b").get() ? 1 : 0;
  CT_API_END
}

CT_API ct_status ct_tensor_repr(ct_tensor t, void* buf, int64_t cap, int64_t* needed) {
  CT_API_BEGIN
  write_string(ops::repr(get(t)), buf, cap, needed);
  CT_API_END
}

// ---- 6. factories

CT_API ct_status ct_empty(const int64_t* sizes, int32_t ndim, ct_dtype dtype, ct_device_type dev_type,
                          int32_t dev_index, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::empty(shape_arg(sizes, ndim, "sizes"), dtype_arg(dtype), device_arg(dev_type, dev_index)); });
  CT_API_END
}

CT_API ct_status ct_zeros(const int64_t* sizes, int32_t ndim, ct_dtype dtype, ct_device_type dev_type,
                          int32_t dev_index, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::full(shape_arg(sizes, ndim, "sizes"), 0.0, dtype_arg(dtype), device_arg(dev_type, dev_index)); });
  CT_API_END
}

CT_API ct_status ct_ones(const int64_t* sizes, int32_t ndim, ct_dtype dtype, ct_device_type dev_type,
                         int32_t dev_index, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::full(shape_arg(sizes, ndim, "sizes"), 1.0, dtype_arg(dtype), device_arg(dev_type, dev_index)); });
  CT_API_END
}

CT_API ct_status ct_full(const int64_t* sizes, int32_t ndim, double value, ct_dtype dtype, ct_device_type dev_type,
                         int32_t dev_index, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::full(shape_arg(sizes, ndim, "sizes"), value, dtype_arg(dtype), device_arg(dev_type, dev_index)); });
  CT_API_END
}

CT_API ct_status ct_arange(double start, double end, double step, ct_dtype dtype, ct_device_type dev_type,
                           int32_t dev_index, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::arange(start, end, step, dtype_arg(dtype), device_arg(dev_type, dev_index)); });
  CT_API_END
}

CT_API ct_status ct_linspace(double start, double end, int64_t steps, ct_dtype dtype, ct_device_type dev_type,
                             int32_t dev_index, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::linspace(start, end, steps, dtype_arg(dtype), device_arg(dev_type, dev_index)); });
  CT_API_END
}

CT_API ct_status ct_eye(int64_t n, int64_t m, ct_dtype dtype, ct_device_type dev_type, int32_t dev_index,
                        ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::eye(n, m, dtype_arg(dtype), device_arg(dev_type, dev_index)); });
  CT_API_END
}

CT_API ct_status ct_from_buffer(const void* data, int64_t nbytes, const int64_t* sizes, int32_t ndim, ct_dtype dtype,
                                ct_device_type dev_type, int32_t dev_index, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] {
    Shape s = shape_arg(sizes, ndim, "sizes");
    DType d = dtype_arg(dtype);
    Device dev = device_arg(dev_type, dev_index);
    return ops::from_buffer(data, nbytes, s, d, dev);
  });
  CT_API_END
}

CT_API ct_status ct_empty_like(ct_tensor t, ct_dtype dtype, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { Tensor x = get(t); return ops::empty(x->sizes, dtype_or(dtype, x->dtype), x->device()); });
  CT_API_END
}

CT_API ct_status ct_zeros_like(ct_tensor t, ct_dtype dtype, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { Tensor x = get(t); return ops::full(x->sizes, 0.0, dtype_or(dtype, x->dtype), x->device()); });
  CT_API_END
}

CT_API ct_status ct_ones_like(ct_tensor t, ct_dtype dtype, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { Tensor x = get(t); return ops::full(x->sizes, 1.0, dtype_or(dtype, x->dtype), x->device()); });
  CT_API_END
}

CT_API ct_status ct_full_like(ct_tensor t, double value, ct_dtype dtype, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { Tensor x = get(t); return ops::full(x->sizes, value, dtype_or(dtype, x->dtype), x->device()); });
  CT_API_END
}

CT_API ct_status ct_new_empty(ct_tensor t, const int64_t* sizes, int32_t ndim, ct_dtype dtype, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { Tensor x = get(t); return ops::empty(shape_arg(sizes, ndim, "sizes"), dtype_or(dtype, x->dtype), x->device()); });
  CT_API_END
}

CT_API ct_status ct_new_zeros(ct_tensor t, const int64_t* sizes, int32_t ndim, ct_dtype dtype, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { Tensor x = get(t); return ops::full(shape_arg(sizes, ndim, "sizes"), 0.0, dtype_or(dtype, x->dtype), x->device()); });
  CT_API_END
}

CT_API ct_status ct_new_ones(ct_tensor t, const int64_t* sizes, int32_t ndim, ct_dtype dtype, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { Tensor x = get(t); return ops::full(shape_arg(sizes, ndim, "sizes"), 1.0, dtype_or(dtype, x->dtype), x->device()); });
  CT_API_END
}

CT_API ct_status ct_new_full(ct_tensor t, const int64_t* sizes, int32_t ndim, double value, ct_dtype dtype,
                             ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { Tensor x = get(t); return ops::full(shape_arg(sizes, ndim, "sizes"), value, dtype_or(dtype, x->dtype), x->device()); });
  CT_API_END
}

CT_API ct_status ct_new_tensor(ct_tensor t, const void* data, int64_t nbytes, const int64_t* sizes, int32_t ndim,
                               ct_dtype buffer_dtype, ct_dtype dtype, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] {
    Tensor x = get(t);
    Tensor host = ops::from_buffer(data, nbytes, shape_arg(sizes, ndim, "sizes"), dtype_arg(buffer_dtype), Device{});
    return ops::to(host, x->device(), dtype_or(dtype, x->dtype), false);
  });
  CT_API_END
}

// ---- 7. moving data

CT_API ct_status ct_tensor_copy_to_buffer(ct_tensor t, void* data, int64_t nbytes) {
  CT_API_BEGIN
  ops::copy_to_buffer(get(t), data, nbytes);
  CT_API_END
}

CT_API ct_status ct_tensor_to(ct_tensor t, ct_device_type dev_type, int32_t dev_index, ct_dtype dtype,
                              int32_t non_blocking, int32_t copy, ct_tensor* out) {
  CT_API_BEGIN
  need(out, "out");
  Tensor x = get(t);
  Device dev = device_arg(dev_type, dev_index);
  same_or_new(t, x, ops::to(x, dev, dtype_or(dtype, x->dtype), copy != 0, non_blocking != 0), out);
  CT_API_END
}

CT_API ct_status ct_tensor_copy_(ct_tensor dst, ct_tensor src, int32_t non_blocking) {
  CT_API_BEGIN
  ops::copy_(get(dst, "dst"), get(src, "src"), non_blocking != 0);
  CT_API_END
}

CT_API ct_status ct_tensor_clone(ct_tensor t, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::clone(get(t)); });
  CT_API_END
}

CT_API ct_status ct_tensor_item_double(ct_tensor t, double* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = ops::item_double(get(t));
  CT_API_END
}

CT_API ct_status ct_tensor_item_int64(ct_tensor t, int64_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = ops::item_int64(get(t));
  CT_API_END
}

CT_API ct_status ct_tensor_item_complex(ct_tensor t, double* re, double* im) {
  CT_API_BEGIN
  need(re, "re");
  need(im, "im");
  auto v = ops::item_complex(get(t));
  *re = v.first;
  *im = v.second;
  CT_API_END
}

}  // extern "C"
