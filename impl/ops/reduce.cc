// Reductions. Note [Reduction layout]: the input is converted to the compute dtype and laid
// out contiguously as [kept dims..., reduced dims...] (a permuted copy), so every output
// element reduces one contiguous row of R elements. Rows are spread over threads; a single
// long row is split into fixed 32K-element chunks whose partial results are combined in
// order, so the result does not depend on the number of threads.
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "impl/alloc/allocator.h"
#include "impl/core/error.h"
#include "impl/ops/cpu/convert.h"
#include "impl/ops/cpu/parallel.h"
#include "impl/ops/cpu/reduce_kernels.h"
#include "impl/ops/cuda_dispatch.h"
#include "impl/ops/ops.h"

namespace ct::ops {

namespace {

struct Layout {
  Tensor rows;       // contiguous [O, R] in the compute dtype
  int64_t O = 1, R = 1;
  Shape out_shape;   // final shape (keepdim applied)
};

std::vector<bool> dim_mask(const Tensor& t, const std::vector<int64_t>& dims) {
  int64_t nd = t->dim();
  std::vector<bool> mask(std::max<int64_t>(nd, 0), dims.empty());
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, nd);
    if (nd == 0) continue;
    CT_CHECK(!mask[w], Status::Argument, "dim ", w, " appears multiple times in the list of dims");
    mask[w] = true;
  }
  return mask;
}

// O, R and the final shape of reducing t over mask (rows left unset).
Layout sizes_of(const Tensor& t, const std::vector<bool>& mask, bool keepdim) {
  Layout L;
  for (int64_t d = 0; d < t->dim(); ++d) {
    (mask[d] ? L.R : L.O) *= t->sizes[d];
    if (!mask[d]) L.out_shape.push_back(t->sizes[d]);
    else if (keepdim) L.out_shape.push_back(1);
  }
  return L;
}

// Note [Reductions in place]: a dense input (contiguous, transposed, permuted: no gaps, no
// repeats) whose memory holds the reduced elements of each output together, [O, R], or the
// output's elements together for each reduced index, [R, O], is reduced where it lies, whatever
// its strides say: kept and reduced dims are each ordered by stride and the two orders tried.
// The outputs come out in the kept dims' memory order (`kept_perm`); finish() puts them in
// order. sum(dim=1) of x.t() is then the column reduction of x, and a full reduction of any
// dense layout one row. float16/bfloat16 inputs are read as they are on CUDA (widened in the
// kernel, cuda_ops::reduce_input_supported). On the CPU, float sums and means of [O, R] layouts
// are reduced in place (Note [CPU float sums] in ops/cpu/reduce_kernels.h). Anything else is
// copied first ([Reduction layout]).
struct InPlace {
  bool rows = false, cols = false;
  Shape kept_perm;  // kept dims (as output dims, 0..) in memory order, outermost first
};

InPlace plan_in_place(const Tensor& t, const std::vector<bool>& mask) {
  InPlace p;
  std::vector<int64_t> kept, red;
  for (int64_t d = 0; d < t->dim(); ++d) (mask[d] ? red : kept).push_back(d);
  auto by_stride = [&](std::vector<int64_t>& v) {
    std::stable_sort(v.begin(), v.end(), [&](int64_t x, int64_t y) { return t->strides[x] > t->strides[y]; });
  };
  std::vector<int64_t> ks = kept, rs = red;
  by_stride(ks);
  by_stride(rs);
  auto contiguous_in = [&](const std::vector<int64_t>& order) {
    int64_t expected = 1;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      if (t->sizes[*it] == 1) continue;
      if (t->strides[*it] != expected) return false;
      expected *= t->sizes[*it];
    }
    return true;
  };
  std::vector<int64_t> o1 = ks, o2 = rs;
  o1.insert(o1.end(), rs.begin(), rs.end());
  o2.insert(o2.end(), ks.begin(), ks.end());
  p.rows = contiguous_in(o1);
  p.cols = !p.rows && contiguous_in(o2);
  for (int64_t d : ks) p.kept_perm.push_back(std::find(kept.begin(), kept.end(), d) - kept.begin());
  return p;
}

