#include "impl/cuda/stream.h"

#include <atomic>
#include <mutex>
#include <vector>

#include "impl/core/csan.h"
#include "impl/core/error.h"
#include "impl/cuda/capture.h"
#include "impl/cuda/runtime.h"

namespace ct::cuda {

namespace {

constexpr int kMaxDevices = 64;

struct PerThread {
  Stream current[kMaxDevices];
};

// Note [Current-stream lookup]: every CUDA allocation reads the thread's current stream. A
// function-local thread_local object with a constructor and destructor costs a guard check
// and more than one TLS lookup per access in a shared library; a plain pointer costs one.
// (The initial-exec TLS model would make it a single load, but it marks the library
// STATIC_TLS, and the static cudart's 8 KiB TLS block would then not fit when the JVM or Mono
// load libctorch.so with dlopen.) The object is owned by a thread_local freed at thread exit.
thread_local PerThread* t_per_thread = nullptr;

struct PerThreadOwner {
  PerThread* p = nullptr;
  ~PerThreadOwner() {
    t_per_thread = nullptr;
    delete p;
  }
};

PerThread& per_thread_slow() {
  thread_local PerThreadOwner owner;
  if (!owner.p) owner.p = new PerThread();
  t_per_thread = owner.p;
  return *owner.p;
}

inline PerThread& per_thread() {
  PerThread* p = t_per_thread;
  return p ? *p : per_thread_slow();
}

int resolve(int device) {
  device = resolve_device(device);
  CT_CHECK(device < kMaxDevices, Status::NotSupported, "ctorch supports at most ", kMaxDevices, " CUDA devices");
  return device;
}

std::atomic<void (*)(int, cudaStream_t)> g_destroyed_hook{nullptr};

// The answer of a cudaStreamQuery / cudaEventQuery: true when the work is done, false while
// it is not; any other error throws.
bool done(cudaError_t e, const char* what) {
  if (e == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return false;
  }
  check(e, what);
  return true;
}

}  // namespace

void set_stream_destroyed_hook(void (*hook)(int device, cudaStream_t s)) { g_destroyed_hook.store(hook); }

StreamImpl::~StreamImpl() {
  if (owned && stream) {
    if (csan::on()) csan::stream_destroyed(csan::stream_key(device, stream));
    if (auto hook = g_destroyed_hook.load()) hook(device, stream);
    // Destroyed on its own device, and the thread's current device left as it was: the last
    // reference may be dropped anywhere (a binding's finalizer, the allocator's graveyard).
    int prev = -1;
    (void)cudaGetDevice(&prev);
    if (prev != device) (void)cudaSetDevice(device);
    (void)cudaStreamDestroy(stream);
    if (prev >= 0 && prev != device) (void)cudaSetDevice(prev);
  }
}

EventImpl::~EventImpl() {
  if (!event) return;
  if (csan::on()) csan::event_destroyed(event);
  (void)cudaEventDestroy(event);
}

Stream default_stream(int device) {
  device = resolve(device);
  static std::vector<Stream>* const defaults = [] {  // Note [Once on hot paths]
    auto* v = new std::vector<Stream>(device_count());
    for (int d = 0; d < device_count(); ++d) {
      auto s = std::make_shared<StreamImpl>();
      s->device = d;
      (*v)[d] = s;
    }
    return v;
  }();
  return (*defaults)[device];
}

const Stream& current_stream(int device) {
  device = resolve(device);
  Stream& s = per_thread().current[device];
  if (!s) s = default_stream(device);
  return s;
}

void set_current_stream(const Stream& s) { per_thread().current[resolve(s->device)] = s; }

Stream create_stream(int device, int priority) {
  device = resolve(device);
  int least = 0, greatest = 0;
  priority_range(&least, &greatest);
  // CUDA clamps out-of-range priorities; PyTorch does too, and so do we.
  int p = priority > least ? least : (priority < greatest ? greatest : priority);
  DeviceGuard g(device);
  auto s = std::make_shared<StreamImpl>();
  s->device = device;
  s->priority = p;
  check(cudaStreamCreateWithPriority(&s->stream, cudaStreamNonBlocking, p), "cudaStreamCreateWithPriority");
  s->owned = true;
  return s;
}

Stream external_stream(cudaStream_t st, int device) {
  device = resolve(device);
  auto s = std::make_shared<StreamImpl>();
  s->device = device;
  s->stream = st;
  s->external = true;
  if (st) {
    int p = 0;
    DeviceGuard g(device);
    check(cudaStreamGetPriority(st, &p), "cudaStreamGetPriority (external stream)");
    s->priority = p;
  }
  return s;
}

void priority_range(int* least, int* greatest) {
  check_available();
  check(cudaDeviceGetStreamPriorityRange(least, greatest), "cudaDeviceGetStreamPriorityRange");
}

bool stream_query(const Stream& s) {
  check_capture_safe("Stream.query", s->stream);
  DeviceGuard g(s->device);
  return done(cudaStreamQuery(s->stream), "cudaStreamQuery");
}

void stream_synchronize(const Stream& s) {
  check_capture_safe("Stream.synchronize", s->stream);
  on_host_sync("Stream.synchronize");
  DeviceGuard g(s->device);
  check(cudaStreamSynchronize(s->stream), "cudaStreamSynchronize");
  if (csan::on()) csan::stream_synchronize(csan::stream_key(s->device, s->stream));
}

void stream_wait_stream(const Stream& s, const Stream& other) {
  Event e = create_event(false, false);
  event_record(e, other);
  event_wait(e, s);
}

Event create_event(bool enable_timing, bool blocking) {
  auto e = std::make_shared<EventImpl>();
  e->enable_timing = enable_timing;
  e->blocking = blocking;
  return e;
}

void event_record(const Event& e, const Stream& s) {
  DeviceGuard g(s->device);
  if (!e->event) {
    unsigned flags = (e->enable_timing ? cudaEventDefault : cudaEventDisableTiming) |
                     (e->blocking ? cudaEventBlockingSync : 0u);
    check(cudaEventCreateWithFlags(&e->event, flags), "cudaEventCreateWithFlags");
    e->device = s->device;
  }
  CT_CHECK(e->device == s->device, Status::Device, "Event device cuda:", e->device,
           " does not match recording stream's device cuda:", s->device, ".");
  check(cudaEventRecord(e->event, s->stream), "cudaEventRecord");
  // (in a capture the record is a graph edge, not an order of work running now)
  if (csan::on() && capture_of(s->stream) == 0) csan::event_record(e->event, csan::stream_key(s->device, s->stream));
}

void event_wait(const Event& e, const Stream& s) {
  if (!e->event) return;  // never recorded: nothing to wait for (as PyTorch)
  DeviceGuard g(s->device);
  check(cudaStreamWaitEvent(s->stream, e->event, 0), "cudaStreamWaitEvent");
  if (csan::on() && capture_of(s->stream) == 0) csan::event_wait(e->event, csan::stream_key(s->device, s->stream));
}

bool event_query(const Event& e) {
  if (!e->event) return true;
  check_capture_safe("Event.query");
  DeviceGuard g(e->device);
  return done(cudaEventQuery(e->event), "cudaEventQuery");
}

void event_synchronize(const Event& e) {
  if (!e->event) return;
  check_capture_safe("Event.synchronize");
  DeviceGuard g(e->device);
  check(cudaEventSynchronize(e->event), "cudaEventSynchronize");
  if (csan::on()) csan::event_synchronize(e->event);
}

double event_elapsed_ms(const Event& start, const Event& end) {
  CT_CHECK(start->enable_timing && end->enable_timing, Status::State,
           "Both events must be created with argument 'enable_timing=True'.");
  CT_CHECK(start->event && end->event, Status::State, "Both events must be recorded before calculating elapsed time.");
  CT_CHECK(start->device == end->device, Status::Device, "Both events must be recorded on the same device");
  check_capture_safe("Event.elapsed_time");
  DeviceGuard g(start->device);
  float ms = 0;
  cudaError_t err = cudaEventElapsedTime(&ms, start->event, end->event);
  if (err == cudaErrorNotReady) {
    (void)cudaGetLastError();
    fail(Status::State, "elapsed_time: the events have not completed yet (synchronize the end event first)");
  }
  check(err, "cudaEventElapsedTime");
  return ms;
}

SavedStream stream_guard_enter(const Stream& s) {
  SavedStream saved{current_stream(s->device), current_device()};
  if (s->device != saved.device) set_device(s->device);
  try {
    set_current_stream(s);
  } catch (...) {
    set_device(saved.device);
    throw;
  }
  return saved;
}

void stream_guard_exit(const SavedStream& saved) {
  set_current_stream(saved.stream);
  if (saved.device >= 0) set_device(saved.device);
}

}  // namespace ct::cuda
