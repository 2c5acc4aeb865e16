// torch.cuda.comm (torch/nn/parallel/comm.py over torch/csrc/cuda/comm.cpp): broadcast,
// reduce_add, scatter and gather between the GPUs of one process, with PyTorch's argument
// checks in its order and its messages (Note [torch.cuda.comm] in cuda_comm.cc).
#pragma once
#include <cstdint>
#include <vector>

#include "impl/core/device.h"
#include "impl/core/tensor.h"
#include "impl/cuda/stream.h"

namespace ct::comm {

// The bucket size of the *_coalesced functions when the caller gives none (<= 0).
constexpr int64_t kDefaultBufferSize = 10485760;

// comm.broadcast(t, devices): result i on devices[i]; t itself where devices[i] is t's device.
std::vector<Tensor> broadcast(const Tensor& t, const std::vector<int>& devices);
// comm.broadcast(t, out=outs): t copied into each (CUDA, t's shape; a different dtype converts).
void broadcast_out(const Tensor& t, const std::vector<Tensor>& outs);
// comm.broadcast_coalesced: result[d][i] is tensors[i] on devices[d]; result[0] is tensors.
std::vector<std::vector<Tensor>> broadcast_coalesced(const std::vector<Tensor>& tensors,
                                                     const std::vector<int>& devices, int64_t buffer_size);
// comm.reduce_add(inputs, destination); destination -1: the current device.
Tensor reduce_add(const std::vector<Tensor>& inputs, int destination);
// comm.reduce_add_coalesced: inputs[d] is device d's row; result[i] the sum of column i.
std::vector<Tensor> reduce_add_coalesced(const std::vector<std::vector<Tensor>>& inputs, int destination,
                                         int64_t buffer_size);
// comm.scatter(t, devices, chunk_sizes, dim, streams): chunk_sizes empty for equal chunks
// (has_chunk_sizes false); streams empty or one per device (null entries: none).
std::vector<Tensor> scatter(const Tensor& t, const std::vector<int>& devices, bool has_chunk_sizes,
                            const std::vector<int64_t>& chunk_sizes, int64_t dim,
                            const std::vector<cuda::Stream>& streams);
// comm.scatter(t, dim=dim, streams=streams, out=outs)
void scatter_out(const Tensor& t, const std::vector<Tensor>& outs, int64_t dim,
                 const std::vector<cuda::Stream>& streams);
// comm.gather(tensors, dim, destination): destination CPU, or CUDA (index -1: current device).
Tensor gather(const std::vector<Tensor>& tensors, int64_t dim, Device destination);
// comm.gather(tensors, dim, out=out)
void gather_out(const std::vector<Tensor>& tensors, const Tensor& out, int64_t dim);

}  // namespace ct::comm
