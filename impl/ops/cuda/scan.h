// The CUDA scan kernels as seen from host code (Note [Scan layout] in impl/ops/cpu/scan.h).
// Launched on the given stream of the current device; the caller sets the device.
#pragma once
#include <cstdint>

#include "impl/ops/cpu/scan.h"

namespace ct::cuda_ops {

// Whether scan() reads an input of dtype `in` itself for kind, instead of the int64 copy of
// Note [Scan layout] (a.dtype is then `in`): int32 for cummax/cummin (values and outputs int32),
// and int32 and uint8 for sums and products (outputs int64, PyTorch's result dtype).
inline bool scan_takes(ScanKind kind, DType in) {
  if (kind == ScanKind::Max || kind == ScanKind::Min) return in == DType::Int32;
  if (kind == ScanKind::Sum || kind == ScanKind::Prod) return in == DType::Int32 || in == DType::UInt8;
  return false;
}

// Bytes of device scratch scan(a) needs (CUB's temporary storage and a buffer for the long-row
// path; 0 for most layouts).
int64_t scan_scratch_bytes(const ScanArgs& a);
// Scans a.in into a.out (and a.indices), using scratch (scan_scratch_bytes(a) bytes, may be null
// when that is 0). Checks the launches.
void scan(const ScanArgs& a, void* scratch, void* stream);

}  // namespace ct::cuda_ops
