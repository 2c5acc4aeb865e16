// The jiterator's C# layer (JitFunction, section 25 of ctorch.h): the marshalling of the extra
// arguments, handles and lifetimes, errors; the values on a GPU. The C suite
// (tests/capi/jiterator_test.c) owns the values, promotion and messages.
using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using System.Text;
using System.Threading;
using Ctorch;
using NUnit.Framework;

namespace Ctorch.Tests
{
    [TestFixture]
    public class JitTests : TestBase
    {
        private const string Fused =
            "template <typename T> T my_fused_kernel(T x, T y, T alpha, T beta) { return alpha * x + beta * y; }";

        private const string TwoOutputCode =
            "template <typename T> void sd(T a, T b, bool neg, T scale, T& out0, T& out1) {\n" +
            "  out0 = (a + b) * scale; out1 = neg ? b - a : a - b; }";

        private long _startFns;

        [SetUp]
        public void StartJitCount() => _startFns = Torch.LiveJitFunctionCount;

        [TearDown]
        public void EndJitCount() =>
            Assert.AreEqual(_startFns, Torch.LiveJitFunctionCount, "live jitted function count after the test");

        private static KeyValuePair<string, object> P(string name, object value) =>
            new KeyValuePair<string, object>(name, value);

        // ============================================================ marshalling (no GPU)

        [Test]
        public void KwargsBecomeTheCArraysInOrder()
        {
            JitArgs a = JitArgs.Of(new[] { P("b", true), P("i", 7), P("l", -(1L << 40)), P("f", 0.25f), P("d", 1e300),
                                           P("no", false) }, "kwargs");
            CollectionAssert.AreEqual(new[] { "b", "i", "l", "f", "d", "no" }, a.Names);
            var I = (int)JitFunction.ArgType.Int64;
            var D = (int)JitFunction.ArgType.Double;
            var B = (int)JitFunction.ArgType.Bool;
            CollectionAssert.AreEqual(new[] { B, I, I, D, D, B }, a.Types);
            CollectionAssert.AreEqual(new long[] { 1, 7, -(1L << 40), 0, 0, 0 }, a.Ints);
            CollectionAssert.AreEqual(new double[] { 0, 0, 0, 0.25, 1e300, 0 }, a.Doubles);
            // the generated enum holds the C constants
            Assert.AreEqual(new[] { 0, 1, 2 }, new[] { I, D, B });
        }

        [Test]
        public void AnArrayNoEntryNeedsIsNull()
        {
            JitArgs none = JitArgs.Of(new KeyValuePair<string, object>[0], "kwargs");
            Assert.AreEqual(0, none.Count);
            Assert.IsNull(none.Ints);
            Assert.IsNull(none.Doubles);
            JitArgs ints = JitArgs.Of(new[] { P("a", 1), P("b", true) }, "kwargs");
            Assert.IsNull(ints.Doubles);
            CollectionAssert.AreEqual(new long[] { 1, 1 }, ints.Ints);
            JitArgs doubles = JitArgs.Of(new[] { P("a", 1.5) }, "kwargs");
            Assert.IsNull(doubles.Ints);
            CollectionAssert.AreEqual(new[] { 1.5 }, doubles.Doubles);
        }

        [Test]
        public void PassHandsTheNamesAsUtf8AndNullsForNoArguments()
        {
            var seen = new List<string>();
            int seenN = -1;
            bool namesNull = false, typesNull = false, intsNull = false, doublesNull = false;
            JitArgs.ArgsCall capture = (names, types, ints, doubles, n) =>
            {
                seenN = n;
                namesNull = names == null;
                typesNull = types == null;
                intsNull = ints == null;
                doublesNull = doubles == null;
                if (names != null)
                    foreach (IntPtr p in names)
                    {
                        int len = 0;
                        while (Marshal.ReadByte(p, len) != 0) len++;
                        var b = new byte[len];
                        Marshal.Copy(p, b, 0, len);
                        seen.Add(Encoding.UTF8.GetString(b));
                    }
                return 0;
            };
            JitArgs.None.Pass(capture);
            Assert.AreEqual(0, seenN);
            Assert.IsTrue(namesNull && typesNull && intsNull && doublesNull, "empty kwargs: n 0 and NULL arrays");
            JitArgs.Of(new[] { P("αβ", 1), P("x𝄞", 2.0) }, "kwargs").Pass(capture);
            Assert.AreEqual(2, seenN);
            Assert.IsFalse(namesNull || typesNull || intsNull || doublesNull);
            CollectionAssert.AreEqual(new[] { "αβ", "x𝄞" }, seen);
        }

