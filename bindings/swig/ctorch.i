/* ctorch.i — one SWIG interface for the Java, C# and Go wrappers of capi/ctorch.h.
 *
 * Nothing clever here: the C header is wrapped as it is, with typemaps so that
 *   - handles (ct_tensor, ...) travel as 64-bit integers (Java long, C# IntPtr, Go int64);
 *   - out-parameters become one-element arrays (Java, Go) or `out` parameters (C#);
 *   - int64 arrays (sizes, dims) and handle arrays are native arrays / slices;
 *   - host buffers (void* data / buf) are direct ByteBuffers (Java), IntPtr (C#), []byte (Go).
 * The hand-written layer in bindings/<lang> turns these into idiomatic objects. */
%module ctorch

%{
#include "capi/ctorch.h"
%}

#define CT_API
#if defined(SWIGGO)
/* int64_t is `long` on LP64 Linux; tell SWIG so the Go wrapper's casts match. (Java and C#
 * keep SWIG's default `long long` view, which maps to their 64-bit integer types.) */
#define SWIGWORDSIZE64
#endif
%include <stdint.i>
%include <typemaps.i>

/* ---------------------------------------------------------------------------------------- */
#if defined(SWIGJAVA)

%define CT_HANDLE(T)
%typemap(jni) T "jlong"
%typemap(jtype) T "long"
%typemap(jstype) T "long"
%typemap(javain) T "$javainput"
%typemap(javaout) T { return $jnicall; }
%typemap(in) T %{ $1 = ($1_ltype)(intptr_t)$input; %}
%typemap(out) T %{ $result = (jlong)(intptr_t)$1; %}

%typemap(jni) T* OUT "jlongArray"
%typemap(jtype) T* OUT "long[]"
%typemap(jstype) T* OUT "long[]"
%typemap(javain) T* OUT "$javainput"
%typemap(in) T* OUT (T temp = 0) {
  if (!$input || (*jenv)->GetArrayLength(jenv, $input) < 1) {
    SWIG_JavaThrowException(jenv, SWIG_JavaIndexOutOfBoundsException, "out array must have 1 element");
    return $null;
  }
  $1 = &temp;
}
%typemap(argout) T* OUT {
  jlong v = (jlong)(intptr_t)temp$argnum;
  (*jenv)->SetLongArrayRegion(jenv, $input, 0, 1, &v);
}

%typemap(jni) const T* ARRAY "jlongArray"
%typemap(jtype) const T* ARRAY "long[]"
%typemap(jstype) const T* ARRAY "long[]"
%typemap(javain) const T* ARRAY "$javainput"
%typemap(in) const T* ARRAY {
  $1 = $input ? ($1_ltype)(*jenv)->GetLongArrayElements(jenv, $input, NULL) : NULL;
}
%typemap(freearg) const T* ARRAY {
  if ($1) (*jenv)->ReleaseLongArrayElements(jenv, $input, (jlong*)$1, JNI_ABORT);
}

/* arrays of handles written by the call (the caller sizes the array) */
%typemap(jni) T* ARRAYOUT "jlongArray"
%typemap(jtype) T* ARRAYOUT "long[]"
%typemap(jstype) T* ARRAYOUT "long[]"
%typemap(javain) T* ARRAYOUT "$javainput"
%typemap(in) T* ARRAYOUT {
  $1 = $input ? ($1_ltype)(*jenv)->GetLongArrayElements(jenv, $input, NULL) : NULL;
}
%typemap(freearg) T* ARRAYOUT {
  if ($1) (*jenv)->ReleaseLongArrayElements(jenv, $input, (jlong*)$1, 0);
}
%enddef

/* int32 arrays in (device lists) */
%typemap(jni) const int32_t* I32ARRAY "jintArray"
%typemap(jtype) const int32_t* I32ARRAY "int[]"
%typemap(jstype) const int32_t* I32ARRAY "int[]"
%typemap(javain) const int32_t* I32ARRAY "$javainput"
%typemap(in) const int32_t* I32ARRAY {
  $1 = $input ? (int32_t*)(*jenv)->GetIntArrayElements(jenv, $input, NULL) : NULL;
}
%typemap(freearg) const int32_t* I32ARRAY {
  if ($1) (*jenv)->ReleaseIntArrayElements(jenv, $input, (jint*)$1, JNI_ABORT);
}

