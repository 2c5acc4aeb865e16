/* dlpack_jni.c — the Java binding's from_blob with a Java deleter: hand-written JNI glue, linked
 * into libctorch_jni.so next to SWIG's wrapper (ct_from_blob takes a C function pointer, which
 * SWIG cannot wrap; bindings/swig/ctorch.i ignores it).
 *
 * org.ctorch.DLPack.fromBlob0 calls ct_from_blob with blob_freed() and a struct blob_owner (the
 * JavaVM and a global reference to the Runnable) as its ctx, or with no deleter when the Runnable
 * is null. ctorch calls blob_freed() exactly once, on the thread that drops the last tensor using
 * the memory: a Java thread inside a native call (close, or the Cleaner's thread), or a thread of
 * C code, attached for the call (jni_env.h). An exception the Runnable throws is printed and
 * cleared (nothing can be thrown back into ctorch's native frames). When ct_from_blob fails it
 * never calls the deleter: the owner is freed here. */
#include <jni.h>
#include <stdint.h>
#include <stdlib.h>

#include "bindings/java/jni_env.h"
#include "capi/ctorch.h"

struct blob_owner {
  JavaVM* vm;
  jobject fn;     /* global ref: the Runnable */
  jmethodID run;  /* its void run() */
};

static void blob_freed(void* address, void* ctx) {
  (void)address;
  struct blob_owner* o = (struct blob_owner*)ctx;
  int attached = 0;
  JNIEnv* env = ctj_get_env(o->vm, "ctorch-blob-deleter", &attached);
  if (env != NULL) {
    jthrowable pending = NULL;
    if ((*env)->ExceptionCheck(env)) { /* never call Java with an exception pending */
      pending = (*env)->ExceptionOccurred(env);
      (*env)->ExceptionClear(env);
    }
    (*env)->CallVoidMethod(env, o->fn, o->run);
    if ((*env)->ExceptionCheck(env)) {
      fprintf(stderr, "ctorch: a fromBlob deleter threw (ignored):\n");
      (*env)->ExceptionDescribe(env); /* prints and clears it */
    }
    (*env)->DeleteGlobalRef(env, o->fn);
    if (pending != NULL) {
      (*env)->Throw(env, pending);
      (*env)->DeleteLocalRef(env, pending);
    }
    ctj_release_env(o->vm, attached);
  }
  free(o);
}

/* private static native int fromBlob0(long address, long[] sizes, long[] strides, int dtype,
 * int devType, int devIndex, Runnable onFree, long[] out): ct_from_blob; out[0] gets the new
 * handle. Returns its ct_status, or -1 with a Java exception pending when the call could not be
 * made (no memory, no run() method). */
JNIEXPORT jint JNICALL Java_org_ctorch_DLPack_fromBlob0(JNIEnv* env, jclass cls, jlong address, jlongArray sizes,
                                                         jlongArray strides, jint dtype, jint dev_type,
                                                         jint dev_index, jobject on_free, jlongArray out) {
  (void)cls;
  struct blob_owner* o = NULL;
  if (on_free != NULL) {
    o = (struct blob_owner*)calloc(1, sizeof *o);
    if (o == NULL) {
      jclass oom = (*env)->FindClass(env, "java/lang/OutOfMemoryError");
      if (oom != NULL) (*env)->ThrowNew(env, oom, "ctorch: no memory for the fromBlob deleter");
      return -1;
    }
    jclass k = (*env)->GetObjectClass(env, on_free);
    o->run = (*env)->GetMethodID(env, k, "run", "()V");
    (*env)->DeleteLocalRef(env, k);
    if (o->run == NULL || (*env)->GetJavaVM(env, &o->vm) != JNI_OK ||
        (o->fn = (*env)->NewGlobalRef(env, on_free)) == NULL) {
      free(o);
      return -1; /* NoSuchMethodError / OutOfMemoryError pending */
    }
  }
  jsize n = sizes ? (*env)->GetArrayLength(env, sizes) : 0;
  jlong* sz = sizes ? (*env)->GetLongArrayElements(env, sizes, NULL) : NULL;
  jlong* st = strides ? (*env)->GetLongArrayElements(env, strides, NULL) : NULL;
  ct_tensor t = NULL;
  ct_status s = ct_from_blob((void*)(intptr_t)address, (const int64_t*)sz, (int32_t)n, (const int64_t*)st, dtype,
                             dev_type, dev_index, o ? blob_freed : NULL, o, &t);
  if (sz) (*env)->ReleaseLongArrayElements(env, sizes, sz, JNI_ABORT);
  if (st) (*env)->ReleaseLongArrayElements(env, strides, st, JNI_ABORT);
  if (s == CT_OK) {
    jlong h = (jlong)(intptr_t)t;
    (*env)->SetLongArrayRegion(env, out, 0, 1, &h);
  } else if (o != NULL) { /* ctorch never calls it */
    (*env)->DeleteGlobalRef(env, o->fn);
    free(o);
  }
  return s;
}