        [Test]
        public void BadKwargsAreRejectedByTheBinding()
        {
            long n0 = Torch.LiveJitFunctionCount;
            var e = Assert.Throws<ArgumentException>(() => JitFunction.Create(Fused, ("alpha", 1), ("beta", "one")));
            StringAssert.Contains("extra argument 'beta' is a System.String", e.Message);
            Assert.AreEqual("kwargs", e.ParamName);
            e = Assert.Throws<ArgumentException>(() => JitFunction.Create(Fused, ("alpha", (object)null)));
            StringAssert.Contains("'alpha' is null", e.Message);
            Assert.Throws<ArgumentException>(() => JitFunction.Create(Fused, ("alpha", 1m)));      // decimal
            Assert.Throws<ArgumentException>(() => JitFunction.Create(Fused, ("alpha", (short)1)));
            Assert.Throws<ArgumentException>(() => JitFunction.Create(Fused, ("alpha", 1UL)));
            var ne = Assert.Throws<ArgumentNullException>(() => JitFunction.Create(Fused, ((string)null, 1)));
            StringAssert.Contains("extra argument 0", ne.Message);
            Assert.Throws<ArgumentException>(() => JitFunction.Create(Fused, ("", 1)));
            Assert.Throws<ArgumentException>(() => JitFunction.Create(Fused, ("a\0b", 1)));
            ValueTuple<string, object>[] noPairs = null;
            Assert.Throws<ArgumentNullException>(() => JitFunction.Create(Fused, noPairs));
            Assert.Throws<ArgumentNullException>(() =>
                JitFunction.Create(Fused, (IEnumerable<KeyValuePair<string, object>>)null));
            Assert.Throws<ArgumentNullException>(() => JitFunction.Create(null));
            Assert.Throws<ArgumentException>(() => JitFunction.Create("template <typename T> T f(T x) { return x; }\0"));
            Assert.Throws<ArgumentOutOfRangeException>(() => JitFunction.CreateMultiOutput(TwoOutputCode, 0));
            Assert.AreEqual(n0, Torch.LiveJitFunctionCount, "nothing was made");
        }

        // ============================================================ handles (no GPU)

        [Test]
        public void CreateNameNumOutputsAndDispose()
        {
            long n0 = Torch.LiveJitFunctionCount;
            using (JitFunction f = JitFunction.Create(Fused, ("alpha", 1), ("beta", 1)))
            {
                Assert.AreEqual("my_fused_kernel", f.Name);
                Assert.AreEqual(1, f.NumOutputs);
                Assert.AreEqual(n0 + 1, Torch.LiveJitFunctionCount);
                Assert.AreEqual("JitFunction(my_fused_kernel, outputs=1)", f.ToString());
                Assert.IsFalse(f.IsDisposed);
            }
            Assert.AreEqual(n0, Torch.LiveJitFunctionCount);
            // every value type, in any mix: the C layer gets the arrays each entry needs
            using (JitFunction g = JitFunction.CreateMultiOutput(TwoOutputCode, 2, ("neg", false), ("scale", 2.5f)))
            {
                Assert.AreEqual("sd", g.Name);
                Assert.AreEqual(2, g.NumOutputs);
            }
            using (JitFunction g = JitFunction.Create(Fused, new[] { P("alpha", 2.0), P("beta", 3.0) }))
                Assert.AreEqual(1, g.NumOutputs);
            using (JitFunction g = JitFunction.CreateMultiOutput(Fused, 1, new[] { P("alpha", 2L), P("beta", 3) }))
                Assert.AreEqual(1, g.NumOutputs);
            using (JitFunction g = JitFunction.Create("template <typename T> T twice(T x) { return x + x; }"))
                Assert.AreEqual("twice", g.Name);
            Assert.AreEqual(n0, Torch.LiveJitFunctionCount);
        }

