/* csan_jni.c — the Java binding's stream sanitizer callback: hand-written JNI glue, linked into
 * libctorch_jni.so next to SWIG's wrapper (ct_cuda_sanitizer_set_callback takes a C function
 * pointer, a ct_csan_callback, which SWIG cannot wrap; bindings/swig/ctorch.i ignores it).
 *
 * org.ctorch.CudaSanitizer.setCallback0(true) registers csan_report() (NULL user pointer);
 * false restores ctorch's default (stderr). In warn mode ctorch calls csan_report() once per
 * race, on the thread of the op that raced, with no ctorch lock held; it hands the report's
 * UTF-8 bytes (as they are: JNI's own string conversion reads "modified UTF-8") to the static
 * Java method org.ctorch.CudaSanitizer.onReport(byte[]), which calls the Consumer the program
 * set. The Java class keeps that Consumer in a static field while it is registered; this side
 * keeps the class loaded with a global reference.
 *
 * The racing op's thread is usually a Java thread inside a native call, but may be one the JVM
 * has never seen (C code sharing the process): that one is attached for the call and detached
 * again afterwards (jni_env.h). Nothing thrown in Java escapes into C: an exception is printed
 * to stderr and cleared; one already pending on the thread is set aside and raised again. */
#include <jni.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bindings/java/jni_env.h"
#include "capi/ctorch.h"

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static JavaVM* g_vm;       /* set once, before the callback is first registered */
static jclass g_class;     /* global ref: keeps org.ctorch.CudaSanitizer loaded */
static jmethodID g_method; /* static void onReport(byte[]) */

/* The ct_csan_callback: report's bytes to CudaSanitizer.onReport. */
static void csan_report(const char* report, void* user) {
  (void)user;
  int attached = 0;
  JNIEnv* env = ctj_get_env(g_vm, "ctorch-csan-report", &attached);
  if (env == NULL) { /* e.g. the JVM is shutting down: the report still goes somewhere */
    fprintf(stderr, "%s", report);
    return;
  }
  jthrowable pending = NULL;
  if ((*env)->ExceptionCheck(env)) { /* never call Java with an exception pending */
    pending = (*env)->ExceptionOccurred(env);
    (*env)->ExceptionClear(env);
  }
  jsize n = (jsize)strlen(report);
  jbyteArray bytes = (*env)->NewByteArray(env, n);
  if (bytes != NULL) {
    (*env)->SetByteArrayRegion(env, bytes, 0, n, (const jbyte*)report);
    (*env)->CallStaticVoidMethod(env, g_class, g_method, bytes);
    (*env)->DeleteLocalRef(env, bytes);
  }
  if ((*env)->ExceptionCheck(env)) { /* onReport catches everything; this is OutOfMemoryError & co */
    fprintf(stderr, "ctorch: the Java stream sanitizer callback failed on this report:\n%s", report);
    (*env)->ExceptionDescribe(env); /* prints and clears */
  }
  if (pending != NULL) {
    (*env)->Throw(env, pending);
    (*env)->DeleteLocalRef(env, pending);
  }
  ctj_release_env(g_vm, attached);
}

/* Looks up the class's onReport and keeps the class (once). 0 with a Java exception pending
 * when it cannot. Called with g_mu held. */
static int prepare(JNIEnv* env, jclass cls) {
  if (g_class != NULL) return 1;
  jmethodID m = (*env)->GetStaticMethodID(env, cls, "onReport", "([B)V");
  if (m == NULL) return 0; /* NoSuchMethodError is pending */
  JavaVM* vm = NULL;
  if ((*env)->GetJavaVM(env, &vm) != JNI_OK) {
    jclass err = (*env)->FindClass(env, "java/lang/IllegalStateException");
    if (err != NULL) (*env)->ThrowNew(env, err, "ctorch: no JavaVM for the sanitizer callback");
    return 0;
  }
  jclass global = (jclass)(*env)->NewGlobalRef(env, cls);
  if (global == NULL) return 0; /* OutOfMemoryError is pending */
  g_vm = vm;
  g_method = m;
  g_class = global;
  return 1;
}

/* private static native int setCallback0(boolean on): registers csan_report() (on) or restores
 * ctorch's default. Returns the ct_status, or -1 with a Java exception pending. */
JNIEXPORT jint JNICALL Java_org_ctorch_CudaSanitizer_setCallback0(JNIEnv* env, jclass cls, jboolean on) {
  pthread_mutex_lock(&g_mu);
  ct_status st;
  if (!on) {
    st = ct_cuda_sanitizer_set_callback(NULL, NULL);
  } else if (!prepare(env, cls)) {
    st = -1;
  } else {
    st = ct_cuda_sanitizer_set_callback(csan_report, NULL);
  }
  pthread_mutex_unlock(&g_mu);
  return (jint)st;
}

struct report_call {
  const char* report;
};

static void* report_thread(void* p) {
  csan_report(((struct report_call*)p)->report, NULL);
  return NULL;
}

/* static native int reportForTest0(byte[] report, boolean onNewThread): calls csan_report()
 * with report's bytes (a NUL is added) as ctorch would (no GPU needed), on this thread or on a
 * new native thread the JVM has never seen; for the suites. Returns 0, or -1 when the class was
 * never prepared (setCallback0(true) never ran), the arguments are bad or the thread cannot be
 * made. */
JNIEXPORT jint JNICALL Java_org_ctorch_CudaSanitizer_reportForTest0(JNIEnv* env, jclass cls, jbyteArray report,
                                                                    jboolean on_new_thread) {
  (void)cls;
  pthread_mutex_lock(&g_mu);
  int prepared = g_class != NULL;
  pthread_mutex_unlock(&g_mu);
  if (!prepared || report == NULL) return -1;
  jsize n = (*env)->GetArrayLength(env, report);
  char* text = (char*)malloc((size_t)n + 1);
  if (text == NULL) return -1;
  (*env)->GetByteArrayRegion(env, report, 0, n, (jbyte*)text);
  text[n] = 0;
  struct report_call c = {text};
  int rc = 0;
  if (on_new_thread) {
    rc = ctj_run_on_new_thread(report_thread, &c);
  } else {
    csan_report(text, NULL);
  }
  free(text);
  return rc;
}
