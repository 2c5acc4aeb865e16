/*
 * ctorch.h — the whole public C contract of libctorch.so.
 *
 * ctorch brings PyTorch's tensor and torch.cuda semantics to C, Java, C# and Go. This header
 * is the only thing a program (or a binding) ever sees; everything else is private to the .so.
 *
 * ============================================================================================
 * Rules of the ABI
 * ============================================================================================
 *  1. C types only. No C++ type, exception, STL type or CUDA type crosses this boundary.
 *     Handles are opaque pointers to incomplete structs, one distinct type per kind.
 *  2. Every function returns a ct_status (CT_OK == 0 on success). The only exceptions are the
 *     error-query functions of section 2, which cannot fail. No function throws, aborts or
 *     longjmps; a C++ exception inside the library becomes a status and a message.
 *  3. Errors: on failure a function returns a non-zero code (grouped by range, section 2) and
 *     stores a message in thread-local storage, readable with ct_last_error_message() right
 *     after the call on the same thread. Out-parameters are left untouched on failure.
 *     The one exception: functions that write a string into a caller buffer still set
 *     *needed when they fail with CT_ERR_BUFFER_SIZE, so the caller can size the buffer.
 *     A binding whose threads may change between two native calls (Go) reads the message
 *     within the same locked thread (see docs/abi.md, "Reading the error message").
 *  4. Ownership: every out-parameter is marked either [new reference] (the caller owns it and
 *     must release it exactly once with the matching *_release) or [borrowed] (valid only until
 *     the next ctorch call on the same thread; never released by the caller).
 *  5. Handles are validated on every call: a NULL, released ("freed") or foreign handle gives
 *     CT_ERR_INVALID_HANDLE, never a crash. Releasing a handle twice is an error, not a crash.
 *  6. Versioning: additions only within a major version. A changed signature gets a `_v2`
 *     twin; the old function stays. Enum values are never renumbered. The enum blocks marked
 *     GENERATED come from capi/abi.toml (python3 tools/abi/gen.py --write); every function
 *     and enum value is listed in capi/abi_baseline.txt (docs/abi.md).
 *  7. Thread safety: every function may be called from any thread. Operations that write a
 *     tensor's data in place must not race with other uses of that tensor (as in PyTorch).
 *
 * Sizes, dims and counts are int64_t / int32_t; booleans are int32_t (0 false, non-zero true).
 * Host buffers are raw bytes in the tensor's dtype, C-contiguous (row-major), native endian.
 */
#ifndef CTORCH_H
#define CTORCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef CT_API
#define CT_API __attribute__((visibility("default")))
#endif

/* ============================================================================================
 * 1. Version
 * ========================================================================================== */

/** Compile-time version of this header. */
#define CT_VERSION_MAJOR 0
#define CT_VERSION_MINOR 1
#define CT_VERSION_PATCH 0

/** Runtime version of the loaded library. A program built against major M runs on any
 *  library of major M whose minor is >= the minor it was built with.
 *  Out: *major, *minor, *patch (each may be NULL to skip). */
CT_API int32_t ct_version(int32_t* major, int32_t* minor, int32_t* patch);

/* ============================================================================================
 * 2. Status codes and error messages
 * ========================================================================================== */

/** A status code. 0 is success; non-zero codes are grouped by range (code / 100):
 *    1xx argument     the caller passed something invalid
 *    2xx state        the call is valid but not in the library's current state
 *    3xx device       device mismatch, CUDA unavailable, CUDA runtime errors
 *    4xx memory       out of memory (host or device)
 *    5xx not supported
 *    9xx internal     a bug in ctorch; please report it */
typedef int32_t ct_status;

/* BEGIN GENERATED: status */
enum {
  CT_OK = 0,                     /* success */

  CT_ERR_ARGUMENT = 100,         /* generic invalid argument (bad value, bad string...) */
  CT_ERR_NULL_POINTER = 101,     /* a required pointer argument was NULL */
  CT_ERR_INVALID_HANDLE = 102,   /* NULL, released or foreign handle */
  CT_ERR_SHAPE = 103,            /* sizes do not match / cannot broadcast / bad view */
  CT_ERR_DTYPE = 104,            /* dtype not allowed for this operation or cast not allowed */
  CT_ERR_INDEX = 105,            /* dim or index out of range */
  CT_ERR_BUFFER_SIZE = 106,      /* host buffer too small or of the wrong size */
  CT_ERR_DEVICE_STRING = 107,    /* a device string that does not parse */

  CT_ERR_STATE = 200,            /* valid call in a state that does not allow it */
  CT_ERR_TIMEOUT = 201,          /* a wait ran past its timeout (a communicator that timed out is aborted) */
  CT_ERR_DATA_RACE = 202,        /* the stream sanitizer found an unsynchronized access across streams (the op's kernel was queued) */

  CT_ERR_DEVICE = 300,           /* inputs on different devices, or wrong device for the op */
  CT_ERR_CUDA_UNAVAILABLE = 301, /* no GPU / no driver / CUDA could not start */
  CT_ERR_CUDA = 302,             /* an error reported by the CUDA runtime */
  CT_ERR_COMM = 303,             /* an error NCCL or a peer reported; the communicator cannot be used any more */

  CT_ERR_OUT_OF_MEMORY = 400,    /* host or device allocation failed */

  CT_ERR_NOT_SUPPORTED = 500,    /* not supported (for this dtype/device, or not yet) */

  CT_ERR_INTERNAL = 900          /* a bug in ctorch */
};
/* END GENERATED: status */

/** The message of the last failed call on this thread ("" if none). [borrowed] until the next
 *  failing ctorch call on this thread. Never NULL. Cannot fail. */
CT_API const char* ct_last_error_message(void);

/** The status code of the last failed call on this thread (CT_OK if none). Cannot fail. */
CT_API ct_status ct_last_error_code(void);

/** Copies the last error message of this thread into buf (NUL-terminated, truncated to cap-1
 *  bytes) and returns the full message length in bytes (without the NUL). buf may be NULL
 *  when cap is 0 (to ask for the length). Cannot fail. */
CT_API int64_t ct_last_error_copy(void* buf, int64_t cap);

/** Clears this thread's last error (code CT_OK, message ""). Cannot fail. */
CT_API void ct_clear_error(void);

/** The name of a status code, e.g. "CT_ERR_SHAPE"; "CT_UNKNOWN" for unknown codes.
 *  [borrowed] static string. Cannot fail. */
CT_API const char* ct_status_name(ct_status code);

/* ============================================================================================
 * 3. Data types and devices
 * ========================================================================================== */

/** Element types. The numbers are PyTorch's c10::ScalarType numbers. */
typedef int32_t ct_dtype;
/* BEGIN GENERATED: dtype */
enum {
  CT_UINT8 = 0,
  CT_INT8 = 1,
  CT_INT16 = 2,
  CT_INT32 = 3,
  CT_INT64 = 4,
  CT_FLOAT16 = 5,
  CT_FLOAT32 = 6,
  CT_FLOAT64 = 7,
  CT_COMPLEX64 = 9,
  CT_COMPLEX128 = 10,
  CT_BOOL = 11,
  CT_BFLOAT16 = 15,
  /** "No dtype given": for *_like, new_* and to(), keep the input's dtype. */
  CT_DTYPE_UNDEFINED = -1
};
/* END GENERATED: dtype */

/** Size in bytes of one element of dtype (e.g. 4 for CT_FLOAT32). Out: *out. */
CT_API ct_status ct_dtype_itemsize(ct_dtype dtype, int64_t* out);

/** PyTorch's name of a dtype ("torch.float32", ...) into buf, NUL-terminated.
 *  Out: *needed = length without the NUL. CT_ERR_BUFFER_SIZE when cap <= length. */
CT_API ct_status ct_dtype_name(ct_dtype dtype, void* buf, int64_t cap, int64_t* needed);

/** PyTorch's type promotion of two dtypes (torch.promote_types). Out: *out. */
CT_API ct_status ct_promote_types(ct_dtype a, ct_dtype b, ct_dtype* out);

/** Device types. A device is (type, index); index -1 means "no index": for CUDA that is the
 *  current CUDA device, for CPU it is the only CPU device. */
typedef int32_t ct_device_type;
/* BEGIN GENERATED: device_type */
enum {
  CT_CPU = 0,
  CT_CUDA = 1
};
/* END GENERATED: device_type */

/** Parses "cpu", "cpu:0", "cuda", "cuda:N" exactly as torch.device does.
 *  Out: *type, *index (-1 when the string has no index). Errors: CT_ERR_DEVICE_STRING. */
CT_API ct_status ct_device_parse(const char* str, ct_device_type* type, int32_t* index);

/** Formats a device as torch prints it ("cpu", "cuda", "cuda:1") into buf (NUL-terminated).
 *  Out: *needed = length without the NUL. Errors: CT_ERR_BUFFER_SIZE when cap <= length
 *  (*needed is still set), CT_ERR_ARGUMENT for an invalid device. */
CT_API ct_status ct_device_format(ct_device_type type, int32_t index, void* buf, int64_t cap,
                                  int64_t* needed);

/* ============================================================================================
 * 3a. Handles: one opaque type per kind (a C compiler rejects one kind passed for another)
 * ========================================================================================== */

/** An opaque tensor handle. A handle is one counted reference to a tensor; views are
 *  different tensors that share storage with their base. */
typedef struct ct_tensor_s* ct_tensor;
/** A CUDA stream (section 13) and a CUDA event (section 14). */
typedef struct ct_stream_s* ct_stream;
typedef struct ct_event_s* ct_event;
/** A random number generator (section 16). */
typedef struct ct_generator_s* ct_generator;
/** A CUDA graph and a graphed callable (section 19). */
typedef struct ct_cuda_graph_s* ct_cuda_graph;
typedef struct ct_cuda_graphed_s* ct_cuda_graphed;
/** An NCCL communicator (section 21). */
typedef struct ct_nccl_comm_s* ct_nccl_comm;

/* ============================================================================================
 * 4. CUDA devices
 *
 * CUDA is reached through the statically linked CUDA runtime, so the library loads and runs on
 * CPU on a machine without a GPU or a driver. There, ct_cuda_is_available reports 0,
 * ct_cuda_device_count reports 0, and every call that needs a GPU fails with
 * CT_ERR_CUDA_UNAVAILABLE and a message giving the reason (e.g. "no CUDA driver").
 * CUDA_VISIBLE_DEVICES is honoured by the CUDA runtime: it decides which GPUs exist and
 * their order (index 0 is the first visible GPU).
 * ========================================================================================== */

/** Out: *out = 1 when at least one CUDA device can be used, else 0. Never fails for lack of a
 *  GPU. */
CT_API ct_status ct_cuda_is_available(int32_t* out);

/** Out: *out = number of visible CUDA devices (0 without GPU or driver). */
CT_API ct_status ct_cuda_device_count(int32_t* out);

/** Succeeds when CUDA can be used; otherwise fails with CT_ERR_CUDA_UNAVAILABLE and a message
 *  saying why (the reason the CUDA runtime gave). */
CT_API ct_status ct_cuda_check_available(void);

/** The device's name (e.g. "NVIDIA H100 80GB HBM3") into buf, NUL-terminated.
 *  Out: *needed = length without the NUL. Errors: CT_ERR_CUDA_UNAVAILABLE, CT_ERR_INDEX for
 *  a bad device index, CT_ERR_BUFFER_SIZE when cap <= length (*needed is still set). */
CT_API ct_status ct_cuda_get_device_name(int32_t device, void* buf, int64_t cap, int64_t* needed);

/** Integer device properties for ct_cuda_get_device_property. */
typedef int32_t ct_device_property;
/* BEGIN GENERATED: device_property */
enum {
  CT_PROP_MAJOR = 0,                          /* compute capability major */
  CT_PROP_MINOR = 1,                          /* compute capability minor */
  CT_PROP_TOTAL_MEMORY = 2,                   /* bytes of global memory */
  CT_PROP_MULTIPROCESSOR_COUNT = 3,           /* number of SMs */
  CT_PROP_L2_CACHE_SIZE = 4,                  /* bytes */
  CT_PROP_WARP_SIZE = 5,
  CT_PROP_MAX_THREADS_PER_MULTIPROCESSOR = 6,
  CT_PROP_IS_INTEGRATED = 7,
  CT_PROP_PCI_BUS_ID = 8
};
/* END GENERATED: device_property */

/** One integer property of a CUDA device. Out: *out. Errors: CT_ERR_CUDA_UNAVAILABLE,
 *  CT_ERR_INDEX (device), CT_ERR_ARGUMENT (unknown property). */
CT_API ct_status ct_cuda_get_device_property(int32_t device, ct_device_property prop,
                                             int64_t* out);

/** Compute capability as (major, minor), e.g. (9, 0) on H100. Out: *major, *minor. */
CT_API ct_status ct_cuda_get_device_capability(int32_t device, int32_t* major, int32_t* minor);

/** The current CUDA device of the calling host thread (torch.cuda.current_device()).
 *  Out: *out. Errors: CT_ERR_CUDA_UNAVAILABLE. */
CT_API ct_status ct_cuda_current_device(int32_t* out);

/** Makes device the current CUDA device of the calling thread (torch.cuda.set_device). A
 *  negative device changes nothing (and succeeds), as in torch. Errors: CT_ERR_INDEX for a
 *  device that is not visible. */
CT_API ct_status ct_cuda_set_device(int32_t device);

/** The device guard (`with torch.cuda.device(d):`) for C: makes device current and returns
 *  the previous current device in *prev; restore it with ct_cuda_set_device(*prev) when the
 *  scope ends (a no-op when *prev is -1). A negative device changes nothing (*prev is still set when CUDA is available;
 *  it is -1 when CUDA is unavailable). The bindings wrap this pair in a scoped object. */
CT_API ct_status ct_cuda_exchange_device(int32_t device, int32_t* prev);

/** The guard on a tensor's device (torch.cuda.device_of(t)): like ct_cuda_exchange_device
 *  with t's device; for a CPU tensor nothing changes and *prev is -1. */
CT_API ct_status ct_cuda_exchange_device_of(ct_tensor t, int32_t* prev);

/** Waits until all work on device (-1: the current device) is done
 *  (torch.cuda.synchronize(device)). */
CT_API ct_status ct_cuda_synchronize(int32_t device);

/** Free and total device memory in bytes, as cudaMemGetInfo (torch.cuda.mem_get_info).
 *  device -1 is the current device. Out: *free_bytes, *total_bytes. */
CT_API ct_status ct_cuda_mem_get_info(int32_t device, int64_t* free_bytes, int64_t* total_bytes);

/** Out: *out = 1 when device can access peer's memory directly (0 for device == peer, as
 *  torch.cuda.can_device_access_peer). */
CT_API ct_status ct_cuda_can_device_access_peer(int32_t device, int32_t peer, int32_t* out);

/** The architectures this library was built for, space separated ("sm_80 sm_90 compute_90"),
 *  as torch.cuda.get_arch_list(), into buf (string convention of ct_tensor_repr). Works
 *  without a GPU. */
CT_API ct_status ct_cuda_get_arch_list(void* buf, int64_t cap, int64_t* needed);

/** The nvcc -gencode flags of this build (torch.cuda.get_gencode_flags()), into buf. */
CT_API ct_status ct_cuda_get_gencode_flags(void* buf, int64_t cap, int64_t* needed);

/** torch.cuda.set_sync_debug_mode: 0 silent, 1 warn (on stderr), 2 error (CT_ERR_STATE) when an
 *  operation makes the host wait for the GPU (item, copies to the host, stream synchronize).
 *  Explicit device and event synchronization are not reported, as in PyTorch.
 *  Process-wide. Errors: CT_ERR_ARGUMENT for other values. */
CT_API ct_status ct_cuda_set_sync_debug_mode(int32_t mode);
CT_API ct_status ct_cuda_get_sync_debug_mode(int32_t* out);

/* ============================================================================================
 * 5. Tensors: handles, metadata, lifetime
 * ========================================================================================== */


/** Adds one reference to the tensor behind t; release it with ct_tensor_release. The value of
 *  the handle does not change. */
CT_API ct_status ct_tensor_retain(ct_tensor t);

/** Drops one reference. When the last reference goes, the handle becomes invalid (later use
 *  gives CT_ERR_INVALID_HANDLE) and the tensor's storage is freed once no view uses it.
 *  Releasing NULL is CT_ERR_INVALID_HANDLE (not a crash), as is releasing twice. */
CT_API ct_status ct_tensor_release(ct_tensor t);

/** Number of live tensor handles in this process (for leak checks in tests): handles, not
 *  references, so ct_tensor_retain does not change it. Out: *out. */
CT_API ct_status ct_live_tensor_count(int64_t* out);

/** Out: *out = number of dimensions (0 for a scalar tensor). */
CT_API ct_status ct_tensor_dim(ct_tensor t, int32_t* out);
/** Out: *out = size of dimension dim (negative dims count from the end). Errors: CT_ERR_INDEX. */
CT_API ct_status ct_tensor_size(ct_tensor t, int32_t dim, int64_t* out);
/** Out: *out = stride (in elements) of dimension dim. Errors: CT_ERR_INDEX. */
CT_API ct_status ct_tensor_stride(ct_tensor t, int32_t dim, int64_t* out);
/** Copies the sizes into dst[0..cap). Out: *ndim = number of dims. CT_ERR_BUFFER_SIZE when
 *  cap < ndim (*ndim still set). */
CT_API ct_status ct_tensor_sizes(ct_tensor t, int64_t* dst, int32_t cap, int32_t* ndim);
/** Copies the strides (in elements) into dst[0..cap), like ct_tensor_sizes. */
CT_API ct_status ct_tensor_strides(ct_tensor t, int64_t* dst, int32_t cap, int32_t* ndim);
/** Out: *out = number of elements. */
CT_API ct_status ct_tensor_numel(ct_tensor t, int64_t* out);
/** Out: *out = storage offset in elements. */
CT_API ct_status ct_tensor_storage_offset(ct_tensor t, int64_t* out);
/** Out: *out = the dtype. */
CT_API ct_status ct_tensor_dtype(ct_tensor t, ct_dtype* out);
/** Out: *type, *index (CPU tensors report index -1; CUDA tensors a concrete index). */
CT_API ct_status ct_tensor_device(ct_tensor t, ct_device_type* type, int32_t* index);
/** Out: *out = 1 when the tensor is C-contiguous. */
CT_API ct_status ct_tensor_is_contiguous(ct_tensor t, int32_t* out);
/** tensor.data_ptr(): the address of the first element (host or device memory; 0 for an
 *  empty tensor), for handing the data to other libraries. Borrowed: valid while the tensor's
 *  storage lives. Out: *out. */
CT_API ct_status ct_tensor_data_ptr(ct_tensor t, int64_t* out);
/** Out: *out = 1 when a and b share the same storage (a view and its base, for instance). */
CT_API ct_status ct_tensor_shares_storage(ct_tensor a, ct_tensor b, int32_t* out);
/** Out: *out = 1 when a and b are the very same tensor (Python's `a is b`). */
CT_API ct_status ct_tensor_is_same(ct_tensor a, ct_tensor b, int32_t* out);

/** The tensor printed like PyTorch's repr, e.g. "tensor([1., 2.])" or
 *  "tensor([1, 2], device='cuda:0', dtype=torch.int32)", into buf (NUL-terminated).
 *  Out: *needed = length without the NUL. CT_ERR_BUFFER_SIZE when cap <= length (*needed is
 *  still set, so call once with cap 0 to size the buffer). */
CT_API ct_status ct_tensor_repr(ct_tensor t, void* buf, int64_t cap, int64_t* needed);

/* ============================================================================================
 * 6. Factories. sizes points to ndim int64_t (may be NULL when ndim == 0: a scalar tensor).
 *    Device: (type, index) as in section 3; (CT_CUDA, -1) means the current CUDA device.
 *    Every out tensor is a [new reference].
 * ========================================================================================== */

/** An uninitialized tensor, as torch.empty; a CT_BOOL one starts all false (its elements are
 *  only ever the bytes 0 and 1; docs/differences.md). */
CT_API ct_status ct_empty(const int64_t* sizes, int32_t ndim, ct_dtype dtype,
                          ct_device_type dev_type, int32_t dev_index, ct_tensor* out);