        [Test]
        public void DisposeTwiceAndUseAfterDispose()
        {
            JitFunction f = JitFunction.Create(Fused, ("alpha", 1), ("beta", 1));
            f.Dispose();
            f.Dispose();
            Assert.IsTrue(f.IsDisposed);
            Assert.AreEqual("JitFunction(disposed)", f.ToString());
            Assert.Throws<ObjectDisposedException>(() => { var _ = f.Name; });
            Assert.Throws<ObjectDisposedException>(() => { var _ = f.NumOutputs; });
            Assert.Throws<ObjectDisposedException>(() => f.NewReference());
            using (Tensor x = F(1, 2))
                Assert.Throws<ObjectDisposedException>(() => f.Call(x, x));
        }

        [Test]
        public void NewReferenceOutlivesTheFirst()
        {
            long n0 = Torch.LiveJitFunctionCount;
            JitFunction f = JitFunction.Create(Fused, ("alpha", 1), ("beta", 1));
            using (JitFunction g = f.NewReference())
            {
                Assert.AreEqual(n0 + 1, Torch.LiveJitFunctionCount, "one function, two references");
                f.Dispose();
                Assert.AreEqual("my_fused_kernel", g.Name);
                Assert.AreEqual(n0 + 1, Torch.LiveJitFunctionCount);
            }
            Assert.AreEqual(n0, Torch.LiveJitFunctionCount);
        }

        [Test]
        public void ParseErrorsAreArgumentErrors()
        {
            var e = Fails(StatusCode.Argument,
                          () => JitFunction.Create("template <typename T> T my _kernel(T x) { return x; }"));
            StringAssert.Contains("Couldn't parse code, please check correctness", e.NativeMessage);
            e = Fails(StatusCode.Argument, () => JitFunction.Create(Fused, ("alpha", 1), ("alpha", 2.0)));
            StringAssert.Contains("extra argument 'alpha' is declared twice", e.NativeMessage);
            e = Fails(StatusCode.Argument, () => JitFunction.CreateMultiOutput(TwoOutputCode, 9));
            StringAssert.Contains("makes 1 to 8 outputs, got 9", e.NativeMessage);
        }

        [Test]
        public void KernelCountIsNotNegative()
        {
            Assert.GreaterOrEqual(JitFunction.KernelCount, 0);
        }

        [Test]
        public void WithoutCudaACallIsUnavailable()
        {
            RequireNoGpu();
            using (JitFunction f = JitFunction.Create(Fused, ("alpha", 1), ("beta", 1)))
            using (JitFunction g = JitFunction.CreateMultiOutput(TwoOutputCode, 2, ("neg", false), ("scale", 2.0)))
            using (Tensor x = F(1, 2, 3))
            {
                long tensors = Torch.LiveTensorCount;
                Unavailable(() => f.Call(x, x));
                Unavailable(() => f.Call(new[] { x, x }, ("beta", -1), ("alpha", 0.5)));
                Unavailable(() => f.Call(new[] { x, x }, new[] { P("beta", -1) }));
                Unavailable(() => f.CallMulti(x, x));
                Unavailable(() => g.CallMulti(x, x));
                Unavailable(() => g.CallMulti(new[] { x, x }, ("neg", true)));
                Unavailable(() => g.CallMulti(new[] { x, x }, new[] { P("scale", 1) }));
                Assert.AreEqual(tensors, Torch.LiveTensorCount, "no outputs were made");
            }
        }

