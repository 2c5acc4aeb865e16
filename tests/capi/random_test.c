/* Random numbers from C: generators and their state, the ops' errors and ranges, and the CPU
 * device against golden vectors produced by torch.cuda (tests/data/rng_golden.txt, written by
 * tests/gpu/rng_compare.py on an H200): uniform and integer values bit for bit, normal values
 * within the bound of docs/random.md, and the generator's offset after every op. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/capi/test_util.h"

static const float kRand7[7] = {0.393125594f, 0.511568964f, 0.885066867f, 0.440388322f,
                                0.89984709f,  0.121816903f, 0.530436516f};

static int64_t gen_offset(ct_generator g) {
  int64_t v = -1;
  OK(ct_generator_offset(g, &v));
  return v;
}

static void test_reference_values_and_offsets(void) {
  /* cuRAND's Philox on the host, computed independently of ctorch: curand_init(67280421310721,
   * i, 0), curand_uniform4().x for i = 0..6 */
  OK(ct_manual_seed(CT_DEFAULT_SEED));
  int64_t n = 7;
  ct_tensor t;
  OK(ct_rand(&n, 1, CT_FLOAT32, CT_CPU, 0, NULL, &t));
  float v[7];
  OK(ct_tensor_copy_to_buffer(t, v, sizeof v));
  for (int i = 0; i < 7; ++i) EXPECT(v[i] == kRand7[i]);
  rel(t);
  ct_generator g;
  OK(ct_default_generator(CT_CPU, -1, &g));
  EXPECT_EQ_I(gen_offset(g), 4);
  int64_t big = (1 << 20) + 3; /* 270336 threads x 4 per draw: still one draw each */
  OK(ct_randn(&big, 1, CT_FLOAT32, CT_CPU, 0, NULL, &t));
  rel(t);
  EXPECT_EQ_I(gen_offset(g), 8);
  int64_t huge = 3 * 270336 * 4 + 1; /* four draws per thread */
  OK(ct_rand(&huge, 1, CT_FLOAT32, CT_CPU, 0, NULL, &t));
  rel(t);
  EXPECT_EQ_I(gen_offset(g), 8 + 16);
  OK(ct_rand(&huge, 1, CT_FLOAT64, CT_CPU, 0, NULL, &t)); /* 2 per draw: 7 draws */
  rel(t);
  EXPECT_EQ_I(gen_offset(g), 24 + 28);
  int64_t s;
  OK(ct_initial_seed(&s));
  EXPECT_EQ_I(s, CT_DEFAULT_SEED);
  OK(ct_generator_release(g));
}