// The O results of an in-place reduction, in kept_perm order, as a tensor of the kept shape.
Tensor kept_view(const Tensor& tmp, const Tensor& t, const std::vector<bool>& mask, const Shape& kept_perm) {
  Shape ks;
  for (int64_t d = 0; d < t->dim(); ++d)
    if (!mask[d]) ks.push_back(t->sizes[d]);
  Shape st(ks.size());
  int64_t acc = 1;
  for (auto it = kept_perm.rbegin(); it != kept_perm.rend(); ++it) {
    st[*it] = acc;
    acc *= ks[*it];
  }
  return make_view(tmp, ks, st, 0);
}

// Note [Strided reductions]: a non-dense input whose reduced dims are read along the smallest
// stride (a stride-2 slice; every dim when all are reduced) is reduced where it lies by
// cuda_ops::reduce_strided, each element's offset computed from its index: no copy. Reduced dims
// are taken innermost (smallest stride) first and merged where they nest, so the order in which
// elements are summed is memory order, not logical order (sums, means and extrema only: argmax
// needs logical indices). Inputs read across the reduced dims (the columns of a non-dense
// matrix) would read one element per 32-byte sector and are copied instead.
bool plan_strided(const Tensor& t, const std::vector<bool>& mask, cuda_ops::StridedReduction* r) {
  std::vector<std::pair<int64_t, int64_t>> red;  // (stride, size)
  int64_t min_kept = INT64_MAX, R = 1;
  for (int64_t d = 0; d < t->dim(); ++d) {
    if (t->sizes[d] == 1) continue;
    if (mask[d]) red.push_back({t->strides[d], t->sizes[d]}), R *= t->sizes[d];
    else min_kept = std::min(min_kept, t->strides[d]);
  }
  if (red.empty() || R >= (int64_t{1} << 31)) return false;
  std::sort(red.begin(), red.end());
  if (red[0].first > min_kept || red[0].first <= 0) return false;
  std::vector<std::pair<int64_t, int64_t>> merged;
  for (auto& e : red) {
    if (!merged.empty() && merged.back().first * merged.back().second == e.first) merged.back().second *= e.second;
    else merged.push_back(e);
  }
  int32_t nk = 0;
  for (int64_t d = 0; d < t->dim(); ++d) nk += !mask[d] && t->sizes[d] != 1;
  if (merged.size() > static_cast<size_t>(cuda_ops::kMaxDims) || nk > cuda_ops::kMaxDims) return false;
  for (int64_t d = 0; d < t->dim(); ++d) {
    if (mask[d] || t->sizes[d] == 1) continue;
    r->kept_sizes[r->kept_ndim] = t->sizes[d];
    r->kept_strides[r->kept_ndim++] = t->strides[d];
  }
  for (auto& e : merged) {
    r->red_sizes[r->red_ndim] = e.second;
    r->red_strides[r->red_ndim++] = e.first;
  }
  return true;
}

Layout layout(const Tensor& t, const std::vector<bool>& mask, bool keepdim, DType compute) {
  Layout L = sizes_of(t, mask, keepdim);
  Shape perm;
  for (int64_t d = 0; d < t->dim(); ++d)
    if (!mask[d]) perm.push_back(d);
  for (int64_t d = 0; d < t->dim(); ++d)
    if (mask[d]) perm.push_back(d);
  Tensor p = permute(t, perm);
  if (p->is_contiguous() && p->dtype == compute) {  // already [O, R] rows: no copy
    L.rows = p;
    return L;
  }
  Tensor c = empty_tensor(p->sizes, compute, t->device());
  copy_(c, p);
  L.rows = c;
  return L;
}

template <typename T> struct AccOf { using type = T; };
template <> struct AccOf<float> { using type = double; };
template <> struct AccOf<std::complex<float>> { using type = std::complex<double>; };
template <> struct AccOf<uint8_t> { using type = int64_t; };
template <> struct AccOf<int8_t> { using type = int64_t; };
template <> struct AccOf<int16_t> { using type = int64_t; };
template <> struct AccOf<int32_t> { using type = int64_t; };

constexpr int64_t kChunk = 32768;

