// Element types.
using System;
using Ctorch.Swig;

namespace Ctorch
{
    // enum DType (the values of capi/abi.toml) is generated into Abi.g.cs.

    /// <summary>Facts about dtypes (torch.finfo-like helpers and torch.promote_types).</summary>
    public static partial class DTypes
    {
        // Undefined (CT_DTYPE_UNDEFINED) is generated into Abi.g.cs.

        internal static int Code(DType? dtype) => dtype.HasValue ? (int)dtype.Value : Undefined;

        /// <summary>The dtype that stores elements of the managed type T
        /// (float, double, long, int, short, sbyte, byte, bool, System.Numerics.Complex).</summary>
        public static DType Of<T>() where T : struct => Native.DTypeOf(typeof(T));

        /// <summary>The dtype that stores elements of a managed type, see <see cref="Of{T}"/>.</summary>
        public static DType Of(Type elementType)
        {
            if (elementType == null) throw new ArgumentNullException(nameof(elementType));
            return Native.DTypeOf(elementType);
        }

        /// <summary>torch.promote_types(a, b).</summary>
        public static DType Promote(DType a, DType b)
        {
            int r;
            Native.Check(ctorch.ct_promote_types((int)a, (int)b, out r));
            return (DType)r;
        }

        /// <summary>Bytes per element (dtype.itemsize).</summary>
        public static long ItemSize(this DType dtype)
        {
            long r;
            Native.Check(ctorch.ct_dtype_itemsize((int)dtype, out r));
            return r;
        }

        /// <summary>PyTorch's name, e.g. "torch.float32".</summary>
        public static string Name(this DType dtype)
        {
            int code = (int)dtype;
            return Native.GetString((IntPtr buf, long cap, out long needed) =>
                ctorch.ct_dtype_name(code, buf, cap, out needed));
        }

        /// <summary>dtype.is_floating_point (float16, bfloat16, float32, float64).</summary>
        public static bool IsFloatingPoint(this DType dtype) =>
            dtype == DType.Float16 || dtype == DType.BFloat16 || dtype == DType.Float32 || dtype == DType.Float64;

        /// <summary>dtype.is_complex.</summary>
        public static bool IsComplex(this DType dtype) => dtype == DType.Complex64 || dtype == DType.Complex128;
    }
}
