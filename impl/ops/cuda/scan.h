// The CUDA scan kernels as seen from host code (Note [Scan layout] in impl/ops/cpu/scan.h).
// Launched on the given stream of the current device; the caller sets the device.
#pragma once
#include <cstdint>

#include "impl/ops/cpu/scan.h"

namespace ct::cuda_ops {

// Whether scan() takes int32 itself (not widened to int64, Note [Scan layout]) for kind:
// cummax/cummin, whose values keep the input's dtype.
inline bool scan_int32_ext(ScanKind kind) { return kind == ScanKind::Max || kind == ScanKind::Min; }

// Bytes of device scratch scan(a) needs (CUB's temporary storage and a buffer for the long-row
// path; 0 for most layouts).
int64_t scan_scratch_bytes(const ScanArgs& a);
// Scans a.in into a.out (and a.indices), using scratch (scan_scratch_bytes(a) bytes, may be null
// when that is 0). Checks the launches.
void scan(const ScanArgs& a, void* scratch, void* stream);

}  // namespace ct::cuda_ops
