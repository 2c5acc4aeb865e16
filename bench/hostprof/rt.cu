#include <cstdio>
#include <chrono>
#include <cuda_runtime.h>
int main(){ int d; cudaFree(0); const int N=1000000;
 auto t0=std::chrono::steady_clock::now(); for(int i=0;i<N;++i) cudaGetDevice(&d); auto t1=std::chrono::steady_clock::now();
 printf("cudaGetDevice %.1f ns\n", std::chrono::duration<double,std::nano>(t1-t0).count()/N);
 t0=std::chrono::steady_clock::now(); for(int i=0;i<N;++i) cudaSetDevice(0); t1=std::chrono::steady_clock::now();
 printf("cudaSetDevice(same) %.1f ns\n", std::chrono::duration<double,std::nano>(t1-t0).count()/N);
 t0=std::chrono::steady_clock::now(); for(int i=0;i<N;++i) cudaGetLastError(); t1=std::chrono::steady_clock::now();
 printf("cudaGetLastError %.1f ns\n", std::chrono::duration<double,std::nano>(t1-t0).count()/N);
 return 0;}