// out[o] = fin(fold over row o of combine(acc, x)), with partials combined by merge.
template <typename T, typename Out, typename Acc, typename Step, typename Merge, typename Fin>
void reduce_rows(const Layout& L, Out* out, Acc init, Step step, Merge merge, Fin fin) {
  const T* x = reinterpret_cast<const T*>(L.rows->data());
  const int64_t O = L.O, R = L.R;
  if (O == 1 && R > kChunk) {
    int64_t nchunks = (R + kChunk - 1) / kChunk;
    std::vector<Acc> part(nchunks, init);
    cpu::parallel_for(0, nchunks, 1, [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) {
        Acc a = init;
        int64_t lo = c * kChunk, hi = std::min(R, lo + kChunk);
        for (int64_t i = lo; i < hi; ++i) a = step(a, x[i]);
        part[c] = a;
      }
    });
    Acc a = init;
    for (const Acc& p : part) a = merge(a, p);
    out[0] = fin(a, R);
    return;
  }
  cpu::parallel_for(0, O, std::max<int64_t>(1, cpu::kGrainSize / std::max<int64_t>(R, 1)), [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) {
      Acc a = init;
      const T* row = x + o * R;
      for (int64_t i = 0; i < R; ++i) a = step(a, row[i]);
      out[o] = fin(a, R);
    }
  });
}

template <typename T> bool isnan_(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  else return false;
}


Tensor finish(const Tensor& tmp, const Layout& L, DType out_dtype) {
  Tensor shaped = make_view(tmp, L.out_shape, contiguous_strides(L.out_shape), 0);
  if (out_dtype == tmp->dtype) return shaped;
  Tensor out = empty_tensor(L.out_shape, out_dtype, tmp->device());
  copy_(out, shaped);
  return out;
}

// The same for results in kept_perm order: one copy puts them in order (and in out_dtype).
Tensor finish_perm(const Tensor& tmp, const Tensor& t, const std::vector<bool>& mask, const Shape& kept_perm,
                   const Layout& L, DType out_dtype) {
  bool identity = true;
  for (size_t i = 0; i < kept_perm.size(); ++i) identity = identity && kept_perm[i] == static_cast<int64_t>(i);
  if (identity) return finish(tmp, L, out_dtype);
  Tensor v = kept_view(tmp, t, mask, kept_perm);
  Tensor out = empty_tensor(v->sizes, out_dtype, tmp->device());
  copy_(out, v);
  return make_view(out, L.out_shape, contiguous_strides(L.out_shape), 0);
}

void check_nonempty(const Tensor& t, const Layout& L, const char* op) {
  if (L.R == 0) {
    fail(Status::Shape, op, "(): Expected reduction dim to be specified for input.numel() == 0, or the reduced dims to have "
         "non-zero size (input shape ", shape_str(t->sizes), ")");
  }
}

template <typename T>
void reduce_kernel(ReduceOp op, const Layout& L, const Tensor& tmp) {
    T* out = reinterpret_cast<T*>(tmp->data());
    if constexpr (std::is_same_v<T, bool>) {
      // bool only for amax/amin (sum/prod give int64): any / all
      bool is_max = op == ReduceOp::Amax;
      reduce_rows<T>(L, out, !is_max, [is_max](bool a, bool x) { return is_max ? (a || x) : (a && x); },
                     [is_max](bool a, bool b) { return is_max ? (a || b) : (a && b); }, [](bool a, int64_t) { return a; });
    } else {
      using Acc = typename AccOf<T>::type;
      if (op == ReduceOp::Sum || op == ReduceOp::Mean) {
        bool mean = op == ReduceOp::Mean;
        // integer sums wrap, as the products below (no signed-overflow UB)
        reduce_rows<T>(L, out, Acc(0), [](Acc a, T x) {
                         if constexpr (std::is_integral_v<Acc>) return static_cast<Acc>(static_cast<uint64_t>(a) + static_cast<uint64_t>(static_cast<Acc>(x)));
                         else return a + static_cast<Acc>(x);
                       },
                       [](Acc a, Acc b) {
                         if constexpr (std::is_integral_v<Acc>) return static_cast<Acc>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
                         else return a + b;
                       },
                       [mean](Acc a, int64_t n) {
                         if constexpr (std::is_integral_v<T>) return static_cast<T>(a);
                         else return static_cast<T>(mean ? a / static_cast<Acc>(static_cast<double>(n)) : a);
                       });
      } else if (op == ReduceOp::Prod) {
        reduce_rows<T>(L, out, Acc(1), [](Acc a, T x) {
                         if constexpr (std::is_integral_v<Acc>) return static_cast<Acc>(static_cast<uint64_t>(a) * static_cast<uint64_t>(static_cast<Acc>(x)));
                         else return a * static_cast<Acc>(x);
                       },
                       [](Acc a, Acc b) {
                         if constexpr (std::is_integral_v<Acc>) return static_cast<Acc>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
                         else return a * b;
                       },
                       [](Acc a, int64_t) { return static_cast<T>(a); });
      } else if constexpr (!cpu::is_complex_v<T>) {
        bool is_max = op == ReduceOp::Amax;
        auto pick = [is_max](T a, T x) {
          if (isnan_(a)) return a;
          if (isnan_(x)) return x;
          return is_max ? (x > a ? x : a) : (x < a ? x : a);
        };
        T init = is_max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
        if constexpr (std::is_floating_point_v<T>) init = is_max ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
        reduce_rows<T>(L, out, init, pick, pick, [](T a, int64_t) { return a; });
      }
    }
}

}  // namespace

