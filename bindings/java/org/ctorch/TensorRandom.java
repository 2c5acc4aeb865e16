package org.ctorch;

import java.lang.ref.Reference;
import java.util.Objects;

import org.ctorch.swig.ctorch;

/**
 * {@link Tensor}'s random numbers: rand/randn/randint factories and the in-place
 * uniform_/normal_/random_/bernoulli_.
 */
abstract class TensorRandom extends TensorReductions {
  TensorRandom(long handle) {
    super(handle);
  }

  /* ============================================================================================
   * Section 16: random numbers. Every op draws from the generator it is given, or, without one
   * (or with null), from the default generator of the tensor's device; see Generator. Factories
   * default to the CPU and torch's default dtypes (float32; int64 for randint); a null dtype
   * also means the default.
   * ========================================================================================== */

  /** Runs an in-place random op on this tensor with an optional generator. Returns this. */
  private Tensor drawInPlace(Generator gen, GenCall c) {
    try {
      Native.check(c.call(handle(), Generator.handleOf(gen)));
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(gen);
    }
    return self();
  }

  @FunctionalInterface
  private interface GenCall {
    int call(long tensor, long gen);
  }

  @FunctionalInterface
  private interface GenOutCall {
    int call(long gen, long[] out);
  }

  @FunctionalInterface
  private interface FloatsCall {
    int call(long[] shape, int ndim, int dtype, int deviceType, int deviceIndex, long gen,
        long[] out);
  }

  /** ct_rand / ct_randn: a random factory of floating values. */
  private static Tensor drawFloats(FloatsCall c, long[] shape, DType dtype, Device device,
      Generator gen) {
    Objects.requireNonNull(shape, "shape");
    Objects.requireNonNull(device, "device");
    return drawNew(gen, (g, out) -> c.call(shape, shape.length, dtypeCode(dtype),
        device.type().code(), device.index(), g, out));
  }

  /** A random factory with an optional generator. */
  private static Tensor drawNew(Generator gen, GenOutCall c) {
    try {
      return create(out -> c.call(Generator.handleOf(gen), out));
    } finally {
      Reference.reachabilityFence(gen);
    }
  }

  /** {@code torch.rand(shape)}: uniform values in [0, 1), float32 on the CPU. */
  public static Tensor rand(long... shape) {
    return rand(shape, DType.FLOAT32, Device.CPU, null);
  }

  /** {@code torch.rand(shape, generator=gen)}: float32 on the CPU. */
  public static Tensor rand(long[] shape, Generator gen) {
    return rand(shape, DType.FLOAT32, Device.CPU, gen);
  }

  /** {@code torch.rand(shape, dtype=dtype, device=device)}. */
  public static Tensor rand(long[] shape, DType dtype, Device device) {
    return rand(shape, dtype, device, null);
  }

  /**
   * {@code torch.rand(shape, generator=gen, dtype=dtype, device=device)}: uniform values in
   * [0, 1); dtype float32 (null), float64, float16 or bfloat16 (else code 104, CT_ERR_DTYPE).
   * A generator of another device than {@code device} is code 300 (CT_ERR_DEVICE); a null one
   * is the device's default generator.
   */
  public static Tensor rand(long[] shape, DType dtype, Device device, Generator gen) {
    return drawFloats(ctorch::ct_rand, shape, dtype, device, gen);
  }

  /** {@code torch.randn(shape)}: standard normal values, float32 on the CPU. */
  public static Tensor randn(long... shape) {
    return randn(shape, DType.FLOAT32, Device.CPU, null);
  }

  /** {@code torch.randn(shape, generator=gen)}: float32 on the CPU. */
  public static Tensor randn(long[] shape, Generator gen) {
    return randn(shape, DType.FLOAT32, Device.CPU, gen);
  }

  /** {@code torch.randn(shape, dtype=dtype, device=device)}. */
  public static Tensor randn(long[] shape, DType dtype, Device device) {
    return randn(shape, dtype, device, null);
  }

  /**
   * {@code torch.randn(shape, generator=gen, dtype=dtype, device=device)}: standard normal
   * values; the dtypes and errors of {@link Tensor#rand(long[], DType, Device, Generator)}.
   */
  public static Tensor randn(long[] shape, DType dtype, Device device, Generator gen) {
    return drawFloats(ctorch::ct_randn, shape, dtype, device, gen);
  }

  /** {@code torch.randint(low, high, shape)}: integers in [low, high), int64 on the CPU. */
  public static Tensor randint(long low, long high, long... shape) {
    return randint(low, high, shape, DType.INT64, Device.CPU, null);
  }

  /** {@code torch.randint(low, high, shape, generator=gen)}: int64 on the CPU. */
  public static Tensor randint(long low, long high, long[] shape, Generator gen) {
    return randint(low, high, shape, DType.INT64, Device.CPU, gen);
  }

  /** {@code torch.randint(low, high, shape, dtype=dtype, device=device)}. */
  public static Tensor randint(long low, long high, long[] shape, DType dtype, Device device) {
    return randint(low, high, shape, dtype, device, null);
  }

  /**
   * {@code torch.randint(low, high, shape, generator=gen, dtype=dtype, device=device)}:
   * integers in [low, high) for every real dtype (null: int64). Code 100 (CT_ERR_ARGUMENT)
   * when low &gt;= high or the range does not fit the dtype; 300 for a generator of another
   * device.
   */
  public static Tensor randint(long low, long high, long[] shape, DType dtype, Device device,
      Generator gen) {
    Objects.requireNonNull(shape, "shape");
    Objects.requireNonNull(device, "device");
    return drawNew(gen, (g, out) -> ctorch.ct_randint(low, high, shape, shape.length,
        dtypeCode(dtype), device.type().code(), device.index(), g, out));
  }

