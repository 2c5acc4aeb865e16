package org.ctorch;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Closes every tensor created on this thread while the scope is open (like JavaCPP's
 * {@code PointerScope} or DJL's {@code NDManager}): expressions with temporaries need no
 * try-with-resources per tensor.
 *
 * <pre>{@code
 * Tensor result;
 * try (TensorScope scope = TensorScope.open()) {
 *   Tensor x = Tensor.ones(2, 3);
 *   Tensor y = x.mul(2).add(1).sum(1);   // the temporaries belong to the scope
 *   result = scope.detach(y);           // y survives the scope; the caller closes it
 * }                                      // x and the temporaries are closed here
 * }</pre>
 *
 * Scopes nest; a tensor belongs to the innermost scope open on the thread that created it.
 * {@link #detach(Tensor)} hands it to the enclosing scope, or to the caller when there is
 * none. A scope is confined to the thread that opened it: attach, detach and close elsewhere
 * throw {@link IllegalStateException}; close innermost first. Closing a tensor
 * of a scope early is fine ({@code close()} is idempotent).
 */
public final class TensorScope implements AutoCloseable {
  private static final ThreadLocal<ArrayDeque<TensorScope>> STACK =
      ThreadLocal.withInitial(ArrayDeque::new);

  private final Thread owner = Thread.currentThread();
  private final List<Tensor> tensors = new ArrayList<>();
  private boolean closed;

  private TensorScope() {}

  /** Opens a scope on this thread; close it with try-with-resources. */
  public static TensorScope open() {
    TensorScope s = new TensorScope();
    STACK.get().push(s);
    return s;
  }

  /** The innermost open scope of this thread, or null. */
  public static TensorScope current() {
    ArrayDeque<TensorScope> stack = STACK.get();
    return stack.peek();
  }

  /** Called for every new Tensor object: the innermost scope of this thread takes it. */
  static void register(Tensor t) {
    ArrayDeque<TensorScope> stack = STACK.get();
    TensorScope s = stack.peek();
    if (s != null) {
      s.add(t);
    }
  }

  private int pruneAt = 64;

  private void add(Tensor t) {
    tensors.add(t);
    if (tensors.size() >= pruneAt) { // forget tensors already closed by hand
      tensors.removeIf(Tensor::isClosed);
      pruneAt = Math.max(64, 2 * tensors.size());
    }
  }

  /**
   * Attaches an existing tensor to this scope, which will close it. Returns t. A null tensor
   * throws {@link NullPointerException}.
   */
  public Tensor attach(Tensor t) {
    Objects.requireNonNull(t, "t");
    checkOpen();
    add(t);
    return t;
  }

  /**
   * Takes t out of this scope, so closing the scope does not close it: it moves to the
   * enclosing scope if there is one, else the caller owns it. Returns t.
   */
  public Tensor detach(Tensor t) {
    Objects.requireNonNull(t, "t");
    checkOpen();
    boolean removed = false;
    for (int i = tensors.size() - 1; i >= 0; i--) {
      if (tensors.get(i) == t) {
        tensors.remove(i);
        removed = true;
      }
    }
    if (!removed) {
      throw new IllegalArgumentException("the tensor does not belong to this scope");
    }
    ArrayDeque<TensorScope> stack = STACK.get();
    boolean passedThis = false;
    for (TensorScope s : stack) { // innermost first
      if (passedThis) {
        s.add(t);
        break;
      }
      passedThis = s == this;
    }
    return t;
  }

  /** Number of open tensors this scope will close. */
  public int size() {
    int n = 0;
    for (Tensor t : tensors) {
      if (!t.isClosed()) {
        n++;
      }
    }
    return n;
  }

  /** Closes every tensor of the scope, newest first. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    Native.checkClosingThread(owner, "a TensorScope", "opened");
    ArrayDeque<TensorScope> stack = STACK.get();
    if (stack.peek() != this) {
      throw new IllegalStateException("close the inner TensorScope first");
    }
    stack.pop();
    closed = true;
    for (int i = tensors.size() - 1; i >= 0; i--) {
      tensors.get(i).close();
    }
    tensors.clear();
  }

  /** A closed scope, or a call from another thread than the owner's: IllegalStateException. */
  private void checkOpen() {
    if (Thread.currentThread() != owner) {
      throw new IllegalStateException("a TensorScope is used only on the thread that opened it");
    }
    if (closed) {
      throw new IllegalStateException("the TensorScope is closed");
    }
  }
}