CT_API ct_status ct_zeros(const int64_t* sizes, int32_t ndim, ct_dtype dtype,
                          ct_device_type dev_type, int32_t dev_index, ct_tensor* out);
CT_API ct_status ct_ones(const int64_t* sizes, int32_t ndim, ct_dtype dtype,
                         ct_device_type dev_type, int32_t dev_index, ct_tensor* out);
/** Every element is value (converted to dtype as torch.full does; complex gets imag 0). Errors:
 *  CT_ERR_ARGUMENT "value cannot be converted to type int8_t without overflow" for a value
 *  outside the dtype's range (NaN or an infinity for an integer dtype; a finite value beyond
 *  float16's, bfloat16's or float32's largest), as torch. */
CT_API ct_status ct_full(const int64_t* sizes, int32_t ndim, double value, ct_dtype dtype,
                         ct_device_type dev_type, int32_t dev_index, ct_tensor* out);
/** torch.arange(start, end, step): ceil((end - start) / step) elements start + i * step.
 *  Errors: CT_ERR_ARGUMENT for a start, end or step that is not finite (inf, NaN), step 0, or
 *  a step whose sign disagrees with end - start. */
CT_API ct_status ct_arange(double start, double end, double step, ct_dtype dtype,
                           ct_device_type dev_type, int32_t dev_index, ct_tensor* out);
/** torch.linspace(start, end, steps). Errors: CT_ERR_ARGUMENT for steps < 0. */
CT_API ct_status ct_linspace(double start, double end, int64_t steps, ct_dtype dtype,
                             ct_device_type dev_type, int32_t dev_index, ct_tensor* out);
/** torch.eye(n, m): ones on the diagonal. m = -1 means m = n (torch's m=None). Errors:
 *  CT_ERR_ARGUMENT for n < 0 or m < -1 ("eye: m must be greater or equal to 0, got -2"). */
CT_API ct_status ct_eye(int64_t n, int64_t m, ct_dtype dtype, ct_device_type dev_type,
                        int32_t dev_index, ct_tensor* out);
/** A new tensor holding a copy of a host buffer of nbytes bytes, in dtype, C-contiguous
 *  (torch.tensor(data, dtype=dtype, device=device)). Errors: CT_ERR_BUFFER_SIZE when nbytes
 *  is not numel * itemsize; CT_ERR_NULL_POINTER when data is NULL and nbytes > 0. */
CT_API ct_status ct_from_buffer(const void* data, int64_t nbytes, const int64_t* sizes,
                                int32_t ndim, ct_dtype dtype, ct_device_type dev_type,
                                int32_t dev_index, ct_tensor* out);

/** *_like: same shape, device and dtype as t (dtype overridable; CT_DTYPE_UNDEFINED keeps). */
CT_API ct_status ct_empty_like(ct_tensor t, ct_dtype dtype, ct_tensor* out);
CT_API ct_status ct_zeros_like(ct_tensor t, ct_dtype dtype, ct_tensor* out);
CT_API ct_status ct_ones_like(ct_tensor t, ct_dtype dtype, ct_tensor* out);
CT_API ct_status ct_full_like(ct_tensor t, double value, ct_dtype dtype, ct_tensor* out);

/** new_*: a new shape, with the device and dtype of t (dtype overridable). */
CT_API ct_status ct_new_empty(ct_tensor t, const int64_t* sizes, int32_t ndim, ct_dtype dtype,
                              ct_tensor* out);
CT_API ct_status ct_new_zeros(ct_tensor t, const int64_t* sizes, int32_t ndim, ct_dtype dtype,
                              ct_tensor* out);
CT_API ct_status ct_new_ones(ct_tensor t, const int64_t* sizes, int32_t ndim, ct_dtype dtype,
                             ct_tensor* out);
CT_API ct_status ct_new_full(ct_tensor t, const int64_t* sizes, int32_t ndim, double value,
                             ct_dtype dtype, ct_tensor* out);
/** new_tensor: a copy of a host buffer whose elements are of buffer_dtype, converted to the
 *  dtype of t (or dtype when given), on the device of t. */
CT_API ct_status ct_new_tensor(ct_tensor t, const void* data, int64_t nbytes,
                               const int64_t* sizes, int32_t ndim, ct_dtype buffer_dtype,
                               ct_dtype dtype, ct_tensor* out);

/* ============================================================================================
 * 7. Moving data
 * ========================================================================================== */

/** Copies the elements of t, in its dtype, C-contiguous, into a host buffer of exactly
 *  numel * itemsize bytes. Errors: CT_ERR_BUFFER_SIZE when nbytes differs. Synchronous. */
CT_API ct_status ct_tensor_copy_to_buffer(ct_tensor t, void* data, int64_t nbytes);

/** tensor.to(device, dtype, non_blocking, copy). dtype CT_DTYPE_UNDEFINED keeps the dtype.
 *  When device and dtype already match and copy == 0, *out is t itself ([new reference] to the
 *  same tensor: ct_tensor_is_same(t, *out) is 1), as in PyTorch. Copies between host and
 *  device wait for the stream unless non_blocking; with non_blocking, a copy from pinned memory
 *  to the GPU, or from the GPU to the CPU (the result is then pinned), returns at once and the
 *  caller synchronizes (stream, event or device) before reading. */
CT_API ct_status ct_tensor_to(ct_tensor t, ct_device_type dev_type, int32_t dev_index,
                              ct_dtype dtype, int32_t non_blocking, int32_t copy, ct_tensor* out);

/** dst.copy_(src): copies src into dst, broadcasting src to dst's shape and converting dtype
 *  and device (between GPUs too). non_blocking as in ct_tensor_to. Errors: CT_ERR_SHAPE when
 *  src does not broadcast to dst. */
CT_API ct_status ct_tensor_copy_(ct_tensor dst, ct_tensor src, int32_t non_blocking);

/** A contiguous copy with its own storage (tensor.clone()). [new reference] */
CT_API ct_status ct_tensor_clone(ct_tensor t, ct_tensor* out);

/** item(): the single element of a one-element tensor, as double (complex: real part; bool:
 *  0 or 1). Errors: CT_ERR_SHAPE when numel != 1. */
CT_API ct_status ct_tensor_item_double(ct_tensor t, double* out);
/** item() as int64 (floating values are truncated toward zero, like int(t.item())). */
CT_API ct_status ct_tensor_item_int64(ct_tensor t, int64_t* out);
/** item() of a complex (or real) tensor as (real, imag). */
CT_API ct_status ct_tensor_item_complex(ct_tensor t, double* re, double* im);

/* ============================================================================================
 * 8. Views. Each result shares storage with t. [new reference]
 *    Dims may be negative (counted from the end), as in PyTorch.
 * ========================================================================================== */

/** tensor.view(sizes): one size may be -1 (inferred). Errors: CT_ERR_SHAPE when the numel
 *  differs or the strides do not allow a view (use reshape). */
CT_API ct_status ct_view(ct_tensor t, const int64_t* sizes, int32_t ndim, ct_tensor* out);
/** tensor.reshape(sizes): a view when possible, else a contiguous copy. */
CT_API ct_status ct_reshape(ct_tensor t, const int64_t* sizes, int32_t ndim, ct_tensor* out);
/** tensor.permute(dims): dims must be a permutation of 0..ndim-1. */
CT_API ct_status ct_permute(ct_tensor t, const int64_t* dims, int32_t ndim, ct_tensor* out);
CT_API ct_status ct_transpose(ct_tensor t, int32_t dim0, int32_t dim1, ct_tensor* out);
/** tensor.narrow(dim, start, length). */
CT_API ct_status ct_narrow(ct_tensor t, int32_t dim, int64_t start, int64_t length,
                           ct_tensor* out);
/** tensor[..., start:end:step, ...] along dim; start/end clamp like Python slices; step > 0. */
CT_API ct_status ct_slice(ct_tensor t, int32_t dim, int64_t start, int64_t end, int64_t step,
                          ct_tensor* out);
/** tensor.select(dim, index): removes dim. Negative index counts from the end. */
CT_API ct_status ct_select(ct_tensor t, int32_t dim, int64_t index, ct_tensor* out);
/** tensor.expand(sizes): -1 keeps a size; only size-1 dims can grow (stride 0). */
CT_API ct_status ct_expand(ct_tensor t, const int64_t* sizes, int32_t ndim, ct_tensor* out);
/** tensor.squeeze(): removes every size-1 dim. */
CT_API ct_status ct_squeeze(ct_tensor t, ct_tensor* out);
/** tensor.squeeze(dim): removes dim if its size is 1, else returns a view of the same shape. */
CT_API ct_status ct_squeeze_dim(ct_tensor t, int32_t dim, ct_tensor* out);
/** tensor.unsqueeze(dim), dim in [-ndim-1, ndim]. */
CT_API ct_status ct_unsqueeze(ct_tensor t, int32_t dim, ct_tensor* out);
/** tensor.flatten(start_dim, end_dim) (a view when possible). */
CT_API ct_status ct_flatten(ct_tensor t, int32_t start_dim, int32_t end_dim, ct_tensor* out);
/** tensor.contiguous(): t itself when already contiguous, else a contiguous copy. */
CT_API ct_status ct_contiguous(ct_tensor t, ct_tensor* out);

/* ============================================================================================
 * 9. Elementwise operations: broadcasting and PyTorch's type promotion.
 *    Results are [new reference]s on the inputs' device. Inputs on different devices fail
 *    with CT_ERR_DEVICE, except 0-dim CPU tensors, which act as scalars.
 * ========================================================================================== */

typedef int32_t ct_unary_op;
/* BEGIN GENERATED: unary_op */
enum {
  CT_NEG = 0,          /* -x (not for bool) */
  CT_ABS = 1,          /* |x| (complex: magnitude, real result) */
  CT_EXP = 2,          /* the float ops below promote integer/bool inputs to float32 */
  CT_LOG = 3,
  CT_SQRT = 4,
  CT_SIN = 5,
  CT_COS = 6,
  CT_TANH = 7,
  CT_SIGMOID = 8,
  CT_RELU = 9,         /* max(x, 0), keeps dtype (not for bool or complex) */
  CT_LOGICAL_NOT = 10, /* bool result */
  CT_SIGN = 11,        /* keeps dtype */
  CT_FLOOR = 12,       /* integers unchanged */
  CT_CEIL = 13,
  CT_ROUND = 14,       /* half to even, as torch.round */
  CT_RECIPROCAL = 15,  /* 1/x; integers promote to float32 */
  CT_SQUARE = 16,      /* x*x, keeps dtype (bool -> int64 as torch.square) */
  CT_ERF = 17,         /* the Gauss error function; integers promote to float32 */
  CT_SILU = 18,        /* x * sigmoid(x) (torch.nn.functional.silu; not for complex) */
  CT_ISNAN = 19,       /* bool result: x != x (false for integers and bool) */
  CT_ISINF = 20,       /* bool result: +-inf (complex: either part) */
  CT_ISFINITE = 21     /* bool result: neither NaN nor +-inf (true for integers and bool) */
};
/* END GENERATED: unary_op */

typedef int32_t ct_binary_op;
/* BEGIN GENERATED: binary_op */
enum {
  CT_ADD = 0,
  CT_SUB = 1,           /* not with a bool operand (PyTorch: use logical_not / logical_xor) */
  CT_MUL = 2,
  CT_DIV = 3,           /* true division: integers promote to float32 */
  CT_POW = 4,
  CT_EQ = 5,            /* comparisons give bool */
  CT_NE = 6,
  CT_LT = 7,
  CT_LE = 8,
  CT_GT = 9,
  CT_GE = 10,
  CT_LOGICAL_AND = 11,  /* bool result */
  CT_LOGICAL_OR = 12,
  CT_LOGICAL_XOR = 13,
  CT_MAXIMUM = 14,      /* torch.maximum / torch.minimum (NaN propagates) */
  CT_MINIMUM = 15,
  CT_FLOOR_DIVIDE = 16, /* torch.floor_divide */
  CT_REMAINDER = 17,    /* torch.remainder (sign of the divisor) */
  CT_ATAN2 = 18         /* torch.atan2(a, b): the angle of (b, a) in (-pi, pi]; integers promote to float32 */
};
/* END GENERATED: binary_op */

/** op(a). [new reference] */
CT_API ct_status ct_unary(ct_unary_op op, ct_tensor a, ct_tensor* out);
/** a.op_() in place. Errors: CT_ERR_DTYPE when the result dtype cannot be stored in a's dtype
 *  (e.g. exp_ on an int64 tensor), as PyTorch's "result type Float can't be cast to ...". */
CT_API ct_status ct_unary_(ct_unary_op op, ct_tensor a);

/** op(a, b) with broadcasting and type promotion. [new reference] */
CT_API ct_status ct_binary(ct_binary_op op, ct_tensor a, ct_tensor b, ct_tensor* out);
/** a.op_(b) in place: b must broadcast to a's shape and the promoted dtype must be castable to
 *  a's dtype. Comparison ops store 0/1 in a's dtype. */
CT_API ct_status ct_binary_(ct_binary_op op, ct_tensor a, ct_tensor b);

/** op(a, s) with a Python float scalar s ("wrapped number" promotion: int tensor + 2.5 is
 *  float32, float16 tensor + 2.5 stays float16). reverse != 0 computes op(s, a). */
CT_API ct_status ct_binary_scalar_f(ct_binary_op op, ct_tensor a, double s, int32_t reverse,
                                    ct_tensor* out);
/** op(a, s) with a Python int scalar s (int32 tensor + 2 stays int32). */
CT_API ct_status ct_binary_scalar_i(ct_binary_op op, ct_tensor a, int64_t s, int32_t reverse,
                                    ct_tensor* out);
/** In-place a.op_(s), Python float scalar. */
CT_API ct_status ct_binary_scalar_f_(ct_binary_op op, ct_tensor a, double s);
/** In-place a.op_(s), Python int scalar. */
CT_API ct_status ct_binary_scalar_i_(ct_binary_op op, ct_tensor a, int64_t s);

/** torch.clamp(a, min, max): has_min / has_max say which bounds are given (at least one).
 *  Bounds are Python float scalars when a is floating, else must be integral values. */
CT_API ct_status ct_clamp(ct_tensor a, int32_t has_min, double min, int32_t has_max, double max,
                          ct_tensor* out);
CT_API ct_status ct_clamp_(ct_tensor a, int32_t has_min, double min, int32_t has_max,
                           double max);
/** torch.where(cond, a, b): cond must be bool; a and b promote; all three broadcast. */
CT_API ct_status ct_where(ct_tensor cond, ct_tensor a, ct_tensor b, ct_tensor* out);

/** tensor.fill_(value) and tensor.zero_(). fill_'s value is checked as ct_full's (CT_ERR_ARGUMENT
 *  "value cannot be converted to type int64_t without overflow"); nothing is written then. */
CT_API ct_status ct_fill_(ct_tensor t, double value);
CT_API ct_status ct_zero_(ct_tensor t);

/* ============================================================================================
 * 10. Reductions. dims points to ndims dims (NULL / 0 means "all dims"); keepdim keeps the
 *     reduced dims with size 1. [new reference]s.
 * ========================================================================================== */

typedef int32_t ct_reduce_op;
/* BEGIN GENERATED: reduce_op */
enum {
  CT_SUM = 0,  /* bool/integer inputs accumulate and return int64 */
  CT_MEAN = 1, /* floating or complex inputs only */
  CT_PROD = 2, /* bool/integer inputs return int64 */
  CT_AMAX = 3, /* torch.amax / amin (values only; NaN propagates; no empty reductions) */
  CT_AMIN = 4
};
/* END GENERATED: reduce_op */

/** op over dims. dtype (CT_DTYPE_UNDEFINED for the default) is the dtype to accumulate and
 *  return in (torch.sum(..., dtype=)). Errors: CT_ERR_INDEX (dim), CT_ERR_ARGUMENT (repeated
 *  dim), CT_ERR_DTYPE (mean of an integer tensor). */
CT_API ct_status ct_reduce(ct_reduce_op op, ct_tensor t, const int64_t* dims, int32_t ndims,
                           int32_t keepdim, ct_dtype dtype, ct_tensor* out);

/** torch.max(t) / torch.min(t) over all elements: a 0-dim tensor. Errors: CT_ERR_SHAPE for an
 *  empty tensor. */
CT_API ct_status ct_max(ct_tensor t, ct_tensor* out);
CT_API ct_status ct_min(ct_tensor t, ct_tensor* out);
/** torch.max(t, dim, keepdim) / torch.min: values and int64 indices (first occurrence). */
CT_API ct_status ct_max_dim(ct_tensor t, int32_t dim, int32_t keepdim, ct_tensor* values,
                            ct_tensor* indices);
CT_API ct_status ct_min_dim(ct_tensor t, int32_t dim, int32_t keepdim, ct_tensor* values,
                            ct_tensor* indices);
/** torch.argmax(t, dim, keepdim) / argmin. has_dim == 0 means over the flattened tensor
 *  (a 0-dim result). Index of the first occurrence; NaN counts as the maximum. */
CT_API ct_status ct_argmax(ct_tensor t, int32_t has_dim, int32_t dim, int32_t keepdim,
                           ct_tensor* out);
CT_API ct_status ct_argmin(ct_tensor t, int32_t has_dim, int32_t dim, int32_t keepdim,
                           ct_tensor* out);
/** torch.linalg.vector_norm(t, ord=p, dim=dims, keepdim): p may be any real, INFINITY or
 *  -INFINITY; floating or complex inputs only (complex gives a real result). */
CT_API ct_status ct_norm(ct_tensor t, double p, const int64_t* dims, int32_t ndims,
                         int32_t keepdim, ct_tensor* out);

/* ============================================================================================
 * 11. Joining
 * ========================================================================================== */

/** torch.cat(tensors, dim): n >= 1 tensors, same shape except in dim, promoted dtypes, same
 *  device. 1-D empty tensors of shape (0,) are skipped, as in PyTorch. */
CT_API ct_status ct_cat(const ct_tensor* tensors, int32_t n, int32_t dim, ct_tensor* out);
/** torch.stack(tensors, dim): n >= 1 tensors of one shape; a new dim at position dim. */
CT_API ct_status ct_stack(const ct_tensor* tensors, int32_t n, int32_t dim, ct_tensor* out);

/* ============================================================================================
 * 12. Threads (CPU kernels)
 * ========================================================================================== */

/** Number of threads CPU kernels use for large tensors (default: hardware concurrency, or
 *  the CT_NUM_THREADS environment variable when it is a valid n). Out: *out. */
CT_API ct_status ct_get_num_threads(int32_t* out);
/** Sets it: 1 <= n <= 4096. Errors: CT_ERR_ARGUMENT otherwise. torch.set_num_threads takes
 *  any positive n; the upper bound is ctorch's: more threads than any machine has hardware
 *  threads for, and a mistaken value (1 << 30) is refused here instead of asking OpenMP for a
 *  team it cannot start (GCC's libgomp ends the process when a thread cannot be created). */
CT_API ct_status ct_set_num_threads(int32_t n);

/* ============================================================================================
 * 12a. Pinned memory and streams of a tensor
 * ========================================================================================== */

/** tensor.pin_memory(): a copy of a CPU tensor in page-locked host memory, from which
 *  non_blocking copies to the GPU are truly asynchronous. [new reference]
 *  Errors: CT_ERR_DEVICE for a CUDA tensor, CT_ERR_CUDA_UNAVAILABLE without CUDA. */
CT_API ct_status ct_tensor_pin_memory(ct_tensor t, ct_tensor* out);
/** Out: *out = 1 when t's storage is pinned host memory. */
CT_API ct_status ct_tensor_is_pinned(ct_tensor t, int32_t* out);
/** tensor.record_stream(s): tells the allocator that t's memory is in use on stream s, so it
 *  is not reused before the work queued on s (up to the moment t is freed) is done. */
CT_API ct_status ct_tensor_record_stream(ct_tensor t, ct_stream s);

/* ============================================================================================
 * 13. Streams (torch.cuda.Stream). A ct_stream is a counted reference like a tensor handle;
 *     stream handles for the same CUDA stream compare equal through ct_stream_cuda_handle.
 * ========================================================================================== */

