// Tensor: the owner of one native tensor reference; metadata, repr, moving data, item.
using System;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Ctorch.Swig;

namespace Ctorch
{
    /// <summary>
    /// A tensor with PyTorch's semantics. Each Tensor object owns one reference to a native
    /// tensor through its <see cref="TensorHandle"/>; <see cref="Dispose"/> releases it at once
    /// (the finalizer of the handle releases it otherwise). Views are separate Tensor objects
    /// that share storage with their base. Every method that returns a Tensor returns a new
    /// object that the caller owns, except the in-place methods (names ending in '_'), which
    /// return <c>this</c>.
    /// </summary>
    public sealed partial class Tensor : IDisposable
    {
        private readonly TensorHandle _handle;

        /// <summary>Wraps a handle; the Tensor takes over its disposal.</summary>
        public Tensor(TensorHandle handle)
        {
            if (handle == null) throw new ArgumentNullException(nameof(handle));
            if (handle.IsInvalid) throw new ArgumentException("invalid (zero) tensor handle", nameof(handle));
            _handle = handle;
        }

        /// <summary>A Tensor for a raw ct_tensor handle that owns one reference
        /// (for interop with other code using the C API).</summary>
        public static Tensor FromHandle(IntPtr handle) => new Tensor(new TensorHandle(handle, true));

        // A new reference returned by the C layer: owned, and registered in the current scope.
        internal static Tensor Own(IntPtr raw)
        {
            var t = new Tensor(new TensorHandle(raw, true));
            DisposeScope.Register(t);
            return t;
        }

        /// <summary>Another Tensor object for the very same native tensor (ct_tensor_retain adds a
        /// reference): disposing one leaves the other usable; <see cref="IsSame"/> is true.</summary>
        public Tensor NewReference()
        {
            using (var a = Use())
            {
                Native.Check(ctorch.ct_tensor_retain(a.Ptr));
                return Own(a.Ptr);
            }
        }

        /// <summary>The SafeHandle owning the native reference.</summary>
        public TensorHandle Handle => _handle;

        /// <summary>True after <see cref="Dispose"/>.</summary>
        public bool IsDisposed => _handle.IsClosed;

        /// <summary>Releases the native reference now. Calling it again does nothing.</summary>
        public void Dispose() => _handle.Dispose();

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal Lease Use() => new Lease(this, "tensor");

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        private static Lease Use(Tensor t, string name) => new Lease(t, name);

        // ---------------------------------------------------------------- metadata

        /// <summary>tensor.dim(): number of dimensions (0 for a scalar tensor).</summary>
        public int Dim
        {
            get { using (var a = Use()) { int r; Native.Check(ctorch.ct_tensor_dim(a.Ptr, out r)); return r; } }
        }

        /// <summary>tensor.shape as a new array.</summary>
        public long[] Shape => DimsOf(ctorch.ct_tensor_sizes);

        /// <summary>tensor.stride() as a new array (in elements).</summary>
        public long[] Strides => DimsOf(ctorch.ct_tensor_strides);

        // The C signature of ct_tensor_sizes and ct_tensor_strides.
        private delegate int DimsCall(IntPtr t, long[] dst, int cap, out int ndim);

        private long[] DimsOf(DimsCall call)
        {
            using (var a = Use())
            {
                int n;
                Native.Check(ctorch.ct_tensor_dim(a.Ptr, out n));
                var dst = new long[n];
                Native.Check(call(a.Ptr, dst, n, out n));
                return dst;
            }
        }

        /// <summary>tensor.size(dim) (negative dims count from the end).</summary>
        public long Size(int dim)
        {
            using (var a = Use()) { long r; Native.Check(ctorch.ct_tensor_size(a.Ptr, dim, out r)); return r; }
        }

        /// <summary>tensor.stride(dim).</summary>
        public long Stride(int dim)
        {
            using (var a = Use()) { long r; Native.Check(ctorch.ct_tensor_stride(a.Ptr, dim, out r)); return r; }
        }

        /// <summary>tensor.numel().</summary>
        public long Numel
        {
            get { using (var a = Use()) { long r; Native.Check(ctorch.ct_tensor_numel(a.Ptr, out r)); return r; } }
        }

