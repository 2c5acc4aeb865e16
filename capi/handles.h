// Note [Handle table]: a handle is not a pointer. Its value is
// (kind tag << 28 | generation) << 32 | (slot + 1), an index into a process-wide table per
// kind. Every call looks the handle up under the table's lock and checks slot range, kind and
// generation, so NULL, released (stale generation) and foreign values (random pointers,
// another kind's handle) are rejected with CT_ERR_INVALID_HANDLE instead of being
// dereferenced. A slot holds one object (a shared_ptr) and a reference count;
// retain/release change the count, and a slot is reused (generation bumped) only after the
// count reaches zero.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "capi/ctorch.h"
#include "capi/abi_convert.h"
#include "impl/comm/communicator.h"
#include "impl/core/error.h"
#include "impl/core/spin_mutex.h"
#include "impl/core/tensor.h"
#include "impl/cuda/stream.h"
#include "impl/graph/graph.h"
#include "impl/io/safetensors.h"
#include "impl/jit/jit.h"
#include "impl/rng/generator.h"

namespace ct::capi {

// The kind tags of the handle values (one per handle type of ctorch.h).
constexpr uint64_t kTensorTag = 0x5, kStreamTag = 0x6, kEventTag = 0x7, kGeneratorTag = 0x8, kGraphTag = 0x9,
                   kGraphedTag = 0xa, kNcclCommTag = 0xb, kJitTag = 0xc, kSafeTensorsTag = 0xd;

template <typename Obj, typename Handle, uint64_t Tag>
class HandleTable {
 public:
  static HandleTable& get() {
    static HandleTable* t = new HandleTable();  // never destroyed: handles may be released at exit
    return *t;
  }

  Handle add(Obj obj) {
    std::lock_guard<SpinMutex> g(mu_);
    uint32_t idx;
    if (!free_.empty()) {
      idx = free_.back();
      free_.pop_back();
    } else {
      CT_CHECK(slots_.size() < 0xfffffff0u, CT_ERR_OUT_OF_MEMORY, "too many live ", kind_name(), " handles");
      slots_.emplace_back();
      idx = static_cast<uint32_t>(slots_.size() - 1);
    }
    Slot& s = slots_[idx];
    s.refs = 1;
    s.obj = std::move(obj);
    ++live_;
    return reinterpret_cast<Handle>(((Tag << 28 | s.gen) << 32) | (static_cast<uint64_t>(idx) + 1));
  }

  Obj lookup(Handle h, const char* arg) {
    std::lock_guard<SpinMutex> g(mu_);
    return find(h, arg).obj;
  }

  void retain(Handle h) {
    std::lock_guard<SpinMutex> g(mu_);
    ++find(h, kind_name()).refs;
  }

  void release(Handle h) {
    Obj drop;  // destroyed after the lock is released
    std::lock_guard<SpinMutex> g(mu_);
    Slot& s = find(h, kind_name());
    if (--s.refs > 0) return;
    drop = std::move(s.obj);
    s.obj = Obj();
    s.gen = (s.gen + 1) & kGenMask;
    if (s.gen == 0) s.gen = 1;
    free_.push_back(static_cast<uint32_t>(&s - slots_.data()));
    --live_;
  }

  int64_t live() {
    std::lock_guard<SpinMutex> g(mu_);
    return live_;
  }

 private:
  static constexpr uint32_t kGenMask = 0x0fffffffu;
  struct Slot {
    uint32_t gen = 1;
    int64_t refs = 0;
    Obj obj;
  };

  static const char* kind_name() {
    switch (Tag) {
      case kTensorTag: return "tensor";
      case kStreamTag: return "stream";
      case kEventTag: return "event";
      case kGeneratorTag: return "generator";
      case kGraphTag: return "CUDA graph";
      case kGraphedTag: return "graphed callable";
      case kNcclCommTag: return "NCCL communicator";
      case kJitTag: return "jitted function";
      case kSafeTensorsTag: return "safetensors file";
      default: return "object";
    }
  }

  Slot& find(Handle h, const char* arg) {
    uint64_t v = reinterpret_cast<uint64_t>(h);
    CT_CHECK(v != 0, CT_ERR_INVALID_HANDLE, "argument '", arg, "' is a NULL ", kind_name(), " handle");
    uint64_t hi = v >> 32, idx = v & 0xffffffffu;
    if ((hi >> 28) == Tag && idx >= 1 && idx <= slots_.size()) {
      Slot& s = slots_[idx - 1];
      if (s.refs > 0 && s.gen == (hi & kGenMask)) return s;
      fail(CT_ERR_INVALID_HANDLE, "argument '", arg, "' is a ", kind_name(),
           " handle that was already released (use after free)");
    }
    fail(CT_ERR_INVALID_HANDLE, "argument '", arg, "' is not a ctorch ", kind_name(),
         " handle (foreign or corrupted value 0x", std::hex, v, ")");
  }

  SpinMutex mu_;  // Note [Spin mutex]
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_;
  int64_t live_ = 0;
};

using TensorTable = HandleTable<Tensor, ct_tensor, kTensorTag>;
using StreamTable = HandleTable<cuda::Stream, ct_stream, kStreamTag>;
using EventTable = HandleTable<cuda::Event, ct_event, kEventTag>;
using GeneratorTable = HandleTable<rng::GeneratorPtr, ct_generator, kGeneratorTag>;
using GraphTable = HandleTable<graph::GraphPtr, ct_cuda_graph, kGraphTag>;
using GraphedTable = HandleTable<graph::GraphedPtr, ct_cuda_graphed, kGraphedTag>;
using NcclCommTable = HandleTable<comm::CommunicatorPtr, ct_nccl_comm, kNcclCommTag>;
using JitTable = HandleTable<std::shared_ptr<const jit::JitFunction>, ct_cuda_jit_fn, kJitTag>;
using SafeTensorsTable = HandleTable<std::shared_ptr<const io::SafeTensorsFile>, ct_safetensors, kSafeTensorsTag>;

// A stream argument that may be NULL: empty then (the callee picks its default).
inline cuda::Stream optional_stream(ct_stream s, const char* arg = "stream") {
  return s ? StreamTable::get().lookup(s, arg) : nullptr;
}

}  // namespace ct::capi
