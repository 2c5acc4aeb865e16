// Note [NCCL loads on first use]: like cuBLAS and cuFFT (Note [BLAS libraries load on first
// use]), NCCL is opened with dlopen the first time something needs it, so libctorch.so has no
// link to libnccl.so.2 (a 200 MB library most programs never use) and a machine without it
// runs everything else. nccl.h is used for its types only. Without it, torch.cuda.comm falls
// back to copies (as PyTorch built without NCCL does) and every communicator call fails with
// Status::NotSupported naming the library.
#include "impl/comm/nccl.h"

#include <map>
#include <mutex>

#include "impl/core/error.h"
#include "impl/cuda/runtime.h"

namespace ct::comm {

namespace {
const LazyLibrary<Nccl>& library() {
  static const LazyLibrary<Nccl> lib(cuda_library_names("libnccl.so.2", "libnccl.so"),
                                     "NCCL communication needs NCCL (libnccl.so.2), which could not be loaded:");
  return lib;
}
}  // namespace

const Nccl& nccl() { return library().get(); }

bool nccl_loadable() {
  try {
    library().get();
    return true;
  } catch (const Error&) {
    return false;
  }
}

void nccl_version(int* major, int* minor, int* patch) {
  int v = 0;
  check(nccl().get_version(&v), "ncclGetVersion");
  // NCCL_VERSION(X, Y, Z): X*1000 + Y*100 + Z up to 2.8, X*10000 + Y*100 + Z after
  int base = v < 20900 ? 1000 : 10000;
  *major = v / base;
  *minor = (v % base) / 100;
  *patch = v % 100;
}

std::string nccl_version_string() {
  int a = 0, b = 0, c = 0;
  nccl_version(&a, &b, &c);
  return str_cat(a, ".", b, ".", c);
}

std::string error_message(ncclResult_t r, const char* what, ncclComm_t comm) {
  const Nccl& n = nccl();
  std::string msg = str_cat("NCCL error in ", what, ": ", n.error_string(r));
  switch (r) {
    case ncclUnhandledCudaError: msg += " (a call to a CUDA function failed)"; break;
    case ncclSystemError: msg += " (a system call, e.g. a socket, or a device failed)"; break;
    case ncclRemoteError: msg += " (possibly a network error or a peer that exited)"; break;
    case ncclInvalidUsage: msg += " (this usually reflects invalid usage of NCCL)"; break;
    default: break;
  }
  int v = 0;
  if (n.get_version(&v) == ncclSuccess) msg += str_cat(", NCCL version ", v);
  const char* last = n.last_error(comm);
  if (last && *last) msg += str_cat("\nLast error:\n", last);
  return msg;
}

void check(ncclResult_t r, const char* what, ncclComm_t comm) {
  if (r == ncclSuccess || r == ncclInProgress) return;
  Status code = (r == ncclInvalidArgument || r == ncclInvalidUsage) ? Status::Argument : Status::Comm;
  fail(code, error_message(r, what, comm));
}

ncclDataType_t nccl_dtype(DType dt, const char* op, int* count_factor) {
  if (count_factor) *count_factor = 1;
  switch (dt) {
    case DType::UInt8:
    case DType::Bool: return ncclUint8;
    case DType::Int8: return ncclInt8;
    case DType::Int32: return ncclInt32;
    case DType::Int64: return ncclInt64;
    case DType::Float16: return ncclFloat16;
    case DType::Float32: return ncclFloat32;
    case DType::Float64: return ncclFloat64;
    case DType::BFloat16: return ncclBfloat16;
    case DType::Complex64:
      if (count_factor) *count_factor = 2;
      return ncclFloat32;
    case DType::Complex128:
      if (count_factor) *count_factor = 2;
      return ncclFloat64;
    default: break;
  }
  fail(Status::DType, op, ": input tensor data type is not supported for NCCL: ", dtype_name(dt),
       " (NCCL has uint8, int8, int32, int64, float16, float32, float64, bfloat16, bool and complex)");
}

Clique& clique(const std::vector<int>& devices) {
  static std::mutex mu;                                  // the map
  static auto* launches = new std::mutex();              // Clique::mu of every clique
  static auto* cliques = new std::map<std::vector<int>, Clique>();  // never destroyed
  std::lock_guard<std::mutex> lock(mu);
  auto it = cliques->find(devices);
  if (it != cliques->end()) return it->second;
  std::vector<ncclComm_t> comms(devices.size(), nullptr);
  check(nccl().init_all(comms.data(), static_cast<int>(devices.size()), devices.data()), "ncclCommInitAll");
  return cliques->emplace(devices, Clique{std::move(comms), *launches}).first->second;
}

}  // namespace ct::comm
