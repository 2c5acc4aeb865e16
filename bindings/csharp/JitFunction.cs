// The jiterator (section 25 of capi/ctorch.h; docs/csharp.md "Jiterator"): elementwise functions
// written at run time as CUDA source. The enum JitFunction.ArgType is generated from
// capi/abi.toml into Abi.g.cs.
using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using System.Text;
using Ctorch.Swig;

namespace Ctorch
{
    /// <summary>
    /// A jitted elementwise function (torch.cuda.jiterator._create_jit_fn and
    /// _create_multi_output_jit_fn): CUDA C++ source whose last function template runs for each
    /// element, its inputs broadcast together and promoted to their common dtype, on the current
    /// stream of their device:
    /// <code>
    /// using (var fused = JitFunction.Create(
    ///     "template &lt;typename T&gt; T my_fused_kernel(T x, T y, T alpha, T beta) { return alpha * x + beta * y; }",
    ///     ("alpha", 1.0), ("beta", 1.0)))
    /// {
    ///     Tensor z = fused.Call(x, y);                                         // alpha * x + beta * y
    ///     Tensor w = fused.Call(new[] { x, y }, ("beta", -1.0), ("alpha", 0.5)); // overrides by name
    ///     fused.CallOut(new[] { x }, x, y);                                    // x = alpha * x + beta * y, in place
    /// }
    /// </code>
    /// The extra arguments (torch's kwargs) are named, typed by their C# value (long or int:
    /// <see cref="ArgType.Int64"/>, double or float: <see cref="ArgType.Double"/>, bool:
    /// <see cref="ArgType.Bool"/>; anything else is ArgumentException) and passed to the function
    /// by position, in the order given, after the tensors. The code is parsed when the function is
    /// made (CtorchException (Argument), "Couldn't parse code, ...") and compiled with NVRTC at the
    /// first call for each combination of dtypes and layout (or read from the disk cache of an
    /// earlier process, docs/jiterator.md); a compile error is CtorchException
    /// (Argument) carrying NVRTC's log. Making one needs no GPU; without CUDA a call throws
    /// CtorchException (CudaUnavailable). Each JitFunction owns one reference to the native
    /// function through its <see cref="JitFunctionHandle"/>; <see cref="NativeObject{T}.Dispose"/>
    /// releases it (the handle's finalizer does otherwise). Compiled kernels stay for the process.
    /// </summary>
    public sealed partial class JitFunction : NativeObject<JitFunctionHandle>
    {
        /// <summary>Wraps a handle; the JitFunction takes over its disposal.</summary>
        public JitFunction(JitFunctionHandle handle) : base(handle, "fn", "JitFunction") { }

        /// <summary>torch.cuda.jiterator._create_jit_fn(code, **kwargs): a function with one
        /// output, which the code's last function template returns.</summary>
        public static JitFunction Create(string code, params (string, object)[] kwargs) =>
            Create(code, Pairs(kwargs, nameof(kwargs)));

        /// <summary>As <see cref="Create(string, ValueTuple{string, object}[])"/>, the extra
        /// arguments in the enumeration's order (e.g. a list of pairs).</summary>
        public static JitFunction Create(string code, IEnumerable<KeyValuePair<string, object>> kwargs) =>
            Make(code, 0, JitArgs.Of(kwargs, nameof(kwargs)));

        /// <summary>torch.cuda.jiterator._create_multi_output_jit_fn(code, num_outputs, **kwargs):
        /// numOutputs (1 to 8) outputs, the trailing <c>T&amp;</c> parameters of a void function
        /// template.</summary>
        public static JitFunction CreateMultiOutput(string code, int numOutputs, params (string, object)[] kwargs) =>
            CreateMultiOutput(code, numOutputs, Pairs(kwargs, nameof(kwargs)));

