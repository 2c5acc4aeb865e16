// The jiterator's compiler (impl/jit, issue 18 in progress): NVRTC loaded at first use, CUBIN for
// a given architecture, compile errors with NVRTC's log. Compiling needs no GPU, so this runs in
// CI (NVRTC comes with the CUDA toolkit every machine of this project has).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "impl/core/dtype.h"
#include "impl/core/error.h"
#include "impl/jit/codegen.h"
#include "impl/jit/nvrtc.h"
#include "tests/impl/error_of.h"

using namespace ct;

namespace {
const char* kKernel =
    "extern \"C\" __global__ void scale(float* x, float a, long long n) {\n"
    "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
    "  if (i < n) x[i] *= a;\n"
    "}\n";
}  // namespace

TEST(Nvrtc, VersionAndArchitectures) {
  jit::NvrtcVersion v = jit::nvrtc_version();
  EXPECT_GE(v.major, 13);
  std::vector<int> archs = jit::nvrtc_archs();
  EXPECT_NE(std::find(archs.begin(), archs.end(), 80), archs.end());
  EXPECT_NE(std::find(archs.begin(), archs.end(), 90), archs.end());
}

TEST(Nvrtc, CompilesToCubinForTheArchitecture) {
  for (int arch : {80, 90}) {
    std::string cubin = jit::compile_cubin(kKernel, "scale.cu", arch);
    ASSERT_GT(cubin.size(), 4u);
    EXPECT_EQ(cubin.substr(0, 4), std::string("\x7f" "ELF")) << "sm_" << arch;
  }
}

TEST(JitSource, MathNamesAndTheUsersLineNumbers) {
  jit::KernelSpec s;
  s.code = "template <typename T> T m(T x) {\n  T a = std::lgamma(x) + std::tgamma(x) + std::hypot(x, x) + std::cbrt(x);\n"
           "  T b = std::copysign(x, T(-1)) + std::fma(x, x, x) + std::fdim(x, x) + std::acosh(x) + std::asinh(x);\n"
           "  bool c = std::isfinite(x) && !std::signbit(x) && x < POS_INFINITY && x > NEG_INFINITY;\n"
           "  return c ? a + b + std::rint(x) + std::remainder(x, T(2)) + std::nextafter(x, T(0)) : T(0);\n}";
  s.name = "m";
  s.inputs = {DType::Float32};
  for (DType d : {DType::Float32, DType::Float64}) {
    s.inputs = {d};
    s.common = d;
    EXPECT_GT(jit::compile_cubin(jit::kernel_source(s), "m.cu", 90).size(), 0u) << dtype_name(d);
  }
  // an error on the user's third line is reported as line 3 of m.cu (#line)
  s.code = "template <typename T> T m(T x) {\n  T y = x;\n  return y + undefined_name;\n}";
  auto e = error_of([&] { jit::compile_cubin(jit::kernel_source(s), "m.cu", 90); });
  EXPECT_NE(e.second.find("m.cu(3): error: identifier \"undefined_name\" is undefined"), std::string::npos) << e.second;
}

TEST(Nvrtc, ACompileErrorCarriesTheLog) {
  std::string bad = "extern \"C\" __global__ void k(float* x) {\n  x[0] = undefined_name;\n}\n";
  auto e = error_of([&] { jit::compile_cubin(bad, "user_kernel.cu", 90); });
  EXPECT_EQ(e.first, Status::Argument);
  EXPECT_NE(e.second.find("the jiterator's kernel did not compile (NVRTC, sm_90)"), std::string::npos) << e.second;
  EXPECT_NE(e.second.find("user_kernel.cu(2): error: identifier \"undefined_name\" is undefined"), std::string::npos)
      << e.second;
}

TEST(Nvrtc, AnUnknownArchitectureIsNotSupported) {
  auto e = error_of([&] { jit::compile_cubin(kKernel, "scale.cu", 12); });
  EXPECT_EQ(e.first, Status::NotSupported);
  EXPECT_NE(e.second.find("cannot compile for sm_12 (it knows sm_"), std::string::npos) << e.second;
}

// ---- the kernels' source (codegen.cc, Note [Jiterator kernels])

