package org.ctorch;

/**
 * The result of {@link Tensor#unique(boolean, boolean)}: the distinct values (sorted), and the
 * int64 inverse indices and counts, each {@code null} unless asked for, as PyTorch's tuple.
 * Closing it closes every tensor it holds.
 */
public record UniqueResult(Tensor values, Tensor inverse, Tensor counts) implements AutoCloseable {
  @Override
  public void close() {
    try {
      values.close();
    } finally {
      try {
        if (inverse != null) {
          inverse.close();
        }
      } finally {
        if (counts != null) {
          counts.close();
        }
      }
    }
  }
}
