/* A tiny sampling profiler: SIGALRM every 20 us of wall time (ITIMER_REAL is a high-resolution
 * timer; ITIMER_PROF ticks at the kernel's HZ, a few hundred samples a second) records the interrupted PC and
 * three return addresses (frame pointers); prints module+offset histograms at exit. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <ucontext.h>
#include <time.h>
#include "capi/ctorch.h"
#define MAXS 400000
static void* pcs[MAXS][4];
static volatile int ns = 0;
static void on_prof(int sig, siginfo_t* si, void* uc_) {
  (void)sig; (void)si;
  ucontext_t* uc = (ucontext_t*)uc_;
  if (ns >= MAXS) return;
  int k = ns++;
  pcs[k][0] = (void*)uc->uc_mcontext.gregs[REG_RIP];
  void** fp = (void**)uc->uc_mcontext.gregs[REG_RBP];
  for (int j = 1; j < 4; ++j) {
    if (!fp || ((uintptr_t)fp & 7) || (uintptr_t)fp < 4096) { pcs[k][j] = 0; continue; }
    pcs[k][j] = fp[1];
    void** nfp = (void**)fp[0];
    if (nfp <= fp) { fp = 0; continue; }
    fp = nfp;
  }
}
typedef struct { void* pc; int n; } ent;
static int cmp(const void* a, const void* b) { return ((const ent*)b)->n - ((const ent*)a)->n; }
static void dump(int level) {
  ent* e = calloc(ns, sizeof(ent)); int ne = 0;
  for (int i = 0; i < ns; ++i) {
    void* pc = pcs[i][level]; int f = 0;
    for (int j = 0; j < ne; ++j) if (e[j].pc == pc) { e[j].n++; f = 1; break; }
    if (!f) { e[ne].pc = pc; e[ne].n = 1; ne++; }
  }
  qsort(e, ne, sizeof(ent), cmp);
  if (level == 0) {  /* samples per module */
    const char* mods[32]; int cnt[32] = {0}, nm = 0;
    for (int j = 0; j < ne; ++j) {
      Dl_info di; const char* mod = "?";
      if (e[j].pc && dladdr(e[j].pc, &di) && di.dli_fname) mod = strrchr(di.dli_fname, '/') ? strrchr(di.dli_fname, '/') + 1 : di.dli_fname;
      int m = 0;
      while (m < nm && strcmp(mods[m], mod)) ++m;
      if (m == nm && nm < 32) mods[nm++] = mod;
      if (m < 32) cnt[m] += e[j].n;
    }
    for (int m = 0; m < nm; ++m) printf("module %-28s %6.1f%%\n", mods[m], 100.0 * cnt[m] / ns);
  }
  printf("--- level %d (%d samples)\n", level, ns);
  for (int j = 0; j < ne && j < 80; ++j) {
    Dl_info di; const char* mod = "?"; uintptr_t off = (uintptr_t)e[j].pc;
    if (e[j].pc && dladdr(e[j].pc, &di) && di.dli_fname) { mod = strrchr(di.dli_fname, '/') ? strrchr(di.dli_fname, '/') + 1 : di.dli_fname; off = (uintptr_t)e[j].pc - (uintptr_t)di.dli_fbase; }
    printf("%6d %s 0x%lx %s\n", e[j].n, mod, (unsigned long)off, (e[j].pc && dladdr(e[j].pc, &di) && di.dli_sname) ? di.dli_sname : "");
  }
  free(e);
}
/* argv[1] "add": samples 1-element CUDA adds (synchronizing every 500 so that a full launch
 * queue does not hide the host cost); otherwise CUDA create+free. */
static void step(int add, ct_tensor a, int i) {
  ct_tensor c;
  int64_t n = 256;
  if (add) {
    ct_binary(CT_ADD, a, a, &c);
    if (i % 500 == 0) ct_cuda_synchronize(0);
  } else {
    ct_empty(&n, 1, CT_FLOAT32, CT_CUDA, 0, &c);
  }
  ct_tensor_release(c);
}
int main(int argc, char** argv) {
  int add = argc > 1 && !strcmp(argv[1], "add");
  ct_tensor a; int64_t one = 1;
  ct_ones(&one, 1, CT_FLOAT32, CT_CUDA, 0, &a);
  int iters = add ? 300000 : 3000000;
  for (int i = 0; i < 20000; ++i) step(add, a, i);
  struct sigaction sa; memset(&sa, 0, sizeof sa); sa.sa_sigaction = on_prof; sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGALRM, &sa, 0);
  struct itimerval it = {{0, 20}, {0, 20}}; setitimer(ITIMER_REAL, &it, 0);
  for (int i = 0; i < iters; ++i) step(add, a, i);
  struct itimerval z = {{0, 0}, {0, 0}}; setitimer(ITIMER_REAL, &z, 0);
  dump(0); dump(1); dump(2);
  ct_tensor_release(a);
  return 0;
}
