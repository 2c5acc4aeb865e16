/* Section 22, NVTX (torch.cuda.nvtx). Needs no GPU.
 *
 * Without a tool attached NVTX's calls are no-ops that return NVTX_NO_PUSH_POP_TRACKING (-2) for
 * push and pop and 0 for range_start; ctorch passes these through as torch does. The test
 * `under_injection` then runs this program again with NVTX_INJECTION64_PATH pointing at
 * libnvtx_inject.so (tests/capi/nvtx_inject.c, a recording tool): there the calls must reach the
 * tool with their messages byte for byte, and push/pop return the tool's per-thread depths.
 *
 * The library's path: argv[1], else the runfiles (TEST_SRCDIR, or <program>.runfiles). */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/capi/test_util.h"

static const char* g_inject_arg;   /* argv[1], may be NULL */
static const char* g_program;      /* argv[0] */

/* ---- without a tool */

static void test_without_tool(void) {
  int32_t depth = 7;
  uint64_t id = 7;
  OK(ct_nvtx_mark("a mark"));
  OK(ct_nvtx_range_push("outer", &depth));
  EXPECT_EQ_I(depth, -2);
  depth = 7;
  OK(ct_nvtx_range_push("inner", &depth));
  EXPECT_EQ_I(depth, -2);
  depth = 7;
  OK(ct_nvtx_range_pop(&depth));
  EXPECT_EQ_I(depth, -2);
  depth = 7;
  OK(ct_nvtx_range_pop(&depth));
  EXPECT_EQ_I(depth, -2);
  depth = 7;
  OK(ct_nvtx_range_pop(&depth)); /* a stray pop is NVTX's business, not an error */
  EXPECT_EQ_I(depth, -2);
  OK(ct_nvtx_range_start("started", &id));
  EXPECT_EQ_I(id, 0);
  OK(ct_nvtx_range_end(id));
  OK(ct_nvtx_range_end(12345));
  /* depth is optional */
  OK(ct_nvtx_range_push("no depth", NULL));
  OK(ct_nvtx_range_pop(NULL));
  OK(ct_nvtx_mark(""));
}

static void test_null_arguments(void) {
  int32_t depth = 7;
  uint64_t id = 7;
  FAILS(ct_nvtx_mark(NULL), CT_ERR_NULL_POINTER, "argument 'msg' is NULL");
  FAILS(ct_nvtx_range_push(NULL, &depth), CT_ERR_NULL_POINTER, "argument 'msg' is NULL");
  EXPECT_EQ_I(depth, 7); /* untouched on failure */
  FAILS(ct_nvtx_range_start(NULL, &id), CT_ERR_NULL_POINTER, "argument 'msg' is NULL");
  EXPECT_EQ_I(id, 7);
  FAILS(ct_nvtx_range_start("x", NULL), CT_ERR_NULL_POINTER, "argument 'id' is NULL");
}

/* ---- the same process with the recording tool (run by under_injection) */

typedef struct {
  char call[8];
  long tid;
  long long value;
  char hex[256];
} record_line;

static void hex_of(const char* s, char* out) {
  for (; *s; ++s, out += 2) sprintf(out, "%02x", (unsigned char)*s);
  *out = '\0';
}

/* Reads the tool's record; returns the number of lines (at most cap). */
static int read_record(record_line* lines, int cap) {
  FILE* f = fopen(getenv("CTORCH_NVTX_RECORD"), "r");
  if (!f) {
    FAILF("cannot open the record %s", getenv("CTORCH_NVTX_RECORD"));
    return 0;
  }
  int n = 0;
  char buf[1024];
  while (n < cap && fgets(buf, sizeof buf, f)) {
    record_line* l = &lines[n];
    l->hex[0] = '\0';
    if (sscanf(buf, "%7[a-z]\t%ld\t%lld\t%255[0-9a-f]", l->call, &l->tid, &l->value, l->hex) < 3) {
      FAILF("bad record line: %s", buf);
      break;
    }
    n++;
  }
  fclose(f);
  return n;
}

