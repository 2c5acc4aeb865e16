// The safetensors format: Note [safetensors] in safetensors.h.
#include "impl/io/safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

#include "impl/core/error.h"
#include "impl/ops/ops.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "safetensors data is little-endian: a big-endian host would have to swap");

namespace ct::io {

namespace {

using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;

// The reference implementation's limit on the header's length.
constexpr uint64_t kMaxHeader = 100000000;

// Every dtype of the format, in the order of the reference's Dtype enum (increasing alignment):
// its writer sorts tensors by this order, descending, then by name.
const StDType kDTypes[] = {
    {"BOOL", 8, true, DType::Bool},
    {"F4", 4, false, DType::UInt8},
    {"F6_E2M3", 6, false, DType::UInt8},
    {"F6_E3M2", 6, false, DType::UInt8},
    {"U8", 8, true, DType::UInt8},
    {"I8", 8, true, DType::Int8},
    {"F8_E5M2", 8, false, DType::UInt8},
    {"F8_E4M3", 8, false, DType::UInt8},
    {"F8_E8M0", 8, false, DType::UInt8},
    {"F8_E4M3FNUZ", 8, false, DType::UInt8},
    {"F8_E5M2FNUZ", 8, false, DType::UInt8},
    {"I16", 16, true, DType::Int16},
    {"U16", 16, false, DType::UInt8},
    {"F16", 16, true, DType::Float16},
    {"BF16", 16, true, DType::BFloat16},
    {"I32", 32, true, DType::Int32},
    {"U32", 32, false, DType::UInt8},
    {"F32", 32, true, DType::Float32},
    {"C64", 64, true, DType::Complex64},
    {"F64", 64, true, DType::Float64},
    {"I64", 64, true, DType::Int64},
    {"U64", 64, false, DType::UInt8},
};

const StDType* find_dtype(const std::string& s) {
  for (const auto& d : kDTypes)
    if (s == d.name) return &d;
  return nullptr;
}

// The format's dtype of a ctorch dtype and its rank in the writer's order; -1: none
// (complex128: the format has no C128).
int rank_of(DType d) {
  for (size_t i = 0; i < sizeof kDTypes / sizeof kDTypes[0]; ++i)
    if (kDTypes[i].has_ct && kDTypes[i].ct == d) return static_cast<int>(i);
  return -1;
}

[[noreturn]] void bad(const std::string& what) { fail(Status::Argument, "safetensors: ", what); }

// A header value for a message: a number, a short string, or an array of at most 4 of them as
// JSON, anything else by its type (a value of the header may be nested millions deep, which
// dump() would recurse through).
std::string describe(const json& v) {
  auto scalar = [](const json& x) {
    return x.is_number() || x.is_boolean() || x.is_null() ||
           (x.is_string() && x.get_ref<const std::string&>().size() <= 64);
  };
  if (scalar(v)) return v.dump();
  if (v.is_array() && v.size() <= 4 && std::all_of(v.begin(), v.end(), scalar)) return v.dump();
  return std::string(v.is_array() ? "an array" : v.is_object() ? "an object" : "a string") + " of " +
         std::to_string(v.is_string() ? v.get_ref<const std::string&>().size() : v.size()) +
         (v.is_string() ? " bytes" : " entries");
}

// A non-negative integer of the header that fits int64.
int64_t header_int(const json& v, const std::string& what) {
  if (v.is_number_unsigned()) {
    uint64_t u = v.get<uint64_t>();
    if (u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return static_cast<int64_t>(u);
    bad(what + " is too large (" + std::to_string(u) + ")");
  }
  if (v.is_number_integer()) bad(what + " is negative (" + describe(v) + ")");
  bad(what + " is not a non-negative integer (" + describe(v) + ")");
}

// A string checked for what the format (UTF-8) and the C API (NUL-terminated) need.
void check_string(const std::string& s, const char* what) {
  CT_CHECK(s.find('\0') == std::string::npos, Status::Argument, "safetensors: ", what, " contains a NUL character");
  try {
    (void)json(s).dump();
  } catch (const json::exception& e) {
    fail(Status::Argument, "safetensors: ", what, " is not valid UTF-8 (", e.what(), ")");
  }
}

}  // namespace

// The file's bytes: a private mapping, or an owned aligned copy of a buffer.
struct SafeTensorsFile::Bytes {
  void* base = nullptr;
  size_t len = 0;
  bool mapped = false;
  ~Bytes() {
    if (mapped) munmap(base, len);
    else std::free(base);
  }
};

std::shared_ptr<const SafeTensorsFile> SafeTensorsFile::open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  CT_CHECK(fd >= 0, Status::Argument, "safetensors: cannot open '", path, "': ", std::strerror(errno));
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st;
  CT_CHECK(fstat(fd, &st) == 0, Status::Argument, "safetensors: cannot stat '", path, "': ", std::strerror(errno));
  CT_CHECK(S_ISREG(st.st_mode), Status::Argument, "safetensors: '", path, "' is not a regular file");
  CT_CHECK(st.st_size >= 8, Status::Argument, "safetensors: '", path, "' has ", st.st_size,
           " bytes, fewer than the 8 of the header's length (HeaderTooSmall)");
  auto bytes = std::make_shared<Bytes>();
  // Private and writable: a tensor on the mapping may be written; the page is then copied for
  // this process and the file never changes (copy-on-write).
  void* p = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  CT_CHECK(p != MAP_FAILED, Status::OutOfMemory, "safetensors: cannot map '", path, "' (", st.st_size,
           " bytes): ", std::strerror(errno));
  bytes->base = p;
  bytes->len = static_cast<size_t>(st.st_size);
  bytes->mapped = true;
  std::shared_ptr<SafeTensorsFile> f(new SafeTensorsFile());
  f->bytes_ = std::move(bytes);
  f->parse();
  return f;
}

std::shared_ptr<const SafeTensorsFile> SafeTensorsFile::from_bytes(const void* data, int64_t nbytes) {
  CT_CHECK(nbytes >= 0, Status::Argument, "safetensors: nbytes must be >= 0, got ", nbytes);
  CT_CHECK(data != nullptr || nbytes == 0, Status::NullPointer, "safetensors: data is NULL but nbytes is ", nbytes);
  CT_CHECK(nbytes >= 8, Status::Argument, "safetensors: the buffer has ", nbytes,
           " bytes, fewer than the 8 of the header's length (HeaderTooSmall)");
  auto bytes = std::make_shared<Bytes>();
  size_t n = static_cast<size_t>(nbytes);
  // 64-byte aligned, as a mapping's page is: the same tensors are zero-copy as from a file.
  bytes->base = std::aligned_alloc(64, (n + 63) / 64 * 64);
  if (!bytes->base) throw std::bad_alloc();
  bytes->len = n;
  std::memcpy(bytes->base, data, n);
  std::shared_ptr<SafeTensorsFile> f(new SafeTensorsFile());
  f->bytes_ = std::move(bytes);
  f->parse();
  return f;
}

void SafeTensorsFile::parse() {
  const auto* b = static_cast<const unsigned char*>(bytes_->base);
  const uint64_t size = bytes_->len;
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = n << 8 | b[i];
  CT_CHECK(n <= kMaxHeader, Status::Argument, "safetensors: the header's length ", n, " is larger than the limit of ",
           kMaxHeader, " bytes (HeaderTooLarge)");
  CT_CHECK(8 + n <= size, Status::Argument, "safetensors: the header's length ", n, " runs past the end of the ",
           size, " bytes (InvalidHeaderLength)");
  const char* h = reinterpret_cast<const char*>(b) + 8;

  // Names seen at the top level: JSON objects may repeat a key, the format may not.
  std::set<std::string> seen;
  std::string twice;
  json::parser_callback_t cb = [&](int depth, json::parse_event_t ev, json& parsed) {
    if (ev == json::parse_event_t::key && depth == 1 && twice.empty()) {
      const auto& k = parsed.get_ref<const std::string&>();
      if (!seen.insert(k).second) twice = k;
    }
    return true;
  };
  json header;
  try {
    header = json::parse(h, h + n, cb);
  } catch (const json::exception& e) {
    bad(std::string("the header is not valid JSON: ") + e.what());
  }
  if (!twice.empty()) bad("the header names '" + twice + "' twice");
  if (!header.is_object()) bad("the header is not a JSON object but " + std::string(header.type_name()));

  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string& name = it.key();
    const json& v = it.value();
    if (name == "__metadata__") {
      if (!v.is_object()) bad("__metadata__ is not an object of strings but " + std::string(v.type_name()));
      for (auto m = v.begin(); m != v.end(); ++m) {
        if (!m.value().is_string())
          bad("__metadata__ maps '" + m.key() + "' to " + describe(m.value()) + ", not to a string");
        check_string(m.key(), "a metadata key");
        metadata_.emplace_back(m.key(), m.value().get<std::string>());
      }
      continue;
    }
    check_string(name, "a tensor name");
    std::string what = "tensor '" + name + "'";
    if (!v.is_object()) bad(what + " is described by " + std::string(v.type_name()) + ", not by an object");
    for (const char* field : {"dtype", "shape", "data_offsets"})
      if (!v.contains(field)) bad(what + " has no \"" + field + "\"");
    const json& d = v["dtype"];
    if (!d.is_string()) bad(what + ": \"dtype\" is not a string but " + describe(d));
    StEntry e;
    e.name = name;
    e.dtype = find_dtype(d.get<std::string>());
    if (!e.dtype) bad(what + " has the unknown dtype '" + d.get<std::string>() + "'");
    const json& s = v["shape"];
    if (!s.is_array()) bad(what + ": \"shape\" is not an array but " + describe(s));
    for (const auto& x : s) e.shape.push_back(header_int(x, what + "'s shape entry"));
    const json& o = v["data_offsets"];
    if (!o.is_array() || o.size() != 2) bad(what + ": \"data_offsets\" is not [begin, end] but " + describe(o));
    e.begin = header_int(o[0], what + "'s begin offset");
    e.end = header_int(o[1], what + "'s end offset");
    entries_.push_back(std::move(e));
  }

