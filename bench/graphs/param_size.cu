// Does a kernel's parameter size change its cost in a CUDA graph? 100 nodes of a 4096-element
// scale kernel with P bytes of parameters.
// nvcc -O2 -arch=sm_90 bench/graphs/param_size.cu -o /tmp/ps && /tmp/ps (bench/NOTES.md, "Issue 15")
#include <cstdio>
#include <cuda_runtime.h>
template <int P>
struct Big { float* out; const float* in; int n; char pad[P]; };
template <int P>
__global__ void k(Big<P> b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < b.n) b.out[i] = b.in[i] * 0.5f;
}
template <int P>
float run(float* out, float* in, int n, cudaStream_t s) {
  cudaGraph_t g; cudaGraphExec_t e;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  Big<P> b{out, in, n, {}};
  for (int r = 0; r < 100; ++r) k<P><<<(n + 127) / 128, 128, 0, s>>>(b);
  cudaStreamEndCapture(s, &g);
  cudaGraphInstantiate(&e, g, 0);
  cudaEvent_t a, z; cudaEventCreate(&a); cudaEventCreate(&z);
  for (int i = 0; i < 10; ++i) cudaGraphLaunch(e, s);
  float best = 1e9;
  for (int t = 0; t < 7; ++t) {
    cudaEventRecord(a, s);
    for (int i = 0; i < 50; ++i) cudaGraphLaunch(e, s);
    cudaEventRecord(z, s); cudaEventSynchronize(z);
    float ms; cudaEventElapsedTime(&ms, a, z);
    if (ms < best) best = ms;
  }
  return best / 50 / 100 * 1000;
}
int main() {
  float *a, *b; cudaMalloc(&a, 4 << 22); cudaMalloc(&b, 4 << 22);
  cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  for (int n : {4096, 1 << 20}) {
    printf("n=%d  params 24B %.3f us  128B %.3f  512B %.3f  1024B %.3f  2048B %.3f\n", n, run<4>(a, b, n, s),
           run<104>(a, b, n, s), run<488>(a, b, n, s), run<1000>(a, b, n, s), run<2024>(a, b, n, s));
  }
}
