// torch.cuda.init / torch.cuda.is_initialized (Note [CUDA initialization]).
//
// Declared here, in //impl/cuda, but defined in runtime.cc next to the lazy state they report
// on: a new header of //impl/cuda:runtime would be an input of every nvcc action that depends on
// it (all the kernels), for two functions no kernel needs.
#pragma once

namespace ct::cuda {

// Note [CUDA initialization]: ctorch's CUDA state is made lazily, the first time a call asks
// the runtime for the devices (state() in runtime.cc). As torch, which counts devices through
// NVML or cudaGetDeviceCount without "initializing", asking whether CUDA is available or how
// many devices there are does not count as initialization here either: CUDA is initialized from
// the first call that needed a GPU and reached one (check_available passed: the current
// device, a device index checked, a CUDA tensor, a stream ...). torch.cuda.init() is that
// check on its own.
//
// init(): initializes, or throws Status::CudaUnavailable with the runtime's reason; idempotent.
void init();
// Whether a call has initialized CUDA in this process (never initializes it).
bool initialized();

}  // namespace ct::cuda