  // The reference's validation: in offset order, each tensor starts where the previous one
  // ended, holds exactly its bytes, and the last ends at the end of the file.
  std::vector<const StEntry*> by_offset;
  for (const auto& e : entries_) by_offset.push_back(&e);
  std::sort(by_offset.begin(), by_offset.end(), [](const StEntry* x, const StEntry* y) {
    return x->begin != y->begin ? x->begin < y->begin : x->end < y->end;
  });
  int64_t start = 0;
  for (const StEntry* e : by_offset) {
    std::string what = "tensor '" + e->name + "'";
    if (e->begin != start || e->end < e->begin)
      bad(what + " has data_offsets [" + std::to_string(e->begin) + ", " + std::to_string(e->end) +
          "], expected to begin at " + std::to_string(start) +
          " (the tensors must cover the data buffer in order, without gaps or overlaps) (InvalidOffset)");
    int64_t numel = 1, bits;
    for (int64_t x : e->shape)
      if (__builtin_mul_overflow(numel, x, &numel)) bad(what + "'s shape " + shape_str(e->shape) + " overflows (ValidationOverflow)");
    if (__builtin_mul_overflow(numel, static_cast<int64_t>(e->dtype->bits), &bits))
      bad(what + "'s shape " + shape_str(e->shape) + " overflows (ValidationOverflow)");
    if (bits % 8 != 0 || e->end - e->begin != bits / 8)
      bad(what + " has data_offsets [" + std::to_string(e->begin) + ", " + std::to_string(e->end) + "] (" +
          std::to_string(e->end - e->begin) + " bytes) but shape " + shape_str(e->shape) + " of " + e->dtype->name +
          " needs " + (bits % 8 ? std::to_string(bits) + " bits" : std::to_string(bits / 8) + " bytes") +
          " (TensorInvalidInfo)");
    start = e->end;
  }
  if (static_cast<uint64_t>(start) != size - 8 - n)
    bad("the data buffer has " + std::to_string(size - 8 - n) + " bytes but the tensors cover " + std::to_string(start) +
        " (MetadataIncompleteBuffer)");

