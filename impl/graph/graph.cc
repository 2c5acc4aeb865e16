#include "impl/graph/graph.h"

#include <atomic>
#include <cstdio>

#include "impl/alloc/allocator.h"
#include "impl/alloc/cuda_memory.h"
#include "impl/core/error.h"
#include "impl/cuda/capture.h"
#include "impl/cuda/runtime.h"
#include "impl/ops/ops.h"

namespace ct::graph {

namespace {
std::atomic<int64_t> g_next_pool{1};

// The caching allocator of device, or nullptr with the cudaMallocAsync backend (whose
// allocations during a capture become the graph's own allocation nodes) or a pluggable one.
alloc::DeviceCachingAllocator* allocator(int device) { return alloc::caching_allocator(device); }

void warn(const char* what, const std::exception& e) { std::fprintf(stderr, "ctorch warning: %s: %s\n", what, e.what()); }

// Ends s's capture and throws its graph away (a capture that failed or is discarded); CUDA's
// status of the end, its error cleared.
cudaError_t drop_capture(cudaStream_t s) {
  cudaGraph_t dropped = nullptr;
  cudaError_t err = cudaStreamEndCapture(s, &dropped);
  if (dropped) (void)cudaGraphDestroy(dropped);
  if (err != cudaSuccess) (void)cudaGetLastError();
  return err;
}

// Makes a SavedStream current again when it leaves its scope, also when an exception leaves it;
// exit() restores on the normal path, where a failure to restore is the caller's error.
class RestoreStream {
 public:
  explicit RestoreStream(cuda::SavedStream saved) : saved_(std::move(saved)) {}
  RestoreStream(const RestoreStream&) = delete;
  RestoreStream& operator=(const RestoreStream&) = delete;
  ~RestoreStream() {
    if (!active_) return;
    try {
      cuda::stream_guard_exit(saved_);
    } catch (const std::exception& e) {
      warn("restoring the stream after an error", e);
    }
  }
  void exit() {
    active_ = false;
    cuda::stream_guard_exit(saved_);
  }
  cuda::SavedStream release() {
    active_ = false;
    return std::move(saved_);
  }