        [Test]
        public void CallArgumentsAreCheckedByTheBinding()
        {
            using (JitFunction f = JitFunction.Create(Fused, ("alpha", 1), ("beta", 1)))
            using (JitFunction g = JitFunction.CreateMultiOutput(TwoOutputCode, 2, ("neg", false), ("scale", 2.0)))
            using (Tensor x = F(1, 2, 3))
            {
                var e = Assert.Throws<InvalidOperationException>(() => g.Call(x, x));
                StringAssert.Contains("sd makes 2 outputs: call it with CallMulti", e.Message);
                Assert.Throws<ArgumentNullException>(() => f.Call((Tensor[])null));
                Assert.Throws<ArgumentNullException>(() => f.Call(x, null));
                ValueTuple<string, object>[] noPairs = null;
                Assert.Throws<ArgumentNullException>(() => f.CallMulti(new[] { x, x }, noPairs));
                Assert.Throws<ArgumentException>(() => f.Call(new[] { x, x }, ("beta", "x")));
                Tensor gone = F(1);
                gone.Dispose();
                Assert.Throws<ObjectDisposedException>(() => f.Call(x, gone));
            }
        }

        [Test]
        public void OutFormArgumentsAreCheckedByTheBinding()
        {
            using (JitFunction f = JitFunction.Create(Fused, ("alpha", 1), ("beta", 1)))
            using (Tensor x = F(1, 2, 3), o = F(7, 8, 9))
            {
                Assert.Throws<ArgumentNullException>(() => f.CallOut(null, x, x));
                Assert.Throws<ArgumentNullException>(() => f.CallOut(null, new[] { x, x }, ("beta", 1)));
                Assert.Throws<ArgumentNullException>(() => f.CallOut(null, new[] { x, x }, new[] { P("beta", 1) }));
                Assert.Throws<ArgumentNullException>(() => f.CallOut(new[] { o }, (Tensor[])null));
                var e = Assert.Throws<ArgumentNullException>(() => f.CallOut(new Tensor[] { null }, x, x));
                Assert.AreEqual("outs", e.ParamName);
                e = Assert.Throws<ArgumentNullException>(() => f.CallOut(new[] { o, null }, new[] { x, x }, ("beta", 1)));
                StringAssert.Contains("element 1 is null", e.Message);
                Assert.Throws<ArgumentNullException>(() => f.CallOut(new[] { o }, x, null));
                ValueTuple<string, object>[] noPairs = null;
                Assert.Throws<ArgumentNullException>(() => f.CallOut(new[] { o }, new[] { x, x }, noPairs));
                Assert.Throws<ArgumentException>(() => f.CallOut(new[] { o }, new[] { x, x }, ("beta", "x")));
                Tensor gone = F(1, 2, 3);
                gone.Dispose();
                var d = Assert.Throws<ObjectDisposedException>(() => f.CallOut(new[] { gone }, x, x));
                StringAssert.Contains("element 0 has been disposed", d.Message);
                Assert.Throws<ObjectDisposedException>(() => f.CallOut(new[] { o, gone }, new[] { x, x }, new[] { P("beta", 1) }));
                Assert.Throws<ObjectDisposedException>(() => f.CallOut(new[] { o }, x, gone));
                // the leases taken before a failure were given back: every tensor is still usable
                AreEqual(new float[] { 7, 8, 9 }, o);
                AreEqual(new float[] { 1, 2, 3 }, x);
            }
            JitFunction g = JitFunction.Create(Fused, ("alpha", 1), ("beta", 1));
            g.Dispose();
            using (Tensor x = F(1, 2))
                Assert.Throws<ObjectDisposedException>(() => g.CallOut(new[] { x }, x, x));
        }

