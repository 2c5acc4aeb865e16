// The printed form of a tensor, following torch/_tensor_str.py (default print options:
// precision 4, threshold 1000, edgeitems 3, linewidth 80).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "impl/core/error.h"
#include "impl/ops/ops.h"

namespace ct::ops {

namespace {

constexpr int kPrecision = 4, kThreshold = 1000, kEdge = 3, kLinewidth = 80;

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

struct Formatter {
  bool floating = false;
  bool int_mode = true;
  bool sci = false;
  size_t width = 1;

  static std::string sci_str(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    return fmt("%.4e", v);
  }

  void build_float(const std::vector<double>& vals) {
    floating = true;
    std::vector<double> nz;
    for (double v : vals)
      if (std::isfinite(v) && v != 0) nz.push_back(v);
    if (nz.empty()) return;
    double mn = INFINITY, mx = 0;
    for (double v : nz) { mn = std::min(mn, std::fabs(v)); mx = std::max(mx, std::fabs(v)); }
    for (double v : nz)
      if (v != std::ceil(v)) { int_mode = false; break; }
    if (int_mode) {
      if (mx / mn > 1000.0 || mx > 1.0e8) {
        sci = true;
        for (double v : nz) width = std::max(width, sci_str(v).size());
      } else {
        for (double v : nz) width = std::max(width, fmt("%.0f", v).size() + 1);
      }
    } else if (mx / mn > 1000.0 || mx > 1.0e8 || mn < 1.0e-4) {
      sci = true;
      for (double v : nz) width = std::max(width, sci_str(v).size());
    } else {
      for (double v : nz) width = std::max(width, fmt("%.4f", v).size());
    }
  }

  std::string format(double v) const {
    std::string r;
    if (std::isnan(v)) r = "nan";
    else if (std::isinf(v)) r = v > 0 ? "inf" : "-inf";
    else if (sci) r = sci_str(v);
    else if (int_mode) r = fmt("%.0f", v) + ".";
    else r = fmt("%.4f", v);
    if (r.size() < width) r = std::string(width - r.size(), ' ') + r;
    return r;
  }
};

struct Printer {
  const TensorImpl* t;      // contiguous copy of the values
  DType dtype;              // original dtype
  bool summarize = false;
  bool is_bool = false, is_int = false, is_cplx = false;
  Formatter f1, f2;         // f2: imaginary parts
  const int64_t* ivals = nullptr;
  const double* dvals = nullptr;  // real, or interleaved (re, im) for complex

  // Visits the element indices the printed form shows, in order.
  template <typename F>
  void visit(int64_t dim, int64_t base, F& f) const {
    const Shape& s = t->sizes;
    if (dim == static_cast<int64_t>(s.size())) { f(base); return; }
    int64_t n = s[dim], stride = t->strides[dim];
    if (summarize && n > 2 * kEdge) {
      for (int64_t i = 0; i < kEdge; ++i) visit(dim + 1, base + i * stride, f);
      for (int64_t i = n - kEdge; i < n; ++i) visit(dim + 1, base + i * stride, f);
    } else {
      for (int64_t i = 0; i < n; ++i) visit(dim + 1, base + i * stride, f);
    }
  }

  std::string elem(int64_t i) const {
    if (is_bool || is_int) {
      std::string r = is_bool ? (ivals[i] ? "True" : "False") : std::to_string(ivals[i]);
      return r.size() < f1.width ? std::string(f1.width - r.size(), ' ') + r : r;
    }
    if (!is_cplx) return f1.format(dvals[i]);
    std::string re = f1.format(dvals[2 * i]);
    std::string im = f2.format(dvals[2 * i + 1]) + "j";
    size_t p = im.find_first_not_of(' ');
    im = im.substr(p);
    if (im[0] == '+' || im[0] == '-') return re + im;
    return re + "+" + im;
  }

  size_t elem_len() const {
    size_t n = f1.width + 2;
    if (is_cplx) n += f2.width + 1;
    return n;
  }

  std::string vec(int64_t base, int64_t indent) const {
    int64_t n = t->sizes.back(), stride = t->strides.back();
    std::vector<std::string> data;
    if (summarize && n > 2 * kEdge) {
      for (int64_t i = 0; i < kEdge; ++i) data.push_back(elem(base + i * stride));
      data.push_back(" ...");
      for (int64_t i = n - kEdge; i < n; ++i) data.push_back(elem(base + i * stride));
    } else {
      for (int64_t i = 0; i < n; ++i) data.push_back(elem(base + i * stride));
    }
    int64_t per_line = std::max<int64_t>(1, static_cast<int64_t>(std::floor(static_cast<double>(kLinewidth - indent) / static_cast<double>(elem_len()))));
    std::string out = "[";
    for (size_t i = 0; i < data.size(); ++i) {
      if (i > 0) out += (static_cast<int64_t>(i) % per_line == 0) ? ",\n" + std::string(indent + 1, ' ') : ", ";
      out += data[i];
    }
    return out + "]";
  }

