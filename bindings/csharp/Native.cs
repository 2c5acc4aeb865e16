// Internal helpers shared by the idiomatic layer: status checks, string out-parameters,
// handle leases and element-type mapping.
using System;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;
using Ctorch.Swig;

namespace Ctorch
{
    internal static class Native
    {
        // The first call through the idiomatic layer registers the out-of-memory hook.
        static Native() { OomHook.EnsureRegistered(); }

        /// <summary>Throws the CtorchException for a non-zero status (reads the thread's last
        /// error message at once).</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal static void Check(int status)
        {
            if (status != 0) Throw(status);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void Throw(int status) => throw CtorchException.FromStatus(status);

        internal delegate int StringCall(IntPtr buf, long cap, out long needed);

        /// <summary>The "call with cap 0 to get the length" pattern of the C header: a first call
        /// with no buffer fails with CT_ERR_BUFFER_SIZE and sets *needed, a second one fills a
        /// buffer of needed + 1 bytes. The bytes are UTF-8.</summary>
        internal static unsafe string GetString(StringCall call)
        {
            long needed;
            int st = call(IntPtr.Zero, 0, out needed);
            if (st != (int)StatusCode.BufferSize) Check(st);
            if (needed < 0 || needed > int.MaxValue - 1)
                throw new InvalidOperationException("ctorch reported an invalid string length " + needed);
            // A text that may grow between the calls (list_gpu_processes) is asked again.
            for (int attempt = 0; ; attempt++)
            {
                var buf = new byte[needed + 1];
                long needed2;
                fixed (byte* p = buf) st = call((IntPtr)p, buf.Length, out needed2);
                if (st == (int)StatusCode.BufferSize && attempt < 4 && needed2 > needed && needed2 <= int.MaxValue - 1)
                {
                    needed = needed2;
                    continue;
                }
                Check(st);
                return Encoding.UTF8.GetString(buf, 0, (int)Math.Min(needed, needed2));
            }
        }

        /// <summary>The same pattern for raw bytes (generator states): a first call with a buffer
        /// of guess bytes; when the library answers CT_ERR_BUFFER_SIZE, a second one with the
        /// needed size. Returns exactly the needed bytes.</summary>
        internal static unsafe byte[] GetBytes(StringCall call, long guess)
        {
            for (int attempt = 0; ; attempt++)
            {
                var buf = new byte[guess];
                long needed;
                int st;
                fixed (byte* p = buf) st = call(buf.Length == 0 ? IntPtr.Zero : (IntPtr)p, buf.Length, out needed);
                if (st == (int)StatusCode.BufferSize && attempt == 0 && needed > guess && needed <= int.MaxValue)
                {
                    guess = needed;
                    continue;
                }
                Check(st);
                if (needed < 0 || needed > buf.Length)
                    throw new InvalidOperationException("ctorch reported an invalid buffer size " + needed);
                if (needed == buf.Length) return buf;
                var r = new byte[needed];
                Array.Copy(buf, r, needed);
                return r;
            }
        }

        private static readonly byte[] s_noBytes = new byte[1];

        /// <summary>Passes data (pinned) and its length to call and checks the status. An empty
        /// array still goes as a valid pointer with length 0, so that the library reports the
        /// length, not a NULL pointer.</summary>
        internal static unsafe void PassBytes(byte[] data, Func<IntPtr, long, int> call)
        {
            fixed (byte* p = data.Length == 0 ? s_noBytes : data) Check(call((IntPtr)p, data.Length));
        }

        /// <summary>The dtype of a managed element type, or throws ArgumentException.</summary>
        internal static DType DTypeOf(Type t)
        {
            if (t == typeof(float)) return DType.Float32;
            if (t == typeof(double)) return DType.Float64;
            if (t == typeof(long)) return DType.Int64;
            if (t == typeof(int)) return DType.Int32;
            if (t == typeof(short)) return DType.Int16;
            if (t == typeof(sbyte)) return DType.Int8;
            if (t == typeof(byte)) return DType.UInt8;
            if (t == typeof(bool)) return DType.Bool;
            if (t == typeof(Complex)) return DType.Complex128;
            throw new ArgumentException("no ctorch dtype for element type " + t.FullName +
                " (supported: float, double, long, int, short, sbyte, byte, bool, System.Numerics.Complex)");
        }

        internal static long[] Copy(long[] a) => a == null ? null : (long[])a.Clone();

        internal static int Rank(long[] a) => a == null ? 0 : a.Length;
    }