static void test_generators(void) {
  ct_generator a, b, d;
  int64_t live0 = -1, live = -1;
  OK(ct_live_generator_count(&live0));
  OK(ct_generator_create(CT_CPU, -1, &a));
  OK(ct_generator_create(CT_CPU, -1, &b));
  OK(ct_default_generator(CT_CPU, -1, &d));
  int64_t s = 0;
  OK(ct_generator_initial_seed(a, &s));
  EXPECT_EQ_I(s, CT_DEFAULT_SEED);
  OK(ct_generator_manual_seed(a, -1)); /* the same 64 bits as 0xffffffffffffffff */
  OK(ct_generator_initial_seed(a, &s));
  EXPECT_EQ_I(s, -1);
  OK(ct_generator_manual_seed(a, 1234));
  OK(ct_generator_manual_seed(b, 1234));
  int64_t n = 1000;
  ct_tensor x, y, z;
  OK(ct_randn(&n, 1, CT_FLOAT64, CT_CPU, 0, a, &x));
  OK(ct_manual_seed(99)); /* the default generator does not disturb a and b */
  OK(ct_rand(&n, 1, CT_FLOAT64, CT_CPU, 0, NULL, &z));
  OK(ct_randn(&n, 1, CT_FLOAT64, CT_CPU, 0, b, &y));
  double xv[1000], yv[1000];
  OK(ct_tensor_copy_to_buffer(x, xv, sizeof xv));
  OK(ct_tensor_copy_to_buffer(y, yv, sizeof yv));
  EXPECT(memcmp(xv, yv, sizeof xv) == 0);
  rel(x), rel(y), rel(z);
  /* state round trip repeats the sequence */
  unsigned char st[CT_RNG_STATE_SIZE];
  int64_t need = 0;
  FAILS(ct_generator_get_state(a, st, 8, &need), CT_ERR_BUFFER_SIZE, "too small");
  EXPECT_EQ_I(need, 16);
  OK(ct_generator_get_state(a, st, sizeof st, &need));
  int64_t seed_in_state;
  memcpy(&seed_in_state, st, 8);
  EXPECT_EQ_I(seed_in_state, 1234);
  OK(ct_randint(-3, 3, &n, 1, CT_INT32, CT_CPU, 0, a, &x));
  OK(ct_generator_set_state(a, st, sizeof st));
  OK(ct_randint(-3, 3, &n, 1, CT_INT32, CT_CPU, 0, a, &y));
  int32_t xi[1000], yi[1000];
  OK(ct_tensor_copy_to_buffer(x, xi, sizeof xi));
  OK(ct_tensor_copy_to_buffer(y, yi, sizeof yi));
  EXPECT(memcmp(xi, yi, sizeof xi) == 0);
  int lo = 0, hi = 0;
  for (int i = 0; i < 1000; ++i) {
    lo |= xi[i] == -3, hi |= xi[i] == 2;
    EXPECT(xi[i] >= -3 && xi[i] < 3);
  }
  EXPECT(lo && hi);
  rel(x), rel(y);
  FAILS(ct_generator_set_state(a, st, 15), CT_ERR_ARGUMENT, "expected 16 bytes");
  unsigned char bad[16];
  memcpy(bad, st, 16);
  bad[8] = 3; /* an offset that is not a multiple of 4 */
  FAILS(ct_generator_set_state(a, bad, 16), CT_ERR_ARGUMENT, "multiple of 4");
  ct_device_type dt;
  int32_t di;
  OK(ct_generator_device(a, &dt, &di));
  EXPECT_EQ_I(dt, CT_CPU);
  int64_t seeded;
  OK(ct_generator_seed(a, &seeded));
  OK(ct_generator_initial_seed(a, &s));
  EXPECT_EQ_I(s, seeded);
  EXPECT_EQ_I(gen_offset(a), 0);
  OK(ct_generator_release(a));
  FAILS(ct_generator_manual_seed(a, 1), CT_ERR_INVALID_HANDLE, "already released");
  FAILS(ct_generator_offset((ct_generator)(intptr_t)0x12345, &s), CT_ERR_INVALID_HANDLE, "not a ctorch generator");
  FAILS(ct_rand(&n, 1, CT_FLOAT32, CT_CPU, 0, (ct_generator)(intptr_t)0x777, &x), CT_ERR_INVALID_HANDLE, "gen");
  OK(ct_generator_retain(b)); /* a second reference: the same handle, released twice */
  OK(ct_generator_release(b));
  OK(ct_generator_initial_seed(b, &s));
  EXPECT_EQ_I(s, 1234);
  FAILS(ct_generator_retain(NULL), CT_ERR_INVALID_HANDLE, "is a NULL generator handle");
  OK(ct_live_generator_count(&live));
  EXPECT_EQ_I(live, live0 + 2); /* b and d */
  OK(ct_generator_release(b));
  OK(ct_generator_release(d));
  OK(ct_live_generator_count(&live));
  EXPECT_EQ_I(live, live0);
}

