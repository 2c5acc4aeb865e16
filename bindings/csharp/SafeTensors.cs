// Saving and loading tensors in the safetensors format (section 27 of capi/ctorch.h;
// docs/safetensors.md, docs/csharp.md "Safetensors").
using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.InteropServices;

namespace Ctorch
{
    /// <summary>
    /// safetensors.torch's functions: <see cref="SaveFile"/> (save_file), <see cref="Save"/>
    /// (save), <see cref="Open"/> (safe_open), <see cref="Load"/> (load), <see cref="LoadFile"/>
    /// (load_file).
    /// <code>
    /// SafeTensors.SaveFile("model.safetensors", new Dictionary&lt;string, Tensor&gt; { ["w"] = w },
    ///                      new Dictionary&lt;string, string&gt; { ["format"] = "pt" });
    /// using (var f = SafeTensors.Open("model.safetensors"))
    /// using (Tensor t = f.GetTensor("w", Device.Cuda))
    ///     ...
    /// </code>
    /// Files are written byte for byte as safetensors.torch.save_file writes them (tensors of
    /// any device and strides; null or empty metadata: none). Errors are CtorchException
    /// (Argument for a bad name or file, with the reason; NotSupported for complex128 or a format
    /// dtype ctorch lacks; Index for a name the file does not have).
    /// </summary>
    public static class SafeTensors
    {
        /// <summary>safetensors.torch.save_file(tensors, path, metadata).</summary>
        public static void SaveFile(string path, IDictionary<string, Tensor> tensors,
                                    IDictionary<string, string> metadata = null)
        {
            if (path == null) throw new ArgumentNullException(nameof(path));
            byte[] p = JitArgs.Utf8Z(path, nameof(path));
            Pass(tensors, metadata, (names, ts, n, keys, values, nm) =>
                Native.Check(NativeSaveFile(p, names, ts, n, keys, values, nm)));
        }

        /// <summary>safetensors.torch.save(tensors, metadata): the file's bytes.</summary>
        public static byte[] Save(IDictionary<string, Tensor> tensors, IDictionary<string, string> metadata = null)
        {
            byte[] r = null;
            Pass(tensors, metadata, (names, ts, n, keys, values, nm) =>
                r = Native.GetBytes((IntPtr buf, long cap, out long needed) =>
                    NativeSaveBuffer(names, ts, n, keys, values, nm, buf, cap, out needed), 0));
            return r;
        }

        /// <summary>safetensors.safe_open(path, framework="pt"): the file mapped and validated.</summary>
        public static SafeTensorsFile Open(string path)
        {
            if (path == null) throw new ArgumentNullException(nameof(path));
            IntPtr h;
            Native.Check(NativeOpen(JitArgs.Utf8Z(path, nameof(path)), out h));
            return new SafeTensorsFile(new SafeTensorsHandle(h, true));
        }

        /// <summary>safetensors.torch.load(data): a file held in memory (the library keeps a
        /// copy).</summary>
        public static SafeTensorsFile Load(byte[] data)
        {
            if (data == null) throw new ArgumentNullException(nameof(data));
            IntPtr h = IntPtr.Zero;
            Native.PassBytes(data, (p, n) => NativeOpenBuffer(p, n, out h));
            return new SafeTensorsFile(new SafeTensorsHandle(h, true));
        }

        /// <summary>safetensors.torch.load_file(path, device): every tensor of the file on
        /// device (the CPU when null), by name.</summary>
        public static Dictionary<string, Tensor> LoadFile(string path, Device? device = null)
        {
            using (var f = Open(path))
            {
                var r = new Dictionary<string, Tensor>();
                try
                {
                    foreach (string k in f.Keys) r[k] = f.GetTensor(k, device);
                }
                catch
                {
                    foreach (Tensor t in r.Values) t.Dispose();
                    throw;
                }
                return r;
            }
        }

        /// <summary>Live native safetensors file handles (ct_live_safetensors_count).</summary>
        public static long LiveFileCount
        {
            get
            {
                long n;
                Native.Check(NativeLive(out n));
                return n;
            }
        }

        private delegate void SaveCall(IntPtr[] names, IntPtr[] tensors, int n, IntPtr[] keys, IntPtr[] values, int nm);

        // The dictionaries as the header's parallel arrays: the strings NUL-terminated UTF-8 in
        // native memory (freed after the call), the tensors leased for the call.
        private static void Pass(IDictionary<string, Tensor> tensors, IDictionary<string, string> metadata, SaveCall call)
        {
            if (tensors == null) throw new ArgumentNullException(nameof(tensors));
            var entries = tensors.ToArray();
            var meta = metadata == null ? new KeyValuePair<string, string>[0] : metadata.ToArray();
            var strings = new List<IntPtr>();
            try
            {
                IntPtr[] names = entries.Select(e => Alloc(e.Key, nameof(tensors), strings)).ToArray();
                IntPtr[] keys = meta.Select(e => Alloc(e.Key, nameof(metadata), strings)).ToArray();
                IntPtr[] values = meta.Select(e => Alloc(e.Value, nameof(metadata), strings)).ToArray();
                using (var l = new MultiLease(entries.Select(e => e.Value).ToArray(), nameof(tensors)))
                    call(names, l.Ptrs, names.Length, keys, values, keys.Length);
            }
            finally
            {
                foreach (IntPtr p in strings) Marshal.FreeHGlobal(p);
            }
        }

