// Does a kernel's parameter block cost anything in a CUDA graph? 100 nodes of a scale kernel
// over n floats, with the fields it reads (out, in, n, s) first in a block of P bytes, or spread
// over ~480 bytes as Iter<N> spreads data[] after sizes[] and strides[] (bench/NOTES.md,
// "Issue 15": neither costs anything measurable on an H200).
//   nvcc -O2 -arch=sm_90 bench/graphs/param_cost.cu -o /tmp/pc && /tmp/pc
#include <cstdio>
#include <cuda_runtime.h>
template <int P>
struct Front { float* out; const float* in; int n; float s; char pad[P]; };
struct Spread { int n; char pad1[200]; float s; char pad2[150]; float* out; char pad3[60]; const float* in; };
template <typename B>
__global__ void k(B b) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  if (i + 3 < b.n) {
    float4 v = *reinterpret_cast<const float4*>(b.in + i);
    v.x *= b.s; v.y *= b.s; v.z *= b.s; v.w *= b.s;
    *reinterpret_cast<float4*>(b.out + i) = v;
  }
}
// us per node: the best of 7 timings of 50 replays of a 100-node graph
template <typename B>
float run(B b, cudaStream_t s) {
  cudaGraph_t g; cudaGraphExec_t e;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  for (int r = 0; r < 100; ++r) k<B><<<(b.n / 4 + 127) / 128, 128, 0, s>>>(b);
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
  cudaGraphExecDestroy(e); cudaGraphDestroy(g);
  return best / 50 / 100 * 1000;
}
template <int P>
float front(float* o, float* i, int n, cudaStream_t s) { Front<P> b{}; b.out = o; b.in = i; b.n = n; b.s = 0.5f; return run(b, s); }
int main() {
  float *a, *b; cudaMalloc(&a, 4 << 22); cudaMalloc(&b, 4 << 22);
  cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  for (int n : {4096, 1 << 20}) {
    Spread p{}; p.out = a; p.in = b; p.n = n; p.s = 0.5f;
    printf("n=%d  front 24B %.3f us  128B %.3f  512B %.3f  2048B %.3f  spread %.3f\n", n, front<4>(a, b, n, s),
           front<104>(a, b, n, s), front<488>(a, b, n, s), front<2024>(a, b, n, s), run(p, s));
  }
}