  data_ = h + n;
  std::sort(entries_.begin(), entries_.end(), [](const StEntry& x, const StEntry& y) { return x.name < y.name; });
  for (const auto& e : entries_) names_.push_back(e.name);
  std::sort(metadata_.begin(), metadata_.end());
}

const StEntry& SafeTensorsFile::entry(const std::string& name) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                             [](const StEntry& e, const std::string& n) { return e.name < n; });
  CT_CHECK(it != entries_.end() && it->name == name, Status::Index, "safetensors: the file has no tensor '", name, "'");
  return *it;
}

DType SafeTensorsFile::dtype(const std::string& name) const {
  const StEntry& e = entry(name);
  CT_CHECK(e.dtype->has_ct, Status::NotSupported, "safetensors: tensor '", name, "' has dtype ", e.dtype->name,
           ", which ctorch does not have");
  return e.dtype->ct;
}

Tensor SafeTensorsFile::get_tensor(const std::string& name, Device dev) const {
  const StEntry& e = entry(name);
  DType dt = dtype(name);
  CT_CHECK(e.shape.size() <= 64, Status::NotSupported, "safetensors: tensor '", name, "' has ", e.shape.size(),
           " dimensions, more than the 64 a tensor may have");
  const char* p = data_ + e.begin;
  int64_t nbytes = e.end - e.begin;
  if (nbytes == 0) return empty_tensor(e.shape, dt, dev);
  if (dev.is_cpu()) {
    bool aligned = reinterpret_cast<uintptr_t>(p) % static_cast<uintptr_t>(itemsize(dt)) == 0;
    // A bool element is the byte 0 or 1 (ops::from_buffer makes any other byte 1).
    bool clean = dt != DType::Bool || std::all_of(p, p + nbytes, [](char c) { return c == 0 || c == 1; });
    if (aligned && clean) {
      auto* keep = new std::shared_ptr<Bytes>(bytes_);
      DataPtr d(const_cast<char*>(p), keep, [](void* c) { delete static_cast<std::shared_ptr<Bytes>*>(c); }, Device{});
      auto storage = std::make_shared<Storage>(std::move(d), nbytes);
      auto t = std::make_shared<TensorImpl>();
      t->storage = storage.get();
      t->storage_owner = std::move(storage);
      t->strides = contiguous_strides(e.shape);
      t->sizes = e.shape;
      t->dtype = dt;
      return t;
    }
  }
  return ops::from_buffer(p, nbytes, e.shape, dt, dev);
}

