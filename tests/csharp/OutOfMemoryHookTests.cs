// The binding's out-of-memory hook (Cuda.OutOfMemoryHookRuns; ct_cuda_add_oom_hook, ctorch.h
// section 15). On every machine: it is registered exactly once, at the first use of the native
// library, through a DllImport of the SWIG wrapper library (which resolves a libctorch.so symbol);
// host allocation failures do not run it; run by hand it brings dropped tensors back and gives
// up on a finalizer that blocks. On a GPU host: 20 tensors dropped without Dispose, each too big
// to fit next to four others under a 1% memory fraction, are all allocated because ctorch runs
// the hook and retries, and no allocation fails.
using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;
using Ctorch;
using Ctorch.Swig;
using NUnit.Framework;

namespace Ctorch.Tests
{
    [TestFixture]
    public class OutOfMemoryHookTests : TestBase
    {
        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        private delegate void ProbeFn(int device, long requestedBytes, IntPtr ctx);

        // The same entry point the binding uses, for a probe hook that only tells which id the
        // next registration gets.
        [DllImport("ctorch_csharp", EntryPoint = "ct_cuda_add_oom_hook", CallingConvention = CallingConvention.Cdecl)]
        private static extern int AddHook(ProbeFn hook, IntPtr ctx, out long id);

        private static int s_probeRuns;
        private static readonly ProbeFn s_probe = (device, bytes, ctx) => Interlocked.Increment(ref s_probeRuns);

        // The id the next ct_cuda_add_oom_hook returns (the probe is removed again at once).
        private static long NextHookId()
        {
            long id;
            Assert.AreEqual(0, AddHook(s_probe, IntPtr.Zero, out id));
            Assert.AreEqual(0, ctorch.ct_cuda_remove_oom_hook(id));
            return id;
        }

        [Test]
        public void TheHookIsRegisteredOnceAtTheFirstUseOfTheLibrary()
        {
            Assert.IsTrue(Cuda.OutOfMemoryHookRegistered, "registration failed: " + OomHook.RegistrationError);
            Assert.IsNull(OomHook.RegistrationError);
            // Ids count from 1 in each process and nothing but this binding registers hooks in
            // the test process: the binding's hook is the first one, and the only one it added.
            Assert.AreEqual(1, OomHook.Id, "the binding's hook is the first hook of the process");
            long next = NextHookId();
            Assert.Greater(next, OomHook.Id);

            // Initialization again, from several threads at once: the type initializers run
            // once, so no second hook is added (the next id follows the probe's directly).
            var threads = new Thread[8];
            for (int i = 0; i < threads.Length; i++)
            {
                threads[i] = new Thread(() =>
                {
                    RuntimeHelpers.RunClassConstructor(typeof(OomHook).TypeHandle);
                    RuntimeHelpers.RunClassConstructor(typeof(TensorHandle).TypeHandle);
                    OomHook.EnsureRegistered();
                    using (Tensor t = Tensor.Zeros(2)) { }
                });
                threads[i].Start();
            }
            foreach (Thread t in threads) t.Join();
            Assert.AreEqual(next + 1, NextHookId(), "initialization added another hook");
            Assert.AreEqual(1, OomHook.Id);
            Assert.AreEqual(0, s_probeRuns, "a probe hook never ran");
        }

        [Test]
        public void WithoutAGpuTheHookNeverRuns()
        {
            RequireNoGpu();
            Assert.AreEqual(0, Cuda.OutOfMemoryHookRuns);
        }

        [Test]
        public void HostAllocationFailuresDoNotRunTheHook()
        {
            // The hooks serve CUDA allocations; a host tensor of 4 PiB fails at once.
            long runs = Cuda.OutOfMemoryHookRuns;
            var e = Assert.Throws<CtorchOutOfMemoryException>(() => Tensor.Empty(new[] { 1L << 52 }, DType.UInt8));
            Assert.AreEqual(StatusCode.OutOfMemory, e.Code);
            Assert.AreEqual(runs, Cuda.OutOfMemoryHookRuns);
        }
    }