/* int64 arrays in and out */
%typemap(jni) const int64_t* ARRAY "jlongArray"
%typemap(jtype) const int64_t* ARRAY "long[]"
%typemap(jstype) const int64_t* ARRAY "long[]"
%typemap(javain) const int64_t* ARRAY "$javainput"
%typemap(in) const int64_t* ARRAY {
  $1 = $input ? (int64_t*)(*jenv)->GetLongArrayElements(jenv, $input, NULL) : NULL;
}
%typemap(freearg) const int64_t* ARRAY {
  if ($1) (*jenv)->ReleaseLongArrayElements(jenv, $input, (jlong*)$1, JNI_ABORT);
}
%typemap(jni) int64_t* ARRAYOUT "jlongArray"
%typemap(jtype) int64_t* ARRAYOUT "long[]"
%typemap(jstype) int64_t* ARRAYOUT "long[]"
%typemap(javain) int64_t* ARRAYOUT "$javainput"
%typemap(in) int64_t* ARRAYOUT {
  $1 = $input ? (int64_t*)(*jenv)->GetLongArrayElements(jenv, $input, NULL) : NULL;
}
%typemap(freearg) int64_t* ARRAYOUT {
  if ($1) (*jenv)->ReleaseLongArrayElements(jenv, $input, (jlong*)$1, 0);
}

/* host buffers: direct java.nio.ByteBuffer (its address; position is ignored) */
%typemap(jni) void* BUFFER "jobject"
%typemap(jtype) void* BUFFER "java.nio.ByteBuffer"
%typemap(jstype) void* BUFFER "java.nio.ByteBuffer"
%typemap(javain) void* BUFFER "$javainput"
%typemap(in) void* BUFFER {
  $1 = NULL;
  if ($input) {
    $1 = ($1_ltype)(*jenv)->GetDirectBufferAddress(jenv, $input);
    if (!$1) {
      SWIG_JavaThrowException(jenv, SWIG_JavaIllegalArgumentException, "buffer must be a direct ByteBuffer");
      return $null;
    }
  }
}

/* ---------------------------------------------------------------------------------------- */
#elif defined(SWIGCSHARP)

%include <arrays_csharp.i>

%define CT_HANDLE(T)
%typemap(ctype) T "void*"
%typemap(imtype) T "global::System.IntPtr"
%typemap(cstype) T "global::System.IntPtr"
%typemap(csin) T "$csinput"
%typemap(csout, excode=SWIGEXCODE) T { global::System.IntPtr ret = $imcall;$excode return ret; }
%typemap(in) T %{ $1 = ($1_ltype)$input; %}
%typemap(out) T %{ $result = (void*)$1; %}

%typemap(ctype) T* OUT "void**"
%typemap(imtype) T* OUT "out global::System.IntPtr"
%typemap(cstype) T* OUT "out global::System.IntPtr"
%typemap(csin) T* OUT "out $csinput"
%typemap(in) T* OUT %{ $1 = ($1_ltype)$input; %}

%typemap(ctype) const T* ARRAY "void**"
%typemap(imtype) const T* ARRAY "global::System.IntPtr[]"
%typemap(cstype) const T* ARRAY "global::System.IntPtr[]"
%typemap(csin) const T* ARRAY "$csinput"
%typemap(in) const T* ARRAY %{ $1 = ($1_ltype)$input; %}

/* arrays of handles written by the call (blittable, so pinned: the writes are seen) */
%typemap(ctype) T* ARRAYOUT "void**"
%typemap(imtype, inattributes="[global::System.Runtime.InteropServices.In, global::System.Runtime.InteropServices.Out]") T* ARRAYOUT "global::System.IntPtr[]"
%typemap(cstype) T* ARRAYOUT "global::System.IntPtr[]"
%typemap(csin) T* ARRAYOUT "$csinput"
%typemap(in) T* ARRAYOUT %{ $1 = ($1_ltype)$input; %}
%enddef