        /// <summary>As <see cref="CreateMultiOutput(string, int, ValueTuple{string, object}[])"/>,
        /// the extra arguments in the enumeration's order.</summary>
        public static JitFunction CreateMultiOutput(string code, int numOutputs,
                                                    IEnumerable<KeyValuePair<string, object>> kwargs)
        {
            // 0 is ct_cuda_jit_create's marker in Make: reject it here with the C layer's range
            if (numOutputs < 1)
                throw new ArgumentOutOfRangeException(nameof(numOutputs), numOutputs,
                                                      "a jitted function has 1 to 8 outputs");
            return Make(code, numOutputs, JitArgs.Of(kwargs, nameof(kwargs)));
        }

        // numOutputs 0: ct_cuda_jit_create, else ct_cuda_jit_create_multi_output.
        private static JitFunction Make(string code, int numOutputs, JitArgs args)
        {
            if (code == null) throw new ArgumentNullException(nameof(code));
            byte[] source = JitArgs.Utf8Z(code, nameof(code));
            IntPtr r = IntPtr.Zero;
            args.Pass((names, types, ints, doubles, n) => numOutputs == 0
                ? JitCreate(source, names, types, ints, doubles, n, out r)
                : JitCreateMultiOutput(source, numOutputs, names, types, ints, doubles, n, out r));
            return FromHandle(r);
        }

        /// <summary>A JitFunction for a raw ct_cuda_jit_fn handle that owns one reference (for
        /// interop with code using the C API).</summary>
        public static JitFunction FromHandle(IntPtr handle) => new JitFunction(new JitFunctionHandle(handle, true));

        /// <summary>Another JitFunction object for the same native function (ct_cuda_jit_retain
        /// adds a reference): disposing one leaves the other usable.</summary>
        public JitFunction NewReference()
        {
            using (var a = Use())
            {
                Native.Check(JitRetain(a.Ptr));
                return FromHandle(a.Ptr);
            }
        }

        /// <summary>The function's name: the code's last function template.</summary>
        public string Name
        {
            get
            {
                using (var a = Use())
                {
                    IntPtr p = a.Ptr;
                    return Native.GetString((IntPtr buf, long cap, out long needed) => JitName(p, buf, cap, out needed));
                }
            }
        }

        /// <summary>How many outputs a call makes (1 for <see cref="Create(string, ValueTuple{string, object}[])"/>).</summary>
        public int NumOutputs
        {
            get { using (var a = Use()) return Out.Get<int>(JitNumOutputs, a.Ptr); }
        }

        /// <summary>How many kernels the jiterator has made ready in this process, compiled or read
        /// from its disk cache (all functions, devices and dtypes).</summary>
        public static long KernelCount => Out.Get<long>(ctorch.ct_cuda_jit_kernel_count);

        // ---------------------------------------------------------------- calls

        /// <summary>Calls a one-output function on 1 to 8 CUDA tensors of one device with the
        /// extra arguments given at creation; returns a new tensor of the broadcast shape and the
        /// common dtype. On a function of several outputs: InvalidOperationException (use
        /// <see cref="CallMulti(Tensor[])"/>).</summary>
        public Tensor Call(params Tensor[] inputs) => Single(inputs, JitArgs.None);

        /// <summary><see cref="Call(Tensor[])"/> with some extra arguments replaced by name for
        /// this call (torch's keyword arguments; a value of another C# type changes the argument's
        /// type). A name the function did not declare is CtorchException (Argument).</summary>
        public Tensor Call(Tensor[] inputs, params (string, object)[] overrides) =>
            Single(inputs, JitArgs.Of(Pairs(overrides, nameof(overrides)), nameof(overrides)));

        /// <summary>As <see cref="Call(Tensor[], ValueTuple{string, object}[])"/>, the overrides as
        /// an enumeration of pairs.</summary>
        public Tensor Call(Tensor[] inputs, IEnumerable<KeyValuePair<string, object>> overrides) =>
            Single(inputs, JitArgs.Of(overrides, nameof(overrides)));

        /// <summary>Calls the function (any number of outputs) on 1 to 8 CUDA tensors of one
        /// device; returns its <see cref="NumOutputs"/> new tensors in order.</summary>
        public Tensor[] CallMulti(params Tensor[] inputs) => Run(inputs, JitArgs.None);

