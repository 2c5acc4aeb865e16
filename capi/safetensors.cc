// Section 27 of ctorch.h: saving and loading tensors in the safetensors format.
#include <string>
#include <vector>

#include "capi/api.h"
#include "capi/handles.h"
#include "impl/io/safetensors.h"

using namespace ct;
using namespace ct::capi;

namespace {

std::shared_ptr<const io::SafeTensorsFile> file_arg(ct_safetensors f) {
  return SafeTensorsTable::get().lookup(f, "file");
}

// n NUL-terminated strings of the array p (NULL allowed when n is 0); none NULL.
std::vector<std::string> strings_arg(const char* const* p, int32_t n, const char* name) {
  CT_CHECK(n >= 0, CT_ERR_ARGUMENT, "argument 'n' for '", name, "' must be >= 0, got ", n);
  CT_CHECK(n == 0 || p != nullptr, CT_ERR_NULL_POINTER, "argument '", name, "' is NULL but has ", n, " entries");
  std::vector<std::string> out;
  for (int32_t i = 0; i < n; ++i) {
    CT_CHECK(p[i] != nullptr, CT_ERR_NULL_POINTER, "argument '", name, "': entry ", i, " is NULL");
    out.emplace_back(p[i]);
  }
  return out;
}

// The arguments of the two save functions, checked.
struct SaveArgs {
  std::vector<std::string> names;
  std::vector<Tensor> tensors;
  io::StringPairs meta;
  SaveArgs(const char* const* names_, const ct_tensor* tensors_, int32_t n, const char* const* keys,
           const char* const* values, int32_t n_meta)
      : names(strings_arg(names_, n, "names")), tensors(tensors_arg(tensors_, n, "tensors")) {
    auto k = strings_arg(keys, n_meta, "meta_keys");
    auto v = strings_arg(values, n_meta, "meta_values");
    for (size_t i = 0; i < k.size(); ++i) meta.emplace_back(std::move(k[i]), std::move(v[i]));
  }
};

// An index into a list of count entries.
size_t index_arg(int64_t i, size_t count, const char* what) {
  CT_CHECK(i >= 0 && static_cast<uint64_t>(i) < count, CT_ERR_INDEX, "safetensors: ", what, " index ", i,
           " is out of range for ", count, " entries");
  return static_cast<size_t>(i);
}

// The number of the file's tensors (meta false) or metadata entries (meta true) into *out.
ct_status put_count(ct_safetensors f, int64_t* out, bool meta) {
  CT_API_BEGIN
  auto file = file_arg(f);
  need(out, "out");
  *out = static_cast<int64_t>(meta ? file->metadata().size() : file->names().size());
  CT_API_END
}

// The i-th tensor name (meta false) or metadata key (meta true) into buf.
ct_status put_key(ct_safetensors f, int64_t i, void* buf, int64_t cap, int64_t* needed, bool meta) {
  CT_API_BEGIN
  auto file = file_arg(f);
  if (meta) write_string(file->metadata()[index_arg(i, file->metadata().size(), "metadata")].first, buf, cap, needed);
  else write_string(file->names()[index_arg(i, file->names().size(), "tensor")], buf, cap, needed);
  CT_API_END
}

ct_status store(std::shared_ptr<const io::SafeTensorsFile> f, ct_safetensors* out) {
  *out = SafeTensorsTable::get().add(std::move(f));
  return CT_OK;
}

}  // namespace

