// Shared set-up for every fixture: a DisposeScope per test that disposes whatever the test
// left, and a leak check: the live native tensor, stream, event and generator counts return to
// their starting values. Process-wide CUDA state (sync debug mode; the current device on a GPU host)
// must be as the test found it.
using System;
using System.Runtime.ExceptionServices;
using System.Threading;
using Ctorch;
using NUnit.Framework;

namespace Ctorch.Tests
{
    public abstract class TestBase
    {
        private long _startCount, _startStreams, _startEvents, _startGenerators;
        private int _startDevice = -1;
        protected long StartCount => _startCount;
        private DisposeScope _scope;

        /// <summary>cuda if available else cpu, as in the seed's device-agnostic code.</summary>
        protected static Device TestDevice => Cuda.IsAvailable ? Device.Cuda : Device.Cpu;

        /// <summary>False for fixtures that must see tensors that no scope holds (GC tests).</summary>
        protected virtual bool UseScope => true;

        /// <summary>How many tensors above its start the count may end (0: exact). Only the GC
        /// fixture, which runs in a process of its own, allows any.</summary>
        protected virtual long LeakTolerance => 0;

        [SetUp]
        public void StartLeakCheck()
        {
            Settle();
            _startCount = Torch.LiveTensorCount;
            _startStreams = Torch.LiveStreamCount;
            _startEvents = Torch.LiveEventCount;
            _startGenerators = Torch.LiveGeneratorCount;
            _startDevice = Cuda.IsAvailable ? Cuda.CurrentDevice : -1;
            _scope = UseScope ? DisposeScope.Begin() : null;
        }

        [TearDown]
        public void EndLeakCheck()
        {
            if (_scope != null) _scope.Dispose();
            _scope = null;
            SyncDebugMode mode = Cuda.GetSyncDebugMode();
            if (mode != SyncDebugMode.Default) Cuda.SetSyncDebugMode(SyncDebugMode.Default);
            int device = _startDevice >= 0 ? Cuda.CurrentDevice : -1;
            if (device != _startDevice) Cuda.SetDevice(_startDevice);
            long end = Torch.LiveTensorCount, streams = Torch.LiveStreamCount, events = Torch.LiveEventCount;
            long generators = Torch.LiveGeneratorCount;
            if (LeakTolerance == 0)
            {
                Assert.AreEqual(_startCount, end, "live tensor count after the test");
                Assert.AreEqual(_startStreams, streams, "live stream count after the test");
                Assert.AreEqual(_startEvents, events, "live event count after the test");
                Assert.AreEqual(_startGenerators, generators, "live generator count after the test");
            }
            else
            {
                Assert.That(end, Is.InRange(_startCount, _startCount + LeakTolerance), "live tensor count after the test");
                Assert.That(streams, Is.InRange(_startStreams, _startStreams + LeakTolerance), "live stream count after the test");
                Assert.That(events, Is.InRange(_startEvents, _startEvents + LeakTolerance), "live event count after the test");
                Assert.That(generators, Is.InRange(_startGenerators, _startGenerators + LeakTolerance),
                            "live generator count after the test");
            }
            Assert.AreEqual(SyncDebugMode.Default, mode, "the test left the sync debug mode changed");
            Assert.AreEqual(_startDevice, device, "the test left another current CUDA device");
        }

        /// <summary>Skips the test visibly (NUnit "ignored", with the reason) unless at least
        /// count CUDA devices can be used.</summary>
        protected static void RequireGpu(int count = 1)
        {
            if (!Cuda.IsAvailable)
                Assert.Ignore("needs a CUDA GPU: torch.cuda.is_available() is false on this machine");
            if (Cuda.DeviceCount < count)
                Assert.Ignore("needs " + count + " CUDA devices, this machine has " + Cuda.DeviceCount);
        }

        /// <summary>Skips the test visibly on a machine with a GPU (it checks the no-GPU behaviour).</summary>
        protected static void RequireNoGpu()
        {
            if (Cuda.IsAvailable) Assert.Ignore("checks the behaviour without a GPU, and this machine has one");
        }

        /// <summary>Asserts CT_ERR_CUDA_UNAVAILABLE (301) with PyTorch's "CUDA is not available"
        /// reason in the message.</summary>
        protected static CtorchException Unavailable(TestDelegate action)
        {
            CtorchException e = Fails(StatusCode.CudaUnavailable, action);
            StringAssert.Contains("CUDA is not available", e.NativeMessage);
            return e;
        }

