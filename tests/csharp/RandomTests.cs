// Random numbers (section 16 of capi/ctorch.h) as the binding adds them: Generator objects and
// their lifetimes, the 16-byte state as a byte[] (little-endian seed and offset), the overloads of
// rand/randn/randint/*_like and the in-place draws reaching the generator they are given, and the
// mapping of errors. The streams' values (Philox, offsets, ranges, dtypes) are the C suite's
// (tests/capi/random_test.c); the one value check here is torch.rand(7) under the default seed,
// computed on the host from cuRAND's Philox, which proves the floats come through unchanged.
using System;
using System.Linq;
using Ctorch;
using Ctorch.Swig;
using NUnit.Framework;

namespace Ctorch.Tests
{
    [TestFixture]
    public class RandomTests : TestBase
    {
        // torch.rand(7) after torch.manual_seed(67280421310721), as %.9g.
        private static readonly float[] DefaultSeedRand7 =
            { 0.393125594f, 0.511568964f, 0.885066867f, 0.440388322f, 0.89984709f, 0.121816903f, 0.530436516f };

        private static long DefaultOffset(Device device)
        {
            using (Generator g = Generator.Default(device)) return g.Offset;
        }

        [Test]
        public void DefaultSeedGivesTheReferenceValues()
        {
            Assert.AreEqual(67280421310721L, Generator.DefaultSeed);
            Assert.AreEqual(16, Generator.StateSize);
            Torch.ManualSeed(67280421310721L);
            Assert.AreEqual(67280421310721L, Torch.InitialSeed);
            using (Tensor r = Tensor.Rand(7)) CollectionAssert.AreEqual(DefaultSeedRand7, r.ToArray<float>());
            Assert.AreEqual(4, DefaultOffset(Device.Cpu));
            // A fresh generator starts at the default seed: the same values.
            using (var g = new Generator())
            using (Tensor r = Tensor.Rand(new long[] { 7 }, g))
                CollectionAssert.AreEqual(DefaultSeedRand7, r.ToArray<float>());
            // Negative seeds are the same 64 bits.
            Torch.ManualSeed(-1);
            Assert.AreEqual(-1L, Torch.InitialSeed);
            long s = Torch.Seed();
            Assert.AreEqual(s, Torch.InitialSeed);
        }

        [Test]
        public void EveryDrawUsesTheGeneratorItIsGiven()
        {
            Func<Generator, Tensor>[] ops =
            {
                g => Tensor.Rand(new long[] { 5 }, g),
                g => Tensor.Rand(new long[] { 5 }, DType.Float64, Device.Cpu, g),
                g => Tensor.Rand(new long[] { 5 }, Device.Cpu, g),
                g => Tensor.Randn(new long[] { 5 }, g),
                g => Tensor.Randn(new long[] { 5 }, DType.Float64, null, g),
                g => Tensor.Randn(new long[] { 5 }, Device.Cpu, g),
                g => Tensor.Randint(0, 1000, new long[] { 5 }, g),
                g => Tensor.Randint(-5, 5, new long[] { 5 }, Device.Cpu, g),
                g => Tensor.Randint(0, 9, new long[] { 5 }, DType.Int32, Device.Cpu, g),
                g => Tensor.Randint(9, new long[] { 5 }, DType.Int16, null, g),
                g => Tensor.Empty(5).Uniform_(-1, 1, g),
                g => Tensor.Empty(5).Normal_(3, 2, g),
                g => Tensor.Empty(new long[] { 5 }, DType.Int64).Random_(g),
                g => Tensor.Empty(new long[] { 5 }, DType.Int64).Random_(100, g),
                g => Tensor.Empty(new long[] { 5 }, DType.Int32).Random_(-50, 50, g),
                g => Tensor.Empty(5).Bernoulli_(0.5, g),
                g => Tensor.RandLike(Tensor.Empty(5), DType.Float64, g),
                g => Tensor.RandnLike(Tensor.Empty(5), null, g),
            };
            Torch.ManualSeed(7);
            for (int k = 0; k < ops.Length; k++)
            {
                using (var g1 = new Generator().ManualSeed(77))
                using (var g2 = new Generator().ManualSeed(77))
                using (Tensor a = ops[k](g1))
                using (Tensor b = ops[k](g2))
                {
                    CollectionAssert.AreEqual(a.ToBytes(), b.ToBytes(), "op " + k);
                    Assert.AreEqual(4, g1.Offset, "op " + k + ": offset");
                }
            }
            Assert.AreEqual(0, DefaultOffset(Device.Cpu), "the default generator did not move");
        }

