// Note [Stream sanitizer]: torch.cuda._sanitizer's algorithm, fed by ctorch's own operations
// instead of a dispatch mode. Every stream carries a vector clock (what it is known to have
// waited for: stream -> the sequence number of that stream's last kernel it is ordered after);
// every kernel gets the next sequence number and sets its stream's own entry; an event record
// copies the stream's clock into the event, an event wait merges it into the waiting stream
// (pointwise max), a host wait (event or stream synchronize, a blocking copy) merges it into
// every stream and into the host's clock, and a device synchronize orders every stream after
// everything queued so far. A new stream starts from the host's clock. Per storage it keeps the
// last write and the reads since; a kernel's read is checked against the last write, a write
// against every read since (or the last write when there is none), and an access is
// unsynchronized when the earlier one's sequence number is not in the accessing stream's clock.
// Read after read never races. Memory handed out again by the allocator starts a new history
// (so, as torch's, the sanitizer does not judge reuse: the caching allocator's stream rules and
// record_stream do). Keys are storages, not data pointers: two views of one storage are one
// memory (torch keys by data_ptr, so views at other offsets escape it); two disjoint slices of
// one storage written on two streams are therefore reported (docs/differences.md).
// A stream is its device and handle (StreamKey: the legacy default stream is handle 0 on every
// device), forgotten when it is destroyed; a device synchronize orders that device's streams
// only. Of the reads since the last write only the newest of each stream is kept: an older read
// on the same stream is ordered before it, so a write that is after the newest is after all.
// Differences from torch: no stack traces (the op's name, the argument names and the tensors
// instead); ops launched into a graph capture, and the event records and waits of a capture,
// are not checked (they run at replay). An op with several steps raises its reports at its end.
#include "impl/core/csan.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "impl/core/error.h"

namespace ct::csan {

namespace detail {
std::atomic<bool> g_on{false};
}

namespace {

using Clock = std::unordered_map<StreamKey, int64_t>;  // stream -> sequence number

int device_of(StreamKey k) { return static_cast<int>(k >> 56) - 1; }
uintptr_t handle_of(StreamKey k) { return static_cast<uintptr_t>(k & ((uint64_t{1} << 56) - 1)); }

struct Access {
  bool write = false;
  int64_t seq = 0;
  StreamKey stream = 0;
  std::string op;
  std::string names;  // "self, other"
  TensorDesc what;
};

struct History {
  bool has_write = false;
  Access write;
  std::vector<Access> reads;  // since the last write: the newest of each stream
};

struct State {
  std::mutex mu;
  CsanMode mode = CsanMode::Off;
  Callback cb = nullptr;
  void* user = nullptr;
  int64_t seq = 0;
  int64_t reports = 0;
  std::unordered_map<StreamKey, Clock> streams;     // current clock of each stream
  std::unordered_map<const void*, Clock> events;    // clock captured by each event's last record
  Clock host;                                       // what the host has waited for
  std::unordered_map<const void*, History> memory;  // per storage

