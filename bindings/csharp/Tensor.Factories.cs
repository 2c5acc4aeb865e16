// Factories: torch.empty/zeros/ones/full/arange/linspace/eye, tensors from host data,
// *_like and new_*, cat and stack.
using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.InteropServices;
using Ctorch.Swig;

namespace Ctorch
{
    public sealed partial class Tensor
    {
        private static Device Dev(Device? device) => device ?? Device.Cpu;

        private static long[] CheckShape(long[] shape, string name)
        {
            if (shape == null) throw new ArgumentNullException(name);
            return shape;
        }

        // ------------------------------------------------------------ empty / zeros / ones / full

        // The C signature of ct_empty, ct_zeros and ct_ones.
        private delegate int ShapeFactory(long[] sizes, int ndim, int dtype, int devType, int devIndex, out IntPtr r);

        private static Tensor FromShape(ShapeFactory factory, long[] shape, DType dtype, Device? device)
        {
            CheckShape(shape, nameof(shape));
            Device d = Dev(device);
            IntPtr r;
            Native.Check(factory(shape, shape.Length, (int)dtype, (int)d.Type, d.Index, out r));
            return Own(r);
        }

        /// <summary>torch.empty(shape) (float32, cpu).</summary>
        public static Tensor Empty(params long[] shape) => Empty(shape, DType.Float32);

        /// <summary>torch.empty(shape, dtype=, device=).</summary>
        public static Tensor Empty(long[] shape, DType dtype, Device? device = null) =>
            FromShape(ctorch.ct_empty, shape, dtype, device);

        /// <summary>torch.empty(shape, device=) (float32).</summary>
        public static Tensor Empty(long[] shape, Device device) => Empty(shape, DType.Float32, device);

        /// <summary>torch.zeros(shape) (float32, cpu).</summary>
        public static Tensor Zeros(params long[] shape) => Zeros(shape, DType.Float32);

        /// <summary>torch.zeros(shape, dtype=, device=).</summary>
        public static Tensor Zeros(long[] shape, DType dtype, Device? device = null) =>
            FromShape(ctorch.ct_zeros, shape, dtype, device);

        /// <summary>torch.zeros(shape, device=) (float32).</summary>
        public static Tensor Zeros(long[] shape, Device device) => Zeros(shape, DType.Float32, device);

        /// <summary>torch.ones(shape) (float32, cpu).</summary>
        public static Tensor Ones(params long[] shape) => Ones(shape, DType.Float32);

        /// <summary>torch.ones(shape, dtype=, device=).</summary>
        public static Tensor Ones(long[] shape, DType dtype, Device? device = null) =>
            FromShape(ctorch.ct_ones, shape, dtype, device);

        /// <summary>torch.ones(shape, device=) (float32).</summary>
        public static Tensor Ones(long[] shape, Device device) => Ones(shape, DType.Float32, device);

        /// <summary>torch.full(shape, value, dtype=, device=). The dtype defaults to float32
        /// (PyTorch infers int64 from an integer fill value; pass DType.Int64 for that).</summary>
        public static Tensor Full(long[] shape, double value, DType dtype = DType.Float32, Device? device = null)
        {
            CheckShape(shape, nameof(shape));
            Device d = Dev(device);
            IntPtr r;
            Native.Check(ctorch.ct_full(shape, shape.Length, value, (int)dtype, (int)d.Type, d.Index, out r));
            return Own(r);
        }

        /// <summary>torch.full(shape, value, device=) (float32).</summary>
        public static Tensor Full(long[] shape, double value, Device device) => Full(shape, value, DType.Float32, device);

        /// <summary>A 0-dim tensor (torch.tensor(2.5)): float32 unless dtype says otherwise.</summary>
        public static Tensor Scalar(double value, DType dtype = DType.Float32, Device? device = null) =>
            Full(Array.Empty<long>(), value, dtype, device);

