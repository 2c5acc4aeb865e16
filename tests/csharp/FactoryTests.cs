// Factories, host data in and out, item.
using System;
using System.Numerics;
using Ctorch;
using NUnit.Framework;

namespace Ctorch.Tests
{
    [TestFixture]
    public class FactoryTests : TestBase
    {
        [Test]
        public void ZerosOnesEmptyFull()
        {
            Tensor z = Tensor.Zeros(2, 3);
            ShapeIs(z, 2, 3);
            Assert.AreEqual(2, z.Dim);
            Assert.AreEqual(6, z.Numel);
            Assert.AreEqual(3, z.Size(1));
            Assert.AreEqual(2, z.Size(-2));
            CollectionAssert.AreEqual(new long[] { 3, 1 }, z.Strides);
            Assert.AreEqual(1, z.Stride(1));
            Assert.AreEqual(0, z.StorageOffset);
            Assert.AreEqual(Device.Cpu, z.Device);
            Assert.IsFalse(z.IsCuda);
            Assert.IsTrue(z.IsContiguous);
            Assert.AreEqual(4, z.ElementSize);
            AreEqual(new float[6], z);

            AreEqual(new[] { 1, 1, 1 }, Tensor.Ones(new long[] { 3 }, DType.Int32));
            AreEqual(new double[] { 7.5, 7.5, 7.5, 7.5 }, Tensor.Full(new long[] { 2, 2 }, 7.5, DType.Float64));
            AreEqual(new long[] { -3, -3 }, Tensor.Full(new long[] { 2 }, -3, DType.Int64, Device.Cpu));
            AreEqual(new bool[] { true, true }, Tensor.Full(new long[] { 2 }, 1, DType.Bool));

            Tensor e = Tensor.Empty(new long[] { 4, 0 }, DType.Int16);
            ShapeIs(e, 4, 0);
            Assert.AreEqual(0, e.Numel);
            Assert.AreEqual(DType.Int16, e.DType);
            Assert.AreEqual(0, e.ToArray<short>().Length);
            ShapeIs(Tensor.Empty(5), 5);

            Tensor s = Tensor.Zeros();
            Assert.AreEqual(0, s.Dim);
            Assert.AreEqual(1, s.Numel);
            FailsWithOneOf(() => Tensor.Zeros(2, -1), StatusCode.Shape, StatusCode.Argument);
        }

        [Test]
        public void ArangeLinspaceEye()
        {
            AreEqual(new long[] { 0, 1, 2, 3, 4 }, Tensor.Arange(5));
            AreEqual(new long[] { 1, 4, 7 }, Tensor.Arange(1, 10, 3));
            AreEqual(new float[] { 0f, 0.25f, 0.5f, 0.75f }, Tensor.Arange(0.0, 1.0, 0.25));
            AreEqual(new float[] { 0f, 1f, 2f }, Tensor.Arange(2.5));
            AreEqual(new double[] { 1, 2 }, Tensor.Arange(1, 3, 1, DType.Float64));
            Fails(StatusCode.Argument, () => Tensor.Arange(0, 5, 0));

            AreEqual(new float[] { 0f, 0.25f, 0.5f, 0.75f, 1f }, Tensor.Linspace(0, 1, 5));
            AreEqual(new double[] { -1, 1 }, Tensor.Linspace(-1, 1, 2, DType.Float64));

            Tensor eye = Tensor.Eye(3);
            ShapeIs(eye, 3, 3);
            AreEqual(new float[] { 1, 0, 0, 0, 1, 0, 0, 0, 1 }, eye);
            Tensor eye23 = Tensor.Eye(2, 3, DType.Int64);
            ShapeIs(eye23, 2, 3);
            AreEqual(new long[] { 1, 0, 0, 0, 1, 0 }, eye23);
        }