/* The line for call+msg (the first from *from on), or NULL. */
static const record_line* find_line(const record_line* lines, int n, int* from, const char* call, const char* msg) {
  char hex[256];
  hex_of(msg, hex);
  for (int i = *from; i < n; ++i)
    if (strcmp(lines[i].call, call) == 0 && (msg[0] == '\0' || strcmp(lines[i].hex, hex) == 0)) {
      *from = i + 1;
      return &lines[i];
    }
  return NULL;
}

static long self_tid(void) { return (long)syscall(SYS_gettid); }

static void test_injected_calls(void) {
  int32_t depth = 7;
  uint64_t id1 = 0, id2 = 0;
  const char* utf8 = "step \xc3\xa9t\xc3\xa9 \xe6\xad\xa5 \xf0\x9f\x9a\x80"; /* "step été 步 🚀" */
  OK(ct_nvtx_mark("mark one"));
  OK(ct_nvtx_range_push("outer", &depth));
  EXPECT_EQ_I(depth, 0);
  OK(ct_nvtx_range_push(utf8, &depth));
  EXPECT_EQ_I(depth, 1);
  OK(ct_nvtx_range_push("", &depth));
  EXPECT_EQ_I(depth, 2);
  OK(ct_nvtx_range_pop(&depth));
  EXPECT_EQ_I(depth, 2);
  OK(ct_nvtx_range_pop(&depth));
  EXPECT_EQ_I(depth, 1);
  OK(ct_nvtx_range_pop(&depth));
  EXPECT_EQ_I(depth, 0);
  OK(ct_nvtx_range_pop(&depth)); /* nothing pushed: the tool's error value, passed through */
  EXPECT_EQ_I(depth, -1);
  OK(ct_nvtx_range_start("started one", &id1));
  OK(ct_nvtx_range_start("started two", &id2));
  EXPECT(id1 != 0 && id2 != 0 && id1 != id2);
  OK(ct_nvtx_range_end(id2));
  OK(ct_nvtx_range_end(id1));

  record_line lines[64];
  int n = read_record(lines, 64);
  long me = self_tid();
  struct {
    const char* call;
    long long value;
    const char* msg;
  } want[] = {{"mark", 0, "mark one"}, {"push", 0, "outer"}, {"push", 1, utf8}, {"push", 2, ""},
              {"pop", 2, ""},          {"pop", 1, ""},       {"pop", 0, ""},    {"pop", -1, ""},
              {"start", (long long)id1, "started one"},      {"start", (long long)id2, "started two"},
              {"end", (long long)id2, ""},                   {"end", (long long)id1, ""}};
  EXPECT_EQ_I(n, (int)(sizeof want / sizeof want[0]));
  for (size_t i = 0; i < sizeof want / sizeof want[0] && (int)i < n; ++i) {
    char hex[256];
    hex_of(want[i].msg, hex);
    if (strcmp(lines[i].call, want[i].call) != 0 || lines[i].value != want[i].value ||
        strcmp(lines[i].hex, hex) != 0 || lines[i].tid != me)
      FAILF("record line %zu is %s %ld %lld %s, expected %s %ld %lld %s", i, lines[i].call, lines[i].tid,
            lines[i].value, lines[i].hex, want[i].call, me, want[i].value, hex);
  }
}

/* Two threads nest their own ranges at the same time: the depths are per thread. */
typedef struct {
  const char* name;
  pthread_barrier_t* barrier;
  int32_t depths[4]; /* push, push, pop, pop */
  long tid;
  uint64_t started; /* a range started here and ended by the other thread */
  uint64_t to_end;
} thread_arg;

static void* nest(void* p) {
  thread_arg* a = p;
  char m[64];
  a->tid = self_tid();
  snprintf(m, sizeof m, "%s outer", a->name);
  ct_nvtx_range_push(m, &a->depths[0]);
  snprintf(m, sizeof m, "%s started", a->name);
  ct_nvtx_range_start(m, &a->started);
  pthread_barrier_wait(a->barrier); /* both are at depth 1 now */
  snprintf(m, sizeof m, "%s inner", a->name);
  ct_nvtx_range_push(m, &a->depths[1]);
  pthread_barrier_wait(a->barrier);
  ct_nvtx_range_pop(&a->depths[2]);
  ct_nvtx_range_pop(&a->depths[3]);
  return NULL;
}