%apply int INPUT[] { const int32_t* I32ARRAY };
%apply long long INPUT[] { const int64_t* ARRAY };
%apply long long INOUT[] { int64_t* ARRAYOUT };
%apply void* VOID_INT_PTR { void* BUFFER };
/* ct_cuda_caching_allocator_alloc's address out-parameter as `out long` (without this it is an
 * opaque SWIGTYPE_p_long_long that C# code outside this assembly cannot create). */

/* The first use of the module class checks that libctorch_csharp.so loads and otherwise throws
 * DllNotFoundException naming where it looked (Note [Native library resolution],
 * bindings/csharp/NativeLibrary.cs): the first field initializer (before those of the
 * constants, which call the library), and a static constructor so that calling any method runs
 * them. */
%pragma(csharp) modulecode=%{
  private static readonly bool swigNativeLibraryChecked = global::Ctorch.NativeLibrary.Check();
  static ctorch() { }
%}

/* ---------------------------------------------------------------------------------------- */
#elif defined(SWIGGO)

%define CT_HANDLE(T)
%typemap(gotype) T "int64"
%typemap(in) T %{ $1 = ($1_ltype)(intptr_t)$input; %}
%typemap(out) T %{ $result = (long long)(intptr_t)$1; %}

%typemap(gotype) T* OUT "[]int64"
%typemap(in) T* OUT (T temp = 0) {
  if ($input.len == 0) { _swig_gopanic("out slice must have 1 element"); }
  $1 = &temp;
}
%typemap(argout) T* OUT { ((long long*)$input.array)[0] = (long long)(intptr_t)temp$argnum; }

%typemap(gotype) const T* ARRAY "[]int64"
%typemap(in) const T* ARRAY %{ $1 = ($1_ltype)$input.array; %}

%typemap(gotype) T* ARRAYOUT "[]int64"
%typemap(in) T* ARRAYOUT %{ $1 = ($1_ltype)$input.array; %}
%enddef

%typemap(gotype) const int32_t* I32ARRAY "[]int32"
%typemap(in) const int32_t* I32ARRAY %{ $1 = (int32_t*)$input.array; %}

%typemap(gotype) const int64_t* ARRAY "[]int64"
%typemap(in) const int64_t* ARRAY %{ $1 = (int64_t*)$input.array; %}
%typemap(gotype) int64_t* ARRAYOUT "[]int64"
%typemap(in) int64_t* ARRAYOUT %{ $1 = (int64_t*)$input.array; %}
%typemap(gotype) void* BUFFER "[]byte"
%typemap(in) void* BUFFER %{ $1 = ($1_ltype)$input.array; %}

/* Scalar out-parameters as one-element slices of the exact Go type (SWIG's own int OUTPUT
 * typemap writes a C int into a 64-bit Go int, which corrupts negative values). */
%define GO_SCALAR_OUT(NAME, CTYPE, GOTYPE)
%typemap(gotype) CTYPE* NAME "[]GOTYPE"
%typemap(in) CTYPE* NAME (CTYPE temp = 0) {
  if ($input.len == 0) { _swig_gopanic("out slice must have 1 element"); }
  $1 = &temp;
}
%typemap(argout) CTYPE* NAME { ((CTYPE*)$input.array)[0] = temp$argnum; }
%enddef
GO_SCALAR_OUT(I64OUT, int64_t, int64)
GO_SCALAR_OUT(I32OUT, int32_t, int32)
GO_SCALAR_OUT(F64OUT, double, float64)

#endif
/* ---------------------------------------------------------------------------------------- */

#if defined(SWIGJAVA) || defined(SWIGCSHARP)
%apply long long* OUTPUT { int64_t* I64OUT };
%apply int* OUTPUT { int32_t* I32OUT };
%apply double* OUTPUT { double* F64OUT };
#endif

