// The source text of the jiterator's elementwise kernels (issue 18, in progress; Note [Jiterator
// kernels] in codegen.cc). Host-only string work: no CUDA needed.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "impl/abi/tables.h"

namespace ct::jit {

// The entry function's name in torch's way (torch/cuda/jiterator.py's _CodeParser): the code
// starts with `template <...>`, and the name is that of the last templated function. Throws
// Status::Argument ("Couldn't parse code, please check correctness: ...") otherwise.
std::string function_name(const std::string& code);

// One compiled variant of a jitted function.
struct KernelSpec {
  std::string code;              // the user's source, verbatim
  std::string name;              // function_name(code)
  std::vector<DType> inputs;     // each input's dtype (1..8)
  int num_outputs = 1;           // 1..8
  std::vector<DType> outputs;    // each output's dtype (given outputs); empty: the common dtype
  DType common = DType::Float32; // torch.result_type of the inputs
  bool return_by_ref = false;    // outputs as trailing T& parameters (multi-output form)
  std::vector<JitArg> extras;    // the extra scalar arguments' types (torch's kwargs), in order
  bool contiguous = false;       // every operand dense in one dim: no index arithmetic
  int vec = 1;                   // contiguous: elements a thread moves at once (1, 2, 4, 8 or 16;
                                 // every operand's data aligned to vec elements of it)
  int ept = 8;                   // contiguous: elements per thread of a full block (a multiple of vec)
  bool index32 = false;          // element indices and every operand's byte offsets fit 31 bits:
                                 // 32-bit arithmetic, divisions by multiplication (DivMagic)
};

// Operands at most (outputs and inputs), and dimensions at most, of a kernel.
constexpr int kMaxJitInputs = 8;
constexpr int kMaxJitOutputs = 8;
constexpr int kMaxJitDims = 12;
constexpr int kMaxJitExtras = 64;  // extra scalar arguments

// The kernel's entry point in the source.
constexpr const char* kKernelSymbol = "ct_jit_kernel";

// The whole translation unit: the prelude (integer types, Half, BFloat16, math names), the
// user's code, the kernel. Throws Status::DType for complex dtypes (not supported yet) and
// Status::Argument for counts out of range.
std::string kernel_source(const KernelSpec& spec);

// The kernel's parameters' layout, shared by the host (jit.cc) and kernel_source: one struct,
// operands outputs first, then the extra arguments as parameters of their own.
struct IterLayout {
  static constexpr size_t kNdim = 0;     // int32_t
  static constexpr size_t kNumel = 8;    // int64_t
  static constexpr size_t kSizes = 16;   // int64_t[kMaxJitDims]
  static constexpr size_t kDivMagic = kSizes + 8 * kMaxJitDims;      // uint32_t[kMaxJitDims] (DivMagic)
  static constexpr size_t kDivShift = kDivMagic + 4 * kMaxJitDims;   // uint32_t[kMaxJitDims]
  static constexpr size_t kStrides = kDivShift + 4 * kMaxJitDims;    // int64_t[nt][kMaxJitDims], bytes
  static size_t data(int nt) { return kStrides + static_cast<size_t>(nt) * 8 * kMaxJitDims; }  // char*[nt]
  static size_t size(int nt) { return data(nt) + static_cast<size_t>(nt) * 8; }
};

// Division of 32-bit indices by a size without a divide instruction (the strided kernels with
// 32-bit indices): q = (umulhi(n, magic) + n) >> shift for n, d < 2^31 (torch's IntDivider, from
// Granlund and Montgomery).
struct DivMagic {
  uint32_t magic = 0, shift = 0;
};
DivMagic div_magic(uint32_t d);

}  // namespace ct::jit
