package org.ctorch;

import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.ctorch.swig.ctorch;

/**
 * An open safetensors file ({@code safetensors.safe_open}, section 27 of ctorch.h): its
 * {@link #keys()} (sorted), {@link #metadata()} and tensors ({@link #getTensor}). The file is
 * mapped privately: a CPU tensor is the mapped bytes themselves (zero-copy; writing into it
 * never changes the file) and keeps the mapping alive after the file is closed.
 *
 * <p><b>Ownership</b> is that of {@link Stream}: a {@code SafeTensorsFile} owns one reference to
 * the native file; close it (try-with-resources; idempotent), or the
 * {@link java.lang.ref.Cleaner} releases it some time after it becomes unreachable. A closed one
 * throws code 102. Calls from several threads at once are safe.
 */
public final class SafeTensorsFile extends NativeObject {
  static {
    Native.ensureLoaded();
  }

  private SafeTensorsFile(long handle) {
    super(handle, ctorch::ct_safetensors_release, "SafeTensorsFile");
  }

  /** Takes ownership of a [new reference] handle; on failure it is released. */
  static SafeTensorsFile wrap(long handle) {
    try {
      return new SafeTensorsFile(handle);
    } catch (Throwable e) {
      ctorch.ct_safetensors_release(handle);
      throw e;
    }
  }

  /** Another object for the same open file ({@code ct_safetensors_retain}). Close both. */
  public SafeTensorsFile newReference() {
    return newReference(ctorch::ct_safetensors_retain, ctorch::ct_safetensors_release, SafeTensorsFile::wrap);
  }

  /** {@code f.keys()}: the tensors' names, sorted. */
  public List<String> keys() {
    try {
      long h = handle();
      long n = Native.longOut(out -> ctorch.ct_safetensors_count(h, out));
      List<String> r = new ArrayList<>();
      for (long i = 0; i < n; i++) {
        long j = i;
        r.add(Native.string((buf, cap, needed) -> ctorch.ct_safetensors_name(h, j, buf, cap, needed)));
      }
      return r;
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** {@code f.metadata()}: "__metadata__" in key order (empty when the header has none). */
  public Map<String, String> metadata() {
    try {
      long h = handle();
      long n = Native.longOut(out -> ctorch.ct_safetensors_metadata_count(h, out));
      Map<String, String> r = new LinkedHashMap<>();
      for (long i = 0; i < n; i++) {
        long j = i;
        String k = Native.string((buf, cap, needed) -> ctorch.ct_safetensors_metadata_key(h, j, buf, cap, needed));
        r.put(k, Native.string((buf, cap, needed) -> ctorch.ct_safetensors_metadata_get(h, k, buf, cap, needed)));
      }
      return r;
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** The dtype of a tensor without loading it (code 500 for a format dtype ctorch lacks). */
  public DType dtype(String name) {
    check(name);
    return DType.fromCode(Native.intOut(this, out -> ctorch.ct_safetensors_tensor_dtype(handle(), name, out)));
  }

  /** The shape of a tensor without loading it (any format dtype). */
  public long[] shape(String name) {
    check(name);
    try {
      long h = handle();
      int[] nd = {0};
      int st = ctorch.ct_safetensors_tensor_shape(h, name, null, 0, nd);
      if (st != CtorchException.BUFFER_SIZE) {
        Native.check(st);
      }
      long[] r = new long[nd[0]];
      Native.check(ctorch.ct_safetensors_tensor_shape(h, name, r, r.length, nd));
      return r;
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** {@code f.get_tensor(name)} on the CPU: the mapped bytes (zero-copy, copy-on-write). */
  public Tensor getTensor(String name) {
    return getTensor(name, Device.CPU);
  }

  /** {@code f.get_tensor(name)} on device: on CUDA a copy on the device. */
  public Tensor getTensor(String name, Device device) {
    check(name);
    Objects.requireNonNull(device, "device");
    return Tensor.wrap(Native.longOut(this, out -> ctorch.ct_safetensors_get_tensor(handle(), name,
        device.type().code(), device.index(), out)));
  }

  private static void check(String name) {
    Objects.requireNonNull(name, "name");
    Native.checkNoNul("SafeTensorsFile", name);
  }

  @Override
  public String toString() {
    if (isClosed()) {
      return "SafeTensorsFile(closed)";
    }
    return "SafeTensorsFile(" + String.join(", ", keys()) + ")";
  }
}
