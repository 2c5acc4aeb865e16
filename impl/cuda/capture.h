// What the rest of ctorch needs to know about CUDA stream captures (graphs are in impl/graph):
// which capture a stream takes part in, the captures under way, and the check that refuses an
// operation CUDA forbids during a capture.
//
// Note [Illegal operations during capture]: while a stream captures, CUDA refuses calls that
// would make the host wait for the GPU or look at work the capture holds back (stream, event
// and device synchronize and queries, copies through pageable host memory, cudaHostAlloc,
// cudaFree), and such a call also invalidates the capture. ctorch checks before it makes the
// call: check_capture_safe throws Status::State naming the operation and the capture, and
// marks the capture invalid, so its capture_end fails with that name and discards it cleanly;
// CUDA's own state stays sound (nothing illegal was called). Which calls are refused follows the
// capture's mode, as CUDA's cudaStreamCaptureMode: global captures refuse them in every thread,
// thread_local ones in the capturing thread, and every mode on a stream that takes part in the
// capture.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "impl/abi/tables.h"

namespace ct::cuda {

// The id of the capture s takes part in (cudaStreamGetCaptureInfo), 0 when it is not capturing.
// The legacy default stream (nullptr) is never capturing: 0 without asking CUDA.
uint64_t stream_capture_id(cudaStream_t s);

// The registry of the captures under way in this process (begun by impl/graph).
void capture_registered(uint64_t id, int device, cudaStream_t s, CaptureMode mode);
// Forgets a capture; returns the operation that invalidated it ("" when none did).
std::string capture_unregistered(uint64_t id);
bool captures_underway();  // an atomic load: the fast path of every check
// stream_capture_id(s), without asking CUDA while no capture of this process is under way (the
// hot paths: every random op and pinned copy).
inline uint64_t capture_of(cudaStream_t s) { return captures_underway() ? stream_capture_id(s) : 0; }
// The operation that invalidated capture id ("" when none did, or no such capture).
std::string capture_invalidated_by(uint64_t id);

// Throws Status::State (Note [Illegal operations during capture]) when a capture under way
// forbids `what` for the calling thread, or when `stream` (nullptr: the calling thread's
// current stream of the current device) takes part in a capture.
void check_capture_safe(const char* what, cudaStream_t stream = nullptr);

}  // namespace ct::cuda
