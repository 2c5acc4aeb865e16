package org.ctorch;

import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

import org.ctorch.swig.ctorch;

/**
 * {@code torch.cuda.comm} for Java (section 20 of ctorch.h, docs/java.md "Communication
 * (NCCL)"): broadcast, reduce_add, scatter and gather between the GPUs of this process, with
 * PyTorch's argument rules and messages. Devices are CUDA device indices. Like PyTorch,
 * broadcast and reduce_add go through NCCL when every tensor is a dense CUDA tensor on a device
 * of its own, and copy on the current streams otherwise; every result is ordered on the current
 * stream of its device (nothing waits for the host).
 *
 * <pre>{@code
 * Tensor[] copies = CudaComm.broadcast(x, 0, 1);            // comm.broadcast(x, [0, 1])
 * Tensor sum = CudaComm.reduceAdd(List.of(a, b), 0);        // comm.reduce_add([a, b], 0)
 * Tensor[] parts = CudaComm.scatter(x, 0, 1);               // comm.scatter(x, [0, 1])
 * Tensor whole = CudaComm.gather(List.of(parts), 0);        // comm.gather(parts)
 * }</pre>
 *
 * <p><b>Results</b> are new {@link Tensor} objects the caller owns (close each one; a
 * {@link TensorScope} takes them), also where PyTorch returns the input itself: a result on the
 * source's own device is a new reference to the source (broadcast, reduce_add of one input) or
 * a view of it (scatter). The {@code *Out} forms write into the caller's tensors and return
 * nothing.
 *
 * <p><b>Arguments</b> the binding checks before the call: a null list, array or element throws
 * {@link NullPointerException} (null entries of {@code streams} are allowed: the current
 * stream), a closed tensor or stream a {@link CtorchException} with code 102, and arrays
 * whose lengths must match (chunk sizes and streams per device, the rows of
 * {@link #reduceAddCoalesced}) {@link IllegalArgumentException}. Everything else (duplicate or
 * negative devices, shapes, dtypes, tensors on the wrong device) is the C library's check, a
 * {@link CtorchException}. <b>Without a GPU</b> every method throws code 301
 * (CT_ERR_CUDA_UNAVAILABLE).
 */
public final class CudaComm {
  static {
    Native.ensureLoaded();
  }

  private CudaComm() {}

  /** The bucket size the {@code *Coalesced} methods default to (10 MiB, as torch.cuda.comm). */
  public static final long DEFAULT_BUFFER_SIZE = ctorch.CT_COMM_DEFAULT_BUFFER_SIZE;

  /* ============================================================================================
   * broadcast
   * ========================================================================================== */

  /**
   * {@code comm.broadcast(tensor, devices)}: tensor (CPU or CUDA) copied to each device;
   * result i is on {@code devices[i]}. On the source's own device the result is the source
   * itself (a new reference to it). Code 300 (CT_ERR_DEVICE) for a negative device.
   */
  public static Tensor[] broadcast(Tensor tensor, int... devices) {
    Objects.requireNonNull(tensor, "tensor");
    Objects.requireNonNull(devices, "devices");
    long[] outs = new long[devices.length];
    try {
      Native.check(ctorch.ct_cuda_comm_broadcast(tensor.handle(), devices, devices.length, outs));
    } finally {
      Reference.reachabilityFence(tensor);
    }
    return Tensor.wrapAll(outs, outs.length);
  }

  /**
   * {@code comm.broadcast(tensor, out=outs)}: copies tensor into each of the CUDA tensors
   * {@code outs} (of tensor's shape; another dtype converts). Codes 300 (an output not on CUDA),
   * 103 (CT_ERR_SHAPE).
   */
  public static void broadcastOut(Tensor tensor, List<Tensor> outs) {
    Objects.requireNonNull(tensor, "tensor");
    long[] hs = TensorBase.handles(outs, "outs");
    try {
      Native.check(ctorch.ct_cuda_comm_broadcast_out(tensor.handle(), hs, hs.length));
    } finally {
      Reference.reachabilityFence(tensor);
      TensorBase.fence(outs);
    }
  }

  /** {@link #broadcastOut(Tensor, List)} with the outputs as arguments. */
  public static void broadcastOut(Tensor tensor, Tensor... outs) {
    broadcastOut(tensor, Arrays.asList(Objects.requireNonNull(outs, "outs")));
  }

  /**
   * {@code comm.broadcast_coalesced(tensors, devices)} with the default bucket size
   * ({@link #DEFAULT_BUFFER_SIZE}).
   */
  public static Tensor[][] broadcastCoalesced(List<Tensor> tensors, int... devices) {
    return broadcastCoalesced(tensors, devices, DEFAULT_BUFFER_SIZE);
  }

