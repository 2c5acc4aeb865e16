package org.ctorch;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * What the binding adds to the safetensors format (section 27 of ctorch.h): maps marshalled to
 * the header's parallel string arrays (unicode names and metadata as real UTF-8), the file
 * object's lifetime (tensors outliving it, newReference, the Cleaner), errors as exceptions. The
 * format's rules, messages and exact bytes are the C suite's (tests/capi/safetensors_test.c).
 */
public class SafeTensorsTest extends CtorchTestCase {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private static Device testDevice() {
    return Cuda.isAvailable() ? Device.CUDA : Device.CPU;
  }

  @Test
  public void roundTripThroughFileAndBytes() throws Exception {
    long start = SafeTensors.liveFileCount();
    try (TensorScope scope = TensorScope.open()) {
      Tensor w = Tensor.fromArray(new float[] {1, 2, 3, 4, 5, 6}, 2, 3).to(testDevice());
      Map<String, Tensor> tensors = new LinkedHashMap<>();
      tensors.put("w", w);
      tensors.put("wé/😀", w.transpose(0, 1)); // strided: written contiguous
      tensors.put("ids", Tensor.fromArray(new long[] {-7, 1L << 40}));
      Map<String, String> meta = Map.of("format", "pt", "ключ", "значение ✓ 😀");
      Path path = tmp.getRoot().toPath().resolve("m.safetensors");
      SafeTensors.saveFile(path.toString(), tensors, meta);
      byte[] bytes = SafeTensors.save(tensors, meta);
      assertArrayEquals(Files.readAllBytes(path), bytes);

      for (int k = 0; k < 2; k++) {
        SafeTensorsFile f = k == 0 ? SafeTensors.open(path.toString()) : SafeTensors.load(bytes);
        assertEquals(List.of("ids", "w", "wé/😀"), f.keys());
        assertEquals(meta, f.metadata());
        assertEquals(DType.INT64, f.dtype("ids"));
        assertArrayEquals(new long[] {3, 2}, f.shape("wé/😀"));
        Tensor x = f.getTensor("wé/😀");
        assertArrayEquals(new long[] {3, 2}, x.shape());
        assertArrayEquals(new float[] {1, 4, 2, 5, 3, 6}, x.toFloatArray(), 0f);
        Tensor y = f.getTensor("ids", testDevice());
        assertEquals(testDevice().type(), y.device().type());
        assertTrue(f.toString().startsWith("SafeTensorsFile(ids, w, "));
        f.close();
        f.close(); // idempotent
        assertTrue(f.isClosed());
        assertEquals("SafeTensorsFile(closed)", f.toString());
        // the tensors outlive the file: its mapping stays while they do
        assertArrayEquals(new float[] {1, 4, 2, 5, 3, 6}, x.toFloatArray(), 0f);
        assertArrayEquals(new long[] {-7, 1L << 40}, y.toLongArray());
        CtorchException e = assertThrows(CtorchException.class, f::keys);
        assertEquals(CtorchException.INVALID_HANDLE, e.code());
        assertThrows(CtorchException.class, () -> f.getTensor("w"));
      }
      Map<String, Tensor> all = SafeTensors.loadFile(path.toString(), Device.CPU);
      assertEquals(List.of("ids", "w", "wé/😀"), List.copyOf(all.keySet()));
      assertArrayEquals(new float[] {1, 2, 3, 4, 5, 6}, all.get("w").toFloatArray(), 0f);
    }
    assertEquals(start, SafeTensors.liveFileCount());
  }

  @Test
  public void zeroCopyAndCopyOnWrite() throws Exception {
    Path path = tmp.getRoot().toPath().resolve("z.safetensors");
    try (TensorScope scope = TensorScope.open()) {
      SafeTensors.saveFile(path.toString(), Map.of("x", Tensor.fromArray(new double[] {1.5, 2.5})), null);
      byte[] before = Files.readAllBytes(path);
      try (SafeTensorsFile f = SafeTensors.open(path.toString())) {
        assertTrue(f.metadata().isEmpty());
        Tensor a = f.getTensor("x", Device.CPU);
        Tensor b = f.getTensor("x");
        assertEquals("one mapping", a.dataPtr(), b.dataPtr());
        a.fill_(9);
        assertArrayEquals(new double[] {9, 9}, b.toDoubleArray(), 0);
      }
      assertArrayEquals("the file did not change", before, Files.readAllBytes(path));
    }
  }

  @Test
  public void referencesAndCleaner() throws Exception {
    long start = SafeTensors.liveFileCount();
    byte[] empty = SafeTensors.save(Map.of(), null);
    assertEquals("{}      ", new String(empty, 8, 8, StandardCharsets.UTF_8));
    try (SafeTensorsFile f = SafeTensors.load(empty)) {
      SafeTensorsFile g = f.newReference();
      assertEquals(start + 1, SafeTensors.liveFileCount());
      f.close();
      assertTrue(g.keys().isEmpty()); // g's reference keeps the file
      g.close();
    }
    assertEquals(start, SafeTensors.liveFileCount());
    for (int i = 0; i < 4; i++) {
      SafeTensors.load(empty); // dropped without close: the Cleaner releases it
    }
    assertEquals(start, awaitCount(start, SafeTensors::liveFileCount));
  }