static void test_ops_and_errors(void) {
  OK(ct_manual_seed(7));
  int64_t n = 4096;
  ct_tensor t;
  const ct_dtype floats[4] = {CT_FLOAT32, CT_FLOAT64, CT_FLOAT16, CT_BFLOAT16};
  for (int k = 0; k < 4; ++k) {
    OK(ct_empty(&n, 1, floats[k], CT_CPU, 0, &t));
    OK(ct_tensor_uniform_(t, -2.0, 3.0, NULL));
    ct_tensor f;
    OK(ct_tensor_to(t, CT_CPU, 0, CT_FLOAT64, 0, 0, &f));
    double v[4096];
    OK(ct_tensor_copy_to_buffer(f, v, sizeof v));
    double mean = 0;
    for (int i = 0; i < n; ++i) {
      EXPECT(v[i] >= -2.0 && v[i] < 3.0);
      mean += v[i] / n;
    }
    EXPECT(fabs(mean - 0.5) < 0.1);
    rel(f);
    OK(ct_tensor_normal_(t, 10.0, 0.5, NULL));
    OK(ct_tensor_to(t, CT_CPU, 0, CT_FLOAT64, 0, 0, &f));
    OK(ct_tensor_copy_to_buffer(f, v, sizeof v));
    mean = 0;
    double var = 0;
    for (int i = 0; i < n; ++i) mean += v[i] / n;
    for (int i = 0; i < n; ++i) var += (v[i] - mean) * (v[i] - mean) / (n - 1);
    EXPECT(fabs(mean - 10.0) < 0.05 && fabs(sqrt(var) - 0.5) < 0.05);
    rel(f);
    rel(t);
  }
  /* bernoulli_ at the edges, and its mean */
  OK(ct_empty(&n, 1, CT_INT64, CT_CPU, 0, &t));
  int64_t iv[4096];
  OK(ct_tensor_bernoulli_(t, 0.0, NULL));
  OK(ct_tensor_copy_to_buffer(t, iv, sizeof iv));
  for (int i = 0; i < n; ++i) EXPECT(iv[i] == 0);
  OK(ct_tensor_bernoulli_(t, 1.0, NULL));
  OK(ct_tensor_copy_to_buffer(t, iv, sizeof iv));
  for (int i = 0; i < n; ++i) EXPECT(iv[i] == 1);
  OK(ct_tensor_bernoulli_(t, 0.25, NULL));
  OK(ct_tensor_copy_to_buffer(t, iv, sizeof iv));
  int64_t ones = 0;
  for (int i = 0; i < n; ++i) ones += iv[i];
  EXPECT(ones > 900 && ones < 1150);
  /* random_: the dtype's range */
  OK(ct_tensor_random_(t, NULL));
  OK(ct_tensor_copy_to_buffer(t, iv, sizeof iv));
  int big = 0;
  for (int i = 0; i < n; ++i) {
    EXPECT(iv[i] >= 0);
    big |= iv[i] > (1LL << 62);
  }
  EXPECT(big);
  OK(ct_tensor_random_range_(t, 1LL << 40, (1LL << 40) + 5, NULL));
  OK(ct_tensor_copy_to_buffer(t, iv, sizeof iv));
  for (int i = 0; i < n; ++i) EXPECT(iv[i] >= (1LL << 40) && iv[i] < (1LL << 40) + 5);
  /* errors, as PyTorch words them */
  FAILS(ct_tensor_uniform_(t, 0, 1, NULL), CT_ERR_DTYPE, "\"uniform_\" not implemented for 'Long'");
  rel(t);
  OK(ct_empty(&n, 1, CT_FLOAT32, CT_CPU, 0, &t));
  FAILS(ct_tensor_uniform_(t, 1, 0, NULL), CT_ERR_ARGUMENT, "uniform_ expects to return a [from, to) range, but found from=1 > to=0");
  FAILS(ct_tensor_normal_(t, 0, -1, NULL), CT_ERR_ARGUMENT, "normal expects std >= 0.0, but found std -1");
  FAILS(ct_tensor_bernoulli_(t, 1.5, NULL), CT_ERR_ARGUMENT, "bernoulli_ expects p to be in [0, 1], but got p=1.5");
  FAILS(ct_tensor_random_range_(t, 5, 5, NULL), CT_ERR_ARGUMENT, "random_ expects 'from' to be less than 'to', but got from=5 >= to=5");
  FAILS(ct_tensor_random_range_(t, 0, (1LL << 24) + 2, NULL), CT_ERR_ARGUMENT, "to - 1 is out of bounds for Float");
  ct_tensor u;
  FAILS(ct_randint(3, 3, &n, 1, CT_INT64, CT_CPU, 0, NULL, &u), CT_ERR_ARGUMENT, "from=3 >= to=3");
  FAILS(ct_rand(&n, 1, CT_INT32, CT_CPU, 0, NULL, &u), CT_ERR_DTYPE, "not implemented for 'Int'");
  FAILS(ct_randn(&n, 1, CT_COMPLEX64, CT_CPU, 0, NULL, &u), CT_ERR_DTYPE, "not implemented for 'ComplexFloat'");
  FAILS(ct_rand(&n, 1, CT_FLOAT32, CT_CPU, 0, NULL, NULL), CT_ERR_NULL_POINTER, "out");
  /* *_like and non-contiguous outputs */
  ct_tensor l;
  OK(ct_rand_like(t, CT_FLOAT64, NULL, &l));
  EXPECT_DTYPE(l, CT_FLOAT64);
  EXPECT_SHAPE(l, 4096);
  rel(l);
  OK(ct_randn_like(t, CT_DTYPE_UNDEFINED, NULL, &l));
  EXPECT_DTYPE(l, CT_FLOAT32);
  rel(l);
  rel(t);
  int64_t sz2[2] = {64, 64};
  ct_tensor m, tr;
  OK(ct_zeros(sz2, 2, CT_FLOAT32, CT_CPU, 0, &m));
  OK(ct_transpose(m, 0, 1, &tr));
  OK(ct_tensor_uniform_(tr, 5.0, 6.0, NULL));
  float mv[4096];
  OK(ct_tensor_copy_to_buffer(m, mv, sizeof mv));
  for (int i = 0; i < 4096; ++i) EXPECT(mv[i] >= 5.0f && mv[i] < 6.0f);
  rel(tr), rel(m);
  /* an empty tensor draws nothing and does not advance the generator */
  ct_generator g;
  OK(ct_default_generator(CT_CPU, -1, &g));
  int64_t before = gen_offset(g), zero = 0;
  OK(ct_rand(&zero, 1, CT_FLOAT32, CT_CPU, 0, NULL, &t));
  rel(t);
  EXPECT_EQ_I(gen_offset(g), before);
  OK(ct_generator_release(g));
}

