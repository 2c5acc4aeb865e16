// Note [Jiterator kernels]: torch.cuda.jiterator's semantics (torch/cuda/jiterator.py,
// aten/src/ATen/cuda/jiterator.cu, native/cuda/jit_utils.cpp; /work/notes/issue18_research.md).
// The user writes `template <typename T> T name(T a, T b, ...extra) { ... }` (or, with several
// outputs, `void name(T a, ..., T& out0, T& out1)`); inputs are broadcast and promoted to their
// common dtype (torch.result_type), new outputs have that dtype (given outputs their own: the
// value is cast from the common dtype, as TensorIterator stores), and name is called with T the
// common dtype's math type (float for float16 and bfloat16). Unlike torch, which compiles one
// kernel that casts each operand at run time by a switch on its dtype, ctorch compiles one
// kernel per combination of dtypes (they are in the cache key either way), so every load and
// store is a static conversion. The source carries every type it uses: no CUDA or system header
// is needed where the program runs (Half and BFloat16 convert through PTX, as torch's).
// Operands are outputs first, then inputs (the elementwise engine's order); the collapsed shape
// is outermost first, byte strides, 64-bit offsets; element indices are 32-bit where numel
// allows. A contiguous kernel (every operand dense in one dim) skips the index arithmetic and
// moves vectors (Note [Jiterator blocks]); any other layout divides each index into the
// collapsed dims, 4 elements a thread.
#include "impl/jit/codegen.h"

#include <cctype>

#include "impl/core/dtype.h"
#include "impl/core/error.h"

namespace ct::jit {

namespace {
bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }
[[noreturn]] void parse_error(const std::string& code) {
  fail(Status::Argument, "Couldn't parse code, please check correctness:\n ", code);
}
}  // namespace

// torch's _CodeParser (re.match of `\s*template\s*(<.+>)\s*(\w+)\s+(\w+)\s*(\(.+\))\s*(\{.+\})\s*`
// with re.DOTALL: anchored at the start, every group greedy) without a regex engine, whose
// backtracking recurses once per character and overflows the stack on long code: the greedy
// `<.+>` ends at the last '>' after which a header `\s*\w+\s+(\w+)\s*(` follows, and the
// greedy `(.+)` and `{.+}` need a ')' at least two characters further, followed by spaces and a
// '{' with at least one character before a later '}'.
std::string function_name(const std::string& code) {
  const size_t n = code.size();
  size_t i = 0;
  while (i < n && is_space(code[i])) ++i;
  if (code.compare(i, 8, "template") != 0) parse_error(code);
  i += 8;
  while (i < n && is_space(code[i])) ++i;
  if (i >= n || code[i] != '<') parse_error(code);
  const size_t lt = i;
  // the last '}' and, before it with a character between, the last ')' followed by spaces and '{'
  const size_t last_brace = code.rfind('}');
  size_t last_paren = std::string::npos;
  if (last_brace != std::string::npos) {
    for (size_t p = last_brace; p-- > 0;) {
      if (code[p] != ')') continue;
      size_t k = p + 1;
      while (k < n && is_space(code[k])) ++k;
      if (k < n && code[k] == '{' && k + 1 < last_brace) {
        last_paren = p;
        break;
      }
    }
  }
  if (last_paren == std::string::npos) parse_error(code);
  for (size_t gt = n; gt-- > lt + 1;) {  // the greedy `<.+>`: the last '>' that works
    if (code[gt] != '>' || gt < lt + 2) continue;
    size_t k = gt + 1;
    while (k < n && is_space(code[k])) ++k;
    size_t w0 = k;
    while (k < n && is_word(code[k])) ++k;
    if (k == w0 || k >= n || !is_space(code[k])) continue;  // the return type, then at least one space
    while (k < n && is_space(code[k])) ++k;
    size_t w1 = k;
    while (k < n && is_word(code[k])) ++k;
    if (k == w1) continue;
    std::string name = code.substr(w1, k - w1);
    while (k < n && is_space(code[k])) ++k;
    if (k < n && code[k] == '(' && last_paren >= k + 2) return name;
  }
  parse_error(code);
}

