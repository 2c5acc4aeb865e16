package org.ctorch;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.HashSet;
import java.util.Set;

import org.junit.Test;

/** Devices, dtypes, CUDA enumeration and library-wide settings. */
public class DeviceDTypeTest extends CtorchTestCase {

  @Test
  public void parseAndPrintDevices() {
    Device cpu = Device.parse("cpu");
    assertEquals(DeviceType.CPU, cpu.type());
    assertEquals(-1, cpu.index());
    assertFalse(cpu.hasIndex());
    assertEquals("cpu", cpu.toString());
    assertEquals(Device.CPU, cpu);

    Device cuda = Device.parse("cuda");
    assertEquals(DeviceType.CUDA, cuda.type());
    assertEquals(-1, cuda.index());
    assertEquals("cuda", cuda.toString());
    assertEquals(Device.CUDA, cuda);

    Device cuda1 = Device.parse("cuda:1");
    assertEquals(DeviceType.CUDA, cuda1.type());
    assertEquals(1, cuda1.index());
    assertTrue(cuda1.hasIndex());
    assertTrue(cuda1.isCuda());
    assertEquals("cuda:1", cuda1.toString());
    assertEquals(Device.cuda(1), cuda1);

    Device cpu0 = Device.parse("cpu:0");
    assertEquals(DeviceType.CPU, cpu0.type());
    assertEquals(0, cpu0.index());
    assertEquals("cpu:0", cpu0.toString());
    assertTrue(cpu0.isCpu());

    assertEquals("cuda:12", Device.parse("cuda:12").toString());
    assertEquals("cuda:0", Device.of(DeviceType.CUDA, 0).toString());
    assertEquals("cuda", DeviceType.CUDA.toString());
    assertEquals("cpu", DeviceType.CPU.toString());
  }

  @Test
  public void deviceEqualityAndHashing() {
    // As torch.device: "cuda" (the current device) and "cuda:0" are different devices.
    assertNotEquals(Device.parse("cuda"), Device.parse("cuda:0"));
    assertNotEquals(Device.parse("cpu"), Device.parse("cpu:0"));
    assertNotEquals(Device.cuda(0), Device.cuda(1));
    assertEquals(Device.parse("cuda:3"), Device.cuda(3));
    assertEquals(Device.parse("cuda:3").hashCode(), Device.cuda(3).hashCode());
    assertSame(Device.CPU, Device.of(DeviceType.CPU, -1));
    Set<Device> set = new HashSet<>();
    set.add(Device.parse("cuda:0"));
    set.add(Device.cuda(0));
    set.add(Device.CPU);
    set.add(Device.parse("cpu"));
    assertEquals(2, set.size());
    assertFalse(Device.CPU.equals("cpu"));
  }

  @Test
  public void badDeviceStrings() {
    for (String s : new String[] {"gpu", "cuda:x", ""}) {
      CtorchException e = assertStatus(CtorchException.DEVICE_STRING, () -> Device.parse(s));
      assertEquals("CT_ERR_DEVICE_STRING", e.statusName());
      assertFalse("message for '" + s + "'", e.detail().isEmpty());
    }
    assertThrows(NullPointerException.class, () -> Device.parse(null));
  }

  @Test
  public void invalidDeviceCannotBePrinted() {
    CtorchException e = assertStatus(CtorchException.ARGUMENT,
        () -> Device.of(DeviceType.CUDA, -5).toString());
    assertEquals("CT_ERR_ARGUMENT", e.statusName());
  }

  @Test
  public void dtypeNamesAndSizes() {
    // The table's values are the C suite's and tests/abi's; here: each of the 12 generated
    // constants agrees with the library's name (ct_dtype_name) and round-trips, and a few
    // values come through the JNI calls unchanged.
    assertEquals(12, DType.values().length);
    for (DType d : DType.values()) {
      assertEquals("torch." + d.shortName(), d.toString());
      assertSame(d, DType.fromCode(d.code()));
      assertSame(d, DType.fromName(d.toString()));
      assertSame(d, DType.fromName(d.shortName()));
    }
    assertEquals("torch.complex128", DType.COMPLEX128.toString());
    assertEquals(16, DType.COMPLEX128.itemSize());
    assertEquals(2, DType.BFLOAT16.itemSize());
    assertEquals(15, DType.BFLOAT16.code());
    assertEquals(1, DType.BOOL.itemSize());
    assertSame(DType.FLOAT32, DType.fromName("float"));
    assertSame(DType.FLOAT64, DType.fromName("torch.double"));
    assertSame(DType.FLOAT16, DType.fromName("half"));
    assertSame(DType.INT64, DType.fromName("long"));
    assertSame(DType.INT32, DType.fromName("int"));
    assertSame(DType.INT16, DType.fromName("short"));
    assertSame(DType.COMPLEX64, DType.fromName("cfloat"));
    assertSame(DType.COMPLEX128, DType.fromName("cdouble"));
    assertThrows(IllegalArgumentException.class, () -> DType.fromName("float8"));
    assertThrows(IllegalArgumentException.class, () -> DType.fromCode(8));
    assertTrue(DType.BFLOAT16.isFloatingPoint());
    assertFalse(DType.INT64.isFloatingPoint());
    assertTrue(DType.COMPLEX64.isComplex());
    assertTrue(DType.BOOL.isIntegral(true));
    assertFalse(DType.BOOL.isIntegral(false));
    assertEquals("float32", DType.FLOAT32.shortName());
  }