TEST(JitName, TorchsParserTakesTheLastTemplatedFunction) {
  EXPECT_EQ(jit::function_name("template <typename T> T my_kernel(T x) { return x; }"), "my_kernel");
  EXPECT_EQ(jit::function_name("\n  template<typename T>\nT fn(T x, T mask) { return x * mask; }\n"
                               "template <typename T> T main_fn(T x, T mask, T y) { return fn(x, mask) + y; }\n"),
            "main_fn");
  EXPECT_EQ(jit::function_name("template <typename T> void two(T a, T& out0, T& out1) { out0 = a; out1 = -a; }"), "two");
  // long code: no recursion per character (std::regex's overflowed the stack near 50,000)
  std::string big = "template <typename T> T big(T x) {\n";
  for (int i = 0; i < 20000; ++i) big += "  x = x + T(1);  // a line of the body\n";
  big += "  return x;\n}\n";
  EXPECT_EQ(jit::function_name(big), "big");
  EXPECT_EQ(jit::function_name("template <class T, int N=2> T f(T x) { return x; } "
                               "template <typename T> int g (T x) {return 1;}  \n"),
            "g");
  for (const char* bad : {"template <typename T> T my _kernel(T x) { return x; }",
                          "template <typename T> Tmy_kernel(T x) { return x; }", "float f(float x) { return x; }",
                          "template <> T f(T x) { return x; }", "template <typename T> T f(T x) {}",
                          "template <typename T> T f() { return 1; }", ""}) {
    auto e = error_of([&] { jit::function_name(bad); });
    EXPECT_EQ(e.first, Status::Argument) << bad;
    EXPECT_NE(e.second.find("Couldn't parse code, please check correctness:\n "), std::string::npos) << e.second;
  }
}

namespace {
jit::KernelSpec spec(std::string code, std::vector<DType> inputs, DType common, bool contiguous) {
  jit::KernelSpec s;
  s.name = jit::function_name(code);
  s.code = std::move(code);
  s.inputs = std::move(inputs);
  s.common = common;
  s.contiguous = contiguous;
  return s;
}
}  // namespace

TEST(JitSource, CompilesForEveryRealDtype) {
  const DType all[] = {DType::UInt8, DType::Int8,    DType::Int16,   DType::Int32, DType::Int64,
                       DType::Float16, DType::BFloat16, DType::Float32, DType::Float64, DType::Bool};
  for (DType in : all) {
    for (bool contiguous : {true, false}) {
      // an input of each dtype into float32, and each dtype as the common one
      jit::KernelSpec a = spec("template <typename T> T twice(T x) { return x + x; }", {in, DType::Float32},
                               DType::Float32, contiguous);
      a.code = "template <typename T> T add(T x, T y) { return x + y; }";
      a.name = "add";
      EXPECT_GT(jit::compile_cubin(jit::kernel_source(a), "add.cu", 90).size(), 0u) << dtype_name(in);
      jit::KernelSpec b = spec("template <typename T> T same(T x) { return x; }", {in}, in, contiguous);
      b.vec = contiguous ? static_cast<int>(16 / itemsize(in)) : 1;
      b.ept = itemsize(in) == 1 ? 16 : 8;  // torch's thread work size
      b.index32 = itemsize(in) % 2 == 0;   // both index widths across the dtypes
      EXPECT_GT(jit::compile_cubin(jit::kernel_source(b), "same.cu", 80).size(), 0u) << dtype_name(in);
    }
  }
}

TEST(JitSource, MathExtraArgumentsAndOutputs) {
  jit::KernelSpec s = spec(
      "template <typename T> T silu_mix(T x, T y, T alpha, bool flip) {\n"
      "  T s = x / (T(1) + std::exp(-x));\n  return flip ? -s : s + alpha * ::tanh(y) + std::sqrt(std::fabs(y));\n}",
      {DType::Float16, DType::BFloat16}, DType::Float32, false);
  s.extras = {JitArg::Double, JitArg::Bool};
  std::string src = jit::kernel_source(s);
  EXPECT_NE(src.find("silu_mix<float>(static_cast<float>(static_cast<float>(ct_in0)), "
                     "static_cast<float>(static_cast<float>(ct_in1)), ct_extra0, ct_extra1)"),
            std::string::npos)
      << src;
  EXPECT_GT(jit::compile_cubin(src, "silu.cu", 90).size(), 0u);
  jit::KernelSpec m = spec("template <typename T> void sd(T a, T b, int64_t k, T& out0, T& out1) { out0 = a + b * T(k); out1 = a - b; }",
                           {DType::Int32, DType::Int64}, DType::Int64, true);
  m.num_outputs = 2;
  m.return_by_ref = true;
  m.extras = {JitArg::Int64};
  src = jit::kernel_source(m);
  EXPECT_NE(src.find("sd<int64_t>(static_cast<int64_t>(static_cast<int64_t>(ct_in0)), "
                     "static_cast<int64_t>(static_cast<int64_t>(ct_in1)), ct_extra0, ct_out0, ct_out1)"),
            std::string::npos)
      << src;
  EXPECT_GT(jit::compile_cubin(src, "sd.cu", 90).size(), 0u);
  for (int vec : {2, 4, 8}) {  // vectors of each operand (their data aligned to vec elements)
    m.vec = vec;
    m.ept = 8;
    m.index32 = vec == 4;
    src = jit::kernel_source(m);
    EXPECT_NE(src.find(str_cat("struct alignas(sizeof(int32_t) * ", vec, ") CtJitVec2 { int32_t v[", vec, "]; };")),
              std::string::npos)
        << src;
    EXPECT_GT(jit::compile_cubin(src, "sd.cu", 90).size(), 0u) << vec;
  }
}

