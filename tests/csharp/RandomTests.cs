// Random numbers (section 16 of capi/ctorch.h): Generator objects and their lifetimes, the
// torch-level and torch.cuda seeding functions, rand/randn/randint/*_like and the in-place draws.
// Expected values come from outside ctorch: the seven float32 values of torch.rand(7) under the
// default seed (computed on the host from cuRAND's Philox by the task's author, printed with %.9g),
// and PhiloxRef below, this file's own Philox4x32-10 written from cuRAND's definition (counter =
// (offset / 4, subsequence), key = seed, ten rounds; curand_uniform = x * 2^-32 + 2^-33) and
// PyTorch's element rule (element i < 256 of a small tensor is the first value of thread i's
// first draw). TestBase checks the live generator count after each test as it does tensors,
// streams and events. GPU cases skip visibly without a GPU.
using System;
using System.Linq;
using Ctorch;
using Ctorch.Swig;
using NUnit.Framework;

namespace Ctorch.Tests
{
    /// <summary>Philox4x32-10 as cuRAND's curandStatePhilox4_32_10_t (an independent reference).</summary>
    internal static class PhiloxRef
    {
        private const uint M0 = 0xD2511F53, M1 = 0xCD9E8D57, W0 = 0x9E3779B9, W1 = 0xBB67AE85;

        /// <summary>The first curand4() of curand_init(seed, subsequence, offset) (offset a
        /// multiple of 4).</summary>
        internal static uint[] Draw(ulong seed, ulong subsequence, ulong offset)
        {
            ulong block = offset / 4;
            uint c0 = (uint)block, c1 = (uint)(block >> 32), c2 = (uint)subsequence, c3 = (uint)(subsequence >> 32);
            uint k0 = (uint)seed, k1 = (uint)(seed >> 32);
            for (int round = 0; round < 10; round++)
            {
                ulong p0 = (ulong)M0 * c0, p1 = (ulong)M1 * c2;
                uint hi0 = (uint)(p0 >> 32), lo0 = (uint)p0, hi1 = (uint)(p1 >> 32), lo1 = (uint)p1;
                uint n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
                c0 = n0; c1 = lo1; c2 = n2; c3 = lo0;
                k0 += W0; k1 += W1;
            }
            return new[] { c0, c1, c2, c3 };
        }

        /// <summary>curand_uniform of one 32-bit value: (0, 1].</summary>
        internal static float Uniform(uint x)
        {
            float scaled = (float)((float)x * (1.0f / 4294967296.0f));
            return (float)(scaled + (1.0f / 8589934592.0f));
        }

        /// <summary>curand_uniform2_double's first value from two 32-bit values.</summary>
        internal static double UniformDouble(uint x, uint y)
        {
            ulong z = (ulong)x ^ ((ulong)y << (53 - 32));
            const double inv53 = 1.0 / 9007199254740992.0;
            return z * inv53 + inv53 / 2.0;
        }

        /// <summary>torch.rand(n) (float32, n &lt;= 256) from (seed, offset): PyTorch's [0, 1).</summary>
        internal static float[] Rand(ulong seed, ulong offset, int n)
        {
            var r = new float[n];
            for (int i = 0; i < n; i++)
            {
                float u = Uniform(Draw(seed, (ulong)i, offset)[0]);
                r[i] = u == 1.0f ? 0.0f : u;
            }
            return r;
        }
    }

    [TestFixture]
    public class RandomTests : TestBase
    {
        // torch.rand(7) after torch.manual_seed(67280421310721), as %.9g.
        private static readonly string[] DefaultSeedRand7 =
            { "0.393125594", "0.511568964", "0.885066867", "0.440388322", "0.89984709", "0.121816903", "0.530436516" };

        private static float[] ParseFloats(string[] s) =>
            s.Select(x => float.Parse(x, System.Globalization.CultureInfo.InvariantCulture)).ToArray();

        private static int[] Bits(float[] v) => v.Select(f => BitConverter.ToInt32(BitConverter.GetBytes(f), 0)).ToArray();

        private static long[] Bits(double[] v) => v.Select(BitConverter.DoubleToInt64Bits).ToArray();

        private static void BitsEqual(float[] expected, Tensor t, string what)
        {
            Assert.AreEqual(DType.Float32, t.DType, what + ": dtype");
            CollectionAssert.AreEqual(Bits(expected), Bits(t.Cpu().ToArray<float>()), what);
        }

        private static long DefaultOffset(Device device)
        {
            using (Generator g = Generator.Default(device)) return g.Offset;
        }

        // ---------------------------------------------------------------- reference values

        [Test]
        public void DefaultSeedGivesTheReferenceValues()
        {
            Assert.AreEqual(67280421310721L, Generator.DefaultSeed);
            Assert.AreEqual(16, Generator.StateSize);
            Torch.ManualSeed(67280421310721L);
            Assert.AreEqual(67280421310721L, Torch.InitialSeed);
            Assert.AreEqual(0, DefaultOffset(Device.Cpu));

            float[] expected = ParseFloats(DefaultSeedRand7);
            // The two references agree with each other ...
            CollectionAssert.AreEqual(Bits(expected), Bits(PhiloxRef.Rand(67280421310721UL, 0, 7)));
            // ... and with ctorch, bit for bit.
            using (Tensor r = Tensor.Rand(7))
            {
                ShapeIs(r, 7);
                Assert.AreEqual(Device.Cpu, r.Device);
                BitsEqual(expected, r, "torch.rand(7) under the default seed");
            }
            Assert.AreEqual(4, DefaultOffset(Device.Cpu));
            using (Tensor n = Tensor.Randn((1L << 20) + 3))
                ShapeIs(n, (1L << 20) + 3);
            Assert.AreEqual(8, DefaultOffset(Device.Cpu));

            // A fresh generator starts at the default seed: the same values.
            using (var g = new Generator())
            {
                Assert.AreEqual(Generator.DefaultSeed, g.InitialSeed);
                Assert.AreEqual(0, g.Offset);
                using (Tensor r = Tensor.Rand(new long[] { 7 }, g)) BitsEqual(expected, r, "a new Generator");
                Assert.AreEqual(4, g.Offset);
            }
        }

