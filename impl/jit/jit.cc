#include "impl/jit/jit.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>

#include "impl/core/error.h"
#include "impl/cuda/runtime.h"
#include "impl/cuda/sanitize.h"
#include "impl/cuda/stream.h"
#include "impl/jit/disk_cache.h"
#include "impl/jit/nvrtc.h"
#include "impl/ops/cpu/loops.h"
#include "impl/ops/ops.h"

namespace ct::jit {

JitFunction::JitFunction(std::string code, int num_outputs, bool return_by_ref, Extras defaults)
    : code_(std::move(code)), num_outputs_(num_outputs), return_by_ref_(return_by_ref), defaults_(std::move(defaults)) {
  CT_CHECK(return_by_ref_ || num_outputs_ == 1, Status::Argument, "Return by value only works for single output.");
  CT_CHECK(num_outputs_ >= 1 && num_outputs_ <= kMaxJitOutputs, Status::Argument, "the jiterator makes 1 to ",
           kMaxJitOutputs, " outputs, got ", num_outputs_);
  name_ = function_name(code_);
  CT_CHECK(defaults_.size() <= static_cast<size_t>(kMaxJitExtras), Status::Argument, "the jiterator takes at most ",
           kMaxJitExtras, " extra arguments, got ", defaults_.size());
  for (size_t i = 0; i < defaults_.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      CT_CHECK(defaults_[i].first != defaults_[j].first, Status::Argument, "extra argument '", defaults_[i].first,
               "' is declared twice");
}

namespace {

// The in-memory cache (Note [Jiterator kernels]): the kernel of each generated source, per
// device, kept for the process. The map's lock is held only to find or add an entry; each
// entry has its own lock, held while it is compiled: concurrent first calls of one kernel
// compile it once, and calls of other kernels do not wait for that compile.
struct Kernel {
  cudaLibrary_t library = nullptr;
  cudaKernel_t kernel = nullptr;
};
struct Entry {
  std::mutex mu;
  std::atomic<bool> ready{false};
  Kernel k;
};
std::mutex g_mu;
std::atomic<int64_t> g_compiled{0}, g_from_disk{0};
std::map<std::pair<int, std::string>, std::shared_ptr<Entry>>& entries() {
  static auto* m = new std::map<std::pair<int, std::string>, std::shared_ptr<Entry>>();  // kept for the process
  return *m;
}

Kernel load(const std::string& image) {
  Kernel k;
  cuda::check(cudaLibraryLoadData(&k.library, image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
              "cudaLibraryLoadData (a jiterator kernel)");
  cudaError_t e = cudaLibraryGetKernel(&k.kernel, k.library, kKernelSymbol);
  if (e != cudaSuccess) {
    (void)cudaLibraryUnload(k.library);
    cuda::check(e, "cudaLibraryGetKernel (a jiterator kernel)");
  }
  return k;
}

Kernel kernel_for(int device, const std::string& source, const std::string& name) {
  std::shared_ptr<Entry> entry;
  {
    std::lock_guard<std::mutex> l(g_mu);
    auto& slot = entries()[std::make_pair(device, source)];
    if (!slot) slot = std::make_shared<Entry>();
    entry = slot;
  }
  std::lock_guard<std::mutex> l(entry->mu);
  if (entry->ready.load()) return entry->k;
  int major = 0, minor = 0, driver = 0;
  cuda::check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), "cudaDeviceGetAttribute");
  cuda::check(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device), "cudaDeviceGetAttribute");
  cuda::check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
  const int arch = major * 10 + minor;
  // Note [Jiterator disk cache]: a stored image that the driver refuses is compiled again
  const DiskCache* disk = DiskCache::process();
  std::optional<std::string> stored = disk ? disk->load(source, name, arch, kNvrtcMajor, driver) : std::nullopt;
  Kernel k;
  bool loaded = false;
  if (stored) {
    try {
      k = load(*stored);
      loaded = true;
      ++g_from_disk;
    } catch (const Error&) {
      (void)cudaGetLastError();
    }
  }
  if (!loaded) {
    std::string image = compile_image(source, name + ".cu", arch);
    k = load(image);
    ++g_compiled;
    if (disk) disk->store(source, name, arch, kNvrtcMajor, driver, image);
  }
  entry->k = k;
  entry->ready.store(true);
  return k;
}

// The short key of a kernel within one function (JitFunction::kernels_).
std::string spec_key(int device, const KernelSpec& spec) {
  std::string k;
  auto put = [&](int64_t v) { k += std::to_string(v) + ','; };
  put(device);
  put(static_cast<int>(spec.common));
  for (DType d : spec.inputs) put(static_cast<int>(d));
  k += '|';
  for (DType d : spec.outputs) put(static_cast<int>(d));
  k += '|';
  for (JitArg a : spec.extras) put(static_cast<int>(a));
  put(spec.contiguous);
  put(spec.vec);
  put(spec.ept);
  put(spec.index32);
  return k;
}

void check_same_device(Device dev, const Tensor& t) {
  if (t->device() == dev) return;
  fail(Status::Device, "Expected all tensors to be on the same device, but found at least two devices, ", dev.str(),
       " and ", t->device().str(), "!");
}

}  // namespace