CT_HANDLE(ct_tensor)
CT_HANDLE(ct_stream)
CT_HANDLE(ct_event)
CT_HANDLE(ct_generator)
CT_HANDLE(ct_cuda_graph)
CT_HANDLE(ct_cuda_graphed)
CT_HANDLE(ct_nccl_comm)
CT_HANDLE(ct_cuda_jit_fn)
CT_HANDLE(ct_safetensors)

/* Apply by parameter name (the header keeps these names consistent). */
%apply ct_tensor* OUT { ct_tensor* out, ct_tensor* values, ct_tensor* indices, ct_tensor* inverse, ct_tensor* counts };
%apply ct_stream* OUT { ct_stream* out, ct_stream* prev_stream };
%apply ct_event* OUT { ct_event* out };
%apply ct_generator* OUT { ct_generator* out };
%apply ct_cuda_graph* OUT { ct_cuda_graph* out };
%apply ct_cuda_graphed* OUT { ct_cuda_graphed* out };
%apply ct_nccl_comm* OUT { ct_nccl_comm* out };
%apply ct_cuda_jit_fn* OUT { ct_cuda_jit_fn* out };
%apply ct_safetensors* OUT { ct_safetensors* out };
%apply const ct_tensor* ARRAY { const ct_tensor* tensors, const ct_tensor* inputs, const ct_tensor* static_inputs,
                                const ct_tensor* outs, const ct_tensor* index_tensors };
%apply ct_tensor* ARRAYOUT { ct_tensor* outs };
%apply const ct_stream* ARRAY { const ct_stream* streams };
%apply const int32_t* I32ARRAY { const int32_t* devices };
%apply const int64_t* ARRAY { const int64_t* sizes, const int64_t* dims, const int64_t* s, const int64_t* chunk_sizes };
%apply int64_t* ARRAYOUT { int64_t* dst };
%apply void* BUFFER { void* buf, void* data, const void* data, const void* unique_id };

%apply int64_t* I64OUT { int64_t* out, int64_t* needed, int64_t* free_bytes, int64_t* total_bytes, int64_t* ptr };
%apply int32_t* I32OUT { int32_t* out, int32_t* major, int32_t* minor, int32_t* patch,
                         int32_t* ndim, int32_t* index, ct_dtype* out, ct_device_type* type,
                         int32_t* least, int32_t* greatest, int32_t* prev, int32_t* prev_device,
                         int32_t* n_outs };
%apply double* F64OUT { double* out, double* re, double* im };

/* Out-of-memory hooks take a C function pointer that calls back into the language: each
 * binding registers its own hook in hand-written native code (JNI, a C# delegate, cgo). */
%ignore ct_cuda_add_oom_hook;
/* ct_cuda_make_graphed_callable takes a ct_graph_fn for the same reason: each binding calls it
 * from its own native code with a trampoline into the language. */
%ignore ct_cuda_make_graphed_callable;
/* ct_cuda_sanitizer_set_callback takes a ct_csan_callback: each binding registers its own
 * trampoline into the language (JNI in csan_jni.c, a C# delegate, cgo). */
%ignore ct_cuda_sanitizer_set_callback;

/* Section 22, NVTX: the message, the depth and the range id.
 *   Java: msg travels as the UTF-8 bytes of the String plus a NUL, made on the Java side (JNI's
 *         own conversion gives "modified UTF-8", whose bytes differ for characters outside the
 *         Basic Multilingual Plane); a null String stays NULL. The uint64_t id is a long (the
 *         same 64 bits).
 *   C#:   string (UTF-8 under mono/.NET on Linux), `out int` depth, ulong id.
 *   Go:   string, []int32 depth, uint64 id (a []uint64 out-slice). */