        [Test]
        public void OtherSeedsAndLaterDrawsMatchPhilox()
        {
            using (var g = new Generator().ManualSeed(42))
            {
                using (Tensor a = Tensor.Rand(new long[] { 200 }, g)) BitsEqual(PhiloxRef.Rand(42, 0, 200), a, "seed 42, first draw");
                Assert.AreEqual(4, g.Offset);
                using (Tensor b = Tensor.Rand(new long[] { 9 }, g)) BitsEqual(PhiloxRef.Rand(42, 4, 9), b, "seed 42, second draw");
                Assert.AreEqual(8, g.Offset);

                // randint(low, high): (first 32-bit value % range) + low, as PyTorch's uniform_int_from_to.
                using (Tensor c = Tensor.Randint(-3, 10, new long[] { 50 }, g))
                {
                    long[] want = Enumerable.Range(0, 50).Select(i => (long)(PhiloxRef.Draw(42, (ulong)i, 8)[0] % 13) - 3).ToArray();
                    AreEqual(want, c);
                }
                Assert.AreEqual(12, g.Offset);

                // float64: curand_uniform2_double's first value of each thread.
                using (Tensor d = Tensor.Rand(new long[] { 5 }, DType.Float64, Device.Cpu, g))
                {
                    double[] want = Enumerable.Range(0, 5).Select(i =>
                    {
                        uint[] r = PhiloxRef.Draw(42, (ulong)i, 12);
                        return PhiloxRef.UniformDouble(r[0], r[1]);
                    }).ToArray();
                    CollectionAssert.AreEqual(Bits(want), Bits(d.ToArray<double>()));
                }

                // bernoulli_(p): 1 where the float draw is below p.
                using (Tensor e = Tensor.Zeros(new long[] { 100 }, DType.Float32))
                {
                    e.Bernoulli_(0.25, g);
                    float[] want = Enumerable.Range(0, 100)
                        .Select(i => PhiloxRef.Uniform(PhiloxRef.Draw(42, (ulong)i, 16)[0]) < 0.25f ? 1f : 0f).ToArray();
                    CollectionAssert.AreEqual(want, e.ToArray<float>());
                }
            }
        }

        [Test]
        public void NegativeSeedsAreTheSame64Bits()
        {
            using (var g = new Generator().ManualSeed(-1))
            {
                Assert.AreEqual(-1L, g.InitialSeed);
                using (Tensor a = Tensor.Rand(new long[] { 6 }, g)) BitsEqual(PhiloxRef.Rand(ulong.MaxValue, 0, 6), a, "seed -1 = 2^64 - 1");
                byte[] state = g.GetState();
                CollectionAssert.AreEqual(Enumerable.Repeat((byte)0xff, 8).ToArray(), state.Take(8).ToArray());
            }
            Torch.ManualSeed(unchecked((long)0x8000000000000001UL));
            Assert.AreEqual(long.MinValue + 1, Torch.InitialSeed);
            using (Tensor b = Tensor.Rand(3)) BitsEqual(PhiloxRef.Rand(0x8000000000000001UL, 0, 3), b, "seed with the top bit");
        }

        // ---------------------------------------------------------------- seeding and state

        [Test]
        public void SameSeedSameValues()
        {
            Torch.ManualSeed(1234);
            float[] first, second;
            using (Tensor a = Tensor.Rand(64)) first = a.ToArray<float>();
            using (Tensor a = Tensor.Rand(64)) second = a.ToArray<float>();
            CollectionAssert.AreNotEqual(first, second, "the offset moved on");
            Torch.ManualSeed(1234);
            using (Tensor a = Tensor.Rand(64)) CollectionAssert.AreEqual(first, a.ToArray<float>());
            using (Tensor a = Tensor.Rand(64)) CollectionAssert.AreEqual(second, a.ToArray<float>());
            Torch.ManualSeed(1235);
            using (Tensor a = Tensor.Rand(64)) CollectionAssert.AreNotEqual(first, a.ToArray<float>());

            // Every op, twice from the same seed.
            Func<Generator, Tensor>[] ops =
            {
                g => Tensor.Randn(new long[] { 33 }, g),
                g => Tensor.Randn(new long[] { 33 }, DType.Float64, null, g),
                g => Tensor.Randint(0, 1000, new long[] { 33 }, g),
                g => Tensor.Empty(33).Uniform_(-1, 1, g),
                g => Tensor.Empty(33).Normal_(3, 2, g),
                g => Tensor.Empty(new long[] { 33 }, DType.Int64).Random_(g),
                g => Tensor.Empty(new long[] { 33 }, DType.Int32).Random_(-50, 50, g),
                g => Tensor.Empty(33).Bernoulli_(0.5, g),
                g => Tensor.RandLike(Tensor.Empty(33), DType.Float64, g),
                g => Tensor.RandnLike(Tensor.Empty(33), null, g),
            };
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
        }

