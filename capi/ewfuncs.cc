// ---- 31. elementwise functions (impl/ops/ewfuncs.cc; erf, silu, isnan, isinf and isfinite are
// ct_unary's table ops)
#include <optional>
#include <type_traits>

#include "capi/api.h"
#include "impl/ops/ewfuncs.h"
#include "impl/ops/ops.h"

using namespace ct;
using namespace ct::capi;

namespace {
std::optional<double> opt(int32_t has, double v) { return has ? std::optional<double>(v) : std::nullopt; }
Tensor opt_tensor(ct_tensor t, const char* name) { return t ? get(t, name) : Tensor(); }
}  // namespace

CT_API ct_status ct_gelu(ct_tensor t, const char* approximate, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::gelu(get(t), approximate ? approximate : "none"); });
  CT_API_END
}

CT_API ct_status ct_nan_to_num(ct_tensor t, int32_t has_nan, double nan, int32_t has_posinf, double posinf,
                               int32_t has_neginf, double neginf, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::nan_to_num(get(t), opt(has_nan, nan), opt(has_posinf, posinf), opt(has_neginf, neginf)); });
  CT_API_END
}

CT_API ct_status ct_clamp_tensor(ct_tensor t, ct_tensor min, ct_tensor max, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::clamp_tensor(get(t), opt_tensor(min, "min"), opt_tensor(max, "max")); });
  CT_API_END
}

CT_API ct_status ct_lerp(ct_tensor start, ct_tensor end, ct_tensor weight, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::lerp(get(start, "start"), get(end, "end"), get(weight, "weight")); });
  CT_API_END
}

CT_API ct_status ct_lerp_scalar(ct_tensor start, ct_tensor end, double weight, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::lerp_scalar(get(start, "start"), get(end, "end"), weight); });
  CT_API_END
}

CT_API ct_status ct_addcmul(ct_tensor t, ct_tensor t1, ct_tensor t2, double value, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::addcmul(get(t), get(t1, "tensor1"), get(t2, "tensor2"), value); });
  CT_API_END
}

CT_API ct_status ct_addcdiv(ct_tensor t, ct_tensor t1, ct_tensor t2, double value, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::addcdiv(get(t), get(t1, "tensor1"), get(t2, "tensor2"), value); });
  CT_API_END
}

namespace {
// torch.where(cond, x, s) or (cond, s, x) with s a Python number (a wrapped number: it promotes
// as PyTorch's)
template <typename S>
ct_status where_scalar(ct_tensor cond, ct_tensor x, S number, int32_t reverse, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] {
    Tensor c = get(cond, "cond"), v = get(x, "x");
    Tensor s = std::is_integral_v<S> ? wrapped_scalar_int(static_cast<int64_t>(number))
                                     : wrapped_scalar_double(static_cast<double>(number));
    return reverse ? ops::where(c, s, v) : ops::where(c, v, s);
  });
  CT_API_END
}
}  // namespace

CT_API ct_status ct_where_scalar_f(ct_tensor cond, ct_tensor x, double s, int32_t reverse, ct_tensor* out) {
  CT_TRACE_CALL();
  return where_scalar(cond, x, s, reverse, out);
}

CT_API ct_status ct_where_scalar_i(ct_tensor cond, ct_tensor x, int64_t s, int32_t reverse, ct_tensor* out) {
  CT_TRACE_CALL();
  return where_scalar(cond, x, s, reverse, out);
}

CT_API ct_status ct_where_scalars_f(ct_tensor cond, double a, double b, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::where(get(cond, "cond"), wrapped_scalar_double(a), wrapped_scalar_double(b)); });
  CT_API_END
}

CT_API ct_status ct_where_scalars_i(ct_tensor cond, int64_t a, int64_t b, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::where(get(cond, "cond"), wrapped_scalar_int(a), wrapped_scalar_int(b)); });
  CT_API_END
}

CT_API ct_status ct_isclose(ct_tensor a, ct_tensor b, double rtol, double atol, int32_t equal_nan, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return ops::isclose(get(a, "a"), get(b, "b"), rtol, atol, equal_nan != 0); });
  CT_API_END
}

CT_API ct_status ct_allclose(ct_tensor a, ct_tensor b, double rtol, double atol, int32_t equal_nan, int32_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = ops::allclose(get(a, "a"), get(b, "b"), rtol, atol, equal_nan != 0) ? 1 : 0;
  CT_API_END
}