/** A new stream on device (-1: current) with a priority (lower numbers are higher priority;
 *  0 is the default; values beyond ct_stream_priority_range are clamped). [new reference] */
CT_API ct_status ct_stream_create(int32_t device, int32_t priority, ct_stream* out);
/** Out: *least (numerically largest, 0) and *greatest (most negative) stream priorities. */
CT_API ct_status ct_stream_priority_range(int32_t* least, int32_t* greatest);
/** The default stream of device (-1: current). [new reference] */
CT_API ct_status ct_stream_default(int32_t device, ct_stream* out);
/** The current stream of device (-1: current) for the calling thread. [new reference] */
CT_API ct_status ct_stream_current(int32_t device, ct_stream* out);
/** Makes s the current stream of its device for the calling thread. */
CT_API ct_status ct_stream_set_current(ct_stream s);
/** The stream guard (`with torch.cuda.stream(s):`) for C: makes s's device current and s its
 *  current stream; *prev_stream ([new reference]) and *prev_device say what to restore with
 *  ct_stream_guard_exit, which always releases prev_stream (also when it fails). */
CT_API ct_status ct_stream_guard_enter(ct_stream s, ct_stream* prev_stream, int32_t* prev_device);
CT_API ct_status ct_stream_guard_exit(ct_stream prev_stream, int32_t prev_device);
/** Wraps a cudaStream_t the caller created and owns (its bits passed as an int64), on device
 *  (-1: current). ctorch never destroys it; the caller keeps it alive while ctorch may use it,
 *  including until tensors allocated while it was current are freed. [new reference] */
CT_API ct_status ct_stream_external(int64_t cuda_stream, int32_t device, ct_stream* out);
/** Adds / drops one reference. */
CT_API ct_status ct_stream_retain(ct_stream s);
CT_API ct_status ct_stream_release(ct_stream s);
/** Out: the stream's device, priority, and its cudaStream_t's bits as an int64 (0: the
 *  default stream). */
CT_API ct_status ct_stream_device(ct_stream s, int32_t* out);
CT_API ct_status ct_stream_priority(ct_stream s, int32_t* out);
CT_API ct_status ct_stream_cuda_handle(ct_stream s, int64_t* out);
/** Waits until all work queued on s is done. */
CT_API ct_status ct_stream_synchronize(ct_stream s);
/** Out: *out = 1 when all work queued on s is done (never waits). */
CT_API ct_status ct_stream_query(ct_stream s, int32_t* out);
/** Work queued on s after this call waits for the work queued on other before it. */
CT_API ct_status ct_stream_wait_stream(ct_stream s, ct_stream other);

/* ============================================================================================
 * 14. Events (torch.cuda.Event)
 * ========================================================================================== */

typedef int32_t ct_event_flags;
/* BEGIN GENERATED: event_flag */
enum {
  CT_EVENT_DEFAULT = 0,
  CT_EVENT_ENABLE_TIMING = 1, /* elapsed_time works (costs a little) */
  CT_EVENT_BLOCKING = 2       /* synchronize() yields the CPU instead of spinning */
};
/* END GENERATED: event_flag */

/** A new event (flags: CT_EVENT_* ORed). The CUDA event is created at the first record, on the
 *  recording stream's device. [new reference] */
CT_API ct_status ct_event_create(ct_event_flags flags, ct_event* out);
CT_API ct_status ct_event_retain(ct_event e);
CT_API ct_status ct_event_release(ct_event e);
/** Records e on stream s (NULL: the current stream of the current device). */
CT_API ct_status ct_event_record(ct_event e, ct_stream s);
/** Makes work queued on s (NULL: current stream) after this call wait for e. */
CT_API ct_status ct_event_wait(ct_event e, ct_stream s);
/** Out: *out = 1 when the work recorded by e is done (1 for an event never recorded). */
CT_API ct_status ct_event_query(ct_event e, int32_t* out);
/** Waits until the work recorded by e is done. */
CT_API ct_status ct_event_synchronize(ct_event e);
/** Milliseconds between start and end (both recorded with CT_EVENT_ENABLE_TIMING, end done).
 *  Errors: CT_ERR_STATE when not recorded, not timing events, or not completed yet. */
CT_API ct_status ct_event_elapsed_time(ct_event start, ct_event end, double* out);
/** ct_stream_record_event: records e on s (stream.record_event(e)). */
CT_API ct_status ct_stream_record_event(ct_stream s, ct_event e);
/** ct_stream_wait_event: s waits for e (stream.wait_event(e)). */
CT_API ct_status ct_stream_wait_event(ct_stream s, ct_event e);
/** Number of live stream and event handles (leak checks). */
CT_API ct_status ct_live_stream_count(int64_t* out);
CT_API ct_status ct_live_event_count(int64_t* out);

/* ============================================================================================
 * 15. Device memory: the caching allocator (torch.cuda.memory_*)
 *
 * CUDA memory comes from a caching allocator with PyTorch's policy (docs/memory.md): freed
 * memory stays reserved for reuse, so nvidia-smi still shows it. device -1 is the current
 * device. The statistics need the default ("native") backend; with
 * CTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync they fail with CT_ERR_NOT_SUPPORTED.
 * CTORCH_CUDA_ALLOC_CONF takes PyTorch's PYTORCH_CUDA_ALLOC_CONF syntax; a bad value fails the
 * first CUDA allocation with CT_ERR_ARGUMENT naming the key.
 * ========================================================================================== */

/** Bytes held by tensors now (memory_allocated) and at most since the last reset. */
CT_API ct_status ct_cuda_memory_allocated(int32_t device, int64_t* out);
CT_API ct_status ct_cuda_max_memory_allocated(int32_t device, int64_t* out);
/** Bytes reserved from the device by the allocator (memory_reserved) and its peak. */
CT_API ct_status ct_cuda_memory_reserved(int32_t device, int64_t* out);
CT_API ct_status ct_cuda_max_memory_reserved(int32_t device, int64_t* out);
/** reset_peak_memory_stats: every peak becomes the current value. */
CT_API ct_status ct_cuda_reset_peak_memory_stats(int32_t device);
/** reset_max_memory_allocated (PyTorch resets all peaks too, as this does). */
CT_API ct_status ct_cuda_reset_max_memory_allocated(int32_t device);
/** reset_accumulated_memory_stats: the "allocated"/"freed" totals and the counters to 0. */
CT_API ct_status ct_cuda_reset_accumulated_memory_stats(int32_t device);
/** One memory_stats value by its PyTorch key, e.g. "allocated_bytes.all.current",
 *  "reserved_bytes.small_pool.peak", "num_alloc_retries". Errors: CT_ERR_ARGUMENT for an
 *  unknown key. */
CT_API ct_status ct_cuda_memory_stat(int32_t device, const char* key, int64_t* out);
/** All memory_stats keys, sorted, one per line, into buf (string convention of
 *  ct_tensor_repr). */
CT_API ct_status ct_cuda_memory_stats_keys(int32_t device, void* buf, int64_t cap, int64_t* needed);
/** memory_snapshot of one device as JSON: segments with their blocks (address, size, state). */
CT_API ct_status ct_cuda_memory_snapshot(int32_t device, void* buf, int64_t cap, int64_t* needed);
/** memory_summary(device, abbreviated): PyTorch's readable table of the statistics (current,
 *  peak, total allocated and freed, per pool unless abbreviated), into buf. */
CT_API ct_status ct_cuda_memory_summary(int32_t device, int32_t abbreviated, void* buf, int64_t cap, int64_t* needed);
/** empty_cache: returns every cached, unused segment of every device to CUDA, and the cached
 *  pinned host blocks whose copies have finished (PyTorch keeps the latter for
 *  torch._C._host_emptyCache). */
CT_API ct_status ct_cuda_empty_cache(void);
/** set_per_process_memory_fraction: the allocator reserves at most fraction (0..1) of the
 *  device's total memory; beyond it allocations fail with CT_ERR_OUT_OF_MEMORY. */
CT_API ct_status ct_cuda_set_per_process_memory_fraction(double fraction, int32_t device);
/** caching_allocator_alloc: size bytes of raw device memory on device (-1 current) for
 *  stream (NULL: the current stream), as an address in *ptr; free it with
 *  ct_cuda_caching_allocator_delete. */
CT_API ct_status ct_cuda_caching_allocator_alloc(int64_t size, int32_t device, ct_stream stream, int64_t* ptr);
/** Frees memory from ct_cuda_caching_allocator_alloc. Errors: CT_ERR_ARGUMENT for an address
 *  that did not come from it (or was freed already). */
CT_API ct_status ct_cuda_caching_allocator_delete(int64_t ptr);
/** A pluggable CUDA allocator (CUDAPluggableAllocator + change_current_allocator): every CUDA
 *  tensor's memory then comes from alloc and goes back through free; stream is the
 *  cudaStream_t's bits of the current stream; ctx is passed through. No caching, no statistics
 *  (the statistics calls fail with CT_ERR_NOT_SUPPORTED). alloc returns NULL when out of
 *  memory. */
typedef void* (*ct_cuda_alloc_fn)(int64_t size, int32_t device, int64_t stream, void* ctx);
typedef void (*ct_cuda_free_fn)(void* ptr, int64_t size, int32_t device, int64_t stream, void* ctx);
/** Installs alloc/free. Only before the first CUDA allocation of the process: afterwards
 *  CT_ERR_STATE. Errors: CT_ERR_NULL_POINTER for a NULL function. */
CT_API ct_status ct_cuda_set_allocator(ct_cuda_alloc_fn alloc, ct_cuda_free_fn free_fn, void* ctx);
/** The same with functions loaded from a shared library by name, with PyTorch's signatures
 *  (`void* alloc(size_t size, int device, cudaStream_t stream)`, `void free(void* ptr, size_t
 *  size, int device, cudaStream_t stream)`), so an allocator written for
 *  torch.cuda.memory.CUDAPluggableAllocator works as it is. Errors: CT_ERR_ARGUMENT when the
 *  library or a symbol cannot be loaded (with dlerror's message), CT_ERR_STATE as above. */
CT_API ct_status ct_cuda_load_allocator(const char* path, const char* alloc_symbol, const char* free_symbol);
/** get_allocator_backend: "native", "cudaMallocAsync" or "pluggable", into buf. */
CT_API ct_status ct_cuda_get_allocator_backend(void* buf, int64_t cap, int64_t* needed);
/** Out-of-memory hooks (docs/memory.md, "Out of memory"). When a CUDA allocation finds no room
 *  even after the cached blocks went back to the device, ctorch calls every hook, in the order
 *  added, on the allocating thread and with no ctorch lock held; then it returns the cache
 *  again and retries once before failing with CT_ERR_OUT_OF_MEMORY. A hook's job is to make
 *  memory come back: the bindings' hooks run their language's garbage collector and wait for
 *  its finalizers, so tensors dropped without ct_tensor_release give their memory back. A hook
 *  may call any ctorch function; an allocation made inside a hook that runs out of memory
 *  fails without calling the hooks again. requested_bytes is the size of the failed request,
 *  ctx is passed through. Hooks serve the native and cudaMallocAsync backends (not a
 *  pluggable allocator). */
typedef void (*ct_oom_hook_fn)(int32_t device, int64_t requested_bytes, void* ctx);
/** Adds a hook; *id names it for ct_cuda_remove_oom_hook. Needs no GPU. Errors:
 *  CT_ERR_NULL_POINTER for a NULL hook or id. */
CT_API ct_status ct_cuda_add_oom_hook(ct_oom_hook_fn hook, void* ctx, int64_t* id);
/** Removes a hook: later failures no longer call it (a call already under way on another
 *  thread may still be running). Errors: CT_ERR_ARGUMENT for an id not added or removed
 *  already. */
CT_API ct_status ct_cuda_remove_oom_hook(int64_t id);
/** Per-stream figures, which PyTorch lacks: a memory_stats-style value of the blocks and
 *  segments allocated while stream s was current on its device. key: one of allocation,
 *  allocated_bytes, requested_bytes, active, active_bytes, segment, reserved_bytes, then
 *  .current, .peak, .allocated or .freed, e.g. "allocated_bytes.current". Peaks and totals
 *  reset with the device's (ct_cuda_reset_peak_memory_stats,
 *  ct_cuda_reset_accumulated_memory_stats). A stream that never allocated has zeros. Errors:
 *  CT_ERR_ARGUMENT for an unknown key, CT_ERR_NOT_SUPPORTED without the native allocator. */
CT_API ct_status ct_cuda_memory_stream_stat(ct_stream s, const char* key, int64_t* out);

/* ============================================================================================
 * 16. Random numbers (torch.Generator, torch.manual_seed, torch.cuda.*_rng_state, torch.rand...)
 *
 * Every device draws from a Philox4x32-10 generator whose state is a seed and an offset, as
 * torch.cuda's (docs/random.md): with the same seed and the same calls, CUDA tensors get the
 * same bits as torch.cuda on the same GPU, and CPU tensors get the same values as CUDA tensors
 * would (uniform and integer draws bit for bit; normal draws within a few ulp, because the GPU
 * computes sine and cosine with its fast approximations). Unlike PyTorch's, the CPU generator is
 * therefore not a Mersenne Twister, and its state is the same 16 bytes as a CUDA generator's.
 * Seeds are 64-bit values passed as int64_t (a negative value stands for the same bits, as
 * torch.manual_seed(-1)). Every op that draws takes a generator; NULL means the default
 * generator of the tensor's device. Generators are thread-safe.
 * ========================================================================================== */

/** Size of a generator state in bytes: the seed (uint64) then the Philox offset (int64),
 *  little-endian, as torch.cuda.get_rng_state. */
#define CT_RNG_STATE_SIZE 16
/** The default seed of every generator (PyTorch's 67280421310721). */
#define CT_DEFAULT_SEED 67280421310721LL

/** A new generator for device (type, index; index -1: the current CUDA device), seeded with
 *  CT_DEFAULT_SEED (torch.Generator(device)). [new reference] */
CT_API ct_status ct_generator_create(ct_device_type type, int32_t index, ct_generator* out);
/** The default generator of a device (torch.cuda.default_generators[i], or the CPU's).
 *  [new reference] */
CT_API ct_status ct_default_generator(ct_device_type type, int32_t index, ct_generator* out);
CT_API ct_status ct_generator_retain(ct_generator g);
CT_API ct_status ct_generator_release(ct_generator g);
/** Number of live generator handles (leak checks). */
CT_API ct_status ct_live_generator_count(int64_t* out);
/** Out: the generator's device. */
CT_API ct_status ct_generator_device(ct_generator g, ct_device_type* type, int32_t* index);
/** manual_seed: sets the seed; the offset starts again at 0. */
CT_API ct_status ct_generator_manual_seed(ct_generator g, int64_t seed);
/** seed(): sets a non-deterministic seed and returns it in *out. */
CT_API ct_status ct_generator_seed(ct_generator g, int64_t* out);
/** initial_seed(): the current seed (the one last set). */
CT_API ct_status ct_generator_initial_seed(ct_generator g, int64_t* out);
/** The Philox offset (in 32-bit values; it advances by a multiple of 4 with every random op). */
CT_API ct_status ct_generator_offset(ct_generator g, int64_t* out);
/** get_state: CT_RNG_STATE_SIZE bytes into buf (cap >= 16; *needed = 16). */
CT_API ct_status ct_generator_get_state(ct_generator g, void* buf, int64_t cap, int64_t* needed);
/** set_state from get_state's bytes. Errors: CT_ERR_ARGUMENT for a size other than 16 or an
 *  offset that is negative or not a multiple of 4. */
CT_API ct_status ct_generator_set_state(ct_generator g, const void* data, int64_t len);
/** torch.manual_seed: seeds the CPU's and every CUDA device's default generator. */
CT_API ct_status ct_manual_seed(int64_t seed);
/** torch.seed: a non-deterministic seed for all default generators, returned in *out. */
CT_API ct_status ct_seed(int64_t* out);
/** torch.initial_seed: the CPU default generator's seed. */
CT_API ct_status ct_initial_seed(int64_t* out);
/** torch.cuda.manual_seed (the current device's default generator) and manual_seed_all
 *  (every device's). Without CUDA they do nothing and succeed, as in torch. */
CT_API ct_status ct_cuda_manual_seed(int64_t seed);
CT_API ct_status ct_cuda_manual_seed_all(int64_t seed);
/** torch.cuda.seed / seed_all (non-deterministic) and initial_seed (of the current device). */
CT_API ct_status ct_cuda_seed(void);
CT_API ct_status ct_cuda_seed_all(void);
CT_API ct_status ct_cuda_initial_seed(int64_t* out);
/** torch.cuda.get_rng_state(device) / set_rng_state(state, device) (device -1: current):
 *  CT_RNG_STATE_SIZE bytes. */
CT_API ct_status ct_cuda_get_rng_state(int32_t device, void* buf, int64_t cap, int64_t* needed);
CT_API ct_status ct_cuda_set_rng_state(const void* data, int64_t len, int32_t device);
/** get_rng_state_all / set_rng_state_all: the devices' states one after the other
 *  (16 * device count bytes). */
CT_API ct_status ct_cuda_get_rng_state_all(void* buf, int64_t cap, int64_t* needed);
CT_API ct_status ct_cuda_set_rng_state_all(const void* data, int64_t len);

/** torch.rand / randn: a new tensor of uniform values in [0, 1) / standard normal values, for
 *  float32, float64, float16 and bfloat16. [new reference] */
CT_API ct_status ct_rand(const int64_t* sizes, int32_t ndim, ct_dtype dtype, ct_device_type dev_type, int32_t dev_index,
                         ct_generator gen, ct_tensor* out);
CT_API ct_status ct_randn(const int64_t* sizes, int32_t ndim, ct_dtype dtype, ct_device_type dev_type,
                          int32_t dev_index, ct_generator gen, ct_tensor* out);
/** torch.randint(low, high, size): integers in [low, high), for every real dtype (int64 as
 *  torch's default). [new reference] */
CT_API ct_status ct_randint(int64_t low, int64_t high, const int64_t* sizes, int32_t ndim, ct_dtype dtype,
                            ct_device_type dev_type, int32_t dev_index, ct_generator gen, ct_tensor* out);
/** rand_like / randn_like (dtype CT_DTYPE_UNDEFINED: t's). [new reference] */
CT_API ct_status ct_rand_like(ct_tensor t, ct_dtype dtype, ct_generator gen, ct_tensor* out);
CT_API ct_status ct_randn_like(ct_tensor t, ct_dtype dtype, ct_generator gen, ct_tensor* out);
/** In place: uniform_(from, to) (from <= to), normal_(mean, std) (std >= 0); float dtypes. */
CT_API ct_status ct_tensor_uniform_(ct_tensor t, double from, double to, ct_generator gen);
CT_API ct_status ct_tensor_normal_(ct_tensor t, double mean, double std, ct_generator gen);
/** random_(): integers over the dtype's range (bool: 0/1; floats: [0, 2^mantissa bits]);
 *  random_range_(from, to): integers in [from, to). Every real dtype. */
CT_API ct_status ct_tensor_random_(ct_tensor t, ct_generator gen);
CT_API ct_status ct_tensor_random_range_(ct_tensor t, int64_t from, int64_t to, ct_generator gen);
/** bernoulli_(p): 1 with probability p (0 <= p <= 1), else 0; every real dtype. */
CT_API ct_status ct_tensor_bernoulli_(ct_tensor t, double p, ct_generator gen);

/* ============================================================================================
 * 17. Linear algebra (torch.matmul, mm, bmm, addmm, dot, mv; torch.backends.cuda.matmul)
 *
 * Matrix products run through OpenBLAS on the CPU and cuBLAS on CUDA devices, both loaded at
 * first use (docs/linalg.md): without them the products fail with CT_ERR_NOT_SUPPORTED naming
 * the missing library, and everything else still works. dtypes: float32, float64, float16,
 * bfloat16, complex64, complex128, the same for both operands (CT_ERR_DTYPE otherwise);
 * operands on one device (CT_ERR_DEVICE). Shapes follow PyTorch (CT_ERR_SHAPE with its
 * messages).
 * ========================================================================================== */