#if defined(SWIGJAVA)
%typemap(jni) const char* UTF8Z "jbyteArray"
%typemap(jtype) const char* UTF8Z "byte[]"
%typemap(jstype) const char* UTF8Z "String"
%typemap(javain) const char* UTF8Z %{($javainput == null ? null : ($javainput + "\0").getBytes(java.nio.charset.StandardCharsets.UTF_8))%}
%typemap(in) const char* UTF8Z {
  $1 = $input ? (char*)(*jenv)->GetByteArrayElements(jenv, $input, NULL) : NULL;
}
%typemap(freearg) const char* UTF8Z {
  if ($1) (*jenv)->ReleaseByteArrayElements(jenv, $input, (jbyte*)$1, JNI_ABORT);
}
%apply const char* UTF8Z { const char* msg };
%apply long long* OUTPUT { uint64_t* id };
%apply long long { uint64_t id };
#elif defined(SWIGCSHARP)
%apply unsigned long long* OUTPUT { uint64_t* id };
#elif defined(SWIGGO)
GO_SCALAR_OUT(U64OUT, uint64_t, uint64)
%apply uint64_t* U64OUT { uint64_t* id };
#endif
%apply int32_t* I32OUT { int32_t* depth };

/* Section 25, the jiterator's extra arguments (names, types, int64 and double values).
 *   Java: the code as NVTX's msg above (real UTF-8, not JNI's modified UTF-8), names as
 *         String[] (each the UTF-8 bytes of the String plus a NUL, made on the Java side,
 *         copied into C strings for the call; a null array or element stays NULL), types as
 *         int[], values as long[] and double[] (null: NULL). */
#if defined(SWIGJAVA)
%{
#include <stdlib.h>
%}
%typemap(jni) const char* const* UTF8ZARRAY "jobjectArray"
%typemap(jtype) const char* const* UTF8ZARRAY "byte[][]"
%typemap(jstype) const char* const* UTF8ZARRAY "String[]"
%typemap(javain) const char* const* UTF8ZARRAY %{($javainput == null ? null : java.util.Arrays.stream($javainput).map(s -> s == null ? null : (s + "\0").getBytes(java.nio.charset.StandardCharsets.UTF_8)).toArray(byte[][]::new))%}
%typemap(in) const char* const* UTF8ZARRAY (char** strs = NULL, jsize nstrs = 0) {
  if ($input) {
    nstrs = (*jenv)->GetArrayLength(jenv, $input);
    strs = (char**)calloc(nstrs > 0 ? (size_t)nstrs : 1, sizeof(char*));
    for (jsize i = 0; strs && i < nstrs; i++) {
      jbyteArray b = (jbyteArray)(*jenv)->GetObjectArrayElement(jenv, $input, i);
      if (!b) continue;
      jsize len = (*jenv)->GetArrayLength(jenv, b);
      strs[i] = (char*)malloc((size_t)len + 1);
      if (!strs[i]) { (*jenv)->DeleteLocalRef(jenv, b); for (jsize j = 0; j < i; j++) free(strs[j]); free(strs); strs = NULL; break; }
      (*jenv)->GetByteArrayRegion(jenv, b, 0, len, (jbyte*)strs[i]);
      strs[i][len] = 0;
      (*jenv)->DeleteLocalRef(jenv, b);
    }
    if (!strs) {
      SWIG_JavaThrowException(jenv, SWIG_JavaOutOfMemoryError, "out of memory copying the names");
      return $null;
    }
  }
  $1 = ($1_ltype)strs;
}
%typemap(freearg) const char* const* UTF8ZARRAY {
  if (strs$argnum) {
    for (jsize i = 0; i < nstrs$argnum; i++) free(strs$argnum[i]);
    free(strs$argnum);
  }
}
%typemap(jni) const double* F64ARRAY "jdoubleArray"
%typemap(jtype) const double* F64ARRAY "double[]"
%typemap(jstype) const double* F64ARRAY "double[]"
%typemap(javain) const double* F64ARRAY "$javainput"
%typemap(in) const double* F64ARRAY {
  $1 = $input ? (double*)(*jenv)->GetDoubleArrayElements(jenv, $input, NULL) : NULL;
}
%typemap(freearg) const double* F64ARRAY {
  if ($1) (*jenv)->ReleaseDoubleArrayElements(jenv, $input, (jdouble*)$1, JNI_ABORT);
}
%apply const char* UTF8Z { const char* code };
%apply const char* const* UTF8ZARRAY { const char* const* arg_names, const char* const* over_names };
%apply const int32_t* I32ARRAY { const ct_jit_arg_type* arg_types, const ct_jit_arg_type* over_types };
%apply const int64_t* ARRAY { const int64_t* arg_ints, const int64_t* over_ints };
%apply const double* F64ARRAY { const double* arg_doubles, const double* over_doubles };
#endif