        /// <summary>A 0-dim tensor (torch.tensor(2)): int64 unless dtype says otherwise. The value
        /// is exact for every int64.</summary>
        public static unsafe Tensor Scalar(long value, DType dtype = DType.Int64, Device? device = null)
        {
            Device d = Dev(device);
            IntPtr r;
            Native.Check(ctorch.ct_from_buffer((IntPtr)(&value), 8, Array.Empty<long>(), 0, (int)DType.Int64,
                (int)d.Type, d.Index, out r));
            if (dtype == DType.Int64) return Own(r);
            using (var tmp = new Tensor(new TensorHandle(r, true))) return tmp.To(dtype);
        }

        /// <summary>A 0-dim bool tensor (torch.tensor(True)).</summary>
        public static Tensor Scalar(bool value, Device? device = null) =>
            Full(Array.Empty<long>(), value ? 1 : 0, DType.Bool, device);

        // ------------------------------------------------------------ arange / linspace / eye

        /// <summary>torch.arange(end) with integer arguments: int64 by default.</summary>
        public static Tensor Arange(long end, DType dtype = DType.Int64, Device? device = null) =>
            Arange(0L, end, 1L, dtype, device);

        /// <summary>torch.arange(start, end, step) with integer arguments: int64 by default.</summary>
        public static Tensor Arange(long start, long end, long step = 1, DType dtype = DType.Int64, Device? device = null)
        {
            Device d = Dev(device);
            IntPtr r;
            Native.Check(ctorch.ct_arange(start, end, step, (int)dtype, (int)d.Type, d.Index, out r));
            return Own(r);
        }

        /// <summary>torch.arange(end) with a floating argument: float32 by default.</summary>
        public static Tensor Arange(double end, DType dtype = DType.Float32, Device? device = null) =>
            Arange(0.0, end, 1.0, dtype, device);

        /// <summary>torch.arange(start, end, step) with floating arguments: float32 by default.
        /// ceil((end - start) / step) elements start + i * step.</summary>
        public static Tensor Arange(double start, double end, double step = 1.0, DType dtype = DType.Float32,
                                    Device? device = null)
        {
            Device d = Dev(device);
            IntPtr r;
            Native.Check(ctorch.ct_arange(start, end, step, (int)dtype, (int)d.Type, d.Index, out r));
            return Own(r);
        }

        /// <summary>torch.linspace(start, end, steps) (float32 by default).</summary>
        public static Tensor Linspace(double start, double end, long steps, DType dtype = DType.Float32,
                                      Device? device = null)
        {
            Device d = Dev(device);
            IntPtr r;
            Native.Check(ctorch.ct_linspace(start, end, steps, (int)dtype, (int)d.Type, d.Index, out r));
            return Own(r);
        }

        /// <summary>torch.eye(n, m): ones on the diagonal; m = -1 means m = n.</summary>
        public static Tensor Eye(long n, long m = -1, DType dtype = DType.Float32, Device? device = null)
        {
            Device d = Dev(device);
            IntPtr r;
            Native.Check(ctorch.ct_eye(n, m, (int)dtype, (int)d.Type, d.Index, out r));
            return Own(r);
        }

        // ------------------------------------------------------------ from host data

        /// <summary>torch.tensor(data) on the CPU: a copy of the array, with the dtype of the
        /// element type (float -> Float32, double -> Float64, long -> Int64, int -> Int32,
        /// short -> Int16, sbyte -> Int8, byte -> UInt8, bool -> Bool, Complex -> Complex128).
        /// With no shape the tensor is 1-D of data.Length elements.</summary>
        public static Tensor FromArray<T>(T[] data, params long[] shape) where T : struct =>
            FromArray(data, shape, Device.Cpu);

        /// <summary>torch.tensor(data, device=device) with the given shape.</summary>
        public static Tensor FromArray<T>(T[] data, long[] shape, Device device) where T : struct
        {
            if (data == null) throw new ArgumentNullException(nameof(data));
            return FromSpan(new ReadOnlySpan<T>(data), shape, device);
        }

        /// <summary>torch.tensor(data) from a span (see <see cref="FromArray{T}(T[], long[])"/>).</summary>
        public static Tensor FromSpan<T>(ReadOnlySpan<T> data, params long[] shape) where T : struct =>
            FromSpan(data, shape, Device.Cpu);

