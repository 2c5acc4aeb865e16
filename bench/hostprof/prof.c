#include "bench/host_timer.h"
#define LOOP(name, body) do { for(int i=0;i<20000;++i){body;} double t0=bench_now_ns(); for(int i=0;i<N;++i){body;} double t1=bench_now_ns(); printf("%-28s %8.1f ns\n", name, (t1-t0)/N);} while(0)
int main(void){
  const int N=500000; ct_tensor c; int64_t n=256, v; int32_t d; ct_stream s;
  LOOP("noop (live count)", ct_live_tensor_count(&v));
  LOOP("empty cuda+release", (ct_empty(&n,1,CT_FLOAT32,CT_CUDA,0,&c), ct_tensor_release(c)));
  LOOP("current_device", ct_cuda_current_device(&d));
  LOOP("stream_current+release", (ct_stream_current(0,&s), ct_stream_release(s)));
  LOOP("empty cpu+release", (ct_empty(&n,1,CT_FLOAT32,CT_CPU,0,&c), ct_tensor_release(c)));
  LOOP("empty cuda+release", (ct_empty(&n,1,CT_FLOAT32,CT_CUDA,0,&c), ct_tensor_release(c)));
  LOOP("raw alloc+delete", (ct_cuda_caching_allocator_alloc(1024,0,NULL,&v), ct_cuda_caching_allocator_delete(v)));
  LOOP("empty cuda+release", (ct_empty(&n,1,CT_FLOAT32,CT_CUDA,0,&c), ct_tensor_release(c)));
  { ct_tensor a; int64_t one=1; ct_ones(&one,1,CT_FLOAT32,CT_CUDA,0,&a);
    LOOP("add cuda 1 elt (+sync/500)", (ct_binary(CT_ADD,a,a,&c), ct_tensor_release(c), (i%500==0 ? ct_cuda_synchronize(0) : 0)));
    ct_tensor h; ct_ones(&one,1,CT_FLOAT32,CT_CPU,-1,&h);
    LOOP("add cpu 1 elt", (ct_binary(CT_ADD,h,h,&c), ct_tensor_release(c)));
    ct_tensor_release(a); ct_tensor_release(h); }
  return 0;}