/* One golden case: "op dtype numel seed a b offset_after count idx:hex ..." */
static int hexval(char c) { return c <= '9' ? c - '0' : c - 'a' + 10; }

static double as_double(const unsigned char* p, int dtype) {
  if (dtype == CT_FLOAT64) { double d; memcpy(&d, p, 8); return d; }
  if (dtype == CT_FLOAT32) { float f; memcpy(&f, p, 4); return f; }
  uint32_t u;
  if (dtype == CT_BFLOAT16) u = (uint32_t)(p[0] | p[1] << 8) << 16;
  else { /* float16 */
    uint16_t h = (uint16_t)(p[0] | p[1] << 8);
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 31u, m = h & 0x3ffu;
    if (e == 0) { float f = (float)m / 16777216.0f; return sign ? -f : f; }
    u = sign | ((e + 112u) << 23) | (m << 13);
  }
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static void test_golden_vectors_from_torch_cuda(void) {
  FILE* f = fopen("tests/data/rng_golden.txt", "r");
  EXPECT(f != NULL);
  if (!f) return;
  static char line[1 << 16];
  int cases = 0, values = 0, normals = 0;
  double worst_normal = 0;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#') continue;
    char op[16];
    int dtype, count, used;
    long long numel, seed, offset_after;
    double a, b;
    if (sscanf(line, "%15s %d %lld %lld %lf %lf %lld %d%n", op, &dtype, &numel, &seed, &a, &b, &offset_after, &count,
               &used) != 8) {
      EXPECT(0);
      continue;
    }
    ct_generator g;
    OK(ct_generator_create(CT_CPU, -1, &g));
    OK(ct_generator_manual_seed(g, seed));
    int64_t n = numel;
    ct_tensor t = NULL;
    if (!strcmp(op, "rand")) OK(ct_rand(&n, 1, dtype, CT_CPU, 0, g, &t));
    else if (!strcmp(op, "randn")) OK(ct_randn(&n, 1, dtype, CT_CPU, 0, g, &t));
    else if (!strcmp(op, "randint")) OK(ct_randint((int64_t)a, (int64_t)b, &n, 1, dtype, CT_CPU, 0, g, &t));
    else {
      OK(ct_empty(&n, 1, dtype, CT_CPU, 0, &t));
      if (!strcmp(op, "uniform")) OK(ct_tensor_uniform_(t, a, b, g));
      else if (!strcmp(op, "normal")) OK(ct_tensor_normal_(t, a, b, g));
      else if (!strcmp(op, "random")) OK(ct_tensor_random_(t, g));
      else if (!strcmp(op, "bernoulli")) OK(ct_tensor_bernoulli_(t, a, g));
      else EXPECT(0);
    }
    int64_t isz = 0;
    OK(ct_dtype_itemsize(dtype, &isz));
    unsigned char* data = malloc((size_t)(numel * isz));
    OK(ct_tensor_copy_to_buffer(t, data, numel * isz));
    int is_normal = !strcmp(op, "randn") || !strcmp(op, "normal");
    double scale = !strcmp(op, "normal") ? b : 1.0;
    const char* p = line + used;
    for (int k = 0; k < count; ++k) {
      long idx;
      int adv;
      if (sscanf(p, " %ld:%n", &idx, &adv) != 1) { EXPECT(0); break; }
      p += adv;
      unsigned char want[8];
      for (int j = 0; j < isz; ++j) want[j] = (unsigned char)(hexval(p[2 * j]) << 4 | hexval(p[2 * j + 1]));
      p += 2 * isz;
      const unsigned char* got = data + idx * isz;
      if (!is_normal) {
        if (memcmp(got, want, (size_t)isz) != 0) {
          printf("  %s dtype %d n=%lld seed=%lld: element %ld differs from torch.cuda\n", op, dtype, numel, seed, idx);
          EXPECT(0);
        }
      } else {
        /* docs/random.md: |cpu - cuda| <= 2^-18 * std (float32 and the 16-bit types, plus one
         * unit of the 16-bit result), <= 2^-46 * std (float64) */
        double x = as_double(got, dtype), y = as_double(want, dtype), d = fabs(x - y);
        double m = fabs(y) > fabs(x) ? fabs(y) : fabs(x);
        double bound = dtype == CT_FLOAT64 ? ldexp(scale, -46) : ldexp(scale, -18);
        if (dtype == CT_FLOAT16) bound += ldexp(m < ldexp(1, -14) ? ldexp(1, -14) : m, -10);
        if (dtype == CT_BFLOAT16) bound += ldexp(m < ldexp(1, -126) ? ldexp(1, -126) : m, -7);
        if (d / scale > worst_normal) worst_normal = d / scale;
        if (!(d <= bound)) {
          printf("  %s dtype %d n=%lld seed=%lld: element %ld: %.9g vs torch.cuda %.9g\n", op, dtype, numel, seed, idx, x, y);
          EXPECT(0);
        }
        ++normals;
      }
      ++values;
    }
    EXPECT_EQ_I(gen_offset(g), offset_after);
    free(data);
    rel(t);
    OK(ct_generator_release(g));
    ++cases;
  }
  fclose(f);
  printf("  %d golden cases, %d values (%d normal; largest |cpu - cuda| / std = %.3g)\n", cases, values, normals,
         worst_normal);
  EXPECT(cases >= 160);
}