        [Test]
        public void FromArrayOfEveryElementType()
        {
            Tensor f = Tensor.FromArray(new[] { 1.5f, -2f, 3f, 4f, 5f, 6f }, 2, 3);
            ShapeIs(f, 2, 3);
            AreEqual(new[] { 1.5f, -2f, 3f, 4f, 5f, 6f }, f);

            AreEqual(new[] { 0.1, 1e300 }, Tensor.FromArray(new[] { 0.1, 1e300 }));
            AreEqual(new[] { long.MinValue, long.MaxValue }, Tensor.FromArray(new[] { long.MinValue, long.MaxValue }));
            AreEqual(new[] { int.MinValue, 7 }, Tensor.FromArray(new[] { int.MinValue, 7 }));

            Tensor sh = Tensor.FromArray(new short[] { -300, 300 });
            Assert.AreEqual(DType.Int16, sh.DType);
            CollectionAssert.AreEqual(new short[] { -300, 300 }, sh.ToArray<short>());

            Tensor sb = Tensor.FromArray(new sbyte[] { -128, 127 });
            Assert.AreEqual(DType.Int8, sb.DType);
            CollectionAssert.AreEqual(new sbyte[] { -128, 127 }, sb.ToArray<sbyte>());

            Tensor u8 = Tensor.FromArray(new byte[] { 0, 200, 255 });
            Assert.AreEqual(DType.UInt8, u8.DType);
            CollectionAssert.AreEqual(new byte[] { 0, 200, 255 }, u8.ToArray<byte>());

            AreEqual(new[] { true, false, true }, Tensor.FromArray(new[] { true, false, true }));

            Tensor c = Tensor.FromArray(new[] { new Complex(1, 2), new Complex(-3, 0.5) });
            Assert.AreEqual(DType.Complex128, c.DType);
            CollectionAssert.AreEqual(new[] { new Complex(1, 2), new Complex(-3, 0.5) }, c.ToArray<Complex>());

            ShapeIs(Tensor.FromArray(new float[0]), 0);
            Fails(StatusCode.BufferSize, () => Tensor.FromArray(new float[] { 1, 2, 3 }, 2, 2));
        }

        [Test]
        public void FromSpanRankedArrayAndBuffer()
        {
            var data = new long[] { 10, 11, 12, 13, 14, 15 };
            AreEqual(new long[] { 12, 13, 14, 15 }, Tensor.FromSpan(new ReadOnlySpan<long>(data, 2, 4)));
            Tensor m = Tensor.FromSpan(new ReadOnlySpan<long>(data), 3, 2);
            ShapeIs(m, 3, 2);

            Tensor r = Tensor.FromArray(new float[,] { { 1, 2, 3 }, { 4, 5, 6 } });
            ShapeIs(r, 2, 3);
            AreEqual(new float[] { 1, 2, 3, 4, 5, 6 }, r);
            Tensor r3 = Tensor.FromArray(new int[2, 1, 2] { { { 1, 2 } }, { { 3, 4 } } });
            ShapeIs(r3, 2, 1, 2);
            AreEqual(new[] { 1, 2, 3, 4 }, r3);

            Tensor onDev = Tensor.FromArray(new[] { 1.0, 2.0 }, new long[] { 2 }, TestDevice);
            Assert.AreEqual(TestDevice.Type, onDev.Device.Type);

            unsafe
            {
                // (no stackalloc: mcs emits invalid IL for it in a method with lambdas)
                var host = new double[] { 1, 2, 4 };
                fixed (double* buf = host)
                {
                    IntPtr p = (IntPtr)buf;
                    AreEqual(new double[] { 1, 2, 4 }, Tensor.FromBuffer(p, 24, new long[] { 3 }, DType.Float64));
                    Fails(StatusCode.BufferSize, () => Tensor.FromBuffer(p, 16, new long[] { 3 }, DType.Float64));
                }
            }
            Fails(StatusCode.NullPointer, () => Tensor.FromBuffer(IntPtr.Zero, 8, new long[] { 1 }, DType.Float64));
        }