        [Test]
        public void StateRoundTripRepeatsASequence()
        {
            using (var g = new Generator().ManualSeed(2024))
            {
                using (Tensor warm = Tensor.Randn(new long[] { 10 }, g)) { }
                byte[] state = g.GetState();
                Assert.AreEqual(16, state.Length);
                Assert.AreEqual(2024L, BitConverter.ToInt64(state, 0), "seed, little-endian");
                Assert.AreEqual(4L, BitConverter.ToInt64(state, 8), "offset, little-endian");

                byte[] a1, a2;
                using (Tensor a = Tensor.Rand(new long[] { 20 }, g)) a1 = a.ToBytes();
                using (Tensor a = Tensor.Randint(0, 9, new long[] { 20 }, g)) a2 = a.ToBytes();
                Assert.AreEqual(12, g.Offset);

                Assert.AreSame(g, g.SetState(state));
                Assert.AreEqual(4, g.Offset);
                Assert.AreEqual(2024L, g.InitialSeed);
                using (Tensor a = Tensor.Rand(new long[] { 20 }, g)) CollectionAssert.AreEqual(a1, a.ToBytes());
                using (Tensor a = Tensor.Randint(0, 9, new long[] { 20 }, g)) CollectionAssert.AreEqual(a2, a.ToBytes());

                // The state moves to another generator: same values there.
                using (var h = new Generator())
                {
                    h.SetState(state);
                    using (Tensor a = Tensor.Rand(new long[] { 20 }, h)) CollectionAssert.AreEqual(a1, a.ToBytes());
                }

                // A state written by hand: seed 42, offset 4 = the second draw after manual_seed(42).
                var handMade = new byte[16];
                BitConverter.GetBytes(42L).CopyTo(handMade, 0);
                BitConverter.GetBytes(4L).CopyTo(handMade, 8);
                g.SetState(handMade);
                using (Tensor a = Tensor.Rand(new long[] { 5 }, g)) BitsEqual(PhiloxRef.Rand(42, 4, 5), a, "state (42, 4)");
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
        }

        [Test]
        public void BadStatesAreRejectedAndChangeNothing()
        {
            using (var g = new Generator().ManualSeed(9))
            {
                using (Tensor t = Tensor.Rand(new long[] { 3 }, g)) { }
                byte[] before = g.GetState();
                CtorchException e = Fails(StatusCode.Argument, () => g.SetState(new byte[15]));
                StringAssert.Contains("15", e.NativeMessage);
                Fails(StatusCode.Argument, () => g.SetState(new byte[17]));
                Fails(StatusCode.Argument, () => g.SetState(new byte[0]));
                var odd = new byte[16];
                BitConverter.GetBytes(6L).CopyTo(odd, 8);        // offset not a multiple of 4
                Fails(StatusCode.Argument, () => g.SetState(odd));
                var negative = new byte[16];
                BitConverter.GetBytes(-4L).CopyTo(negative, 8);
                Fails(StatusCode.Argument, () => g.SetState(negative));
                Assert.Throws<ArgumentNullException>(() => g.SetState(null));
                CollectionAssert.AreEqual(before, g.GetState());
                Fails(StatusCode.Argument, () => Torch.SetRngState(new byte[15]));
            }
        }

        [Test]
        public void GeneratorsWithTheSameSeedAgreeAndLeaveTheDefaultAlone()
        {
            Torch.ManualSeed(7);
            using (var g1 = new Generator().ManualSeed(99))
            using (var g2 = new Generator().ManualSeed(99))
            {
                byte[] a, b;
                using (Tensor t = Tensor.Rand(new long[] { 16 }, g1)) a = t.ToBytes();
                Assert.AreEqual(4, g1.Offset);
                Assert.AreEqual(0, g2.Offset, "g2 did not move");
                Assert.AreEqual(0, DefaultOffset(Device.Cpu), "the default generator did not move");

                using (Tensor t = Tensor.Rand(16)) BitsEqual(PhiloxRef.Rand(7, 0, 16), t, "default generator, seed 7");
                Assert.AreEqual(4, DefaultOffset(Device.Cpu));
                Assert.AreEqual(4, g1.Offset);
                Assert.AreEqual(0, g2.Offset);

                using (Tensor t = Tensor.Rand(new long[] { 16 }, g2)) b = t.ToBytes();
                CollectionAssert.AreEqual(a, b);
                BitsEqual(PhiloxRef.Rand(99, 0, 16), Tensor.Rand(new long[] { 16 }, g1.ManualSeed(99)), "seed 99");
                Assert.AreEqual(7L, Torch.InitialSeed);
            }
        }

        [Test]
        public void OffsetAdvancesByFourPerSmallOp()
        {
            using (var g = new Generator())
            using (Tensor f = Tensor.Empty(10))
            using (Tensor i = Tensor.Empty(new long[] { 10 }, DType.Int64))
            {
                long expected = 0;
                Action[] ops =
                {
                    () => Tensor.Rand(new long[] { 10 }, g).Dispose(),
                    () => Tensor.Randn(new long[] { 3, 4 }, g).Dispose(),
                    () => Tensor.Randint(0, 5, new long[] { 10 }, g).Dispose(),
                    () => Tensor.RandLike(f, null, g).Dispose(),
                    () => Tensor.RandnLike(f, null, g).Dispose(),
                    () => f.Uniform_(0, 1, g),
                    () => f.Normal_(0, 1, g),
                    () => i.Random_(g),
                    () => i.Random_(100, g),
                    () => i.Random_(-5, 5, g),
                    () => f.Bernoulli_(0.5, g),
                    () => Tensor.Rand(new long[] { 10 }, DType.Float64, Device.Cpu, g).Dispose(),
                };
                foreach (Action op in ops)
                {
                    op();
                    expected += 4;
                    Assert.AreEqual(expected, g.Offset);
                }
                // An empty tensor draws nothing.
                Tensor.Rand(new long[] { 0 }, g).Dispose();
                Assert.AreEqual(expected, g.Offset);
                g.ManualSeed(3);
                Assert.AreEqual(0, g.Offset, "manual_seed starts the offset again");
            }
        }

        [Test]
        public void SeedIsNonDeterministicAndRecorded()
        {
            long s = Torch.Seed();
            Assert.AreEqual(s, Torch.InitialSeed);
            using (Generator d = Generator.Default())
            {
                Assert.AreEqual(s, d.InitialSeed);
                Assert.AreEqual(0, d.Offset);
            }
            using (var g = new Generator())
            {
                long a = g.Seed();
                Assert.AreEqual(a, g.InitialSeed);
                long b = g.Seed();
                Assert.AreEqual(b, g.InitialSeed);
                Assert.AreNotEqual(a, b, "two 64-bit random seeds");
                Assert.AreNotEqual(s, a);
            }
        }

        // ---------------------------------------------------------------- the Generator object

        [Test]
        public void GeneratorObjectBasics()
        {
            using (var g = new Generator())
            {
                Assert.AreEqual(Device.Cpu, g.Device);
                Assert.AreEqual("<torch.Generator device=cpu>", g.ToString());
                Assert.IsFalse(g.IsDisposed);
                Assert.AreSame(g, g.ManualSeed(11));
            }
            using (Generator g = Generator.Create())
                Assert.AreEqual(Device.Cpu, g.Device);
            using (Generator g = Generator.Create(Device.Parse("cpu")))
                Assert.AreEqual(Device.Cpu, g.Device);

            // The default generator: every object for it is the same native generator.
            using (Generator d1 = Generator.Default())
            using (Generator d2 = Generator.Default(Device.Cpu))
            {
                Assert.AreNotSame(d1, d2);
                d1.ManualSeed(31);
                Assert.AreEqual(31L, d2.InitialSeed);
                Assert.AreEqual(31L, Torch.InitialSeed);
                using (Tensor t = Tensor.Rand(4)) { }
                Assert.AreEqual(4, d2.Offset);
            }

            // NewReference shares the state; each object is disposed on its own. The count is of
            // handles: a retained handle counts once until its last reference is released.
            long live = Torch.LiveGeneratorCount;
            var a = new Generator().ManualSeed(8);
            Assert.AreEqual(live + 1, Torch.LiveGeneratorCount);
            Generator b = a.NewReference();
            Assert.AreEqual(live + 1, Torch.LiveGeneratorCount);
            a.Dispose();
            Assert.IsTrue(a.IsDisposed);
            Assert.AreEqual(live + 1, Torch.LiveGeneratorCount);
            Assert.AreEqual(8L, b.InitialSeed);
            using (Tensor t = Tensor.Rand(new long[] { 5 }, b)) BitsEqual(PhiloxRef.Rand(8, 0, 5), t, "through the second reference");
            b.Dispose();
            b.Dispose();   // twice: nothing
            Assert.AreEqual(live, Torch.LiveGeneratorCount);

            // An object for the default generator holds a handle until disposed; the generator
            // itself lives on.
            using (Generator d = Generator.Default())
                Assert.AreEqual(live + 1, Torch.LiveGeneratorCount);
            Assert.AreEqual(live, Torch.LiveGeneratorCount);

            // A raw handle adopted with FromHandle is released by Dispose.
            IntPtr raw;
            Assert.AreEqual(0, ctorch.ct_generator_create((int)DeviceType.Cpu, -1, out raw));
            using (Generator adopted = Generator.FromHandle(raw))
            {
                Assert.AreEqual(live + 1, Torch.LiveGeneratorCount);
                Assert.AreEqual(Generator.DefaultSeed, adopted.InitialSeed);
            }
            Assert.AreEqual(live, Torch.LiveGeneratorCount);
            long o;
            Assert.AreEqual(102, ctorch.ct_generator_offset(raw, out o));
        }

        [Test]
        public void DisposedGeneratorsThrowObjectDisposed()
        {
            var g = new Generator();
            g.Dispose();
            Assert.IsTrue(g.IsDisposed);
            Assert.AreEqual("Generator(disposed)", g.ToString());
            using (Tensor t = Tensor.Empty(3))
            {
                Assert.Throws<ObjectDisposedException>(() => g.ManualSeed(1));
                Assert.Throws<ObjectDisposedException>(() => g.Seed());
                Assert.Throws<ObjectDisposedException>(() => GC.KeepAlive(g.InitialSeed));
                Assert.Throws<ObjectDisposedException>(() => GC.KeepAlive(g.Offset));
                Assert.Throws<ObjectDisposedException>(() => GC.KeepAlive(g.Device));
                Assert.Throws<ObjectDisposedException>(() => g.GetState());
                Assert.Throws<ObjectDisposedException>(() => g.SetState(new byte[16]));
                Assert.Throws<ObjectDisposedException>(() => g.NewReference());
                Assert.Throws<ObjectDisposedException>(() => Tensor.Rand(new long[] { 3 }, g));
                Assert.Throws<ObjectDisposedException>(() => Tensor.Randn(new long[] { 3 }, g));
                Assert.Throws<ObjectDisposedException>(() => Tensor.Randint(0, 3, new long[] { 3 }, g));
                Assert.Throws<ObjectDisposedException>(() => Tensor.RandLike(t, null, g));
                Assert.Throws<ObjectDisposedException>(() => Tensor.RandnLike(t, null, g));
                Assert.Throws<ObjectDisposedException>(() => t.Uniform_(0, 1, g));
                Assert.Throws<ObjectDisposedException>(() => t.Normal_(0, 1, g));
                Assert.Throws<ObjectDisposedException>(() => t.Random_(g));
                Assert.Throws<ObjectDisposedException>(() => t.Random_(0, 3, g));
                Assert.Throws<ObjectDisposedException>(() => t.Bernoulli_(0.5, g));
            }
            Assert.Throws<ArgumentNullException>(() => new Generator((GeneratorHandle)null));
            Assert.Throws<ArgumentException>(() => new Generator(new GeneratorHandle()));
        }

        [Test]
        public void ReleasedAndForeignHandlesAreInvalidHandleErrors()
        {
            // The C layer: a released handle (and releasing it twice) is 102, never a crash.
            IntPtr raw;
            Assert.AreEqual(0, ctorch.ct_generator_create((int)DeviceType.Cpu, -1, out raw));
            Assert.AreEqual(0, ctorch.ct_generator_retain(raw));
            Assert.AreEqual(0, ctorch.ct_generator_release(raw));
            Assert.AreEqual(0, ctorch.ct_generator_release(raw));
            long o;
            Assert.AreEqual(102, ctorch.ct_generator_offset(raw, out o));
            StringAssert.Contains("released", ctorch.ct_last_error_message());
            Assert.AreEqual(102, ctorch.ct_generator_release(raw));
            Assert.AreEqual(102, ctorch.ct_generator_retain(raw));
            Assert.AreEqual(102, ctorch.ct_generator_offset(IntPtr.Zero, out o));

            // Through the idiomatic layer, with wrappers that do not own the values: a released
            // generator, and a tensor handle passed as a generator.
            using (var ghost = new Generator(new GeneratorHandle(raw, false)))
            using (Tensor t = Tensor.Empty(3))
            using (var foreign = new Generator(new GeneratorHandle(t.Handle.DangerousGetHandle(), false)))
            {
                CtorchException e = Fails(StatusCode.InvalidHandle, () => GC.KeepAlive(ghost.Offset));
                StringAssert.Contains("released", e.NativeMessage);
                Assert.AreEqual("Generator(CT_ERR_INVALID_HANDLE)", ghost.ToString());
                foreach (Generator g in new[] { ghost, foreign })
                {
                    Fails(StatusCode.InvalidHandle, () => g.ManualSeed(1));
                    Fails(StatusCode.InvalidHandle, () => g.Seed());
                    Fails(StatusCode.InvalidHandle, () => GC.KeepAlive(g.InitialSeed));
                    Fails(StatusCode.InvalidHandle, () => GC.KeepAlive(g.Device));
                    Fails(StatusCode.InvalidHandle, () => g.GetState());
                    Fails(StatusCode.InvalidHandle, () => g.SetState(new byte[16]));
                    Fails(StatusCode.InvalidHandle, () => g.NewReference());
                    Fails(StatusCode.InvalidHandle, () => Tensor.Rand(new long[] { 3 }, g));
                    Fails(StatusCode.InvalidHandle, () => Tensor.Randn(new long[] { 3 }, g));
                    Fails(StatusCode.InvalidHandle, () => Tensor.Randint(0, 3, new long[] { 3 }, g));
                    Fails(StatusCode.InvalidHandle, () => Tensor.RandLike(t, null, g));
                    Fails(StatusCode.InvalidHandle, () => t.Uniform_(0, 1, g));
                    Fails(StatusCode.InvalidHandle, () => t.Normal_(0, 1, g));
                    Fails(StatusCode.InvalidHandle, () => t.Random_(g));
                    Fails(StatusCode.InvalidHandle, () => t.Random_(0, 3, g));
                    Fails(StatusCode.InvalidHandle, () => t.Bernoulli_(0.5, g));
                }
                // The tensor itself is untouched by the failed calls.
                Assert.IsFalse(t.IsDisposed);
            }
        }

        // ---------------------------------------------------------------- ranges and dtypes

        [Test]
        public void UniformRandintAndRandomStayInTheirRanges()
        {
            using (var g = new Generator().ManualSeed(314))
            {
                float[] u = Tensor.Empty(20000).Uniform_(-2.0, 3.0, g).ToArray<float>();
                Assert.That(u.All(x => x >= -2.0f && x < 3.0f), "uniform_(-2, 3) in [-2, 3)");
                Assert.Less(u.Min(), -1.99f);
                Assert.Greater(u.Max(), 2.99f);
                Assert.AreEqual(0.5, u.Average(), 0.05);
                float[] one = Tensor.Empty(10).Uniform_(1.5, 1.5, g).ToArray<float>();
                Assert.That(one.All(x => x == 1.5f), "uniform_(1.5, 1.5)");

                float[] r = Tensor.Rand(new long[] { 20000 }, g).ToArray<float>();
                Assert.That(r.All(x => x >= 0f && x < 1f), "rand in [0, 1)");

                long[] ri = Tensor.Randint(-5, 5, new long[] { 20000 }, g).ToArray<long>();
                Assert.That(ri.All(x => x >= -5 && x < 5), "randint in [-5, 5)");
                CollectionAssert.AreEquivalent(Enumerable.Range(-5, 10).Select(x => (long)x), ri.Distinct());

                using (Tensor hi = Tensor.Randint(3, new long[] { 2, 500 }, DType.Int32, Device.Cpu, g))
                {
                    ShapeIs(hi, 2, 500);
                    Assert.AreEqual(DType.Int32, hi.DType);
                    CollectionAssert.AreEquivalent(new[] { 0, 1, 2 }, hi.ToArray<int>().Distinct());
                }
                // Wide ranges (64-bit draws) stay in range too.
                long[] wide = Tensor.Randint(long.MinValue / 2, long.MaxValue / 2, new long[] { 1000 }, g).ToArray<long>();
                Assert.That(wide.All(x => x >= long.MinValue / 2 && x < long.MaxValue / 2));
                Assert.That(wide.Any(x => x < long.MinValue / 4) && wide.Any(x => x > long.MaxValue / 4), "spread over the range");

                byte[] b = Tensor.Empty(new long[] { 5000 }, DType.UInt8).Random_(g).ToArray<byte>();
                Assert.AreEqual(255, b.Max());
                Assert.AreEqual(0, b.Min());
                sbyte[] s8 = Tensor.Empty(new long[] { 5000 }, DType.Int8).Random_(g).ToArray<sbyte>();
                Assert.That(s8.All(x => x >= 0), "random_() of int8: [0, 127]");
                Assert.AreEqual(127, s8.Max());
                bool[] bits = Tensor.Empty(new long[] { 200 }, DType.Bool).Random_(g).ToArray<bool>();
                Assert.That(bits.Contains(true) && bits.Contains(false));
                float[] fr = Tensor.Empty(2000).Random_(g).ToArray<float>();
                Assert.That(fr.All(x => x >= 0 && x <= (1 << 24) && x == Math.Floor(x)), "random_() of float32: integers in [0, 2^24]");

                short[] s16 = Tensor.Empty(new long[] { 5000 }, DType.Int16).Random_(-3, 4, g).ToArray<short>();
                CollectionAssert.AreEquivalent(Enumerable.Range(-3, 7).Select(x => (short)x), s16.Distinct());
                long[] to = Tensor.Empty(new long[] { 5000 }, DType.Int64).Random_(6, g).ToArray<long>();
                CollectionAssert.AreEquivalent(Enumerable.Range(0, 6).Select(x => (long)x), to.Distinct());
                double[] dr = Tensor.Empty(new long[] { 1000 }, DType.Float64).Random_(10, 20, g).ToArray<double>();
                Assert.That(dr.All(x => x >= 10 && x < 20 && x == Math.Floor(x)));
            }
        }

        [Test]
        public void BernoulliAndNormal()
        {
            using (var g = new Generator().ManualSeed(2718))
            {
                foreach (DType dt in new[] { DType.Float32, DType.Float64, DType.Int64, DType.Bool, DType.UInt8 })
                {
                    using (Tensor z = Tensor.Full(new long[] { 1000 }, 1.0, dt).Bernoulli_(0.0, g))
                    using (Tensor zs = z.To(DType.Float64))
                        Assert.That(zs.ToArray<double>().All(x => x == 0), "bernoulli_(0) of " + dt);
                    using (Tensor o = Tensor.Zeros(new long[] { 1000 }, dt).Bernoulli_(1.0, g))
                    using (Tensor os = o.To(DType.Float64))
                        Assert.That(os.ToArray<double>().All(x => x == 1), "bernoulli_(1) of " + dt);
                }
                float[] p = Tensor.Empty(20000).Bernoulli_(0.3, g).ToArray<float>();
                Assert.That(p.All(x => x == 0f || x == 1f));
                Assert.AreEqual(0.3, p.Average(), 0.02);
                float[] half = Tensor.Empty(20000).Bernoulli_(generator: g).ToArray<float>();
                Assert.AreEqual(0.5, half.Average(), 0.02, "p defaults to 0.5");

                double[] n = Tensor.Empty(new long[] { 100000 }, DType.Float64).Normal_(2.0, 3.0, g).ToArray<double>();
                double mean = n.Average(), sd = Math.Sqrt(n.Select(x => (x - mean) * (x - mean)).Average());
                Assert.AreEqual(2.0, mean, 0.05);
                Assert.AreEqual(3.0, sd, 0.05);
                float[] c = Tensor.Empty(10).Normal_(5.0, 0.0, g).ToArray<float>();
                Assert.That(c.All(x => x == 5f), "normal_(5, 0)");
                float[] sn = Tensor.Randn(new long[] { 100000 }, g).ToArray<float>();
                double m2 = sn.Average(x => (double)x), sd2 = Math.Sqrt(sn.Average(x => ((double)x - m2) * ((double)x - m2)));
                Assert.AreEqual(0.0, m2, 0.02);
                Assert.AreEqual(1.0, sd2, 0.02);
            }
        }

        [Test]
        public void HalfBFloat16AndDoubleVariants()
        {
            foreach (DType dt in new[] { DType.Float16, DType.BFloat16, DType.Float64 })
            {
                using (var g = new Generator().ManualSeed(5))
                using (Tensor r = Tensor.Rand(new long[] { 3000 }, dt, Device.Cpu, g))
                using (Tensor n = Tensor.Randn(new long[] { 3000 }, dt, Device.Cpu, g))
                using (Tensor u = Tensor.Empty(new long[] { 3000 }, dt).Uniform_(-4, 4, g))
                using (Tensor rl = Tensor.RandLike(u, null, g))
                using (Tensor nl = Tensor.RandnLike(u, null, g))
                {
                    foreach (Tensor t in new[] { r, n, u, rl, nl }) Assert.AreEqual(dt, t.DType);
                    double[] rv = r.To(DType.Float64).ToArray<double>();
                    Assert.That(rv.All(x => x >= 0 && x < 1), "rand of " + dt + " in [0, 1)");
                    double[] uv = u.To(DType.Float64).ToArray<double>();
                    Assert.That(uv.All(x => x >= -4 && x < 4), "uniform_ of " + dt);
                    double[] nv = n.To(DType.Float64).ToArray<double>();
                    Assert.AreEqual(0.0, nv.Average(), 0.1);
                    Assert.That(nv.Any(x => x < -1) && nv.Any(x => x > 1));
                    Assert.AreEqual(20, g.Offset);
                }
            }

            // A 16-bit draw is the float32 draw rounded to the dtype (a value rounded up to 1
            // becomes 0, as PyTorch's uniform_), from the same seed.
            foreach (DType dt in new[] { DType.Float16, DType.BFloat16 })
            {
                using (var g1 = new Generator().ManualSeed(6))
                using (var g2 = new Generator().ManualSeed(6))
                using (Tensor narrow = Tensor.Rand(new long[] { 256 }, dt, Device.Cpu, g1))
                using (Tensor wide = Tensor.Rand(new long[] { 256 }, g2))
                using (Tensor rounded = wide.To(dt))
                {
                    float[] want = rounded.Float().ToArray<float>().Select(x => x == 1f ? 0f : x).ToArray();
                    CollectionAssert.AreEqual(want, narrow.Float().ToArray<float>(), dt.ToString());
                }
            }

            // rand_like keeps shape and device, takes the dtype from the tensor or from dtype.
            using (Tensor src = Tensor.Zeros(new long[] { 2, 3 }, DType.Float64))
            using (Tensor a = Tensor.RandLike(src))
            using (Tensor b = Tensor.RandnLike(src, DType.Float16))
            {
                ShapeIs(a, 2, 3);
                ShapeIs(b, 2, 3);
                Assert.AreEqual(DType.Float64, a.DType);
                Assert.AreEqual(DType.Float16, b.DType);
                Assert.AreEqual(Device.Cpu, b.Device);
            }

            // Non-contiguous views are filled in place through the view.
            using (Tensor m = Tensor.Zeros(4, 6))
            using (Tensor col = m.Select(1, 2))
            {
                col.Uniform_(10, 11);
                double[] all = m.To(DType.Float64).ToArray<double>();
                for (int i = 0; i < 24; i++)
                {
                    if (i % 6 == 2) Assert.That(all[i] >= 10 && all[i] < 11, "element " + i);
                    else Assert.AreEqual(0.0, all[i], "element " + i);
                }
            }
        }

        [Test]
        public void FactoryOverloads()
        {
            Torch.ManualSeed(100);
            using (Tensor a = Tensor.Rand(2, 3))
            using (Tensor b = Tensor.Rand(new long[] { 2 }, DType.Float64))
            using (Tensor c = Tensor.Rand(new long[] { 2 }, Device.Cpu))
            using (Tensor d = Tensor.Randn(4))
            using (Tensor e = Tensor.Randn(new long[] { 2 }, DType.BFloat16, Device.Cpu))
            using (Tensor f = Tensor.Randn(new long[] { 2 }, Device.Cpu))
            using (Tensor h = Tensor.Randint(0, 4, new long[] { 5 }))
            using (Tensor i = Tensor.Randint(0, 4, new long[] { 5 }, Device.Cpu))
            using (Tensor j = Tensor.Randint(0, 4, new long[] { 5 }, DType.UInt8))
            using (Tensor k = Tensor.Randint(9, new long[] { 5 }))
            {
                ShapeIs(a, 2, 3);
                Assert.AreEqual(DType.Float32, a.DType);
                Assert.AreEqual(DType.Float64, b.DType);
                Assert.AreEqual(DType.Float32, c.DType);
                Assert.AreEqual(DType.Float32, d.DType);
                Assert.AreEqual(DType.BFloat16, e.DType);
                Assert.AreEqual(DType.Float32, f.DType);
                Assert.AreEqual(DType.Int64, h.DType);
                Assert.AreEqual(DType.Int64, i.DType);
                Assert.AreEqual(DType.UInt8, j.DType);
                Assert.AreEqual(DType.Int64, k.DType);
                Assert.That(k.ToArray<long>().All(x => x >= 0 && x < 9));
            }
            Assert.AreEqual(40, DefaultOffset(Device.Cpu), "ten ops on the default generator");
            // Random tensors belong to the current DisposeScope like every other.
            long live = Torch.LiveTensorCount;
            using (DisposeScope.Begin())
            {
                Tensor.Rand(3);
                Tensor.Randint(0, 2, new long[] { 3 });
                Assert.AreEqual(live + 2, Torch.LiveTensorCount);
            }
            Assert.AreEqual(live, Torch.LiveTensorCount);
            Assert.Throws<ArgumentNullException>(() => Tensor.Rand((long[])null, DType.Float32));
            Assert.Throws<ArgumentNullException>(() => Tensor.RandLike(null));
        }

        // ---------------------------------------------------------------- errors

        [Test]
        public void InvalidArgumentsAreErrors()
        {
            using (Tensor f = Tensor.Empty(4))
            using (Tensor i = Tensor.Empty(new long[] { 4 }, DType.Int64))
            using (Tensor u8 = Tensor.Empty(new long[] { 4 }, DType.UInt8))
            {
                CtorchException e = Fails(StatusCode.Argument, () => f.Uniform_(3, 2));
                StringAssert.Contains("from", e.NativeMessage);
                Fails(StatusCode.Argument, () => f.Uniform_(double.NegativeInfinity, double.PositiveInfinity));
                e = Fails(StatusCode.Argument, () => f.Normal_(0, -1));
                StringAssert.Contains("std", e.NativeMessage);
                Fails(StatusCode.Argument, () => Tensor.Randint(5, 5, new long[] { 3 }));
                Fails(StatusCode.Argument, () => Tensor.Randint(6, 5, new long[] { 3 }));
                Fails(StatusCode.Argument, () => Tensor.Randint(0, new long[] { 3 }));
                Fails(StatusCode.Argument, () => i.Random_(2, 2));
                Fails(StatusCode.Argument, () => u8.Random_(0, 257));
                Fails(StatusCode.Argument, () => u8.Random_(-1, 10));
                Fails(StatusCode.Argument, () => Tensor.Randint(0, 300, new long[] { 3 }, DType.UInt8));
                e = Fails(StatusCode.Argument, () => f.Bernoulli_(1.5));
                StringAssert.Contains("1.5", e.NativeMessage);
                Fails(StatusCode.Argument, () => f.Bernoulli_(-0.1));
                Fails(StatusCode.Argument, () => f.Bernoulli_(double.NaN));

                Fails(StatusCode.DType, () => i.Uniform_());
                Fails(StatusCode.DType, () => i.Normal_());
                Fails(StatusCode.DType, () => Tensor.Rand(new long[] { 3 }, DType.Int64));
                Fails(StatusCode.DType, () => Tensor.Randn(new long[] { 3 }, DType.Int32));
                Fails(StatusCode.DType, () => Tensor.RandLike(i));
                Fails(StatusCode.DType, () => Tensor.RandnLike(f, DType.Int16));
                using (Tensor cx = Tensor.Zeros(new long[] { 2 }, DType.Complex64))
                {
                    Fails(StatusCode.DType, () => cx.Random_());
                    Fails(StatusCode.DType, () => cx.Bernoulli_(0.5));
                }
                Fails(StatusCode.Shape, () => Tensor.Rand(new long[] { -1 }, DType.Float32));
            }
        }

        [Test]
        public void CudaGeneratorsWithoutAGpu()
        {
            RequireNoGpu();
            Unavailable(() => new Generator(Device.Cuda));
            Unavailable(() => new Generator(Device.CudaAt(0)));
            Unavailable(() => Generator.Default(Device.Cuda));
            Unavailable(() => Cuda.DefaultGenerator());
            Unavailable(() => Cuda.DefaultGenerator(0));
            // A CUDA tensor cannot be made here, so neither can a CPU generator be misused on
            // one; rand on the CUDA device fails as every CUDA allocation does.
            using (var g = new Generator())
                Unavailable(() => Tensor.Rand(new long[] { 3 }, Device.Cuda, g));
            Unavailable(() => Tensor.Rand(new long[] { 3 }, Device.Cuda));
        }

        [Test]
        public void CudaSeedingWithoutAGpu()
        {
            RequireNoGpu();
            // As torch: seeding CUDA without CUDA does nothing and succeeds.
            Cuda.ManualSeed(1);
            Cuda.ManualSeedAll(2);
            Cuda.Seed();
            Cuda.SeedAll();
            Unavailable(() => GC.KeepAlive(Cuda.InitialSeed));
            Unavailable(() => Cuda.GetRngState());
            Unavailable(() => Cuda.GetRngState(0));
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
            // The CPU is still seeded by torch.manual_seed.
            Torch.ManualSeed(12);
            Assert.AreEqual(12L, Torch.InitialSeed);
        }

        // ---------------------------------------------------------------- GPU

        [Test]
        public void CudaRandWithTheDefaultSeedEqualsTheCpuValues()
        {
            RequireGpu();
            Torch.ManualSeed(67280421310721L);
            Assert.AreEqual(67280421310721L, Cuda.InitialSeed);
            float[] expected = ParseFloats(DefaultSeedRand7);
            using (Tensor r = Tensor.Rand(new long[] { 7 }, Device.Cuda))
            {
                Assert.IsTrue(r.IsCuda);
                BitsEqual(expected, r, "torch.rand(7, device='cuda') under the default seed");
            }
            Assert.AreEqual(4, DefaultOffset(Device.Cuda));
            Assert.AreEqual(0, DefaultOffset(Device.Cpu), "the CPU generator did not move");

            // Uniform and integer draws are bit-identical on both devices, for every size.
            foreach (long n in new long[] { 1, 255, 256, 257, 5000, (1L << 20) + 3 })
            {
                using (var gc = new Generator(Device.Cuda).ManualSeed(n))
                using (var gh = new Generator().ManualSeed(n))
                {
                    using (Tensor a = Tensor.Rand(new long[] { n }, Device.Cuda, gc))
                    using (Tensor b = Tensor.Rand(new long[] { n }, gh))
                    using (Tensor ac = a.Cpu())
                        CollectionAssert.AreEqual(b.ToBytes(), ac.ToBytes(), "rand of " + n);
                    using (Tensor a = Tensor.Randint(-7, 1000, new long[] { n }, Device.Cuda, gc))
                    using (Tensor b = Tensor.Randint(-7, 1000, new long[] { n }, gh))
                    using (Tensor ac = a.Cpu())
                        CollectionAssert.AreEqual(b.ToBytes(), ac.ToBytes(), "randint of " + n);
                    using (Tensor a = Tensor.Rand(new long[] { n }, DType.Float64, Device.Cuda, gc))
                    using (Tensor b = Tensor.Rand(new long[] { n }, DType.Float64, Device.Cpu, gh))
                    using (Tensor ac = a.Cpu())
                        CollectionAssert.AreEqual(b.ToBytes(), ac.ToBytes(), "float64 rand of " + n);
                    Assert.AreEqual(gh.Offset, gc.Offset, "offsets of " + n);
                }
            }
        }

        [Test]
        public void CudaRngStateRoundTrip()
        {
            RequireGpu();
            Cuda.ManualSeed(4242);
            Assert.AreEqual(4242L, Cuda.InitialSeed);
            byte[] state = Cuda.GetRngState();
            Assert.AreEqual(16, state.Length);
            Assert.AreEqual(4242L, BitConverter.ToInt64(state, 0));
            Assert.AreEqual(0L, BitConverter.ToInt64(state, 8));
            byte[] a;
            using (Tensor t = Tensor.Rand(new long[] { 1000 }, Device.Cuda))
            using (Tensor c = t.Cpu())
                a = c.ToBytes();
            Assert.AreEqual(4L, BitConverter.ToInt64(Cuda.GetRngState(), 8));
            Cuda.SetRngState(state);
            using (Tensor t = Tensor.Rand(new long[] { 1000 }, Device.Cuda))
            using (Tensor c = t.Cpu())
                CollectionAssert.AreEqual(a, c.ToBytes());

            // The same state on a CPU generator draws the same uniform bits.
            using (var g = new Generator().SetState(state))
            using (Tensor t = Tensor.Rand(new long[] { 1000 }, g))
                CollectionAssert.AreEqual(a, t.ToBytes());

            int cur = Cuda.CurrentDevice;
            CollectionAssert.AreEqual(Cuda.GetRngState(), Cuda.GetRngState(cur));
            CollectionAssert.AreEqual(Cuda.GetRngState(), Cuda.GetRngState(Device.CudaAt(cur)));
            Fails(StatusCode.Argument, () => Cuda.SetRngState(new byte[15]));
            Fails(StatusCode.Index, () => Cuda.GetRngState(Cuda.DeviceCount));

            // _all: one state per device; a round trip restores them all.
            byte[][] all = Cuda.GetRngStateAll();
            Assert.AreEqual(Cuda.DeviceCount, all.Length);
            CollectionAssert.AreEqual(Cuda.GetRngState(cur), all[cur]);
            Cuda.ManualSeedAll(1);
            for (int d = 0; d < Cuda.DeviceCount; d++) Assert.AreEqual(1L, BitConverter.ToInt64(Cuda.GetRngState(d), 0));
            Cuda.SetRngStateAll(all);
            for (int d = 0; d < Cuda.DeviceCount; d++) CollectionAssert.AreEqual(all[d], Cuda.GetRngState(d));
            Fails(StatusCode.Argument, () => Cuda.SetRngStateAll(all.Concat(new[] { new byte[16] })));

            Cuda.Seed();
            long s = Cuda.InitialSeed;
            using (Generator dg = Cuda.DefaultGenerator())
            {
                Assert.AreEqual(s, dg.InitialSeed);
                Assert.AreEqual(Device.CudaAt(cur), dg.Device);
            }
            Cuda.SeedAll();
            Torch.ManualSeed(3);
            Assert.AreEqual(3L, Cuda.InitialSeed, "torch.manual_seed seeds CUDA too");
        }

        [Test]
        public void GeneratorsOfTheWrongDevice()
        {
            RequireGpu();
            using (var cpu = new Generator())
            using (var cuda = new Generator(Device.Cuda))
            using (Tensor onGpu = Tensor.Zeros(new long[] { 4 }, Device.Cuda))
            using (Tensor onCpu = Tensor.Zeros(4))
            {
                Assert.AreEqual(Device.CudaAt(Cuda.CurrentDevice), cuda.Device);
                StringAssert.StartsWith("<torch.Generator device=cuda:", cuda.ToString());
                CtorchException e = Fails(StatusCode.Device, () => Tensor.Rand(new long[] { 3 }, Device.Cuda, cpu));
                StringAssert.Contains("generator", e.NativeMessage);
                Fails(StatusCode.Device, () => Tensor.Rand(new long[] { 3 }, cuda));
                Fails(StatusCode.Device, () => onGpu.Uniform_(0, 1, cpu));
                Fails(StatusCode.Device, () => onCpu.Normal_(0, 1, cuda));
                Fails(StatusCode.Device, () => Tensor.RandLike(onGpu, null, cpu));
                Fails(StatusCode.Device, () => onCpu.Bernoulli_(0.5, cuda));
                Assert.AreEqual(0, cpu.Offset);
                Assert.AreEqual(0, cuda.Offset);
                onGpu.Normal_(0, 1, cuda);
                Assert.AreEqual(4, cuda.Offset);
            }
            if (Cuda.DeviceCount >= 2)
            {
                using (var g1 = new Generator(Device.CudaAt(1)))
                using (Tensor t0 = Tensor.Zeros(new long[] { 4 }, Device.CudaAt(0)))
                    Fails(StatusCode.Device, () => t0.Uniform_(0, 1, g1));
            }
        }
    }
}