static void test_cuda_matches_cpu(void) {
  SKIP_WITHOUT_CUDA();
  /* the same seed and call on both devices: uniform and integer bits are equal */
  int64_t n = 100003;
  ct_generator gc, gg;
  OK(ct_generator_create(CT_CPU, -1, &gc));
  OK(ct_generator_create(CT_CUDA, 0, &gg));
  OK(ct_generator_manual_seed(gc, 5));
  OK(ct_generator_manual_seed(gg, 5));
  ct_tensor a, b;
  OK(ct_rand(&n, 1, CT_FLOAT32, CT_CPU, 0, gc, &a));
  OK(ct_rand(&n, 1, CT_FLOAT32, CT_CUDA, 0, gg, &b));
  float* x = malloc(n * 4);
  float* y = malloc(n * 4);
  OK(ct_tensor_copy_to_buffer(a, x, n * 4));
  OK(ct_tensor_copy_to_buffer(b, y, n * 4));
  EXPECT(memcmp(x, y, n * 4) == 0);
  free(x), free(y);
  rel(a), rel(b);
  EXPECT_EQ_I(gen_offset(gc), gen_offset(gg));
  /* a CPU generator cannot drive a CUDA tensor */
  FAILS(ct_rand(&n, 1, CT_FLOAT32, CT_CUDA, 0, gc, &a), CT_ERR_DEVICE, "Expected a 'cuda' device type for generator but found 'cpu'");
  /* torch.cuda.get/set_rng_state */
  unsigned char st[16];
  int64_t need;
  OK(ct_cuda_manual_seed(77));
  OK(ct_cuda_get_rng_state(0, st, 16, &need));
  OK(ct_rand(&n, 1, CT_FLOAT32, CT_CUDA, 0, NULL, &a));
  OK(ct_cuda_set_rng_state(st, 16, 0));
  OK(ct_rand(&n, 1, CT_FLOAT32, CT_CUDA, 0, NULL, &b));
  x = malloc(n * 4);
  y = malloc(n * 4);
  OK(ct_tensor_copy_to_buffer(a, x, n * 4));
  OK(ct_tensor_copy_to_buffer(b, y, n * 4));
  EXPECT(memcmp(x, y, n * 4) == 0);
  free(x), free(y);
  rel(a), rel(b);
  int32_t devs = 0;
  OK(ct_cuda_device_count(&devs));
  unsigned char* allst = malloc(16 * devs);
  OK(ct_cuda_get_rng_state_all(allst, 16 * devs, &need));
  EXPECT_EQ_I(need, 16 * devs);
  OK(ct_cuda_set_rng_state_all(allst, 16 * devs));
  FAILS(ct_cuda_set_rng_state_all(allst, 16 * devs - 1), CT_ERR_ARGUMENT, "set_rng_state_all expects");
  free(allst);
  OK(ct_generator_release(gc));
  OK(ct_generator_release(gg));
}