/** torch.matmul: 1-D x 1-D is dot, 2-D x 2-D is mm, 1-D operands are a row (left) or a
 *  column (right) removed from the result, and more dimensions are batches that broadcast.
 *  [new reference] */
CT_API ct_status ct_matmul(ct_tensor a, ct_tensor b, ct_tensor* out);
/** torch.mm (2-D x 2-D), torch.bmm (3-D x 3-D, same batch), torch.dot (1-D, same length,
 *  0-dim result), torch.mv (2-D x 1-D). [new reference] */
CT_API ct_status ct_mm(ct_tensor a, ct_tensor b, ct_tensor* out);
CT_API ct_status ct_bmm(ct_tensor a, ct_tensor b, ct_tensor* out);
CT_API ct_status ct_dot(ct_tensor a, ct_tensor b, ct_tensor* out);
CT_API ct_status ct_mv(ct_tensor a, ct_tensor v, ct_tensor* out);
/** torch.addmm(input, m1, m2, beta=beta, alpha=alpha): beta * input + alpha * (m1 @ m2), input
 *  broadcast to the product's shape; with beta 0 the input is ignored (NaN in it does not
 *  propagate). [new reference] */
CT_API ct_status ct_addmm(ct_tensor input, ct_tensor m1, ct_tensor m2, double beta, double alpha, ct_tensor* out);
/** torch.backends.cuda.matmul.allow_tf32 (default 0: float32 products in full float32) and
 *  allow_fp16/bf16_reduced_precision_reduction (default 1), process-wide. */
CT_API ct_status ct_set_allow_tf32(int32_t on);
CT_API ct_status ct_get_allow_tf32(int32_t* out);
CT_API ct_status ct_set_allow_fp16_reduced_precision_reduction(int32_t on);
CT_API ct_status ct_get_allow_fp16_reduced_precision_reduction(int32_t* out);
CT_API ct_status ct_set_allow_bf16_reduced_precision_reduction(int32_t on);
CT_API ct_status ct_get_allow_bf16_reduced_precision_reduction(int32_t* out);
/** torch.cuda.current_blas_handle: the calling thread's cuBLAS handle of the current device
 *  (created on first use, bound to the current stream), as the bits of a cublasHandle_t. */
CT_API ct_status ct_cuda_current_blas_handle(int64_t* out);

/* ============================================================================================
 * 18. FFT (torch.fft; torch.backends.cuda.cufft_plan_cache)
 *
 * Through FFTW 3 on the CPU (loaded at first use: it is GPL-licensed, so libctorch.so does not
 * link it) and cuFFT on CUDA devices (also loaded at first use), docs/fft.md. Real inputs of
 * float32 (and integer/bool, promoted to float32) give complex64, float64 gives complex128;
 * float16/bfloat16 are not supported (CT_ERR_DTYPE). n / s entries of -1 keep the input's size;
 * a smaller size cuts the input, a larger one pads it with zeros, as PyTorch.
 * ========================================================================================== */

typedef int32_t ct_fft_norm;
/* BEGIN GENERATED: fft_norm */
enum {
  CT_FFT_NORM_BACKWARD = 0, /* torch's default: forward unscaled, inverse scaled by 1/n */
  CT_FFT_NORM_FORWARD = 1,  /* forward scaled by 1/n, inverse unscaled */
  CT_FFT_NORM_ORTHO = 2     /* both scaled by 1/sqrt(n) */
};
/* END GENERATED: fft_norm */

/** torch.fft.fft / ifft over dim, with n points (-1: the input's size). [new reference] */
CT_API ct_status ct_fft_fft(ct_tensor t, int64_t n, int64_t dim, ct_fft_norm norm, ct_tensor* out);
CT_API ct_status ct_fft_ifft(ct_tensor t, int64_t n, int64_t dim, ct_fft_norm norm, ct_tensor* out);
/** torch.fft.rfft (real input; n / 2 + 1 outputs along dim), irfft (n real outputs; default
 *  2 * (m - 1)), hfft (the FFT of a Hermitian signal given by its first half: n real
 *  outputs). [new reference] */
CT_API ct_status ct_fft_rfft(ct_tensor t, int64_t n, int64_t dim, ct_fft_norm norm, ct_tensor* out);
CT_API ct_status ct_fft_irfft(ct_tensor t, int64_t n, int64_t dim, ct_fft_norm norm, ct_tensor* out);
CT_API ct_status ct_fft_hfft(ct_tensor t, int64_t n, int64_t dim, ct_fft_norm norm, ct_tensor* out);
/** torch.fft.fftn / ifftn / rfftn / irfftn: s (ns values, NULL/0: none) and dims (ndims values,
 *  NULL/0: the last len(s) dims, or all dims). [new reference] */
CT_API ct_status ct_fft_fftn(ct_tensor t, const int64_t* s, int32_t ns, const int64_t* dims, int32_t ndims,
                             ct_fft_norm norm, ct_tensor* out);
CT_API ct_status ct_fft_ifftn(ct_tensor t, const int64_t* s, int32_t ns, const int64_t* dims, int32_t ndims,
                              ct_fft_norm norm, ct_tensor* out);
CT_API ct_status ct_fft_rfftn(ct_tensor t, const int64_t* s, int32_t ns, const int64_t* dims, int32_t ndims,
                              ct_fft_norm norm, ct_tensor* out);
CT_API ct_status ct_fft_irfftn(ct_tensor t, const int64_t* s, int32_t ns, const int64_t* dims, int32_t ndims,
                               ct_fft_norm norm, ct_tensor* out);
/** torch.fft.fft2 / ifft2: fftn with dims defaulting to the last two. [new reference] */
CT_API ct_status ct_fft_fft2(ct_tensor t, const int64_t* s, int32_t ns, const int64_t* dims, int32_t ndims,
                             ct_fft_norm norm, ct_tensor* out);
CT_API ct_status ct_fft_ifft2(ct_tensor t, const int64_t* s, int32_t ns, const int64_t* dims, int32_t ndims,
                              ct_fft_norm norm, ct_tensor* out);
/** torch.fft.fftfreq(n, d): the sample frequencies [0, 1, ..., -1] / (d * n), in dtype
 *  (CT_DTYPE_UNDEFINED: float32) on a device. [new reference] */
CT_API ct_status ct_fft_fftfreq(int64_t n, double d, ct_dtype dtype, ct_device_type dev_type, int32_t dev_index,
                                ct_tensor* out);
/** torch.fft.fftshift / ifftshift over dims (NULL/0: all). [new reference] */
CT_API ct_status ct_fft_fftshift(ct_tensor t, const int64_t* dims, int32_t ndims, ct_tensor* out);
CT_API ct_status ct_fft_ifftshift(ct_tensor t, const int64_t* dims, int32_t ndims, ct_tensor* out);
/** torch.backends.cuda.cufft_plan_cache[device]: max_size (default 4096; 0 disables caching),
 *  size, clear(); and a byte budget for the cached plans' work areas (0: none, the default),
 *  which PyTorch lacks. device -1: current. */
CT_API ct_status ct_cufft_plan_cache_max_size(int32_t device, int64_t* out);
CT_API ct_status ct_cufft_plan_cache_set_max_size(int32_t device, int64_t max_size);
CT_API ct_status ct_cufft_plan_cache_size(int32_t device, int64_t* out);
CT_API ct_status ct_cufft_plan_cache_clear(int32_t device);
CT_API ct_status ct_cufft_plan_cache_max_bytes(int32_t device, int64_t* out);
CT_API ct_status ct_cufft_plan_cache_set_max_bytes(int32_t device, int64_t max_bytes);
CT_API ct_status ct_cufft_plan_cache_bytes(int32_t device, int64_t* out);
/** Lookups of cufft_plan_cache[device] since the process started that found a cached plan (hits)
 *  and that made a new one (misses; with caching off every CUDA FFT is one). PyTorch has no such
 *  counters; they make the cache's behaviour observable. device -1: current. */
CT_API ct_status ct_cufft_plan_cache_hits(int32_t device, int64_t* out);
CT_API ct_status ct_cufft_plan_cache_misses(int32_t device, int64_t* out);

/* ============================================================================================
 * 19. CUDA graphs (torch.cuda.CUDAGraph, torch.cuda.graph, graph_pool_handle,
 *     is_current_stream_capturing, make_graphed_callables)
 *
 * A graph records the kernels and copies queued on a stream between capture_begin and
 * capture_end, without running them; replay then runs all of them with one launch, on the
 * current stream, as often as wanted (docs/graphs.md). Captures happen on a stream other than
 * the default stream (CT_ERR_STATE otherwise, with PyTorch's message).
 *
 * Memory: tensors created while capturing come from the graph's private memory pool; they and
 * the pool's memory stay valid until the graph is reset or released and no tensor uses them, so
 * a replay writes into the very tensors the capture created (the "static" outputs). Blocks freed
 * during a capture go back to that pool only. A pool id (an int64, never 0) names a pool: pass
 * 0 to capture_begin for a new pool, or ct_cuda_graph_pool_handle's or another graph's
 * ct_cuda_graph_pool to share one between graphs that are captured, and then replayed, in the
 * same order. Private pools count in the memory statistics like any memory of the caching
 * allocator, and ct_cuda_empty_cache never frees a live graph's pool.
 *
 * Random numbers: a random op captured into a graph draws, at each replay, what the same op
 * would draw eagerly at the generator's offset of that moment, and each replay advances the
 * generator's offset by the graph's total increment (PyTorch's graph-safe Philox): consecutive
 * replays draw new numbers, bit-identical to eager draws and to torch.cuda's graphs.
 *
 * Operations CUDA forbids during a capture fail with CT_ERR_STATE and a message naming the
 * operation and the capture, and they invalidate that capture (its capture_end then fails and
 * ends it cleanly): synchronizing with the host (ct_tensor_item, copies to the host, stream,
 * event and device synchronize), stream and event queries, ct_cuda_empty_cache, and allocations
 * that cannot come from the graph's pool (pinned host memory, a pluggable allocator). Which
 * threads are affected follows the capture mode: CT_CAPTURE_MODE_GLOBAL every thread,
 * CT_CAPTURE_MODE_THREAD_LOCAL the capturing thread, CT_CAPTURE_MODE_RELAXED only operations on
 * a stream that is capturing. Without CUDA every function here fails with
 * CT_ERR_CUDA_UNAVAILABLE, except ct_cuda_graph_create/retain/release, the live count and
 * ct_cuda_is_current_stream_capturing (0).
 * ========================================================================================== */

typedef int32_t ct_capture_mode;
/* BEGIN GENERATED: capture_mode */
enum {
  CT_CAPTURE_MODE_GLOBAL = 0,       /* torch's default: unsafe calls fail in any thread while the capture runs */
  CT_CAPTURE_MODE_THREAD_LOCAL = 1, /* unsafe calls fail only in the capturing thread */
  CT_CAPTURE_MODE_RELAXED = 2       /* only calls on the capturing streams fail */
};
/* END GENERATED: capture_mode */

/** A new, empty graph (torch.cuda.CUDAGraph()). [new reference] */
CT_API ct_status ct_cuda_graph_create(ct_cuda_graph* out);
/** Adds / drops one reference. The last release resets the graph (ct_cuda_graph_reset); when a
 *  capture is still under way it is ended and discarded first. */
CT_API ct_status ct_cuda_graph_retain(ct_cuda_graph g);
CT_API ct_status ct_cuda_graph_release(ct_cuda_graph g);
/** Number of live graph handles (leak checks). */
CT_API ct_status ct_live_cuda_graph_count(int64_t* out);
/** capture_begin(pool, capture_error_mode): starts capturing the work queued on the calling
 *  thread's current stream of the current device. pool: 0 for a new private pool, else a pool
 *  id to share. Errors: CT_ERR_STATE when the current stream is the default stream, when g
 *  holds a capture already (reset it first) or when the stream is capturing already;
 *  CT_ERR_ARGUMENT for an unknown mode or a pool id that names no pool. */
CT_API ct_status ct_cuda_graph_capture_begin(ct_cuda_graph g, int64_t pool, ct_capture_mode mode);
/** capture_end: ends the capture on the stream it began on (which must be the current stream
 *  again) and makes the graph ready to replay. Errors: CT_ERR_STATE when g is not capturing,
 *  when called on another stream, or when an illegal operation invalidated the capture (the
 *  message names it; the capture is over and g is as after reset). */
CT_API ct_status ct_cuda_graph_capture_end(ct_cuda_graph g);
/** replay: runs the captured work on the current stream (of the capture's device) and
 *  advances the generators it drew from. Errors: CT_ERR_STATE without a finished capture. */
CT_API ct_status ct_cuda_graph_replay(ct_cuda_graph g);
/** reset: drops the captured graph and gives its pool back (its memory is returned to CUDA by
 *  ct_cuda_empty_cache once no tensor uses it); g can capture again. A capture still under way
 *  is ended and discarded. */
CT_API ct_status ct_cuda_graph_reset(ct_cuda_graph g);
/** pool(): the id of the graph's private pool, for another graph's capture_begin (during a
 *  capture, the pool it allocates from). Errors: CT_ERR_STATE before capture_begin. */
CT_API ct_status ct_cuda_graph_pool(ct_cuda_graph g, int64_t* out);
/** enable_debug_mode: keeps the captured graph (not only its executable form) so that
 *  ct_cuda_graph_debug_dump can write it. Call it before capture_end. Unlike PyTorch's, it
 *  applies to this graph, not to every graph of the process. */
CT_API ct_status ct_cuda_graph_enable_debug_mode(ct_cuda_graph g);
/** debug_dump(path): writes the captured graph as Graphviz DOT (cudaGraphDebugDotPrint, verbose)
 *  to path. Errors: CT_ERR_STATE when debug mode was not enabled before capture_end or nothing
 *  was captured; CT_ERR_CUDA when the file cannot be written. */
CT_API ct_status ct_cuda_graph_debug_dump(ct_cuda_graph g, const char* path);
/** torch.cuda.graph_pool_handle(): a new pool id that graphs can share. */
CT_API ct_status ct_cuda_graph_pool_handle(int64_t* out);
/** torch.cuda.is_current_stream_capturing(): *out = 1 when the calling thread's current stream
 *  of the current device is capturing (0 without CUDA). */
CT_API ct_status ct_cuda_is_current_stream_capturing(int32_t* out);

/** The capture scope (`with torch.cuda.graph(g, pool, stream, capture_error_mode):`) as two
 *  calls, like ct_stream_guard_enter/exit: enter waits for the device (torch.cuda.synchronize),
 *  returns the allocator's cached memory to CUDA (torch.cuda.empty_cache, as torch's scope does;
 *  both are refused while another capture is under way on the device, so two captures at once
 *  use capture_begin/end), makes stream current (NULL: one side stream that ctorch keeps per
 *  device for captures, torch's default capture stream) and begins the capture; *prev_stream
 *  ([new reference]) and *prev_device say what exit restores. exit ends the capture, restores
 *  the stream and device, and always releases prev_stream (also when g is not a valid handle);
 *  it reports capture_end's error, if any, after restoring. When enter fails nothing is
 *  changed. Both run on the same thread (CUDA lets only the capturing thread end a global or
 *  thread_local capture: from another, capture_end and reset fail with CT_ERR_STATE). */
CT_API ct_status ct_cuda_graph_capture_enter(ct_cuda_graph g, int64_t pool, ct_capture_mode mode, ct_stream stream,
                                             ct_stream* prev_stream, int32_t* prev_device);
CT_API ct_status ct_cuda_graph_capture_exit(ct_cuda_graph g, ct_stream prev_stream, int32_t prev_device);

/** The function a graphed callable runs: it reads the static input tensors and writes its
 *  results into tensors the caller keeps (usually new tensors it creates, which then live in
 *  the graph's pool). ctx is passed through. A status other than CT_OK stops
 *  ct_cuda_make_graphed_callable with that status. */
typedef ct_status (*ct_graph_fn)(void* ctx);
/** torch.cuda.make_graphed_callables for one function: waits for the device, runs fn
 *  num_warmup_iters times on a new side stream (PyTorch's default is 3; 0 allowed), waits for the
 *  device again, then captures one more call in the capture scope (ct_cuda_graph_capture_enter,
 *  global mode; pool: 0 for a new private pool, or an id to share). static_inputs (n_inputs >= 0 CUDA tensors, retained) are the tensors fn reads;
 *  ct_cuda_graphed_run copies new values into them. fn is called only during this call.
 *  [new reference] Errors: fn's status (the capture is discarded), and those of capture_begin. */
CT_API ct_status ct_cuda_make_graphed_callable(ct_graph_fn fn, void* ctx, const ct_tensor* static_inputs,
                                               int32_t n_inputs, int32_t num_warmup_iters, int64_t pool,
                                               ct_cuda_graphed* out);
/** Runs a graphed callable: copies inputs[i] into static input i (n_inputs must be the number
 *  given at creation, or 0 to keep the static inputs as they are), then replays the graph, all
 *  on the current stream. Each input must have its static input's shape, dtype and device
 *  (CT_ERR_SHAPE, CT_ERR_DTYPE, CT_ERR_DEVICE). */
CT_API ct_status ct_cuda_graphed_run(ct_cuda_graphed c, const ct_tensor* inputs, int32_t n_inputs);
/** The callable's graph (for its pool id or a replay of its own). [new reference] */
CT_API ct_status ct_cuda_graphed_graph(ct_cuda_graphed c, ct_cuda_graph* out);
CT_API ct_status ct_cuda_graphed_retain(ct_cuda_graphed c);
CT_API ct_status ct_cuda_graphed_release(ct_cuda_graphed c);
/** Number of live graphed-callable handles (leak checks). */
CT_API ct_status ct_live_cuda_graphed_count(int64_t* out);

/* ============================================================================================
 * 20. Communication between the GPUs of one process (torch.cuda.comm)
 *
 * broadcast, reduce_add, scatter and gather with PyTorch's argument rules and messages. Devices
 * are CUDA device indices (>= 0). Like PyTorch, broadcast and reduce_add go through NCCL (one
 * communicator per device list, created at first use and kept) when every tensor is a dense,
 * contiguous CUDA tensor on a device of its own; otherwise, and when NCCL cannot be loaded, they
 * copy (and reduce_add adds) on the current streams. The results are ordered on the current
 * streams of their devices (nothing waits for the host). A result on the source's own device is
 * the source itself (broadcast) or a view of it (scatter), as in PyTorch. Result arrays are
 * written only on success, each element a [new reference]. Without CUDA every function fails
 * with CT_ERR_CUDA_UNAVAILABLE once its pointers and handles are checked.
 * ========================================================================================== */

/** The bucket size torch.cuda.comm's *_coalesced functions default to (10 MiB). */
#define CT_COMM_DEFAULT_BUFFER_SIZE 10485760

/** comm.broadcast(tensor, devices): t (CPU or CUDA) copied to each of n_devices devices;
 *  outs[i] is on devices[i]. Errors: CT_ERR_DEVICE for a negative device index. */
CT_API ct_status ct_cuda_comm_broadcast(ct_tensor t, const int32_t* devices, int32_t n_devices, ct_tensor* outs);
/** comm.broadcast(tensor, out=outs): copies t into each of the n_outs CUDA tensors of t's shape
 *  (a different dtype converts). Errors: CT_ERR_DEVICE (an output not on CUDA), CT_ERR_SHAPE. */
CT_API ct_status ct_cuda_comm_broadcast_out(ct_tensor t, const ct_tensor* outs, int32_t n_outs);
/** comm.broadcast_coalesced(tensors, devices, buffer_size): the n_tensors tensors, all on
 *  devices[0], broadcast in buckets of about buffer_size bytes (<= 0: the default).
 *  outs[d * n_tensors + i] is tensors[i] on devices[d]; the first row is the inputs themselves.
 *  Errors: CT_ERR_DEVICE when a tensor is not on devices[0]. */
CT_API ct_status ct_cuda_comm_broadcast_coalesced(const ct_tensor* tensors, int32_t n_tensors,
                                                  const int32_t* devices, int32_t n_devices,
                                                  int64_t buffer_size, ct_tensor* outs);
