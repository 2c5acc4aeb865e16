// Section 19 of ctorch.h: CUDA graphs.
#include "capi/api.h"
#include "capi/handles.h"
#include "impl/cuda/runtime.h"
#include "impl/graph/graph.h"

using namespace ct;
using namespace ct::capi;

namespace {
graph::GraphPtr graph_arg(ct_cuda_graph g) { return GraphTable::get().lookup(g, "graph"); }
graph::GraphedPtr graphed_arg(ct_cuda_graphed c) { return GraphedTable::get().lookup(c, "callable"); }
}  // namespace

extern "C" {

CT_API ct_status ct_cuda_graph_create(ct_cuda_graph* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = GraphTable::get().add(std::make_shared<graph::Graph>());
  CT_API_END
}

CT_API ct_status ct_cuda_graph_retain(ct_cuda_graph g) {
  CT_API_BEGIN
  GraphTable::get().retain(g);
  CT_API_END
}

CT_API ct_status ct_cuda_graph_release(ct_cuda_graph g) {
  CT_API_BEGIN
  GraphTable::get().release(g);
  CT_API_END
}

CT_API ct_status ct_live_cuda_graph_count(int64_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = GraphTable::get().live();
  CT_API_END
}

CT_API ct_status ct_cuda_graph_capture_begin(ct_cuda_graph g, int64_t pool, ct_capture_mode mode) {
  CT_API_BEGIN
  graph::GraphPtr gr = graph_arg(g);
  CaptureMode m = capture_mode_arg(mode);
  cuda::check_available();
  gr->capture_begin(pool, m);
  CT_API_END
}

CT_API ct_status ct_cuda_graph_capture_end(ct_cuda_graph g) {
  CT_API_BEGIN
  graph::GraphPtr gr = graph_arg(g);
  cuda::check_available();
  gr->capture_end();
  CT_API_END
}

CT_API ct_status ct_cuda_graph_replay(ct_cuda_graph g) {
  CT_API_BEGIN
  graph::GraphPtr gr = graph_arg(g);
  cuda::check_available();
  gr->replay();
  CT_API_END
}

CT_API ct_status ct_cuda_graph_reset(ct_cuda_graph g) {
  CT_API_BEGIN
  graph::GraphPtr gr = graph_arg(g);
  cuda::check_available();
  gr->reset();
  CT_API_END
}

CT_API ct_status ct_cuda_graph_pool(ct_cuda_graph g, int64_t* out) {
  CT_API_BEGIN
  graph::GraphPtr gr = graph_arg(g);
  need(out, "out");
  cuda::check_available();
  *out = gr->pool();
  CT_API_END
}

CT_API ct_status ct_cuda_graph_enable_debug_mode(ct_cuda_graph g) {
  CT_API_BEGIN
  graph::GraphPtr gr = graph_arg(g);
  cuda::check_available();
  gr->enable_debug_mode();
  CT_API_END
}

CT_API ct_status ct_cuda_graph_debug_dump(ct_cuda_graph g, const char* path) {
  CT_API_BEGIN
  graph::GraphPtr gr = graph_arg(g);
  need(path, "path");
  cuda::check_available();
  gr->debug_dump(path);
  CT_API_END
}

CT_API ct_status ct_cuda_graph_pool_handle(int64_t* out) {
  CT_API_BEGIN
  need(out, "out");
  cuda::check_available();
  *out = graph::pool_handle();
  CT_API_END
}

CT_API ct_status ct_cuda_is_current_stream_capturing(int32_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = graph::is_current_stream_capturing() ? 1 : 0;
  CT_API_END
}

CT_API ct_status ct_cuda_graph_capture_enter(ct_cuda_graph g, int64_t pool, ct_capture_mode mode, ct_stream stream,
                                             ct_stream* prev_stream, int32_t* prev_device) {
  CT_API_BEGIN
  graph::GraphPtr gr = graph_arg(g);
  CaptureMode m = capture_mode_arg(mode);
  cuda::Stream s = optional_stream(stream);
  need(prev_stream, "prev_stream");
  need(prev_device, "prev_device");
  cuda::check_available();
  cuda::SavedStream saved = graph::capture_enter(*gr, pool, m, s);
  *prev_stream = StreamTable::get().add(std::move(saved.stream));
  *prev_device = saved.device;
  CT_API_END
}

CT_API ct_status ct_cuda_graph_capture_exit(ct_cuda_graph g, ct_stream prev_stream, int32_t prev_device) {
  CT_API_BEGIN
  cuda::Stream prev = StreamTable::get().lookup(prev_stream, "prev_stream");
  StreamTable::get().release(prev_stream);  // always released, as ct_stream_guard_exit's
  cuda::SavedStream saved{std::move(prev), prev_device};
  graph::GraphPtr gr;
  try {
    gr = graph_arg(g);
  } catch (...) {
    cuda::stream_guard_exit(saved);  // the stream and device are restored in any case
    throw;
  }
  graph::capture_exit(*gr, saved);
  CT_API_END
}

CT_API ct_status ct_cuda_make_graphed_callable(ct_graph_fn fn, void* ctx, const ct_tensor* static_inputs,
                                               int32_t n_inputs, int32_t num_warmup_iters, int64_t pool,
                                               ct_cuda_graphed* out) {
  CT_API_BEGIN
  CT_CHECK(fn != nullptr, CT_ERR_NULL_POINTER, "argument 'fn' is NULL (expected the function to graph)");
  need(out, "out");
  std::vector<Tensor> inputs = tensors_arg(static_inputs, n_inputs, "static_inputs");
  cuda::check_available();
  auto call = [fn, ctx] {
    ct_clear_error();
    ct_status st = fn(ctx);
    if (st == CT_OK) return;
    std::string inner = ct_last_error_code() != CT_OK ? std::string(": ") + ct_last_error_message() : std::string();
    fail(st, "make_graphed_callable: the function returned ", ct_status_name(st), inner);
  };
  auto c = std::make_shared<graph::Graphed>(call, std::move(inputs), num_warmup_iters, pool);
  *out = GraphedTable::get().add(std::move(c));
  CT_API_END
}

CT_API ct_status ct_cuda_graphed_run(ct_cuda_graphed c, const ct_tensor* inputs, int32_t n_inputs) {
  CT_API_BEGIN
  graph::GraphedPtr g = graphed_arg(c);
  std::vector<Tensor> in = tensors_arg(inputs, n_inputs, "inputs");
  g->run(in);
  CT_API_END
}

CT_API ct_status ct_cuda_graphed_graph(ct_cuda_graphed c, ct_cuda_graph* out) {
  CT_API_BEGIN
  graph::GraphedPtr g = graphed_arg(c);
  need(out, "out");
  *out = GraphTable::get().add(g->graph());
  CT_API_END
}

CT_API ct_status ct_cuda_graphed_retain(ct_cuda_graphed c) {
  CT_API_BEGIN
  GraphedTable::get().retain(c);
  CT_API_END
}

CT_API ct_status ct_cuda_graphed_release(ct_cuda_graphed c) {
  CT_API_BEGIN
  GraphedTable::get().release(c);
  CT_API_END
}

CT_API ct_status ct_live_cuda_graphed_count(int64_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = GraphedTable::get().live();
  CT_API_END
}

}  // extern "C"
