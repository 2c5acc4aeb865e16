package org.ctorch;

/**
 * The result of {@link Tensor#varMean} / {@link Tensor#stdMean}: the variance (or standard
 * deviation) and the mean, as PyTorch's tuple. Closing it closes both tensors.
 */
public record StatMean(Tensor stat, Tensor mean) implements AutoCloseable {
  @Override
  public void close() {
    try {
      stat.close();
    } finally {
      mean.close();
    }
  }
}