  /**
   * {@code comm.broadcast_coalesced(tensors, devices, buffer_size)}: the tensors, all on
   * {@code devices[0]}, broadcast in buckets of about bufferSize bytes ({@code <= 0}: the
   * default). {@code result[d][i]} is {@code tensors.get(i)} on {@code devices[d]}; row 0 holds
   * new references to the inputs themselves. Code 300 when a tensor is not on
   * {@code devices[0]}.
   */
  public static Tensor[][] broadcastCoalesced(List<Tensor> tensors, int[] devices, long bufferSize) {
    long[] hs = TensorBase.handles(tensors, "tensors");
    Objects.requireNonNull(devices, "devices");
    long[] outs = new long[Math.multiplyExact(hs.length, devices.length)];
    try {
      Native.check(ctorch.ct_cuda_comm_broadcast_coalesced(hs, hs.length, devices, devices.length,
          bufferSize, outs));
    } finally {
      TensorBase.fence(tensors);
    }
    Tensor[] flat = Tensor.wrapAll(outs, outs.length);
    Tensor[][] rows = new Tensor[devices.length][];
    for (int d = 0; d < rows.length; d++) {
      rows[d] = Arrays.copyOfRange(flat, d * hs.length, (d + 1) * hs.length);
    }
    return rows;
  }

  /* ============================================================================================
   * reduce_add
   * ========================================================================================== */

  /** {@code comm.reduce_add(inputs)}: the sum on the current device. */
  public static Tensor reduceAdd(List<Tensor> inputs) {
    return reduceAdd(inputs, -1);
  }

  /** {@code comm.reduce_add(inputs)} with the inputs as arguments. */
  public static Tensor reduceAdd(Tensor... inputs) {
    return reduceAdd(Arrays.asList(Objects.requireNonNull(inputs, "inputs")), -1);
  }

  /**
   * {@code comm.reduce_add(inputs, destination)}: the sum of CUDA tensors of one shape, on
   * device destination (-1: the current device), which must hold one of the inputs (PyTorch's
   * rule; one input gives a new reference to that input). Codes 103, 300.
   */
  public static Tensor reduceAdd(List<Tensor> inputs, int destination) {
    long[] hs = TensorBase.handles(inputs, "inputs");
    long[] out = {0};
    try {
      Native.check(ctorch.ct_cuda_comm_reduce_add(hs, hs.length, destination, out));
    } finally {
      TensorBase.fence(inputs);
    }
    return Tensor.wrap(out[0]);
  }

  /** {@code comm.reduce_add_coalesced(inputs, destination)} with the default bucket size. */
  public static Tensor[] reduceAddCoalesced(List<List<Tensor>> inputs, int destination) {
    return reduceAddCoalesced(inputs, destination, DEFAULT_BUFFER_SIZE);
  }

  /**
   * {@code comm.reduce_add_coalesced(inputs, destination, buffer_size)}: inputs holds one row of
   * tensors per device (each row on one device, all rows as long: {@link
   * IllegalArgumentException} otherwise); result i is the sum of column i on destination (-1:
   * the current device), reduced in buckets of about bufferSize bytes ({@code <= 0}: the
   * default).
   */
  public static Tensor[] reduceAddCoalesced(List<List<Tensor>> inputs, int destination, long bufferSize) {
    Objects.requireNonNull(inputs, "inputs");
    List<Tensor> flat = new ArrayList<>();
    int columns = inputs.isEmpty() ? 0 : Objects.requireNonNull(inputs.get(0), "inputs[0]").size();
    for (int d = 0; d < inputs.size(); d++) {
      List<Tensor> row = Objects.requireNonNull(inputs.get(d), "inputs[" + d + "]");
      if (row.size() != columns) {
        throw new IllegalArgumentException("reduceAddCoalesced: inputs[" + d + "] has " + row.size()
            + " tensors, inputs[0] has " + columns + " (one row of the same tensors per device)");
      }
      flat.addAll(row);
    }
    long[] hs = TensorBase.handles(flat, "inputs");
    long[] outs = new long[columns];
    try {
      Native.check(ctorch.ct_cuda_comm_reduce_add_coalesced(hs, inputs.size(), columns, destination,
          bufferSize, outs));
    } finally {
      TensorBase.fence(flat);
    }
    return Tensor.wrapAll(outs, outs.length);
  }

  /* ============================================================================================
   * scatter
   * ========================================================================================== */

  /**
   * {@code comm.scatter(tensor, devices)}: tensor split along dim 0 into equal chunks
   * ({@code tensor.chunk}, which may give fewer chunks than devices), chunk i copied to
   * {@code devices[i]}; the result has one tensor per chunk.
   */
  public static Tensor[] scatter(Tensor tensor, int... devices) {
    return scatter(tensor, devices, null, 0, null);
  }