StPlan plan(const std::vector<std::string>& names, const std::vector<Tensor>& tensors, const StringPairs& metadata) {
  CT_CHECK(names.size() == tensors.size(), Status::Internal, "safetensors: ", names.size(), " names for ",
           tensors.size(), " tensors");
  std::vector<int> rank(tensors.size());
  std::set<std::string> seen;
  for (size_t i = 0; i < tensors.size(); ++i) {
    check_string(names[i], "a tensor name");
    CT_CHECK(names[i] != "__metadata__", Status::Argument,
             "safetensors: a tensor cannot be named \"__metadata__\" (the header's key of the metadata)");
    CT_CHECK(seen.insert(names[i]).second, Status::Argument, "safetensors: the name '", names[i], "' is given twice");
    rank[i] = rank_of(tensors[i]->dtype);
    CT_CHECK(rank[i] >= 0, Status::NotSupported, "safetensors: tensor '", names[i], "' is ",
             dtype_name(tensors[i]->dtype), ", which the safetensors format has no dtype for");
  }
  std::set<std::string> keys;
  for (const auto& kv : metadata) {
    check_string(kv.first, "a metadata key");
    check_string(kv.second, "a metadata value");
    CT_CHECK(keys.insert(kv.first).second, Status::Argument, "safetensors: the metadata key '", kv.first,
             "' is given twice");
  }
  StPlan p;
  for (size_t i = 0; i < tensors.size(); ++i) p.order.push_back(i);
  std::sort(p.order.begin(), p.order.end(), [&](size_t a, size_t b) {
    return rank[a] != rank[b] ? rank[a] > rank[b] : names[a] < names[b];
  });
  ordered_json h = ordered_json::object();
  if (!metadata.empty()) {
    StringPairs sorted = metadata;
    std::sort(sorted.begin(), sorted.end());
    ordered_json m = ordered_json::object();
    for (const auto& kv : sorted) m[kv.first] = kv.second;
    h["__metadata__"] = std::move(m);
  }
  int64_t offset = 0;
  for (size_t i : p.order) {
    const Tensor& t = tensors[i];
    int64_t n = t->numel() * t->itemsize();
    ordered_json e = ordered_json::object();
    e["dtype"] = kDTypes[rank[i]].name;
    ordered_json shape = ordered_json::array();
    for (int64_t s : t->sizes) shape.push_back(s);
    e["shape"] = std::move(shape);
    e["data_offsets"] = ordered_json::array({offset, offset + n});
    h[names[i]] = std::move(e);
    offset += n;
  }
  std::string text = h.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  uint64_t len = text.size();
  CT_CHECK(len <= kMaxHeader, Status::Argument, "safetensors: the header would have ", len,
           " bytes, more than the format's limit of ", kMaxHeader);
  char le[8];
  for (int i = 0; i < 8; ++i) le[i] = static_cast<char>(len >> (8 * i));
  p.header.assign(le, 8);
  p.header += text;
  p.total_bytes = static_cast<int64_t>(p.header.size()) + offset;
  return p;
}