        [Test]
        public void Scalars()
        {
            Tensor s = Tensor.Scalar(2.5);
            Assert.AreEqual(0, s.Dim);
            Assert.AreEqual(DType.Float32, s.DType);
            Assert.AreEqual(2.5, s.ItemDouble());

            Tensor l = Tensor.Scalar(long.MaxValue);
            Assert.AreEqual(DType.Int64, l.DType);
            Assert.AreEqual(long.MaxValue, l.ItemLong());
            Assert.AreEqual(DType.Int32, Tensor.Scalar(7L, DType.Int32).DType);
            Assert.AreEqual(7, Tensor.Scalar(7L, DType.Int32).Item<int>());
            Assert.IsTrue(Tensor.Scalar(true).Item<bool>());
            Assert.AreEqual(DType.Bool, Tensor.Scalar(false).DType);
            Assert.AreEqual(DType.Float64, Tensor.Scalar(1.0, DType.Float64).DType);
        }

        [Test]
        public void Item()
        {
            Assert.AreEqual(-2.75, F(-2.75f).ItemDouble());
            Assert.AreEqual(-2, F(-2.75f).ItemLong());
            Assert.AreEqual(-2.75f, F(-2.75f).Item<float>());
            Assert.AreEqual(-2.75, F(-2.75f).Item<double>());
            Assert.AreEqual(9L, L(9).Item<long>());
            Assert.AreEqual((short)9, L(9).Item<short>());
            Assert.AreEqual((byte)9, L(9).Item<byte>());
            Assert.AreEqual((sbyte)-9, L(-9).Item<sbyte>());
            Assert.Throws<OverflowException>(() => L(300).Item<byte>());
            Assert.AreEqual(1.0, B(true).ItemDouble());
            Assert.IsTrue(B(true).Item<bool>());
            Assert.IsFalse(F(0f).Item<bool>());
            Tensor c = Tensor.FromArray(new[] { new Complex(1.5, -2) });
            Assert.AreEqual(new Complex(1.5, -2), c.ItemComplex());
            Assert.AreEqual(new Complex(1.5, -2), c.Item<Complex>());
            Assert.AreEqual(1.5, c.ItemDouble());
            Assert.AreEqual(new Complex(3, 0), F(3f).ItemComplex());
            Assert.Throws<ArgumentException>(() => F(1f).Item<decimal>());
            Fails(StatusCode.Shape, () => F(1f, 2f).ItemDouble());
            Fails(StatusCode.Shape, () => Tensor.Zeros(0).ItemLong());
        }

        [Test]
        public void CopyOut()
        {
            Tensor t = Tensor.Arange(1.0, 4.0);
            var dst = new float[5];
            t.CopyTo(new Span<float>(dst));
            CollectionAssert.AreEqual(new float[] { 1, 2, 3, 0, 0 }, dst);
            var exact = new float[3];
            t.CopyTo(exact);
            CollectionAssert.AreEqual(new float[] { 1, 2, 3 }, exact);
            Assert.Throws<ArgumentException>(() => t.CopyTo(new float[2]));
            Assert.Throws<ArgumentException>(() => t.ToArray<double>());
            Assert.Throws<ArgumentException>(() => t.CopyTo(new int[3]));
            unsafe
            {
                var host = new float[3];
                fixed (float* buf = host)
                {
                    IntPtr p = (IntPtr)buf;
                    t.CopyTo(p, 12);
                    Assert.AreEqual(3f, buf[2]);
                    Fails(StatusCode.BufferSize, () => t.CopyTo(p, 8));
                }
            }

            // A non-contiguous view copies out in C order.
            Tensor m = Tensor.FromArray(new long[] { 1, 2, 3, 4, 5, 6 }, 2, 3);
            AreEqual(new long[] { 1, 4, 2, 5, 3, 6 }, m.T);

            // Raw bytes for dtypes without a managed element type (little-endian float16).
            CollectionAssert.AreEqual(new byte[] { 0x00, 0x3C, 0x00, 0x3E },
                Tensor.FromArray(new float[] { 1f, 1.5f }).To(DType.Float16).ToBytes());
            CollectionAssert.AreEqual(new byte[] { 0x80, 0x3F }, Tensor.Ones(new long[] { 1 }, DType.BFloat16).ToBytes());
        }