int64_t compiled_kernel_count() {
  std::lock_guard<std::mutex> l(g_mu);
  int64_t n = 0;
  for (const auto& e : entries()) n += e.second->ready.load() ? 1 : 0;
  return n;
}

KernelStats kernel_stats() { return KernelStats{g_compiled.load(), g_from_disk.load()}; }

Extras JitFunction::extras_with(const Extras& overrides) const {
  Extras extras = defaults_;
  for (const auto& o : overrides) {
    auto it = std::find_if(extras.begin(), extras.end(), [&](const auto& e) { return e.first == o.first; });
    CT_CHECK(it != extras.end(), Status::Argument, o.first, " is not declared in function definition");
    it->second = o.second;
  }
  return extras;
}

namespace {

// The checks of a call's tensors (torch's jiterator's, then TensorIterator's); their device:
// the first CUDA one's, outputs first (TensorIterator's order), as torch names it in the message.
void check_call(const std::vector<Tensor>& inputs) {
  cuda::check_available();
  CT_CHECK(!inputs.empty(), Status::Argument, "the jiterator needs at least one tensor input");
  CT_CHECK(static_cast<int>(inputs.size()) <= kMaxJitInputs, Status::Argument,
           "jiterator only supports up to 8 tensor inputs, got ", inputs.size());
}

Device check_devices(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outs) {
  const Tensor* first = nullptr;
  for (const auto* list : {&outs, &inputs})
    for (const Tensor& t : *list)
      if (!first && t->device().is_cuda()) first = &t;
  CT_CHECK(first != nullptr, Status::Device, "the jiterator runs CUDA kernels: its inputs must be CUDA tensors, got ",
           inputs[0]->device().str());
  const Device dev = (*first)->device();
  for (const auto* list : {&outs, &inputs})
    for (const Tensor& t : *list) check_same_device(dev, t);
  return dev;
}

// The bytes [first, last] an output can write (its storage's offsets).
std::pair<int64_t, int64_t> byte_range(const TensorImpl* t) {
  int64_t last = t->offset;
  for (int64_t d = 0; d < t->dim(); ++d) last += (t->sizes[d] - 1) * t->strides[d];
  return {t->offset * t->itemsize(), (last + 1) * t->itemsize() - 1};
}

Shape broadcast_of(const std::vector<Tensor>& inputs) {
  Shape shape = inputs[0]->sizes;
  for (size_t i = 1; i < inputs.size(); ++i) shape = ops::broadcast_shapes(shape, inputs[i]->sizes);
  return shape;
}

}  // namespace

std::vector<Tensor> JitFunction::run(const std::vector<Tensor>& inputs, const Extras& overrides) const {
  check_call(inputs);
  const Device dev = check_devices(inputs, {});
  Extras extras = overrides.empty() ? Extras() : extras_with(overrides);
  const Shape shape = broadcast_of(inputs);
  const DType common = ops::result_type(inputs);
  // the outputs laid out as the inputs are iterated (PyTorch's TensorIterator rule, as the
  // built-in ops): f(x.t()) is laid out like x.t(), and runs as a contiguous kernel
  std::array<const TensorImpl*, kMaxJitInputs> in_ptrs{};
  for (size_t i = 0; i < inputs.size(); ++i) in_ptrs[i] = inputs[i].get();
  const Shape out_strides = cpu::strides_for(shape, in_ptrs.data(), inputs.size());
  std::vector<Tensor> outs;
  for (int o = 0; o < num_outputs_; ++o) {
    outs.push_back(empty_tensor(shape, common, dev));
    outs.back()->strides = out_strides;
  }
  launch(inputs, overrides.empty() ? defaults_ : extras, outs, common, shape, dev);
  return outs;
}

