// The one translation unit that includes NVTX (Note [NVTX] in nvtx.h).
#include "impl/nvtx/nvtx.h"

#include <nvtx3/nvToolsExt.h>

namespace ct::nvtx {

static_assert(kNoPushPopTracking == NVTX_NO_PUSH_POP_TRACKING, "NVTX's value of 'no tool'");
static_assert(sizeof(nvtxRangeId_t) == sizeof(uint64_t), "nvtxRangeId_t is a uint64_t");

void mark(const char* msg) { nvtxMarkA(msg); }
int range_push(const char* msg) { return nvtxRangePushA(msg); }
int range_pop() { return nvtxRangePop(); }
uint64_t range_start(const char* msg) { return nvtxRangeStartA(msg); }
void range_end(uint64_t id) { nvtxRangeEnd(id); }

}  // namespace ct::nvtx