Tensor reduce(ReduceOp op, const Tensor& t, const std::vector<int64_t>& dims, bool keepdim, bool has_dtype, DType dtype) {
  const char* name = abi::kReduceOpNames[static_cast<int32_t>(op)];  // op checked by capi
  std::vector<bool> mask = dim_mask(t, dims);
  DType out_dtype;
  if (op == ReduceOp::Sum || op == ReduceOp::Prod) {
    out_dtype = has_dtype ? dtype : (is_integral(t->dtype, true) ? DType::Int64 : t->dtype);
  } else if (op == ReduceOp::Mean) {
    out_dtype = has_dtype ? dtype : t->dtype;
    CT_CHECK(is_floating(out_dtype) || is_complex(out_dtype), Status::DType,
             "mean(): could not infer output dtype. ", has_dtype ? "Optional" : "Input",
             " dtype must be either a floating point or complex dtype. Got: ", dtype_short(out_dtype));
  } else {
    CT_CHECK(!has_dtype, Status::Argument, name, "() does not take a dtype");
    CT_CHECK(!is_complex(t->dtype), Status::DType, name, "(): does not support complex input");
    out_dtype = t->dtype;
  }
  DType comp = compute_dtype(out_dtype);
  if (t->device().is_cuda() && t->numel() > 0 && cuda_ops::reduce_input_supported(t->dtype, comp)) {
    InPlace ip = plan_in_place(t, mask);
    // sums and means of float16/bfloat16 are stored in their dtype by the kernel (no cast after)
    const DType store = (op == ReduceOp::Sum || op == ReduceOp::Mean) && out_dtype == t->dtype &&
                        (t->dtype == DType::Float16 || t->dtype == DType::BFloat16) ? out_dtype : comp;
    cuda_ops::StridedReduction sr;
    if (ip.rows || (ip.cols && cuda_ops::reduce_cols_supported(comp))) {
      Layout L = sizes_of(t, mask, keepdim);
      Tensor tmp = empty_tensor({L.O}, store, t->device());
      CudaScope sc(t->device());
      CudaScratch get(t->device());
      // the dense span starts at the element with the smallest address: the tensor's data pointer
      if (ip.rows) cuda_ops::reduce_rows(op, t->data(), tmp->data(), L.O, L.R, comp, t->dtype, get, sc.stream, store);
      else cuda_ops::reduce_cols(op, t->data(), tmp->data(), L.R, L.O, comp, t->dtype, get, sc.stream, store);
      CT_CSAN_KERNEL(sc.stream_ref, name, {{t.get(), "self"}}, {{tmp.get(), "out"}});
      return finish_perm(tmp, t, mask, ip.kept_perm, L, out_dtype);
    }
    if (op != ReduceOp::Prod && plan_strided(t, mask, &sr)) {
      Layout L = sizes_of(t, mask, keepdim);
      Tensor tmp = empty_tensor({L.O}, store, t->device());
      CudaScope sc(t->device());
      CudaScratch get(t->device());
      cuda_ops::reduce_strided(op, t->data(), tmp->data(), sr, comp, t->dtype, get, sc.stream, store);
      CT_CSAN_KERNEL(sc.stream_ref, name, {{t.get(), "self"}}, {{tmp.get(), "out"}});
      return finish(tmp, L, out_dtype);
    }
  }
  if (t->device().is_cpu() && (op == ReduceOp::Sum || op == ReduceOp::Mean) && comp == DType::Float32 &&
      cpu::sum_rows_supported(t->dtype)) {
    InPlace ip = plan_in_place(t, mask);
    if (ip.rows) {
      Layout L = sizes_of(t, mask, keepdim);
      Tensor tmp = empty_tensor({L.O}, comp, t->device());
      cpu::sum_rows(t->data(), t->dtype, reinterpret_cast<float*>(tmp->data()), L.O, L.R, op == ReduceOp::Mean);
      return finish_perm(tmp, t, mask, ip.kept_perm, L, out_dtype);
    }
  }
  Layout L = layout(t, mask, keepdim, comp);
  if (op == ReduceOp::Amax || op == ReduceOp::Amin) check_nonempty(t, L, name);
  Tensor tmp = empty_tensor({L.O}, comp, t->device());
  if (t->device().is_cuda()) {
    CudaScope sc(t->device());
    CudaScratch get(t->device());
    cuda_ops::reduce_rows(op, L.rows->data(), tmp->data(), L.O, L.R, comp, comp, get, sc.stream, comp);
    CT_CSAN_KERNEL(sc.stream_ref, name, {{L.rows.get(), "self"}}, {{tmp.get(), "out"}});
  } else {
    CT_DISPATCH_COMPUTE(comp, name, [&] { reduce_kernel<scalar_t>(op, L, tmp); });
  }
  return finish(tmp, L, out_dtype);
}

