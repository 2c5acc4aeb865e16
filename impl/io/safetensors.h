// The safetensors format (huggingface/safetensors): reading a file through a private memory
// mapping and writing one byte for byte as safetensors.torch.save_file does.
//
// Note [safetensors]: a file is 8 bytes N (little-endian u64), N bytes of UTF-8 JSON (an object
// mapping each tensor's name to {"dtype", "shape", "data_offsets": [begin, end]}, plus an
// optional "__metadata__" object of strings), then the data buffer: each tensor's elements
// row-major, little-endian, at [begin, end) of the buffer. Reading validates as the reference
// implementation does (header length limit, JSON, offsets contiguous from 0 covering the whole
// buffer, end - begin == numel * itemsize, no name twice). A file is mapped with MAP_PRIVATE,
// so a CPU tensor is the mapping's memory itself (zero-copy) and writing into it changes the
// process's private copy of the page, never the file (copy-on-write). The mapping lives as
// long as the file object or any tensor made from it. Writing orders the tensors as the
// reference writer does (dtype alignment descending, then name) and pads the header with
// spaces to a multiple of 8 bytes, so every tensor of a file we write is aligned.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "impl/core/tensor.h"

namespace ct::io {

// One dtype of the format: its name in the header, its size in bits, and ctorch's dtype
// (has_ct false for those ctorch has no dtype for: F8_E4M3, U16, ...).
struct StDType {
  const char* name;
  int bits;
  bool has_ct;
  DType ct;
};

// A tensor of a file's header.
struct StEntry {
  std::string name;
  const StDType* dtype;
  Shape shape;
  int64_t begin = 0, end = 0;  // in the data buffer
};

using StringPairs = std::vector<std::pair<std::string, std::string>>;

class SafeTensorsFile {
 public:
  struct Bytes;  // the mapped file or the owned copy of a buffer

  // Maps the file read-only-shared-never (MAP_PRIVATE) and validates it. Throws ct::Error.
  static std::shared_ptr<const SafeTensorsFile> open(const std::string& path);
  // Copies nbytes of data (a whole file's bytes) and validates them.
  static std::shared_ptr<const SafeTensorsFile> from_bytes(const void* data, int64_t nbytes);

  // The tensors' names, sorted (safe_open(...).keys()).
  const std::vector<std::string>& names() const { return names_; }
  // The header's entry of a tensor; throws Status::Index when the file has no such tensor.
  const StEntry& entry(const std::string& name) const;
  // The tensor's ctorch dtype; throws Status::NotSupported for a format dtype ctorch lacks.
  DType dtype(const std::string& name) const;
  // "__metadata__", sorted by key (empty when the header has none).
  const StringPairs& metadata() const { return metadata_; }
  // The tensor on dev (resolved): on the CPU the mapped bytes themselves when they are aligned
  // for the dtype (and, for bool, every byte is 0 or 1), otherwise a copy; on CUDA a copy
  // from the mapping straight to the device.
  Tensor get_tensor(const std::string& name, Device dev) const;

 private:
  SafeTensorsFile() = default;
  void parse();

  std::shared_ptr<Bytes> bytes_;
  const char* data_ = nullptr;  // the data buffer
  std::vector<StEntry> entries_;  // sorted by name
  std::vector<std::string> names_;
  StringPairs metadata_;
};

// What writing a dict of tensors takes: the header (padded), the order of the tensors in the
// data buffer, the total size. Checks everything a write checks before any byte is written:
// names unique, not NULL, valid UTF-8, not "__metadata__"; a dtype the format has; metadata
// keys unique (none: no "__metadata__" in the header).
struct StPlan {
  std::string header;           // the 8-byte length and the padded JSON
  std::vector<size_t> order;    // indices into tensors, in data-buffer order
  int64_t total_bytes = 0;      // the whole file
};
StPlan plan(const std::vector<std::string>& names, const std::vector<Tensor>& tensors, const StringPairs& metadata);
// Writes the planned file's bytes to sink (tensors of any device and strides, contiguous).
void write(const StPlan& p, const std::vector<Tensor>& tensors, const std::function<void(const void*, size_t)>& sink);
// plan + write into a new file next to path, renamed over path (atomically replacing a file
// there, whose mappings keep their bytes); on failure path is unchanged.
void save_file(const std::string& path, const std::vector<std::string>& names, const std::vector<Tensor>& tensors,
               const StringPairs& metadata);

}  // namespace ct::io
