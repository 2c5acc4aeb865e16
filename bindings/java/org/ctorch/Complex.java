package org.ctorch;

/** A complex number, as {@link Tensor#itemComplex()} returns it. */
public record Complex(double real, double imag) {
  @Override
  public String toString() {
    return "(" + real + (imag < 0 || (imag == 0 && 1 / imag < 0) ? "" : "+") + imag + "j)";
  }
}