  @Test
  public void errors() throws Exception {
    Path dir = tmp.getRoot().toPath();
    String p = dir.resolve("e.safetensors").toString();
    try (TensorScope scope = TensorScope.open()) {
      Tensor x = Tensor.fromArray(new float[] {1});
      Tensor c = x.to(DType.COMPLEX128);
      CtorchException e = assertThrows(CtorchException.class, () -> SafeTensors.saveFile(p, Map.of("__metadata__", x), null));
      assertEquals(CtorchException.ARGUMENT, e.code());
      e = assertThrows(CtorchException.class, () -> SafeTensors.saveFile(p, Map.of("c", c), null));
      assertEquals(CtorchException.NOT_SUPPORTED, e.code());
      assertTrue(e.getMessage(), e.getMessage().contains("torch.complex128"));
      e = assertThrows(CtorchException.class, () -> SafeTensors.save(Map.of("c", c), Map.of()));
      assertEquals(CtorchException.NOT_SUPPORTED, e.code());
      e = assertThrows(CtorchException.class, () -> SafeTensors.saveFile(p, Map.of("a\0b", x), null));
      assertEquals(CtorchException.ARGUMENT, e.code());
      Map<String, Tensor> withNull = new LinkedHashMap<>();
      withNull.put("a", null);
      assertThrows(NullPointerException.class, () -> SafeTensors.saveFile(p, withNull, null));
      Map<String, String> nullValue = new LinkedHashMap<>();
      nullValue.put("k", null);
      assertThrows(NullPointerException.class, () -> SafeTensors.saveFile(p, Map.of("a", x), nullValue));
      assertThrows(NullPointerException.class, () -> SafeTensors.saveFile(null, Map.of(), null));
      assertThrows(NullPointerException.class, () -> SafeTensors.saveFile(p, null, null));
      Tensor closed = Tensor.fromArray(new float[] {1});
      closed.close();
      e = assertThrows(CtorchException.class, () -> SafeTensors.saveFile(p, Map.of("a", closed), null));
      assertEquals(CtorchException.INVALID_HANDLE, e.code());
      e = assertThrows(CtorchException.class,
          () -> SafeTensors.saveFile(dir.resolve("no").resolve("such").toString(), Map.of("a", x), null));
      assertEquals(CtorchException.ARGUMENT, e.code());
      assertTrue(e.getMessage(), e.getMessage().contains("No such file or directory"));
      assertFalse(Files.exists(dir.resolve("e.safetensors")));
    }

    CtorchException e = assertThrows(CtorchException.class, () -> SafeTensors.open(dir.resolve("missing").toString()));
    assertEquals(CtorchException.ARGUMENT, e.code());
    e = assertThrows(CtorchException.class, () -> SafeTensors.load(new byte[0]));
    assertTrue(e.getMessage(), e.getMessage().contains("(HeaderTooSmall)"));
    assertThrows(NullPointerException.class, () -> SafeTensors.load(null));
    assertThrows(NullPointerException.class, () -> SafeTensors.open(null));

    String hdr = "{\"q\":{\"dtype\":\"F8_E4M3\",\"shape\":[2],\"data_offsets\":[0,2]}}";
    byte[] h = hdr.getBytes(StandardCharsets.UTF_8);
    byte[] raw = new byte[8 + h.length + 2];
    raw[0] = (byte) h.length;
    System.arraycopy(h, 0, raw, 8, h.length);
    try (SafeTensorsFile f = SafeTensors.load(raw)) {
      assertArrayEquals(new long[] {2}, f.shape("q"));
      e = assertThrows(CtorchException.class, () -> f.dtype("q"));
      assertEquals(CtorchException.NOT_SUPPORTED, e.code());
      assertTrue(e.getMessage(), e.getMessage().contains("F8_E4M3"));
      e = assertThrows(CtorchException.class, () -> f.getTensor("q"));
      assertEquals(CtorchException.NOT_SUPPORTED, e.code());
      e = assertThrows(CtorchException.class, () -> f.getTensor("nope", Device.CPU));
      assertEquals(CtorchException.INDEX, e.code());
      e = assertThrows(CtorchException.class, () -> f.shape("nope"));
      assertEquals(CtorchException.INDEX, e.code());
      assertThrows(NullPointerException.class, () -> f.getTensor(null));
      assertThrows(NullPointerException.class, () -> f.getTensor("q", null));
      e = assertThrows(CtorchException.class, () -> f.dtype("q\0"));
      assertEquals(CtorchException.ARGUMENT, e.code());
    }
  }

  @Test
  public void cudaLoad() throws Exception {
    assumeCuda();
    Path path = tmp.getRoot().toPath().resolve("g.safetensors");
    try (TensorScope scope = TensorScope.open()) {
      SafeTensors.saveFile(path.toString(), Map.of("h", Tensor.fromArray(new float[] {1, -2}).to(DType.FLOAT16)), null);
      Map<String, Tensor> all = SafeTensors.loadFile(path.toString(), Device.cuda(0));
      assertTrue(all.get("h").device().isCuda());
      assertArrayEquals(new float[] {1, -2}, all.get("h").to(Device.CPU, DType.FLOAT32).toFloatArray(), 0f);
    }
  }
}