/** comm.reduce_add(inputs, destination): the sum of n_inputs CUDA tensors of one shape, on
 *  device destination (-1: the current device), which must hold one of the inputs (the result
 *  is that input itself when n_inputs is 1). Errors: CT_ERR_SHAPE, CT_ERR_DEVICE. */
CT_API ct_status ct_cuda_comm_reduce_add(const ct_tensor* inputs, int32_t n_inputs, int32_t destination,
                                         ct_tensor* out);
/** comm.reduce_add_coalesced(inputs, destination, buffer_size): inputs holds n_devices rows of
 *  n_tensors tensors (inputs[d * n_tensors + i], row d on one device); outs[i] is the sum of
 *  column i on destination (-1: current device), reduced in buckets of about buffer_size bytes
 *  (<= 0: the default). */
CT_API ct_status ct_cuda_comm_reduce_add_coalesced(const ct_tensor* inputs, int32_t n_devices, int32_t n_tensors,
                                                   int32_t destination, int64_t buffer_size, ct_tensor* outs);
/** comm.scatter(tensor, devices, chunk_sizes, dim, streams): t split along dim into chunks, the
 *  i-th copied to devices[i]. chunk_sizes: NULL for equal chunks (tensor.chunk, which may give
 *  fewer chunks than devices) or n_devices sizes summing to t's size at dim. streams: NULL, or
 *  n_devices streams (entries may be NULL), streams[i] on devices[i], on which chunk i is copied.
 *  outs has room for n_devices handles; *n_outs says how many were written. */
CT_API ct_status ct_cuda_comm_scatter(ct_tensor t, const int32_t* devices, int32_t n_devices,
                                      const int64_t* chunk_sizes, int32_t dim, const ct_stream* streams,
                                      ct_tensor* outs, int32_t* n_outs);
/** comm.scatter(tensor, dim=dim, streams=streams, out=outs): t split along dim by the outputs'
 *  sizes at dim and copied into the n_outs CUDA tensors (streams as above, n_outs of them). */
CT_API ct_status ct_cuda_comm_scatter_out(ct_tensor t, const ct_tensor* outs, int32_t n_outs, int32_t dim,
                                          const ct_stream* streams);
/** comm.gather(tensors, dim, destination): the n CUDA tensors concatenated along dim on the
 *  destination device: dest_type CT_CUDA with dest_index (-1: the current device) or CT_CPU
 *  (then dest_index is ignored and the copies wait for the GPU). The dtype is the first
 *  tensor's. Errors: CT_ERR_DEVICE, CT_ERR_SHAPE, CT_ERR_INDEX (dim). */
CT_API ct_status ct_cuda_comm_gather(const ct_tensor* tensors, int32_t n, int32_t dim, ct_device_type dest_type,
                                     int32_t dest_index, ct_tensor* out);
/** comm.gather(tensors, dim, out=out): the same into out (CPU or CUDA), whose shape must be the
 *  tensors' concatenated along dim. */
CT_API ct_status ct_cuda_comm_gather_out(const ct_tensor* tensors, int32_t n, ct_tensor out, int32_t dim);

/* ============================================================================================
 * 21. NCCL communicators (torch.distributed's NCCL backend, for processes and hosts)
 *
 * A communicator joins nranks processes (or threads), each with one GPU, into a group that runs
 * collectives: every member calls the same collectives in the same order. Setting one up: one
 * member gets a unique id (ct_nccl_get_unique_id, CT_NCCL_UNIQUE_ID_BYTES bytes), the caller
 * moves those bytes to every other member with its own transport (a file, a socket, an
 * environment variable), and each member calls ct_nccl_comm_init_rank with its rank. Works the
 * same within one host and across hosts (docs/comm.md).
 *
 * Collectives are asynchronous like any op: each is queued on a stream (NULL: the current
 * stream of the communicator's device) and the call returns. Tensors must be dense, contiguous
 * CUDA tensors on the communicator's device (CT_ERR_DEVICE, CT_ERR_ARGUMENT otherwise), of
 * dtypes NCCL has: uint8, int8, int32, int64, float16, float32, float64, bfloat16, and bool (as
 * bytes); complex tensors for SUM and AVG (CT_ERR_DTYPE otherwise).
 *
 * Failures and dead peers: each communicator has a timeout (the init's timeout_ms; <= 0 gives
 * CT_NCCL_DEFAULT_TIMEOUT_MS, torch's 10 minutes). A watchdog thread checks every communicator
 * with queued work every 100 ms: when a collective has not finished within the timeout, or NCCL
 * reports an asynchronous error (a peer that died, a network error), it aborts the communicator,
 * which ends its kernels, so no stream waits forever. Every later call on an aborted or failed
 * communicator fails with CT_ERR_TIMEOUT or CT_ERR_COMM and a message saying what happened
 * (ct_nccl_comm_check asks without queuing anything; ct_nccl_comm_wait waits for the work).
 * Initialization and group ends that wait for peers give up after the timeout the same way.
 *
 * NCCL (libnccl.so.2) is loaded at first use; libctorch.so has no link to it. When it cannot
 * be loaded every function here fails with CT_ERR_NOT_SUPPORTED naming the library; without
 * CUDA, with CT_ERR_CUDA_UNAVAILABLE (except the live count, and is_available, which says 0).
 * ========================================================================================== */

/** Bytes of a unique id. */
#define CT_NCCL_UNIQUE_ID_BYTES 128
/** ct_nccl_comm_split's color for "not a member of any new communicator". */
#define CT_NCCL_SPLIT_NOCOLOR (-1)
/** The communicators' default timeout (torch.distributed's default for NCCL: 10 minutes). */
#define CT_NCCL_DEFAULT_TIMEOUT_MS 600000

typedef int32_t ct_comm_op;
/* BEGIN GENERATED: comm_op */
enum {
  CT_COMM_SUM = 0,     /* bool tensors: logical or (NCCL's max on bytes), as torch.distributed */
  CT_COMM_AVG = 1,     /* NCCL's average (integers truncate); not for bool */
  CT_COMM_PRODUCT = 2,
  CT_COMM_MIN = 3,
  CT_COMM_MAX = 4
};
/* END GENERATED: comm_op */

/** *out = 1 when CUDA is available and NCCL can be loaded (never fails but for a NULL out).
 *  NCCL is loaded at the first call that needs it; loading it sets NCCL_RUNTIME_CONNECT=0 in the
 *  process's environment unless it is set (every collective connection is made when a
 *  communicator is created, within its timeout: docs/comm.md, "Timeouts"). */
CT_API ct_status ct_nccl_is_available(int32_t* out);
/** The loaded NCCL's version (ncclGetVersion), e.g. 2, 28, 9. Each out may be NULL. */
CT_API ct_status ct_nccl_version(int32_t* major, int32_t* minor, int32_t* patch);
/** A new unique id (ncclGetUniqueId): CT_NCCL_UNIQUE_ID_BYTES bytes written to buf.
 *  Errors: CT_ERR_BUFFER_SIZE when cap is smaller. */
CT_API ct_status ct_nccl_get_unique_id(void* buf, int64_t cap);
/** Joins the communicator of nranks members named by unique_id (id_len must be
 *  CT_NCCL_UNIQUE_ID_BYTES) as rank (0 <= rank < nranks), on CUDA device (-1: the current
 *  device). Waits until every member has joined, or at most timeout_ms (<= 0: the default):
 *  then CT_ERR_TIMEOUT and nothing is left behind. A malformed id gives CT_ERR_ARGUMENT or
 *  CT_ERR_COMM. [new reference] */
CT_API ct_status ct_nccl_comm_init_rank(int32_t nranks, const void* unique_id, int64_t id_len, int32_t rank,
                                        int32_t device, int64_t timeout_ms, ct_nccl_comm* out);
/** ncclCommSplit: every member of c calls it; members with the same color (>= 0) form a new
 *  communicator, ranked by key (ties by their rank in c); a member passing
 *  CT_NCCL_SPLIT_NOCOLOR joins none and gets *out = NULL. The new communicator has c's device
 *  and timeout. [new reference, or NULL] */
CT_API ct_status ct_nccl_comm_split(ct_nccl_comm c, int32_t color, int32_t key, ct_nccl_comm* out);
/** Adds / drops one reference. The last release destroys the communicator (as
 *  ct_nccl_comm_destroy, but errors are not reported; a failed communicator is aborted). */
CT_API ct_status ct_nccl_comm_retain(ct_nccl_comm c);
CT_API ct_status ct_nccl_comm_release(ct_nccl_comm c);
/** Number of live communicator handles (leak checks). Works without CUDA. */
CT_API ct_status ct_live_nccl_comm_count(int64_t* out);
/** Out: the caller's rank, the number of members, the CUDA device. */
CT_API ct_status ct_nccl_comm_rank(ct_nccl_comm c, int32_t* out);
CT_API ct_status ct_nccl_comm_size(ct_nccl_comm c, int32_t* out);
CT_API ct_status ct_nccl_comm_device(ct_nccl_comm c, int32_t* out);
/** Asks whether c is healthy without queuing or waiting: CT_OK, or the error that ended it
 *  (CT_ERR_COMM: NCCL or a peer reported an error; CT_ERR_TIMEOUT: a collective ran past the
 *  timeout; CT_ERR_STATE: aborted or destroyed by the caller), with its message. */
CT_API ct_status ct_nccl_comm_check(ct_nccl_comm c);
/** Waits until the work queued through c so far has finished on the GPU, at most timeout_ms
 *  (<= 0: c's timeout); on timeout c is aborted and the call fails with CT_ERR_TIMEOUT. Fails
 *  as ct_nccl_comm_check does when c failed. */
CT_API ct_status ct_nccl_comm_wait(ct_nccl_comm c, int64_t timeout_ms);
/** ncclCommAbort: ends c at once, also its collectives still running or waiting for peers
 *  (their results are undefined; a call of another thread waiting for peers on c returns
 *  CT_ERR_STATE). While another thread's open group holds c, NCCL can only abort it when that
 *  group ends, and does so then. Later calls on c fail with CT_ERR_STATE (or, when c had failed
 *  before, with that failure); release it. Aborting twice is allowed. */
CT_API ct_status ct_nccl_comm_abort(ct_nccl_comm c);
/** Destroys c cleanly (ncclCommFinalize, then ncclCommDestroy): waits for its queued work, at
 *  most its timeout (then it aborts, CT_ERR_TIMEOUT). Later calls on c fail with CT_ERR_STATE;
 *  release it. */
CT_API ct_status ct_nccl_comm_destroy(ct_nccl_comm c);

/** dist.all_reduce(t, op): every member's t becomes the reduction of all members' t (in place).
 *  s: the stream (NULL: the current stream of c's device). */
CT_API ct_status ct_nccl_all_reduce(ct_nccl_comm c, ct_tensor t, ct_comm_op op, ct_stream s);
/** dist.broadcast(t, src=root): root's t copied into every member's t. */
CT_API ct_status ct_nccl_broadcast(ct_nccl_comm c, ct_tensor t, int32_t root, ct_stream s);
/** dist.reduce(t, dst=root, op): root's t becomes the reduction; the others' t is unchanged. */
CT_API ct_status ct_nccl_reduce(ct_nccl_comm c, ct_tensor t, int32_t root, ct_comm_op op, ct_stream s);
/** dist.all_gather_into_tensor(output, input): output (nranks x input's elements, one dtype)
 *  holds every member's input, rank by rank. */
CT_API ct_status ct_nccl_all_gather(ct_nccl_comm c, ct_tensor output, ct_tensor input, ct_stream s);
/** dist.reduce_scatter_tensor(output, input, op): input has nranks x output's elements; member r
 *  gets the reduction of every member's r-th part. */
CT_API ct_status ct_nccl_reduce_scatter(ct_nccl_comm c, ct_tensor output, ct_tensor input, ct_comm_op op,
                                        ct_stream s);
/** dist.all_to_all_single(output, input): input and output have the same number of elements, a
 *  multiple of nranks; part j of member i's input goes to part i of member j's output. */
CT_API ct_status ct_nccl_all_to_all(ct_nccl_comm c, ct_tensor output, ct_tensor input, ct_stream s);
/** dist.send(t, dst=peer) / dist.recv(t, src=peer): point to point; each send needs the
 *  matching recv (same number of elements and dtype) on the peer. */
CT_API ct_status ct_nccl_send(ct_nccl_comm c, ct_tensor t, int32_t peer, ct_stream s);
CT_API ct_status ct_nccl_recv(ct_nccl_comm c, ct_tensor t, int32_t peer, ct_stream s);
/** ncclGroupStart / ncclGroupEnd: the collectives and sends/recvs called in between, on the
 *  calling thread, are queued together at group end (needed for sends and recvs that pair up
 *  within one member, and for several communicators at once). Groups nest. group_end waits for
 *  the group's peers at most the timeout of its communicators, and reports the first error of
 *  any of them. Inside a group, ct_nccl_comm_init_rank, _split, _destroy, _abort and _wait fail
 *  with CT_ERR_STATE (NCCL would defer them to the group's end), and so do _split and _destroy
 *  of a communicator with work in another thread's open group; a communicator released inside
 *  a group ends after it. Errors: CT_ERR_STATE for an end without a start. */
CT_API ct_status ct_nccl_group_start(void);
CT_API ct_status ct_nccl_group_end(void);

/* ============================================================================================
 * 22. NVTX (torch.cuda.nvtx): marks and ranges for Nsight Systems and other profilers
 *
 * Each function is the NVTX C call torch.cuda.nvtx binds (nvtxMarkA, nvtxRangePushA,
 * nvtxRangePop, nvtxRangeStartA, nvtxRangeEnd, in the default domain), and passes NVTX's result
 * through unchanged, as torch does. NVTX (version 3) is compiled into libctorch.so from the CUDA
 * toolkit's header-only <nvtx3/nvToolsExt.h>: nothing is linked and no GPU, driver or CUDA
 * context is needed, so these functions work the same on a CPU-only machine (torch raises only
 * when it was built without CUDA; ctorch always has the header). A profiler attaches by
 * pointing NVTX_INJECTION64_PATH at its injection library before the process's first NVTX call
 * (nsys and Nsight set it themselves: `nsys profile -t nvtx,cuda ./prog`); without one every
 * call is a no-op that costs a load and a branch. docs/profiling.md.
 *
 * msg is a NUL-terminated string passed to the tool byte for byte (UTF-8 shows as text in
 * Nsight Systems); NULL fails with CT_ERR_NULL_POINTER. Ranges pushed and popped nest per
 * thread; started ranges (range_start/range_end) may end on another thread.
 * ========================================================================================== */

/** torch.cuda.nvtx.mark(msg): an instantaneous event. */
CT_API ct_status ct_nvtx_mark(const char* msg);
/** torch.cuda.nvtx.range_push(msg): starts a nested range on the calling thread.
 *  Out: *depth (may be NULL to skip) = the zero-based depth of the range started, as the tool
 *  reports it; -2 (NVTX_NO_PUSH_POP_TRACKING) when no tool is attached, and a negative value
 *  when the tool reports an error. */
CT_API ct_status ct_nvtx_range_push(const char* msg, int32_t* depth);
/** torch.cuda.nvtx.range_pop(): ends the calling thread's innermost pushed range.
 *  Out: *depth (may be NULL) = the zero-based depth of the range ended, as the tool reports it;
 *  -2 without a tool; a negative value when the tool reports an error (for instance a pop
 *  without a push: not a ctorch error, as in torch). */
CT_API ct_status ct_nvtx_range_pop(int32_t* depth);
/** torch.cuda.nvtx.range_start(msg): starts a range that may end on any thread.
 *  Out: *id = the tool's range id (nvtxRangeId_t) for ct_nvtx_range_end; 0 without a tool. */
CT_API ct_status ct_nvtx_range_start(const char* msg, uint64_t* id);
/** torch.cuda.nvtx.range_end(id): ends the range id of ct_nvtx_range_start (any value is
 *  passed to the tool; NVTX does not check it). */
CT_API ct_status ct_nvtx_range_end(uint64_t id);

/* ============================================================================================
 * 23. Device monitoring through NVML (torch.cuda.utilization ...) and CUDA initialization
 *     (torch.cuda.init, is_initialized)
 *
 * The figures torch.cuda reads from NVML, the NVIDIA driver's management library, in torch's
 * units. NVML (libnvidia-ml.so.1, installed with the driver) is loaded with dlopen at the first
 * query and initialized once; libctorch.so does not link it (docs/monitoring.md).
 *
 * device is a CUDA device index, negative for the calling thread's current device (which needs
 * CUDA). It is mapped to NVML's index through CUDA_VISIBLE_DEVICES as torch maps it (ordinals,
 * or UUIDs and their prefixes, "GPU-..." / "MIG-..."); an index with no visible GPU is
 * CT_ERR_INDEX, "device N is not visible (CUDA_VISIBLE_DEVICES=[...])" (the list: the NVML
 * index of each visible device). An explicit index does not initialize CUDA.
 * Errors of every query:
 *   CT_ERR_NOT_SUPPORTED     libnvidia-ml.so.1 cannot be loaded (no driver: the message names it
 *                            and gives the loader's reason), or NVML says the device or driver
 *                            does not support the query or forbids it ("Not Supported",
 *                            "Insufficient Permissions")
 *   CT_ERR_CUDA_UNAVAILABLE  NVML is there but the driver is not loaded; device < 0 without CUDA
 *   CT_ERR_INDEX             a device with no visible GPU
 *   CT_ERR_CUDA              any other NVML failure ("NVML error in nvmlDevice...: <NVML's text>
 *                            (nvmlReturn_t N)", e.g. "GPU is lost")
 * Values are sampled by the driver: utilization, memory usage and power over its last sample
 * period (1/6 s to 1 s, by product), as nvidia-smi shows them.
 * ========================================================================================== */

/** torch.cuda.init(): initializes ctorch's CUDA state; idempotent. Errors:
 *  CT_ERR_CUDA_UNAVAILABLE with the runtime's reason (no GPU, no driver). */
CT_API ct_status ct_cuda_init(void);
/** torch.cuda.is_initialized(): *out = 1 once a call needed a GPU and reached one (ct_cuda_init,
 *  ct_cuda_current_device, a CUDA tensor, a stream ...), else 0. Asking whether CUDA is
 *  available, counting devices and the NVML queries with an explicit device do not initialize
 *  (as in torch). Never initializes; works without CUDA. */
CT_API ct_status ct_cuda_is_initialized(int32_t* out);
/** torch.cuda._device_count_nvml(): the number of visible CUDA devices as NVML and
 *  CUDA_VISIBLE_DEVICES give it, without initializing CUDA: 0 when CUDA_VISIBLE_DEVICES names no
 *  device; -1 when NVML cannot be used (no libnvidia-ml.so.1, no driver, a failed query) and for
 *  MIG UUIDs, which torch does not parse (torch.cuda.device_count then asks the CUDA runtime:
 *  ct_cuda_device_count). The ordinal list is cut at the first ordinal NVML does not have. Only
 *  fails for a NULL out. */
CT_API ct_status ct_cuda_device_count_nvml(int32_t* out);
/** torch.cuda.utilization(device): percent (0..100) of the last sample period during which one
 *  or more kernels ran on the GPU (nvidia-smi's utilization.gpu). */
CT_API ct_status ct_cuda_utilization(int32_t device, int32_t* out);
/** torch.cuda.memory_usage(device): percent (0..100) of the last sample period during which
 *  device memory was read or written (nvidia-smi's utilization.memory; not bytes). */
CT_API ct_status ct_cuda_memory_usage(int32_t device, int32_t* out);
/** torch.cuda.temperature(device): the GPU die's temperature in degrees Celsius. */
CT_API ct_status ct_cuda_temperature(int32_t device, int32_t* out);
/** torch.cuda.power_draw(device): the board's power draw in milliwatts (an average over the last
 *  second on Ampere and later but GA100, else instantaneous; nvidia-smi's power.draw in W). */
CT_API ct_status ct_cuda_power_draw(int32_t device, int32_t* out);
/** torch.cuda.clock_rate(device): the current SM clock in MHz (nvidia-smi's clocks.sm). */
CT_API ct_status ct_cuda_clock_rate(int32_t device, int32_t* out);
/** torch.cuda.device_memory_used(device): device memory in use in bytes, by every process and
 *  the driver's reserve (NVML's memory info, version 1: reserved + allocated; nvidia-smi's
 *  memory.total - memory.free). */
