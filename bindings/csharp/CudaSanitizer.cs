// The CUDA stream sanitizer (section 24 of ctorch.h): torch.cuda._sanitizer's modes, the report
// count, and warn mode's callback into managed code.
using System;
using System.Runtime.InteropServices;
using System.Text;
using Ctorch.Swig;

namespace Ctorch
{
    /// <summary>
    /// The CUDA stream sanitizer (torch.cuda._sanitizer; docs/cuda.md, "The stream sanitizer"):
    /// finds a kernel that reads or writes a tensor's memory on one stream while a kernel on
    /// another stream may still be writing it (or, for a write, reading it), with no
    /// synchronization in between (an event recorded after the earlier access and waited for,
    /// <see cref="CudaStream.WaitStream"/>, or the host waiting).
    /// <code>
    /// CudaSanitizer.Enable();                 // torch.cuda._sanitizer.enable_cuda_sanitizer()
    /// var a = Tensor.Empty(new long[] { 100, 100 }, DType.Float32, Device.Cuda).Normal_(0, 1);
    /// using (var side = new CudaStream())
    /// using (Cuda.UseStream(side))
    ///     a.Sum();                            // CtorchDataRaceException: no side.WaitStream(...)
    /// </code>
    /// <para><see cref="SanitizerMode.Error"/>: the racing op throws
    /// <see cref="CtorchDataRaceException"/> after its kernel was queued.
    /// <see cref="SanitizerMode.Warn"/>: each report goes to the callback of
    /// <see cref="SetCallback"/> (default: standard error) and the op succeeds. The environment
    /// variable CTORCH_CUDA_SANITIZER switches it on when the library loads. Switch it on before
    /// the streams start working: what ran while it was off is not known. CPU tensors are never
    /// checked, and none of this needs a GPU. Everything here is process-wide and
    /// thread-safe.</para>
    /// </summary>
    public static class CudaSanitizer
    {
        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        internal delegate void ReportFn(IntPtr report, IntPtr user);

        // ct_cuda_sanitizer_set_callback is %ignore'd by SWIG (it takes a C function pointer);
        // it is exported by libctorch.so, a dependency of libctorch_csharp.so (see OomHook).
        [DllImport("ctorch_csharp", EntryPoint = "ct_cuda_sanitizer_set_callback", CallingConvention = CallingConvention.Cdecl)]
        private static extern int SetNativeCallback(ReportFn cb, IntPtr user);

        // The one function C calls, referenced for the life of the domain: the native side keeps
        // only a function pointer to it. It dispatches to s_callback.
        internal static readonly ReportFn Trampoline = OnReport;

        private static readonly object s_lock = new object();
        // The program's callback while it is registered (the native side holds no reference).
        private static volatile Action<string> s_callback;

        /// <summary>The mode (torch.cuda._sanitizer's enable_cuda_sanitizer is
        /// <see cref="Enable"/>). Setting it on from <see cref="SanitizerMode.Off"/> starts with
        /// nothing known; setting it off forgets everything. A value that is not a
        /// <see cref="SanitizerMode"/> is CtorchException (Argument), and changes
        /// nothing.</summary>
        public static SanitizerMode Mode
        {
            get
            {
                int mode;
                Native.Check(ctorch.ct_cuda_sanitizer_mode(out mode));
                return (SanitizerMode)mode;
            }
            set => Native.Check(ctorch.ct_cuda_sanitizer_set_mode((int)value));
        }

        /// <summary>torch.cuda._sanitizer.enable_cuda_sanitizer(): <see cref="SanitizerMode.Error"/>
        /// (nothing changes when it is in that mode already).</summary>
        public static void Enable()
        {
            if (Mode != SanitizerMode.Error) Mode = SanitizerMode.Error;
        }

        /// <summary>How many races the sanitizer has reported in this process (both modes); it
        /// only grows.</summary>
        public static long ReportCount
        {
            get
            {
                long n;
                Native.Check(ctorch.ct_cuda_sanitizer_report_count(out n));
                return n;
            }
        }

        /// <summary>Where <see cref="SanitizerMode.Warn"/>'s reports go: callback(report) once
        /// per race, with the report's text (torch's form, without stack traces); null restores
        /// the default, which prints each report to standard error. The delegate is kept until
        /// it is replaced.
        /// <para>It runs on the thread of the op that raced, inside that op's call, so it should
        /// be short; it may run on several threads at once, and on a thread the runtime did not
        /// start (C code sharing the process). It must not use this class (ctorch's rule for the
        /// C callback). An exception it throws is written to standard error with the report and
        /// dropped: the op goes on.</para></summary>
        public static void SetCallback(Action<string> callback)
        {
            lock (s_lock)
            {
                if (callback != null)
                {
                    s_callback = callback; // before C can call it
                    Native.Check(SetNativeCallback(Trampoline, IntPtr.Zero));
                }
                else
                {
                    Native.Check(SetNativeCallback(null, IntPtr.Zero));
                    s_callback = null; // after C stopped calling it
                }
            }
        }

        /// <summary>The ct_csan_callback: decodes the report (UTF-8, NUL-terminated) and calls
        /// the program's callback. Never throws: an exception must not unwind into native
        /// code.</summary>
        private static void OnReport(IntPtr report, IntPtr user)
        {
            string text = null;
            try
            {
                text = Utf8(report);
                Action<string> cb = s_callback;
                if (cb == null) // a report that crossed SetCallback(null): the default's place
                {
                    Console.Error.Write(text);
                    return;
                }
                cb(text);
            }
            catch (Exception e)
            {
                try
                {
                    Console.Error.Write("ctorch: the stream sanitizer callback threw on this report:\n" + text + e + "\n");
                }
                catch (Exception)
                {
                    // nowhere left to report to
                }
            }
        }

        // The NUL-terminated UTF-8 string at p, byte-exact.
        private static string Utf8(IntPtr p)
        {
            if (p == IntPtr.Zero) return "";
            int n = 0;
            while (Marshal.ReadByte(p, n) != 0) n++;
            var bytes = new byte[n];
            Marshal.Copy(p, bytes, 0, n);
            return Encoding.UTF8.GetString(bytes);
        }
    }
}