        [Test]
        public void WithoutCudaTheOutFormIsUnavailable()
        {
            RequireNoGpu();
            using (JitFunction f = JitFunction.Create(Fused, ("alpha", 1), ("beta", 1)))
            using (JitFunction g = JitFunction.CreateMultiOutput(TwoOutputCode, 2, ("neg", false), ("scale", 2.0)))
            using (Tensor x = F(1, 2, 3), o = F(7, 8, 9), p = F(4, 5, 6))
            {
                long tensors = Torch.LiveTensorCount;
                Unavailable(() => f.CallOut(new[] { o }, x, x));
                Unavailable(() => f.CallOut(new[] { x }, x, x)); // in place: x leased as input and output
                Unavailable(() => f.CallOut(new[] { o }, new[] { x, x }, ("beta", -1), ("alpha", 0.5)));
                Unavailable(() => f.CallOut(new[] { o }, new[] { x, x }, new[] { P("beta", -1) }));
                Unavailable(() => g.CallOut(new[] { o, p }, x, x));
                Unavailable(() => g.CallOut(new[] { o, p }, new[] { x, x }, ("neg", true)));
                Assert.AreEqual(tensors, Torch.LiveTensorCount, "nothing new was made");
                AreEqual(new float[] { 7, 8, 9 }, o);
                AreEqual(new float[] { 4, 5, 6 }, p);
                AreEqual(new float[] { 1, 2, 3 }, x);
            }
        }

        // ============================================================ on a GPU

        private static Tensor CudaF(params float[] v)
        {
            using (Tensor h = F(v)) return h.Cuda();
        }

        [Test]
        public void FusedKernelValuesAndOverrides()
        {
            RequireGpu();
            using (JitFunction f = JitFunction.Create(Fused, ("alpha", 1), ("beta", 1)))
            using (Tensor x = CudaF(1, 2, 3, 4, 5), y = CudaF(10, 20, 30, 40, 50))
            {
                using (Tensor z = f.Call(x, y), c = z.Cpu()) AreEqual(new float[] { 11, 22, 33, 44, 55 }, c);
                using (Tensor z = f.Call(new[] { x, y }, ("beta", -1), ("alpha", 0.5)), c = z.Cpu())
                    AreEqual(new float[] { -9.5f, -19, -28.5f, -38, -47.5f }, c);
                using (Tensor z = f.Call(new[] { x, y }, new[] { P("beta", -1L), P("alpha", 0.5f) }), c = z.Cpu())
                    AreEqual(new float[] { -9.5f, -19, -28.5f, -38, -47.5f }, c);
                Assert.GreaterOrEqual(JitFunction.KernelCount, 1);
                var e = Fails(StatusCode.Argument, () => f.Call(new[] { x, y }, ("gamma", 1)));
                StringAssert.Contains("gamma is not declared in function definition", e.NativeMessage);
            }
        }

        [Test]
        public void TwoOutputs()
        {
            RequireGpu();
            using (JitFunction g = JitFunction.CreateMultiOutput(TwoOutputCode, 2, ("neg", false), ("scale", 2.0)))
            using (Tensor a = CudaF(1, 2), b = CudaF(10, 20))
            {
                Tensor[] r = g.CallMulti(new[] { a, b }, ("neg", true));
                Assert.AreEqual(2, r.Length);
                using (Tensor c0 = r[0].Cpu(), c1 = r[1].Cpu())
                {
                    AreEqual(new float[] { 22, 44 }, c0);
                    AreEqual(new float[] { 9, 18 }, c1);
                }
                foreach (Tensor t in r) t.Dispose();
            }
        }

