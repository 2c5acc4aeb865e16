package org.ctorch;

/**
 * The result of {@link Tensor#max(int, boolean)} / {@link Tensor#min(int, boolean)}: the
 * values and their int64 indices, as PyTorch's {@code torch.return_types.max}. Closing it
 * closes both tensors.
 */
public record ValuesIndices(Tensor values, Tensor indices) implements AutoCloseable {
  @Override
  public void close() {
    try {
      values.close();
    } finally {
      indices.close();
    }
  }
}