void JitFunction::run_out(const std::vector<Tensor>& inputs, const Extras& overrides,
                          const std::vector<Tensor>& outs) const {
  check_call(inputs);
  CT_CHECK(static_cast<int>(outs.size()) == num_outputs_, Status::Argument, name_, " makes ", num_outputs_,
           " outputs, but ", outs.size(), " were given");
  // TensorIterator's order: memory overlaps, then shapes, then devices and dtypes
  for (size_t i = 0; i < outs.size(); ++i) {
    ops::check_no_internal_overlap(outs[i].get());
    for (size_t j = 0; j < i; ++j) {  // two outputs writing one element (ctorch's check; torch has none)
      const TensorImpl* a = outs[i].get();
      const TensorImpl* b = outs[j].get();
      if (a->storage != b->storage || a->numel() == 0 || b->numel() == 0) continue;
      if (a->offset == b->offset && a->sizes == b->sizes && a->strides == b->strides && a->dtype == b->dtype) continue;
      auto ra = byte_range(a), rb = byte_range(b);
      CT_CHECK(ra.second < rb.first || rb.second < ra.first, Status::Argument,
               "unsupported operation: some elements of the output tensors ", j, " and ", i,
               " refer to a single memory location. Please clone() the tensor before performing the operation.");
    }
  }
  const Shape shape = broadcast_of(inputs);
  for (const Tensor& o : outs)
    CT_CHECK(shape == o->sizes, Status::Shape, "output with shape ", shape_str(o->sizes),
             " doesn't match the broadcast shape ", shape_str(shape));
  const Device dev = check_devices(inputs, outs);
  Extras extras = overrides.empty() ? Extras() : extras_with(overrides);
  const DType common = ops::result_type(inputs);
  for (const Tensor& o : outs) ops::check_inplace_cast(common, o->dtype, name_.c_str());
  // inputs that share memory with an output without being the very same view: read copies
  std::vector<Tensor> ins = inputs;
  for (Tensor& in : ins)
    for (const Tensor& o : outs) in = ops::unaliased(in, o.get());
  launch(ins, overrides.empty() ? defaults_ : extras, outs, common, shape, dev);
}