        /// <summary>tensor.storage_offset().</summary>
        public long StorageOffset
        {
            get { using (var a = Use()) { long r; Native.Check(ctorch.ct_tensor_storage_offset(a.Ptr, out r)); return r; } }
        }

        /// <summary>tensor.data_ptr(): the address of the first element, in host or device memory,
        /// as a <c>long</c> like PyTorch's int (<c>new IntPtr(t.DataPtr)</c> for interop). A view's
        /// is its base's plus <see cref="StorageOffset"/> * <see cref="ElementSize"/> bytes.
        /// Borrowed: valid only while the storage lives (keep this tensor or a view of it alive
        /// while the address is in use).</summary>
        public long DataPtr
        {
            get { using (var a = Use()) { long r; Native.Check(ctorch.ct_tensor_data_ptr(a.Ptr, out r)); return r; } }
        }

        /// <summary>tensor.dtype.</summary>
        public DType DType
        {
            get { using (var a = Use()) { int r; Native.Check(ctorch.ct_tensor_dtype(a.Ptr, out r)); return (DType)r; } }
        }

        /// <summary>tensor.element_size().</summary>
        public long ElementSize => DType.ItemSize();

        /// <summary>tensor.device (CPU tensors report "cpu", CUDA tensors a concrete index).</summary>
        public Device Device
        {
            get { using (var a = Use()) return Ctorch.Device.Of(TensorDevice, a.Ptr); }
        }

        // One delegate for all calls (mcs does not cache a method group's delegate: a getter
        // would allocate one per call).
        private static readonly Device.DeviceCall TensorDevice = ctorch.ct_tensor_device;

        /// <summary>tensor.is_cuda.</summary>
        public bool IsCuda => Device.IsCuda;

        /// <summary>tensor.is_contiguous().</summary>
        public bool IsContiguous
        {
            get { using (var a = Use()) { int r; Native.Check(ctorch.ct_tensor_is_contiguous(a.Ptr, out r)); return r != 0; } }
        }

        /// <summary>True when both tensors use the same storage (a view and its base).</summary>
        public bool SharesStorage(Tensor other) => Test(ctorch.ct_tensor_shares_storage, other);

        /// <summary>True when both objects stand for the very same native tensor (Python's
        /// <c>a is b</c>), e.g. the result of a To() that had nothing to do.</summary>
        public bool IsSame(Tensor other) => Test(ctorch.ct_tensor_is_same, other);

        // The C signature of ct_tensor_shares_storage and ct_tensor_is_same.
        private delegate int PairTest(IntPtr a, IntPtr b, out int r);

        private bool Test(PairTest test, Tensor other)
        {
            using (var a = Use())
            using (var b = Use(other, nameof(other)))
            {
                int r;
                Native.Check(test(a.Ptr, b.Ptr, out r));
                return r != 0;
            }
        }

        /// <summary>The repr, as PyTorch prints it, e.g. "tensor([1., 2.])". A disposed tensor
        /// (also one disposed by another thread during the call) prints as "Tensor(disposed)";
        /// a failing repr (a released raw handle: CT_ERR_INVALID_HANDLE) throws CtorchException,
        /// as repr raises in PyTorch.</summary>
        public override string ToString()
        {
            if (IsDisposed) return "Tensor(disposed)";
            try
            {
                using (var a = Use())
                {
                    IntPtr p = a.Ptr;
                    return Native.GetString((IntPtr buf, long cap, out long needed) =>
                        ctorch.ct_tensor_repr(p, buf, cap, out needed));
                }
            }
            catch (ObjectDisposedException)
            {
                return "Tensor(disposed)";
            }
        }

        // ---------------------------------------------------------------- moving data

