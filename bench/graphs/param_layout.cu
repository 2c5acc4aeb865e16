// Where the fields a kernel reads sit in a large parameter struct: in the first 64 bytes, or
// spread over it (as Iter<N> puts data[] after sizes[] and strides[]).
// nvcc -O2 -arch=sm_90 bench/graphs/param_layout.cu -o /tmp/pl && /tmp/pl (bench/NOTES.md, "Issue 15")
#include <cstdio>
#include <cuda_runtime.h>
struct Front { float* out; const float* in; int n; float s; char pad[480]; };
struct Spread { int n; char pad1[200]; float s; char pad2[150]; float* out; char pad3[60]; const float* in; };
template <typename P>
__global__ void k(P b) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  if (i + 3 < b.n) {
    float4 v = *reinterpret_cast<const float4*>(b.in + i);
    v.x *= b.s; v.y *= b.s; v.z *= b.s; v.w *= b.s;
    *reinterpret_cast<float4*>(b.out + i) = v;
  }
}
template <typename P>
float run(P b, int n, cudaStream_t s) {
  cudaGraph_t g; cudaGraphExec_t e;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  for (int r = 0; r < 100; ++r) k<P><<<(n / 4 + 127) / 128, 128, 0, s>>>(b);
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
    Front f{}; f.out = a; f.in = b; f.n = n; f.s = 0.5f;
    Spread p{}; p.out = a; p.in = b; p.n = n; p.s = 0.5f;
    printf("n=%d  front %.3f us  spread %.3f us  front %.3f  spread %.3f\n", n, run(f, n, s), run(p, n, s), run(f, n, s), run(p, n, s));
  }
}
