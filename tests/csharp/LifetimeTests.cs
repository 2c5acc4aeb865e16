// Ownership, disposal, closed and null handles, scopes, the GC safety net, and per-thread
// error messages.
using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading;
using Ctorch;
using Ctorch.Swig;
using NUnit.Framework;

namespace Ctorch.Tests
{
    [TestFixture]
    public class LifetimeTests : TestBase
    {
        [Test]
        public void DoubleDisposeIsHarmless()
        {
            long n0 = Torch.LiveTensorCount;
            Tensor t = F(1, 2);
            Assert.AreEqual(n0 + 1, Torch.LiveTensorCount);
            t.Dispose();
            t.Dispose();
            Assert.IsTrue(t.IsDisposed);
            Assert.AreEqual(n0, Torch.LiveTensorCount);
        }

        [Test]
        public void ADisposedTensorThrowsObjectDisposed()
        {
            Tensor t = F(1, 2);
            Tensor other = F(3, 4);
            t.Dispose();
            Assert.Throws<ObjectDisposedException>(() => GC.KeepAlive(t.Dim));
            Assert.Throws<ObjectDisposedException>(() => GC.KeepAlive(t.Shape));
            Assert.Throws<ObjectDisposedException>(() => t.Add(1L));
            Assert.Throws<ObjectDisposedException>(() => other.Add(t));
            Assert.Throws<ObjectDisposedException>(() => GC.KeepAlive(other + t));
            Assert.Throws<ObjectDisposedException>(() => t.ToArray<float>());
            Assert.Throws<ObjectDisposedException>(() => t.Fill_(1));
            Assert.Throws<ObjectDisposedException>(() => Tensor.Where(B(true), t, other));
            Assert.AreEqual("Tensor(disposed)", t.ToString());
            AreEqual(new[] { 3f, 4f }, other);
        }

        [Test]
        public void NullArguments()
        {
            Assert.Throws<ArgumentNullException>(() => new Tensor(null));
            Assert.Throws<ArgumentException>(() => Tensor.FromHandle(IntPtr.Zero));
            Assert.Throws<ArgumentNullException>(() => F(1).Mul((Tensor)null));
            Assert.Throws<ArgumentNullException>(() => GC.KeepAlive((Tensor)null + 1.0));
            Assert.Throws<ArgumentNullException>(() => Tensor.ZerosLike(null));
            Assert.Throws<ArgumentNullException>(() => Tensor.Zeros((long[])null, DType.Float32));
        }

        [Test]
        public void NullAndReleasedHandlesAtTheCLayer()
        {
            IntPtr raw;
            Assert.AreEqual(0, ctorch.ct_zeros(new long[] { 2 }, 1, ctorch.CT_FLOAT32, ctorch.CT_CPU, -1, out raw));
            Assert.AreEqual(0, ctorch.ct_tensor_release(raw));
            Assert.AreEqual(102, ctorch.ct_tensor_release(raw));   // releasing twice is an error, not a crash

            // A released handle reached through the idiomatic layer (not owning it).
            Tensor t = F(1);
            IntPtr stale = t.Handle.DangerousGetHandle();
            t.Dispose();
            using (var ghost = new Tensor(new TensorHandle(stale, false)))
            {
                Fails(StatusCode.InvalidHandle, () => GC.KeepAlive(ghost.Dim));
                Fails(StatusCode.InvalidHandle, () => ghost.Add(1L));
                Fails(StatusCode.InvalidHandle, () => ghost.ToString());
            }
        }

        [Test]
        public void RawHandlesCanBeAdopted()
        {
            IntPtr raw;
            Native(ctorch.ct_ones(new long[] { 3 }, 1, ctorch.CT_INT64, ctorch.CT_CPU, -1, out raw));
            Assert.IsTrue(new TensorHandle().IsInvalid, "the zero handle P/Invoke marshalling starts from");
            using (Tensor t = Tensor.FromHandle(raw))
            {
                Assert.IsFalse(t.Handle.IsInvalid);
                AreEqual(new long[] { 1, 1, 1 }, t);
                Assert.AreEqual(raw, t.Handle.DangerousGetHandle());
            }
        }

        private static void Native(int status) => Assert.AreEqual(0, status, ctorch.ct_last_error_message());