        /// <summary>tensor.to(device, dtype, non_blocking, copy). When nothing changes and copy
        /// is false, the result is a new Tensor object for the same native tensor
        /// (<see cref="IsSame"/> is true); dispose it like any other result. With nonBlocking, a
        /// copy from pinned memory (<see cref="PinMemory"/>) to the GPU, or from the GPU to the CPU
        /// (the result is then pinned), returns at once: synchronize (stream, event or device)
        /// before reading the result. Otherwise copies between host and device wait.</summary>
        public Tensor To(Device device, DType? dtype = null, bool nonBlocking = false, bool copy = false)
        {
            using (var a = Use())
            {
                IntPtr r;
                Native.Check(ctorch.ct_tensor_to(a.Ptr, (int)device.Type, device.Index, DTypes.Code(dtype),
                    nonBlocking ? 1 : 0, copy ? 1 : 0, out r));
                return Own(r);
            }
        }

        /// <summary>tensor.to(dtype): same device.</summary>
        public Tensor To(DType dtype, bool nonBlocking = false, bool copy = false) =>
            To(Device, dtype, nonBlocking, copy);

        /// <summary>tensor.to("cuda:0").</summary>
        public Tensor To(string device, DType? dtype = null, bool nonBlocking = false) =>
            To(Device.Parse(device), dtype, nonBlocking);

        /// <summary>tensor.to(other): the device and dtype of other.</summary>
        public Tensor To(Tensor other, bool nonBlocking = false, bool copy = false)
        {
            // The lease names other in the exception when it is null or disposed.
            using (Use(other, nameof(other))) return To(other.Device, other.DType, nonBlocking, copy);
        }

        /// <summary>tensor.cpu().</summary>
        public Tensor Cpu() => To(Device.Cpu);

        /// <summary>tensor.cuda(index, non_blocking): the current CUDA device when index is -1.</summary>
        public Tensor Cuda(int index = -1, bool nonBlocking = false) =>
            To(new Device(DeviceType.Cuda, index), null, nonBlocking);

        /// <summary>tensor.float() and friends.</summary>
        public Tensor Float() => To(DType.Float32);
        public Tensor Double() => To(DType.Float64);
        public Tensor Half() => To(DType.Float16);
        public Tensor Long() => To(DType.Int64);
        public Tensor Int() => To(DType.Int32);
        public Tensor Bool() => To(DType.Bool);

        /// <summary>dst.copy_(src): copies src into this tensor, broadcasting src to this shape
        /// and converting dtype and device. Returns this.</summary>
        public Tensor CopyFrom(Tensor src, bool nonBlocking = false)
        {
            using (var d = Use())
            using (var s = Use(src, nameof(src)))
            {
                Native.Check(ctorch.ct_tensor_copy_(d.Ptr, s.Ptr, nonBlocking ? 1 : 0));
            }
            return this;
        }

        /// <summary>Same as <see cref="CopyFrom"/> (PyTorch's name).</summary>
        public Tensor Copy_(Tensor src, bool nonBlocking = false) => CopyFrom(src, nonBlocking);