  std::string str(int64_t dim, int64_t base, int64_t indent) const {
    int64_t nd = t->dim() - dim;
    if (nd == 0) return elem(base);
    if (nd == 1) return vec(base, indent);
    int64_t n = t->sizes[dim], stride = t->strides[dim];
    std::vector<std::string> slices;
    if (summarize && n > 2 * kEdge) {
      for (int64_t i = 0; i < kEdge; ++i) slices.push_back(str(dim + 1, base + i * stride, indent + 1));
      slices.push_back("...");
      for (int64_t i = n - kEdge; i < n; ++i) slices.push_back(str(dim + 1, base + i * stride, indent + 1));
    } else {
      for (int64_t i = 0; i < n; ++i) slices.push_back(str(dim + 1, base + i * stride, indent + 1));
    }
    std::string sep = "," + std::string(nd - 1, '\n') + std::string(indent + 1, ' ');
    std::string out = "[";
    for (size_t i = 0; i < slices.size(); ++i) out += (i ? sep : "") + slices[i];
    return out + "]";
  }
};

std::string add_suffixes(const std::string& s, const std::vector<std::string>& suffixes, int64_t indent) {
  std::string out = s;
  size_t nl = s.rfind('\n');
  int64_t last_line_len = static_cast<int64_t>(nl == std::string::npos ? s.size() + 1 : s.size() - nl + 1);
  for (const std::string& suf : suffixes) {
    int64_t len = static_cast<int64_t>(suf.size());
    if (last_line_len + len + 2 > kLinewidth) {
      out += ",\n" + std::string(indent, ' ') + suf;
      last_line_len = indent + len;
    } else {
      out += ", " + suf;
      last_line_len += len + 2;
    }
  }
  return out + ")";
}

}  // namespace

std::string repr(const Tensor& t) {
  const std::string prefix = "tensor(";
  const int64_t indent = static_cast<int64_t>(prefix.size());
  std::vector<std::string> suffixes;
  if (t->device().is_cuda()) suffixes.push_back("device='" + t->device().str() + "'");
  DType d = t->dtype;
  if (t->numel() == 0) {
    if (t->dim() != 1) {
      std::string sz = "size=(";
      for (int64_t i = 0; i < t->dim(); ++i) sz += (i ? ", " : "") + std::to_string(t->sizes[i]);
      sz += t->dim() == 1 ? ",)" : ")";
      suffixes.push_back(sz);
    }
    if (d != kDefaultFloat) suffixes.push_back(std::string("dtype=") + dtype_name(d));
    return add_suffixes(prefix + "[]", suffixes, indent);
  }
  bool default_dtype = d == kDefaultFloat || d == kDefaultComplex || d == DType::Int64 || d == DType::Bool;
  if (!default_dtype) suffixes.push_back(std::string("dtype=") + dtype_name(d));

  Printer p;
  p.summarize = t->numel() > kThreshold;
  p.dtype = d;
  p.is_bool = d == DType::Bool;
  p.is_int = is_integral(d, false);
  p.is_cplx = is_complex(d);
  DType host = (p.is_bool || p.is_int) ? DType::Int64 : (p.is_cplx ? DType::Complex128 : DType::Float64);
  Tensor vals = empty_tensor(t->sizes, host, Device{});
  copy_(vals, t);
  p.t = vals.get();
  if (host == DType::Int64) p.ivals = reinterpret_cast<const int64_t*>(vals->data());
  else p.dvals = reinterpret_cast<const double*>(vals->data());

  // Formatters see exactly the elements that are printed.
  std::vector<double> re, im;
  std::vector<int64_t> idx;
  auto collect = [&](int64_t i) { idx.push_back(i); };
  p.visit(0, 0, collect);
  if (p.is_int || p.is_bool) {
    for (int64_t i : idx)
      p.f1.width = std::max(p.f1.width, p.is_bool ? (p.ivals[i] ? size_t{4} : size_t{5}) : std::to_string(p.ivals[i]).size());
  } else if (!p.is_bool) {
    for (int64_t i : idx) {
      if (p.is_cplx) { re.push_back(p.dvals[2 * i]); im.push_back(p.dvals[2 * i + 1]); }
      else re.push_back(p.dvals[i]);
    }
    p.f1.build_float(re);
    if (p.is_cplx) p.f2.build_float(im);
  }
  std::string body = p.str(0, 0, indent);
  return add_suffixes(prefix + body, suffixes, indent);
}

}  // namespace ct::ops
