/* CUDA graphs from C (docs/graphs.md): capture a chain of elementwise ops once, replay it with
 * new inputs, and check it against the same ops run eagerly; then the same chain as a graphed
 * callable. Without CUDA it says so and exits 0. As PyTorch:
 *
 *   x = torch.zeros(8, device="cuda")
 *   g = torch.cuda.CUDAGraph()
 *   with torch.cuda.graph(g):
 *       y = ((x * 2 + 1).sigmoid() - 0.5).relu()
 *   x.copy_(new_x); g.replay()      # y now holds the chain of new_x
 *
 * Run it with `bazel run //examples/c:graphs`.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <ctorch.h>

enum { N = 8 };

/* Exits with the library's message when a call fails. */
static void ok(ct_status s, const char* what) {
  if (s == CT_OK) return;
  fprintf(stderr, "%s failed: %s: %s\n", what, ct_status_name(s), ct_last_error_message());
  exit(1);
}

/* y = relu(sigmoid(x * 2 + 1) - 0.5), through temporaries */
static ct_tensor chain(ct_tensor x) {
  ct_tensor a, b, c, d, y;
  ok(ct_binary_scalar_f(CT_MUL, x, 2.0, 0, &a), "mul");
  ok(ct_binary_scalar_f(CT_ADD, a, 1.0, 0, &b), "add");
  ok(ct_unary(CT_SIGMOID, b, &c), "sigmoid");
  ok(ct_binary_scalar_f(CT_SUB, c, 0.5, 0, &d), "sub");
  ok(ct_unary(CT_RELU, d, &y), "relu");
  ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(c), ct_tensor_release(d);
  return y;
}

static void read(ct_tensor t, float* out) {
  ct_tensor h;
  ok(ct_tensor_to(t, CT_CPU, -1, CT_DTYPE_UNDEFINED, 0, 0, &h), "to cpu");
  ok(ct_tensor_copy_to_buffer(h, out, N * sizeof(float)), "copy");
  ct_tensor_release(h);
}

/* Replayed y against the eager chain of the same x, element by element (the same kernels). */
static void compare(const char* what, ct_tensor x, ct_tensor y) {
  ct_tensor e = chain(x);
  float got[N], want[N];
  read(y, got);
  read(e, want);
  ct_tensor_release(e);
  printf("%-24s", what);
  for (int i = 0; i < N; ++i) {
    printf(" %.4f", got[i]);
    if (got[i] != want[i]) {
      fprintf(stderr, "\n%s: element %d is %g, the eager chain gives %g\n", what, i, got[i], want[i]);
      exit(1);
    }
  }
  printf("   (= eager)\n");
}

static ct_tensor input(float scale) { /* scale * [-4, -3, ..., 3] on cuda:0 */
  ct_tensor a, x;
  ok(ct_arange(-4, 4, 1, CT_FLOAT32, CT_CUDA, 0, &a), "arange");
  ok(ct_binary_scalar_f(CT_MUL, a, scale, 0, &x), "scale");
  ct_tensor_release(a);
  return x;
}

/* The graphed function: reads the static input, leaves its result in out. */
typedef struct {
  ct_tensor x, out;
} graphed_ctx;

static ct_status graphed_fn(void* p) {
  graphed_ctx* c = (graphed_ctx*)p;
  if (c->out) ct_tensor_release(c->out);
  c->out = chain(c->x);
  return CT_OK;
}

int main(void) {
  int32_t n = 0;
  ok(ct_cuda_device_count(&n), "device_count");
  if (n == 0) {
    printf("CUDA graphs need a CUDA device; none here, nothing to do.\n");
    return 0;
  }
  ct_tensor x = input(1.0f);  /* the static input */
  ct_cuda_graph g;
  ok(ct_cuda_graph_create(&g), "graph_create");
  ct_stream prev;
  int32_t prev_dev;
  ok(ct_cuda_graph_capture_enter(g, 0, CT_CAPTURE_MODE_GLOBAL, NULL, &prev, &prev_dev), "capture_enter");
  ct_tensor y = chain(x); /* recorded, not run: y lives in the graph's pool */
  ok(ct_cuda_graph_capture_exit(g, prev, prev_dev), "capture_exit");
  ok(ct_cuda_graph_replay(g), "replay");
  compare("replay, x = [-4 .. 3]:", x, y);
  for (int k = 2; k <= 3; ++k) {
    ct_tensor nx = input(1.0f / (float)k);
    ok(ct_tensor_copy_(x, nx, 0), "copy_"); /* new values into the static input */
    ok(ct_cuda_graph_replay(g), "replay");
    char what[32];
    snprintf(what, sizeof what, "replay, x = [-4 .. 3]/%d:", k);
    compare(what, x, y);
    ct_tensor_release(nx);
  }
  int64_t pool = 0;
  ok(ct_cuda_graph_pool(g, &pool), "pool");
  printf("the graph's private pool: %lld\n", (long long)pool);

  /* the same chain as a graphed callable: 3 warm-up runs, then one captured */
  graphed_ctx c = {x, NULL};
  ct_cuda_graphed f;
  ok(ct_cuda_make_graphed_callable(graphed_fn, &c, &c.x, 1, 3, 0, &f), "make_graphed_callable");
  ct_tensor nx = input(0.25f);
  ok(ct_cuda_graphed_run(f, &nx, 1), "graphed_run");
  compare("graphed, x = [-4 .. 3]/4:", x, c.out);

  ct_tensor_release(nx), ct_tensor_release(c.out), ct_tensor_release(y), ct_tensor_release(x);
  ok(ct_cuda_graphed_release(f), "graphed_release");
  ok(ct_cuda_graph_release(g), "graph_release");
  return 0;
}
