package org.ctorch;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.Test;

/** Handles, close(), the Cleaner safety net, live counts. */
public class LifetimeTest extends CtorchTestCase {

  /**
   * Every Tensor object owns one reference. A new tensor (a view too) is a new live handle;
   * a second reference to the same tensor (to() with nothing to do, newReference()) is not,
   * and the handle stays live until its last reference is closed.
   */
  @Test
  public void handlesAndReferences() {
    Tensor t = Tensor.ones(4);
    assertLiveTensors(1);
    Tensor v = t.view(2, 2);
    assertLiveTensors(2);
    Tensor same = t.to(Device.CPU); // the same tensor: one more reference, same handle
    assertTrue(same.isSame(t));
    Tensor ref = t.newReference();
    assertTrue(ref.isSame(t));
    assertTrue(ref.isSame(same));
    assertLiveTensors(2);
    t.close();
    assertLiveTensors(2); // still referenced by same and ref
    assertValues(ref, 1, 1, 1, 1);
    assertValues(same, 1, 1, 1, 1);
    ref.close();
    assertLiveTensors(2);
    same.close(); // the last reference: the handle goes
    assertLiveTensors(1);
    assertValues(v, 1, 1, 1, 1); // the view keeps the storage alive
    v.close();
    assertLiveTensors(0);
  }

  @Test
  public void closeIsIdempotent() {
    Tensor t = Tensor.zeros(2);
    assertFalse(t.isClosed());
    t.close();
    t.close();
    t.close();
    assertTrue(t.isClosed());
    assertLiveTensors(0);
    try (Tensor u = Tensor.zeros(2)) {
      u.close(); // closing inside try-with-resources, then again by it
    }
    assertLiveTensors(0);
  }

  @Test
  public void failedCallsLeakNothing() {
    try (Tensor a = Tensor.zeros(2, 3); Tensor b = Tensor.zeros(4)) {
      for (int i = 0; i < 100; i++) {
        assertStatus(CtorchException.SHAPE, () -> a.add(b));
        assertStatus(CtorchException.INDEX, () -> a.sum(9));
      }
      assertLiveTensors(2);
    }
  }

  /**
   * ~10k tensors, two out of three never closed: the Cleaner releases them once the garbage
   * collector finds them unreachable, and the live count returns to where it started.
   */
  @Test
  public void cleanerReleasesUnclosedTensors() throws Exception {
    List<Tensor> unclosed = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      Tensor t = Tensor.full(new long[] {4}, (double) i);
      if (i % 3 == 0) {
        t.close();
      } else {
        unclosed.add(t);
      }
    }
    assertEquals(6666, unclosed.size());
    assertEquals(liveBefore + unclosed.size(), Torch.liveTensorCount());
    assertEquals(9998.0, unclosed.get(unclosed.size() - 1).toDoubleArray()[3], 0);
    WeakReference<Tensor> probe = new WeakReference<>(unclosed.get(0));
    unclosed = null; // drop them all without closing

    assertEquals("handles left after GC", liveBefore, awaitCount(liveBefore, Torch::liveTensorCount));
    assertTrue(probe.get() == null);
  }

  /** Tensors dropped mid-expression (temporaries) are released too. */
  @Test
  public void droppedTemporariesAreReleased() throws Exception {
    double total = 0;
    for (int i = 0; i < 3_000; i++) {
      try (Tensor s = Tensor.ones(3).mul(2).add(1).sum()) { // 3 temporaries per iteration
        total += s.item();
      }
    }
    assertEquals(3_000 * 9.0, total, 0);
    assertEquals(liveBefore, awaitCount(liveBefore, Torch::liveTensorCount));
  }

  /** Dropping tensors while using others, from several threads. */
  @Test
  public void concurrentUseAndDrop() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Double>> results = new ArrayList<>();
      for (int w = 0; w < 4; w++) {
        final int worker = w;
        results.add(pool.submit(() -> {
          double total = 0;
          for (int i = 0; i < 500; i++) {
            Tensor a = Tensor.full(new long[] {8}, worker); // never closed: the Cleaner's job
            try (Tensor s = a.add(1).sum()) { // a.add(1) is dropped too
              total += s.item();
            }
          }
          return total;
        }));
      }
      for (int w = 0; w < 4; w++) {
        assertEquals(500.0 * 8 * (w + 1), results.get(w).get(60, TimeUnit.SECONDS), 0);
      }
    } finally {
      pool.shutdown();
      assertTrue(pool.awaitTermination(60, TimeUnit.SECONDS));
    }
    assertEquals(liveBefore, awaitCount(liveBefore, Torch::liveTensorCount));
  }

  @Test
  public void scopeClosesEverythingCreatedInside() {
    Tensor kept;
    Tensor x;
    try (TensorScope scope = TensorScope.open()) {
      assertTrue(TensorScope.current() == scope);
      x = Tensor.ones(2, 3);
      Tensor y = x.mul(2).add(1).sum(1); // three temporaries, all in the scope
      assertEquals(4, scope.size());
      assertLiveTensors(4);
      kept = scope.detach(y);
      assertEquals(3, scope.size());
    }
    assertTrue(TensorScope.current() == null);
    assertTrue(x.isClosed());
    assertFalse(kept.isClosed());
    assertLiveTensors(1);
    assertValues(kept, 9, 9);
    kept.close();
    assertLiveTensors(0);
  }

  @Test
  public void nestedScopes() {
    Tensor outside = Tensor.zeros(1);
    try (TensorScope outer = TensorScope.open()) {
      Tensor a = Tensor.ones(1);
      Tensor fromInner;
      try (TensorScope inner = TensorScope.open()) {
        Tensor b = a.add(1);
        fromInner = inner.detach(b.mul(3)); // moves to the outer scope
        assertThrows(IllegalStateException.class, outer::close); // inner first
        inner.attach(outside);
        assertThrows(IllegalArgumentException.class, () -> inner.detach(a));
      }
      assertTrue(outside.isClosed()); // attached to the inner scope
      assertFalse(fromInner.isClosed());
      assertFalse(a.isClosed());
      assertValues(fromInner, 6);
      assertEquals(2, outer.size());
    }
    assertLiveTensors(0);
  }

  @Test
  public void scopeIsPerThread() throws Exception {
    Tensor[] other = new Tensor[1];
    try (TensorScope scope = TensorScope.open()) {
      Tensor.ones(1);
      Thread t = new Thread(() -> other[0] = Tensor.ones(1)); // no scope on that thread
      t.start();
      t.join();
      assertEquals(1, scope.size());
    }
    assertFalse(other[0].isClosed());
    other[0].close();
    assertLiveTensors(0);
  }
}
