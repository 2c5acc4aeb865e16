// The core layer on its own: this test links //impl/core and nothing above it, so it also
// proves that core builds and links without alloc, cuda or ops (docs/layers.md).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "impl/core/data_ptr.h"
#include "impl/core/dynlib.h"
#include "impl/core/error.h"
#include "impl/core/tensor.h"
#include "tests/impl/error_of.h"

using namespace ct;

namespace {

int g_deleted = 0;
void* g_last_context = nullptr;
void count_delete(void* ctx) {
  ++g_deleted;
  g_last_context = ctx;
}

}  // namespace

TEST(DataPtr, DeleterRunsOnceWithTheContext) {
  g_deleted = 0;
  int data = 0, ctx = 0;
  {
    DataPtr p(&data, &ctx, &count_delete, Device{DeviceType::CUDA, 1});
    EXPECT_EQ(p.get(), &data);
    EXPECT_EQ(p.context(), &ctx);
    EXPECT_EQ(p.deleter(), &count_delete);
    EXPECT_EQ(p.device(), (Device{DeviceType::CUDA, 1}));
    DataPtr moved = std::move(p);  // ownership moves; the moved-from pointer frees nothing
    EXPECT_EQ(moved.get(), &data);
    EXPECT_EQ(g_deleted, 0);
  }
  EXPECT_EQ(g_deleted, 1);
  EXPECT_EQ(g_last_context, &ctx);
}

TEST(DataPtr, NonOwningAndNullContextFreeNothing) {
  g_deleted = 0;
  int data = 0;
  { DataPtr p(&data, Device{}); }
  { DataPtr p(nullptr, nullptr, &count_delete, Device{}); }  // an empty allocation keeps its deleter
  EXPECT_EQ(g_deleted, 0);
  DataPtr empty;
  EXPECT_FALSE(empty);
  EXPECT_EQ(empty.get(), nullptr);
}

// Without impl/alloc linked in, no allocator is registered (Note [Allocator hook]); a test
// allocator registered here serves empty_tensor.
TEST(AllocatorHook, EmptyTensorUsesTheRegisteredAllocator) {
  auto [code, msg] = error_of([] { allocate_bytes(8, Device{}); });
  EXPECT_EQ(code, Status::Internal);
  EXPECT_NE(msg.find("no allocator is registered for cpu memory"), std::string::npos) << msg;

  static int64_t asked = -1;
  set_allocator(DeviceType::CPU, [](int64_t nbytes, Device d, bool pinned) {
    asked = nbytes;
    void* p = std::malloc(static_cast<size_t>(nbytes));
    return DataPtr(p, p, &std::free, d);
  });
  {
    Tensor t = empty_tensor({2, 3}, DType::Float64, Device{});
    EXPECT_EQ(asked, 48);
    EXPECT_EQ(t->storage->nbytes, 48);
    EXPECT_EQ(t->storage->data_ptr.deleter(), static_cast<DeleterFn>(&std::free));
    EXPECT_TRUE(t->device().is_cpu());
    Tensor v = make_view(t, {3}, {1}, 3);  // shares the storage: one allocation
    EXPECT_EQ(v->data(), t->data() + 3 * 8);
  }
  code = error_of([] { allocate_bytes(8, Device{DeviceType::CUDA, 0}); }).first;
  EXPECT_EQ(code, Status::Internal);  // still none for CUDA
  set_allocator(DeviceType::CPU, nullptr);
}

#define CT_TEST_MATH_FUNCTIONS(X)   \
  X(cos, cos, double (*)(double)) \
  X(sqrt, sqrt, double (*)(double))
CT_LIBRARY_TABLE(MathFns, CT_TEST_MATH_FUNCTIONS);

#define CT_TEST_MISSING_FUNCTIONS(X) \
  X(cos, cos, double (*)(double))    \
  X(sqrt, no_such_function, double (*)(double))
CT_LIBRARY_TABLE(MissingFns, CT_TEST_MISSING_FUNCTIONS);

// libm's fabs and fmax, as FFTW's fftw_ and fftwf_ functions: the prefix goes before each symbol.
#define CT_TEST_PREFIXED_FUNCTIONS(X) \
  X(abs, abs, double (*)(double))     \
  X(max, max, double (*)(double, double))
CT_LIBRARY_TABLE(PrefixedFns, CT_TEST_PREFIXED_FUNCTIONS);

TEST(LazyLibrary, BindsFunctionsByName) {
  LazyLibrary<MathFns> lib({"libm.so.6"}, "needs libm:");
  EXPECT_EQ(lib.get().cos(0.0), 1.0);
  EXPECT_EQ(lib.get().sqrt(9.0), 3.0);
}

TEST(LazyLibrary, BindsPrefixPlusSymbol) {
  LazyLibrary<PrefixedFns> lib({"libm.so.6"}, "needs libm:", "f");
  EXPECT_EQ(lib.get().abs(-2.5), 2.5);
  EXPECT_EQ(lib.get().max(1.0, 4.0), 4.0);
}

TEST(LazyLibrary, MissingFunctionIsNotSupported) {
  LazyLibrary<MissingFns> lib({"libm.so.6"}, "needs libm:");
  for (int i = 0; i < 2; ++i) {  // every call fails the same way
    auto [code, msg] = error_of([&] { lib.get(); });
    EXPECT_EQ(code, Status::NotSupported);
    EXPECT_EQ(msg, "libm.so.6 has no function 'no_such_function'");
  }
}

TEST(LazyLibrary, MissingLibraryListsEveryNameTried) {
  LazyLibrary<MathFns> lib({"libctorch_none_a.so", "libctorch_none_b.so"}, "X needs Y, which could not be loaded:");
  auto [code, msg] = error_of([&] { lib.get(); });
  EXPECT_EQ(code, Status::NotSupported);
  EXPECT_EQ(msg.rfind("X needs Y, which could not be loaded:\n  libctorch_none_a.so: ", 0), 0u) << msg;
  EXPECT_NE(msg.find("\n  libctorch_none_b.so: "), std::string::npos) << msg;
}

TEST(OpenLibrary, ReportsTheLoadersMessage) {
  std::string error;
  EXPECT_EQ(open_library(std::string("/nonexistent/libx.so"), &error), nullptr);
  EXPECT_NE(error.find("/nonexistent/libx.so"), std::string::npos) << error;
  void* h = open_library(std::string("libm.so.6"), &error);
  ASSERT_NE(h, nullptr);
  close_library(h);
}
