// NCCL, loaded at first use (Note [NCCL loads on first use]), and what every user of it in
// impl/comm shares: the function table, result checking, the dtype mapping and the
// communicators of one process's device lists (torch.cuda.comm's "cliques").
#pragma once
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <mutex>
#include <string>
#include <vector>

#include "impl/core/dynlib.h"
#include "impl/core/tensor.h"

namespace ct::comm {

#define CT_NCCL_FUNCTIONS(X)                                                                              \
  X(get_version, ncclGetVersion, ncclResult_t (*)(int*))                                                  \
  X(get_unique_id, ncclGetUniqueId, ncclResult_t (*)(ncclUniqueId*))                                      \
  X(init_rank_config, ncclCommInitRankConfig,                                                             \
    ncclResult_t (*)(ncclComm_t*, int, ncclUniqueId, int, ncclConfig_t*))                                 \
  X(init_all, ncclCommInitAll, ncclResult_t (*)(ncclComm_t*, int, const int*))                            \
  X(split, ncclCommSplit, ncclResult_t (*)(ncclComm_t, int, int, ncclComm_t*, ncclConfig_t*))             \
  X(finalize, ncclCommFinalize, ncclResult_t (*)(ncclComm_t))                                             \
  X(destroy, ncclCommDestroy, ncclResult_t (*)(ncclComm_t))                                               \
  X(abort, ncclCommAbort, ncclResult_t (*)(ncclComm_t))                                                   \
  X(error_string, ncclGetErrorString, const char* (*)(ncclResult_t))                                      \
  X(last_error, ncclGetLastError, const char* (*)(ncclComm_t))                                            \
  X(async_error, ncclCommGetAsyncError, ncclResult_t (*)(ncclComm_t, ncclResult_t*))                      \
  X(count, ncclCommCount, ncclResult_t (*)(const ncclComm_t, int*))                                       \
  X(cu_device, ncclCommCuDevice, ncclResult_t (*)(const ncclComm_t, int*))                                \
  X(user_rank, ncclCommUserRank, ncclResult_t (*)(const ncclComm_t, int*))                                \
  X(reduce, ncclReduce,                                                                                   \
    ncclResult_t (*)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, int, ncclComm_t, cudaStream_t)) \
  X(broadcast, ncclBroadcast,                                                                             \
    ncclResult_t (*)(const void*, void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t))          \
  X(all_reduce, ncclAllReduce,                                                                            \
    ncclResult_t (*)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t))  \
  X(reduce_scatter, ncclReduceScatter,                                                                    \
    ncclResult_t (*)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t))  \
  X(all_gather, ncclAllGather,                                                                            \
    ncclResult_t (*)(const void*, void*, size_t, ncclDataType_t, ncclComm_t, cudaStream_t))               \
  X(send, ncclSend, ncclResult_t (*)(const void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t))  \
  X(recv, ncclRecv, ncclResult_t (*)(void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t))        \
  X(group_start, ncclGroupStart, ncclResult_t (*)())                                                      \
  X(group_end, ncclGroupEnd, ncclResult_t (*)())
CT_LIBRARY_TABLE(Nccl, CT_NCCL_FUNCTIONS);

// The loaded NCCL; throws Status::NotSupported naming libnccl.so.2 when it cannot be loaded.
const Nccl& nccl();
// True when nccl() would succeed (never throws).
bool nccl_loadable();
// True when NCCL makes every connection of a communicator at its creation
// (NCCL_RUNTIME_CONNECT=0: Note [NCCL connects at init] in nccl.cc).
bool connects_at_init();
// "2.28.9" (ncclGetVersion of the loaded library).
std::string nccl_version_string();
void nccl_version(int* major, int* minor, int* patch);

// Throws when r is neither ncclSuccess nor ncclInProgress: Status::Argument for
// ncclInvalidArgument / ncclInvalidUsage, Status::Comm otherwise, with NCCL's string, the
// version and NCCL's last error for comm ("NCCL error in ncclAllReduce: ...").
void check(ncclResult_t r, const char* what, ncclComm_t comm = nullptr);
// The message check() would throw for r (for errors found later, by the watchdog).
std::string error_message(ncclResult_t r, const char* what, ncclComm_t comm);

// A dtype's NCCL type, as torch.distributed maps them: bool travels as uint8, complex as two
// floats (*count_factor = 2). nccl_type_of says false for the rest (int16); nccl_dtype throws
// Status::DType for them, naming op.
bool nccl_type_of(DType dt, ncclDataType_t* type, int* count_factor);
ncclDataType_t nccl_dtype(DType dt, const char* op, int* count_factor = nullptr);

// ncclCommGetAsyncError's answer for c (ncclSuccess, ncclInProgress or the error that ended
// it), or the query's own failure.
ncclResult_t comm_state(ncclComm_t c);

// torch.cuda.comm's communicators: one clique per ordered list of distinct devices of this
// process (ncclCommInitAll), created at first use and kept for the process (as torch, which
// never destroys them: NCCL's destroy at exit can crash). comms[i] is rank i, on devices[i].
// The communicators are blocking ones, which NCCL lets only one thread use at a time, and two
// cliques that share a GPU could queue their work in opposite orders on its streams and wait for
// each other forever: hold mu (one mutex for every clique of the process) from before
// ncclGroupStart until after ncclGroupEnd. It serializes only the launches.
struct Clique {
  std::vector<ncclComm_t> comms;
  std::mutex& mu;
};
Clique& clique(const std::vector<int>& devices);

}  // namespace ct::comm
