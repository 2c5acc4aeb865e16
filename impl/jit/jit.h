// torch.cuda.jiterator (issue 18, in progress): a jitted elementwise function (Note [Jiterator
// kernels] in codegen.cc), compiled with NVRTC at its first call for each combination of
// dtypes, layout and device, and launched like a built-in op.
#pragma once
#include <memory>
#include <string>
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

 private:
  std::string code_, name_;
  int num_outputs_;
  bool return_by_ref_;
  Extras defaults_;
};

// Kernels made ready by this process so far, compiled or loaded from the disk cache (the
// in-memory cache's size).
int64_t compiled_kernel_count();

}  // namespace ct::jit
