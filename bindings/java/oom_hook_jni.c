/* oom_hook_jni.c — the Java binding's out-of-memory hook: hand-written JNI glue, linked into
 * libctorch_jni.so next to SWIG's wrapper (ct_cuda_add_oom_hook takes a C function pointer,
 * which SWIG cannot wrap).
 *
 * org.ctorch.OutOfMemoryHook.install0() registers oom_hook() once per process. When a CUDA
 * allocation fails even after the allocator gave its cache back, ctorch calls oom_hook() on the
 * allocating thread with no ctorch lock held; it calls the static Java method
 * org.ctorch.OutOfMemoryHook.onOutOfMemory(int device, long requestedBytes), which runs the
 * garbage collector and waits (bounded) for the Cleaner to release the tensors that became
 * unreachable. Then ctorch retries the allocation once.
 *
 * The allocating thread may be a Java thread inside a native call (the usual case), or a
 * thread the JVM has never seen (C code sharing the process): that one is attached for the
 * call and detached again afterwards (jni_env.h).
 * A Java exception thrown by the hook is printed to stderr and cleared; an exception already
 * pending on the thread when the hook starts is set aside and raised again at the end. */
#include <jni.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "bindings/java/jni_env.h"
#include "capi/ctorch.h"

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static JavaVM* g_vm;           /* set once, before the hook is registered */
static jclass g_class;         /* global ref: keeps org.ctorch.OutOfMemoryHook loaded */
static jmethodID g_method;     /* static void onOutOfMemory(int, long) */
static int64_t g_hook_id = -1; /* the id ct_cuda_add_oom_hook gave; -1: not registered */

static void oom_hook(int32_t device, int64_t requested_bytes, void* ctx) {
  (void)ctx;
  JavaVM* vm = g_vm;
  int attached = 0;
  JNIEnv* env = ctj_get_env(vm, "ctorch-oom-hook", &attached);
  if (env == NULL) return; /* e.g. the JVM is shutting down */
  jthrowable pending = NULL;
  if ((*env)->ExceptionCheck(env)) { /* never call Java with an exception pending */
    pending = (*env)->ExceptionOccurred(env);
    (*env)->ExceptionClear(env);
  }
  (*env)->CallStaticVoidMethod(env, g_class, g_method, (jint)device, (jlong)requested_bytes);
  if ((*env)->ExceptionCheck(env)) {
    fprintf(stderr, "ctorch: the Java out-of-memory hook threw:\n");
    (*env)->ExceptionDescribe(env); /* prints and clears */
  }
  if (pending != NULL) {
    (*env)->Throw(env, pending);
    (*env)->DeleteLocalRef(env, pending);
  }
  ctj_release_env(vm, attached);
}

/* private static native int install0(long[] id): registers the hook unless it is registered
 * already (once per process, however often this runs); *id gets its ct_cuda_add_oom_hook id.
 * Returns a ct_status (CT_OK), or -1 with a Java exception pending when the class's method
 * cannot be found. */
JNIEXPORT jint JNICALL Java_org_ctorch_OutOfMemoryHook_install0(JNIEnv* env, jclass cls, jlongArray id) {
  ct_status st = CT_OK;
  pthread_mutex_lock(&g_mu);
  if (g_hook_id < 0) {
    jmethodID m = (*env)->GetStaticMethodID(env, cls, "onOutOfMemory", "(IJ)V");
    if (m == NULL) { /* NoSuchMethodError is pending */
      pthread_mutex_unlock(&g_mu);
      return -1;
    }
    jclass global = (jclass)(*env)->NewGlobalRef(env, cls);
    JavaVM* vm = NULL;
    if (global == NULL || (*env)->GetJavaVM(env, &vm) != JNI_OK) {
      if (global != NULL) (*env)->DeleteGlobalRef(env, global);
      pthread_mutex_unlock(&g_mu);
      if (!(*env)->ExceptionCheck(env)) {
        jclass err = (*env)->FindClass(env, "java/lang/IllegalStateException");
        if (err != NULL) (*env)->ThrowNew(env, err, "ctorch: cannot keep the out-of-memory hook's class");
      }
      return -1;
    }
    g_vm = vm;
    g_class = global;
    g_method = m;
    int64_t new_id = -1;
    st = ct_cuda_add_oom_hook(oom_hook, NULL, &new_id);
    if (st == CT_OK) g_hook_id = new_id;
  }
  jlong out = (jlong)g_hook_id;
  pthread_mutex_unlock(&g_mu);
  if (st == CT_OK && id != NULL && (*env)->GetArrayLength(env, id) >= 1) {
    (*env)->SetLongArrayRegion(env, id, 0, 1, &out);
  }
  return (jint)st;
}

struct hook_call {
  int32_t device;
  int64_t bytes;
};

static void* hook_thread(void* p) {
  struct hook_call* c = (struct hook_call*)p;
  oom_hook(c->device, c->bytes, NULL);
  return NULL;
}

/* static native int runHookForTest0(int device, long bytes, boolean onNewThread): calls the
 * registered C hook function as ctorch would (no GPU needed), on this thread or on a new
 * native thread the JVM has never seen; for the suites. Returns 0, or -1 when the hook is not
 * registered or the thread cannot be made. */
JNIEXPORT jint JNICALL Java_org_ctorch_OutOfMemoryHook_runHookForTest0(JNIEnv* env, jclass cls, jint device,
                                                                       jlong bytes, jboolean on_new_thread) {
  (void)env;
  (void)cls;
  pthread_mutex_lock(&g_mu);
  int registered = g_hook_id >= 0;
  pthread_mutex_unlock(&g_mu);
  if (!registered) return -1;
  struct hook_call c = {(int32_t)device, (int64_t)bytes};
  if (!on_new_thread) {
    oom_hook(c.device, c.bytes, NULL);
    return 0;
  }
  return ctj_run_on_new_thread(hook_thread, &c);
}