    /// <summary>
    /// Tensors dropped without Dispose, recovered by the hook. These drop tensors on purpose, so
    /// they run in the GC fixtures' process with its tolerance (see GcFixture).
    /// </summary>
    [TestFixture]
    [Category("gc")]
    public class OutOfMemoryRecoveryTests : GcFixture
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void Drop(int n)
        {
            for (int i = 0; i < n; i++) Tensor.Ones(16);
        }

        [Test]
        public void TheHookReleasesDroppedTensorsBeforeItReturns()
        {
            OnOwnThread(() => Drop(500));
            Assert.Greater(Torch.LiveTensorCount, StartCount + 400, "the dropped tensors are still alive");
            long runs = Cuda.OutOfMemoryHookRuns;
            OomHook.Run(0, 1 << 20, IntPtr.Zero);   // what ctorch calls on an out-of-memory
            Assert.AreEqual(runs + 1, Cuda.OutOfMemoryHookRuns);
            Assert.That(Torch.LiveTensorCount, Is.InRange(StartCount, StartCount + Residue),
                        "tensors still alive when the hook returned");
        }

        private sealed class BlockingFinalizer
        {
            internal static readonly ManualResetEventSlim Started = new ManualResetEventSlim();
            internal static readonly ManualResetEventSlim Finished = new ManualResetEventSlim();

            ~BlockingFinalizer()
            {
                Started.Set();
                Thread.Sleep(OomHook.FinalizerWaitMs + 2000);
                Finished.Set();
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void DropBlocker() => GC.KeepAlive(new BlockingFinalizer());

        [Test]
        public void TheHookGivesUpOnAFinalizerThatBlocks()
        {
            OnOwnThread(DropBlocker);
            var watch = Stopwatch.StartNew();
            OomHook.Run(0, 1 << 20, IntPtr.Zero);
            long ms = watch.ElapsedMilliseconds;
            Assert.IsTrue(BlockingFinalizer.Started.IsSet, "the blocking finalizer ran during the hook");
            Assert.IsFalse(BlockingFinalizer.Finished.IsSet, "the hook waited for the blocked finalizer");
            Assert.That(ms, Is.InRange(OomHook.FinalizerWaitMs - 100, OomHook.FinalizerWaitMs + 1500),
                        "the hook waits for finalizers, at most FinalizerWaitMs");
            Assert.IsTrue(BlockingFinalizer.Finished.Wait(10000));
            // The waiter thread is free again: a second run waits for nothing long.
            watch.Restart();
            Assert.IsTrue(OomHook.WaitForPendingFinalizers(OomHook.FinalizerWaitMs));
            Assert.Less(watch.ElapsedMilliseconds, OomHook.FinalizerWaitMs);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void AllocateAndDrop(long bytes) =>
            Tensor.Empty(new[] { bytes }, DType.UInt8, Device.CudaAt(0));

        [Test]
        public void DroppedCudaTensorsAreRecoveredThroughTheHook()
        {
            RequireGpu();
            Cuda.EmptyCache();
            long total = Cuda.MemGetInfo(0).Total;
            long n = total / 400;   // about four of these fit under 1% of the device
            long runs0 = Cuda.OutOfMemoryHookRuns;
            long ooms0 = Cuda.MemoryStat("num_ooms", 0);
            int made = 0;
            try
            {
                Cuda.SetPerProcessMemoryFraction(0.01, 0);
                OnOwnThread(() =>
                {
                    for (int i = 0; i < 20; i++)
                    {
                        AllocateAndDrop(n);   // never disposed, no reference kept
                        made++;
                    }
                });
            }
            finally
            {
                Cuda.SetPerProcessMemoryFraction(1.0, 0);
                WaitForCount(StartCount);
                Cuda.EmptyCache();
            }
            Assert.AreEqual(20, made, "every allocation succeeded");
            Assert.Greater(Cuda.OutOfMemoryHookRuns, runs0, "the hook ran");
            Assert.AreEqual(ooms0, Cuda.MemoryStat("num_ooms", 0), "no allocation ran out of memory");
        }
    }
}
