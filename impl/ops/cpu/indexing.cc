// CPU kernels of the indexing ops (impl/ops/cpu/indexing.h).
#include "impl/ops/cpu/indexing.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <vector>

#include "impl/core/dtype.h"
#include "impl/core/error.h"
#include "impl/ops/cpu/convert.h"

namespace ct::cpu {

namespace {

struct Bytes16 {
  uint64_t lo, hi;
};

// Calls f with a value of the unsigned type of esize bytes.
template <typename F>
void with_size(int64_t esize, const F& f) {
  switch (esize) {
    case 1: f(uint8_t{}); break;
    case 2: f(uint16_t{}); break;
    case 4: f(uint32_t{}); break;
    case 8: f(uint64_t{}); break;
    case 16: f(Bytes16{}); break;
    default: fail(Status::Internal, "indexing: unhandled element size ", esize);
  }
}

template <typename I>
int64_t load_index(const char* p) {
  I v;
  std::memcpy(&v, p, sizeof v);
  return static_cast<int64_t>(v);
}

}  // namespace

bool index_gather(const StridedOperands<3>& o, int64_t esize, bool idx64, int64_t stride_bytes, int64_t bound,
                  bool wrap) {
  const int64_t lo = wrap ? -bound : 0;
  std::atomic<bool> ok{true};
  with_size(esize, [&](auto unit) {
    using U = decltype(unit);
    auto run = [&](auto idx_tag) {
      using I = decltype(idx_tag);
      for_each(o, 4096, [&](std::array<char*, 3> p, const std::array<int64_t, 3>& st, int64_t n) {
        bool good = true;
        auto copy = [&](char* dst, const char* src, const char* ip) {
          int64_t i = load_index<I>(ip);
          if (i < lo || i >= bound) {
            good = false;
            return;
          }
          if (wrap && i < 0) i += bound;
          std::memcpy(dst, src + i * stride_bytes, sizeof(U));
        };
        if (st[0] == sizeof(U) && st[1] == 0 && st[2] == sizeof(I)) {
          // a contiguous output and index along one source row (gather along the inner dim):
          // the same copies with the strides known to the compiler
          for (int64_t k = 0; k < n; ++k)
            copy(p[0] + k * static_cast<int64_t>(sizeof(U)), p[1], p[2] + k * static_cast<int64_t>(sizeof(I)));
        } else {
          for (int64_t k = 0; k < n; ++k) copy(p[0] + k * st[0], p[1] + k * st[1], p[2] + k * st[2]);
        }
        if (!good) ok.store(false, std::memory_order_relaxed);
      });
    };
    if (idx64) run(int64_t{});
    else run(int32_t{});
  });
  return ok.load();
}

namespace {

// f(self element pointer, src element pointer) for each (self, src, index) element, on one thread
template <typename I, typename F>
void scatter_loop(const StridedOperands<3>& o, int64_t stride_bytes, int64_t bound, bool wrap, const F& f) {
  for_each(o, std::numeric_limits<int64_t>::max(), [&](std::array<char*, 3> p, const std::array<int64_t, 3>& st, int64_t n) {
    for (int64_t k = 0; k < n; ++k) {
      int64_t i = load_index<I>(p[2] + k * st[2]);
      if (wrap && i < 0) i += bound;
      f(p[0] + k * st[0] + i * stride_bytes, p[1] + k * st[1]);
    }
  });
}

template <typename F>
void with_index(bool idx64, const F& f) {
  if (idx64) f(int64_t{});
  else f(int32_t{});
}

}  // namespace

void index_scatter(const StridedOperands<3>& o, int64_t esize, bool idx64, int64_t stride_bytes, int64_t bound,
                   bool wrap) {
  with_size(esize, [&](auto unit) {
    using U = decltype(unit);
    with_index(idx64, [&](auto idx_tag) {
      scatter_loop<decltype(idx_tag)>(o, stride_bytes, bound, wrap,
                                      [](char* dst, const char* src) { std::memcpy(dst, src, sizeof(U)); });
    });
  });
}

void index_scatter_add(const StridedOperands<3>& o, DType dtype, bool idx64, int64_t stride_bytes, int64_t bound,
                       bool wrap) {
  CT_DISPATCH_ALL(dtype, "scatter_add", [&] {
    using T = scalar_t;
    using M = opmath_t<T>;
    with_index(idx64, [&](auto idx_tag) {
      scatter_loop<decltype(idx_tag)>(o, stride_bytes, bound, wrap, [](char* dst, const char* src) {
        T a, b;
        std::memcpy(&a, dst, sizeof a);
        std::memcpy(&b, src, sizeof b);
        T r = static_cast<T>(static_cast<M>(a) + static_cast<M>(b));
        std::memcpy(dst, &r, sizeof r);
      });
    });
  });
}

void masked_fill(const StridedOperands<2>& o, int64_t esize, const void* value) {
  with_size(esize, [&](auto unit) {
    using U = decltype(unit);
    U v;
    std::memcpy(&v, value, sizeof v);
    for_each(o, 4096, [&](std::array<char*, 2> p, const std::array<int64_t, 2>& st, int64_t n) {
      for (int64_t k = 0; k < n; ++k)
        if (*reinterpret_cast<const bool*>(p[1] + k * st[1])) std::memcpy(p[0] + k * st[0], &v, sizeof v);
    });
  });
}

void index_select_rows(char* out, const char* src, const char* index, int64_t idx_stride_bytes, bool idx64,
                       int64_t outer, int64_t n, int64_t size, int64_t row_bytes) {
  const int64_t grain = std::max<int64_t>(1, kGrainSize * 4 / std::max<int64_t>(row_bytes, 1));
  parallel_for(0, outer * n, grain, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const int64_t o = r / n, j = r % n;
      const char* ip = index + j * idx_stride_bytes;
      const int64_t i = idx64 ? load_index<int64_t>(ip) : load_index<int32_t>(ip);
      std::memcpy(out + r * row_bytes, src + (o * size + i) * row_bytes, static_cast<size_t>(row_bytes));
    }
  });
}

