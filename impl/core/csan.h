// The CUDA stream sanitizer (torch.cuda._sanitizer, "CSAN"): Note [Stream sanitizer] in csan.cc.
// The bookkeeping only, with streams, events and memory as opaque ids, so that it needs no CUDA
// and is tested as such; the ops, the stream/event functions and the allocator report to it.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "impl/abi/tables.h"
#include "impl/core/tensor.h"

namespace ct::csan {

namespace detail {
extern std::atomic<bool> g_on;
}
// The one check on every op's path while the sanitizer is off: a relaxed load and a branch.
inline bool on() { return __builtin_expect(detail::g_on.load(std::memory_order_relaxed), 0); }

// Off / Error (an op that races fails with Status::DataRace, after its kernel was queued, as
// torch raises CUDASanitizerErrors) / Warn (each report goes to the callback). Switching it on
// starts from nothing known: accesses before are not checked against.
void set_mode(CsanMode m);
CsanMode mode();
// Warn mode's callback (nullptr: print to stderr); it runs on the thread of the racing op,
// outside the sanitizer's lock, once per report.
using Callback = void (*)(const char* report, void* user);
void set_callback(Callback cb, void* user);
// Races found since the process started (both modes).
int64_t report_count();
// The mode CTORCH_CUDA_SANITIZER asks for at start-up: unset Off; "warn" Warn; anything else
// Error (torch: the variable's presence switches it on).
CsanMode mode_from_env(const char* value);

// A stream as the sanitizer knows it: its device and its handle (the legacy default stream is
// handle 0 on every device, so the handle alone would make two devices' default streams one).
using StreamKey = uint64_t;
inline StreamKey stream_key(int device, const void* handle) {
  return (static_cast<uint64_t>(device + 1) << 56) ^ static_cast<uint64_t>(reinterpret_cast<uintptr_t>(handle));
}

// A tensor as a report describes it ("torch.float32[4, 4] on cuda:0 (storage 0x..., offset 0)"),
// kept as values and formatted only when a report is made: the sanitizer records every access
// of every op, and formatting each was most of its cost (bench/NOTES.md, "Issue 17").
struct TensorDesc {
  DType dtype = DType::Float32;
  Shape sizes;
  int32_t device = -1;  // -1: nothing to describe
  int64_t offset = 0;
  const void* storage = nullptr;
};
std::string describe(const TensorDesc& d);  // "" when device is -1

// One tensor argument of a kernel: its storage (the key: accesses to one storage through any
// view are accesses to the same memory), the argument's name and the tensor's description.
struct Arg {
  const void* storage;  // the storage's base address; nullptr entries are skipped
  const char* name;     // "self", "other", "out"...
  TensorDesc what;
};

// A kernel queued on stream that reads `reads` and writes `writes` (torch's
// _handle_kernel_launch: reads checked against the last write, a write against every read since
// the last write, or against the last write; a storage both read and written counts as written).
// Returns the reports, which the caller raises (raise() below) once its op has queued all its
// work and let go of its locks: an op with several steps records each and raises at its end, so
// a race never leaves it half done, and the callback never runs under a lock of ctorch's.
std::vector<std::string> kernel(StreamKey stream, const char* op, const std::vector<Arg>& reads,
                                const std::vector<Arg>& writes);
// Error mode: throws Status::DataRace with the reports; warn mode: each to the callback (or
// stderr). Nothing when there are none.
void raise(const char* op, const std::vector<std::string>& reports);

// Synchronizations (torch's gpu_trace callbacks).
void event_record(const void* event, StreamKey stream);  // the event captures the stream's state
void event_wait(const void* event, StreamKey stream);    // the stream waits for it
void event_synchronize(const void* event);               // the host waits for it
void event_destroyed(const void* event);
void stream_synchronize(StreamKey stream);               // the host waits for the stream
void device_synchronize(int device);                     // the host waits for the device's streams
void stream_destroyed(StreamKey stream);                 // its handle may be reused
// Memory handed out or given back by an allocator: its history starts again.
void memory_allocated(const void* storage);
void memory_freed(const void* storage);

}  // namespace ct::csan
