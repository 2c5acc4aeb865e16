package org.ctorch;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

/**
 * The seed's device-agnostic examples (PyTorch's to(device) tutorials), on "cuda" when it is
 * available and on "cpu" otherwise.
 */
public class SeedExamplesTest extends CtorchTestCase {

  /**
   * tensor = torch.tensor([1,2,3]); print(tensor, tensor.device)
   * device = "cuda" if torch.cuda.is_available() else "cpu"
   * tensor_on_gpu = tensor.to(device)
   * tensor_back_on_cpu = tensor_on_gpu.cpu().numpy()
   */
  @Test
  public void tensorToDeviceAndBack() {
    try (Tensor tensor = Tensor.fromArray(new long[] {1, 2, 3})) {
      assertEquals("tensor([1, 2, 3])", tensor.toString());
      assertEquals("cpu", tensor.device().toString());
      assertEquals(Device.CPU, tensor.device());

      Device device = device();
      try (Tensor onDevice = tensor.to(device);
          Tensor back = onDevice.cpu()) {
        assertEquals(device.type(), onDevice.device().type());
        if (device.isCuda()) {
          // A CUDA tensor reports a concrete index and prints it.
          assertEquals(Device.cuda(0), onDevice.device());
          assertEquals("tensor([1, 2, 3], device='cuda:0')", onDevice.toString());
          assertFalse(onDevice.isSame(tensor));
        } else {
          // Already there: to() gives back the very same tensor, as in PyTorch.
          assertTrue(onDevice.isSame(tensor));
          assertEquals("tensor([1, 2, 3])", onDevice.toString());
        }
        assertEquals(Device.CPU, back.device());
        assertArrayEquals(new long[] {1, 2, 3}, back.toLongArray());
        // The original is still on the CPU, unchanged.
        assertEquals(Device.CPU, tensor.device());
      }
    }
  }

  /** device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu"). */
  @Test
  public void deviceChoiceFromAvailability() {
    boolean available = Cuda.isAvailable();
    Device device = Device.parse(available ? "cuda:0" : "cpu");
    // (device() below may still be "cpu" on a GPU host: see CtorchTestCase.device())
    assertEquals(available ? "cuda:0" : "cpu", device.toString());
    assertEquals(available, Cuda.deviceCount() > 0);
    assertEquals(available ? DeviceType.CUDA : DeviceType.CPU, device.type());
  }

  /**
   * x = torch.rand(2); y = x + other (a new tensor); x.add_(other) (in place, x changes).
   * With fixed values instead of random ones.
   */
  @Test
  public void outOfPlaceThenInPlaceAdd() {
    Device device = device();
    try (Tensor x = moved(Tensor.fromArray(new float[] {0.25f, 0.5f}), device);
        Tensor other = moved(Tensor.fromArray(new float[] {1f, 2f}), device);
        Tensor y = x.add(other)) {
      assertValues(y, 1.25f, 2.5f);
      assertValues(x, 0.25f, 0.5f); // x is unchanged by x + other
      assertFalse(y.sharesStorage(x));

      Tensor same = x.add_(other);
      assertTrue(same == x); // in-place ops return the tensor itself
      assertValues(x, 1.25f, 2.5f);
      assertEquals(device.type(), x.device().type());
    }
  }

  /** Results of operations on device tensors stay on that device ("derived tensors too"). */
  @Test
  public void derivedTensorsStayOnDevice() {
    Device device = device();
    try (Tensor a = Tensor.ones(new long[] {2, 2}, DType.FLOAT32, device);
        Tensor b = Tensor.full(new long[] {2, 2}, 3.0, DType.FLOAT32, device);
        Tensor c = a.add(b);
        Tensor d = c.mul(2);
        Tensor s = d.sum();
        Tensor cpu = d.cpu()) {
      assertEquals(device.type(), c.device().type());
      assertEquals(device.type(), d.device().type());
      assertEquals(device.type(), s.device().type());
      assertEquals(32.0, s.item(), 0.0);
      assertValues(cpu, 8f, 8f, 8f, 8f);
      assertNotEquals(null, cpu.toString());
    }
  }
}
