/* jni_env.h — the JNIEnv of the calling thread for the binding's hand-written upcalls
 * (oom_hook_jni.c, graph_jni.c): C code of ctorch calls them on a thread that is usually a Java
 * thread inside a native call, but may be one the JVM has never seen (C code sharing the
 * process). Such a thread is attached for the upcall, as a daemon (it never holds up the JVM's
 * exit), and detached again by ctj_release_env. */
#ifndef CTORCH_JAVA_JNI_ENV_H
#define CTORCH_JAVA_JNI_ENV_H

#include <jni.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

/* The calling thread's JNIEnv, attaching the thread (named thread_name) when it is not a Java
 * thread; *attached says whether it was. NULL when the thread cannot be attached (a message
 * went to stderr) or the JVM is going away. */
static inline JNIEnv* ctj_get_env(JavaVM* vm, const char* thread_name, int* attached) {
  JNIEnv* env = NULL;
  *attached = 0;
  if (vm == NULL) return NULL;
  jint rc = (*vm)->GetEnv(vm, (void**)&env, JNI_VERSION_1_8);
  if (rc == JNI_EDETACHED) {
    JavaVMAttachArgs args = {JNI_VERSION_1_8, (char*)thread_name, NULL};
    if ((*vm)->AttachCurrentThreadAsDaemon(vm, (void**)&env, &args) != JNI_OK) {
      fprintf(stderr, "ctorch: %s could not attach the thread to the JVM\n", thread_name);
      return NULL;
    }
    *attached = 1;
    return env;
  }
  return rc == JNI_OK ? env : NULL;
}

/* Detaches the thread when ctj_get_env attached it. */
static inline void ctj_release_env(JavaVM* vm, int attached) {
  if (attached) (*vm)->DetachCurrentThread(vm);
}

/* For the suites' test entry points: runs fn(arg) on a new native thread the JVM has never seen
 * and waits for it. Returns 0, or -1 when the thread cannot be made. */
static inline int ctj_run_on_new_thread(void* (*fn)(void*), void* arg) {
  pthread_t t;
  if (pthread_create(&t, NULL, fn, arg) != 0) return -1;
  pthread_join(t, NULL);
  return 0;
}

#endif /* CTORCH_JAVA_JNI_ENV_H */
