// Note [NCCL loads on first use]: like cuBLAS and cuFFT (Note [BLAS libraries load on first
// use]), NCCL is opened with dlopen the first time something needs it, so libctorch.so has no
// link to libnccl.so.2 (a 200 MB library most programs never use) and a machine without it
// runs everything else. nccl.h is used for its types only. Without it, torch.cuda.comm falls
// back to copies (as PyTorch built without NCCL does) and every communicator call fails with
// Status::NotSupported naming the library.
#include "impl/comm/nccl.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "impl/core/error.h"
#include "impl/cuda/runtime.h"

namespace ct::comm {

namespace {
// Note [NCCL connects at init]: since 2.22 NCCL connects a communicator's peers lazily, at the
// first collective that needs each algorithm (NCCL_RUNTIME_CONNECT=1). On a blocking
// communicator that connection is a wait on the caller's thread for peers, with no bound; on a
// nonblocking one it is an ncclInProgress that ctorch polls within the timeout. ctorch's fast
// communicators (Note [Fast collectives] in communicator.cc) are blocking, so before NCCL first
// runs in the process ctorch asks it to connect every collective algorithm when a communicator
// is made (NCCL_RUNTIME_CONNECT=0, as NCCL did before 2.22), inside the bounded wait of init and
// split. NCCL reads the variable once and keeps it, so ctorch sets it only when nobody has (an
// explicit 0 or 1 is the user's choice: 0 turns the fast path on, 1 off) and NCCL is not yet in
// the process: a libnccl.so.2 that another library (torch) loaded may have read its default
// already, which ctorch cannot see, so then the fast path stays off and the environment as it
// was (docs/comm.md, "Timeouts").
bool set_connect_at_init() {
  if (const char* v = std::getenv("NCCL_RUNTIME_CONNECT")) return std::strcmp(v, "0") == 0;
  for (const std::string& name : cuda_library_names("libnccl.so.2", "libnccl.so")) {
    if (void* h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD)) {
      dlclose(h);
      return false;
    }
  }
  return setenv("NCCL_RUNTIME_CONNECT", "0", 0) == 0;
}
bool& connects_at_init_flag() {
  static bool on = false;
  return on;
}

const LazyLibrary<Nccl>& library() {
  static const bool connect = connects_at_init_flag() = set_connect_at_init();
  (void)connect;
  static const LazyLibrary<Nccl> lib(cuda_library_names("libnccl.so.2", "libnccl.so"),
                                     "NCCL communication needs NCCL (libnccl.so.2), which could not be loaded:");
  return lib;
}
}  // namespace

const Nccl& nccl() { return library().get(); }

bool connects_at_init() {
  library();
  return connects_at_init_flag();
}

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

bool nccl_type_of(DType dt, ncclDataType_t* type, int* count_factor) {
  int factor = 1;
  switch (dt) {
    case DType::UInt8:
    case DType::Bool: *type = ncclUint8; break;
    case DType::Int8: *type = ncclInt8; break;
    case DType::Int32: *type = ncclInt32; break;
    case DType::Int64: *type = ncclInt64; break;
    case DType::Float16: *type = ncclFloat16; break;
    case DType::Float32: *type = ncclFloat32; break;
    case DType::Float64: *type = ncclFloat64; break;
    case DType::BFloat16: *type = ncclBfloat16; break;
    case DType::Complex64: *type = ncclFloat32, factor = 2; break;
    case DType::Complex128: *type = ncclFloat64, factor = 2; break;
    default: return false;
  }
  if (count_factor) *count_factor = factor;
  return true;
}

ncclResult_t comm_state(ncclComm_t c) {
  ncclResult_t st = ncclSuccess;
  ncclResult_t q = nccl().async_error(c, &st);
  return q != ncclSuccess ? q : st;
}

ncclDataType_t nccl_dtype(DType dt, const char* op, int* count_factor) {
  ncclDataType_t type;
  if (nccl_type_of(dt, &type, count_factor)) return type;
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
