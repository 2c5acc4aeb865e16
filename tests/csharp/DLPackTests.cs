// DLPack and FromBlob (section 26 of capi/ctorch.h) as the binding adds them: capsules as IntPtr
// owned by a SafeHandle (Consume, Import, Dispose, finalization), zero copy checked by data
// pointer, FromBlob's Action deleter run exactly once (when the last tensor using the memory is
// disposed, on whatever thread, never after a failure), the native messages. The struct's
// fields, dtypes, layouts and messages are the C suite's (tests/capi/dlpack_test.c).
using System;
using System.Threading;
using Ctorch;
using NUnit.Framework;

namespace Ctorch.Tests
{
    [TestFixture]
    public class DLPackTests : TestBase
    {
        [Test]
        public void ExportImportSameMemory()
        {
            using (Tensor a = Tensor.Arange(0, 6, 1, DType.Int64, TestDevice))
            using (Tensor v = a.View(2, 3).Transpose(0, 1))
            {
                foreach (bool versioned in new[] { false, true })
                {
                    using (DLPackCapsule c = versioned ? v.ToDLPackVersioned() : v.ToDLPack())
                    {
                        Assert.AreEqual(versioned, c.Versioned);
                        Assert.AreNotEqual(IntPtr.Zero, c.Address);
                        using (Tensor b = c.Import())
                        {
                            Assert.AreEqual(v.DataPtr, b.DataPtr, "zero copy");
                            ShapeIs(b, 3, 2);
                            AreEqual(new long[] { 0, 3, 1, 4, 2, 5 }, b);
                        }
                        Assert.AreEqual(IntPtr.Zero, c.Address, "consumed");
                        Assert.Throws<ObjectDisposedException>(() => c.Import());
                    }
                }
                // the raw address route, as another library's consumer takes it
                using (DLPackCapsule c = v.DLPack(-1, true))
                using (Tensor b = Tensor.FromDLPackVersioned(c.Consume()))
                    Assert.AreEqual(v.DataPtr, b.DataPtr);
                using (DLPackCapsule c = v.DLPack(-1, false))
                using (Tensor b = Tensor.FromDLPack(c.Consume()))
                    AreEqual(new long[] { 0, 3, 1, 4, 2, 5 }, b);
                var (type, id) = v.DLPackDevice;
                Assert.AreEqual(TestDevice.IsCuda ? 2 : 1, type);
                Assert.AreEqual(0, id);
                // a capsule no one consumed: Dispose calls its deleter; twice is fine
                DLPackCapsule u = v.ToDLPack();
                u.Dispose();
                u.Dispose();
                Assert.AreEqual(IntPtr.Zero, u.Address);
            }
        }

        [Test]
        public void FromBlobDeleterRunsOnceAfterTheLastView()
        {
            using (Tensor src = Tensor.Arange(10, 16, 1, DType.Int64, TestDevice))
            {
                int calls = 0;
                var address = new IntPtr(src.DataPtr);
                Tensor blob = Tensor.FromBlob(address, new long[] { 2, 3 }, DType.Int64, TestDevice, new long[] { 1, 2 },
                                              () => Interlocked.Increment(ref calls));
                Assert.AreEqual(src.DataPtr, blob.DataPtr);
                AreEqual(new long[] { 10, 12, 14, 11, 13, 15 }, blob);
                Tensor row = blob.Select(0, 1);
                DLPackCapsule c = row.ToDLPackVersioned();
                blob.Dispose();
                row.Dispose();
                Assert.AreEqual(0, calls, "the capsule holds the memory");
                Tensor back = c.Import();
                AreEqual(new long[] { 11, 13, 15 }, back);
                OnOwnThread(() => back.Dispose()); // the last reference goes on another thread
                Assert.AreEqual(1, calls);
                c.Dispose();
                // no deleter: the caller keeps the memory
                using (Tensor b2 = Tensor.FromBlob(address, new long[] { 6 }, DType.Int64, TestDevice))
                    AreEqual(new long[] { 10, 11, 12, 13, 14, 15 }, b2);
            }
        }

        [Test]
        public void Errors()
        {
            int calls = 0;
            using (Tensor x = Tensor.Zeros(new long[] { 2 }, DType.Float32, TestDevice))
            {
                var p = new IntPtr(x.DataPtr);
                var e = Fails(StatusCode.Argument, () => Tensor.FromBlob(p, new long[] { 2 }, DType.Float32, TestDevice,
                                                                        new long[] { -1 }, () => calls++));
                StringAssert.StartsWith("as_strided: Negative strides are not supported", e.NativeMessage);
                Fails(StatusCode.NullPointer, () => Tensor.FromBlob(IntPtr.Zero, new long[] { 2 }, DType.Float32, TestDevice,
                                                                   null, () => calls++));
                Assert.Throws<ArgumentException>(() => Tensor.FromBlob(p, new long[] { 2 }, DType.Float32, TestDevice,
                                                                       new long[] { 1, 1 }));
                Assert.AreEqual(0, calls, "a failed FromBlob never runs its deleter");
                e = Fails(StatusCode.NullPointer, () => Tensor.FromDLPack(IntPtr.Zero));
                StringAssert.Contains("argument 'capsule' is NULL", e.NativeMessage);
                Fails(StatusCode.NullPointer, () => Tensor.FromDLPackVersioned(IntPtr.Zero));
                if (!TestDevice.IsCuda)
                {
                    e = Fails(StatusCode.Argument, () => x.DLPack(1, true));
                    Assert.AreEqual("stream should be None on cpu.", e.NativeMessage);
                }
                x.Dispose();
                Assert.Throws<ObjectDisposedException>(() => x.ToDLPack());
            }
        }
    }
}