        /// <summary>torch.tensor(data, device=device) from a span.</summary>
        public static unsafe Tensor FromSpan<T>(ReadOnlySpan<T> data, long[] shape, Device device) where T : struct
        {
            DType dtype = Native.DTypeOf(typeof(T));
            if (shape == null || shape.Length == 0) shape = new long[] { data.Length };
            ReadOnlySpan<byte> bytes = MemoryMarshal.AsBytes(data);
            IntPtr r;
            if (bytes.Length == 0)
            {
                Native.Check(ctorch.ct_from_buffer(IntPtr.Zero, 0, shape, shape.Length, (int)dtype,
                    (int)device.Type, device.Index, out r));
                return Own(r);
            }
            fixed (byte* p = &MemoryMarshal.GetReference(bytes))
            {
                Native.Check(ctorch.ct_from_buffer((IntPtr)p, bytes.Length, shape, shape.Length, (int)dtype,
                    (int)device.Type, device.Index, out r));
            }
            return Own(r);
        }

        /// <summary>torch.tensor(data) from a rectangular array of any rank (float[,], int[,,] ...):
        /// the shape is the array's lengths.</summary>
        public static Tensor FromArray(Array data, Device? device = null)
        {
            if (data == null) throw new ArgumentNullException(nameof(data));
            Type et = data.GetType().GetElementType();
            DType dtype = Native.DTypeOf(et);
            var shape = new long[data.Rank];
            for (int i = 0; i < shape.Length; i++) shape[i] = data.GetLongLength(i);
            long nbytes = checked(data.LongLength * dtype.ItemSize());
            Device d = Dev(device);
            GCHandle pin = GCHandle.Alloc(data, GCHandleType.Pinned);
            try
            {
                IntPtr p = nbytes == 0 ? IntPtr.Zero : pin.AddrOfPinnedObject();
                IntPtr r;
                Native.Check(ctorch.ct_from_buffer(p, nbytes, shape, shape.Length, (int)dtype, (int)d.Type, d.Index, out r));
                return Own(r);
            }
            finally
            {
                pin.Free();
            }
        }

        /// <summary>torch.tensor from raw bytes: nbytes must be numel * itemsize of dtype.</summary>
        public static Tensor FromBuffer(IntPtr data, long nbytes, long[] shape, DType dtype, Device? device = null)
        {
            CheckShape(shape, nameof(shape));
            Device d = Dev(device);
            IntPtr r;
            Native.Check(ctorch.ct_from_buffer(data, nbytes, shape, shape.Length, (int)dtype, (int)d.Type, d.Index, out r));
            return Own(r);
        }

        // ------------------------------------------------------------ *_like

        /// <summary>torch.empty_like(t, dtype=): same shape, device and dtype (unless given).</summary>
        public static Tensor EmptyLike(Tensor t, DType? dtype = null)
        {
            using (var a = Use(t, nameof(t))) { IntPtr r; Native.Check(ctorch.ct_empty_like(a.Ptr, DTypes.Code(dtype), out r)); return Own(r); }
        }

        /// <summary>torch.zeros_like(t, dtype=).</summary>
        public static Tensor ZerosLike(Tensor t, DType? dtype = null)
        {
            using (var a = Use(t, nameof(t))) { IntPtr r; Native.Check(ctorch.ct_zeros_like(a.Ptr, DTypes.Code(dtype), out r)); return Own(r); }
        }

        /// <summary>torch.ones_like(t, dtype=).</summary>
        public static Tensor OnesLike(Tensor t, DType? dtype = null)
        {
            using (var a = Use(t, nameof(t))) { IntPtr r; Native.Check(ctorch.ct_ones_like(a.Ptr, DTypes.Code(dtype), out r)); return Own(r); }
        }

        /// <summary>torch.full_like(t, value, dtype=).</summary>
        public static Tensor FullLike(Tensor t, double value, DType? dtype = null)
        {
            using (var a = Use(t, nameof(t))) { IntPtr r; Native.Check(ctorch.ct_full_like(a.Ptr, value, DTypes.Code(dtype), out r)); return Own(r); }
        }

        // ------------------------------------------------------------ new_*

