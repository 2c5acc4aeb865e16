package capi

/*
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
static void ctgo_malloc_trim(void) {
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}
*/
import "C"

// MallocTrim gives the C heap's free memory back to the system (glibc's malloc_trim(0), over
// every arena; nothing elsewhere). For the soak tests (tests/go/soak_test.go): tensors released
// by finalizers are freed on other threads than the ones that made them, in other malloc
// arenas, and glibc keeps what was freed for reuse; after a trim the resident memory shows what
// is still in use, so that a leak is told from memory kept for reuse.
func MallocTrim() { C.ctgo_malloc_trim() }