static void test_injected_threads(void) {
  pthread_barrier_t barrier;
  pthread_barrier_init(&barrier, NULL, 2);
  thread_arg a[2] = {{.name = "thread A", .barrier = &barrier}, {.name = "thread B", .barrier = &barrier}};
  pthread_t th[2];
  for (int i = 0; i < 2; ++i) pthread_create(&th[i], NULL, nest, &a[i]);
  for (int i = 0; i < 2; ++i) pthread_join(th[i], NULL);
  pthread_barrier_destroy(&barrier);
  /* ranges started on one thread end on another */
  OK(ct_nvtx_range_end(a[0].started));
  OK(ct_nvtx_range_end(a[1].started));
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ_I(a[i].depths[0], 0);
    EXPECT_EQ_I(a[i].depths[1], 1);
    EXPECT_EQ_I(a[i].depths[2], 1);
    EXPECT_EQ_I(a[i].depths[3], 0);
  }
  record_line lines[64];
  int n = read_record(lines, 64);
  for (int i = 0; i < 2; ++i) {
    char m[64];
    int at = 0;
    const record_line* l;
    snprintf(m, sizeof m, "%s outer", a[i].name);
    l = find_line(lines, n, &at, "push", m);
    EXPECT(l && l->tid == a[i].tid && l->value == 0);
    snprintf(m, sizeof m, "%s started", a[i].name);
    l = find_line(lines, n, &at, "start", m);
    EXPECT(l && l->tid == a[i].tid && l->value == (long long)a[i].started);
    snprintf(m, sizeof m, "%s inner", a[i].name);
    l = find_line(lines, n, &at, "push", m);
    EXPECT(l && l->tid == a[i].tid && l->value == 1);
  }
  int ends = 0;
  for (int i = 0; i < n; ++i)
    if (strcmp(lines[i].call, "end") == 0 && lines[i].tid == self_tid() &&
        (lines[i].value == (long long)a[0].started || lines[i].value == (long long)a[1].started))
      ends++;
  EXPECT_EQ_I(ends, 2);
}

/* ---- the parent's test: this program again, under the tool */

static int inject_path(char* out) {
  const char* rel = "tests/capi/libnvtx_inject.so";
  char buf[PATH_MAX];
  const char* srcdir = getenv("TEST_SRCDIR");
  const char* ws = getenv("TEST_WORKSPACE");
  if (g_inject_arg) snprintf(buf, sizeof buf, "%s", g_inject_arg);
  else if (srcdir) snprintf(buf, sizeof buf, "%s/%s/%s", srcdir, ws ? ws : "ctorch", rel);
  else snprintf(buf, sizeof buf, "%s.runfiles/ctorch/%s", g_program, rel);
  return realpath(buf, out) != NULL;
}

static void test_under_injection(void) {
  char lib[PATH_MAX], record[PATH_MAX], self[PATH_MAX];
  if (!inject_path(lib)) {
    FAILF("libnvtx_inject.so not found (pass its path as the first argument)");
    return;
  }
  const char* tmp = getenv("TEST_TMPDIR");
  snprintf(record, sizeof record, "%s/nvtx_record_%ld.tsv", tmp ? tmp : "/tmp", (long)getpid());
  unlink(record);
  ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
  if (k <= 0) {
    FAILF("readlink /proc/self/exe failed");
    return;
  }
  self[k] = '\0';
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    setenv("NVTX_INJECTION64_PATH", lib, 1);
    setenv("CTORCH_NVTX_RECORD", record, 1);
    execl(self, self, (char*)NULL);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  unlink(record);
}

int main(int argc, char** argv) {
  g_program = argv[0];
  g_inject_arg = argc > 1 ? argv[1] : NULL;
  if (getenv("CTORCH_NVTX_RECORD")) {
    printf("under the NVTX injection %s\n", getenv("NVTX_INJECTION64_PATH"));
    const test_case tests[] = {TEST_CASE(null_arguments), TEST_CASE(injected_calls), TEST_CASE(injected_threads)};
    return RUN_TESTS(tests);
  }
  const test_case tests[] = {TEST_CASE(without_tool), TEST_CASE(null_arguments), TEST_CASE(under_injection)};
  return RUN_TESTS(tests);
}
