// Memory recovery and allocator choice (section 15 of ctorch.h): the out-of-memory hook this
// binding registers with ctorch (ct_cuda_add_oom_hook) so that tensors dropped without Dispose
// give their device memory back before an allocation fails, and the pluggable allocator loaded
// from a shared library (ct_cuda_load_allocator).
using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;
using Ctorch.Swig;

[assembly: InternalsVisibleTo("CtorchTests")]

namespace Ctorch
{
    public static partial class Cuda
    {
        /// <summary>Diagnostic: how many times the binding's out-of-memory hook has run in this
        /// application domain. ctorch runs it when a CUDA allocation finds no room even after
        /// the allocator gave its cached blocks back to the device; it collects garbage and waits
        /// (at most about 2 s) for the finalizers of dropped tensors, then ctorch retries the
        /// allocation once. A growing count means the program relies on the GC for device memory:
        /// dispose tensors instead.</summary>
        public static long OutOfMemoryHookRuns => OomHook.Runs;

        /// <summary>Diagnostic: true when the out-of-memory hook is registered with ctorch (done
        /// once, at the first use of the native library; false only when that failed, e.g. with
        /// a libctorch.so older than this binding).</summary>
        public static bool OutOfMemoryHookRegistered => OomHook.Id > 0;

        /// <summary>torch.cuda.memory.CUDAPluggableAllocator(path, alloc, free) +
        /// change_current_allocator: every CUDA tensor's memory then comes from the function
        /// allocSymbol of the shared library at path and goes back through freeSymbol (PyTorch's
        /// signatures: <c>void* alloc(size_t size, int device, cudaStream_t stream)</c>,
        /// <c>void free(void* ptr, size_t size, int device, cudaStream_t stream)</c>), so an
        /// allocator written for PyTorch loads as it is. There is no caching and no statistics
        /// afterwards (they throw CtorchException, NotSupported), and
        /// <see cref="GetAllocatorBackend"/> is "pluggable". Only before the first CUDA
        /// allocation of the process: afterwards CtorchException (State). A library or symbol
        /// that cannot be loaded is CtorchException (Argument) with dlerror's message; null
        /// arguments are ArgumentNullException, strings with a NUL character ArgumentException.</summary>
        public static void LoadAllocator(string path, string allocSymbol, string freeSymbol)
        {
            CheckCString(path, nameof(path));
            CheckCString(allocSymbol, nameof(allocSymbol));
            CheckCString(freeSymbol, nameof(freeSymbol));
            Native.Check(ctorch.ct_cuda_load_allocator(path, allocSymbol, freeSymbol));
        }

        // A string that reaches C unchanged: not null, no NUL (it would cut the C string short).
        internal static void CheckCString(string s, string name)
        {
            if (s == null) throw new ArgumentNullException(name);
            if (s.IndexOf('\0') >= 0) throw new ArgumentException("contains a NUL character", name);
        }
    }

    /// <summary>
    /// The out-of-memory hook of the C# binding (Note [Out-of-memory hooks] in
    /// impl/alloc/caching_allocator.h). The type initializer registers it with
    /// ct_cuda_add_oom_hook exactly once per application domain (once per process in an ordinary
    /// program); the static constructors of <see cref="Native"/> and <see cref="TensorHandle"/>
    /// touch this class, so that happens at the first use of the native library, before any
    /// Tensor can be dropped. The delegate lives in a static field for the life of the domain
    /// (native code holds a pointer to it); an unloading domain removes its hook first.
    /// ctorch calls the hook on the allocating thread with no ctorch lock held: it runs a full
    /// collection, waits for the pending finalizers (the SafeHandles' ReleaseHandle, which calls
    /// ct_tensor_release on the finalizer thread) at most <see cref="FinalizerWaitMs"/>, and
    /// collects again.
    /// </summary>
    internal static class OomHook
    {
        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        internal delegate void HookFn(int device, long requestedBytes, IntPtr ctx);