        private static IntPtr Alloc(string s, string param, List<IntPtr> all)
        {
            if (s == null) throw new ArgumentNullException(param, "a name, key or value is null");
            byte[] b = JitArgs.Utf8Z(s, param);
            IntPtr p = Marshal.AllocHGlobal(b.Length);
            all.Add(p);
            Marshal.Copy(b, 0, p, b.Length);
            return p;
        }

        // SWIG has no typemaps for ct_safetensors and the string arrays of section 27, so these
        // call libctorch.so's exports directly (as JitFunction.cs does).
        private const string Lib = "ctorch_csharp";

        [DllImport(Lib, EntryPoint = "ct_safetensors_save_file", CallingConvention = CallingConvention.Cdecl)]
        private static extern int NativeSaveFile(byte[] path, IntPtr[] names, IntPtr[] tensors, int n, IntPtr[] keys,
                                                 IntPtr[] values, int nMeta);

        [DllImport(Lib, EntryPoint = "ct_safetensors_save_buffer", CallingConvention = CallingConvention.Cdecl)]
        private static extern int NativeSaveBuffer(IntPtr[] names, IntPtr[] tensors, int n, IntPtr[] keys,
                                                   IntPtr[] values, int nMeta, IntPtr buf, long cap, out long needed);

        [DllImport(Lib, EntryPoint = "ct_safetensors_open", CallingConvention = CallingConvention.Cdecl)]
        private static extern int NativeOpen(byte[] path, out IntPtr file);

        [DllImport(Lib, EntryPoint = "ct_safetensors_open_buffer", CallingConvention = CallingConvention.Cdecl)]
        private static extern int NativeOpenBuffer(IntPtr data, long nbytes, out IntPtr file);

        [DllImport(Lib, EntryPoint = "ct_live_safetensors_count", CallingConvention = CallingConvention.Cdecl)]
        private static extern int NativeLive(out long n);
    }

    /// <summary>
    /// An open safetensors file (safetensors.safe_open): its <see cref="Keys"/> (sorted),
    /// <see cref="Metadata"/>, and tensors (<see cref="GetTensor"/>). The file is mapped privately:
    /// a CPU tensor is the mapped bytes themselves (zero-copy; writing into it never changes the
    /// file) and keeps the mapping alive after the file is disposed. Owns one reference to the
    /// native file through its <see cref="SafeTensorsHandle"/>; <see cref="NativeObject{T}.Dispose"/>
    /// releases it (the handle's finalizer does otherwise).
    /// </summary>
    public sealed class SafeTensorsFile : NativeObject<SafeTensorsHandle>
    {
        /// <summary>Wraps a handle; the file takes over its disposal.</summary>
        public SafeTensorsFile(SafeTensorsHandle handle) : base(handle, "file", "SafeTensorsFile") { }

        /// <summary>A SafeTensorsFile for a raw ct_safetensors handle that owns one reference.</summary>
        public static SafeTensorsFile FromHandle(IntPtr handle) => new SafeTensorsFile(new SafeTensorsHandle(handle, true));

        /// <summary>Another object for the same open file (ct_safetensors_retain).</summary>
        public SafeTensorsFile NewReference()
        {
            using (var a = Use())
            {
                Native.Check(Retain(a.Ptr));
                return FromHandle(a.Ptr);
            }
        }

        /// <summary>f.keys(): the tensors' names, sorted.</summary>
        public string[] Keys => Strings(false);

        /// <summary>f.metadata(): "__metadata__" (empty when the header has none).</summary>
        public Dictionary<string, string> Metadata
        {
            get
            {
                var r = new Dictionary<string, string>();
                foreach (string k in Strings(true))
                {
                    byte[] key = JitArgs.Utf8Z(k, "key");
                    using (var a = Use())
                    {
                        IntPtr p = a.Ptr;
                        r[k] = Native.GetString((IntPtr buf, long cap, out long needed) =>
                            MetadataGet(p, key, buf, cap, out needed));
                    }
                }
                return r;
            }
        }