CT_API ct_status ct_cuda_device_memory_used(int32_t device, int64_t* out);
/** torch.cuda.list_gpu_processes(device), as text into buf (string convention of
 *  ct_tensor_repr): "GPU:<NVML index>", then "no processes are running" or one line a compute
 *  process, "process <pid, width 10> uses <MB, width 12, 3 decimals> MB GPU memory" (MB = 2^20
 *  bytes; "N/A" in place of the figure when NVML cannot tell), lines joined by "\n" (none at the
 *  end). Unlike torch, which returns its errors as the text, errors are statuses as above. The
 *  list may change between the size query and the call: call again on CT_ERR_BUFFER_SIZE. */
CT_API ct_status ct_cuda_list_gpu_processes(int32_t device, void* buf, int64_t cap, int64_t* needed);

/* ============================================================================================
 * 24. The CUDA stream sanitizer (torch.cuda._sanitizer, "CSAN")
 *
 * Finds a kernel that reads or writes a tensor's memory on one stream while a kernel on another
 * stream may still be writing it (or, for a write, reading it), with no synchronization in
 * between: an event recorded after the earlier access and waited for by the later stream
 * (ct_stream_record_event + ct_stream_wait_event, ct_stream_wait_stream), or the host waiting
 * (ct_stream_synchronize, ct_event_synchronize, ct_cuda_synchronize, a copy to the host).
 * ctorch keeps, per storage, the last write and the reads since, and per stream what it has
 * waited for; every op that queues CUDA work reports what it reads and writes. Memory handed out
 * again by the allocator starts a new history (its reuse is the caching allocator's business,
 * with ct_tensor_record_stream). Checks are per storage: any two views of one storage are the
 * same memory. A report names both accesses' ops, streams, argument names and tensors, in
 * torch's text form but without stack traces (docs/differences.md).
 *
 * Switched on by the environment variable CTORCH_CUDA_SANITIZER when the library is loaded
 * (as TORCH_CUDA_SANITIZER: any value but "warn" gives CT_CSAN_ERROR; "warn" CT_CSAN_WARN) or by
 * ct_cuda_sanitizer_set_mode at any time (what happened before it was on is not known: switch it
 * on first). Off, it costs one predictable branch per op. All of this needs no GPU (CPU tensors
 * are never checked) and is thread-safe.
 * ============================================================================================ */
typedef int32_t ct_csan_mode;
/* BEGIN GENERATED: csan_mode */
enum {
  CT_CSAN_OFF = 0,   /* no checks (the default; nothing measurable on any op) */
  CT_CSAN_ERROR = 1, /* an op that races fails with CT_ERR_DATA_RACE after its kernel was queued (torch's behaviour) */
  CT_CSAN_WARN = 2   /* each race goes to the callback (ct_cuda_sanitizer_set_callback; default: stderr) and the op succeeds */
};
/* END GENERATED: csan_mode */

/** A report of warn mode: the text of one race (valid during the call only) and the user
 *  pointer given with the callback. Runs on the thread of the op that raced, once per race, when
 *  that op has queued its work, outside ctorch's locks. A call already under way when the
 *  callback is replaced may still reach the old one (keep its user data alive a while). */
typedef void (*ct_csan_callback)(const char* report, void* user);

/** Sets the mode (CT_CSAN_OFF, _ERROR, _WARN). Switching it on from off starts with nothing
 *  known; switching it off forgets everything. Errors: CT_ERR_ARGUMENT for another value. */
CT_API ct_status ct_cuda_sanitizer_set_mode(ct_csan_mode mode);
/** The current mode. */
CT_API ct_status ct_cuda_sanitizer_mode(ct_csan_mode* out);
/** Warn mode's callback and its user pointer; NULL restores the default, which prints each
 *  report to stderr. */
CT_API ct_status ct_cuda_sanitizer_set_callback(ct_csan_callback cb, void* user);
/** How many races the sanitizer has reported in this process (both modes). */
CT_API ct_status ct_cuda_sanitizer_report_count(int64_t* out);

/* ============================================================================================
 * 25. The jiterator (torch.cuda.jiterator._create_jit_fn, _create_multi_output_jit_fn)
 *
 * An elementwise function written at run time as CUDA C++ source, compiled with NVRTC (the CUDA
 * runtime compiler, libnvrtc.so.13, loaded on first use; missing: CT_ERR_NOT_SUPPORTED naming
 * it) and run like a built-in op: its inputs broadcast together and promoted to their common
 * dtype (torch.result_type), its outputs new tensors of that shape and dtype, any strides, on
 * the current stream of the inputs' device. As torch's, the code is one or more function
 * templates and the last one is called for each element with T the common dtype's math type
 * (float for float16 and bfloat16), the inputs first, then the extra arguments:
 *
 *   template <typename T> T my_fused_kernel(T x, T y, T alpha, T beta) { return alpha * x + beta * y; }
 *
 * With several outputs (ct_cuda_jit_create_multi_output) the function returns void and takes
 * the outputs as trailing T& parameters. Unannotated functions are device functions; the CUDA
 * math functions (exp, ::tanh, std::sqrt, ...) are there; nothing may be #included. Complex
 * tensors call the function with T = std::complex<float> or std::complex<double> (libc++'s
 * operations and math functions, as torch's jiterator carries them). A kernel is compiled for
 * each combination of dtypes, layout class, vector width (the data's alignment), index width,
 * extra arguments' types and device, once per process at its first call (concurrent first
 * calls compile once; the kernels are kept for the process), and kept on disk for the next processes:
 * CTORCH_KERNEL_CACHE_PATH, else $XDG_CACHE_HOME/ctorch/kernels, else ~/.cache/ctorch/kernels
 * (USE_CTORCH_KERNEL_CACHE=0: none), a file per kernel named after it, the GPU architecture and
 * NVRTC's and the driver's versions. docs/jiterator.md.
 *
 * Extra arguments (torch's kwargs) are named and typed at creation with default values: arrays
 * of n names, n types (ct_jit_arg_type) and values, an entry's value in ints[i] for
 * CT_JIT_ARG_INT64 and CT_JIT_ARG_BOOL, in doubles[i] for CT_JIT_ARG_DOUBLE (the other array's
 * entry is ignored; either array may be NULL when no entry needs it). They are passed to the
 * function by position, in the order given, after the tensors (torch's: not matched to the
 * parameters' names). A call may override some by name, as torch's keyword arguments.
 * ============================================================================================ */
/** A jitted function: a counted reference like a stream ([new reference] from the create
 *  functions). */
typedef struct ct_cuda_jit_fn_* ct_cuda_jit_fn;
typedef int32_t ct_jit_arg_type;
/* BEGIN GENERATED: jit_arg */
enum {
  CT_JIT_ARG_INT64 = 0,  /* int64_t (its value in the int64 array) */
  CT_JIT_ARG_DOUBLE = 1, /* double (its value in the double array) */
  CT_JIT_ARG_BOOL = 2    /* bool (its value in the int64 array: 0 false, anything else true) */
};
/* END GENERATED: jit_arg */

/** torch.cuda.jiterator._create_jit_fn(code, **kwargs): one output, returned by the function.
 *  The code is parsed now (its last template function's name: "Couldn't parse code, please
 *  check correctness" otherwise, CT_ERR_ARGUMENT) and compiled at the first call. Errors:
 *  CT_ERR_NULL_POINTER (code, out, a NULL array that an entry needs), CT_ERR_ARGUMENT (a name
 *  given twice, n < 0, an unknown type). Needs no GPU. [new reference] */
CT_API ct_status ct_cuda_jit_create(const char* code, const char* const* arg_names, const ct_jit_arg_type* arg_types,
                                    const int64_t* arg_ints, const double* arg_doubles, int32_t n_args,
                                    ct_cuda_jit_fn* out);
/** torch.cuda.jiterator._create_multi_output_jit_fn(code, num_outputs, **kwargs): num_outputs
 *  (1..8) outputs, trailing T& parameters of a void function. Errors as ct_cuda_jit_create, and
 *  CT_ERR_ARGUMENT for num_outputs out of range. [new reference] */
CT_API ct_status ct_cuda_jit_create_multi_output(const char* code, int32_t num_outputs, const char* const* arg_names,
                                                 const ct_jit_arg_type* arg_types, const int64_t* arg_ints,
                                                 const double* arg_doubles, int32_t n_args, ct_cuda_jit_fn* out);
CT_API ct_status ct_cuda_jit_retain(ct_cuda_jit_fn f);
CT_API ct_status ct_cuda_jit_release(ct_cuda_jit_fn f);
/** Live jitted-function handles (for leak checks). */
CT_API ct_status ct_live_cuda_jit_count(int64_t* out);
/** The function's name (the string convention of ct_tensor_repr) and its number of outputs. */
CT_API ct_status ct_cuda_jit_name(ct_cuda_jit_fn f, void* buf, int64_t cap, int64_t* needed);
CT_API ct_status ct_cuda_jit_num_outputs(ct_cuda_jit_fn f, int32_t* out);
/** Calls f on n_inputs (1..8) CUDA tensors of one device: outs (n_outs = its number of outputs)
 *  receive the results [new reference each], of the broadcast shape and common dtype, laid out
 *  as the inputs are iterated (f of a transposed view is transposed, as torch's outputs).
 *  Overrides (n_over >= 0, arrays as at creation, each name at most once) replace declared
 *  extra arguments by name, with the type and value given.
 *  Compiles the kernel at the first call for these dtypes and this layout (a compile error is
 *  CT_ERR_ARGUMENT with NVRTC's log, line numbers included). Empty inputs give empty outputs
 *  without compiling. Errors: CT_ERR_CUDA_UNAVAILABLE; CT_ERR_ARGUMENT ("jiterator only supports
 *  up to 8 tensor inputs, got 9", "<name> is not declared in function definition", n_outs not
 *  the function's outputs, a name overridden twice); CT_ERR_DEVICE ("Expected all tensors to be
 *  on the same device, but found at least two devices, cuda:0 and cpu!", the first CUDA tensor's
 *  device named first; CPU inputs); CT_ERR_SHAPE (shapes that do not broadcast);
 *  CT_ERR_NOT_SUPPORTED (no NVRTC, a GPU older than NVRTC knows, more than 12
 *  dimensions that do not collapse). On failure outs are untouched. */
CT_API ct_status ct_cuda_jit_run(ct_cuda_jit_fn f, const ct_tensor* inputs, int32_t n_inputs,
                                 const char* const* over_names, const ct_jit_arg_type* over_types,
                                 const int64_t* over_ints, const double* over_doubles, int32_t n_over,
                                 ct_tensor* outs, int32_t n_outs);
/** The out form of ct_cuda_jit_run (in place when an output is also an input): writes f's values
 *  into outs (n_outs = its number of outputs; borrowed, nothing new is returned). Each output is
 *  a CUDA tensor of the inputs' device with exactly their broadcast shape (CT_ERR_SHAPE "output
 *  with shape [2] doesn't match the broadcast shape [3]"; no resizing), any strides but no
 *  element twice (CT_ERR_ARGUMENT "unsupported operation: more than one element of the
 *  written-to tensor refers to a single memory location ..."; two outputs whose memory ranges
 *  meet without being the very same view: "... some elements of the output tensors 0 and 1
 *  refer to a single memory location ..."), and a dtype the common dtype can
 *  be cast to (torch.can_cast; CT_ERR_DTYPE "<name>: result type Float can't be cast to the
 *  desired output type Long"): the value is computed in the common dtype and cast, as
 *  TensorIterator stores. An input sharing memory with an output without being the very same
 *  view is read from a copy. Other errors as ct_cuda_jit_run; on failure no output is written. */
CT_API ct_status ct_cuda_jit_run_out(ct_cuda_jit_fn f, const ct_tensor* inputs, int32_t n_inputs,
                                     const char* const* over_names, const ct_jit_arg_type* over_types,
                                     const int64_t* over_ints, const double* over_doubles, int32_t n_over,
                                     const ct_tensor* outs, int32_t n_outs);
/** Kernels the jiterator has made ready in this process, compiled or read from its disk cache
 *  (all functions, devices, dtypes). */
CT_API ct_status ct_cuda_jit_kernel_count(int64_t* out);

/* ============================================================================================
 * 26. DLPack and foreign memory (torch.utils.dlpack, torch.from_dlpack, Tensor.__dlpack__,
 *     torch.from_blob)
 *
 * Zero-copy exchange with other libraries (PyTorch, CuPy, JAX, ONNX Runtime, cuDF, your own
 * CUDA code) through DLPack 1.1 (https://dmlc.github.io/dlpack/latest/; the header is vendored
 * under third_party/dlpack). This header does not include dlpack.h: a DLPack struct crosses
 * the ABI as a void* and a program that looks inside includes <dlpack/dlpack.h> itself. Each
 * function says which struct it takes or gives: a "capsule" is a DLManagedTensor* (the legacy
 * form, DLPack < 1.0, PyCapsule name "dltensor") or a DLManagedTensorVersioned* (version 1.x,
 * "dltensor_versioned"). docs/dlpack.md has the ownership and stream rules.
 *
 * Export (ct_to_dlpack, ct_to_dlpack_versioned, ct_tensor_dlpack): any tensor, no copy: data is
 * the address of the first element, byte_offset 0, strides in elements (the stride of a dim of
 * size < 2 is written as 1, as torch), device kDLCPU (id 0; pinned memory too, as torch) or
 * kDLCUDA (id = the GPU), dtypes as torch: kDLBool 8 bits, kDLBfloat 16, kDLComplex 64/128,
 * kDLFloat, kDLInt, kDLUInt (uint8). The versioned form has version 1.1 and flags 0 (writable,
 * not a copy). The capsule keeps the tensor's storage alive (any later ct_tensor_release is
 * fine) until its deleter is called: by the consumer that took it, else by the producer
 * (ct_dlpack_delete), exactly once. The shape and strides arrays live as long as the capsule.
 *
 * Import (ct_from_dlpack, ct_from_dlpack_versioned): a tensor viewing the capsule's memory (data
 * + byte_offset), no copy; NULL strides mean C-contiguous. On success the tensor owns the
 * capsule: its deleter is called exactly once, on the thread that drops the last tensor using
 * the memory (views included), never before, without waiting for work still queued on ctorch's
 * streams (as torch: synchronize first when the deleter makes the memory reusable at once). On
 * failure nothing is called and the caller still owns the capsule (call its deleter, or hand it
 * to someone else). The memory is never given to ctorch's caching allocator, and
 * ct_tensor_record_stream on such a tensor does nothing (the producer owns its reuse). The
 * read-only flag of the versioned form is not checked (as torch): do not write into a tensor
 * whose producer marked it read-only.
 *
 * Streams (the Python array API's __dlpack__(stream=...) contract): the consumer of a CUDA
 * tensor names the stream it will use, and ct_tensor_dlpack makes that stream wait (an event, no
 * host synchronization) for the work queued so far on the current stream of the tensor's
 * device, as torch's Tensor.__dlpack__. Values of stream: -1 no synchronization (the consumer
 * takes care of it); 1 the default (legacy) stream, which is also what Python's None means on
 * CUDA; any other value a cudaStream_t of the tensor's device (e.g. ct_stream_cuda_handle of a
 * ct_stream; for ctorch's default stream, whose handle is 0, pass 1). 0 and 2 (the per-thread
 * default stream) are refused as torch refuses them. CPU tensors take -1 only. Importing a CUDA
 * capsule assumes the producer made its data ready for ctorch's current stream of that device
 * (pass that stream's handle to the producer's __dlpack__). A consumer that uses an exported
 * CUDA tensor on another stream must make that work finish (or be ordered before any use of
 * the memory after the capsule's deleter ran) before calling the deleter: the memory goes back
 * to the caching allocator of the stream it was allocated on when the deleter drops the last
 * reference (torch's to_dlpack records no stream either).
 * ============================================================================================ */
/** Called by ct_from_blob's storage when it dies: deleter(address, ctx), exactly once, on any
 *  thread. */
typedef void (*ct_blob_deleter)(void* address, void* ctx);

/** torch.utils.dlpack.to_dlpack(t): *out_capsule = a new DLManagedTensor* (legacy form) that
 *  shares t's memory; no stream synchronization. The caller owns it until its deleter runs.
 *  Errors: CT_ERR_NULL_POINTER (out_capsule). */
CT_API ct_status ct_to_dlpack(ct_tensor t, void** out_capsule);
/** The same as a DLManagedTensorVersioned* (version 1.1, flags 0). */
CT_API ct_status ct_to_dlpack_versioned(ct_tensor t, void** out_capsule);
/** Tensor.__dlpack__(stream=stream, max_version=...): the stream handoff described above, then
 *  *out_capsule = a DLManagedTensorVersioned* when versioned != 0, else a DLManagedTensor*.
 *  Errors: CT_ERR_ARGUMENT ("stream should be None on cpu.", "per-thread default stream is not
 *  supported.", "unsupported stream 0 for ROCm/CUDA"), CT_ERR_CUDA (a stream that is not a
 *  CUDA stream), CT_ERR_NULL_POINTER. On failure nothing is exported. */
CT_API ct_status ct_tensor_dlpack(ct_tensor t, int64_t stream, int32_t versioned, void** out_capsule);
/** Tensor.__dlpack_device__(): *device_type is a DLDeviceType (1 kDLCPU, 2 kDLCUDA), *device_id
 *  the GPU's index (0 for the CPU). */
CT_API ct_status ct_tensor_dlpack_device(ct_tensor t, int32_t* device_type, int32_t* device_id);
/** torch.from_dlpack on a DLManagedTensor* (legacy form): a tensor over its memory that takes
 *  ownership of the capsule on success. [new reference] Errors (the caller keeps the capsule):
 *  CT_ERR_NULL_POINTER (capsule, out, NULL shape with ndim > 0, NULL data with elements),
 *  CT_ERR_DTYPE (torch's "ATen does not support lanes != 1", "Unsupported kUInt bits 16", ...;
 *  ctorch has no uint16/32/64 nor complex32), CT_ERR_DEVICE ("Unsupported device_type: 3": only
 *  kDLCPU and kDLCUDA, as torch; a pointer that is not memory of the named GPU),
 *  CT_ERR_CUDA_UNAVAILABLE / CT_ERR_INDEX (a kDLCUDA capsule without CUDA or with a bad device
 *  id), CT_ERR_ARGUMENT (negative strides), CT_ERR_SHAPE (negative sizes, ndim outside 0..64). */
CT_API ct_status ct_from_dlpack(void* capsule, ct_tensor* out);
/** torch.from_dlpack on a DLManagedTensorVersioned*. Errors as ct_from_dlpack, and
 *  CT_ERR_NOT_SUPPORTED for a major version other than 1 (torch's "unsupported DLPack capsule
 *  major version: 2. Maximum supported version: 1"). */
CT_API ct_status ct_from_dlpack_versioned(void* capsule, ct_tensor* out);
/** Calls the deleter of a capsule that no one consumed (a DLManagedTensorVersioned* when
 *  versioned != 0, else a DLManagedTensor*; a NULL deleter is fine): for a producer whose
 *  consumer never took the capsule, from a binding that cannot call a C function pointer.
 *  Never call it on a consumed capsule. Errors: CT_ERR_NULL_POINTER. */
CT_API ct_status ct_dlpack_delete(void* capsule, int32_t versioned);
/** torch.from_blob(address, sizes, strides, deleter=..., dtype=..., device=...): a tensor over
 *  memory ctorch did not allocate, no copy. sizes/strides point to ndim values (strides NULL:
 *  C-contiguous; in elements, >= 0); (dev_type, dev_index) as in section 6. address may be NULL
 *  only for a tensor of no elements. On CUDA the address must be memory that CUDA knows
 *  (device or managed memory of that GPU, or registered/pinned host memory, as torch's
 *  getDeviceFromPtr): otherwise CT_ERR_DEVICE ("The specified pointer resides on host memory and
 *  is not registered with any CUDA device.", "Specified device cuda:0 does not match device of
 *  data cuda:1"). deleter (may be NULL: the caller owns the memory and keeps it valid while any
 *  tensor uses it) is called as deleter(address, ctx) exactly once, on any thread, when the
 *  last tensor using the memory (views included) goes; never when ct_from_blob fails (then the
 *  caller still owns the memory). The memory never enters the caching allocator.
 *  [new reference] Errors: CT_ERR_NULL_POINTER, CT_ERR_SHAPE (negative sizes, a span beyond
 *  int64), CT_ERR_ARGUMENT (negative strides, bad device type), CT_ERR_DTYPE,
 *  CT_ERR_CUDA_UNAVAILABLE, CT_ERR_INDEX (device index), CT_ERR_DEVICE. */
