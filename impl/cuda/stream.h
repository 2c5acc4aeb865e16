// Streams and events, as c10::cuda::CUDAStream and at::cuda::CUDAEvent.
//
// Note [Current stream]: each device has a default stream (CUDA's legacy NULL stream, as
// PyTorch's). The current stream is kept per host thread and per device; it starts as the
// default stream. Every op and copy on a device runs on that device's current stream. User
// streams are created non-blocking (they do not synchronize with the NULL stream), as
// PyTorch's stream pool does; with them the caller owns synchronization.
#pragma once
#include <cuda_runtime_api.h>

#include <memory>

namespace ct::cuda {

struct StreamImpl {
  int device = 0;
  cudaStream_t stream = nullptr;  // nullptr: the legacy default stream
  int priority = 0;
  bool owned = false;             // created by ctorch (destroyed with the last reference)
  bool external = false;          // a caller's cudaStream_t
  ~StreamImpl();
};
using Stream = std::shared_ptr<StreamImpl>;

// Called when a stream ctorch created is destroyed (the allocator drops its per-stream figures).
void set_stream_destroyed_hook(void (*hook)(int device, cudaStream_t s));

Stream default_stream(int device);
// The calling thread's current stream of device (< 0: the current device); the reference stays
// valid until the thread changes that stream.
const Stream& current_stream(int device);
void set_current_stream(const Stream& s);
Stream create_stream(int device, int priority);
Stream external_stream(cudaStream_t s, int device);
void priority_range(int* least, int* greatest);
bool stream_query(const Stream& s);
void stream_synchronize(const Stream& s);
void stream_wait_stream(const Stream& s, const Stream& other);

// Note [Stream guard]: torch.cuda.StreamContext (c10::cuda::CUDAStreamGuard) as two calls, so
// that a binding can hold it across its own scope: enter makes s's device the current device
// and s the current stream of that device, and returns what exit restores: the stream that
// was current on s's device and the device that was current (in that order: the stream first,
// then the device). Nothing changes when enter throws.
struct SavedStream {
  Stream stream;
  int device = -1;  // negative: exit leaves the current device alone
};
SavedStream stream_guard_enter(const Stream& s);
void stream_guard_exit(const SavedStream& saved);

struct EventImpl {
  bool enable_timing = false;
  bool blocking = false;
  int device = -1;            // set by the first record
  cudaEvent_t event = nullptr;  // created lazily on the first record
  ~EventImpl();
};
using Event = std::shared_ptr<EventImpl>;

Event create_event(bool enable_timing, bool blocking);
void event_record(const Event& e, const Stream& s);
void event_wait(const Event& e, const Stream& s);  // s waits for e (no host sync)
bool event_query(const Event& e);                  // true when the recorded work is done
void event_synchronize(const Event& e);
double event_elapsed_ms(const Event& start, const Event& end);

}  // namespace ct::cuda