TEST(JitSource, GivenOutputsOfOtherDtypes) {
  // the out form: the value through the common dtype to each output's own (TensorIterator's store)
  jit::KernelSpec s = spec("template <typename T> void two(T a, T& x, T& y) { x = a; y = a + a; }", {DType::Int32},
                           DType::Int32, true);
  s.num_outputs = 2;
  s.return_by_ref = true;
  s.outputs = {DType::Float16, DType::Int64};
  s.vec = 2;
  std::string src = jit::kernel_source(s);
  EXPECT_NE(src.find("ct_res0 = static_cast<Half>(static_cast<int32_t>(ct_out0));"), std::string::npos) << src;
  EXPECT_NE(src.find("ct_res1 = static_cast<int64_t>(static_cast<int32_t>(ct_out1));"), std::string::npos) << src;
  EXPECT_NE(src.find("CtJitVec0 { Half v[2]; }"), std::string::npos) << src;
  EXPECT_GT(jit::compile_cubin(src, "two.cu", 90).size(), 0u);
  s.outputs = {DType::Float16};  // one dtype for two outputs
  auto e = error_of([&] { jit::kernel_source(s); });
  EXPECT_EQ(e.first, Status::Internal);
}

TEST(JitSource, PtxForDevicesNewerThanNvrtc) {
  // Note [NVRTC]: exact architectures get a CUBIN; a newer device the newest known as PTX
  const std::vector<int> known = {75, 80, 86, 89, 90, 100, 120};
  EXPECT_EQ(jit::target_for(90, known).arch, 90);
  EXPECT_FALSE(jit::target_for(90, known).ptx);
  EXPECT_EQ(jit::target_for(130, known).arch, 120);
  EXPECT_TRUE(jit::target_for(130, known).ptx);
  EXPECT_EQ(jit::target_for(70, known).arch, 0);   // older than NVRTC knows: not supported
  EXPECT_EQ(jit::target_for(87, known).arch, 0);   // between known ones: not supported either
  EXPECT_EQ(jit::target_for(90, {}).arch, 0);
  // a real compile for a device newer than this NVRTC knows gives PTX text for its newest
  std::vector<int> archs = jit::nvrtc_archs();
  ASSERT_FALSE(archs.empty());
  const int newest = *std::max_element(archs.begin(), archs.end());
  const std::string src = "extern \"C\" __global__ void k(float* p) { p[threadIdx.x] *= 2.f; }\n";
  std::string image = jit::compile_image(src, "k.cu", newest + 1);
  EXPECT_NE(image.find(".target sm_" + std::to_string(newest)), std::string::npos) << image.substr(0, 400);
  EXPECT_NE(image.find(".entry k("), std::string::npos);
  image = jit::compile_image(src, "k.cu", newest);  // its own: a CUBIN (an ELF file)
  EXPECT_EQ(image.substr(0, 4), std::string("\x7f" "ELF"));
  auto e = error_of([&] { jit::compile_cubin(src, "k.cu", newest + 1); });
  EXPECT_EQ(e.first, Status::NotSupported);
  EXPECT_NE(e.second.find("cannot compile for sm_" + std::to_string(newest + 1)), std::string::npos) << e.second;
  e = error_of([&] { jit::compile_image(src, "k.cu", 10); });
  EXPECT_EQ(e.first, Status::NotSupported);
}