CT_API ct_status ct_from_blob(void* address, const int64_t* sizes, int32_t ndim, const int64_t* strides,
                              ct_dtype dtype, ct_device_type dev_type, int32_t dev_index, ct_blob_deleter deleter,
                              void* ctx, ct_tensor* out);

/* ============================================================================================
 * 27. Saving and loading tensors (safetensors)
 *
 * The safetensors format of huggingface/safetensors (safetensors.torch.save_file, safe_open,
 * load_file): 8 bytes N (little-endian), N bytes of UTF-8 JSON naming each tensor's dtype
 * ("F32", "BF16", "I64", "BOOL", "C64", ...), shape and [begin, end) in the data buffer, plus
 * an optional "__metadata__" map of strings, then the tensors' bytes, row-major, little-endian.
 * docs/safetensors.md.
 *
 * Writing: the file is byte for byte what safetensors.torch.save_file writes for the same
 * tensors and metadata (tensors ordered by dtype alignment, descending, then by name; header
 * padded with spaces to a multiple of 8 bytes, so every tensor is aligned; metadata keys
 * sorted, where the Python package writes them in hash order). Tensors may be on any device
 * (CUDA tensors are copied to the host) and have any strides (written contiguous; the Python
 * package refuses non-contiguous tensors); tensors sharing memory are written each in full.
 * Names are UTF-8, unique, not "__metadata__"; n_meta 0 writes no "__metadata__". ctorch's
 * complex128 has no dtype in the format (CT_ERR_NOT_SUPPORTED).
 *
 * Reading: a ct_safetensors is a counted reference (like a stream) to an open file, validated
 * as the reference implementation does (header length at most 100000000 bytes, valid JSON,
 * each tensor's offsets contiguous from 0 and covering the whole data buffer without gaps or
 * overlaps, end - begin == numel * itemsize, no name twice; every failure CT_ERR_ARGUMENT with
 * a message that starts "safetensors: " and, for the length, offset and size checks, ends with
 * the reference's error name, e.g. "(InvalidOffset)"). The file is memory-mapped privately (MAP_PRIVATE): a CPU tensor from
 * ct_safetensors_get_tensor is the mapped bytes themselves (zero-copy) and writing into it
 * copies the page for this process (copy-on-write), never changing the file; tensors of one
 * open file share its mapping, as the Python package's do (a write is seen by a later
 * get_tensor of the same name through the same handle). The mapping lives while the handle or
 * any tensor made from it lives. A tensor whose bytes are not aligned for its dtype (a file
 * written by another writer), or a bool tensor with bytes other than 0 and 1, is copied
 * instead. A CUDA tensor is copied from the mapping straight to the device (synchronously).
 * Changing or truncating the file while it is mapped is undefined, as for any mapping.
 * Format dtypes ctorch has no dtype for (F8_E4M3, F8_E5M2, U16, U32, U64, F4, ...) are valid
 * in a file; asking for such a tensor's dtype or data is CT_ERR_NOT_SUPPORTED naming it.
 * ========================================================================================== */

/** An open safetensors file (safetensors.safe_open). */
typedef struct ct_safetensors_s* ct_safetensors;

/** safetensors.torch.save_file(dict(zip(names, tensors)), path, metadata): writes n tensors
 *  (names[i] -> tensors[i]) and n_meta metadata pairs (meta_keys[i] -> meta_values[i]) to a
 *  new file at file_path: written next to it (file_path + ".tmp<pid>_<n>") and renamed over it,
 *  so a file there is replaced atomically (its readers and the tensors mapped from it keep the
 *  old bytes), and on failure file_path is unchanged (the directory must be writable). The arrays
 *  may be NULL when their count is 0. Errors: CT_ERR_NULL_POINTER (file_path, an array, a name, a
 *  key or a value), CT_ERR_INVALID_HANDLE (a tensor), CT_ERR_ARGUMENT (n or n_meta < 0, a name
 *  or key given twice, a name "__metadata__", a string that is not UTF-8, the file cannot be
 *  created or written: the message has the system's reason), CT_ERR_NOT_SUPPORTED
 *  (complex128). Nothing is written when the arguments are wrong. */
CT_API ct_status ct_safetensors_save_file(const char* file_path, const char* const* names, const ct_tensor* tensors,
                                          int32_t n, const char* const* meta_keys,
                                          const char* const* meta_values, int32_t n_meta);
/** safetensors.torch.save(tensors, metadata): the same file's bytes into buf (cap bytes).
 *  Out: *needed = the file's size; CT_ERR_BUFFER_SIZE when cap < it (*needed still set,
 *  nothing copied from any device: call with cap 0 to size the buffer). Other errors as
 *  ct_safetensors_save_file. */
CT_API ct_status ct_safetensors_save_buffer(const char* const* names, const ct_tensor* tensors, int32_t n,
                                            const char* const* meta_keys, const char* const* meta_values,
                                            int32_t n_meta, void* buf, int64_t cap, int64_t* needed);
/** safetensors.safe_open(path, framework="pt"): maps and validates the file. Errors:
 *  CT_ERR_NULL_POINTER, CT_ERR_ARGUMENT (the file cannot be opened: the system's reason; an
 *  invalid file: see above), CT_ERR_OUT_OF_MEMORY (it cannot be mapped). [new reference] */
CT_API ct_status ct_safetensors_open(const char* file_path, ct_safetensors* out);
/** safetensors.torch.load(data): as ct_safetensors_open on a copy of nbytes bytes of a whole
 *  file held in memory (the caller may free data when the call returns). [new reference] */
CT_API ct_status ct_safetensors_open_buffer(const void* data, int64_t nbytes, ct_safetensors* out);
CT_API ct_status ct_safetensors_retain(ct_safetensors f);
/** Drops one reference; tensors made from the file keep its mapping alive. */
CT_API ct_status ct_safetensors_release(ct_safetensors f);
/** Live safetensors handles (for leak checks). */
CT_API ct_status ct_live_safetensors_count(int64_t* out);
/** len(f.keys()): the number of tensors. */
CT_API ct_status ct_safetensors_count(ct_safetensors f, int64_t* out);
/** f.keys()[i]: the i-th tensor name in sorted (byte) order, into buf (the string convention
 *  of ct_tensor_repr). Errors: CT_ERR_INDEX for i outside [0, count). */
CT_API ct_status ct_safetensors_name(ct_safetensors f, int64_t i, void* buf, int64_t cap, int64_t* needed);
/** The dtype of a tensor without loading it (f.get_slice(name).get_dtype()). Errors:
 *  CT_ERR_INDEX ("safetensors: the file has no tensor 'x'"), CT_ERR_NOT_SUPPORTED ("... has
 *  dtype F8_E4M3, which ctorch does not have"). */
CT_API ct_status ct_safetensors_tensor_dtype(ct_safetensors f, const char* tensor_name, ct_dtype* out);
/** The shape of a tensor without loading it (f.get_slice(name).get_shape()) into dst[0..cap),
 *  as ct_tensor_sizes (CT_ERR_BUFFER_SIZE when cap < ndim, *ndim still set). Works for every
 *  format dtype. Errors: CT_ERR_INDEX. */
CT_API ct_status ct_safetensors_tensor_shape(ct_safetensors f, const char* tensor_name, int64_t* dst, int32_t cap,
                                             int32_t* ndim);
/** f.get_tensor(name) of a file opened with device=(dev_type, dev_index): on the CPU the mapped
 *  bytes (zero-copy, copy-on-write; a copy when misaligned or a bool byte is not 0 or 1), on
 *  CUDA a copy on the device. Errors: CT_ERR_INDEX, CT_ERR_NOT_SUPPORTED (dtype), device errors
 *  as ct_empty. [new reference] */
CT_API ct_status ct_safetensors_get_tensor(ct_safetensors f, const char* tensor_name, ct_device_type dev_type,
                                           int32_t dev_index, ct_tensor* out);
/** f.metadata(): the number of "__metadata__" entries (0 when the header has none). */
CT_API ct_status ct_safetensors_metadata_count(ct_safetensors f, int64_t* out);
/** The i-th metadata key in sorted order, into buf (string convention). Errors: CT_ERR_INDEX. */
CT_API ct_status ct_safetensors_metadata_key(ct_safetensors f, int64_t i, void* buf, int64_t cap, int64_t* needed);
/** f.metadata()[key] into buf (string convention). Errors: CT_ERR_INDEX ("safetensors: the
 *  metadata has no key 'x'"). */
CT_API ct_status ct_safetensors_metadata_get(ct_safetensors f, const char* meta_key, void* buf, int64_t cap,
                                             int64_t* needed);

/* ============================================================================================
 * 28. Scans (torch.cumsum, cumprod, cummax, cummin, logcumsumexp)
 *    Along one dim (wrapped as PyTorch: -1 is the last; a 0-dim tensor takes -1 and 0). Results
 *    are new contiguous tensors of t's shape on t's device. Errors: CT_ERR_INDEX "Dimension out
 *    of range (expected to be in range of [-2, 1], but got 5)"; CT_ERR_DTYPE for dtypes PyTorch
 *    refuses, with its message ("cummax_cpu" not implemented for 'ComplexFloat'; "_cuda" on
 *    CUDA). Floating sums may differ from PyTorch's in the last bits (the order of the additions;
 *    docs/differences.md); integers, cummax and cummin are exact. Note [Scan layout].
 * ========================================================================================== */

/** torch.cumsum(t, dim, dtype=dtype). dtype CT_DTYPE_UNDEFINED: int64 for integer and bool
 *  inputs, else t's dtype; a given dtype is the result's and t is cast to it first (integer
 *  sums wrap around as in PyTorch). A bool result is CT_ERR_DTYPE ("cumsum_out_cpu" not
 *  implemented for 'Bool'; "cumsum_cuda" on CUDA) when there is something to scan: a 0-dim t
 *  is copied and an empty t gives an empty result, as PyTorch. float16/bfloat16 accumulate in
 *  float32. [new reference] */
CT_API ct_status ct_cumsum(ct_tensor t, int64_t dim, ct_dtype dtype, ct_tensor* out);
/** torch.cumprod(t, dim, dtype=dtype): the dtype rules of ct_cumsum. [new reference] */
CT_API ct_status ct_cumprod(ct_tensor t, int64_t dim, ct_dtype dtype, ct_tensor* out);
/** torch.cummax(t, dim): *values (t's dtype) holds the running maximum, *indices (int64) the
 *  position along dim it came from: the last of equal maxima; once a NaN is seen the values stay
 *  NaN and the index is that of the last NaN so far. Bool, integer and floating inputs (complex:
 *  CT_ERR_DTYPE). Whatever dim is, as PyTorch: a 0-dim t gives a copy of t and index 0, an
 *  empty t empty results. On failure neither out is written. [new reference] x2 */
CT_API ct_status ct_cummax(ct_tensor t, int64_t dim, ct_tensor* values, ct_tensor* indices);
/** torch.cummin(t, dim): as ct_cummax with the minimum (the last of equal minima). */
CT_API ct_status ct_cummin(ct_tensor t, int64_t dim, ct_tensor* values, ct_tensor* indices);
/** torch.logcumsumexp(t, dim): log(cumsum(exp(t))) computed stably (max + log1p(exp(min -
 *  max)) per step); -inf entries add nothing, equal infinities stay that infinity, NaN
 *  propagates. Floating and complex inputs, result in t's dtype; integer and bool inputs are
 *  CT_ERR_DTYPE ("logcumsumexp_out_cpu" not implemented for 'Long'; on CUDA "logcumsumexp_cuda",
 *  and only when there is something to scan, as PyTorch). [new reference] */
CT_API ct_status ct_logcumsumexp(ct_tensor t, int64_t dim, ct_tensor* out);

/* ============================================================================================
 * 29. Sorting and selection (torch.sort, argsort, topk, kthvalue, unique, searchsorted)
 *     On CPU and CUDA tensors of any layout; every result is a [new reference] on the input's
 *     device. Order: NaN (any sign or payload) after +inf (ascending puts NaN last, descending
 *     first); -0.0 equals 0.0. Sorts are always stable, so CPU and CUDA give the same values
 *     and indices (PyTorch promises stability only with stable=True; stable is accepted and
 *     needs no other behaviour here). Indices are int64 positions along dim. Complex inputs
 *     fail with CT_ERR_DTYPE; a dim out of range with CT_ERR_INDEX ("Dimension out of range
 *     (expected to be in range of [-2, 1], but got 2)"); a 0-dim tensor takes dim 0 or -1.
 *     On failure no out-parameter is written.
 * ========================================================================================== */

/** torch.sort(t, dim, descending, stable): *values (t's dtype) and *indices (int64), both
 *  shaped like t ([new reference]s). Bool and every integer and floating dtype. Errors:
 *  CT_ERR_DTYPE "sort(): input tensor must be of non-complex type"; CT_ERR_INDEX (dim). */
CT_API ct_status ct_sort(ct_tensor t, int64_t dim, int32_t descending, int32_t stable, ct_tensor* values,
                         ct_tensor* indices);
/** torch.argsort(t, dim, descending, stable): the indices of ct_sort alone into *out. */
CT_API ct_status ct_argsort(ct_tensor t, int64_t dim, int32_t descending, int32_t stable, ct_tensor* out);
/** torch.topk(t, k, dim, largest, sorted): the k largest (largest == 0: smallest) elements
 *  along dim into *values and their int64 positions into *indices ([new reference]s, t's shape
 *  with size k at dim). Results come in order (largest first, or smallest first) whatever
 *  `sorted` says; equal elements in input order. Integer and floating dtypes. Errors:
 *  CT_ERR_INDEX "selected index k out of range" (k < 0 or above the size of dim; 1 for a
 *  0-dim t); CT_ERR_DTYPE "\"topk_cpu\" not implemented for 'Bool'" ("topk_out_cuda" on CUDA;
 *  also complex). */
CT_API ct_status ct_topk(ct_tensor t, int64_t k, int64_t dim, int32_t largest, int32_t sorted, ct_tensor* values,
                         ct_tensor* indices);
/** torch.kthvalue(t, k, dim, keepdim): the k-th smallest element along dim (k counts from 1)
 *  into *values and its int64 position into *indices ([new reference]s; dim removed unless
 *  keepdim). Of equal elements, the one a stable sort puts k-th. Integer and floating dtypes.
 *  Errors: CT_ERR_INDEX "kthvalue(): selected number k out of range for dimension 0" and
 *  "kthvalue(): Expected reduction dim 0 to have non-zero size."; CT_ERR_DTYPE
 *  "\"kthvalue_cpu\" not implemented for 'Bool'" ("kthvalue_cuda" on CUDA; also complex). */
CT_API ct_status ct_kthvalue(ct_tensor t, int64_t k, int64_t dim, int32_t keepdim, ct_tensor* values,
                             ct_tensor* indices);
/** torch.unique(t, sorted, return_inverse, return_counts) over the flattened tensor (dim=None):
 *  *values gets the distinct elements in ascending order (1-D, t's dtype); each NaN is distinct
 *  (PyTorch's equal_nan=False) and -0.0 and 0.0 are one value (the first in sorted order).
 *  With return_inverse != 0, *inverse gets int64 positions into *values shaped like t; with
 *  return_counts != 0, *counts the int64 number of each value. All [new reference]s; an output
 *  not asked for is set to NULL (its pointer may then be NULL). sorted is accepted; the result
 *  is sorted either way (PyTorch's CPU and CUDA kernels sort too). On CUDA the call waits for
 *  the device (the number of values sizes the result). Errors: CT_ERR_DTYPE "\"unique\" not
 *  implemented for 'ComplexFloat'"; CT_ERR_NULL_POINTER for a NULL pointer of an output asked
 *  for. */
CT_API ct_status ct_unique(ct_tensor t, int32_t sorted, int32_t return_inverse, int32_t return_counts,
                           ct_tensor* values, ct_tensor* inverse, ct_tensor* counts);
/** torch.searchsorted(sorted_sequence, values, out_int32=, right=, side=, sorter=): for each
 *  element of values, the position in its row of seq (the innermost dim, sorted ascending, or
 *  sorted by `sorter`) where it would be inserted to keep the order: the first position whose
 *  element is >= it (right != 0 or side "right": > it). seq is 1-D (any values shape, a 0-dim
 *  values too) or has the leading dims of values. Compared in the two tensors' promoted dtype
 *  (integer and floating, as torch.result_type); NaN compares false both ways (PyTorch's
 *  search). side: NULL or "" (not given), "left" or "right"; sorter: NULL, or int64 positions shaped
 *  like seq. *out: int64 (int32 when out_int32 != 0), shaped like values [new reference].
 *  Errors: CT_ERR_ARGUMENT "torch.searchsorted(): side and right can't be set to opposites,
 *  got side of left while right was True", "... side can only be 'left' or 'right' but got up";
 *  CT_ERR_SHAPE "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1
 *  dimensions of boundaries tensor and input value tensor must match, ..."; CT_ERR_DEVICE
 *  (tensors on different devices); CT_ERR_DTYPE (bool or complex, or a sorter not int64);
 *  CT_ERR_INDEX "torch.searchsorted(): sorter index out of range". */
CT_API ct_status ct_searchsorted(ct_tensor seq, ct_tensor values, int32_t out_int32, int32_t right, const char* side,
                                 ct_tensor sorter, ct_tensor* out);

/* ============================================================================================
 * 30. Indexing (index_select, gather, scatter, scatter_add, index_add_, take, masked_fill,
 *     masked_select, index, index_put_, nonzero)
 *
 * PyTorch's semantics, dtype rules and messages (docs/indexing.md). Results are [new
 * reference]s on the input's device, contiguous; every operand may have any strides (views,
 * expanded and transposed index tensors). Index tensors are on the input's device
 * (CT_ERR_DEVICE otherwise). An index out of range is, on the CPU, CT_ERR_INDEX with torch's
 * message, checked before anything is written; on CUDA a device-side assertion as in PyTorch:
 * the kernel traps and the CUDA context is lost for the rest of the process; the error
 * ("device-side assert triggered", CT_ERR_CUDA) comes from the next CUDA call, or from the op
 * itself when CUDA_LAUNCH_BLOCKING=1. nonzero, masked_select and where(cond) wait for the GPU
 * (the result's size), as PyTorch's do.
 * ========================================================================================== */

/** torch.index_select(t, dim, index): index 1-D or 0-dim, int64 or int32; entries in
 *  [0, t.size(dim)) (no wrapping: "index out of range in self"). A 0-dim t takes an index of
 *  one element. Errors: CT_ERR_INDEX (dim, an index of more than one dim, an index out of
 *  range on the CPU), CT_ERR_DTYPE ("index_select(): Expected dtype int32 or int64 for
 *  index"), CT_ERR_DEVICE. [new reference] */
CT_API ct_status ct_index_select(ct_tensor t, int64_t dim, ct_tensor index, ct_tensor* out);
/** torch.gather(t, dim, index): out[i][j][k] = t[index[i][j][k]][j][k] (dim 0); index int64
 *  with t's number of dims and index.size(d) <= t.size(d) for d != dim; the result has index's
 *  shape. Errors: CT_ERR_SHAPE ("Size does not match at dimension 1 expected index [2, 5] to be
 *  no larger than self [3, 4] apart from dimension 0"), CT_ERR_DTYPE ("gather(): Expected dtype
 *  int64 for index"), CT_ERR_INDEX ("index 5 is out of bounds for dimension 0 with size 3"),
 *  CT_ERR_DEVICE. [new reference] */