  Clock& stream(StreamKey s) {
    auto it = streams.find(s);
    if (it != streams.end()) return it->second;
    host.emplace(s, 0);
    return streams.emplace(s, host).first->second;  // a new stream inherits the host's clock
  }
  void reset() {
    seq = 0;
    streams.clear();
    events.clear();
    host.clear();
    memory.clear();
  }
};

State& state() {
  static State* s = new State();  // never destroyed: ops may run during static destruction
  return *s;
}

void merge(Clock& into, const Clock& from) {
  for (const auto& kv : from) {
    auto r = into.emplace(kv.first, kv.second);
    if (!r.second && r.first->second < kv.second) r.first->second = kv.second;
  }
}

bool ordered_after(State& st, StreamKey stream, const Access& prev) {
  const Clock& c = st.stream(stream);
  auto it = c.find(prev.stream);
  return it != c.end() && prev.seq <= it->second;
}

std::string describe(const Access& a) {
  std::string s = str_cat("Access by stream ", handle_of(a.stream), " on cuda:", device_of(a.stream),
                          " during kernel:\n", a.op, "\n",
                          a.write ? "writing to" : "reading from", " argument(s) ", a.names, "\n");
  std::string what = csan::describe(a.what);
  if (!what.empty()) s += str_cat("Tensor: ", what, "\n");
  return s;
}

std::string report(const void* storage, const Access& cur, const Access& prev) {
  std::string prev_text = describe(prev);
  prev_text.replace(0, std::strlen("Access"), "Previous access");
  return str_cat("============================\nCSAN detected a possible data race on tensor with data pointer ",
                 reinterpret_cast<uintptr_t>(storage), "\n", describe(cur), prev_text);
}

void check(State& st, const void* storage, const Access& cur, const Access* prev, std::vector<std::string>* out) {
  if (prev && !ordered_after(st, cur.stream, *prev)) out->push_back(report(storage, cur, *prev));
}

// The storages of a kernel, each once, with every argument name that reaches it.
struct Touched {
  const void* storage;
  bool write;
  std::string names;
  TensorDesc what;
};

void add(std::vector<Touched>& ts, const Arg& a, bool write) {
  if (!a.storage) return;
  for (Touched& t : ts) {
    if (t.storage != a.storage) continue;
    t.write = t.write || write;
    t.names += str_cat(", ", a.name);
    return;
  }
  ts.push_back(Touched{a.storage, write, a.name, a.what});
}

}  // namespace

CsanMode mode_from_env(const char* v) {
  if (!v) return CsanMode::Off;
  return std::strcmp(v, "warn") == 0 ? CsanMode::Warn : CsanMode::Error;
}

namespace {
// CTORCH_CUDA_SANITIZER, read once when the library is loaded.
const bool g_env_read = [] {
  CsanMode m = mode_from_env(std::getenv("CTORCH_CUDA_SANITIZER"));
  if (m != CsanMode::Off) set_mode(m);
  return true;
}();
}  // namespace

void set_mode(CsanMode m) {
  State& st = state();
  std::lock_guard<std::mutex> l(st.mu);
  if (st.mode == CsanMode::Off && m != CsanMode::Off) st.reset();  // nothing known from before
  st.mode = m;
  if (m == CsanMode::Off) st.reset();
  detail::g_on.store(m != CsanMode::Off);
}

CsanMode mode() {
  State& st = state();
  std::lock_guard<std::mutex> l(st.mu);
  return st.mode;
}

void set_callback(Callback cb, void* user) {
  State& st = state();
  std::lock_guard<std::mutex> l(st.mu);
  st.cb = cb;
  st.user = user;
}

int64_t report_count() {
  State& st = state();
  std::lock_guard<std::mutex> l(st.mu);
  return st.reports;
}

std::vector<std::string> kernel(StreamKey stream, const char* op, const std::vector<Arg>& reads,
                                const std::vector<Arg>& writes) {
  State& st = state();
  std::vector<std::string> found;
  {
    std::vector<Touched> ts;
    for (const Arg& a : reads) add(ts, a, false);
    for (const Arg& a : writes) add(ts, a, true);
    std::lock_guard<std::mutex> l(st.mu);
    if (st.mode == CsanMode::Off) return found;
    int64_t seq = ++st.seq;
    st.stream(stream)[stream] = seq;
    for (Touched& t : ts) {
      Access a{t.write, seq, stream, op, std::move(t.names), std::move(t.what)};
      History& h = st.memory[t.storage];
      if (!a.write) {
        check(st, t.storage, a, h.has_write ? &h.write : nullptr, &found);
        auto same = std::find_if(h.reads.begin(), h.reads.end(), [&](const Access& r) { return r.stream == stream; });
        if (same != h.reads.end()) *same = std::move(a);  // Note [Stream sanitizer]: the newest read of a stream
        else h.reads.push_back(std::move(a));
      } else {
        if (!h.reads.empty()) {
          for (const Access& r : h.reads) check(st, t.storage, a, &r, &found);
        } else {
          check(st, t.storage, a, h.has_write ? &h.write : nullptr, &found);
        }
        h.write = std::move(a);
        h.has_write = true;
        h.reads.clear();
      }
    }
    st.reports += static_cast<int64_t>(found.size());
  }
  return found;
}

void raise(const char* op, const std::vector<std::string>& reports) {
  if (reports.empty()) return;
  State& st = state();
  CsanMode m;
  Callback cb;
  void* user;
  {
    std::lock_guard<std::mutex> l(st.mu);
    m = st.mode;
    cb = st.cb;
    user = st.user;
  }
  if (m == CsanMode::Off) return;
  if (m == CsanMode::Warn) {
    for (const std::string& r : reports) {
      if (cb) cb(r.c_str(), user);
      else std::fprintf(stderr, "%s", r.c_str());
    }
    return;
  }
  std::string msg;
  for (const std::string& r : reports) msg += r;
  fail(Status::DataRace, msg, "The CUDA stream sanitizer detected ", reports.size(), " error",
       reports.size() == 1 ? "" : "s", " (", op, "; CTORCH_CUDA_SANITIZER / ct_cuda_sanitizer_set_mode)");
}

namespace {
template <typename F>
void locked(F f) {
  State& st = state();
  std::lock_guard<std::mutex> l(st.mu);
  if (st.mode != CsanMode::Off) f(st);
}
}  // namespace

void event_record(const void* event, StreamKey stream) {
  locked([&](State& st) { st.events[event] = st.stream(stream); });
}

void event_wait(const void* event, StreamKey stream) {
  locked([&](State& st) {
    Clock& c = st.stream(stream);
    auto it = st.events.find(event);
    if (it != st.events.end()) merge(c, it->second);
  });
}

void event_synchronize(const void* event) {
  locked([&](State& st) {
    auto it = st.events.find(event);
    if (it == st.events.end()) return;
    for (auto& kv : st.streams) merge(kv.second, it->second);
    merge(st.host, it->second);
  });
}

void event_destroyed(const void* event) {
  locked([&](State& st) { st.events.erase(event); });
}

void stream_synchronize(StreamKey stream) {
  locked([&](State& st) {
    Clock c = st.stream(stream);
    for (auto& kv : st.streams) merge(kv.second, c);
    merge(st.host, c);
  });
}

void device_synchronize(int device) {
  locked([&](State& st) {
    Clock done;  // every stream of the device, up to its last kernel
    for (auto& kv : st.streams) {
      if (device_of(kv.first) != device) continue;
      auto own = kv.second.find(kv.first);
      if (own != kv.second.end()) done[kv.first] = own->second;
    }
    merge(st.host, done);
    for (auto& kv : st.streams) merge(kv.second, done);
  });
}

// Only its own clock goes: what other streams and the host know of its work stays true (a
// stream that waited for it is still after its kernels), and a new stream with the same handle
// starts from the host's clock, its kernels numbered after everything known.
void stream_destroyed(StreamKey stream) {
  locked([&](State& st) { st.streams.erase(stream); });
}

void memory_allocated(const void* storage) {
  locked([&](State& st) { st.memory.erase(storage); });
}

void memory_freed(const void* storage) {
  locked([&](State& st) { st.memory.erase(storage); });
}

std::string describe(const TensorDesc& d) {
  if (d.device < 0) return std::string();
  return str_cat(dtype_name(d.dtype), shape_str(d.sizes), " on cuda:", d.device, " (storage ", d.storage, ", offset ",
                 d.offset, ")");
}

}  // namespace ct::csan
