package org.ctorch;

import java.nio.ByteBuffer;
import java.util.Objects;

import org.ctorch.swig.ctorch;

/**
 * A random number generator: {@code torch.Generator} for Java (section 16 of ctorch.h).
 *
 * <p>Every device draws from a Philox4x32-10 generator whose state is a seed and an offset, as
 * {@code torch.cuda}'s; the CPU's too (unlike PyTorch's Mersenne Twister), so a CPU tensor
 * gets the same uniform and integer values as a CUDA tensor would with the same seed and
 * calls, and every state is the same {@value #STATE_SIZE} bytes. The random ops
 * ({@link Tensor#rand}, {@link Tensor#uniform_}, ...) take an optional {@code Generator};
 * without one (or with {@code null}) they draw from the default generator of the tensor's
 * device ({@link #defaultGenerator(Device)}), which {@link Torch#manualSeed} and
 * {@link Cuda#manualSeed} seed. Generators are thread-safe.
 *
 * <p><b>Ownership</b> is that of {@link Tensor}, {@link Stream} and {@link Event}: a
 * {@code Generator} owns one reference to a native generator handle; close it
 * (try-with-resources; {@link #close()} is idempotent), or the {@link java.lang.ref.Cleaner} releases it some
 * time after the object becomes unreachable. Every factory returns a new object the caller
 * owns, also for a default generator (closing it releases only that reference: the default
 * generator itself lives as long as the process). Using a closed generator throws a
 * {@link CtorchException} with code 102 (CT_ERR_INVALID_HANDLE). Generators do not belong to a
 * {@link TensorScope}.
 *
 * <p><b>Seeds</b> are unsigned 64-bit values in PyTorch; Java's {@code long} carries the same
 * 64 bits, so {@code manualSeed(-1)} is {@code torch.manual_seed(-1)} (seed 2^64 - 1), and a
 * seed read back with {@link #initialSeed()} may be negative: print it as torch does with
 * {@link Long#toUnsignedString(long)}.
 *
 * <p>A CPU generator needs no GPU; a CUDA generator (and a CUDA default generator) needs one:
 * without it the factories throw code 301 (CT_ERR_CUDA_UNAVAILABLE). {@code equals} is
 * identity, as for any resource.
 */
public final class Generator extends NativeObject {
  static {
    Native.ensureLoaded();
  }

  /** Bytes of a generator state ({@code CT_RNG_STATE_SIZE}): the seed, then the Philox offset. */
  public static final int STATE_SIZE = 16;

  /** PyTorch's default seed, 67280421310721 ({@code CT_DEFAULT_SEED}), of every new generator. */
  public static final long DEFAULT_SEED = 67280421310721L;

  private final Device device;

  private Generator(long handle, Device device) {
    super(handle, ctorch::ct_generator_release, "Generator");
    this.device = device;
  }

  /** Takes ownership of a [new reference] generator handle; on failure the handle is released. */
  private static Generator wrap(long handle) {
    try {
      return new Generator(handle,
          Device.out(null, (type, index) -> ctorch.ct_generator_device(handle, type, index)));
    } catch (Throwable e) {
      ctorch.ct_generator_release(handle);
      throw e;
    }
  }

  /** A C function that makes a generator for a device: (type, index, out) -> status. */
  @FunctionalInterface
  private interface DeviceCall {
    int call(int type, int index, long[] out);
  }

  /** The generator {@code call} makes for {@code device}. */
  private static Generator ofDevice(Device device, DeviceCall call) {
    Objects.requireNonNull(device, "device");
    return wrap(Native.longOut(out -> call.call(device.type().code(), device.index(), out)));
  }

  /** The handle of an optional generator argument: 0 (the default generator) for null. */
  static long handleOf(Generator g) {
    return g == null ? 0 : g.handle();
  }

  /* ============================================================================================
   * Factories
   * ========================================================================================== */

  /** {@code torch.Generator()}: a new CPU generator, seeded with {@link #DEFAULT_SEED}. */
  public static Generator create() {
    return create(Device.CPU);
  }

