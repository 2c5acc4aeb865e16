// Elementwise operations with PyTorch's broadcasting and type promotion, their in-place
// forms, operators, clamp, where, fill_ and zero_.
using System;
using Ctorch.Swig;

namespace Ctorch
{
    public sealed partial class Tensor
    {
        private Tensor Unary(int op)
        {
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_unary(op, a.Ptr, out r)); return Own(r); }
        }

        private Tensor UnaryInPlace(int op)
        {
            using (var a = Use()) Native.Check(ctorch.ct_unary_(op, a.Ptr));
            return this;
        }

        private Tensor Binary(int op, Tensor other)
        {
            using (var a = Use())
            using (var b = Use(other, nameof(other)))
            {
                IntPtr r;
                Native.Check(ctorch.ct_binary(op, a.Ptr, b.Ptr, out r));
                return Own(r);
            }
        }

        private Tensor BinaryInPlace(int op, Tensor other)
        {
            using (var a = Use())
            using (var b = Use(other, nameof(other)))
            {
                Native.Check(ctorch.ct_binary_(op, a.Ptr, b.Ptr));
            }
            return this;
        }

        // A Python float scalar: "wrapped number" promotion (int tensor + 2.5 -> float32,
        // float16 tensor + 2.5 stays float16). reverse computes op(s, this).
        private Tensor Binary(int op, double s, bool reverse = false)
        {
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_binary_scalar_f(op, a.Ptr, s, reverse ? 1 : 0, out r)); return Own(r); }
        }

        // A Python int scalar (int32 tensor + 2 stays int32).
        private Tensor Binary(int op, long s, bool reverse = false)
        {
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_binary_scalar_i(op, a.Ptr, s, reverse ? 1 : 0, out r)); return Own(r); }
        }

        private Tensor BinaryInPlace(int op, double s)
        {
            using (var a = Use()) Native.Check(ctorch.ct_binary_scalar_f_(op, a.Ptr, s));
            return this;
        }

        private Tensor BinaryInPlace(int op, long s)
        {
            using (var a = Use()) Native.Check(ctorch.ct_binary_scalar_i_(op, a.Ptr, s));
            return this;
        }

        // ------------------------------------------------------------ named ops
        // Each unary op X has X() and the in-place X_(); each binary op X takes a Tensor
        // (broadcast, promoted), a double (a Python float scalar) or a long (a Python int scalar),
        // with in-place X_ forms that write into this tensor and return it. They are generated from
        // capi/abi.toml into Abi.g.cs (partial class Tensor).

        // ------------------------------------------------------------ reversed scalar forms

        /// <summary>torch.rsub(this, s): s - this.</summary>
        public Tensor Rsub(double s) => Binary(BinaryOp.Sub, s, true);
        /// <summary>torch.rsub(this, s): s - this.</summary>
        public Tensor Rsub(long s) => Binary(BinaryOp.Sub, s, true);
        /// <summary>torch.pow(s, exponent): a Python float base.</summary>
        public static Tensor Pow(double self, Tensor exponent) => NotNull(exponent, nameof(exponent)).Binary(BinaryOp.Pow, self, true);
        /// <summary>torch.pow(s, exponent): a Python int base.</summary>
        public static Tensor Pow(long self, Tensor exponent) => NotNull(exponent, nameof(exponent)).Binary(BinaryOp.Pow, self, true);

        private static Tensor NotNull(Tensor t, string name)
        {
            if ((object)t == null) throw new ArgumentNullException(name);
            return t;
        }

        // ------------------------------------------------------------ operators
        // As in Python: a long operand is a Python int, a double a Python float.
        public static Tensor operator +(Tensor a, Tensor b) => NotNull(a, nameof(a)).Binary(BinaryOp.Add, NotNull(b, nameof(b)));
        public static Tensor operator +(Tensor a, double b) => NotNull(a, nameof(a)).Binary(BinaryOp.Add, b);
        public static Tensor operator +(Tensor a, long b) => NotNull(a, nameof(a)).Binary(BinaryOp.Add, b);
        public static Tensor operator +(double a, Tensor b) => NotNull(b, nameof(b)).Binary(BinaryOp.Add, a, true);
        public static Tensor operator +(long a, Tensor b) => NotNull(b, nameof(b)).Binary(BinaryOp.Add, a, true);
        public static Tensor operator -(Tensor a, Tensor b) => NotNull(a, nameof(a)).Binary(BinaryOp.Sub, NotNull(b, nameof(b)));
        public static Tensor operator -(Tensor a, double b) => NotNull(a, nameof(a)).Binary(BinaryOp.Sub, b);
        public static Tensor operator -(Tensor a, long b) => NotNull(a, nameof(a)).Binary(BinaryOp.Sub, b);
        public static Tensor operator -(double a, Tensor b) => NotNull(b, nameof(b)).Binary(BinaryOp.Sub, a, true);
        public static Tensor operator -(long a, Tensor b) => NotNull(b, nameof(b)).Binary(BinaryOp.Sub, a, true);
        public static Tensor operator *(Tensor a, Tensor b) => NotNull(a, nameof(a)).Binary(BinaryOp.Mul, NotNull(b, nameof(b)));
        public static Tensor operator *(Tensor a, double b) => NotNull(a, nameof(a)).Binary(BinaryOp.Mul, b);
        public static Tensor operator *(Tensor a, long b) => NotNull(a, nameof(a)).Binary(BinaryOp.Mul, b);
        public static Tensor operator *(double a, Tensor b) => NotNull(b, nameof(b)).Binary(BinaryOp.Mul, a, true);
        public static Tensor operator *(long a, Tensor b) => NotNull(b, nameof(b)).Binary(BinaryOp.Mul, a, true);
        public static Tensor operator /(Tensor a, Tensor b) => NotNull(a, nameof(a)).Binary(BinaryOp.Div, NotNull(b, nameof(b)));
        public static Tensor operator /(Tensor a, double b) => NotNull(a, nameof(a)).Binary(BinaryOp.Div, b);
        public static Tensor operator /(Tensor a, long b) => NotNull(a, nameof(a)).Binary(BinaryOp.Div, b);
        public static Tensor operator /(double a, Tensor b) => NotNull(b, nameof(b)).Binary(BinaryOp.Div, a, true);
        public static Tensor operator /(long a, Tensor b) => NotNull(b, nameof(b)).Binary(BinaryOp.Div, a, true);
        public static Tensor operator %(Tensor a, Tensor b) => NotNull(a, nameof(a)).Binary(BinaryOp.Remainder, NotNull(b, nameof(b)));
        public static Tensor operator %(Tensor a, double b) => NotNull(a, nameof(a)).Binary(BinaryOp.Remainder, b);
        public static Tensor operator %(Tensor a, long b) => NotNull(a, nameof(a)).Binary(BinaryOp.Remainder, b);
        public static Tensor operator %(double a, Tensor b) => NotNull(b, nameof(b)).Binary(BinaryOp.Remainder, a, true);
        public static Tensor operator %(long a, Tensor b) => NotNull(b, nameof(b)).Binary(BinaryOp.Remainder, a, true);
        public static Tensor operator -(Tensor a) => NotNull(a, nameof(a)).Neg();

        // ------------------------------------------------------------ clamp, where, fill

        /// <summary>torch.clamp(this, min, max); at least one bound. Bounds are Python floats for
        /// floating tensors and must be integral values otherwise.</summary>
        public Tensor Clamp(double? min = null, double? max = null)
        {
            using (var a = Use())
            {
                IntPtr r;
                Native.Check(ctorch.ct_clamp(a.Ptr, min.HasValue ? 1 : 0, min ?? 0.0, max.HasValue ? 1 : 0, max ?? 0.0, out r));
                return Own(r);
            }
        }

        /// <summary>In-place clamp_; returns this.</summary>
        public Tensor Clamp_(double? min = null, double? max = null)
        {
            using (var a = Use())
                Native.Check(ctorch.ct_clamp_(a.Ptr, min.HasValue ? 1 : 0, min ?? 0.0, max.HasValue ? 1 : 0, max ?? 0.0));
            return this;
        }

        /// <summary>torch.clamp_min(this, min).</summary>
        public Tensor ClampMin(double min) => Clamp(min, null);

        /// <summary>torch.clamp_max(this, max).</summary>
        public Tensor ClampMax(double max) => Clamp(null, max);

        /// <summary>torch.where(condition, x, y): condition must be bool; x and y promote; all
        /// three broadcast.</summary>
        public static Tensor Where(Tensor condition, Tensor x, Tensor y)
        {
            using (var c = Use(condition, nameof(condition)))
            using (var a = Use(x, nameof(x)))
            using (var b = Use(y, nameof(y)))
            {
                IntPtr r;
                Native.Check(ctorch.ct_where(c.Ptr, a.Ptr, b.Ptr, out r));
                return Own(r);
            }
        }

        /// <summary>tensor.fill_(value); returns this.</summary>
        public Tensor Fill_(double value)
        {
            using (var a = Use()) Native.Check(ctorch.ct_fill_(a.Ptr, value));
            return this;
        }

        /// <summary>tensor.zero_(); returns this.</summary>
        public Tensor Zero_()
        {
            using (var a = Use()) Native.Check(ctorch.ct_zero_(a.Ptr));
            return this;
        }
    }
}