        /// <summary><see cref="CallMulti(Tensor[])"/> with some extra arguments replaced by
        /// name.</summary>
        public Tensor[] CallMulti(Tensor[] inputs, params (string, object)[] overrides) =>
            Run(inputs, JitArgs.Of(Pairs(overrides, nameof(overrides)), nameof(overrides)));

        /// <summary>As <see cref="CallMulti(Tensor[], ValueTuple{string, object}[])"/>, the
        /// overrides as an enumeration of pairs.</summary>
        public Tensor[] CallMulti(Tensor[] inputs, IEnumerable<KeyValuePair<string, object>> overrides) =>
            Run(inputs, JitArgs.Of(overrides, nameof(overrides)));

        /// <summary>The out form (as a built-in op's <c>out=</c>, which torch's jitted functions
        /// lack; in place when an output is also an input):
        /// writes the function's values on 1 to 8 CUDA tensors of one device into outs, its
        /// <see cref="NumOutputs"/> CUDA tensors of that device, each of exactly the broadcast
        /// shape (CtorchException (Shape) otherwise), with no element written twice (an expanded
        /// output is CtorchException (Argument)) and of a dtype the common dtype can be cast to
        /// (CtorchException (DType) otherwise). The outputs are borrowed: nothing new is made. A
        /// null outs or element is ArgumentNullException, a disposed one ObjectDisposedException;
        /// on any error no output is written.</summary>
        public void CallOut(Tensor[] outs, params Tensor[] inputs) => RunOut(outs, inputs, JitArgs.None);

        /// <summary><see cref="CallOut(Tensor[], Tensor[])"/> with some extra arguments replaced
        /// by name for this call, as in <see cref="Call(Tensor[], ValueTuple{string, object}[])"/>.</summary>
        public void CallOut(Tensor[] outs, Tensor[] inputs, params (string, object)[] overrides) =>
            RunOut(outs, inputs, JitArgs.Of(Pairs(overrides, nameof(overrides)), nameof(overrides)));

        /// <summary>As <see cref="CallOut(Tensor[], Tensor[], ValueTuple{string, object}[])"/>, the
        /// overrides as an enumeration of pairs.</summary>
        public void CallOut(Tensor[] outs, Tensor[] inputs, IEnumerable<KeyValuePair<string, object>> overrides) =>
            RunOut(outs, inputs, JitArgs.Of(overrides, nameof(overrides)));

        private Tensor Single(Tensor[] inputs, JitArgs overrides) => Run(inputs, overrides, true)[0];

        private Tensor[] Run(Tensor[] inputs, JitArgs overrides, bool single = false)
        {
            Tensor[] r = null;
            WithInputs(inputs, (f, ins) =>
            {
                int n = Out.Get<int>(JitNumOutputs, f);
                if (single && n != 1)
                    throw new InvalidOperationException(Name + " makes " + n + " outputs: call it with CallMulti");
                var outs = new IntPtr[n];
                overrides.Pass((names, types, ints, doubles, count) =>
                    JitRun(f, ins, ins.Length, names, types, ints, doubles, count, outs, outs.Length));
                r = new Tensor[n];
                for (int i = 0; i < n; i++) r[i] = Tensor.Own(outs[i]);
            });
            return r;
        }

        // The C layer checks the number of outputs, their shapes, dtypes and devices.
        private void RunOut(Tensor[] outs, Tensor[] inputs, JitArgs overrides)
        {
            if (outs == null) throw new ArgumentNullException(nameof(outs));
            WithInputs(inputs, (f, ins) =>
            {
                using (var o = new MultiLease(outs, nameof(outs)))
                {
                    IntPtr[] os = o.Ptrs;
                    overrides.Pass((names, types, ints, doubles, count) =>
                        JitRunOut(f, ins, ins.Length, names, types, ints, doubles, count, os, os.Length));
                }
            });
        }

        // Calls body with the function and the inputs' handles, each kept alive (leased) until it
        // returns.
        private void WithInputs(Tensor[] inputs, Action<IntPtr, IntPtr[]> body)
        {
            if (inputs == null) throw new ArgumentNullException(nameof(inputs));
            using (var a = Use())
            using (var l = new MultiLease(inputs, nameof(inputs)))
                body(a.Ptr, l.Ptrs);
        }