void JitFunction::launch(const std::vector<Tensor>& inputs, const Extras& extras_in, const std::vector<Tensor>& outs,
                         DType common, const Shape& shape, Device dev) const {
  int64_t numel = 1;
  for (int64_t s : shape) numel *= s;
  if (numel == 0) return;  // no compile, no launch (as torch)

  // operands outputs first; make_operands takes a fixed count: the rest repeat output 0
  constexpr size_t kMax = kMaxJitInputs + kMaxJitOutputs;
  const int nt = num_outputs_ + static_cast<int>(inputs.size());
  std::array<const TensorImpl*, kMax> all;
  for (size_t k = 0; k < kMax; ++k) {
    int i = static_cast<int>(k);
    all[k] = i < num_outputs_ ? outs[static_cast<size_t>(i)].get()
             : i < nt        ? inputs[static_cast<size_t>(i - num_outputs_)].get()
                             : outs[0].get();
  }
  cpu::StridedOperands<kMax> ops = cpu::make_operands<kMax>(shape, all);
  CT_CHECK(ops.shape.size() <= static_cast<size_t>(kMaxJitDims), Status::NotSupported, "jitted kernels support at most ",
           kMaxJitDims, " non-collapsible dimensions, got ", ops.shape.size());
  bool contiguous = ops.shape.size() == 1;
  for (int k = 0; k < nt && contiguous; ++k) contiguous = ops.strides[static_cast<size_t>(k)][0] == all[static_cast<size_t>(k)]->itemsize();

  KernelSpec spec;
  spec.code = code_;
  spec.name = name_;
  for (const Tensor& t : inputs) spec.inputs.push_back(t->dtype);
  spec.num_outputs = num_outputs_;
  // each output's dtype, only when one differs from the common dtype (given outputs)
  if (std::any_of(outs.begin(), outs.end(), [&](const Tensor& o) { return o->dtype != common; }))
    for (const Tensor& o : outs) spec.outputs.push_back(o->dtype);
  spec.common = common;
  spec.return_by_ref = return_by_ref_;
  for (const auto& e : extras_in) spec.extras.push_back(e.second.type);
  spec.contiguous = contiguous;
  if (contiguous) {  // vectors of up to 16 bytes of each operand, where every operand's data is aligned to them
    int64_t widest = 1;
    for (int k = 0; k < nt; ++k) widest = std::max(widest, all[static_cast<size_t>(k)]->itemsize());
    int vec = static_cast<int>(16 / widest);
    auto aligned = [&](int v) {
      for (int k = 0; k < nt; ++k)
        if (reinterpret_cast<uintptr_t>(ops.base[static_cast<size_t>(k)]) %
                static_cast<uintptr_t>(v * all[static_cast<size_t>(k)]->itemsize()) != 0)
          return false;
      return true;
    };
    while (vec > 1 && !aligned(vec)) vec /= 2;
    spec.vec = vec;
    // torch's thread work size: 16 elements a thread where an operand has 1-byte elements, else 8
    int64_t narrowest = 16;
    for (int k = 0; k < nt; ++k) narrowest = std::min(narrowest, all[static_cast<size_t>(k)]->itemsize());
    spec.ept = std::max(vec, narrowest == 1 ? 16 : 8);
  }
  // 32-bit indices and offsets where numel and every operand's span (in bytes) allow
  spec.index32 = numel < (int64_t{1} << 31);
  for (int k = 0; k < nt && spec.index32; ++k) {
    int64_t span = all[static_cast<size_t>(k)]->itemsize();
    for (size_t d = 0; d < ops.shape.size(); ++d) span += (ops.shape[d] - 1) * std::abs(ops.strides[static_cast<size_t>(k)][d]);
    spec.index32 = span < (int64_t{1} << 31);
  }

  cuda::DeviceGuard guard(dev.index);
  LoadedKernel k;
  {
    const std::string key = spec_key(dev.index, spec);
    std::unique_lock<std::mutex> l(mu_);
    auto it = kernels_.find(key);
    if (it != kernels_.end()) {
      k = it->second;
    } else {
      l.unlock();  // the source text and the compile (or a disk load) only at a function's first call of a kind
      Kernel loaded = kernel_for(dev.index, kernel_source(spec), name_);
      k = LoadedKernel{reinterpret_cast<const void*>(loaded.kernel)};
      l.lock();
      kernels_.emplace(key, k);
    }
  }

  // the parameters: one struct of IterLayout, then each extra argument
  std::vector<unsigned char> iter(IterLayout::size(nt), 0);
  auto put = [&](size_t at, const void* v, size_t n) { std::memcpy(iter.data() + at, v, n); };
  int32_t ndim = static_cast<int32_t>(ops.shape.size());
  put(IterLayout::kNdim, &ndim, 4);
  put(IterLayout::kNumel, &numel, 8);
  for (int d = 0; d < ndim; ++d) {
    put(IterLayout::kSizes + 8 * d, &ops.shape[static_cast<size_t>(d)], 8);
    if (spec.index32) {
      DivMagic m = div_magic(static_cast<uint32_t>(ops.shape[static_cast<size_t>(d)]));
      put(IterLayout::kDivMagic + 4 * d, &m.magic, 4);
      put(IterLayout::kDivShift + 4 * d, &m.shift, 4);
    }
    for (int op = 0; op < nt; ++op)
      put(IterLayout::kStrides + static_cast<size_t>(op) * 8 * kMaxJitDims + 8 * d, &ops.strides[static_cast<size_t>(op)][static_cast<size_t>(d)], 8);
  }
  for (int op = 0; op < nt; ++op) put(IterLayout::data(nt) + 8 * static_cast<size_t>(op), &ops.base[static_cast<size_t>(op)], 8);
  std::array<Extra, kMaxJitExtras> vals;  // the extra arguments' values (their addresses are the parameters)
  std::array<void*, kMaxJitExtras + 1> args;
  size_t nargs = 0;
  args[nargs++] = iter.data();
  for (size_t e = 0; e < extras_in.size(); ++e) {
    Extra& x = vals[e] = extras_in[e].second;
    args[nargs++] = (x.type == JitArg::Int64 ? static_cast<void*>(&x.i)
                   : x.type == JitArg::Double ? static_cast<void*>(&x.d)
                                                  : static_cast<void*>(&x.b));
  }
  const cuda::Stream& stream = cuda::current_stream(dev.index);
  // Note [Jiterator blocks]: one block per 128 * ept elements (4 in the strided form)
  const int64_t per_block = 128 * (contiguous ? spec.ept : 4);
  const int64_t blocks = std::min<int64_t>((numel + per_block - 1) / per_block, int64_t{0x7fffffff});
  cuda::check(cudaLaunchKernel(k.fn, dim3(static_cast<unsigned>(blocks)), dim3(128),
                               args.data(), 0, stream->stream),
              "cudaLaunchKernel (a jiterator kernel)");
  cuda::check_launch(name_.c_str(), stream->stream);
  if (csan::on()) {
    std::vector<cuda::CsanTensor> reads, writes;
    for (const Tensor& t : inputs) reads.push_back({t.get(), "inputs"});
    for (const Tensor& t : outs) writes.push_back({t.get(), "out"});
    cuda::csan_kernel(stream, name_.c_str(), reads, writes);
  }
}

}  // namespace ct::jit