TEST(JitSource, DivisionByMultiplication) {
  // DivMagic: q = (umulhi(n, magic) + n) >> shift equals n / d for n, d < 2^31
  auto check = [](uint32_t d, uint32_t n) {
    jit::DivMagic m = jit::div_magic(d);
    uint32_t hi = static_cast<uint32_t>((static_cast<uint64_t>(n) * m.magic) >> 32);
    uint32_t q = static_cast<uint32_t>((static_cast<uint64_t>(hi) + n) >> m.shift);
    EXPECT_EQ(q, n / d) << n << " / " << d;
  };
  const uint32_t big = (1u << 31) - 1;
  for (uint32_t d : {1u, 2u, 3u, 5u, 7u, 8192u, 8193u, 65535u, 1000003u, big - 1, big})
    for (uint32_t n : {0u, 1u, d - 1, d, d + 1, 2 * d - 1, 123456789u, big - 1, big})
      if (n <= big) check(d, n);
  for (uint32_t d = 1; d < 3000; d += 7)
    for (uint32_t n = 0; n < 100000; n += 97) check(d, n);
  auto e = error_of([] { jit::div_magic(0); });
  EXPECT_EQ(e.first, Status::Internal);
}

TEST(JitSource, UserNamesDoNotClash) {
  // the generated names carry a ct_ prefix: a function named res0 with parameters in0, out0 compiles
  jit::KernelSpec s = spec("template <typename T> void res0(T in0, T extra_arg_0, T& out0) { out0 = in0 * extra_arg_0; }",
                           {DType::Float32, DType::Float32}, DType::Float32, true);
  s.return_by_ref = true;
  EXPECT_GT(jit::compile_cubin(jit::kernel_source(s), "res0.cu", 90).size(), 0u);
}

TEST(JitSource, ComplexDtypes) {
  // std::complex<float> / <double> (the libc++ operations torch's jiterator carries): arithmetic
  // with real and complex operands, the math functions, real inputs promoted, outputs cast
  const char* code =
      "template <typename T> T cmath(T z, T w, T alpha) {\n"
      "  T r = z * w + z / w - alpha * std::exp(z) + std::sqrt(z);\n"
      "  return r == w ? T(0) : r + T(std::norm(z));\n}";
  struct Case {
    DType common, other;
    bool contiguous;
  };
  // a few conversions to a complex T (each compile takes seconds: complex division and the
  // math functions are long); GPU values: tests/capi/jiterator_test.c
  for (Case c : {Case{DType::Complex64, DType::Float16, false}, Case{DType::Complex128, DType::Complex64, true},
                 Case{DType::Complex128, DType::Bool, true}}) {
    jit::KernelSpec s = spec(code, {c.common, c.other}, c.common, c.contiguous);
    s.extras = {JitArg::Double};
    s.vec = c.contiguous ? static_cast<int>(16 / itemsize(c.common)) : 1;
    std::string src = jit::kernel_source(s);
    EXPECT_NE(src.find("namespace std {\ntemplate <typename T> struct alignas(2 * sizeof(T)) complex"), std::string::npos);
    EXPECT_GT(jit::compile_cubin(src, "cmath.cu", 90).size(), 0u) << dtype_name(c.common) << " " << dtype_name(c.other);
  }
  // every math function, once
  jit::KernelSpec all = spec(
      "template <typename T> T every(T z, T w) {\n"
      "  T r = std::log(w) + std::log10(z) + std::log2(w) + std::sin(z) * std::cos(w) + std::tan(z) + std::sinh(w);\n"
      "  r += std::cosh(z) + std::tanh(z) - std::pow(z, w) + std::pow(z, 2.f) + std::conj(w) + std::proj(z);\n"
      "  return r + std::polar(std::abs(z), std::arg(w)) + T(std::real(z) + std::imag(w));\n}",
      {DType::Complex64, DType::Complex64}, DType::Complex64, true);
  EXPECT_GT(jit::compile_cubin(jit::kernel_source(all), "every.cu", 90).size(), 0u);
  // not the inverse functions (Note [Jiterator complex]): a compile error naming it
  jit::KernelSpec inv = spec("template <typename T> T inv(T z) { return std::asinh(z); }", {DType::Complex64},
                             DType::Complex64, true);
  auto e = error_of([&] { jit::compile_cubin(jit::kernel_source(inv), "inv.cu", 90); });
  EXPECT_EQ(e.first, Status::Argument);
  EXPECT_NE(e.second.find("asinh"), std::string::npos) << e.second;
  // real kernels carry no complex code; a complex output of a real common dtype (the out form)
  jit::KernelSpec r = spec("template <typename T> T twice(T x) { return x + x; }", {DType::Float32}, DType::Float32, true);
  EXPECT_EQ(jit::kernel_source(r).find("struct alignas(2 * sizeof(T)) complex"), std::string::npos);
  r.outputs = {DType::Complex128};
  std::string src = jit::kernel_source(r);
  EXPECT_NE(src.find("ct_res0 = static_cast<std::complex<double>>(static_cast<float>("), std::string::npos) << src;
  EXPECT_GT(jit::compile_cubin(src, "twice.cu", 80).size(), 0u);
}