  /** {@code torch.rand_like(t)}: t's shape, dtype and device. */
  public static Tensor randLike(Tensor t) {
    return randLike(t, null, null);
  }

  /** {@code torch.rand_like(t, dtype=dtype)}; a null dtype keeps t's. */
  public static Tensor randLike(Tensor t, DType dtype) {
    return randLike(t, dtype, null);
  }

  /**
   * {@code torch.rand_like(t, dtype=dtype, generator=gen)}: uniform values in [0, 1) of t's
   * shape on t's device; a null dtype keeps t's (which must then be a float dtype, else code
   * 104), a null generator is the device's default one.
   */
  public static Tensor randLike(Tensor t, DType dtype, Generator gen) {
    Objects.requireNonNull(t, "t");
    try {
      return t.make(out -> ctorch.ct_rand_like(t.handle(), dtypeCode(dtype),
          Generator.handleOf(gen), out));
    } finally {
      Reference.reachabilityFence(gen);
    }
  }

  /** {@code torch.randn_like(t)}: t's shape, dtype and device. */
  public static Tensor randnLike(Tensor t) {
    return randnLike(t, null, null);
  }

  /** {@code torch.randn_like(t, dtype=dtype)}; a null dtype keeps t's. */
  public static Tensor randnLike(Tensor t, DType dtype) {
    return randnLike(t, dtype, null);
  }

  /**
   * {@code torch.randn_like(t, dtype=dtype, generator=gen)}: standard normal values of t's
   * shape on t's device; nulls as in {@link Tensor#randLike(Tensor, DType, Generator)}.
   */
  public static Tensor randnLike(Tensor t, DType dtype, Generator gen) {
    Objects.requireNonNull(t, "t");
    try {
      return t.make(out -> ctorch.ct_randn_like(t.handle(), dtypeCode(dtype),
          Generator.handleOf(gen), out));
    } finally {
      Reference.reachabilityFence(gen);
    }
  }

  /** {@code t.uniform_()}: uniform values in [0, 1). Returns this. */
  public Tensor uniform_() {
    return uniform_(0.0, 1.0, null);
  }

  /** {@code t.uniform_(from, to)}. Returns this. */
  public Tensor uniform_(double from, double to) {
    return uniform_(from, to, null);
  }

  /**
   * {@code t.uniform_(from, to, generator=gen)}: uniform values in [from, to), for float32,
   * float64, float16 and bfloat16 tensors (else code 104). Code 100 (CT_ERR_ARGUMENT) when
   * from &gt; to or to - from overflows; 300 for a generator of another device. Returns this.
   */
  public Tensor uniform_(double from, double to, Generator gen) {
    return drawInPlace(gen, (h, g) -> ctorch.ct_tensor_uniform_(h, from, to, g));
  }

  /** {@code t.normal_()}: standard normal values. Returns this. */
  public Tensor normal_() {
    return normal_(0.0, 1.0, null);
  }

  /** {@code t.normal_(mean, std)}. Returns this. */
  public Tensor normal_(double mean, double std) {
    return normal_(mean, std, null);
  }

  /**
   * {@code t.normal_(mean, std, generator=gen)}: normal values, for the float dtypes of
   * {@link Tensor#uniform_(double, double, Generator)}. Code 100 when std &lt; 0. Returns this.
   */
  public Tensor normal_(double mean, double std, Generator gen) {
    return drawInPlace(gen, (h, g) -> ctorch.ct_tensor_normal_(h, mean, std, g));
  }

  /**
   * {@code t.random_()}: integers over the dtype's range (bool: 0 or 1; float dtypes: the
   * integers in [0, 2^mantissa digits]), for every real dtype (complex: code 104). Returns this.
   */
  public Tensor random_() {
    return random_(null);
  }

  /** {@code t.random_(generator=gen)}: see {@link Tensor#random_()}. Returns this. */
  public Tensor random_(Generator gen) {
    return drawInPlace(gen, ctorch::ct_tensor_random_);
  }

  /** {@code t.random_(to)}: integers in [0, to). Returns this. */
  public Tensor random_(long to) {
    return random_(0, to, null);
  }

  /** {@code t.random_(to, generator=gen)}: integers in [0, to). Returns this. */
  public Tensor random_(long to, Generator gen) {
    return random_(0, to, gen);
  }

  /** {@code t.random_(from, to)}: integers in [from, to). Returns this. */
  public Tensor random_(long from, long to) {
    return random_(from, to, null);
  }

  /**
   * {@code t.random_(from, to, generator=gen)}: integers in [from, to), for every real dtype.
   * Code 100 when from &gt;= to or a bound does not fit the dtype. Returns this.
   */
  public Tensor random_(long from, long to, Generator gen) {
    return drawInPlace(gen, (h, g) -> ctorch.ct_tensor_random_range_(h, from, to, g));
  }

  /** {@code t.bernoulli_()}: 1 with probability 0.5, else 0. Returns this. */
  public Tensor bernoulli_() {
    return bernoulli_(0.5, null);
  }

  /** {@code t.bernoulli_(p)}. Returns this. */
  public Tensor bernoulli_(double p) {
    return bernoulli_(p, null);
  }

  /**
   * {@code t.bernoulli_(p, generator=gen)}: 1 with probability p, else 0, for every real
   * dtype. Code 100 unless 0 &lt;= p &lt;= 1. Returns this.
   */
  public Tensor bernoulli_(double p, Generator gen) {
    return drawInPlace(gen, (h, g) -> ctorch.ct_tensor_bernoulli_(h, p, g));
  }
}
