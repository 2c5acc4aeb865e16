package org.ctorch;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.ctorch.swig.ctorch;

/**
 * Saving and loading tensors in the safetensors format (section 27 of ctorch.h;
 * docs/safetensors.md, docs/java.md "Safetensors"): {@code safetensors.torch.save_file} is
 * {@link #saveFile}, {@code save} {@link #save}, {@code safe_open} {@link #open}, {@code load}
 * {@link #load}, {@code load_file} {@link #loadFile}.
 *
 * <pre>{@code
 * SafeTensors.saveFile("model.safetensors", Map.of("w", w), Map.of("format", "pt"));
 * try (SafeTensorsFile f = SafeTensors.open("model.safetensors")) {
 *   Tensor t = f.getTensor("w", Device.cuda(0));
 * }
 * }</pre>
 *
 * <p>Files are written byte for byte as {@code safetensors.torch.save_file} writes them (tensors
 * of any device and strides; null or empty metadata: none). Errors throw
 * {@link CtorchException}: code 100 for a bad name or file (with the reason), 500 for complex128
 * or a format dtype ctorch lacks, 105 for a name the file does not have; a null map, name, key or
 * value throws {@link NullPointerException}, a closed tensor code 102.
 */
public final class SafeTensors {
  static {
    Native.ensureLoaded();
  }

  private SafeTensors() {}

  /** {@code safetensors.torch.save_file(tensors, path, metadata)}. */
  public static void saveFile(String path, Map<String, Tensor> tensors, Map<String, String> metadata) {
    Objects.requireNonNull(path, "path");
    Native.checkNoNul("SafeTensors.saveFile", path);
    Args a = new Args(tensors, metadata);
    Native.run(a.keep, () -> ctorch.ct_safetensors_save_file(path, a.names, a.handles, a.names.length, a.keys,
        a.values, a.keys.length));
  }

  /** {@code safetensors.torch.save(tensors, metadata)}: the file's bytes. */
  public static byte[] save(Map<String, Tensor> tensors, Map<String, String> metadata) {
    Args a = new Args(tensors, metadata);
    try {
      long[] needed = {-1};
      int st = ctorch.ct_safetensors_save_buffer(a.names, a.handles, a.names.length, a.keys, a.values,
          a.keys.length, null, 0, needed);
      if (st != CtorchException.BUFFER_SIZE) {
        Native.check(st); // a bad argument (never CT_OK: a file has at least 16 bytes)
      }
      if (needed[0] > Integer.MAX_VALUE - 8) {
        throw new IllegalArgumentException("a file of " + needed[0] + " bytes does not fit one Java array");
      }
      ByteBuffer buf = ByteBuffer.allocateDirect((int) needed[0]);
      Native.check(ctorch.ct_safetensors_save_buffer(a.names, a.handles, a.names.length, a.keys, a.values,
          a.keys.length, buf, buf.capacity(), needed));
      byte[] r = new byte[(int) needed[0]];
      buf.get(0, r);
      return r;
    } finally {
      java.lang.ref.Reference.reachabilityFence(a.keep);
    }
  }

  /** {@code safetensors.safe_open(path, framework="pt")}: the file mapped and validated. */
  public static SafeTensorsFile open(String path) {
    Objects.requireNonNull(path, "path");
    Native.checkNoNul("SafeTensors.open", path);
    return SafeTensorsFile.wrap(Native.longOut(out -> ctorch.ct_safetensors_open(path, out)));
  }

  /** {@code safetensors.torch.load(data)}: a file held in memory (the library keeps a copy). */
  public static SafeTensorsFile load(byte[] data) {
    Objects.requireNonNull(data, "data");
    ByteBuffer buf = ByteBuffer.allocateDirect(Math.max(data.length, 1));
    buf.put(0, data);
    return SafeTensorsFile.wrap(Native.longOut(out -> ctorch.ct_safetensors_open_buffer(buf, data.length, out)));
  }

  /**
   * {@code safetensors.torch.load_file(path, device)}: every tensor of the file on device, by
   * name (sorted). On failure the tensors made so far are closed.
   */
  public static Map<String, Tensor> loadFile(String path, Device device) {
    Objects.requireNonNull(device, "device");
    try (SafeTensorsFile f = open(path)) {
      Map<String, Tensor> r = new LinkedHashMap<>();
      try {
        for (String k : f.keys()) {
          r.put(k, f.getTensor(k, device));
        }
      } catch (RuntimeException e) {
        r.values().forEach(Tensor::close);
        throw e;
      }
      return r;
    }
  }

  /** Live native safetensors file handles ({@code ct_live_safetensors_count}, for leak checks). */
  public static long liveFileCount() {
    return Native.longOut(ctorch::ct_live_safetensors_count);
  }

  /** The maps as the header's parallel arrays; the tensors' handles checked open. */
  private static final class Args {
    final String[] names;
    final long[] handles;
    final String[] keys;
    final String[] values;
    final Tensor[] keep;

    Args(Map<String, Tensor> tensors, Map<String, String> metadata) {
      Objects.requireNonNull(tensors, "tensors");
      List<String> n = new ArrayList<>();
      List<Tensor> ts = new ArrayList<>();
      for (Map.Entry<String, Tensor> e : tensors.entrySet()) {
        n.add(Objects.requireNonNull(e.getKey(), "a tensor name is null"));
        ts.add(Objects.requireNonNull(e.getValue(), "tensor '" + e.getKey() + "' is null"));
        Native.checkNoNul("SafeTensors", e.getKey());
      }
      names = n.toArray(new String[0]);
      keep = ts.toArray(new Tensor[0]);
      handles = new long[keep.length];
      for (int i = 0; i < keep.length; i++) {
        handles[i] = keep[i].handle();
      }
      List<String> k = new ArrayList<>();
      List<String> v = new ArrayList<>();
      if (metadata != null) {
        for (Map.Entry<String, String> e : metadata.entrySet()) {
          k.add(Objects.requireNonNull(e.getKey(), "a metadata key is null"));
          v.add(Objects.requireNonNull(e.getValue(), "metadata '" + e.getKey() + "' is null"));
          Native.checkNoNul("SafeTensors", e.getKey());
          Native.checkNoNul("SafeTensors", e.getValue());
        }
      }
      keys = k.toArray(new String[0]);
      values = v.toArray(new String[0]);
    }
  }
}