  /**
   * {@code comm.scatter(tensor, devices, chunk_sizes, dim, streams)}: tensor split along dim,
   * chunk i copied to {@code devices[i]} on {@code streams[i]}. chunkSizes: null for equal
   * chunks, or one size per device summing to tensor's size at dim; streams: null (the current
   * streams) or one per device, entries null for the current stream of that device, each on its
   * device. A chunk on the source's device is a view of the source. Lengths of chunkSizes or
   * streams other than the number of devices: {@link IllegalArgumentException}.
   */
  public static Tensor[] scatter(Tensor tensor, int[] devices, long[] chunkSizes, int dim, Stream[] streams) {
    Objects.requireNonNull(tensor, "tensor");
    Objects.requireNonNull(devices, "devices");
    checkLength("chunkSizes", chunkSizes == null ? -1 : chunkSizes.length, "devices", devices.length);
    long[] ss = streamHandles(streams, "devices", devices.length);
    long[] outs = new long[devices.length];
    int[] n = {0};
    try {
      Native.check(ctorch.ct_cuda_comm_scatter(tensor.handle(), devices, devices.length, chunkSizes, dim, ss,
          outs, n));
    } finally {
      Reference.reachabilityFence(tensor);
      Reference.reachabilityFence(streams);
    }
    return Tensor.wrapAll(outs, n[0]);
  }

  /** {@code comm.scatter(tensor, out=outs)}: along dim 0 on the current streams. */
  public static void scatterOut(Tensor tensor, List<Tensor> outs) {
    scatterOut(tensor, outs, 0, null);
  }

  /**
   * {@code comm.scatter(tensor, dim=dim, streams=streams, out=outs)}: tensor split along dim by
   * the outputs' sizes at dim and copied into the CUDA tensors outs; streams as for
   * {@link #scatter(Tensor, int[], long[], int, Stream[])}, one per output.
   */
  public static void scatterOut(Tensor tensor, List<Tensor> outs, int dim, Stream[] streams) {
    Objects.requireNonNull(tensor, "tensor");
    long[] hs = TensorBase.handles(outs, "outs");
    long[] ss = streamHandles(streams, "outs", hs.length);
    try {
      Native.check(ctorch.ct_cuda_comm_scatter_out(tensor.handle(), hs, hs.length, dim, ss));
    } finally {
      Reference.reachabilityFence(tensor);
      Reference.reachabilityFence(streams);
      TensorBase.fence(outs);
    }
  }

  /* ============================================================================================
   * gather
   * ========================================================================================== */

  /** {@code comm.gather(tensors, dim)}: concatenated along dim on the current CUDA device. */
  public static Tensor gather(List<Tensor> tensors, int dim) {
    return gather(tensors, dim, Device.CUDA);
  }

  /**
   * {@code comm.gather(tensors, dim, destination)}: the CUDA tensors concatenated along dim on
   * destination: {@code Device.CUDA} (the current device), {@code cuda:N} or {@code Device.CPU}
   * (the copies then wait for the GPU). The dtype is the first tensor's. Codes 103, 105 (dim),
   * 300.
   */
  public static Tensor gather(List<Tensor> tensors, int dim, Device destination) {
    Objects.requireNonNull(destination, "destination");
    long[] hs = TensorBase.handles(tensors, "tensors");
    long[] out = {0};
    try {
      Native.check(ctorch.ct_cuda_comm_gather(hs, hs.length, dim, destination.type().code(),
          destination.index(), out));
    } finally {
      TensorBase.fence(tensors);
    }
    return Tensor.wrap(out[0]);
  }

  /**
   * {@code comm.gather(tensors, dim, out=out)}: the same into out (CPU or CUDA), whose shape
   * must be the tensors' concatenated along dim.
   */
  public static void gatherOut(List<Tensor> tensors, int dim, Tensor out) {
    Objects.requireNonNull(out, "out");
    long[] hs = TensorBase.handles(tensors, "tensors");
    try {
      Native.check(ctorch.ct_cuda_comm_gather_out(hs, hs.length, out.handle(), dim));
    } finally {
      Reference.reachabilityFence(out);
      TensorBase.fence(tensors);
    }
  }

  /* ============================================================================================
   * Plumbing
   * ========================================================================================== */

  /** IllegalArgumentException unless an array that is given (length >= 0) has n entries. */
  private static void checkLength(String what, int length, String of, int n) {
    if (length >= 0 && length != n) {
      throw new IllegalArgumentException(what + " has " + length + " entries, " + of + " " + n
          + " (one per device)");
    }
  }

  /** The handles of streams (null: null; null entries: 0, the current stream), n of them. */
  private static long[] streamHandles(Stream[] streams, String of, int n) {
    if (streams == null) {
      return null;
    }
    checkLength("streams", streams.length, of, n);
    long[] hs = new long[n];
    for (int i = 0; i < n; i++) {
      hs[i] = streams[i] == null ? 0 : streams[i].handle();
    }
    return hs;
  }
}
