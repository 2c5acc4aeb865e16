// DLPack export and import, and tensors over memory ctorch did not allocate (from_blob).
//
// Note [Foreign memory]: a tensor over foreign memory is an ordinary tensor whose Storage's
// DataPtr (Note [DataPtr]) carries the foreign owner's deleter instead of an allocator's: the
// deleter runs exactly once, on whichever thread drops the last tensor (views included) using
// the storage. Because the allocators recognize their memory by the DataPtr's deleter
// (alloc::record_stream, alloc::is_pinned), foreign memory is never given to ctorch's caching
// allocator and record_stream on it does nothing (as torch's from_blob storages). Exported
// tensors (to_dlpack) hold a reference to their storage until the consumer calls the
// DLManagedTensor's deleter; the storage's memory goes back to its allocator only then.
// Layouts follow torch's DLConvertor: data points at the first element, byte_offset 0,
// strides in elements with the stride of every dim of size < 2 written as 1 (gh-83069).
#pragma once
#include <cstdint>
#include <optional>

#include "impl/core/tensor.h"

struct DLManagedTensor;
struct DLManagedTensorVersioned;

namespace ct::interop {

// torch.utils.dlpack.to_dlpack / Tensor.__dlpack__: a new struct owned by the caller until
// its deleter runs (the consumer calls it once). No copy.
DLManagedTensor* to_dlpack(const Tensor& t);
DLManagedTensorVersioned* to_dlpack_versioned(const Tensor& t);

// Tensor.__dlpack__(stream=...)'s handoff (Python array API): makes the consumer's stream wait
// for the work queued so far on the current stream of t's CUDA device (an event, no host
// sync). stream: -1 nothing; 1 the default stream; 2 refused (per-thread default stream,
// as torch); 0 refused; any other value a cudaStream_t of t's device. A CPU tensor takes -1
// only ("stream should be None on cpu.").
void dlpack_stream_handoff(const Tensor& t, int64_t stream);

// Tensor.__dlpack_device__: (DLDeviceType, device id).
void dlpack_device(const Tensor& t, int32_t* type, int32_t* id);

// torch.from_dlpack on a capsule: a tensor viewing the struct's memory, which owns the struct
// from then on (its deleter runs when the storage dies). Throws, leaving the struct untouched
// (the caller still owns it), for a NULL pointer, unsupported dtype, lanes or device, an
// invalid shape or, for the versioned form, a major version other than 1.
Tensor from_dlpack(DLManagedTensor* m);
Tensor from_dlpack_versioned(DLManagedTensorVersioned* m);

// Calls the struct's deleter (may be NULL: nothing) for a capsule no one consumed.
void delete_capsule(void* capsule, bool versioned);

// torch.from_blob: a tensor over [data, ...) of device, strides in elements (nullopt: C
// contiguous). deleter(data, ctx) runs exactly once when the storage dies; a null deleter
// leaves the memory to its owner. On CUDA the pointer must be memory of that device
// (cudaPointerGetAttributes). Throws without calling the deleter.
using BlobDeleter = void (*)(void* data, void* ctx);
Tensor from_blob(void* data, const Shape& sizes, const std::optional<Shape>& strides, DType dtype, Device device,
                 BlobDeleter deleter, void* ctx);

}  // namespace ct::interop