        [Test]
        public void OverloadsWithoutAGeneratorUseTheDefaultOne()
        {
            Torch.ManualSeed(100);
            using (Tensor a = Tensor.Rand(2, 3))
            using (Tensor b = Tensor.Rand(new long[] { 2 }, DType.Float64))
            using (Tensor d = Tensor.Randn(4))
            using (Tensor e = Tensor.Randn(new long[] { 2 }, DType.BFloat16, Device.Cpu))
            using (Tensor h = Tensor.Randint(0, 4, new long[] { 5 }))
            using (Tensor j = Tensor.Randint(0, 4, new long[] { 5 }, DType.UInt8))
            using (Tensor k = Tensor.Randint(9, new long[] { 5 }))
            using (Tensor src = Tensor.Zeros(new long[] { 2, 3 }, DType.Float64))
            using (Tensor l = Tensor.RandLike(src))
            using (Tensor m = Tensor.RandnLike(src, DType.Float16))
            {
                ShapeIs(a, 2, 3);
                ShapeIs(m, 2, 3);
                DType[] want = { DType.Float32, DType.Float64, DType.Float32, DType.BFloat16, DType.Int64, DType.UInt8,
                                 DType.Int64, DType.Float64, DType.Float16 };
                CollectionAssert.AreEqual(want, new[] { a, b, d, e, h, j, k, l, m }.Select(t => t.DType));
                src.Uniform_().Normal_().Bernoulli_();
                h.Random_();
            }
            Assert.AreEqual(4 * 13, DefaultOffset(Device.Cpu), "thirteen draws on the default generator");
            Assert.Throws<ArgumentNullException>(() => Tensor.Rand((long[])null, DType.Float32));
            Assert.Throws<ArgumentNullException>(() => Tensor.RandLike(null));
        }

        [Test]
        public void StateIsSixteenLittleEndianBytes()
        {
            using (var g = new Generator().ManualSeed(2024))
            {
                Tensor.Randn(new long[] { 10 }, g).Dispose();
                byte[] state = g.GetState();
                Assert.AreEqual(16, state.Length);
                Assert.AreEqual(2024L, BitConverter.ToInt64(state, 0), "seed");
                Assert.AreEqual(4L, BitConverter.ToInt64(state, 8), "offset");
                byte[] a1;
                using (Tensor a = Tensor.Rand(new long[] { 20 }, g)) a1 = a.ToBytes();
                Assert.AreSame(g, g.SetState(state));
                Assert.AreEqual(4, g.Offset);
                using (Tensor a = Tensor.Rand(new long[] { 20 }, g)) CollectionAssert.AreEqual(a1, a.ToBytes());

                // A state written by hand is read as (seed, offset).
                var handMade = new byte[16];
                BitConverter.GetBytes(-1L).CopyTo(handMade, 0);
                BitConverter.GetBytes(8L).CopyTo(handMade, 8);
                g.SetState(handMade);
                Assert.AreEqual(-1L, g.InitialSeed);
                Assert.AreEqual(8L, g.Offset);

                // Bad states are refused with the native reason and change nothing.
                byte[] before = g.GetState();
                StringAssert.Contains("15", Fails(StatusCode.Argument, () => g.SetState(new byte[15])).NativeMessage);
                Fails(StatusCode.Argument, () => g.SetState(new byte[17]));
                Assert.Throws<ArgumentNullException>(() => g.SetState(null));
                CollectionAssert.AreEqual(before, g.GetState());
            }

            // torch.get_rng_state / set_rng_state: the CPU default generator.
            Torch.ManualSeed(5);
            byte[] s = Torch.GetRngState();
            Assert.AreEqual(5L, BitConverter.ToInt64(s, 0));
            byte[] r1;
            using (Tensor a = Tensor.Rand(8)) r1 = a.ToBytes();
            Torch.SetRngState(s);
            using (Tensor a = Tensor.Rand(8)) CollectionAssert.AreEqual(r1, a.ToBytes());
            Assert.Throws<ArgumentNullException>(() => Torch.SetRngState(null));
            Fails(StatusCode.Argument, () => Torch.SetRngState(new byte[15]));
        }