void write(const StPlan& p, const std::vector<Tensor>& tensors, const std::function<void(const void*, size_t)>& sink) {
  sink(p.header.data(), p.header.size());
  std::vector<char> tmp;
  for (size_t i : p.order) {
    const Tensor& t = tensors[i];
    int64_t n = t->numel() * t->itemsize();
    if (n == 0) continue;
    if (t->device().is_cpu() && t->is_contiguous()) {
      sink(t->data(), static_cast<size_t>(n));
    } else {  // strided or on a GPU: its elements in order, through a host copy
      tmp.resize(static_cast<size_t>(n));
      ops::copy_to_buffer(t, tmp.data(), n);
      sink(tmp.data(), tmp.size());
    }
  }
}

void save_file(const std::string& path, const std::vector<std::string>& names, const std::vector<Tensor>& tensors,
               const StringPairs& metadata) {
  StPlan p = plan(names, tensors, metadata);
  // Written to a new file next to path, then renamed over it: a reader never sees half a file,
  // a failure leaves path as it was, and the mappings of the file it replaces (tensors of an
  // open of it) keep their bytes (truncating that file in place would make them fault).
  static std::atomic<uint64_t> counter{0};
  std::string tmp = path + ".tmp" + std::to_string(getpid()) + "_" + std::to_string(counter++);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  CT_CHECK(fd >= 0, Status::Argument, "safetensors: cannot create '", path, "': ", std::strerror(errno));
  std::FILE* f = ::fdopen(fd, "wb");
  if (!f) {
    int e = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    fail(Status::OutOfMemory, "safetensors: cannot write '", path, "': ", std::strerror(e));
  }
  auto cannot = [&](const char* what) {
    int e = errno;
    ::unlink(tmp.c_str());
    fail(Status::Argument, "safetensors: cannot ", what, " '", path, "': ", std::strerror(e));
  };
  try {
    write(p, tensors, [&](const void* d, size_t n) {
      if (std::fwrite(d, 1, n, f) != n) cannot("write");
    });
    if (std::fflush(f) != 0) cannot("write");
  } catch (...) {
    std::fclose(f);
    ::unlink(tmp.c_str());
    throw;
  }
  if (std::fclose(f) != 0) cannot("write");
  if (std::rename(tmp.c_str(), path.c_str()) != 0) cannot("replace");
}

}  // namespace ct::io
