#include "impl/core/dtype.h"

#include "impl/core/error.h"

namespace ct {

bool dtype_valid(int32_t v) {
  switch (v) {
    case CT_UINT8: case CT_INT8: case CT_INT16: case CT_INT32: case CT_INT64: case CT_FLOAT16:
    case CT_FLOAT32: case CT_FLOAT64: case CT_COMPLEX64: case CT_COMPLEX128: case CT_BOOL:
    case CT_BFLOAT16:
      return true;
    default:
      return false;
  }
}

DType dtype_from_c(ct_dtype v) {
  CT_CHECK(dtype_valid(v), CT_ERR_DTYPE, "invalid dtype value ", v,
           " (expected one of the CT_* dtype constants, e.g. CT_FLOAT32 = 6)");
  return static_cast<DType>(v);
}

const char* dtype_name(DType d) {
  switch (d) {
    case DType::UInt8: return "torch.uint8";
    case DType::Int8: return "torch.int8";
    case DType::Int16: return "torch.int16";
    case DType::Int32: return "torch.int32";
    case DType::Int64: return "torch.int64";
    case DType::Float16: return "torch.float16";
    case DType::BFloat16: return "torch.bfloat16";
    case DType::Float32: return "torch.float32";
    case DType::Float64: return "torch.float64";
    case DType::Complex64: return "torch.complex64";
    case DType::Complex128: return "torch.complex128";
    case DType::Bool: return "torch.bool";
  }
  return "torch.unknown";
}

const char* dtype_short(DType d) {
  switch (d) {
    case DType::UInt8: return "Byte";
    case DType::Int8: return "Char";
    case DType::Int16: return "Short";
    case DType::Int32: return "Int";
    case DType::Int64: return "Long";
    case DType::Float16: return "Half";
    case DType::BFloat16: return "BFloat16";
    case DType::Float32: return "Float";
    case DType::Float64: return "Double";
    case DType::Complex64: return "ComplexFloat";
    case DType::Complex128: return "ComplexDouble";
    case DType::Bool: return "Bool";
  }
  return "Unknown";
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
