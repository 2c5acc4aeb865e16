/* graph_jni.c — the Java binding's graphed callables: hand-written JNI glue, linked into
 * libctorch_jni.so next to SWIG's wrapper (ct_cuda_make_graphed_callable takes a C function
 * pointer, a ct_graph_fn, which SWIG cannot wrap; bindings/swig/ctorch.i ignores it).
 *
 * org.ctorch.GraphedCallable.make0 calls ct_cuda_make_graphed_callable with graph_fn() and a
 * struct graph_call as its ctx; ctorch calls graph_fn() (during that call only, for each warm-up
 * run and for the capture), which calls the Java lambda's run() (GraphedCallable.Body). When the
 * lambda throws, graph_fn() keeps the first exception (a global reference), clears it and
 * returns CT_ERR_STATE, which makes ctorch discard the capture and fail; make0 then hands the
 * exception to Java in thrown[0], and GraphedCallable.make throws it as it is.
 *
 * graph_fn() gets the JNIEnv of the thread it runs on (jni_env.h): ctorch calls it on the thread
 * that called make0, but a thread the JVM has never seen is attached for the call. */
#include <jni.h>
#include <stdint.h>
#include <stdlib.h>

#include "bindings/java/jni_env.h"
#include "capi/ctorch.h"

struct graph_call {
  JavaVM* vm;
  jobject fn;        /* global ref: the GraphedCallable.Body */
  jmethodID run;     /* its void run() */
  jthrowable thrown; /* global ref: the first exception run() threw, or NULL */
};

/* The ct_graph_fn: calls ctx's lambda once. CT_OK, or CT_ERR_STATE when it threw (or the thread
 * could not be attached to the JVM). */
static ct_status graph_fn(void* ctx) {
  struct graph_call* c = (struct graph_call*)ctx;
  int attached = 0;
  JNIEnv* env = ctj_get_env(c->vm, "ctorch-graph-fn", &attached);
  if (env == NULL) return CT_ERR_STATE;
  jthrowable pending = NULL;
  if ((*env)->ExceptionCheck(env)) { /* never call Java with an exception pending */
    pending = (*env)->ExceptionOccurred(env);
    (*env)->ExceptionClear(env);
  }
  (*env)->CallVoidMethod(env, c->fn, c->run);
  ct_status st = CT_OK;
  jthrowable t = (*env)->ExceptionOccurred(env);
  if (t != NULL) {
    (*env)->ExceptionClear(env);
    if (c->thrown == NULL) c->thrown = (jthrowable)(*env)->NewGlobalRef(env, t);
    (*env)->DeleteLocalRef(env, t);
    st = CT_ERR_STATE;
  }
  if (pending != NULL) {
    (*env)->Throw(env, pending);
    (*env)->DeleteLocalRef(env, pending);
  }
  ctj_release_env(c->vm, attached);
  return st;
}

/* Fills c for fn; 0 with a Java exception pending when it cannot (fn null, no run() method, no
 * memory for the global reference). thrown must have room for one element. */
static int prepare(JNIEnv* env, jobject fn, jobjectArray thrown, struct graph_call* c) {
  c->vm = NULL;
  c->fn = NULL;
  c->thrown = NULL;
  if (fn == NULL || thrown == NULL || (*env)->GetArrayLength(env, thrown) < 1) {
    jclass npe = (*env)->FindClass(env, "java/lang/NullPointerException");
    if (npe != NULL) (*env)->ThrowNew(env, npe, "ctorch: fn and a thrown[1] array are required");
    return 0;
  }
  jclass k = (*env)->GetObjectClass(env, fn);
  c->run = (*env)->GetMethodID(env, k, "run", "()V");
  (*env)->DeleteLocalRef(env, k);
  if (c->run == NULL) return 0; /* NoSuchMethodError is pending */
  if ((*env)->GetJavaVM(env, &c->vm) != JNI_OK) {
    jclass err = (*env)->FindClass(env, "java/lang/IllegalStateException");
    if (err != NULL) (*env)->ThrowNew(env, err, "ctorch: no JavaVM for the graphed callable");
    return 0;
  }
  c->fn = (*env)->NewGlobalRef(env, fn);
  return c->fn != NULL; /* OutOfMemoryError is pending otherwise */
}

