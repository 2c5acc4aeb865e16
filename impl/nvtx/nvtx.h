// NVTX marks and ranges (torch.cuda.nvtx), section 22 of ctorch.h.
//
// Note [NVTX]: NVTX 3 is header-only: <nvtx3/nvToolsExt.h> defines every API function as a
// static inline that calls through a global function pointer. On the first call NVTX reads
// NVTX_INJECTION64_PATH, dlopens that library and calls its InitializeInjectionNvtx2, which
// fills in the pointers (nsys and Nsight set the variable for the processes they start); with
// no variable, or a library that fails to load, every pointer becomes NULL and each call is a
// load and a branch. So nothing is linked and no GPU is needed. The header is included by
// nvtx.cc alone, so libctorch.so has one copy of NVTX's state (its globals are hidden, weak
// symbols: nothing NVTX-related leaves the library), and no other file of ctorch needs the
// header. The functions return what NVTX returns, as torch.cuda.nvtx does: push and pop the
// depth the tool reports (NVTX_NO_PUSH_POP_TRACKING, -2, without a tool), range_start the
// tool's id (0 without a tool). Push/pop nesting is per thread and kept by the tool.
#pragma once
#include <cstdint>

namespace ct::nvtx {

// NVTX_NO_PUSH_POP_TRACKING: what push and pop return when no tool is attached.
inline constexpr int kNoPushPopTracking = -2;

void mark(const char* msg);
int range_push(const char* msg);
int range_pop();
uint64_t range_start(const char* msg);
void range_end(uint64_t id);

}  // namespace ct::nvtx