namespace {

// The first position in [b, e) of a contiguous int64/int32 array whose entry is outside
// [lo, bound), or none when there is none.
template <typename I>
int64_t first_bad_in(const char* p, int64_t b, int64_t e, int64_t lo, int64_t bound, int64_t none) {
  const I* x = reinterpret_cast<const I*>(p);
  for (int64_t k = b; k < e; ++k) {
    const int64_t v = static_cast<int64_t>(x[k]);
    if (v < lo || v >= bound) return k;
  }
  return none;
}

}  // namespace

bool first_bad_index(const TensorImpl* index, int64_t bound, bool wrap, int64_t* bad) {
  const int64_t n = index->numel();
  if (n == 0) return false;
  const int64_t nd = index->dim();
  const int64_t lo = wrap ? -bound : 0;
  const bool i64 = index->dtype == DType::Int64;
  const int64_t es = index->itemsize();
  if (has_contiguous_strides(index)) {  // in parallel; the first bad position of all chunks
    std::atomic<int64_t> first{n};
    parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
      int64_t k = i64 ? first_bad_in<int64_t>(index->data(), b, e, lo, bound, n)
                      : first_bad_in<int32_t>(index->data(), b, e, lo, bound, n);
      int64_t cur = first.load();
      while (k < cur && !first.compare_exchange_weak(cur, k)) {
      }
    });
    if (first.load() == n) return false;
    const char* p = index->data() + first.load() * es;
    *bad = i64 ? load_index<int64_t>(p) : load_index<int32_t>(p);
    return true;
  }
  Shape pos(static_cast<size_t>(nd));
  for (int64_t k = 0; k < n; ++k) {
    int64_t off = 0;
    for (int64_t d = 0; d < nd; ++d) off += pos[d] * index->strides[d];
    const char* p = index->data() + off * es;
    int64_t v = i64 ? load_index<int64_t>(p) : load_index<int32_t>(p);
    if (v < lo || v >= bound) {
      *bad = v;
      return true;
    }
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++pos[d] < index->sizes[d]) break;
      pos[d] = 0;
    }
  }
  return false;
}

namespace {

// The blocks count_true and true_positions split n flags into (independent of the threads).
constexpr int64_t kFlagBlock = 65536;

int64_t count_in(const bool* flags, int64_t b, int64_t e) {
  int64_t c = 0;
  for (int64_t i = b; i < e; ++i) c += flags[i] ? 1 : 0;
  return c;
}

// counts[k] = the true flags of block k
std::vector<int64_t> block_counts(const bool* flags, int64_t n) {
  const int64_t nb = (n + kFlagBlock - 1) / kFlagBlock;
  std::vector<int64_t> counts(static_cast<size_t>(nb));
  parallel_for(0, nb, 1, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) counts[k] = count_in(flags, k * kFlagBlock, std::min(n, (k + 1) * kFlagBlock));
  });
  return counts;
}

}  // namespace

int64_t count_true(const bool* flags, int64_t n) {
  int64_t c = 0;
  for (int64_t v : block_counts(flags, n)) c += v;
  return c;
}

void true_positions(const bool* flags, int64_t n, int64_t* out) {
  std::vector<int64_t> start = block_counts(flags, n);
  int64_t acc = 0;
  for (int64_t& v : start) {
    const int64_t c = v;
    v = acc;
    acc += c;
  }
  parallel_for(0, static_cast<int64_t>(start.size()), 1, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      int64_t j = start[k];
      for (int64_t i = k * kFlagBlock, end = std::min(n, (k + 1) * kFlagBlock); i < end; ++i)
        if (flags[i]) out[j++] = i;
    }
  });
}

}  // namespace ct::cpu