/* the host copies of a and b (n float32 each) hold the same bits */
static void expect_same_floats(ct_tensor a, ct_tensor b, int64_t n, const char* what) {
  float* x = malloc((size_t)n * 4);
  float* y = malloc((size_t)n * 4);
  OK(ct_tensor_copy_to_buffer(a, x, n * 4));
  OK(ct_tensor_copy_to_buffer(b, y, n * 4));
  if (memcmp(x, y, (size_t)n * 4) != 0) FAILF("%s: the two devices drew different numbers", what);
  free(x), free(y);
}

/* generators on cuda:1 (issue 20): every device has its own default generator, seeded alike by
 * manual_seed_all and alone by manual_seed (the current device's); the same seed draws the same
 * numbers on two GPUs of one model (Philox is keyed by seed and offset, and the launch shape
 * follows the SM count); a generator made on cuda:1 drives cuda:1's tensors. */
static void test_two_gpus_generators(void) {
  SKIP_WITHOUT_CUDA();
  if (g_cuda < 2) {
    printf("  SKIP %s: one GPU\n", g_test_name);
    g_skipped = 1;
    return;
  }
  int64_t n = 1000, s = -1;
  ct_tensor a = NULL, b = NULL;
  OK(ct_cuda_manual_seed_all(1234));
  OK(ct_rand(&n, 1, CT_FLOAT32, CT_CUDA, 0, NULL, &a));
  OK(ct_rand(&n, 1, CT_FLOAT32, CT_CUDA, 1, NULL, &b));
  expect_same_floats(a, b, n, "manual_seed_all(1234), rand on cuda:0 and cuda:1");
  rel(a), rel(b);
  OK(ct_cuda_set_device(1));
  OK(ct_cuda_manual_seed(99)); /* cuda:1's default generator only */
  OK(ct_cuda_initial_seed(&s));
  EXPECT_EQ_I(s, 99);
  OK(ct_cuda_set_device(0));
  OK(ct_cuda_initial_seed(&s));
  EXPECT_EQ_I(s, 1234);
  ct_generator g0 = NULL, g1 = NULL;
  OK(ct_generator_create(CT_CUDA, 1, &g1));
  OK(ct_generator_create(CT_CUDA, 0, &g0));
  OK(ct_generator_manual_seed(g1, 5));
  OK(ct_generator_manual_seed(g0, 5));
  OK(ct_rand(&n, 1, CT_FLOAT32, CT_CUDA, 1, g1, &a));
  OK(ct_rand(&n, 1, CT_FLOAT32, CT_CUDA, 0, g0, &b));
  ct_device_type t;
  int32_t idx = -1;
  OK(ct_tensor_device(a, &t, &idx));
  EXPECT_EQ_I(idx, 1);
  expect_same_floats(a, b, n, "generators seeded 5 on cuda:1 and cuda:0");
  rel(a), rel(b);
  OK(ct_generator_release(g0));
  OK(ct_generator_release(g1));
}