/* Section 26, DLPack: a capsule (DLManagedTensor* or DLManagedTensorVersioned*, void* in the
 * header) travels as its address: Java long (in; long[1] out), C# IntPtr (in; out IntPtr).
 * ct_from_blob takes a C function pointer (its deleter): each binding calls it from its own
 * native code (dlpack_jni.c, a C# delegate, cgo). Go calls the whole section through cgo
 * (bindings/go/internal/capi/dlpack.go), with unsafe.Pointer / uintptr addresses. */
%ignore ct_from_blob;
#if defined(SWIGJAVA)
%typemap(jni) void* CAPSULE "jlong"
%typemap(jtype) void* CAPSULE "long"
%typemap(jstype) void* CAPSULE "long"
%typemap(javain) void* CAPSULE "$javainput"
%typemap(in) void* CAPSULE %{ $1 = (void*)(intptr_t)$input; %}
%typemap(jni) void** CAPSULEOUT "jlongArray"
%typemap(jtype) void** CAPSULEOUT "long[]"
%typemap(jstype) void** CAPSULEOUT "long[]"
%typemap(javain) void** CAPSULEOUT "$javainput"
%typemap(in) void** CAPSULEOUT (void* temp = NULL) {
  if (!$input || (*jenv)->GetArrayLength(jenv, $input) < 1) {
    SWIG_JavaThrowException(jenv, SWIG_JavaIndexOutOfBoundsException, "out array must have 1 element");
    return $null;
  }
  $1 = &temp;
}
%typemap(argout) void** CAPSULEOUT {
  jlong v = (jlong)(intptr_t)temp$argnum;
  (*jenv)->SetLongArrayRegion(jenv, $input, 0, 1, &v);
}
%apply void* CAPSULE { void* capsule };
%apply void** CAPSULEOUT { void** out_capsule };
#elif defined(SWIGCSHARP)
%typemap(ctype) void* CAPSULE "void*"
%typemap(imtype) void* CAPSULE "global::System.IntPtr"
%typemap(cstype) void* CAPSULE "global::System.IntPtr"
%typemap(csin) void* CAPSULE "$csinput"
%typemap(in) void* CAPSULE %{ $1 = $input; %}
%typemap(ctype) void** CAPSULEOUT "void**"
%typemap(imtype) void** CAPSULEOUT "out global::System.IntPtr"
%typemap(cstype) void** CAPSULEOUT "out global::System.IntPtr"
%typemap(csin) void** CAPSULEOUT "out $csinput"
%typemap(in) void** CAPSULEOUT %{ $1 = $input; %}
%apply void* CAPSULE { void* capsule };
%apply void** CAPSULEOUT { void** out_capsule };
#elif defined(SWIGGO)
%ignore ct_to_dlpack;
%ignore ct_to_dlpack_versioned;
%ignore ct_tensor_dlpack;
%ignore ct_tensor_dlpack_device;
%ignore ct_from_dlpack;
%ignore ct_from_dlpack_versioned;
%ignore ct_dlpack_delete;
#endif
%apply int32_t* I32OUT { int32_t* device_type, int32_t* device_id };
/* Section 27, safetensors: in Java the path, names and metadata as the jiterator's code and
 * names above (real UTF-8; null stays NULL). */
#if defined(SWIGJAVA)
%apply const char* UTF8Z { const char* file_path, const char* tensor_name, const char* meta_key };
%apply const char* const* UTF8ZARRAY { const char* const* names, const char* const* meta_keys,
                                       const char* const* meta_values };
#endif

/* Section 32, row functions: var_mean / std_mean's two results and layer_norm's shape. */
%apply ct_tensor* OUT { ct_tensor* var_out, ct_tensor* std_out, ct_tensor* mean_out };
%apply const int64_t* ARRAY { const int64_t* normalized_shape };

%include "capi/ctorch.h"