        /// <summary>Runs body on a thread of its own and rethrows what it threw there. The thread
        /// then ends: no stale reference is left on its stack (Mono scans stacks conservatively)
        /// and its thread-local resources (a cuBLAS handle and workspace) are released.</summary>
        protected static void OnOwnThread(Action body)
        {
            Exception error = null;
            var t = new Thread(() =>
            {
                try { body(); }
                catch (Exception e) { error = e; }
            });
            t.Start();
            t.Join();
            if (error != null) ExceptionDispatchInfo.Capture(error).Throw();
        }

        /// <summary>Runs pending finalizers (garbage of earlier tests) before counting.</summary>
        protected static void Settle()
        {
            for (int i = 0; i < 2; i++)
            {
                GC.Collect();
                GC.WaitForPendingFinalizers();
            }
        }

        protected static void AreEqual(float[] expected, Tensor t, float tol = 1e-6f)
        {
            Assert.AreEqual(DType.Float32, t.DType, "dtype");
            float[] got = t.ToArray<float>();
            Assert.AreEqual(expected.Length, got.Length, "numel");
            for (int i = 0; i < expected.Length; i++)
            {
                if (float.IsNaN(expected[i])) Assert.IsTrue(float.IsNaN(got[i]), "element " + i + " is not NaN");
                else Assert.AreEqual(expected[i], got[i], tol, "element " + i);
            }
        }

        protected static void AreEqual(double[] expected, Tensor t, double tol = 1e-12)
        {
            Assert.AreEqual(DType.Float64, t.DType, "dtype");
            double[] got = t.ToArray<double>();
            Assert.AreEqual(expected.Length, got.Length, "numel");
            for (int i = 0; i < expected.Length; i++) Assert.AreEqual(expected[i], got[i], tol, "element " + i);
        }

        protected static void AreEqual(long[] expected, Tensor t)
        {
            Assert.AreEqual(DType.Int64, t.DType, "dtype");
            CollectionAssert.AreEqual(expected, t.ToArray<long>());
        }

        protected static void AreEqual(int[] expected, Tensor t)
        {
            Assert.AreEqual(DType.Int32, t.DType, "dtype");
            CollectionAssert.AreEqual(expected, t.ToArray<int>());
        }

        protected static void AreEqual(bool[] expected, Tensor t)
        {
            Assert.AreEqual(DType.Bool, t.DType, "dtype");
            CollectionAssert.AreEqual(expected, t.ToArray<bool>());
        }

        protected static void ShapeIs(Tensor t, params long[] shape)
        {
            CollectionAssert.AreEqual(shape, t.Shape, "shape");
        }

        /// <summary>Asserts that the action throws a CtorchException with this code, a matching
        /// status name and a non-empty message, and returns it.</summary>
        protected static CtorchException Fails(StatusCode code, TestDelegate action)
        {
            var e = Assert.Throws(Is.InstanceOf<CtorchException>(), action) as CtorchException;
            Assert.IsNotNull(e);
            Assert.AreEqual(code, e.Code, "code; message: " + e.Message);
            Assert.AreEqual(Torch.StatusName(code), e.StatusName);
            Assert.IsFalse(string.IsNullOrEmpty(e.NativeMessage), "the native message is empty");
            StringAssert.StartsWith(e.StatusName + ": ", e.Message);
            return e;
        }

        /// <summary>Like Fails, where the header allows more than one code for the case.</summary>
        protected static CtorchException FailsWithOneOf(TestDelegate action, params StatusCode[] codes)
        {
            var e = Assert.Throws(Is.InstanceOf<CtorchException>(), action) as CtorchException;
            Assert.IsNotNull(e);
            CollectionAssert.Contains(codes, e.Code, "code; message: " + e.Message);
            Assert.AreEqual(Torch.StatusName(e.Code), e.StatusName);
            Assert.IsFalse(string.IsNullOrEmpty(e.NativeMessage), "the native message is empty");
            return e;
        }

        protected static Tensor F(params float[] v) => Tensor.FromArray(v);
        protected static Tensor D(params double[] v) => Tensor.FromArray(v);
        protected static Tensor L(params long[] v) => Tensor.FromArray(v);
        protected static Tensor I(params int[] v) => Tensor.FromArray(v);
        protected static Tensor B(params bool[] v) => Tensor.FromArray(v);
    }
}