        /// <summary>tensor.new_empty(shape, dtype=): the device and dtype of this tensor.</summary>
        public Tensor NewEmpty(long[] shape, DType? dtype = null)
        {
            CheckShape(shape, nameof(shape));
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_new_empty(a.Ptr, shape, shape.Length, DTypes.Code(dtype), out r)); return Own(r); }
        }

        /// <summary>tensor.new_zeros(shape, dtype=).</summary>
        public Tensor NewZeros(long[] shape, DType? dtype = null)
        {
            CheckShape(shape, nameof(shape));
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_new_zeros(a.Ptr, shape, shape.Length, DTypes.Code(dtype), out r)); return Own(r); }
        }

        /// <summary>tensor.new_ones(shape, dtype=).</summary>
        public Tensor NewOnes(long[] shape, DType? dtype = null)
        {
            CheckShape(shape, nameof(shape));
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_new_ones(a.Ptr, shape, shape.Length, DTypes.Code(dtype), out r)); return Own(r); }
        }

        /// <summary>tensor.new_full(shape, value, dtype=).</summary>
        public Tensor NewFull(long[] shape, double value, DType? dtype = null)
        {
            CheckShape(shape, nameof(shape));
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_new_full(a.Ptr, shape, shape.Length, value, DTypes.Code(dtype), out r)); return Own(r); }
        }

        /// <summary>tensor.new_tensor(data): a copy of host data, converted to this tensor's dtype
        /// (or dtype), on this tensor's device. With no shape the result is 1-D.</summary>
        public Tensor NewTensor<T>(T[] data, long[] shape = null, DType? dtype = null) where T : struct
        {
            if (data == null) throw new ArgumentNullException(nameof(data));
            return NewTensor(new ReadOnlySpan<T>(data), shape, dtype);
        }

        /// <summary>tensor.new_tensor(data) from a span.</summary>
        public unsafe Tensor NewTensor<T>(ReadOnlySpan<T> data, long[] shape = null, DType? dtype = null) where T : struct
        {
            DType bufferDType = Native.DTypeOf(typeof(T));
            if (shape == null || shape.Length == 0) shape = new long[] { data.Length };
            ReadOnlySpan<byte> bytes = MemoryMarshal.AsBytes(data);
            using (var a = Use())
            {
                IntPtr r;
                if (bytes.Length == 0)
                {
                    Native.Check(ctorch.ct_new_tensor(a.Ptr, IntPtr.Zero, 0, shape, shape.Length, (int)bufferDType,
                        DTypes.Code(dtype), out r));
                    return Own(r);
                }
                fixed (byte* p = &MemoryMarshal.GetReference(bytes))
                {
                    Native.Check(ctorch.ct_new_tensor(a.Ptr, (IntPtr)p, bytes.Length, shape, shape.Length,
                        (int)bufferDType, DTypes.Code(dtype), out r));
                }
                return Own(r);
            }
        }

        // ------------------------------------------------------------ cat / stack

        // The C signature of ct_cat and ct_stack.
        private delegate int JoinCall(IntPtr[] tensors, int n, int dim, out IntPtr r);

        private static Tensor Join(JoinCall call, IEnumerable<Tensor> tensors, int dim)
        {
            if (tensors == null) throw new ArgumentNullException(nameof(tensors));
            Tensor[] ts = tensors.ToArray();
            using (var l = new MultiLease(ts, nameof(tensors)))
            {
                IntPtr r;
                Native.Check(call(l.Ptrs, ts.Length, dim, out r));
                return Own(r);
            }
        }

        /// <summary>torch.cat(tensors, dim=0).</summary>
        public static Tensor Cat(params Tensor[] tensors) => Cat((IEnumerable<Tensor>)tensors, 0);

        /// <summary>torch.cat(tensors, dim).</summary>
        public static Tensor Cat(IEnumerable<Tensor> tensors, int dim = 0) => Join(ctorch.ct_cat, tensors, dim);

        /// <summary>torch.stack(tensors, dim=0).</summary>
        public static Tensor Stack(params Tensor[] tensors) => Stack((IEnumerable<Tensor>)tensors, 0);

        /// <summary>torch.stack(tensors, dim).</summary>
        public static Tensor Stack(IEnumerable<Tensor> tensors, int dim = 0) => Join(ctorch.ct_stack, tensors, dim);
    }
}