        private string[] Strings(bool meta)
        {
            using (var a = Use())
            {
                IntPtr p = a.Ptr;
                long n;
                Native.Check(meta ? MetadataCount(p, out n) : Count(p, out n));
                var r = new string[n];
                for (long i = 0; i < n; i++)
                {
                    long j = i;
                    r[i] = Native.GetString((IntPtr buf, long cap, out long needed) =>
                        meta ? MetadataKey(p, j, buf, cap, out needed) : Name(p, j, buf, cap, out needed));
                }
                return r;
            }
        }

        /// <summary>The dtype of a tensor without loading it.</summary>
        public DType GetDType(string name)
        {
            byte[] n = TensorName(name);
            using (var a = Use())
            {
                int d;
                Native.Check(TensorDType(a.Ptr, n, out d));
                return (DType)d;
            }
        }

        /// <summary>The shape of a tensor without loading it (any format dtype).</summary>
        public long[] GetShape(string name)
        {
            byte[] n = TensorName(name);
            using (var a = Use())
            {
                int nd;
                int st = TensorShape(a.Ptr, n, null, 0, out nd);
                if (st != (int)StatusCode.BufferSize) Native.Check(st);
                var r = new long[nd];
                Native.Check(TensorShape(a.Ptr, n, r, r.Length, out nd));
                return r;
            }
        }

        /// <summary>f.get_tensor(name) on device (the CPU when null): on the CPU the mapped
        /// bytes, on CUDA a copy on the device.</summary>
        public Tensor GetTensor(string name, Device? device = null)
        {
            byte[] n = TensorName(name);
            Device d = device ?? Device.Cpu;
            using (var a = Use())
            {
                IntPtr t;
                Native.Check(Get(a.Ptr, n, (int)d.Type, d.Index, out t));
                return Tensor.Own(t);
            }
        }

        public override string ToString()
        {
            try
            {
                return "SafeTensorsFile(" + string.Join(", ", Keys) + ")";
            }
            catch (ObjectDisposedException)
            {
                return "SafeTensorsFile(disposed)";
            }
        }

        private static byte[] TensorName(string name)
        {
            if (name == null) throw new ArgumentNullException(nameof(name));
            return JitArgs.Utf8Z(name, nameof(name));
        }

        private const string Lib = "ctorch_csharp";

        [DllImport(Lib, EntryPoint = "ct_safetensors_retain", CallingConvention = CallingConvention.Cdecl)]
        private static extern int Retain(IntPtr f);

        [DllImport(Lib, EntryPoint = "ct_safetensors_release", CallingConvention = CallingConvention.Cdecl)]
        private static extern int Release(IntPtr f);

        [DllImport(Lib, EntryPoint = "ct_safetensors_count", CallingConvention = CallingConvention.Cdecl)]
        private static extern int Count(IntPtr f, out long n);

        [DllImport(Lib, EntryPoint = "ct_safetensors_name", CallingConvention = CallingConvention.Cdecl)]
        private static extern int Name(IntPtr f, long i, IntPtr buf, long cap, out long needed);

        [DllImport(Lib, EntryPoint = "ct_safetensors_tensor_dtype", CallingConvention = CallingConvention.Cdecl)]
        private static extern int TensorDType(IntPtr f, byte[] name, out int dtype);

        [DllImport(Lib, EntryPoint = "ct_safetensors_tensor_shape", CallingConvention = CallingConvention.Cdecl)]
        private static extern int TensorShape(IntPtr f, byte[] name, [Out] long[] dst, int cap, out int ndim);

        [DllImport(Lib, EntryPoint = "ct_safetensors_get_tensor", CallingConvention = CallingConvention.Cdecl)]
        private static extern int Get(IntPtr f, byte[] name, int devType, int devIndex, out IntPtr tensor);

        [DllImport(Lib, EntryPoint = "ct_safetensors_metadata_count", CallingConvention = CallingConvention.Cdecl)]
        private static extern int MetadataCount(IntPtr f, out long n);

        [DllImport(Lib, EntryPoint = "ct_safetensors_metadata_key", CallingConvention = CallingConvention.Cdecl)]
        private static extern int MetadataKey(IntPtr f, long i, IntPtr buf, long cap, out long needed);

        [DllImport(Lib, EntryPoint = "ct_safetensors_metadata_get", CallingConvention = CallingConvention.Cdecl)]
        private static extern int MetadataGet(IntPtr f, byte[] key, IntPtr buf, long cap, out long needed);

        /// <summary>ct_safetensors_release, for <see cref="SafeTensorsHandle"/>.</summary>
        internal static int NativeRelease(IntPtr f) => Release(f);
    }

    /// <summary>One counted reference to an open native safetensors file.</summary>
    public sealed class SafeTensorsHandle : NativeHandle
    {
        /// <inheritdoc cref="NativeHandle(IntPtr, bool)"/>
        public SafeTensorsHandle(IntPtr preexistingHandle, bool ownsHandle) : base(preexistingHandle, ownsHandle) { }

        protected override void Release(IntPtr h) => SafeTensorsFile.NativeRelease(h);
    }
}