        // ct_cuda_add_oom_hook is %ignore'd by SWIG (it takes a C function pointer); it is
        // exported by libctorch.so, a dependency of libctorch_csharp.so, and dlsym on the wrapper
        // library's handle searches its dependencies too.
        [DllImport("ctorch_csharp", EntryPoint = "ct_cuda_add_oom_hook", CallingConvention = CallingConvention.Cdecl)]
        private static extern int AddOomHook(HookFn hook, IntPtr ctx, out long id);

        /// <summary>How long one run of the hook waits for finalizers, in milliseconds: a
        /// finalizer that blocks must not hang the allocation that ran out of memory.</summary>
        internal const int FinalizerWaitMs = 2000;

        // Referenced for the life of the domain: the native side keeps only a function pointer.
        private static readonly HookFn s_hook = Run;

        /// <summary>The id ct_cuda_add_oom_hook returned; 0 when registration failed.</summary>
        internal static readonly long Id;

        /// <summary>Why registration failed (null when it did not).</summary>
        internal static readonly Exception RegistrationError;

        private static long s_runs;

        // The finalizer waiter: a background thread that runs GC.WaitForPendingFinalizers for
        // the hook, so that the hook itself can give up after FinalizerWaitMs.
        private static readonly object s_lock = new object();
        private static Thread s_waiter;
        private static long s_requested, s_done;

        static OomHook()
        {
            try
            {
                long id;
                int status = AddOomHook(s_hook, IntPtr.Zero, out id);
                if (status != 0) throw CtorchException.FromStatus(status);
                Id = id;
                AppDomain domain = AppDomain.CurrentDomain;
                if (!domain.IsDefaultAppDomain()) domain.DomainUnload += (sender, e) => ctorch.ct_cuda_remove_oom_hook(Id);
            }
            catch (Exception e)
            {
                // Never fail the type initializers of Native and TensorHandle: the library keeps
                // working, without memory recovery (Cuda.OutOfMemoryHookRegistered is false).
                Id = 0;
                RegistrationError = e;
            }
        }

        /// <summary>Runs the type initializer (which registers the hook) if it has not run yet;
        /// does nothing otherwise.</summary>
        internal static void EnsureRegistered() { }

        /// <summary>How many times the hook has run.</summary>
        internal static long Runs => Interlocked.Read(ref s_runs);

        /// <summary>The hook body (ct_oom_hook_fn). Never throws: an exception must not unwind
        /// into native code.</summary>
        internal static void Run(int device, long requestedBytes, IntPtr ctx)
        {
            try
            {
                Interlocked.Increment(ref s_runs);
                GC.Collect();
                WaitForPendingFinalizers(FinalizerWaitMs);
                GC.Collect();
            }
            catch (Exception)
            {
                // Nothing to report to: ctorch retries the allocation, or fails it with
                // CT_ERR_OUT_OF_MEMORY.
            }
        }

        /// <summary>GC.WaitForPendingFinalizers with a time limit: true when the finalizers that
        /// were pending at the call have run within timeoutMs.</summary>
        internal static bool WaitForPendingFinalizers(int timeoutMs)
        {
            int deadline = Environment.TickCount + timeoutMs;
            lock (s_lock)
            {
                if (s_waiter == null)
                {
                    s_waiter = new Thread(WaiterLoop) { IsBackground = true, Name = "ctorch out-of-memory hook" };
                    s_waiter.Start();
                }
                long ticket = ++s_requested;
                Monitor.PulseAll(s_lock);
                while (s_done < ticket)
                {
                    int left = deadline - Environment.TickCount;
                    if (left <= 0 || !Monitor.Wait(s_lock, left)) return s_done >= ticket;
                }
                return true;
            }
        }

        private static void WaiterLoop()
        {
            while (true)
            {
                long target;
                lock (s_lock)
                {
                    while (s_done == s_requested) Monitor.Wait(s_lock);
                    target = s_requested;   // every request up to here came after its GC.Collect
                }
                GC.WaitForPendingFinalizers();
                lock (s_lock)
                {
                    s_done = target;
                    Monitor.PulseAll(s_lock);
                }
            }
        }
    }
}