        [Test]
        public void GeneratorObjectsAndTheirHandles()
        {
            using (var g = new Generator())
            {
                Assert.AreEqual(Device.Cpu, g.Device);
                Assert.AreEqual("<torch.Generator device=cpu>", g.ToString());
                Assert.AreSame(g, g.ManualSeed(11));
                long a = g.Seed(), b = g.Seed();
                Assert.AreEqual(b, g.InitialSeed);
                Assert.AreNotEqual(a, b, "two 64-bit random seeds");
            }
            using (Generator g = Generator.Create()) Assert.AreEqual(Device.Cpu, g.Device);
            using (Generator g = Generator.Create(Device.Parse("cpu"))) Assert.AreEqual(Device.Cpu, g.Device);

            // The default generator: every object for it is the same native generator.
            using (Generator d1 = Generator.Default())
            using (Generator d2 = Generator.Default(Device.Cpu))
            {
                Assert.AreNotSame(d1, d2);
                d1.ManualSeed(31);
                Assert.AreEqual(31L, d2.InitialSeed);
                Assert.AreEqual(31L, Torch.InitialSeed);
            }

            // NewReference shares the state; the count is of handles, each object disposed on its own.
            long live = Torch.LiveGeneratorCount;
            var x = new Generator().ManualSeed(8);
            Generator y = x.NewReference();
            Assert.AreEqual(live + 1, Torch.LiveGeneratorCount);
            x.Dispose();
            Assert.AreEqual(live + 1, Torch.LiveGeneratorCount);
            Assert.AreEqual(8L, y.InitialSeed);
            y.Dispose();
            y.Dispose();   // twice: nothing
            Assert.AreEqual(live, Torch.LiveGeneratorCount);

            // A raw handle adopted with FromHandle is released by Dispose; the C layer then
            // reports the released handle as 102, never a crash.
            IntPtr raw;
            Assert.AreEqual(0, ctorch.ct_generator_create((int)DeviceType.Cpu, -1, out raw));
            Assert.AreEqual(0, ctorch.ct_generator_retain(raw));
            Assert.AreEqual(0, ctorch.ct_generator_release(raw));
            using (Generator adopted = Generator.FromHandle(raw))
                Assert.AreEqual(Generator.DefaultSeed, adopted.InitialSeed);
            Assert.AreEqual(live, Torch.LiveGeneratorCount);
            long o;
            Assert.AreEqual(102, ctorch.ct_generator_offset(raw, out o));
            StringAssert.Contains("released", ctorch.ct_last_error_message());
            Assert.AreEqual(102, ctorch.ct_generator_release(raw));
        }

        [Test]
        public void DisposedAndForeignGeneratorsAreErrors()
        {
            var disposed = new Generator();
            disposed.Dispose();
            Assert.IsTrue(disposed.IsDisposed);
            Assert.AreEqual("Generator(disposed)", disposed.ToString());
            IntPtr raw;
            Assert.AreEqual(0, ctorch.ct_generator_create((int)DeviceType.Cpu, -1, out raw));
            Assert.AreEqual(0, ctorch.ct_generator_release(raw));
            using (Tensor t = Tensor.Empty(3))
            using (var ghost = new Generator(new GeneratorHandle(raw, false)))
            using (var foreign = new Generator(new GeneratorHandle(t.Handle.DangerousGetHandle(), false)))
            {
                Assert.AreEqual("Generator(CT_ERR_INVALID_HANDLE)", ghost.ToString());
                foreach (Generator g in new[] { disposed, ghost, foreign })
                {
                    TestDelegate[] uses =
                    {
                        () => g.ManualSeed(1), () => g.Seed(), () => GC.KeepAlive(g.InitialSeed),
                        () => GC.KeepAlive(g.Offset), () => GC.KeepAlive(g.Device), () => g.GetState(),
                        () => g.SetState(new byte[16]), () => g.NewReference(),
                        () => Tensor.Rand(new long[] { 3 }, g), () => Tensor.Randn(new long[] { 3 }, g),
                        () => Tensor.Randint(0, 3, new long[] { 3 }, g), () => Tensor.RandLike(t, null, g),
                        () => t.Uniform_(0, 1, g), () => t.Random_(0, 3, g), () => t.Bernoulli_(0.5, g),
                    };
                    foreach (TestDelegate use in uses)
                    {
                        if (g == disposed) Assert.Throws<ObjectDisposedException>(use);
                        else Fails(StatusCode.InvalidHandle, use);
                    }
                }
                StringAssert.Contains("released", Fails(StatusCode.InvalidHandle, () => ghost.Seed()).NativeMessage);
                Assert.IsFalse(t.IsDisposed);
            }
            Assert.Throws<ArgumentNullException>(() => new Generator((GeneratorHandle)null));
            Assert.Throws<ArgumentException>(() => new Generator(new GeneratorHandle(IntPtr.Zero, true)));
        }