extern "C" {

CT_API ct_status ct_safetensors_save_file(const char* file_path, const char* const* names, const ct_tensor* tensors,
                                          int32_t n, const char* const* meta_keys,
                                          const char* const* meta_values, int32_t n_meta) {
  CT_API_BEGIN
  need(file_path, "file_path");
  SaveArgs a(names, tensors, n, meta_keys, meta_values, n_meta);
  io::save_file(file_path, a.names, a.tensors, a.meta);
  CT_API_END
}

CT_API ct_status ct_safetensors_save_buffer(const char* const* names, const ct_tensor* tensors, int32_t n,
                                            const char* const* meta_keys, const char* const* meta_values,
                                            int32_t n_meta, void* buf, int64_t cap, int64_t* needed) {
  CT_API_BEGIN
  need(needed, "needed");
  SaveArgs a(names, tensors, n, meta_keys, meta_values, n_meta);
  io::StPlan p = io::plan(a.names, a.tensors, a.meta);
  *needed = p.total_bytes;
  CT_CHECK(cap >= p.total_bytes, CT_ERR_BUFFER_SIZE, "safetensors: buffer of ", cap, " bytes is too small for the ",
           p.total_bytes, " bytes of the file (call with cap 0 to get the size)");
  need(buf, "buf");
  char* dst = static_cast<char*>(buf);
  io::write(p, a.tensors, [&](const void* d, size_t k) {
    std::memcpy(dst, d, k);
    dst += k;
  });
  CT_API_END
}

CT_API ct_status ct_safetensors_open(const char* file_path, ct_safetensors* out) {
  CT_API_BEGIN
  need(file_path, "file_path");
  need(out, "out");
  return store(io::SafeTensorsFile::open(file_path), out);
  CT_API_END
}

CT_API ct_status ct_safetensors_open_buffer(const void* data, int64_t nbytes, ct_safetensors* out) {
  CT_API_BEGIN
  need(out, "out");
  return store(io::SafeTensorsFile::from_bytes(data, nbytes), out);
  CT_API_END
}

CT_API ct_status ct_safetensors_retain(ct_safetensors f) {
  CT_API_BEGIN
  SafeTensorsTable::get().retain(f);
  CT_API_END
}

CT_API ct_status ct_safetensors_release(ct_safetensors f) {
  CT_API_BEGIN
  SafeTensorsTable::get().release(f);
  CT_API_END
}

CT_API ct_status ct_live_safetensors_count(int64_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = SafeTensorsTable::get().live();
  CT_API_END
}

CT_API ct_status ct_safetensors_count(ct_safetensors f, int64_t* out) {
  CT_TRACE_CALL();
  return put_count(f, out, false);
}

CT_API ct_status ct_safetensors_name(ct_safetensors f, int64_t i, void* buf, int64_t cap, int64_t* needed) {
  CT_TRACE_CALL();
  return put_key(f, i, buf, cap, needed, false);
}

CT_API ct_status ct_safetensors_tensor_dtype(ct_safetensors f, const char* tensor_name, ct_dtype* out) {
  CT_API_BEGIN
  auto file = file_arg(f);
  need(tensor_name, "tensor_name");
  need(out, "out");
  *out = static_cast<ct_dtype>(file->dtype(tensor_name));
  CT_API_END
}

CT_API ct_status ct_safetensors_tensor_shape(ct_safetensors f, const char* tensor_name, int64_t* dst, int32_t cap,
                                             int32_t* ndim) {
  CT_API_BEGIN
  auto file = file_arg(f);
  need(tensor_name, "tensor_name");
  need(ndim, "ndim");
  put_dims(file->entry(tensor_name).shape, dst, cap, ndim, "the tensor");
  CT_API_END
}

CT_API ct_status ct_safetensors_get_tensor(ct_safetensors f, const char* tensor_name, ct_device_type dev_type,
                                           int32_t dev_index, ct_tensor* out) {
  CT_API_BEGIN
  auto file = file_arg(f);
  need(tensor_name, "tensor_name");
  produce(out, [&] { return file->get_tensor(tensor_name, device_arg(dev_type, dev_index)); });
  CT_API_END
}

CT_API ct_status ct_safetensors_metadata_count(ct_safetensors f, int64_t* out) {
  CT_TRACE_CALL();
  return put_count(f, out, true);
}

CT_API ct_status ct_safetensors_metadata_key(ct_safetensors f, int64_t i, void* buf, int64_t cap, int64_t* needed) {
  CT_TRACE_CALL();
  return put_key(f, i, buf, cap, needed, true);
}

CT_API ct_status ct_safetensors_metadata_get(ct_safetensors f, const char* meta_key, void* buf, int64_t cap,
                                             int64_t* needed) {
  CT_API_BEGIN
  auto file = file_arg(f);
  need(meta_key, "meta_key");
  for (const auto& kv : file->metadata())
    if (kv.first == meta_key) {
      write_string(kv.second, buf, cap, needed);
      return CT_OK;
    }
  fail(CT_ERR_INDEX, "safetensors: the metadata has no key '", meta_key, "'");
  CT_API_END
}

}  // extern "C"