namespace {

const char* type_name(DType d) {
  switch (d) {
    case DType::UInt8: return "uint8_t";
    case DType::Int8: return "int8_t";
    case DType::Int16: return "int16_t";
    case DType::Int32: return "int32_t";
    case DType::Int64: return "int64_t";
    case DType::Float16: return "Half";
    case DType::BFloat16: return "BFloat16";
    case DType::Float32: return "float";
    case DType::Float64: return "double";
    case DType::Bool: return "bool";
    case DType::Complex64: return "std::complex<float>";
    case DType::Complex128: return "std::complex<double>";
  }
  fail(Status::DType, "the jiterator does not support ", dtype_name(d), " tensors");
}

// torch's toOpMathType: float16 and bfloat16 compute in float.
const char* math_type_name(DType d) {
  return d == DType::Float16 || d == DType::BFloat16 ? "float" : type_name(d);
}

const char* extra_type_name(JitArg t) {
  switch (t) {
    case JitArg::Int64: return "int64_t";
    case JitArg::Double: return "double";
    case JitArg::Bool: return "bool";
  }
  return "double";
}

// Everything a kernel uses, without headers (NVRTC declares the CUDA math functions itself).
const char* kPrelude = R"(// ctorch jiterator kernel (Note [Jiterator kernels] in impl/jit/codegen.cc)
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
#define INFINITY __int_as_float(0x7f800000)
#define NAN __int_as_float(0x7fffffff)
#define POS_INFINITY __int_as_float(0x7f800000)
#define NEG_INFINITY __int_as_float(0xff800000)
namespace std {
using ::abs; using ::acos; using ::acosh; using ::asin; using ::asinh; using ::atan; using ::atan2;
using ::atanh; using ::cbrt; using ::ceil; using ::copysign; using ::cos; using ::cosh; using ::erf;
using ::erfc; using ::exp; using ::exp2; using ::expm1; using ::fabs; using ::fdim; using ::floor;
using ::fma; using ::fmax; using ::fmin; using ::fmod; using ::frexp; using ::hypot; using ::isfinite;
using ::isinf; using ::isnan; using ::ldexp; using ::lgamma; using ::log; using ::log10; using ::log1p;
using ::log2; using ::lround; using ::max; using ::min; using ::modf; using ::nearbyint; using ::nextafter;
using ::pow; using ::remainder; using ::rint; using ::round; using ::rsqrt; using ::signbit; using ::sin;
using ::sinh; using ::sqrt; using ::tan; using ::tanh; using ::tgamma; using ::trunc;
}
// float16 and bfloat16 storage; arithmetic happens in float (the math type)
struct Half {
  unsigned short x;
  Half() = default;
  __device__ Half(float f) { asm("{ cvt.rn.f16.f32 %0, %1; }" : "=h"(x) : "f"(f)); }
  template <typename U> __device__ Half(U v) : Half(static_cast<float>(v)) {}
  __device__ operator float() const {
    float f;
    asm("{ cvt.f32.f16 %0, %1; }" : "=f"(f) : "h"(x));
    return f;
  }
};
struct BFloat16 {
  unsigned short x;
  BFloat16() = default;
  // round to nearest even; NaN is 0x7fff (torch's jiterator: cvt.rn.bf16.f32 from sm_80 on, the
  // same bits by hand before; ctorch's and torch's other kernels store 0x7fc0)
  __device__ BFloat16(float f) {
#if __CUDA_ARCH__ >= 800
    asm("{ cvt.rn.bf16.f32 %0, %1; }" : "=h"(x) : "f"(f));
#else
    unsigned int u = __float_as_uint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) { x = 0x7fffu; return; }
    x = static_cast<unsigned short>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
#endif
  }
  template <typename U> __device__ BFloat16(U v) : BFloat16(static_cast<float>(v)) {}
  __device__ operator float() const { return __uint_as_float(static_cast<unsigned int>(x) << 16); }
};
)";

