// CUDA graphs (torch.cuda.CUDAGraph, torch.cuda.graph, graph_pool_handle,
// make_graphed_callables): capture the work queued on a stream, then replay it with one launch.
//
// Note [Graph lifecycle] (PyTorch's CUDAGraph.cpp): capture_begin starts a CUDA stream capture
// on the current stream (never the default stream) and sends the allocations of that capture to
// the graph's private pool (Note [Graph private pools] in impl/alloc/caching_allocator.h);
// capture_end ends the capture, instantiates the graph and keeps the generators it drew from
// (Note [Graph-safe Philox] in impl/rng/generator.h); replay writes their states and launches
// the graph on the current stream; reset (also the destructor) gives the pool back, drops the
// generators' states and destroys the graph. A capture that an illegal operation invalidated
// (Note [Illegal operations during capture] in impl/cuda/capture.h) fails at capture_end, which
// then discards it: the graph is as after reset. CUDA lets only the thread that began a global or
// thread_local capture end it: ending or discarding such a capture from another thread fails
// with Status::State and changes nothing (the destructor then leaves the capture as it is).
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "impl/abi/tables.h"
#include "impl/core/tensor.h"
#include "impl/cuda/stream.h"
#include "impl/rng/generator.h"

namespace ct::graph {

// Pool ids: int64 > 0, from one counter (graph_pool_handle and new private pools).
int64_t pool_handle();

class Graph {
 public:
  Graph() = default;
  ~Graph();  // reset(), reporting errors on stderr
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // pool: 0 for a new private pool, else a pool id to share.
  void capture_begin(int64_t pool, CaptureMode mode);
  void capture_end();
  void replay();
  void reset();
  int64_t pool();
  void enable_debug_mode();
  void debug_dump(const std::string& path);

 private:
  void captured_locked();          // after the capture's end: unregistered, its pool and generators kept
  void discard_capture_locked();  // a capture under way is ended and thrown away
  void check_capture_thread_locked(const char* what) const;  // State when CUDA would refuse the end
  void reset_locked();
  std::mutex mu_;
  bool capturing_ = false, ended_ = false, debug_ = false;
  uint64_t capture_id_ = 0;
  int device_ = -1;
  cuda::Stream stream_;
  int64_t pool_ = 0;
  bool pool_held_ = false;  // the allocator counts a use of pool_ for this graph
  CaptureMode mode_ = CaptureMode::Global;
  std::thread::id thread_;  // the capturing thread (Note [Graph lifecycle]: who may end it)
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  std::vector<std::pair<rng::GeneratorPtr, uint64_t>> generators_;  // and their whole-graph increments
};
using GraphPtr = std::shared_ptr<Graph>;

bool is_current_stream_capturing();

// The capture scope (`with torch.cuda.graph(g, pool, stream, capture_error_mode)`): enter waits
// for the device, frees the allocator's cached memory (as torch does), makes `stream` current
// (nullptr: a side stream kept per device for captures) and begins the capture; exit ends it and
// restores what enter changed, also when capture_end fails. Nothing changes when enter fails.
cuda::SavedStream capture_enter(Graph& g, int64_t pool, CaptureMode mode, const cuda::Stream& stream);
void capture_exit(Graph& g, const cuda::SavedStream& saved);

// make_graphed_callables for one function (Note [Graphed callables] in graph.cc).
class Graphed {
 public:
  Graphed(const std::function<void()>& fn, std::vector<Tensor> static_inputs, int warmup_iters, int64_t pool);
  void run(const std::vector<Tensor>& inputs);  // empty: replay with the static inputs as they are
  const GraphPtr& graph() const { return graph_; }

 private:
  GraphPtr graph_;
  std::vector<Tensor> inputs_;
};
using GraphedPtr = std::shared_ptr<Graphed>;

}  // namespace ct::graph