        [Test]
        public void LikeKeepsShapeDeviceDtype()
        {
            Tensor src = Tensor.Full(new long[] { 2, 3 }, 4, DType.Int32, TestDevice);
            foreach (Tensor t in new[] { Tensor.ZerosLike(src), Tensor.OnesLike(src), Tensor.EmptyLike(src), Tensor.FullLike(src, 9) })
            {
                ShapeIs(t, 2, 3);
                Assert.AreEqual(DType.Int32, t.DType);
                Assert.AreEqual(src.Device, t.Device);
            }
            AreEqual(new int[6], Tensor.ZerosLike(src).Cpu());
            AreEqual(new[] { 1, 1, 1, 1, 1, 1 }, Tensor.OnesLike(src).Cpu());
            AreEqual(new[] { 9, 9, 9, 9, 9, 9 }, Tensor.FullLike(src, 9).Cpu());
            Tensor d = Tensor.FullLike(src, 0.5, DType.Float64);
            Assert.AreEqual(DType.Float64, d.DType);
            AreEqual(new[] { 0.5, 0.5, 0.5, 0.5, 0.5, 0.5 }, d.Cpu());
            Assert.AreEqual(DType.Bool, Tensor.ZerosLike(src, DType.Bool).DType);
            Assert.AreEqual(DType.Float16, Tensor.EmptyLike(src, DType.Float16).DType);
            Assert.AreEqual(DType.Float32, Tensor.OnesLike(src, DType.Float32).DType);
        }

        [Test]
        public void NewKeepsDeviceDtype()
        {
            Tensor src = Tensor.Zeros(new long[] { 5 }, DType.Float64, TestDevice);
            Tensor z = src.NewZeros(new long[] { 2, 2 });
            ShapeIs(z, 2, 2);
            Assert.AreEqual(DType.Float64, z.DType);
            Assert.AreEqual(src.Device, z.Device);
            AreEqual(new double[] { 1, 1, 1 }, src.NewOnes(new long[] { 3 }).Cpu());
            AreEqual(new double[] { -1, -1 }, src.NewFull(new long[] { 2 }, -1).Cpu());
            ShapeIs(src.NewEmpty(new long[] { 0, 4 }), 0, 4);
            Assert.AreEqual(DType.Int8, src.NewEmpty(new long[] { 1 }, DType.Int8).DType);
            Assert.AreEqual(DType.Int64, src.NewZeros(new long[] { 1 }, DType.Int64).DType);
            Assert.AreEqual(DType.Bool, src.NewOnes(new long[] { 1 }, DType.Bool).DType);
            Assert.AreEqual(DType.Int32, src.NewFull(new long[] { 1 }, 3, DType.Int32).DType);

            // new_tensor converts host data to the dtype of src, on its device.
            Tensor n = src.NewTensor(new[] { 1, 2, 3, 4 }, new long[] { 2, 2 });
            Assert.AreEqual(DType.Float64, n.DType);
            Assert.AreEqual(src.Device, n.Device);
            ShapeIs(n, 2, 2);
            AreEqual(new double[] { 1, 2, 3, 4 }, n.Cpu());
            Tensor n2 = src.NewTensor(new[] { 2.75f, -1.5f }, null, DType.Int64);
            AreEqual(new long[] { 2, -1 }, n2.Cpu());
            Tensor n3 = src.NewTensor(new ReadOnlySpan<bool>(new[] { true, false }));
            AreEqual(new double[] { 1, 0 }, n3.Cpu());
        }
    }
}