        /// <summary>tensor.clone(): a contiguous copy with its own storage.</summary>
        public Tensor Clone()
        {
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_tensor_clone(a.Ptr, out r)); return Own(r); }
        }

        // ---------------------------------------------------------------- item

        /// <summary>tensor.item() as double (complex: real part; bool: 0 or 1).</summary>
        public double ItemDouble()
        {
            using (var a = Use()) { double r; Native.Check(ctorch.ct_tensor_item_double(a.Ptr, out r)); return r; }
        }

        /// <summary>int(tensor.item()): floating values are truncated toward zero.</summary>
        public long ItemLong()
        {
            using (var a = Use()) { long r; Native.Check(ctorch.ct_tensor_item_int64(a.Ptr, out r)); return r; }
        }

        /// <summary>complex(tensor.item()).</summary>
        public Complex ItemComplex()
        {
            using (var a = Use())
            {
                double re, im;
                Native.Check(ctorch.ct_tensor_item_complex(a.Ptr, out re, out im));
                return new Complex(re, im);
            }
        }

        /// <summary>tensor.item() converted to T (float, double, long, int, short, sbyte, byte,
        /// bool, System.Numerics.Complex). Integer types read the value as int64 and convert
        /// with overflow checking (OverflowException naming the value and the type); bool is "value != 0".</summary>
        public T Item<T>() where T : struct
        {
            Type t = typeof(T);
            object v;
            if (t == typeof(double)) v = ItemDouble();
            else if (t == typeof(float)) v = (float)ItemDouble();
            else if (t == typeof(long)) v = ItemLong();
            else if (t == typeof(int)) v = Narrow(ItemLong(), int.MinValue, int.MaxValue, t, l => (int)l);
            else if (t == typeof(short)) v = Narrow(ItemLong(), short.MinValue, short.MaxValue, t, l => (short)l);
            else if (t == typeof(sbyte)) v = Narrow(ItemLong(), sbyte.MinValue, sbyte.MaxValue, t, l => (sbyte)l);
            else if (t == typeof(byte)) v = Narrow(ItemLong(), byte.MinValue, byte.MaxValue, t, l => (byte)l);
            else if (t == typeof(bool)) v = ItemComplex() != Complex.Zero;
            else if (t == typeof(Complex)) v = ItemComplex();
            else throw new ArgumentException("Item<T>: unsupported element type " + t.FullName);
            return (T)v;
        }

        // The item as a narrower integer type; OverflowException naming the value and the type
        // when it does not fit.
        private static object Narrow(long value, long min, long max, Type t, Func<long, object> convert)
        {
            if (value < min || value > max)
                throw new OverflowException("Item<" + t.Name + ">: the tensor's value " + value + " is outside the range of " +
                                            t.FullName + " [" + min + ", " + max + "]");
            return convert(value);
        }

        // ---------------------------------------------------------------- copying out

        /// <summary>Copies the elements (in the tensor's dtype, C-contiguous order) into a host
        /// buffer of exactly numel * itemsize bytes. Synchronous.</summary>
        public void CopyTo(IntPtr destination, long nbytes)
        {
            using (var a = Use()) Native.Check(ctorch.ct_tensor_copy_to_buffer(a.Ptr, destination, nbytes));
        }

        /// <summary>Copies the elements into the first Numel elements of destination.
        /// T must be the element type of the dtype (see <see cref="DTypes.Of{T}"/>).</summary>
        public unsafe void CopyTo<T>(Span<T> destination) where T : struct
        {
            CheckElementType<T>("CopyTo");
            long n = Numel;
            if (destination.Length < n)
                throw new ArgumentException($"destination has {destination.Length} elements, the tensor {n}", nameof(destination));
            Span<byte> bytes = MemoryMarshal.AsBytes(destination.Slice(0, (int)n));
            if (bytes.Length == 0) { CopyTo(IntPtr.Zero, 0); return; }
            fixed (byte* p = &MemoryMarshal.GetReference(bytes))
            {
                CopyTo((IntPtr)p, bytes.Length);
            }
        }

        /// <summary>Copies the elements into an array (from index 0).</summary>
        public void CopyTo<T>(T[] destination) where T : struct
        {
            if (destination == null) throw new ArgumentNullException(nameof(destination));
            CopyTo(new Span<T>(destination));
        }

        /// <summary>The elements as a new flat array in C order (tensor.flatten().tolist()).
        /// T must be the element type of the dtype: float for Float32, long for Int64, bool for
        /// Bool ...; use To(dtype) first to convert.</summary>
        public T[] ToArray<T>() where T : struct
        {
            CheckElementType<T>("ToArray");
            long n = Numel;
            if (n > int.MaxValue) throw new InvalidOperationException("tensor too large for a managed array");
            var r = new T[n];
            CopyTo(new Span<T>(r));
            return r;
        }

        /// <summary>The raw bytes of the elements, for any dtype (float16, bfloat16, complex64
        /// have no managed element type).</summary>
        public unsafe byte[] ToBytes()
        {
            long nbytes = checked(Numel * ElementSize);
            var r = new byte[nbytes];
            fixed (byte* p = r) CopyTo((IntPtr)p, nbytes);
            return r;
        }

        private void CheckElementType<T>(string what) where T : struct
        {
            DType want = Native.DTypeOf(typeof(T));
            DType have = DType;
            if (want != have)
                throw new ArgumentException($"{what}<{typeof(T).Name}> needs a {want.Name()} tensor, this one is " +
                                            $"{have.Name()}; convert it with To(DType.{want}) first");
        }
    }
}