    /// <summary>Holds one DangerousAddRef on a handle (tensor, stream, event or generator) for
    /// the duration of a native call, so a concurrent Dispose or the finalizer cannot release the
    /// object under the call. default(Lease) stands for "no object" (Ptr is zero, Dispose does
    /// nothing): the C API's NULL for optional stream and generator arguments.</summary>
    internal struct Lease : IDisposable
    {
        private readonly SafeHandle _handle;
        private readonly TensorHandle _tensor;
        private readonly bool _added;
        public readonly IntPtr Ptr;

        // A tensor takes the binding's own lease (TensorHandle.TryAcquireLease: one Interlocked
        // operation each way instead of SafeHandle's DangerousAddRef/DangerousRelease).
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal Lease(Tensor t, string paramName)
        {
            if ((object)t == null) throw new ArgumentNullException(paramName);
            TensorHandle h = t.Handle;
            if (h.IsClosed || !h.TryAcquireLease())
                throw new ObjectDisposedException(paramName, "the Tensor has been disposed");
            _handle = null;
            _tensor = h;
            _added = false;
            Ptr = h.DangerousGetHandle();
        }

        internal Lease(SafeHandle h, string paramName, string kind)
        {
            if (h == null) throw new ArgumentNullException(paramName);
            bool added = false;
            if (h.IsClosed) throw new ObjectDisposedException(paramName, "the " + kind + " has been disposed");
            try
            {
                h.DangerousAddRef(ref added);
            }
            catch (ObjectDisposedException)
            {
                throw new ObjectDisposedException(paramName, "the " + kind + " has been disposed");
            }
            _handle = h;
            _tensor = null;
            _added = added;
            Ptr = h.DangerousGetHandle();
        }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void Dispose()
        {
            if ((object)_tensor != null) _tensor.ReleaseLease();
            else if (_added) _handle.DangerousRelease();
        }
    }

    /// <summary>Leases for several tensors at once (cat, stack, torch.cuda.comm), or for several
    /// optional streams (null entries: the C API's NULL).</summary>
    internal struct MultiLease : IDisposable
    {
        private readonly SafeHandle[] _handles;
        private int _count;
        public readonly IntPtr[] Ptrs;

        internal MultiLease(Tensor[] tensors, string paramName)
            : this(HandlesOf(tensors, t => t.Handle), paramName, false) { }

        internal MultiLease(CudaStream[] streams, string paramName, bool allowNull)
            : this(HandlesOf(streams, s => s.Handle), paramName, allowNull) { }

        private static SafeHandle[] HandlesOf<T>(T[] items, Func<T, SafeHandle> handle) where T : class
        {
            var r = new SafeHandle[items.Length];
            for (int i = 0; i < items.Length; i++) r[i] = (object)items[i] == null ? null : handle(items[i]);
            return r;
        }

        private MultiLease(SafeHandle[] handles, string paramName, bool allowNull)
        {
            _handles = handles;
            _count = 0;
            Ptrs = new IntPtr[handles.Length];
            try
            {
                for (int i = 0; i < handles.Length; i++)
                {
                    SafeHandle h = handles[i];
                    _count = i;
                    if (h == null)
                    {
                        if (allowNull) continue;
                        throw new ArgumentNullException(paramName, "element " + i + " is null");
                    }
                    if (h.IsClosed) throw new ObjectDisposedException(paramName, "element " + i + " has been disposed");
                    bool added = false;
                    try { h.DangerousAddRef(ref added); }
                    catch (ObjectDisposedException)
                    {
                        throw new ObjectDisposedException(paramName, "element " + i + " has been disposed");
                    }
                    if (added) _count = i + 1;
                    Ptrs[i] = h.DangerousGetHandle();
                }
                _count = handles.Length;
            }
            catch
            {
                Release();
                throw;
            }
        }

        // Releases the references added to the first _count handles (null entries hold none).
        private void Release()
        {
            for (int i = 0; i < _count; i++) if (_handles[i] != null) _handles[i].DangerousRelease();
            _count = 0;
        }

        public void Dispose() => Release();
    }
}

// The op codes (UnaryOp, BinaryOp, ReduceOp) are generated from capi/abi.toml into Abi.g.cs.