        [Test]
        public void OutFormAndInPlace()
        {
            RequireGpu();
            using (JitFunction f = JitFunction.Create(Fused, ("alpha", 1), ("beta", 1)))
            using (Tensor x = CudaF(1, 2, 3, 4, 5), y = CudaF(10, 20, 30, 40, 50),
                   o = Tensor.Empty(new long[] { 5 }, DType.Float64, Device.Cuda))
            {
                long tensors = Torch.LiveTensorCount;
                f.CallOut(new[] { o }, x, y); // float32 values stored as float64
                Assert.AreEqual(tensors, Torch.LiveTensorCount, "the out form makes no tensor");
                using (Tensor c = o.Cpu()) AreEqual(new double[] { 11, 22, 33, 44, 55 }, c);
                f.CallOut(new[] { o }, new[] { x, y }, ("beta", -1));
                using (Tensor c = o.Cpu()) AreEqual(new double[] { -9, -18, -27, -36, -45 }, c);
                f.CallOut(new[] { o }, new[] { x, y }, new[] { P("alpha", 0.5) });
                using (Tensor c = o.Cpu()) AreEqual(new double[] { 10.5, 21, 31.5, 42, 52.5 }, c);
                using (Tensor s4 = Tensor.Zeros(new long[] { 4 }, DType.Float32, Device.Cuda))
                {
                    var e = Fails(StatusCode.Shape, () => f.CallOut(new[] { s4 }, x, y));
                    StringAssert.Contains("output with shape [4] doesn't match the broadcast shape [5]", e.NativeMessage);
                    using (Tensor c = s4.Cpu()) AreEqual(new float[] { 0, 0, 0, 0 }, c);
                    e = Fails(StatusCode.Argument, () => f.CallOut(new[] { o, o }, x, y));
                    StringAssert.Contains("my_fused_kernel makes 1 outputs, but n_outs is 2", e.NativeMessage);
                }
                f.CallOut(new[] { x }, x, y); // in place: x = x + y
                using (Tensor c = x.Cpu()) AreEqual(new float[] { 11, 22, 33, 44, 55 }, c);
                using (Tensor c = y.Cpu()) AreEqual(new float[] { 10, 20, 30, 40, 50 }, c);
            }
        }

        [Test]
        public void TwoOutputsIntoGivenTensors()
        {
            RequireGpu();
            using (JitFunction g = JitFunction.CreateMultiOutput(TwoOutputCode, 2, ("neg", false), ("scale", 2.0)))
            using (Tensor a = CudaF(1, 2), b = CudaF(10, 20), s = Tensor.Empty(new long[] { 2 }, Device.Cuda),
                   d = Tensor.Empty(new long[] { 2 }, DType.Float64, Device.Cuda))
            {
                g.CallOut(new[] { s, d }, new[] { a, b }, ("neg", true));
                using (Tensor c0 = s.Cpu(), c1 = d.Cpu())
                {
                    AreEqual(new float[] { 22, 44 }, c0);
                    AreEqual(new double[] { 9, 18 }, c1);
                }
                g.CallOut(new[] { s, d }, a, b); // neg = false
                using (Tensor c1 = d.Cpu()) AreEqual(new double[] { -9, -18 }, c1);
            }
        }

        [Test]
        public void CompileErrorCarriesTheNvrtcLog()
        {
            RequireGpu();
            using (JitFunction f = JitFunction.Create("template <typename T> T broken(T x) {\n  return x + undefined_name;\n}"))
            using (Tensor x = CudaF(1, 2))
            {
                var e = Fails(StatusCode.Argument, () => f.Call(x));
                StringAssert.Contains("identifier \"undefined_name\" is undefined", e.NativeMessage);
            }
        }

        [Test]
        public void ConcurrentFirstCallsMakeOneKernel()
        {
            RequireGpu();
            using (JitFunction f = JitFunction.Create("template <typename T> T cube(T x) { return x * x * x; }"))
            using (Tensor h = Tensor.FromArray(new double[] { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 }), x = h.Cuda())
            {
                long before = JitFunction.KernelCount;
                var sums = new double[8];
                var errors = new Exception[8];
                var threads = new Thread[8];
                for (int i = 0; i < 8; i++)
                {
                    int k = i;
                    threads[i] = new Thread(() =>
                    {
                        try
                        {
                            using (Tensor y = f.Call(x), c = y.Cpu()) foreach (double v in c.ToArray<double>()) sums[k] += v;
                        }
                        catch (Exception e) { errors[k] = e; }
                    });
                    threads[i].Start();
                }
                foreach (Thread t in threads) t.Join();
                foreach (Exception e in errors) Assert.IsNull(e, e?.ToString());
                Assert.AreEqual(before + 1, JitFunction.KernelCount);
                foreach (double s in sums) Assert.AreEqual(2025.0, s); // sum of i^3, 0..9
            }
        }
    }
}