        [Test]
        public void NativeArgumentErrorsComeThrough()
        {
            using (Tensor f = Tensor.Empty(4))
            using (Tensor i = Tensor.Empty(new long[] { 4 }, DType.Int64))
            {
                StringAssert.Contains("from", Fails(StatusCode.Argument, () => f.Uniform_(3, 2)).NativeMessage);
                StringAssert.Contains("std", Fails(StatusCode.Argument, () => f.Normal_(0, -1)).NativeMessage);
                StringAssert.Contains("1.5", Fails(StatusCode.Argument, () => f.Bernoulli_(1.5)).NativeMessage);
                Fails(StatusCode.Argument, () => Tensor.Randint(5, 5, new long[] { 3 }));
                Fails(StatusCode.Argument, () => i.Random_(2, 2));
                Fails(StatusCode.DType, () => Tensor.Rand(new long[] { 3 }, DType.Int64));
                Fails(StatusCode.DType, () => Tensor.RandnLike(f, DType.Int16));
                Fails(StatusCode.Shape, () => Tensor.Rand(new long[] { -1 }, DType.Float32));
            }
        }

        [Test]
        public void CudaRandomWithoutAGpu()
        {
            RequireNoGpu();
            Unavailable(() => new Generator(Device.Cuda));
            Unavailable(() => Generator.Default(Device.Cuda));
            Unavailable(() => Cuda.DefaultGenerator());
            Unavailable(() => Tensor.Rand(new long[] { 3 }, Device.Cuda));
            // As torch: seeding CUDA without CUDA does nothing and succeeds.
            Cuda.ManualSeed(1);
            Cuda.ManualSeedAll(2);
            Cuda.Seed();
            Cuda.SeedAll();
            Unavailable(() => GC.KeepAlive(Cuda.InitialSeed));
            Unavailable(() => Cuda.GetRngState());
            Unavailable(() => Cuda.GetRngState(Device.Cuda));
            Unavailable(() => Cuda.SetRngState(new byte[16]));
            Unavailable(() => Cuda.SetRngState(new byte[16], Device.CudaAt(0)));
            Assert.AreEqual(0, Cuda.GetRngStateAll().Length);
            Cuda.SetRngStateAll(new byte[0][]);
            Fails(StatusCode.Argument, () => Cuda.SetRngStateAll(new[] { new byte[16] }));
            Assert.Throws<ArgumentException>(() => Cuda.SetRngStateAll(new[] { new byte[15] }));
            Assert.Throws<ArgumentNullException>(() => Cuda.SetRngStateAll(new byte[][] { null }));
            Assert.Throws<ArgumentNullException>(() => Cuda.SetRngStateAll(null));
            Assert.Throws<ArgumentNullException>(() => Cuda.SetRngState(null));
            Assert.Throws<ArgumentException>(() => Cuda.GetRngState(Device.Cpu));
        }

        [Test]
        public void CudaGeneratorsAndState()
        {
            RequireGpu();
            Torch.ManualSeed(67280421310721L);
            Assert.AreEqual(67280421310721L, Cuda.InitialSeed, "torch.manual_seed seeds CUDA too");
            using (Tensor r = Tensor.Rand(new long[] { 7 }, Device.Cuda))
            using (Tensor c = r.Cpu())
                CollectionAssert.AreEqual(DefaultSeedRand7, c.ToArray<float>());
            byte[] state = Cuda.GetRngState();
            Assert.AreEqual(4L, BitConverter.ToInt64(state, 8));
            int cur = Cuda.CurrentDevice;
            CollectionAssert.AreEqual(state, Cuda.GetRngState(cur));
            CollectionAssert.AreEqual(state, Cuda.GetRngState(Device.CudaAt(cur)));
            Cuda.ManualSeed(4242);
            Cuda.SetRngState(state);
            CollectionAssert.AreEqual(state, Cuda.GetRngState());
            byte[][] all = Cuda.GetRngStateAll();
            Assert.AreEqual(Cuda.DeviceCount, all.Length);
            Cuda.ManualSeedAll(1);
            Cuda.SetRngStateAll(all);
            CollectionAssert.AreEqual(all[cur], Cuda.GetRngState(cur));
            Fails(StatusCode.Index, () => Cuda.GetRngState(Cuda.DeviceCount));
            Cuda.Seed();
            Cuda.SeedAll();
            using (Generator dg = Cuda.DefaultGenerator())
                Assert.AreEqual(Device.CudaAt(cur), dg.Device);
            using (var cpu = new Generator())
            using (var cuda = new Generator(Device.Cuda))
            using (Tensor onGpu = Tensor.Zeros(new long[] { 4 }, Device.Cuda))
            {
                StringAssert.StartsWith("<torch.Generator device=cuda:", cuda.ToString());
                StringAssert.Contains("generator", Fails(StatusCode.Device, () => onGpu.Uniform_(0, 1, cpu)).NativeMessage);
                onGpu.Normal_(0, 1, cuda);
                Assert.AreEqual(4, cuda.Offset);
            }
        }
    }
}
