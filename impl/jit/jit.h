// torch.cuda.jiterator (issue 18, in progress): a jitted elementwise function (Note [Jiterator
// kernels] in codegen.cc), compiled with NVRTC at its first call for each combination of
// dtypes, layout and device, and launched like a built-in op.
#pragma once
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "impl/core/tensor.h"
#include "impl/jit/codegen.h"

namespace ct::jit {

// An extra scalar argument (torch's kwargs): its type and value.
struct Extra {
  JitArg type = JitArg::Double;
  int64_t i = 0;
  double d = 0;
  bool b = false;
  static Extra of_int(int64_t v) { return Extra{JitArg::Int64, v, 0, false}; }
  static Extra of_double(double v) { return Extra{JitArg::Double, 0, v, false}; }
  static Extra of_bool(bool v) { return Extra{JitArg::Bool, 0, 0, v}; }
};
using Extras = std::vector<std::pair<std::string, Extra>>;

// torch.cuda.jiterator._create_jit_fn (num_outputs 1, return_by_ref false) and
// _create_multi_output_jit_fn (return_by_ref true): the code is parsed now (its function name),
// compiled at the first call. defaults: the extra arguments by name, in the order the function
// takes them.
class JitFunction {
 public:
  JitFunction(std::string code, int num_outputs, bool return_by_ref, Extras defaults);
  const std::string& name() const { return name_; }
  int num_outputs() const { return num_outputs_; }
  // The outputs (new tensors of the inputs' broadcast shape and common dtype) of the function
  // on 1..8 CUDA tensors of one device, queued on its current stream. overrides: extra
  // arguments by name, each declared at creation (torch: a KeyError otherwise); its value keeps
  // the creation's type unless the override gives another.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs, const Extras& overrides) const;
  // The out form (in place when an output is an input): writes the function's values into outs
  // (one per output, CUDA tensors of the inputs' device and exactly their broadcast shape, any
  // strides, any dtype the common dtype can be cast to (torch.can_cast), no element twice). The
  // value is computed in the common dtype and cast to each output's dtype, as TensorIterator
  // stores. An input sharing memory with an output without being the very same view is read
  // from a copy (as ctorch's in-place ops).
  void run_out(const std::vector<Tensor>& inputs, const Extras& overrides, const std::vector<Tensor>& outs) const;

  // A loaded kernel (kept for the process).
  struct LoadedKernel {
    const void* fn = nullptr;  // cudaKernel_t
  };

 private:
  Extras extras_with(const Extras& overrides) const;
  void launch(const std::vector<Tensor>& inputs, const Extras& extras, const std::vector<Tensor>& outs, DType common,
              const Shape& shape, Device dev) const;

  std::string code_, name_;
  int num_outputs_;
  bool return_by_ref_;
  Extras defaults_;
  // Note [Jiterator kernels]: this function's kernels by a short key of what selects them
  // (device, dtypes, layout class, vector width, index width, extra types): a call that finds
  // its kernel here builds no source text
  mutable std::mutex mu_;
  mutable std::unordered_map<std::string, LoadedKernel> kernels_;
};

// Kernels made ready by this process so far, compiled or loaded from the disk cache (the
// in-memory cache's size).
int64_t compiled_kernel_count();
// Of those, how many NVRTC compiled and how many came from the disk cache (for tests).
struct KernelStats {
  int64_t compiled = 0, from_disk = 0;
};
KernelStats kernel_stats();

}  // namespace ct::jit