  /** The three entry points of promote_types reach ct_promote_types (its table is C's). */
  @Test
  public void promoteTypes() {
    assertSame(DType.INT16, DType.promoteTypes(DType.UINT8, DType.INT8));
    assertSame(DType.INT16, Torch.promoteTypes(DType.INT8, DType.UINT8));
    assertSame(DType.COMPLEX128, DType.FLOAT64.promoteTypes(DType.COMPLEX64));
  }

  @Test
  public void cudaEnumeration() {
    boolean available = Cuda.isAvailable();
    int count = Cuda.deviceCount();
    assertEquals(available, count > 0);
    if (!available) {
      assertEquals(0, count);
      CtorchException e = assertStatus(CtorchException.CUDA_UNAVAILABLE, Cuda::checkAvailable);
      assertEquals("CT_ERR_CUDA_UNAVAILABLE", e.statusName());
      assertFalse("a reason is given", e.detail().isEmpty());
      assertStatus(CtorchException.CUDA_UNAVAILABLE, () -> Cuda.deviceName(0));
      assertStatus(CtorchException.CUDA_UNAVAILABLE, () -> Cuda.deviceCapability(0));
      assertStatus(CtorchException.CUDA_UNAVAILABLE, () -> Cuda.totalMemory(0));
      assertStatus(CtorchException.CUDA_UNAVAILABLE, () -> Cuda.multiProcessorCount(0));
      assertStatus(CtorchException.CUDA_UNAVAILABLE,
          () -> Cuda.deviceProperty(0, Cuda.Property.WARP_SIZE));
      assertStatus(CtorchException.CUDA_UNAVAILABLE, () -> Cuda.deviceProperties(0));
      // Tensors cannot go there either.
      assertStatus(CtorchException.CUDA_UNAVAILABLE,
          () -> Tensor.zeros(new long[] {2}, DType.FLOAT32, Device.CUDA));
      try (Tensor t = Tensor.ones(2)) {
        assertStatus(CtorchException.CUDA_UNAVAILABLE, () -> t.to(Device.parse("cuda:0")));
        assertStatus(CtorchException.CUDA_UNAVAILABLE, t::cuda);
      }
    } else {
      Cuda.checkAvailable();
      for (int d = 0; d < count; d++) {
        String name = Cuda.deviceName(d);
        assertFalse(name.isEmpty());
        Cuda.Capability cap = Cuda.deviceCapability(d);
        assertTrue(cap.major() >= 3);
        assertEquals(cap.major(), Cuda.deviceProperty(d, Cuda.Property.MAJOR));
        assertEquals(cap.minor(), Cuda.deviceProperty(d, Cuda.Property.MINOR));
        assertTrue(Cuda.totalMemory(d) > (1L << 30));
        assertTrue(Cuda.multiProcessorCount(d) > 0);
        Cuda.DeviceProperties p = Cuda.deviceProperties(d);
        assertEquals(name, p.name());
        assertEquals(32, p.warpSize());
        assertEquals(Cuda.totalMemory(d), p.totalMemory());
      }
      assertStatus(CtorchException.INDEX, () -> Cuda.deviceName(count));
      assertStatus(CtorchException.INDEX, () -> Cuda.deviceCapability(-1));
    }
  }

  @Test
  public void versionAndThreads() {
    Torch.Version v = Torch.version();
    assertEquals(0, v.major());
    assertEquals(1, v.minor());
    assertTrue(v.patch() >= 0);
    assertEquals("0.1." + v.patch(), v.toString());

    int before = Torch.getNumThreads();
    assertTrue(before >= 1);
    try {
      Torch.setNumThreads(3);
      assertEquals(3, Torch.getNumThreads());
      Torch.setNumThreads(1);
      assertEquals(1, Torch.getNumThreads());
      assertStatus(CtorchException.ARGUMENT, () -> Torch.setNumThreads(0));
      assertStatus(CtorchException.ARGUMENT, () -> Torch.setNumThreads(-2));
      assertEquals(1, Torch.getNumThreads());
    } finally {
      Torch.setNumThreads(before);
    }
    assertEquals(before, Torch.getNumThreads());
  }
}