// Note [Jiterator complex]: libc++'s <complex> as torch's jiterator carries it, without the
// inverse functions (asin, acos, atan, asinh, acosh, atanh): their short textbook forms lose
// every digit for small or large arguments, libc++'s careful ones are long; code that calls them
// does not compile (NVRTC names the function) rather than computing a wrong value.
const char* kComplexPrelude = R"(// complex<float> and complex<double> (libc++'s <complex>, as torch's jiterator carries it)
namespace std {
template <typename T> struct alignas(2 * sizeof(T)) complex {
  T re_, im_;
  typedef T value_type;
  constexpr complex(T re = T(), T im = T()) : re_(re), im_(im) {}
  template <typename U> constexpr explicit complex(const complex<U>& z) : re_(T(z.real())), im_(T(z.imag())) {}
  constexpr T real() const { return re_; }
  constexpr T imag() const { return im_; }
  void real(T v) { re_ = v; }
  void imag(T v) { im_ = v; }
  complex& operator=(T v) { re_ = v; im_ = T(); return *this; }
  complex& operator+=(T v) { re_ += v; return *this; }
  complex& operator-=(T v) { re_ -= v; return *this; }
  complex& operator*=(T v) { re_ *= v; im_ *= v; return *this; }
  complex& operator/=(T v) { re_ /= v; im_ /= v; return *this; }
  complex& operator+=(const complex& z) { re_ += z.real(); im_ += z.imag(); return *this; }
  complex& operator-=(const complex& z) { re_ -= z.real(); im_ -= z.imag(); return *this; }
  complex& operator*=(const complex& z) { return *this = *this * z; }
  complex& operator/=(const complex& z) { return *this = *this / z; }
  explicit operator bool() const { return re_ != T() || im_ != T(); }
};
template <typename T> complex<T> operator+(const complex<T>& a, const complex<T>& b) { return complex<T>(a.real() + b.real(), a.imag() + b.imag()); }
template <typename T> complex<T> operator+(const complex<T>& a, T b) { return complex<T>(a.real() + b, a.imag()); }
template <typename T> complex<T> operator+(T a, const complex<T>& b) { return complex<T>(a + b.real(), b.imag()); }
template <typename T> complex<T> operator-(const complex<T>& a, const complex<T>& b) { return complex<T>(a.real() - b.real(), a.imag() - b.imag()); }
template <typename T> complex<T> operator-(const complex<T>& a, T b) { return complex<T>(a.real() - b, a.imag()); }
template <typename T> complex<T> operator-(T a, const complex<T>& b) { return complex<T>(a - b.real(), -b.imag()); }
template <typename T> complex<T> operator+(const complex<T>& a) { return a; }
template <typename T> complex<T> operator-(const complex<T>& a) { return complex<T>(-a.real(), -a.imag()); }
template <typename T> complex<T> operator*(const complex<T>& z, const complex<T>& w) {
  T a = z.real(), b = z.imag(), c = w.real(), d = w.imag();
  T ac = a * c, bd = b * d, ad = a * d, bc = b * c;
  T x = ac - bd, y = ad + bc;
  if (::isnan(x) && ::isnan(y)) {  // Annex G: recover infinities
    bool recalc = false;
    if (::isinf(a) || ::isinf(b)) {
      a = ::copysign(::isinf(a) ? T(1) : T(0), a); b = ::copysign(::isinf(b) ? T(1) : T(0), b);
      if (::isnan(c)) c = ::copysign(T(0), c);
      if (::isnan(d)) d = ::copysign(T(0), d);
      recalc = true;
    }
    if (::isinf(c) || ::isinf(d)) {
      c = ::copysign(::isinf(c) ? T(1) : T(0), c); d = ::copysign(::isinf(d) ? T(1) : T(0), d);
      if (::isnan(a)) a = ::copysign(T(0), a);
      if (::isnan(b)) b = ::copysign(T(0), b);
      recalc = true;
    }
    if (!recalc && (::isinf(ac) || ::isinf(bd) || ::isinf(ad) || ::isinf(bc))) {
      if (::isnan(a)) a = ::copysign(T(0), a);
      if (::isnan(b)) b = ::copysign(T(0), b);
      if (::isnan(c)) c = ::copysign(T(0), c);
      if (::isnan(d)) d = ::copysign(T(0), d);
      recalc = true;
    }
    if (recalc) { x = T(INFINITY) * (a * c - b * d); y = T(INFINITY) * (a * d + b * c); }
  }
  return complex<T>(x, y);
}
template <typename T> complex<T> operator*(const complex<T>& a, T b) { return complex<T>(a.real() * b, a.imag() * b); }
template <typename T> complex<T> operator*(T a, const complex<T>& b) { return complex<T>(a * b.real(), a * b.imag()); }
template <typename T> complex<T> operator/(const complex<T>& z, const complex<T>& w) {
  int ilogbw = 0;
  T a = z.real(), b = z.imag(), c = w.real(), d = w.imag();
  T logbw = ::logb(::fmax(::fabs(c), ::fabs(d)));
  if (::isfinite(logbw)) { ilogbw = static_cast<int>(logbw); c = ::scalbn(c, -ilogbw); d = ::scalbn(d, -ilogbw); }
  T denom = c * c + d * d;
  T x = ::scalbn((a * c + b * d) / denom, -ilogbw);
  T y = ::scalbn((b * c - a * d) / denom, -ilogbw);
  if (::isnan(x) && ::isnan(y)) {
    if (denom == T(0) && (!::isnan(a) || !::isnan(b))) {
      x = ::copysign(T(INFINITY), c) * a; y = ::copysign(T(INFINITY), c) * b;
    } else if ((::isinf(a) || ::isinf(b)) && ::isfinite(c) && ::isfinite(d)) {
      a = ::copysign(::isinf(a) ? T(1) : T(0), a); b = ::copysign(::isinf(b) ? T(1) : T(0), b);
      x = T(INFINITY) * (a * c + b * d); y = T(INFINITY) * (b * c - a * d);
    } else if (::isinf(logbw) && logbw > T(0) && ::isfinite(a) && ::isfinite(b)) {
      c = ::copysign(::isinf(c) ? T(1) : T(0), c); d = ::copysign(::isinf(d) ? T(1) : T(0), d);
      x = T(0) * (a * c + b * d); y = T(0) * (b * c - a * d);
    }
  }
  return complex<T>(x, y);
}
template <typename T> complex<T> operator/(const complex<T>& a, T b) { return complex<T>(a.real() / b, a.imag() / b); }
template <typename T> complex<T> operator/(T a, const complex<T>& b) { return complex<T>(a) / b; }
template <typename T> bool operator==(const complex<T>& a, const complex<T>& b) { return a.real() == b.real() && a.imag() == b.imag(); }
template <typename T> bool operator==(const complex<T>& a, T b) { return a.real() == b && a.imag() == T(0); }
template <typename T> bool operator==(T a, const complex<T>& b) { return a == b.real() && b.imag() == T(0); }
template <typename T> bool operator!=(const complex<T>& a, const complex<T>& b) { return !(a == b); }
template <typename T> bool operator!=(const complex<T>& a, T b) { return !(a == b); }
template <typename T> bool operator!=(T a, const complex<T>& b) { return !(a == b); }
template <typename T> T real(const complex<T>& z) { return z.real(); }
template <typename T> T imag(const complex<T>& z) { return z.imag(); }
template <typename T> T abs(const complex<T>& z) { return ::hypot(z.real(), z.imag()); }
template <typename T> T arg(const complex<T>& z) { return ::atan2(z.imag(), z.real()); }
template <typename T> T norm(const complex<T>& z) {
  if (::isinf(z.real())) return ::fabs(z.real());
  if (::isinf(z.imag())) return ::fabs(z.imag());
  return z.real() * z.real() + z.imag() * z.imag();
}
template <typename T> complex<T> conj(const complex<T>& z) { return complex<T>(z.real(), -z.imag()); }
template <typename T> complex<T> proj(const complex<T>& z) {
  if (::isinf(z.real()) || ::isinf(z.imag())) return complex<T>(T(INFINITY), ::copysign(T(0), z.imag()));
  return z;
}
template <typename T> complex<T> polar(const T& rho, const T& theta = T()) {
  if (::isnan(rho) || ::signbit(rho)) return complex<T>(T(NAN), T(NAN));
  if (::isnan(theta)) {
    if (::isinf(rho)) return complex<T>(rho, theta);
    return complex<T>(theta, theta);
  }
  if (::isinf(theta)) {
    if (::isinf(rho)) return complex<T>(rho, T(NAN));
    return complex<T>(T(NAN), T(NAN));
  }
  T x = rho * ::cos(theta);
  if (::isnan(x)) x = 0;
  T y = rho * ::sin(theta);
  if (::isnan(y)) y = 0;
  return complex<T>(x, y);
}
template <typename T> complex<T> log(const complex<T>& z) { return complex<T>(::log(abs(z)), arg(z)); }
template <typename T> complex<T> log10(const complex<T>& z) { return log(z) / ::log(T(10)); }
template <typename T> complex<T> log2(const complex<T>& z) { return log(z) / ::log(T(2)); }
template <typename T> complex<T> sqrt(const complex<T>& z) {
  if (::isinf(z.imag())) return complex<T>(T(INFINITY), z.imag());
  if (::isinf(z.real())) {
    if (z.real() > T(0)) return complex<T>(z.real(), ::isnan(z.imag()) ? z.imag() : ::copysign(T(0), z.imag()));
    return complex<T>(::isnan(z.imag()) ? z.imag() : T(0), ::copysign(z.real(), z.imag()));
  }
  return polar(::sqrt(abs(z)), arg(z) / T(2));
}
template <typename T> complex<T> exp(const complex<T>& z) {
  T i = z.imag();
  if (i == T(0)) return complex<T>(::exp(z.real()), ::copysign(T(0), z.imag()));
  if (::isinf(z.real())) {
    if (z.real() < T(0)) {
      if (!::isfinite(i)) i = T(1);
    } else if (i == T(0) || !::isfinite(i)) {
      if (::isinf(i)) i = T(NAN);
      return complex<T>(z.real(), i);
    }
  }
  T e = ::exp(z.real());
  return complex<T>(e * ::cos(i), e * ::sin(i));
}
template <typename T> complex<T> pow(const complex<T>& x, const complex<T>& y) { return exp(y * log(x)); }
template <typename T> complex<T> pow(const complex<T>& x, T y) { return pow(x, complex<T>(y)); }
template <typename T> complex<T> pow(T x, const complex<T>& y) { return pow(complex<T>(x), y); }
template <typename T> complex<T> sinh(const complex<T>& z) {
  if (::isinf(z.real()) && !::isfinite(z.imag())) return complex<T>(z.real(), T(NAN));
  if (z.real() == T(0) && !::isfinite(z.imag())) return complex<T>(z.real(), T(NAN));
  if (z.imag() == T(0) && !::isfinite(z.real())) return z;
  return complex<T>(::sinh(z.real()) * ::cos(z.imag()), ::cosh(z.real()) * ::sin(z.imag()));
}
template <typename T> complex<T> cosh(const complex<T>& z) {
  if (::isinf(z.real()) && !::isfinite(z.imag())) return complex<T>(::fabs(z.real()), T(NAN));
  if (z.real() == T(0) && !::isfinite(z.imag())) return complex<T>(T(NAN), z.real());
  if (z.real() == T(0) && z.imag() == T(0)) return complex<T>(T(1), z.imag());
  if (z.imag() == T(0) && !::isfinite(z.real())) return complex<T>(::fabs(z.real()), z.imag());
  return complex<T>(::cosh(z.real()) * ::cos(z.imag()), ::sinh(z.real()) * ::sin(z.imag()));
}
template <typename T> complex<T> tanh(const complex<T>& z) {
  if (::isinf(z.real())) {
    if (!::isfinite(z.imag())) return complex<T>(::copysign(T(1), z.real()), T(0));
    return complex<T>(::copysign(T(1), z.real()), ::copysign(T(0), ::sin(T(2) * z.imag())));
  }
  if (::isnan(z.real()) && z.imag() == T(0)) return z;
  T x2 = T(2) * z.real(), y2 = T(2) * z.imag();
  T c2 = ::cosh(x2) + ::cos(y2);
  T s2r = ::sinh(x2);
  if (::isinf(s2r) && ::isinf(c2)) return complex<T>(s2r > T(0) ? T(1) : T(-1), y2 > T(0) ? T(0) : T(-0.));
  return complex<T>(s2r / c2, ::sin(y2) / c2);
}
template <typename T> complex<T> sin(const complex<T>& z) {
  complex<T> r = sinh(complex<T>(-z.imag(), z.real()));
  return complex<T>(r.imag(), -r.real());
}
template <typename T> complex<T> cos(const complex<T>& z) { return cosh(complex<T>(-z.imag(), z.real())); }
template <typename T> complex<T> tan(const complex<T>& z) {
  complex<T> r = tanh(complex<T>(-z.imag(), z.real()));
  return complex<T>(r.imag(), -r.real());
}
}  // namespace std
)";

}  // namespace