 private:
  cuda::SavedStream saved_;
  bool active_ = true;
};

static_assert(static_cast<int>(CaptureMode::Global) == cudaStreamCaptureModeGlobal &&
                  static_cast<int>(CaptureMode::ThreadLocal) == cudaStreamCaptureModeThreadLocal &&
                  static_cast<int>(CaptureMode::Relaxed) == cudaStreamCaptureModeRelaxed,
              "capi/abi.toml's capture modes are cudaStreamCaptureMode's numbers");
}  // namespace

int64_t pool_handle() { return g_next_pool.fetch_add(1); }

Graph::~Graph() {
  try {
    reset();
  } catch (const std::exception& e) {
    warn("while destroying a CUDA graph", e);
  }
}

void Graph::capture_begin(int64_t pool, CaptureMode mode) {
  std::lock_guard<std::mutex> g(mu_);
  CT_CHECK(!capturing_ && !ended_, Status::State,
           "This CUDAGraph instance already owns a captured graph. To capture a new graph, reset it or create a "
           "new instance.");
  CT_CHECK(pool >= 0 && pool < g_next_pool.load(), Status::Argument, "capture_begin: ", pool,
           " is not a memory pool id (expected 0 for a new pool, or an id from graph_pool_handle or another "
           "graph's pool())");
  int device = cuda::current_device();
  cuda::Stream stream = cuda::current_stream(device);
  CT_CHECK(stream->stream != nullptr, Status::State,
           "CUDA graphs must be captured on a non-default stream. (However, after capture, it's ok to replay them "
           "on the default stream.)");
  CT_CHECK(cuda::stream_capture_id(stream->stream) == 0, Status::State,
           "capture_begin: the current stream is capturing already (for another graph)");
  cuda::check(cudaStreamBeginCapture(stream->stream, static_cast<cudaStreamCaptureMode>(mode)),
              "cudaStreamBeginCapture");
  if (pool == 0) pool = pool_handle();
  uint64_t id = 0;
  alloc::DeviceCachingAllocator* a = allocator(device);
  try {
    id = cuda::stream_capture_id(stream->stream);
    if (a) a->begin_allocate_to_pool(pool, id);
    try {
      cuda::capture_registered(id, device, stream->stream, mode);
    } catch (...) {
      if (a) {
        a->end_allocate_to_pool(pool);
        a->release_pool(pool);
      }
      throw;
    }
  } catch (...) {
    (void)drop_capture(stream->stream);
    throw;
  }
  pool_held_ = a != nullptr;
  mode_ = mode;
  thread_ = std::this_thread::get_id();
  capturing_ = true;
  capture_id_ = id;
  device_ = device;
  stream_ = std::move(stream);
  pool_ = pool;
}

void Graph::check_capture_thread_locked(const char* what) const {
  CT_CHECK(mode_ == CaptureMode::Relaxed || thread_ == std::this_thread::get_id(), Status::State, what,
           ": the capture was begun on another thread in '", abi::kCaptureModeNames[static_cast<int>(mode_)],
           "' mode, and CUDA lets only that thread end it (end it there, or capture in 'relaxed' mode)");
}

void Graph::captured_locked() {
  (void)cuda::capture_unregistered(capture_id_);
  if (alloc::DeviceCachingAllocator* a = allocator(device_)) a->end_allocate_to_pool(pool_);
  for (auto& gen : rng::take_capture_generators(capture_id_)) generators_.emplace_back(std::move(gen), 0);
  capturing_ = false;
  ended_ = true;  // reset_locked gives back the pool and the generators' states
}

void Graph::discard_capture_locked() {
  check_capture_thread_locked("discarding a capture");
  cudaError_t err = drop_capture(stream_->stream);
  captured_locked();
  reset_locked();
  cuda::check(err, "cudaStreamEndCapture");
}

void Graph::capture_end() {
  std::lock_guard<std::mutex> g(mu_);
  CT_CHECK(capturing_, Status::State, "capture_end() called before capture_begin().");
  CT_CHECK(cuda::current_stream(device_)->stream == stream_->stream, Status::State,
           "Capture must end on the same stream it began on.");
  check_capture_thread_locked("capture_end");
  std::string invalid_by = cuda::capture_invalidated_by(capture_id_);
  if (!invalid_by.empty()) {
    discard_capture_locked();
    fail(Status::State, "capture_end: the capture was invalidated by an operation CUDA forbids during capture (",
         invalid_by, "); it has been discarded: capture again without that operation");
  }
  cudaGraph_t graph = nullptr;
  cudaError_t err = cudaStreamEndCapture(stream_->stream, &graph);
  captured_locked();
  if (err != cudaSuccess || !graph) {
    if (graph) (void)cudaGraphDestroy(graph);
    (void)cudaGetLastError();
    reset_locked();
    cuda::check(err == cudaSuccess ? cudaErrorStreamCaptureInvalidated : err, "cudaStreamEndCapture");
  }
  for (auto& [gen, increment] : generators_) increment = gen->capture_epilogue(capture_id_);
  size_t nodes = 0;
  (void)cudaGraphGetNodes(graph, nullptr, &nodes);
  if (nodes == 0)
    std::fprintf(stderr,
                 "ctorch warning: The CUDA Graph is empty. This usually means that the graph was attempted to be "
                 "captured on wrong device or stream.\n");
  err = cudaGraphInstantiateWithFlags(&exec_, graph,
                                      cudaGraphInstantiateFlagAutoFreeOnLaunch | cudaGraphInstantiateFlagUseNodePriority);
  if (err != cudaSuccess) {
    exec_ = nullptr;
    (void)cudaGraphDestroy(graph);
    reset_locked();
    cuda::check(err, "cudaGraphInstantiateWithFlags");
  }
  if (debug_) graph_ = graph;  // kept for debug_dump
  else (void)cudaGraphDestroy(graph);
}

void Graph::replay() {
  std::lock_guard<std::mutex> g(mu_);
  CT_CHECK(ended_, Status::State, "Called CUDAGraph::replay without a preceding successful capture.");
  cuda::DeviceGuard dg(device_);
  cudaStream_t s = cuda::current_stream(device_)->stream;
  for (auto& [gen, increment] : generators_) gen->replay_prologue(capture_id_, increment, s);
  cuda::check(cudaGraphLaunch(exec_, s), "cudaGraphLaunch");
}

void Graph::reset_locked() {
  if (capturing_) {
    discard_capture_locked();  // calls back here with ended_ set
    return;
  }
  if (!ended_) return;
  cuda::DeviceGuard dg(device_);
  for (auto& [gen, increment] : generators_) gen->remove_capture_state(capture_id_);
  generators_.clear();
  if (pool_held_) {
    if (alloc::DeviceCachingAllocator* a = allocator(device_)) a->release_pool(pool_);
    pool_held_ = false;
  }
  if (exec_) (void)cudaGraphExecDestroy(exec_);
  if (graph_) (void)cudaGraphDestroy(graph_);
  exec_ = nullptr;
  graph_ = nullptr;
  ended_ = false;
  capture_id_ = 0;
  stream_.reset();
}

void Graph::reset() {
  std::lock_guard<std::mutex> g(mu_);
  reset_locked();
}

int64_t Graph::pool() {
  std::lock_guard<std::mutex> g(mu_);
  CT_CHECK(ended_ || capturing_, Status::State, "Called CUDAGraph::pool() without a preceding successful capture.");
  return pool_;
}

void Graph::enable_debug_mode() {
  std::lock_guard<std::mutex> g(mu_);
  debug_ = true;
}

void Graph::debug_dump(const std::string& path) {
  std::lock_guard<std::mutex> g(mu_);
  CT_CHECK(debug_, Status::State, "CUDA Graphs debug not enabled, set with [graph].enable_debug_mode()");
  CT_CHECK(graph_, Status::State,
           "debug_dump: no captured graph to dump (enable_debug_mode must come before capture_end)");
  cuda::check(cudaGraphDebugDotPrint(graph_, path.c_str(), cudaGraphDebugDotFlagsVerbose), "cudaGraphDebugDotPrint");
}

bool is_current_stream_capturing() {
  if (!cuda::is_available()) return false;
  return cuda::stream_capture_id(cuda::current_stream(-1)->stream) != 0;
}

namespace {
// torch.cuda.graph's default capture stream: one side stream per device, made on first use.
cuda::Stream capture_side_stream(int device) {
  static std::mutex mu;
  static auto* streams = new std::vector<cuda::Stream>();  // never destroyed
  std::lock_guard<std::mutex> g(mu);
  if (static_cast<int>(streams->size()) <= device) streams->resize(device + 1);
  cuda::Stream& s = (*streams)[device];
  if (!s) s = cuda::create_stream(device, 0);
  return s;
}
}  // namespace

cuda::SavedStream capture_enter(Graph& g, int64_t pool, CaptureMode mode, const cuda::Stream& stream) {
  int device = stream ? stream->device : cuda::current_device();
  cuda::Stream s = stream ? stream : capture_side_stream(device);
  // As torch.cuda.graph.__enter__: wait for the device, and free as much memory as we can for
  // the graph (both refused while another capture forbids them).
  cuda::check_capture_safe("torch.cuda.synchronize (entering a capture scope)");
  cuda::synchronize(device);
  alloc::empty_cache();
  RestoreStream restore(cuda::stream_guard_enter(s));
  g.capture_begin(pool, mode);
  return restore.release();
}

void capture_exit(Graph& g, const cuda::SavedStream& saved) {
  RestoreStream restore(saved);
  g.capture_end();
  restore.exit();
}

// Note [Graphed callables]: torch.cuda.make_graphed_callables without autograd. The function is
// run num_warmup_iters times on a new side stream (so that lazily made state, like cuBLAS
// handles, workspaces and the allocator's cache, exists before the capture), the device is
// synchronized, and one more call is captured in the capture scope. The tensors the function
// reads are the static inputs; run() copies new values into them on the current stream and
// replays there. The outputs are whatever tensors the function wrote (usually tensors it made
// during the capture, which live in the graph's pool and are overwritten by every replay).
Graphed::Graphed(const std::function<void()>& fn, std::vector<Tensor> static_inputs, int warmup_iters, int64_t pool)
    : graph_(std::make_shared<Graph>()), inputs_(std::move(static_inputs)) {
  CT_CHECK(warmup_iters >= 0, Status::Argument, "make_graphed_callables: num_warmup_iters must be >= 0, got ",
           warmup_iters);
  int device = cuda::current_device();
  for (size_t i = 0; i < inputs_.size(); ++i) {
    const Device d = inputs_[i]->device();
    CT_CHECK(d.is_cuda(), Status::Device, "make_graphed_callables: static input ", i,
             " must be a CUDA tensor, got a tensor on ", d.str());
    if (i == 0) device = d.index;
    CT_CHECK(d.index == device, Status::Device, "make_graphed_callables: static input ", i, " is on ", d.str(),
             " but input 0 is on cuda:", device, " (all inputs must be on one device)");
  }
  cuda::DeviceGuard dg(device);
  cuda::check_capture_safe("torch.cuda.synchronize (make_graphed_callables)");
  cuda::synchronize(device);
  {
    RestoreStream restore(cuda::stream_guard_enter(cuda::create_stream(device, 0)));
    for (int i = 0; i < warmup_iters; ++i) fn();
    restore.exit();
  }
  cuda::synchronize(device);
  RestoreStream restore(capture_enter(*graph_, pool, CaptureMode::Global, nullptr));
  try {
    fn();
  } catch (...) {
    try {
      graph_->reset();  // the capture is ended and thrown away (restore makes the stream current again)
    } catch (const std::exception& e) {
      warn("make_graphed_callables: discarding the capture after the function failed", e);
    }
    throw;
  }
  capture_exit(*graph_, restore.release());
}

void Graphed::run(const std::vector<Tensor>& inputs) {
  CT_CHECK(inputs.empty() || inputs.size() == inputs_.size(), Status::Argument, "graphed callable: expected ",
           inputs_.size(), " inputs (or none, to replay with the static inputs as they are), got ", inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& s = inputs_[i];
    const Tensor& x = inputs[i];
    CT_CHECK(x->device() == s->device(), Status::Device, "graphed callable: input ", i, " is on ", x->device().str(),
             " but the static input is on ", s->device().str());
    CT_CHECK(x->dtype == s->dtype, Status::DType, "graphed callable: input ", i, " has dtype ", dtype_name(x->dtype),
             " but the static input has ", dtype_name(s->dtype));
    CT_CHECK(x->sizes == s->sizes, Status::Shape, "graphed callable: input ", i, " has shape ", shape_str(x->sizes),
             " but the static input has ", shape_str(s->sizes));
  }
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].get() != inputs_[i].get()) ops::copy_(inputs_[i], inputs[i]);
  graph_->replay();
}

}  // namespace ct::graph
