#include "impl/core/dtype.h"

#include "impl/core/error.h"

namespace ct {

bool dtype_valid(int32_t v) { return abi::dtype_info(v) != nullptr; }

DType dtype_from_c(int32_t v) {
  CT_CHECK(dtype_valid(v), Status::DType, "invalid dtype value ", v,
           " (expected one of the CT_* dtype constants, e.g. CT_FLOAT32 = 6)");
  return static_cast<DType>(v);
}

const char* dtype_name(DType d) {
  const DTypeInfo* i = abi::dtype_info(static_cast<int32_t>(d));
  return i ? i->torch_name : "torch.unknown";
}

const char* dtype_short(DType d) {
  const DTypeInfo* i = abi::dtype_info(static_cast<int32_t>(d));
  return i ? i->short_name : "Unknown";
}

DType to_real(DType d) {
  if (d == DType::Complex64) return DType::Float32;
  if (d == DType::Complex128) return DType::Float64;
  return d;
}

DType to_complex(DType d) {
  if (is_complex(d)) return d;
  return d == DType::Float64 ? DType::Complex128 : DType::Complex64;
}

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  if (is_complex(a) || is_complex(b)) {
    return to_complex(promote_types(to_real(a), to_real(b)));
  }
  bool fa = is_floating(a), fb = is_floating(b);
  if (fa && fb) {
    if ((a == DType::Float16 && b == DType::BFloat16) || (a == DType::BFloat16 && b == DType::Float16))
      return DType::Float32;
    return itemsize(a) >= itemsize(b) ? a : b;
  }
  if (fa) return a;
  if (fb) return b;
  // both integral, not bool
  if (a == DType::UInt8 || b == DType::UInt8) {
    DType s = a == DType::UInt8 ? b : a;  // the signed one
    return s == DType::Int8 ? DType::Int16 : s;
  }
  return itemsize(a) >= itemsize(b) ? a : b;
}

bool can_cast(DType from, DType to) {
  if (is_complex(from) && !is_complex(to)) return false;
  if (is_floating(from) && is_integral(to, true)) return false;
  if (from != DType::Bool && to == DType::Bool) return false;
  return true;
}

}  // namespace ct