        private static IEnumerable<KeyValuePair<string, object>> Pairs((string, object)[] pairs, string param)
        {
            if (pairs == null) throw new ArgumentNullException(param);
            var r = new KeyValuePair<string, object>[pairs.Length];
            for (int i = 0; i < pairs.Length; i++) r[i] = new KeyValuePair<string, object>(pairs[i].Item1, pairs[i].Item2);
            return r;
        }

        public override string ToString()
        {
            try
            {
                return $"JitFunction({Name}, outputs={NumOutputs})";
            }
            catch (ObjectDisposedException)
            {
                return "JitFunction(disposed)";
            }
            catch (CtorchException e)
            {
                return "JitFunction(" + e.StatusName + ")";
            }
        }

        // ---------------------------------------------------------------- the C functions

        // SWIG has no typemaps for ct_cuda_jit_fn and the argument arrays of section 25 (its
        // wrappers take opaque SWIGTYPE_p_* objects), so these call libctorch.so's exports
        // directly: a dependency of libctorch_csharp.so, which dlsym searches too (as for
        // ct_cuda_make_graphed_callable, GraphedCallable.cs).
        private const string Lib = "ctorch_csharp";

        [DllImport(Lib, EntryPoint = "ct_cuda_jit_create", CallingConvention = CallingConvention.Cdecl)]
        private static extern int JitCreate(byte[] code, IntPtr[] names, int[] types, long[] ints, double[] doubles,
                                            int n, out IntPtr result);

        [DllImport(Lib, EntryPoint = "ct_cuda_jit_create_multi_output", CallingConvention = CallingConvention.Cdecl)]
        private static extern int JitCreateMultiOutput(byte[] code, int numOutputs, IntPtr[] names, int[] types,
                                                       long[] ints, double[] doubles, int n, out IntPtr result);

        [DllImport(Lib, EntryPoint = "ct_cuda_jit_retain", CallingConvention = CallingConvention.Cdecl)]
        private static extern int JitRetain(IntPtr f);

        [DllImport(Lib, EntryPoint = "ct_cuda_jit_release", CallingConvention = CallingConvention.Cdecl)]
        private static extern int JitRelease(IntPtr f);

        [DllImport(Lib, EntryPoint = "ct_cuda_jit_name", CallingConvention = CallingConvention.Cdecl)]
        private static extern int JitName(IntPtr f, IntPtr buf, long cap, out long needed);

        [DllImport(Lib, EntryPoint = "ct_cuda_jit_num_outputs", CallingConvention = CallingConvention.Cdecl)]
        private static extern int JitNumOutputs(IntPtr f, out int n);

        [DllImport(Lib, EntryPoint = "ct_cuda_jit_run", CallingConvention = CallingConvention.Cdecl)]
        private static extern int JitRun(IntPtr f, IntPtr[] inputs, int nInputs, IntPtr[] names, int[] types,
                                         long[] ints, double[] doubles, int n,
                                         [In, Out] IntPtr[] outs, int nOuts);

        [DllImport(Lib, EntryPoint = "ct_cuda_jit_run_out", CallingConvention = CallingConvention.Cdecl)]
        private static extern int JitRunOut(IntPtr f, IntPtr[] inputs, int nInputs, IntPtr[] names, int[] types,
                                            long[] ints, double[] doubles, int n, IntPtr[] outs, int nOuts);

        /// <summary>ct_cuda_jit_release, for <see cref="JitFunctionHandle"/>.</summary>
        internal static int NativeRelease(IntPtr f) => JitRelease(f);
    }

    /// <summary>
    /// The binding's marshalling of a jitted function's extra arguments (at creation, or a call's
    /// overrides) into ct_cuda_jit_create's arrays: names, types, int64 values (Int64 and Bool
    /// entries; a bool as 0 or 1) and double values, in the caller's order. An array that no
    /// entry needs is null, so no arguments are n 0 and four nulls.
    /// </summary>
    internal sealed class JitArgs
    {
        internal static readonly JitArgs None = new JitArgs(new string[0], new int[0], null, null);

