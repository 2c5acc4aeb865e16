// torch.cuda._exchange_device: the device half of a device guard held across a binding's
// scope (ct_cuda_exchange_device and ct_cuda_exchange_device_of).
#pragma once

namespace ct::cuda {

// Makes device the current device and returns the one that was current. A negative device
// changes nothing: it returns the current device, or -1 when CUDA is unavailable.
int exchange_device(int device);

}  // namespace ct::cuda