/* Drops c's references; the exception fn threw, if any, goes to thrown[0]. */
static void finish(JNIEnv* env, struct graph_call* c, jobjectArray thrown) {
  (*env)->DeleteGlobalRef(env, c->fn);
  if (c->thrown != NULL) {
    jobject local = (*env)->NewLocalRef(env, c->thrown);
    (*env)->DeleteGlobalRef(env, c->thrown);
    (*env)->SetObjectArrayElement(env, thrown, 0, local);
    (*env)->DeleteLocalRef(env, local);
  }
}

/* private static native int make0(Body fn, long[] staticInputs, int warmupIters, long pool,
 * long[] out, Throwable[] thrown): ct_cuda_make_graphed_callable over fn; out[0] gets the new
 * handle. Returns its ct_status, or -1 with a Java exception pending when the call could not be
 * made (bad arguments, no memory). */
JNIEXPORT jint JNICALL Java_org_ctorch_GraphedCallable_make0(JNIEnv* env, jclass cls, jobject fn, jlongArray inputs,
                                                             jint warmup_iters, jlong pool, jlongArray out,
                                                             jobjectArray thrown) {
  (void)cls;
  if (out == NULL || (*env)->GetArrayLength(env, out) < 1) {
    jclass npe = (*env)->FindClass(env, "java/lang/NullPointerException");
    if (npe != NULL) (*env)->ThrowNew(env, npe, "ctorch: an out[1] array is required");
    return -1;
  }
  struct graph_call c;
  if (!prepare(env, fn, thrown, &c)) return -1;
  jsize n = inputs == NULL ? 0 : (*env)->GetArrayLength(env, inputs);
  ct_tensor* handles = NULL;
  if (n > 0) {
    handles = (ct_tensor*)malloc((size_t)n * sizeof *handles);
    jlong* raw = handles == NULL ? NULL : (*env)->GetLongArrayElements(env, inputs, NULL);
    if (raw == NULL) {
      free(handles);
      (*env)->DeleteGlobalRef(env, c.fn);
      if (!(*env)->ExceptionCheck(env)) {
        jclass oom = (*env)->FindClass(env, "java/lang/OutOfMemoryError");
        if (oom != NULL) (*env)->ThrowNew(env, oom, "ctorch: no memory for the static inputs");
      }
      return -1;
    }
    for (jsize i = 0; i < n; i++) handles[i] = (ct_tensor)(intptr_t)raw[i];
    (*env)->ReleaseLongArrayElements(env, inputs, raw, JNI_ABORT);
  }
  ct_cuda_graphed graphed = NULL;
  ct_status st = ct_cuda_make_graphed_callable(graph_fn, &c, handles, (int32_t)n, (int32_t)warmup_iters,
                                               (int64_t)pool, &graphed);
  free(handles);
  finish(env, &c, thrown);
  if (st == CT_OK) {
    jlong v = (jlong)(intptr_t)graphed;
    (*env)->SetLongArrayRegion(env, out, 0, 1, &v);
  }
  return (jint)st;
}

struct test_call {
  struct graph_call* c;
  ct_status status;
};

static void* test_thread(void* p) {
  struct test_call* t = (struct test_call*)p;
  t->status = graph_fn(t->c);
  return NULL;
}

/* static native int callForTest0(Body fn, boolean onNewThread, Throwable[] thrown): calls
 * graph_fn() with fn as ctorch would (no GPU needed), on this thread or on a new native thread
 * the JVM has never seen; for the suites. Returns graph_fn's status (the exception fn threw in
 * thrown[0]), or -1 when the thread cannot be made or the arguments are bad (an exception
 * pending). */
JNIEXPORT jint JNICALL Java_org_ctorch_GraphedCallable_callForTest0(JNIEnv* env, jclass cls, jobject fn,
                                                                    jboolean on_new_thread, jobjectArray thrown) {
  (void)cls;
  struct graph_call c;
  if (!prepare(env, fn, thrown, &c)) return -1;
  struct test_call t = {&c, CT_OK};
  jint st;
  if (!on_new_thread) {
    st = (jint)graph_fn(&c);
  } else {
    st = ctj_run_on_new_thread(test_thread, &t) == 0 ? (jint)t.status : -1;
  }
  finish(env, &c, thrown);
  return st;
}