Tensor max_all(const Tensor& t, bool is_max) {
  const char* name = is_max ? "max" : "min";
  CT_CHECK(t->numel() > 0, Status::Shape, name, "(): Expected reduction dim to be specified for input.numel() == 0. "
           "Specify the reduction dim with the 'dim' argument.");
  return reduce(is_max ? ReduceOp::Amax : ReduceOp::Amin, t, {}, false, false, t->dtype);
}

namespace {

template <typename T>
void arg_kernel(const Layout& L, const Tensor& vals, const Tensor& idx, bool is_max) {
    if constexpr (!cpu::is_complex_v<T>) {
      const T* x = reinterpret_cast<const T*>(L.rows->data());
      T* v = reinterpret_cast<T*>(vals->data());
      int64_t* ix = reinterpret_cast<int64_t*>(idx->data());
      const int64_t R = L.R;
      cpu::parallel_for(0, L.O, std::max<int64_t>(1, cpu::kGrainSize / R), [&](int64_t b, int64_t e) {
        for (int64_t o = b; o < e; ++o) {
          const T* row = x + o * R;
          T best = row[0];
          int64_t bi = 0;
          if (!isnan_(best)) {
            for (int64_t i = 1; i < R; ++i) {
              T c = row[i];
              if (isnan_(c)) { best = c; bi = i; break; }
              if (is_max ? (c > best) : (c < best)) { best = c; bi = i; }
            }
          }
          v[o] = best;
          ix[o] = bi;
        }
      });
    }
}

// values and first-occurrence indices along one dim (NaN counts as the extreme value).
// want_values false (argmax/argmin): on CUDA the values are not computed and .first is null.
std::pair<Tensor, Tensor> arg_reduce(const Tensor& t, bool all, int64_t dim, bool keepdim, bool is_max, const char* name,
                                     bool want_values = true) {
  CT_CHECK(!is_complex(t->dtype), Status::DType, name, "(): does not support complex input");
  std::vector<bool> mask;
  if (all) mask = dim_mask(t, {});
  else mask = dim_mask(t, {dim});
  DType comp = compute_dtype(t->dtype);
  InPlace ip;
  if (t->device().is_cuda() && t->numel() > 0 && cuda_ops::reduce_input_supported(t->dtype, comp)) {
    // a full argmax needs the logical order
    ip = all ? InPlace{t->is_contiguous(), false, {}} : plan_in_place(t, mask);
    if (ip.cols && !cuda_ops::reduce_cols_supported(comp)) ip.cols = false;
  }
  if (ip.rows || ip.cols) {
    // rows or columns in place (Note [Reductions in place])
    Layout L = sizes_of(t, mask, keepdim && !all);
    if (all) L.out_shape.clear();
    Tensor vals = want_values ? empty_tensor({L.O}, comp, t->device()) : Tensor();
    Tensor idx = empty_tensor({L.O}, DType::Int64, t->device());
    CudaScope sc(t->device());
    CudaScratch get(t->device());
    cuda_ops::arg_reduce_rows(t->data(), vals ? vals->data() : nullptr, reinterpret_cast<int64_t*>(idx->data()), L.O,
                              L.R, comp, t->dtype, is_max, get, sc.stream, ip.cols);
    CT_CSAN_KERNEL(sc.stream_ref, name, {{t.get(), "self"}}, {{vals.get(), "values"}, {idx.get(), "indices"}});
    if (all) return {vals ? finish(vals, L, t->dtype) : Tensor(), finish(idx, L, DType::Int64)};
    return {vals ? finish_perm(vals, t, mask, ip.kept_perm, L, t->dtype) : Tensor(),
            finish_perm(idx, t, mask, ip.kept_perm, L, DType::Int64)};
  }
  Layout L = layout(t, mask, keepdim && !all, comp);
  if (all) L.out_shape.clear();
  if (L.R == 0) {
    fail(Status::Shape, name, "(): Expected reduction dim ", all ? 0 : dim, " to have non-zero size (input shape ",
         shape_str(t->sizes), ")");
  }
  const bool cuda = t->device().is_cuda();
  Tensor vals = want_values || !cuda ? empty_tensor({L.O}, comp, t->device()) : Tensor();
  Tensor idx = empty_tensor({L.O}, DType::Int64, t->device());
  if (cuda) {
    CudaScope sc(t->device());
    CudaScratch get(t->device());
    cuda_ops::arg_reduce_rows(L.rows->data(), vals ? vals->data() : nullptr, reinterpret_cast<int64_t*>(idx->data()),
                              L.O, L.R, comp, comp, is_max, get, sc.stream, false);
    CT_CSAN_KERNEL(sc.stream_ref, name, {{L.rows.get(), "self"}}, {{vals.get(), "values"}, {idx.get(), "indices"}});
  } else {
    CT_DISPATCH_COMPUTE(comp, name, [&] { arg_kernel<scalar_t>(L, vals, idx, is_max); });
  }
  return {want_values ? finish(vals, L, t->dtype) : Tensor(), finish(idx, L, DType::Int64)};
}

// How a CUDA reduction of a nonempty real floating t over mask reads t in place (norms, var:
// Note [Reductions in place], then the engine's strided plan); false where no plan fits.
struct CudaPlan {
  cuda_ops::InPlacePlan plan = cuda_ops::InPlacePlan::Rows;
  InPlace ip;
  cuda_ops::StridedReduction sr;
};

bool cuda_in_place(const Tensor& t, const std::vector<bool>& mask, CudaPlan* p) {
  if (!t->device().is_cuda() || t->numel() == 0 || !is_floating(t->dtype)) return false;
  p->ip = plan_in_place(t, mask);
  if (p->ip.rows || p->ip.cols) {
    p->plan = p->ip.rows ? cuda_ops::InPlacePlan::Rows : cuda_ops::InPlacePlan::Cols;
    return true;
  }
  p->plan = cuda_ops::InPlacePlan::Strided;
  return plan_strided(t, mask, &p->sr);
}

// The O results of a CudaPlan reduction (in kept_perm order unless strided) shaped as L says.
Tensor finish_plan(const Tensor& tmp, const Tensor& t, const std::vector<bool>& mask, const CudaPlan& p,
                   const Layout& L, DType out_dtype) {
  if (p.plan == cuda_ops::InPlacePlan::Strided) return finish(tmp, L, out_dtype);
  return finish_perm(tmp, t, mask, p.ip.kept_perm, L, out_dtype);
}

}  // namespace