CT_API ct_status ct_gather(ct_tensor t, int64_t dim, ct_tensor index, ct_tensor* out);
/** torch.take(t, index): t read as 1-D in row-major order; index int64 of any shape (the
 *  result's), negative entries count from the end. Errors: CT_ERR_DTYPE, CT_ERR_INDEX ("out of
 *  range: tried to access index 5 on a tensor of 3 elements."), CT_ERR_DEVICE. [new reference] */
CT_API ct_status ct_take(ct_tensor t, ct_tensor index, ct_tensor* out);
/** torch.scatter(t, dim, index, src): a copy of t with out[index[i][j][k]][j][k] = src[i][j][k]
 *  (dim 0) for every element of index; index int64 with t's number of dims, index.size(d) <=
 *  src.size(d) for every d and <= t.size(d) for d != dim; src of t's dtype. Which write of a
 *  repeated index wins is unspecified on CUDA (the last one on the CPU), as in PyTorch. Errors:
 *  CT_ERR_DTYPE ("scatter(): Expected dtype int64 for index", "scatter(): Expected self.dtype
 *  to be equal to src.dtype"), CT_ERR_SHAPE ("Expected index [2, 5] to be no larger than self
 *  [3, 4] apart from dimension 0 and to be no larger size than src [2, 4]"), CT_ERR_INDEX
 *  ("index 5 is out of bounds for dimension 0 with size 3"), CT_ERR_DEVICE. [new reference] */
CT_API ct_status ct_scatter(ct_tensor t, int64_t dim, ct_tensor index, ct_tensor src, ct_tensor* out);
/** torch.scatter(t, dim, index, value): as ct_scatter with every written element value
 *  (converted to t's dtype as ct_fill_'s). [new reference] */
CT_API ct_status ct_scatter_value(ct_tensor t, int64_t dim, ct_tensor index, double value, ct_tensor* out);
/** torch.scatter_add(t, dim, index, src): as ct_scatter, adding (repeated indices add up; bool:
 *  or). On CUDA the adds are atomic, in no fixed order: a float result may differ from the CPU's
 *  in the last bits, as in PyTorch. Errors as ct_scatter ("scatter_add(): ..."). [new reference] */
CT_API ct_status ct_scatter_add(ct_tensor t, int64_t dim, ct_tensor index, ct_tensor src, ct_tensor* out);
/** t.index_add_(dim, index, source, alpha=alpha) in place: t.select(dim, index[i]) +=
 *  alpha * source.select(dim, i); index 1-D (or 0-dim), int64 or int32, of source.size(dim)
 *  entries in [0, t.size(dim)); source of t's dtype and t's sizes but along dim. Atomic adds on
 *  CUDA, as ct_scatter_add. Errors: CT_ERR_INDEX ("index out of range in self", "index_add_():
 *  Number of indices (3) should be equal to source.size(dim) (2)"), CT_ERR_DTYPE, CT_ERR_SHAPE,
 *  CT_ERR_ARGUMENT (a fractional alpha for an integer t), CT_ERR_DEVICE. */
CT_API ct_status ct_index_add_(ct_tensor t, int64_t dim, ct_tensor index, ct_tensor source, double alpha);
/** t[indices] (PyTorch's advanced indexing, torch.Tensor.__getitem__ with tensors):
 *  index_tensors holds n_indices <= t.dim() entries for t's leading dims, each NULL (a full
 *  slice, ':'), an int64 or int32 tensor (negative entries count from the end), or a bool mask covering as many
 *  dims as it has (its nonzero coordinates; CPU index tensors are accepted for a CUDA t, as in
 *  PyTorch). The index tensors broadcast together; their shape replaces the indexed dims in the
 *  result where those dims are adjacent, else it comes first, as in PyTorch. Errors: CT_ERR_INDEX
 *  ("index 5 is out of bounds for dimension 0 with size 3", "too many indices for tensor of
 *  dimension 2", "shape mismatch: indexing tensors could not be broadcast together with shapes
 *  [2], [3]", "The shape of the mask [3] at index 0 does not match the shape of the indexed
 *  tensor [4] at index 0", an index dtype other than int64, int32 and bool), CT_ERR_ARGUMENT
 *  (no index tensor), CT_ERR_NOT_SUPPORTED (a 0-dim bool index), CT_ERR_NULL_POINTER (index_tensors
 *  NULL with n_indices > 0). [new reference] */
CT_API ct_status ct_index(ct_tensor t, const ct_tensor* index_tensors, int32_t n_indices, ct_tensor* out);
/** t.index_put_(indices, values, accumulate) (t[indices] = values; accumulate != 0: +=):
 *  indices as ct_index's; values of t's dtype, broadcast to the shape ct_index would give, on
 *  t's device (or a 0-dim CPU tensor). Without accumulate, which write of a repeated index wins
 *  is unspecified on CUDA (the last one on the CPU); with it repeated indices add up (atomically
 *  on CUDA, float results may differ in the last bits). Errors as ct_index, CT_ERR_DTYPE ("Index
 *  put requires the source and destination dtypes match, got Float for the destination and
 *  Double for the source."), CT_ERR_SHAPE (values), CT_ERR_DEVICE. */
CT_API ct_status ct_index_put_(ct_tensor t, const ct_tensor* index_tensors, int32_t n_indices, ct_tensor values,
                               int32_t accumulate);
/** torch.masked_fill(t, mask, value): mask bool, broadcast with t (the result has the
 *  broadcast shape); value converted to t's dtype as ct_fill_'s. Errors: CT_ERR_DTYPE
 *  ("masked_fill_ only supports boolean masks, but got mask with dtype unsigned char"),
 *  CT_ERR_SHAPE, CT_ERR_ARGUMENT (value), CT_ERR_DEVICE. [new reference] */
CT_API ct_status ct_masked_fill(ct_tensor t, ct_tensor mask, double value, ct_tensor* out);
/** t.masked_fill_(mask, value) in place: mask must broadcast to t's shape. */
CT_API ct_status ct_masked_fill_(ct_tensor t, ct_tensor mask, double value);
/** torch.masked_select(t, mask): 1-D, the elements of t (broadcast with mask) where mask is
 *  true, in row-major order. Errors: CT_ERR_DTYPE ("masked_select: expected BoolTensor for
 *  mask"), CT_ERR_SHAPE, CT_ERR_DEVICE. [new reference] */
CT_API ct_status ct_masked_select(ct_tensor t, ct_tensor mask, ct_tensor* out);
/** torch.nonzero(t): int64 [n, t.dim()], the coordinates of the nonzero elements in row-major
 *  order. As PyTorch's, a CUDA result (n > 0) has strides {1, n} (each dim's coordinates
 *  contiguous), a CPU result is contiguous. [new reference] */
CT_API ct_status ct_nonzero(ct_tensor t, ct_tensor* out);
/** torch.where(cond) (torch.nonzero(t, as_tuple=True)): max(t.dim(), 1) int64 1-D tensors, the
 *  coordinates along each dim, into outs[0..cap) ([new reference]s, views of one nonzero
 *  result). Out: *n_outs = their number; CT_ERR_BUFFER_SIZE (nothing made) when cap < it. */
CT_API ct_status ct_where_cond(ct_tensor t, ct_tensor* outs, int32_t cap, int32_t* n_outs);

/* ============================================================================================
 * 31. Elementwise functions (isnan, isinf, isfinite, erf, silu, gelu, nan_to_num, clamp with
 *     tensors, lerp, addcmul, addcdiv, where with scalars, isclose, allclose)
 *
 * torch.isnan / isinf / isfinite / erf / nn.functional.silu are ct_unary's ops CT_ISNAN,
 * CT_ISINF, CT_ISFINITE (bool results for every dtype, complex by its parts; no in-place form:
 * ct_unary_ fails with CT_ERR_ARGUMENT), CT_ERF (integer/bool inputs give float32; complex is
 * CT_ERR_DTYPE "\"erf\" not implemented for 'ComplexFloat'") and CT_SILU (floating and complex
 * only: "\"silu\" not implemented for 'Long'"); torch.atan2 is ct_binary's CT_ATAN2. The
 * functions below take extra arguments. All follow section 9: broadcasting, PyTorch's type
 * promotion, 0-dim CPU tensors as scalars next to CUDA tensors (CT_ERR_DEVICE otherwise);
 * float16/bfloat16 compute in float32; the CPU and CUDA run the same element functions.
 * Results are [new reference]s on the inputs' device. docs/ewfuncs.md.
 * ========================================================================================== */

/** torch.nn.functional.gelu(t, approximate=approximate): "none" (NULL means "none"),
 *  x/2 * (1 + erf(x / sqrt(2))), or "tanh", x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))).
 *  Floating dtypes only. Errors: CT_ERR_ARGUMENT ("approximate argument must be either none or
 *  tanh."), CT_ERR_DTYPE ("\"GeluKernelImpl\" not implemented for 'Long'"). */
CT_API ct_status ct_gelu(ct_tensor t, const char* approximate, ct_tensor* out);
/** torch.nan_to_num(t, nan, posinf, neginf): NaN, +inf and -inf replaced (each part of a
 *  complex number); has_x == 0 means None: nan 0, posinf the dtype's largest finite value,
 *  neginf its lowest. Replacements are converted to the dtype as PyTorch's (1e10 in float16 is
 *  inf). Integer and bool tensors come back as a copy. */
CT_API ct_status ct_nan_to_num(ct_tensor t, int32_t has_nan, double nan, int32_t has_posinf, double posinf,
                               int32_t has_neginf, double neginf, ct_tensor* out);
/** torch.clamp(t, min, max) with tensor bounds: min or max may be NULL (None), not both. With
 *  both: NaN where any of the three is NaN, else min(max(x, min), max) (max wins where min >
 *  max); with one: torch.maximum(t, min) / torch.minimum(t, max). The three promote and
 *  broadcast. Errors: CT_ERR_ARGUMENT ("torch.clamp: At least one of 'min' or 'max' must not be
 *  None"), CT_ERR_DTYPE ("clamp is not supported for complex types"; bool), CT_ERR_SHAPE,
 *  CT_ERR_DEVICE. */
CT_API ct_status ct_clamp_tensor(ct_tensor t, ct_tensor min, ct_tensor max, ct_tensor* out);
/** torch.lerp(start, end, weight): start + weight * (end - start) for |weight| < 0.5, else
 *  end - (end - start) * (1 - weight). end and weight must have start's dtype (a 0-dim
 *  CPU weight too); floating and complex only. Errors:
 *  CT_ERR_DTYPE ("expected dtype float for `end` but got dtype double"; "\"lerp_kernel_tensor\"
 *  not implemented for 'Long'"), CT_ERR_SHAPE, CT_ERR_DEVICE. */
CT_API ct_status ct_lerp(ct_tensor start, ct_tensor end, ct_tensor weight, ct_tensor* out);
/** torch.lerp(start, end, weight) with a Python float weight. Errors as ct_lerp
 *  ("\"lerp_kernel_scalar\" not implemented for 'Long'"). */
CT_API ct_status ct_lerp_scalar(ct_tensor start, ct_tensor end, double weight, ct_tensor* out);
/** torch.addcmul(t, t1, t2, value=value): t + value * t1 * t2; the three promote and
 *  broadcast (integers wrap; value is truncated for an integer result). Errors: CT_ERR_DTYPE
 *  (bool: "\"addcmul\" not implemented for 'Bool'"), CT_ERR_SHAPE, CT_ERR_DEVICE. */
CT_API ct_status ct_addcmul(ct_tensor t, ct_tensor t1, ct_tensor t2, double value, ct_tensor* out);
/** torch.addcdiv(t, t1, t2, value=value): t + value * (t1 / t2). Errors: CT_ERR_DTYPE when t1
 *  and t2 are both integer or bool (PyTorch's "Integer division with addcdiv is no longer
 *  supported, ..."), CT_ERR_SHAPE, CT_ERR_DEVICE. */
CT_API ct_status ct_addcdiv(ct_tensor t, ct_tensor t1, ct_tensor t2, double value, ct_tensor* out);
/** torch.where(cond, x, s) (reverse == 0) or torch.where(cond, s, x) (reverse != 0) with a
 *  Python float (_f) or int (_i) scalar s, which promotes as a wrapped number (an int32 x with
 *  2 stays int32, with 2.5 gives float32). cond must be bool. Errors as ct_where. */
CT_API ct_status ct_where_scalar_f(ct_tensor cond, ct_tensor x, double s, int32_t reverse, ct_tensor* out);
CT_API ct_status ct_where_scalar_i(ct_tensor cond, ct_tensor x, int64_t s, int32_t reverse, ct_tensor* out);
/** torch.where(cond, a, b) with two Python floats (float32 result) or ints (int64 result), on
 *  cond's device and of its shape. (A float and an int: pass both as floats.) */
CT_API ct_status ct_where_scalars_f(ct_tensor cond, double a, double b, ct_tensor* out);
CT_API ct_status ct_where_scalars_i(ct_tensor cond, int64_t a, int64_t b, ct_tensor* out);
/** torch.isclose(a, b, rtol, atol, equal_nan): a bool tensor, true where a == b (NaN == NaN
 *  with equal_nan) or |a - b| is finite and <= atol + |rtol * b|, computed as PyTorch's tensor
 *  expression (in the dtype: float16 rounds each step; integers subtract in their dtype). a and b
 *  must have one dtype; they broadcast. Errors: CT_ERR_DTYPE ("Float did not match Double"),
 *  CT_ERR_ARGUMENT (rtol or atol < 0: "rtol must be greater than or equal to zero, but got
 *  -1"; equal_nan with complex: "isclose with equal_nan=True is not supported for complex
 *  inputs."), CT_ERR_SHAPE, CT_ERR_DEVICE. */
CT_API ct_status ct_isclose(ct_tensor a, ct_tensor b, double rtol, double atol, int32_t equal_nan, ct_tensor* out);
/** torch.allclose(a, b, rtol, atol, equal_nan): *out = 1 when isclose holds everywhere (and
 *  for empty tensors), else 0; synchronizes with a CUDA device. Errors as ct_isclose,
 *  CT_ERR_NULL_POINTER (out). */
CT_API ct_status ct_allclose(ct_tensor a, ct_tensor b, double rtol, double atol, int32_t equal_nan, int32_t* out);

/* ============================================================================================
 * 32. Row functions (softmax, log_softmax, logsumexp, var, std, var_mean, std_mean, matrix_norm,
 *     layer_norm)
 *
 * PyTorch's semantics, dtype rules and messages on the CPU and CUDA: float16/bfloat16 inputs
 * are computed in float32 and rounded once to the result dtype. dims as in section 10 (NULL /
 * 0 means "all dims"; each dim wraps; a dim twice is CT_ERR_ARGUMENT). Results are
 * [new reference]s, contiguous. docs/rowfuncs.md.
 * ========================================================================================== */

/** torch.softmax(t, dim, dtype) / torch.log_softmax: exp(x - max) / sum(exp(x - max)) along
 *  dim (wraps; a 0-dim tensor accepts 0 and -1 and gives 1 / 0). dtype CT_DTYPE_UNDEFINED
 *  keeps t's dtype; otherwise t is converted to dtype first. A row of -inf (or with NaN or
 *  +inf) gives NaN, as PyTorch. Errors: CT_ERR_INDEX (dim), CT_ERR_DTYPE for a non-floating
 *  result dtype ("\"host_softmax\" not implemented for 'Long'"). */
CT_API ct_status ct_softmax(ct_tensor t, int32_t dim, ct_dtype dtype, ct_tensor* out);
CT_API ct_status ct_log_softmax(ct_tensor t, int32_t dim, ct_dtype dtype, ct_tensor* out);
/** torch.logsumexp(t, dims, keepdim): log(sum(exp(x))) computed stably (max + log(sum(exp(x -
 *  max))), a max of +-inf taken as 0). Bool/integer inputs give float32; an empty reduction
 *  gives -inf. Errors: CT_ERR_INDEX, CT_ERR_ARGUMENT (dims), CT_ERR_NOT_SUPPORTED (complex). */
CT_API ct_status ct_logsumexp(ct_tensor t, const int64_t* dims, int32_t ndims, int32_t keepdim, ct_tensor* out);
/** torch.var(t, dims, correction=correction, keepdim) / torch.std: sum(|x - mean|^2) /
 *  max(0, N - correction) over the N reduced elements (correction 1 is PyTorch's default,
 *  Bessel's; 0 the population variance); N <= correction gives inf (NaN when the sum is 0).
 *  Complex inputs give the real dtype. Errors: CT_ERR_DTYPE for bool/integer inputs ("std and
 *  var only support floating point and complex dtypes"), CT_ERR_INDEX, CT_ERR_ARGUMENT. */
CT_API ct_status ct_var(ct_tensor t, const int64_t* dims, int32_t ndims, double correction, int32_t keepdim,
                        ct_tensor* out);
CT_API ct_status ct_std(ct_tensor t, const int64_t* dims, int32_t ndims, double correction, int32_t keepdim,
                        ct_tensor* out);
/** torch.var_mean / torch.std_mean: both results (the mean in t's dtype), each a
 *  [new reference]; on failure neither is set. Errors as ct_var, CT_ERR_NULL_POINTER. */
CT_API ct_status ct_var_mean(ct_tensor t, const int64_t* dims, int32_t ndims, double correction, int32_t keepdim,
                             ct_tensor* var_out, ct_tensor* mean_out);
CT_API ct_status ct_std_mean(ct_tensor t, const int64_t* dims, int32_t ndims, double correction, int32_t keepdim,
                             ct_tensor* std_out, ct_tensor* mean_out);
/** torch.linalg.matrix_norm(t, ord, dim=(dim0, dim1), keepdim) for ord 1 (largest column sum
 *  of |A|), -1 (smallest), INFINITY (largest row sum), -INFINITY (smallest) over the matrices
 *  of dims dim0 (rows) and dim1 (columns). Real result for complex input. torch.norm(t, p,
 *  dim) with a number p is ct_norm; torch.norm(t, "fro", dim=(a, b)) is ct_matrix_norm_str.
 *  Errors: CT_ERR_SHAPE (fewer than 2 dims), CT_ERR_DTYPE (not floating/complex),
 *  CT_ERR_INDEX (a dim), CT_ERR_ARGUMENT (dim0 == dim1 after wrapping; another ord:
 *  "linalg.matrix_norm: Order 3 not supported."), CT_ERR_NOT_SUPPORTED for ord 2 and -2
 *  (they need singular values, which ctorch does not compute). */
CT_API ct_status ct_matrix_norm(ct_tensor t, double ord, int32_t dim0, int32_t dim1, int32_t keepdim, ct_tensor* out);
/** torch.linalg.matrix_norm(t, ord="fro" | "nuc", ...): "fro" is the square root of the sum of
 *  |a_ij|^2 (torch.norm(t, "fro") over two dims); "nuc" is CT_ERR_NOT_SUPPORTED (singular
 *  values). Errors as ct_matrix_norm, CT_ERR_NULL_POINTER (ord), CT_ERR_ARGUMENT (another
 *  string). */
CT_API ct_status ct_matrix_norm_str(ct_tensor t, const char* ord, int32_t dim0, int32_t dim1, int32_t keepdim,
                                    ct_tensor* out);
/** torch.nn.functional.layer_norm(t, normalized_shape, weight, bias, eps): over the last n dims
 *  (which must equal normalized_shape[0..n)), (x - mean) / sqrt(var + eps) * weight + bias
 *  with the biased variance. weight and bias may be NULL (none); otherwise of shape
 *  normalized_shape, floating, on t's device; the result has t's dtype. Errors: CT_ERR_ARGUMENT
 *  (n == 0: "Expected normalized_shape to be at least 1-dimensional, ..."), CT_ERR_SHAPE
 *  (PyTorch's "Given normalized_shape=[4], expected input with shape [*, 4], but got input of
 *  size[2, 3]", and the weight/bias shape messages), CT_ERR_DTYPE (bool/integer/complex input:
 *  "\"LayerNormKernelImpl\" not implemented for 'Long'"), CT_ERR_INVALID_HANDLE, CT_ERR_DEVICE. */
CT_API ct_status ct_layer_norm(ct_tensor t, const int64_t* normalized_shape, int32_t n, ct_tensor weight,
                               ct_tensor bias, double eps, ct_tensor* out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CTORCH_H */