        [Test]
        public void ViewsOutliveTheirBase()
        {
            Tensor b = Tensor.Arange(4.0);
            Tensor v = b.View(2, 2);
            b.Dispose();
            AreEqual(new[] { 0f, 1f, 2f, 3f }, v);
            v.Add_(1.0);
            AreEqual(new[] { 1f, 2f, 3f, 4f }, v.Flatten());
        }

        [Test]
        public void NewReferenceIsTheSameTensor()
        {
            long n0 = Torch.LiveTensorCount;
            Tensor a = L(5);
            Tensor b = a.NewReference();
            Assert.IsTrue(a.IsSame(b));
            Assert.AreEqual(a.Handle.DangerousGetHandle(), b.Handle.DangerousGetHandle());
            a.Dispose();
            b.Add_(1L);
            Assert.AreEqual(6, b.ItemLong());
            b.Dispose();
            Assert.AreEqual(n0, Torch.LiveTensorCount);
        }

        [Test]
        public void UsingStatementsReleaseEverything()
        {
            long n0 = Torch.LiveTensorCount;
            using (Tensor a = Tensor.Ones(2, 2))
            using (Tensor b = a * 3L)
            using (Tensor c = b.Sum())
            {
                Assert.AreEqual(12.0, c.ItemDouble());
                Assert.AreEqual(n0 + 3, Torch.LiveTensorCount);
            }
            Assert.AreEqual(n0, Torch.LiveTensorCount);
        }

        [Test]
        public void DisposeScopes()
        {
            long n0 = Torch.LiveTensorCount;
            Tensor kept, detached;
            using (DisposeScope outer = DisposeScope.Begin())
            {
                using (DisposeScope inner = DisposeScope.Begin())
                {
                    Assert.AreSame(inner, DisposeScope.Current);
                    Tensor a = Tensor.Ones(3);
                    Tensor tmp = (a + 1L) * 2.0 - a;      // 3 temporaries + a
                    Assert.AreEqual(4, inner.Count);
                    kept = inner.MoveToOuter(tmp);
                    detached = inner.Detach(a.Clone());
                    Assert.AreEqual(n0 + 5, Torch.LiveTensorCount);   // a, 3 results, the clone
                }
                Assert.AreSame(outer, DisposeScope.Current);
                Assert.IsFalse(kept.IsDisposed);
                Assert.AreEqual(1, outer.Count);
                Assert.AreSame(detached, outer.Include(detached));   // taken in again, disposed with outer
                detached = outer.Detach(detached);
                AreEqual(new[] { 3f, 3f, 3f }, kept);
            }
            Assert.IsTrue(kept.IsDisposed);
            Assert.IsFalse(detached.IsDisposed);
            AreEqual(new[] { 1f, 1f, 1f }, detached);
            detached.Dispose();
        }
    }

    [TestFixture]
    public class ThreadTests : TestBase
    {
        [Test]
        public void EachThreadReadsItsOwnErrorMessage()
        {
            const int threads = 4, rounds = 200;
            var failures = new List<string>();
            var workers = new Thread[threads];
            for (int w = 0; w < threads; w++)
            {
                int id = w;
                workers[w] = new Thread(() =>
                {
                    string first = null;
                    try
                    {
                        for (int r = 0; r < rounds; r++)
                        {
                            CtorchException e = null;
                            try
                            {
                                if (id % 2 == 0)
                                {
                                    Device.Parse("gpu" + id);
                                }
                                else
                                {
                                    using (Tensor a = Tensor.Zeros(3))
                                    using (Tensor b = Tensor.Zeros(4 + id))
                                    using (a + b) { }
                                }
                            }
                            catch (CtorchException ex) { e = ex; }
                            StatusCode want = id % 2 == 0 ? StatusCode.DeviceString : StatusCode.Shape;
                            if (e == null) throw new Exception("no exception");
                            if (e.Code != want) throw new Exception("thread " + id + " got " + e.Code);
                            if (first == null) first = e.NativeMessage;
                            else if (e.NativeMessage != first)
                                throw new Exception("thread " + id + " read another message: " + e.NativeMessage);
                        }
                    }
                    catch (Exception ex)
                    {
                        lock (failures) failures.Add(ex.Message);
                    }
                });
            }
            foreach (Thread t in workers) t.Start();
            foreach (Thread t in workers) t.Join();
            CollectionAssert.IsEmpty(failures);
        }
    }
}