  /**
   * {@code torch.Generator(device)}: a new generator for device, seeded with
   * {@link #DEFAULT_SEED}. {@code Device.CUDA} (no index) is the current CUDA device; the
   * generator's {@link #device()} then names it. A CUDA device needs a GPU (code 301 without
   * one, 105 for an index that is not visible).
   */
  public static Generator create(Device device) {
    return ofDevice(device, ctorch::ct_generator_create);
  }

  /** {@code torch.default_generator}: the CPU's default generator (a new reference to it). */
  public static Generator defaultGenerator() {
    return defaultGenerator(Device.CPU);
  }

  /**
   * The default generator of a device: the CPU's ({@code torch.default_generator}) or
   * {@code torch.cuda.default_generators[i]} ({@code Device.CUDA}: the current device's). The
   * ops draw from it when they are given no generator. A new reference, to close; the
   * generator itself is never destroyed. A CUDA device needs a GPU (code 301 without one).
   */
  public static Generator defaultGenerator(Device device) {
    return ofDevice(device, ctorch::ct_default_generator);
  }

  /* ============================================================================================
   * Properties and state
   * ========================================================================================== */

  /**
   * {@code generator.device}: {@code cpu} or {@code cuda:N} (always with an index). Fixed at
   * creation, so it also works on a closed generator.
   */
  public Device device() {
    return device;
  }

  /**
   * {@code generator.manual_seed(seed)}: sets the seed (any 64 bits; a negative value stands
   * for the same bits, as in torch) and starts the offset again at 0. Returns this, as torch.
   */
  public Generator manualSeed(long seed) {
    Native.run(this, () -> ctorch.ct_generator_manual_seed(handle(), seed));
    return this;
  }

  /**
   * {@code generator.seed()}: sets a non-deterministic seed (the offset starts again at 0) and
   * returns it (its 64 bits as a {@code long}).
   */
  public long seed() {
    return Native.longOut(this, out -> ctorch.ct_generator_seed(handle(), out));
  }

  /** {@code generator.initial_seed()}: the seed last set (its 64 bits as a {@code long}). */
  public long initialSeed() {
    return Native.longOut(this, out -> ctorch.ct_generator_initial_seed(handle(), out));
  }

  /**
   * The Philox offset, in 32-bit values: 0 after seeding, advanced by a multiple of 4 by every
   * random op that draws from this generator ({@code generator.get_offset()}).
   */
  public long offset() {
    return Native.longOut(this, out -> ctorch.ct_generator_offset(handle(), out));
  }

  /**
   * {@code generator.get_state()}: {@value #STATE_SIZE} bytes, the seed (uint64) then the
   * Philox offset (int64), little-endian, as {@code torch.cuda.get_rng_state}. A new array.
   */
  public byte[] getState() {
    ByteBuffer buf = Native.hostBuffer(STATE_SIZE);
    long[] needed = {0};
    Native.run(this, () -> ctorch.ct_generator_get_state(handle(), buf, STATE_SIZE, needed));
    byte[] state = new byte[STATE_SIZE];
    buf.get(0, state);
    return state;
  }

  /**
   * {@code generator.set_state(state)} from {@link #getState()}'s bytes (of any generator, CPU
   * or CUDA: the format is the same): the next draws repeat those that followed
   * {@code getState()}. Code 100 (CT_ERR_ARGUMENT) for a length other than
   * {@value #STATE_SIZE}, or an offset that is negative or not a multiple of 4; the state is
   * then unchanged. A null state throws {@link NullPointerException}. Returns this.
   */
  public Generator setState(byte[] state) {
    Objects.requireNonNull(state, "state");
    ByteBuffer buf = Native.hostBuffer(state.length);
    buf.put(0, state);
    Native.run(this, () -> ctorch.ct_generator_set_state(handle(), buf, state.length));
    return this;
  }

  /* ============================================================================================
   * Lifetime, printing
   * ========================================================================================== */

  /**
   * Another owning reference to this very same native generator (ct_generator_retain), with
   * its own lifetime: seeding through one is seen through the other. Close it independently.
   */
  public Generator newReference() {
    return newReference(ctorch::ct_generator_retain, ctorch::ct_generator_release, h -> new Generator(h, device));
  }

  /** E.g. {@code <torch.Generator device=cpu>} ({@code (closed)} added once closed). */
  @Override
  public String toString() {
    return "<torch.Generator device=" + device + (isClosed() ? " (closed)>" : ">");
  }
}
