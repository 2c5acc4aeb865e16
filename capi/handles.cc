#include <mutex>
#include <vector>

#include "capi/api.h"

namespace ct::capi {

namespace {

constexpr uint64_t kTensorTag = 0x5u;  // 4-bit kind tag in the top of the generation word
constexpr uint32_t kGenMask = 0x0fffffffu;

struct Slot {
  uint32_t gen = 1;
  int64_t refs = 0;
  Tensor tensor;
};

struct Table {
  std::mutex mu;
  std::vector<Slot> slots;
  std::vector<uint32_t> free;
  int64_t live = 0;
};

Table& table() {
  static Table* t = new Table();  // never destroyed: handles may be released during exit
  return *t;
}

uint64_t encode(uint32_t index, uint32_t gen) {
  return ((kTensorTag << 28 | (gen & kGenMask)) << 32) | (static_cast<uint64_t>(index) + 1);
}

// Returns the slot for h or throws. Caller holds the lock.
Slot& find(Table& tb, ct_tensor h, const char* arg) {
  uint64_t v = reinterpret_cast<uint64_t>(h);
  CT_CHECK(v != 0, CT_ERR_INVALID_HANDLE, "argument '", arg, "' is a NULL tensor handle");
  uint64_t hi = v >> 32;
  uint64_t idx = (v & 0xffffffffu);
  bool ok = (hi >> 28) == kTensorTag && idx >= 1 && idx <= tb.slots.size();
  if (ok) {
    Slot& s = tb.slots[idx - 1];
    if (s.refs > 0 && (s.gen & kGenMask) == (hi & kGenMask)) return s;
    fail(CT_ERR_INVALID_HANDLE, "argument '", arg, "' is a tensor handle that was already released (use after free)");
  }
  fail(CT_ERR_INVALID_HANDLE, "argument '", arg, "' is not a ctorch tensor handle (foreign or corrupted value 0x",
       std::hex, v, ")");
}

}  // namespace

ct_tensor new_handle(Tensor t) {
  Table& tb = table();
  std::lock_guard<std::mutex> g(tb.mu);
  uint32_t idx;
  if (!tb.free.empty()) {
    idx = tb.free.back();
    tb.free.pop_back();
  } else {
    CT_CHECK(tb.slots.size() < 0xfffffff0u, CT_ERR_OUT_OF_MEMORY, "too many live tensor handles");
    tb.slots.emplace_back();
    idx = static_cast<uint32_t>(tb.slots.size() - 1);
  }
  Slot& s = tb.slots[idx];
  s.refs = 1;
  s.tensor = std::move(t);
  ++tb.live;
  return reinterpret_cast<ct_tensor>(encode(idx, s.gen));
}

Tensor get(ct_tensor h, const char* arg) {
  Table& tb = table();
  std::lock_guard<std::mutex> g(tb.mu);
  return find(tb, h, arg).tensor;
}

void retain(ct_tensor h) {
  Table& tb = table();
  std::lock_guard<std::mutex> g(tb.mu);
  ++find(tb, h, "tensor").refs;
}

void release(ct_tensor h) {
  Tensor drop;  // destroyed after the lock is released
  Table& tb = table();
  {
    std::lock_guard<std::mutex> g(tb.mu);
    Slot& s = find(tb, h, "tensor");
    if (--s.refs > 0) return;
    drop = std::move(s.tensor);
    s.tensor.reset();
    s.gen = (s.gen + 1) & kGenMask;
    if (s.gen == 0) s.gen = 1;
    tb.free.push_back(static_cast<uint32_t>(&s - tb.slots.data()));
    --tb.live;
  }
}

int64_t live_count() {
  Table& tb = table();
  std::lock_guard<std::mutex> g(tb.mu);
  return tb.live;
}

}  // namespace ct::capi