std::pair<Tensor, Tensor> max_dim(const Tensor& t, int64_t dim, bool keepdim, bool is_max) {
  return arg_reduce(t, false, dim, keepdim, is_max, is_max ? "max" : "min");
}

Tensor argmax(const Tensor& t, bool has_dim, int64_t dim, bool keepdim, bool is_max) {
  return arg_reduce(t, !has_dim, dim, keepdim, is_max, is_max ? "argmax" : "argmin", false).second;
}

bool var_mean_in_place(const Tensor& t, const std::vector<int64_t>& dims, double correction, bool keepdim,
                       bool take_sqrt, std::pair<Tensor, Tensor>* out) {
  if (t->dim() == 0) return false;
  std::vector<bool> mask = dim_mask(t, dims);
  CudaPlan cp;
  if (!cuda_in_place(t, mask, &cp)) return false;
  Layout L = sizes_of(t, mask, keepdim);
  Tensor v = empty_tensor({L.O}, t->dtype, t->device()), m = empty_tensor({L.O}, t->dtype, t->device());
  CudaScope sc(t->device());
  CudaScratch get(t->device());
  cuda_ops::var_in_place(cp.plan, t->data(), t->dtype, v->data(), m->data(), L.O, L.R, &cp.sr, correction, take_sqrt,
                         get, sc.stream);
  CT_CSAN_KERNEL(sc.stream_ref, take_sqrt ? "std_mean" : "var_mean", {{t.get(), "self"}},
                 {{v.get(), "out"}, {m.get(), "mean"}});
  *out = {finish_plan(v, t, mask, cp, L, t->dtype), finish_plan(m, t, mask, cp, L, t->dtype)};
  return true;
}

