package org.ctorch;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

import org.ctorch.swig.ctorch;

/**
 * {@link Cuda}'s seeds and states of the CUDA devices' default generators.
 */
abstract class CudaRandom extends CudaMemory {
  /* ============================================================================================
   * Random numbers: the default generators of the CUDA devices (torch.cuda.manual_seed...)
   *
   * Each CUDA device has a default Generator (Generator.defaultGenerator(Device.cuda(i))) that
   * the random ops use for its tensors when given none. A state is Generator.STATE_SIZE bytes
   * (seed, then Philox offset), as torch.cuda.get_rng_state's ByteTensor.
   * ========================================================================================== */

  /**
   * {@code torch.cuda.manual_seed(seed)}: seeds the current device's default generator (its
   * offset starts again at 0). Without CUDA it does nothing, as in torch. A negative seed
   * stands for the same 64 bits.
   */
  public static void manualSeed(long seed) {
    Native.check(ctorch.ct_cuda_manual_seed(seed));
  }

  /**
   * {@code torch.cuda.manual_seed_all(seed)}: seeds every CUDA device's default generator.
   * Without CUDA it does nothing.
   */
  public static void manualSeedAll(long seed) {
    Native.check(ctorch.ct_cuda_manual_seed_all(seed));
  }

  /**
   * {@code torch.cuda.seed()}: seeds the current device's default generator with a
   * non-deterministic seed (read it with {@link Cuda#initialSeed()}). Without CUDA it does nothing.
   */
  public static void seed() {
    Native.check(ctorch.ct_cuda_seed());
  }

  /**
   * {@code torch.cuda.seed_all()}: seeds every CUDA device's default generator with one
   * non-deterministic seed. Without CUDA it does nothing.
   */
  public static void seedAll() {
    Native.check(ctorch.ct_cuda_seed_all());
  }

  /**
   * {@code torch.cuda.initial_seed()}: the seed of the current device's default generator (its
   * 64 bits as a {@code long}). Code 301 without CUDA.
   */
  public static long initialSeed() {
    return Native.longOut(ctorch::ct_cuda_initial_seed);
  }

  /** {@code torch.cuda.get_rng_state()}: the current device's default generator's state. */
  public static byte[] getRngState() {
    return getRngState(-1);
  }

  /**
   * {@code torch.cuda.get_rng_state(device)} (-1: the current device): the
   * {@link Generator#STATE_SIZE} bytes of that device's default generator (seed, then Philox
   * offset, little-endian). A new array. Code 301 without CUDA, 105 for a device that is not
   * visible.
   */
  public static byte[] getRngState(int device) {
    ByteBuffer buf = Native.hostBuffer(Generator.STATE_SIZE);
    long[] needed = {0};
    Native.check(ctorch.ct_cuda_get_rng_state(device, buf, Generator.STATE_SIZE, needed));
    byte[] state = new byte[Generator.STATE_SIZE];
    buf.get(0, state);
    return state;
  }

  /** {@code torch.cuda.set_rng_state(state)} on the current device. */
  public static void setRngState(byte[] state) {
    setRngState(state, -1);
  }

  /**
   * {@code torch.cuda.set_rng_state(state, device)} (-1: the current device): the state of
   * {@link Cuda#getRngState(int)} (or of any {@link Generator#getState()}). Code 100
   * (CT_ERR_ARGUMENT, state unchanged) for a length other than {@link Generator#STATE_SIZE} or
   * a bad offset, 301 without CUDA, 105 for a device that is not visible. A null state throws
   * {@link NullPointerException}.
   */
  public static void setRngState(byte[] state, int device) {
    Objects.requireNonNull(state, "state");
    ByteBuffer buf = Native.hostBuffer(state.length);
    buf.put(0, state);
    Native.check(ctorch.ct_cuda_set_rng_state(buf, state.length, device));
  }

  /**
   * {@code torch.cuda.get_rng_state_all()}: the state of every device's default generator,
   * one array per device in device order. Unmodifiable; empty without CUDA.
   */
  public static List<byte[]> getRngStateAll() {
    long[] needed = {0};
    int st = ctorch.ct_cuda_get_rng_state_all(null, 0, needed);
    if (st == Native.CT_OK) {
      return List.of(); // no device: nothing to read
    }
    if (st != CtorchException.BUFFER_SIZE) {
      throw Native.lastError(st);
    }
    ByteBuffer buf = Native.hostBuffer(needed[0]);
    long cap = buf.limit();
    Native.check(ctorch.ct_cuda_get_rng_state_all(buf, cap, needed));
    int n = (int) (cap / Generator.STATE_SIZE);
    List<byte[]> states = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      byte[] state = new byte[Generator.STATE_SIZE];
      buf.get(i * Generator.STATE_SIZE, state);
      states.add(state);
    }
    return Collections.unmodifiableList(states);
  }

  /**
   * {@code torch.cuda.set_rng_state_all(states)}: one state per visible device, in device
   * order, as {@link Cuda#getRngStateAll()} gives them. Every state is checked before any is set;
   * code 100 (CT_ERR_ARGUMENT, nothing changed) for a state that is not
   * {@link Generator#STATE_SIZE} bytes, a bad offset, or a number of states other than
   * {@link Cuda#deviceCount()} (so without CUDA only the empty list is accepted). Null throws
   * {@link NullPointerException}.
   */
  public static void setRngStateAll(List<byte[]> states) {
    Objects.requireNonNull(states, "states");
    int n = states.size();
    for (int i = 0; i < n; i++) {
      byte[] state = Objects.requireNonNull(states.get(i), "states[" + i + "]");
      if (state.length != Generator.STATE_SIZE) {
        throw new CtorchException(CtorchException.ARGUMENT,
            CtorchException.statusName(CtorchException.ARGUMENT),
            "setRngStateAll: states[" + i + "] is " + state.length + " bytes, expected "
                + Generator.STATE_SIZE + " (seed and Philox offset, as torch.cuda.get_rng_state)");
      }
    }
    long len = (long) n * Generator.STATE_SIZE;
    ByteBuffer buf = n == 0 ? null : Native.hostBuffer(len);
    for (int i = 0; i < n; i++) {
      buf.put(i * Generator.STATE_SIZE, states.get(i));
    }
    Native.check(ctorch.ct_cuda_set_rng_state_all(buf, len));
  }
}
