#include "impl/cuda/capture.h"

#include <atomic>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

#include "impl/core/error.h"
#include "impl/cuda/runtime.h"
#include "impl/cuda/stream.h"

namespace ct::cuda {

namespace {
struct Capture {
  uint64_t id;
  int device;
  cudaStream_t stream;
  CaptureMode mode;
  std::thread::id thread;
  std::string invalidated_by;
};
std::mutex g_mu;
std::vector<Capture>& captures() {
  static auto* v = new std::vector<Capture>();  // never destroyed: graphs may be reset at exit
  return *v;
}
std::atomic<int> g_count{0};

std::string describe(const Capture& c) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "the capture on stream 0x%llx of cuda:%d, mode '%s'",
                static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(c.stream)), c.device,
                abi::kCaptureModeNames[static_cast<int>(c.mode)]);
  return buf;
}
}  // namespace

uint64_t stream_capture_id(cudaStream_t s) {
  if (!s) return 0;
  cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
  unsigned long long id = 0;
  check(cudaStreamGetCaptureInfo(s, &st, &id), "cudaStreamGetCaptureInfo");
  return st == cudaStreamCaptureStatusActive ? static_cast<uint64_t>(id) : 0;
}

void capture_registered(uint64_t id, int device, cudaStream_t s, CaptureMode mode) {
  std::lock_guard<std::mutex> g(g_mu);
  captures().push_back({id, device, s, mode, std::this_thread::get_id(), {}});
  g_count.fetch_add(1);
}

std::string capture_unregistered(uint64_t id) {
  std::lock_guard<std::mutex> g(g_mu);
  auto& v = captures();
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (it->id != id) continue;
    std::string why = std::move(it->invalidated_by);
    v.erase(it);
    g_count.fetch_sub(1);
    return why;
  }
  return {};
}

std::string capture_invalidated_by(uint64_t id) {
  std::lock_guard<std::mutex> g(g_mu);
  for (const Capture& c : captures())
    if (c.id == id) return c.invalidated_by;
  return {};
}

bool captures_underway() { return g_count.load(std::memory_order_acquire) > 0; }

void check_capture_safe(const char* what, cudaStream_t stream) {
  if (!captures_underway()) return;
  if (!stream) {
    int dev = -1;
    if (cudaGetDevice(&dev) == cudaSuccess) stream = current_stream(dev)->stream;
  }
  uint64_t mine = stream_capture_id(stream);
  std::lock_guard<std::mutex> g(g_mu);
  for (Capture& c : captures()) {
    bool forbids = c.id == mine || c.mode == CaptureMode::Global ||
                   (c.mode == CaptureMode::ThreadLocal && c.thread == std::this_thread::get_id());
    if (!forbids) continue;
    if (c.invalidated_by.empty()) c.invalidated_by = what;
    fail(Status::State, what, " is not allowed while a CUDA graph is being captured (", describe(c),
         "): CUDA forbids it during stream capture. The capture is now invalid: end it (capture_end fails and "
         "discards it) and capture again without this operation");
  }
}

}  // namespace ct::cuda