DivMagic div_magic(uint32_t d) {
  CT_CHECK(d >= 1 && d < (1u << 31), Status::Internal, "div_magic of ", d);
  uint32_t shift = 0;
  while (shift < 32 && (uint64_t{1} << shift) < d) ++shift;
  const uint64_t one = 1;
  const uint32_t magic = static_cast<uint32_t>(((one << 32) * ((one << shift) - d)) / d + 1);
  return DivMagic{magic, shift};
}

std::string kernel_source(const KernelSpec& spec) {
  const int nin = static_cast<int>(spec.inputs.size());
  const int nout = spec.num_outputs;
  CT_CHECK(nin >= 1 && nin <= kMaxJitInputs, Status::Argument, "the jiterator takes 1 to ", kMaxJitInputs,
           " tensor inputs, got ", nin);
  CT_CHECK(nout >= 1 && nout <= kMaxJitOutputs, Status::Argument, "the jiterator makes 1 to ", kMaxJitOutputs,
           " outputs, got ", nout);
  CT_CHECK(spec.return_by_ref || nout == 1, Status::Argument, "Return by value only works for single output.");
  CT_CHECK(spec.outputs.empty() || static_cast<int>(spec.outputs.size()) == nout, Status::Internal, "jit kernel: ",
           spec.outputs.size(), " output dtypes for ", nout, " outputs");
  const int nt = nin + nout;
  const int vec = spec.contiguous ? spec.vec : 1;
  CT_CHECK(vec == 1 || vec == 2 || vec == 4 || vec == 8 || vec == 16, Status::Internal, "jit kernel vector width ", vec);
  const std::string common = type_name(spec.common);
  const std::string math = math_type_name(spec.common);
  std::string s = kPrelude;
  bool complex = is_complex(spec.common);
  for (DType d : spec.inputs) complex = complex || is_complex(d);
  for (DType d : spec.outputs) complex = complex || is_complex(d);
  if (complex) s += kComplexPrelude;
  // #line: NVRTC's messages count the user's lines as the user's own file (name.cu)
  s += str_cat("\n// ---- the user's code\n#line 1 \"", spec.name, ".cu\"\n", spec.code, "\n#line 1 \"ctorch_jit_kernel.cu\"\n",
               "// ---- the kernel\n");
  s += str_cat("struct CtJitIter {\n  int32_t ndim;\n  int64_t numel;\n  int64_t sizes[", kMaxJitDims,
               "];\n  uint32_t div_magic[", kMaxJitDims, "];\n  uint32_t div_shift[", kMaxJitDims,
               "];\n  int64_t strides[", nt, "][", kMaxJitDims, "];\n  char* data[", nt, "];\n};\n");
  std::string params;
  for (size_t e = 0; e < spec.extras.size(); ++e) params += str_cat(", ", extra_type_name(spec.extras[e]), " ct_extra", e);
  std::string args;  // the call's arguments after the inputs
  for (size_t e = 0; e < spec.extras.size(); ++e) args += str_cat(", ct_extra", e);
  // the element function: the inputs in their own dtype, through the common dtype (torch's
  // inputs are promoted to it) to T; the outputs from T through the common dtype to their own
  std::string in_params, in_args, out_params;
  for (int j = 0; j < nin; ++j) {
    in_params += str_cat(j ? ", " : "", type_name(spec.inputs[static_cast<size_t>(j)]), " ct_in", j);
    in_args += str_cat(j ? ", " : "", "static_cast<", math, ">(static_cast<", common, ">(ct_in", j, "))");
  }
  auto out_type = [&](int o) {
    return spec.outputs.empty() ? common.c_str() : type_name(spec.outputs[static_cast<size_t>(o)]);
  };
  auto store = [&](int o, const std::string& v) {  // T -> common dtype -> output dtype
    std::string c = str_cat("static_cast<", common, ">(", v, ")");
    return std::string(out_type(o)) == common ? c : str_cat("static_cast<", out_type(o), ">(", c, ")");
  };
  for (int o = 0; o < nout; ++o) out_params += str_cat(", ", out_type(o), "& ct_res", o);
  s += str_cat("__device__ __forceinline__ void ct_jit_element(", in_params, params, out_params, ") {\n");
  if (!spec.return_by_ref) {
    s += str_cat("  ct_res0 = ", store(0, str_cat(spec.name, "<", math, ">(", in_args, args, ")")), ";\n");
  } else {
    std::string outs;
    for (int o = 0; o < nout; ++o) {
      s += str_cat("  ", math, " ct_out", o, ";\n");
      outs += str_cat(", ct_out", o);
    }
    s += str_cat("  ", spec.name, "<", math, ">(", in_args, args, outs, ");\n");
    for (int o = 0; o < nout; ++o) s += str_cat("  ct_res", o, " = ", store(o, str_cat("ct_out", o)), ";\n");
  }
  s += "}\n";
  const char* idx = spec.index32 ? "uint32_t" : "int64_t";
  auto op_type = [&](int k) { return k < nout ? out_type(k) : type_name(spec.inputs[static_cast<size_t>(k - nout)]); };
  auto call_with = [&](const std::string& in, const std::string& out) {  // in/out: "$" stands for the operand
    auto sub = [](std::string f, int k) {
      std::string r;
      for (char c : f) r += c == '$' ? std::to_string(k) : std::string(1, c);
      return r;
    };
    std::string c = "ct_jit_element(";
    for (int j = 0; j < nin; ++j) c += str_cat(j ? ", " : "", sub(in, nout + j));
    for (size_t e = 0; e < spec.extras.size(); ++e) c += str_cat(", ct_extra", e);
    for (int o = 0; o < nout; ++o) c += str_cat(", ", sub(out, o));
    return c + ");";
  };
  if (spec.contiguous) {
    // Note [Jiterator blocks]: the built-in engine's and torch's scheme. A block owns 128 * ept
    // consecutive elements; in a full block thread t loads vectors t, t + 128, ... of every
    // input first, then computes, then stores (16-byte accesses where every operand allows);
    // the last block takes its elements t, t + 128, ... one by one. Blocks past the grid's
    // 2^31 - 1 are taken in a loop.
    const int ept = spec.ept;
    CT_CHECK(ept >= vec && ept % vec == 0, Status::Internal, "jit kernel elements per thread ", ept, " for vectors of ", vec);
    for (int k = 0; k < nt; ++k)
      s += str_cat("struct alignas(sizeof(", op_type(k), ") * ", vec, ") CtJitVec", k, " { ", op_type(k), " v[", vec, "]; };\n");
    s += str_cat("extern \"C\" __global__ void __launch_bounds__(128) ", kKernelSymbol, "(CtJitIter it", params, ") {\n");
    s += str_cat("  typedef ", idx, " ct_idx;\n");
    s += str_cat("  constexpr int kEpt = ", ept, ", kVec = ", vec, ", kNv = kEpt / kVec;\n");
    s += "  const ct_idx numel = static_cast<ct_idx>(it.numel);\n";
    s += "  const ct_idx nblocks = (numel + (128 * kEpt - 1)) / (128 * kEpt);\n";
    s += "  for (ct_idx b = blockIdx.x; b < nblocks; b += gridDim.x) {\n";
    s += "    const ct_idx base = b * (128 * kEpt);\n";
    s += "    if (numel - base >= 128 * kEpt) {\n";
    s += "      const ct_idx first = base / kVec + threadIdx.x;\n";
    for (int k = nout; k < nt; ++k) s += str_cat("      CtJitVec", k, " v", k, "[kNv];\n");
    s += "#pragma unroll\n      for (int n = 0; n < kNv; ++n) {\n";
    for (int k = nout; k < nt; ++k)
      s += str_cat("        v", k, "[n] = reinterpret_cast<const CtJitVec", k, "*>(it.data[", k, "])[first + n * 128];\n");
    s += "      }\n";
    for (int o = 0; o < nout; ++o) s += str_cat("      CtJitVec", o, " v", o, "[kNv];\n");
    s += "#pragma unroll\n      for (int n = 0; n < kNv; ++n) {\n#pragma unroll\n        for (int u = 0; u < kVec; ++u) ";
    s += call_with("v$[n].v[u]", "v$[n].v[u]") + "\n      }\n";
    s += "#pragma unroll\n      for (int n = 0; n < kNv; ++n) {\n";
    for (int o = 0; o < nout; ++o)
      s += str_cat("        reinterpret_cast<CtJitVec", o, "*>(it.data[", o, "])[first + n * 128] = v", o, "[n];\n");
    s += "      }\n    } else {\n";
    s += "      for (ct_idx i = base + threadIdx.x; i < numel; i += 128) {\n";
    for (int k = 0; k < nt; ++k)
      s += str_cat("        ", k < nout ? "" : "const ", op_type(k), "* p", k, " = reinterpret_cast<", k < nout ? "" : "const ",
                   op_type(k), "*>(it.data[", k, "]) + i;\n");
    s += "        " + call_with("*p$", "*p$") + "\n      }\n    }\n  }\n}\n";
    return s;
  }
  // any strides (Note [Jiterator blocks]): a block owns 128 * 4 consecutive elements, thread t
  // takes t, t + 128, ...: every offset and load first, then the calls, then the stores. With
  // 32-bit indices the offsets are 32-bit and the divisions multiplications (DivMagic).
  s += str_cat("extern \"C\" __global__ void __launch_bounds__(128) ", kKernelSymbol, "(CtJitIter it", params, ") {\n");
  s += str_cat("  typedef ", idx, " ct_idx;\n  typedef ", spec.index32 ? "int32_t" : "int64_t", " ct_off;\n");
  s += "  constexpr int kEpt = 4;\n";
  s += "  const ct_idx numel = static_cast<ct_idx>(it.numel);\n";
  s += "  const ct_idx nblocks = (numel + (128 * kEpt - 1)) / (128 * kEpt);\n";
  s += "  for (ct_idx b = blockIdx.x; b < nblocks; b += gridDim.x) {\n";
  s += str_cat("    ct_off off[kEpt][", nt, "];\n");
  for (int k = nout; k < nt; ++k) s += str_cat("    ", op_type(k), " v", k, "[kEpt];\n");
  s += "#pragma unroll\n    for (int j = 0; j < kEpt; ++j) {\n";
  s += "      const ct_idx i = b * (128 * kEpt) + j * 128 + threadIdx.x;\n";
  s += "      if (i >= numel) break;\n";
  s += str_cat("      for (int k = 0; k < ", nt, "; ++k) off[j][k] = 0;\n");
  s += "      ct_idx rest = i;\n";
  s += "      for (int d = it.ndim - 1; d > 0; --d) {\n";
  if (spec.index32)
    s += "        const ct_idx q = (__umulhi(rest, it.div_magic[d]) + rest) >> it.div_shift[d];\n";
  else
    s += "        const ct_idx q = rest / it.sizes[d];\n";
  s += "        const ct_off idx = static_cast<ct_off>(rest - q * static_cast<ct_idx>(it.sizes[d]));\n        rest = q;\n";
  s += str_cat("        for (int k = 0; k < ", nt, "; ++k) off[j][k] += idx * static_cast<ct_off>(it.strides[k][d]);\n");
  s += "      }\n";
  s += str_cat("      for (int k = 0; k < ", nt, "; ++k) off[j][k] += static_cast<ct_off>(rest) * static_cast<ct_off>(it.strides[k][0]);\n");
  for (int k = nout; k < nt; ++k)
    s += str_cat("      v", k, "[j] = *reinterpret_cast<const ", op_type(k), "*>(it.data[", k, "] + off[j][", k, "]);\n");
  s += "    }\n";
  s += "#pragma unroll\n    for (int j = 0; j < kEpt; ++j) {\n";
  s += "      if (b * (128 * kEpt) + j * 128 + threadIdx.x >= numel) break;\n";
  for (int o = 0; o < nout; ++o) s += str_cat("      ", op_type(o), "& r", o, " = *reinterpret_cast<", op_type(o), "*>(it.data[", o, "] + off[j][", o, "]);\n");
  s += "      " + call_with("v$[j]", "r$") + "\n";
  s += "    }\n  }\n}\n";
  return s;
}

}  // namespace ct::jit