        internal readonly string[] Names;
        internal readonly int[] Types;
        internal readonly long[] Ints;
        internal readonly double[] Doubles;

        private JitArgs(string[] names, int[] types, long[] ints, double[] doubles)
        {
            Names = names;
            Types = types;
            Ints = ints;
            Doubles = doubles;
        }

        internal int Count => Names.Length;

        /// <summary>The arrays for kwargs; a null enumeration, a null or empty name (or one with a
        /// NUL character) and a value of an unsupported type are rejected here.</summary>
        internal static JitArgs Of(IEnumerable<KeyValuePair<string, object>> kwargs, string param)
        {
            if (kwargs == null) throw new ArgumentNullException(param);
            var names = new List<string>();
            var types = new List<int>();
            var ints = new List<long>();
            var doubles = new List<double>();
            bool anyInt = false, anyDouble = false;
            foreach (KeyValuePair<string, object> kv in kwargs)
            {
                int i = names.Count;
                if (kv.Key == null) throw new ArgumentNullException(param, "the name of extra argument " + i + " is null");
                if (kv.Key.Length == 0 || kv.Key.IndexOf('\0') >= 0)
                    throw new ArgumentException("extra argument " + i + " has an empty name or one with a NUL character",
                                                param);
                long iv = 0;
                double dv = 0;
                JitFunction.ArgType t;
                object v = kv.Value;
                if (v is long) { t = JitFunction.ArgType.Int64; iv = (long)v; }
                else if (v is int) { t = JitFunction.ArgType.Int64; iv = (int)v; }
                else if (v is double) { t = JitFunction.ArgType.Double; dv = (double)v; }
                else if (v is float) { t = JitFunction.ArgType.Double; dv = (float)v; }
                else if (v is bool) { t = JitFunction.ArgType.Bool; iv = (bool)v ? 1 : 0; }
                else
                    throw new ArgumentException("extra argument '" + kv.Key + "' is " +
                                                (v == null ? "null" : "a " + v.GetType().FullName) +
                                                ": a jiterator argument is a long or int, a double or float, or a bool",
                                                param);
                if (t == JitFunction.ArgType.Double) anyDouble = true;
                else anyInt = true;
                names.Add(kv.Key);
                types.Add((int)t);
                ints.Add(iv);
                doubles.Add(dv);
            }
            return new JitArgs(names.ToArray(), types.ToArray(), anyInt ? ints.ToArray() : null,
                               anyDouble ? doubles.ToArray() : null);
        }

        internal delegate int ArgsCall(IntPtr[] names, int[] types, long[] ints, double[] doubles, int n);

        /// <summary>Calls call with the arrays (the names as NUL-terminated UTF-8 in native
        /// memory, freed after the call; null for no arguments) and checks its status.</summary>
        internal void Pass(ArgsCall call)
        {
            IntPtr[] names = Count == 0 ? null : new IntPtr[Count];
            try
            {
                for (int i = 0; i < Count; i++)
                {
                    byte[] b = Utf8Z(Names[i], "kwargs");
                    names[i] = Marshal.AllocHGlobal(b.Length);
                    Marshal.Copy(b, 0, names[i], b.Length);
                }
                Native.Check(call(names, Count == 0 ? null : Types, Ints, Doubles, Count));
            }
            finally
            {
                if (names != null)
                    foreach (IntPtr p in names)
                        if (p != IntPtr.Zero) Marshal.FreeHGlobal(p);
            }
        }

        /// <summary>s as NUL-terminated UTF-8 (a NUL inside is ArgumentException).</summary>
        internal static byte[] Utf8Z(string s, string param)
        {
            if (s.IndexOf('\0') >= 0) throw new ArgumentException("a NUL character cannot cross the C API", param);
            int n = Encoding.UTF8.GetByteCount(s);
            var b = new byte[n + 1];
            Encoding.UTF8.GetBytes(s, 0, s.Length, b, 0);
            return b;
        }
    }
}