static void test_without_cuda(void) {
  if (g_cuda) {
    printf("  (CUDA present: the no-GPU paths are covered on machines without one)\n");
    return;
  }
  int64_t v, n = 4;
  unsigned char st[16];
  ct_tensor t;
  ct_generator g;
  OK(ct_cuda_manual_seed(1)); /* ignored without CUDA, as torch.cuda.manual_seed */
  OK(ct_cuda_manual_seed_all(1));
  OK(ct_cuda_seed());
  OK(ct_cuda_seed_all());
  FAILS(ct_cuda_initial_seed(&v), CT_ERR_CUDA_UNAVAILABLE, "CUDA is not available");
  FAILS(ct_cuda_get_rng_state(0, st, 16, &v), CT_ERR_CUDA_UNAVAILABLE, "");
  FAILS(ct_cuda_set_rng_state(st, 16, 0), CT_ERR_CUDA_UNAVAILABLE, "");
  OK(ct_cuda_get_rng_state_all(NULL, 0, &v));
  EXPECT_EQ_I(v, 0);
  OK(ct_cuda_set_rng_state_all(NULL, 0)); /* no devices: an empty state list */
  FAILS(ct_cuda_set_rng_state_all(st, 16), CT_ERR_ARGUMENT, "expects 0 bytes (0 devices x 16), got 16");
  FAILS(ct_generator_create(CT_CUDA, 0, &g), CT_ERR_CUDA_UNAVAILABLE, "");
  FAILS(ct_rand(&n, 1, CT_FLOAT32, CT_CUDA, 0, NULL, &t), CT_ERR_CUDA_UNAVAILABLE, "");
  int64_t s1, s2;
  OK(ct_seed(&s1));
  OK(ct_initial_seed(&s2));
  EXPECT_EQ_I(s1, s2);
}

TEST_MAIN(TEST_CASE(reference_values_and_offsets), TEST_CASE(generators), TEST_CASE(ops_and_errors),
          TEST_CASE(golden_vectors_from_torch_cuda), TEST_CASE(cuda_matches_cpu), TEST_CASE(two_gpus_generators),
          TEST_CASE(without_cuda))