TEST(JitSource, Refusals) {
  jit::KernelSpec s = spec("template <typename T> T f(T x) { return x; }", std::vector<DType>(9, DType::Float32), DType::Float32, true);
  auto e = error_of([&] { jit::kernel_source(s); });
  EXPECT_NE(e.second.find("takes 1 to 8 tensor inputs, got 9"), std::string::npos) << e.second;
  s = spec("template <typename T> T f(T x) { return x; }", {DType::Float32}, DType::Float32, true);
  s.num_outputs = 2;
  e = error_of([&] { jit::kernel_source(s); });
  EXPECT_NE(e.second.find("Return by value only works for single output."), std::string::npos) << e.second;
  s.num_outputs = 1;
  s.vec = 4;
  s.ept = 6;  // a full block's elements per thread must be whole vectors
  e = error_of([&] { jit::kernel_source(s); });
  EXPECT_EQ(e.first, Status::Internal);
  EXPECT_NE(e.second.find("elements per thread 6 for vectors of 4"), std::string::npos) << e.second;
}

// ---- the disk cache (disk_cache.cc, Note [Jiterator disk cache])

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "impl/jit/disk_cache.h"

TEST(JitDiskCache, StoresAndLoadsExactlyItsSource) {
  char tmpl[] = "/tmp/ctorch_jit_cache_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  jit::DiskCache c(tmpl);
  const std::string src = "extern \"C\" __global__ void k() {}\n", cubin = jit::compile_cubin(src, "k.cu", 90);
  EXPECT_FALSE(c.load(src, "k", 90, 1300, 13000).has_value());
  c.store(src, "k", 90, 1300, 13000, cubin);
  std::optional<std::string> got = c.load(src, "k", 90, 1300, 13000);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(*got, cubin);
  // another architecture, NVRTC, driver or source: another file, not a hit
  EXPECT_FALSE(c.load(src, "k", 80, 1300, 13000).has_value());
  EXPECT_FALSE(c.load(src, "k", 90, 1301, 13000).has_value());
  EXPECT_FALSE(c.load(src, "k", 90, 1300, 13010).has_value());
  EXPECT_FALSE(c.load(src + " ", "k", 90, 1300, 13000).has_value());
  EXPECT_NE(c.path(src, "k", 90, 1300, 13000).find("/k_sm90_nvrtc1300_driver13000_"), std::string::npos);
  EXPECT_LT(c.path(src, std::string(300, 'n'), 90, 1300, 13000).size() - std::string(tmpl).size(), 200u);
  // damaged CUBIN bytes (header and source intact), a truncated or a foreign file: no hit (and the
  // next store replaces it)
  const std::string p = c.path(src, "k", 90, 1300, 13000);
  {
    std::fstream io(p, std::ios::binary | std::ios::in | std::ios::out);
    io.seekp(-1, std::ios::end);
    io.put('\x5a');
  }
  EXPECT_FALSE(c.load(src, "k", 90, 1300, 13000).has_value());
  {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << "ctorch jiterator kernel v2\n" << "garbage";
  }
  EXPECT_FALSE(c.load(src, "k", 90, 1300, 13000).has_value());
  c.store(src, "k", 90, 1300, 13000, cubin);
  EXPECT_EQ(c.load(src, "k", 90, 1300, 13000).value_or(""), cubin);
  // no temporary files left behind: the directory is empty once the kernel's file is gone
  EXPECT_EQ(std::remove(p.c_str()), 0);
  EXPECT_EQ(::rmdir(tmpl), 0) << "the cache directory still holds files";
}