Tensor norm(const Tensor& t, double p, const std::vector<int64_t>& dims, bool keepdim) {
  CT_CHECK(is_floating(t->dtype) || is_complex(t->dtype), Status::DType,
           "linalg.vector_norm: Expected a floating point or complex tensor as input. Got ", dtype_short(t->dtype));
  std::vector<bool> mask = dim_mask(t, dims);
  // real floating inputs read in place where the layout allows (Note [Norms in double])
  CudaPlan cp;
  if (cuda_in_place(t, mask, &cp)) {
    Layout L = sizes_of(t, mask, keepdim);
    Tensor tmp = empty_tensor({L.O}, DType::Float64, t->device());
    CudaScope sc(t->device());
    CudaScratch get(t->device());
    cuda_ops::norm_in_place(cp.plan, t->data(), t->dtype, reinterpret_cast<double*>(tmp->data()), L.O, L.R, &cp.sr, p,
                            get, sc.stream);
    CT_CSAN_KERNEL(sc.stream_ref, "linalg.vector_norm", {{t.get(), "self"}}, {{tmp.get(), "out"}});
    return finish_plan(tmp, t, mask, cp, L, t->dtype);
  }
  // |x| in double (complex: magnitude), then the p-norm of each row.
  Tensor mag = unary(UnaryOp::Abs, to(t, t->device(), is_complex(t->dtype) ? DType::Complex128 : DType::Float64, false));
  Layout L = layout(mag, mask, keepdim, DType::Float64);
  if (std::isinf(p) && L.R == 0) {
    fail(Status::Shape, "linalg.vector_norm cannot compute the ", p > 0 ? "inf" : "-inf",
         " norm on an empty tensor because the operation does not have an identity");
  }
  Tensor tmp = empty_tensor({L.O}, DType::Float64, t->device());
  double* out = reinterpret_cast<double*>(tmp->data());
  if (t->device().is_cuda()) {
    CudaScope sc(t->device());
    CudaScratch get(L.rows->device());
    cuda_ops::norm_rows(reinterpret_cast<const double*>(L.rows->data()), out, L.O, L.R, p, get, sc.stream);
    CT_CSAN_KERNEL(sc.stream_ref, "linalg.vector_norm", {{L.rows.get(), "self"}}, {{tmp.get(), "out"}});
    return finish(tmp, L, to_real(t->dtype));
  }
  auto add = [](double a, double b) { return a + b; };
  if (std::isinf(p)) {
    bool mx = p > 0;
    auto pick = [mx](double a, double x) {
      if (std::isnan(a)) return a;
      if (std::isnan(x)) return x;
      return mx ? std::max(a, x) : std::min(a, x);
    };
    reduce_rows<double>(L, out, mx ? 0.0 : std::numeric_limits<double>::infinity(), pick, pick, [](double a, int64_t) { return a; });
  } else if (p == 0) {
    reduce_rows<double>(L, out, 0.0, [](double a, double x) { return a + (x != 0 ? 1.0 : 0.0); }, add, [](double a, int64_t) { return a; });
  } else if (p == 1) {
    reduce_rows<double>(L, out, 0.0, add, add, [](double a, int64_t) { return a; });
  } else if (p == 2) {
    reduce_rows<double>(L, out, 0.0, [](double a, double x) { return a + x * x; }, add, [](double a, int64_t) { return std::sqrt(a); });
  } else {
    reduce_rows<double>(L, out, 0.0, [p](double a, double x) { return a + std::pow(x, p); }, add,
                        [p](double a, int64_t) { return std::pow(a, 1.0 / p); });
  }
  return finish(tmp, L, to_real(t->dtype));
}

}  // namespace ct::ops
