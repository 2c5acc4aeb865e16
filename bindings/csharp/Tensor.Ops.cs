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

        // ------------------------------------------------------------ unary
        /// <summary>torch.neg: -x (not for bool).</summary>
        public Tensor Neg() => Unary(UnaryOp.Neg);
        /// <summary>In-place neg_; returns this.</summary>
        public Tensor Neg_() => UnaryInPlace(UnaryOp.Neg);
        /// <summary>torch.abs: |x|.</summary>
        public Tensor Abs() => Unary(UnaryOp.Abs);
        /// <summary>In-place abs_; returns this.</summary>
        public Tensor Abs_() => UnaryInPlace(UnaryOp.Abs);
        /// <summary>torch.exp: e^x (integers promote to float32).</summary>
        public Tensor Exp() => Unary(UnaryOp.Exp);
        /// <summary>In-place exp_; returns this.</summary>
        public Tensor Exp_() => UnaryInPlace(UnaryOp.Exp);
        /// <summary>torch.log: natural log.</summary>
        public Tensor Log() => Unary(UnaryOp.Log);
        /// <summary>In-place log_; returns this.</summary>
        public Tensor Log_() => UnaryInPlace(UnaryOp.Log);
        /// <summary>torch.sqrt: square root.</summary>
        public Tensor Sqrt() => Unary(UnaryOp.Sqrt);
        /// <summary>In-place sqrt_; returns this.</summary>
        public Tensor Sqrt_() => UnaryInPlace(UnaryOp.Sqrt);
        /// <summary>torch.sin: sine.</summary>
        public Tensor Sin() => Unary(UnaryOp.Sin);
        /// <summary>In-place sin_; returns this.</summary>
        public Tensor Sin_() => UnaryInPlace(UnaryOp.Sin);
        /// <summary>torch.cos: cosine.</summary>
        public Tensor Cos() => Unary(UnaryOp.Cos);
        /// <summary>In-place cos_; returns this.</summary>
        public Tensor Cos_() => UnaryInPlace(UnaryOp.Cos);
        /// <summary>torch.tanh: hyperbolic tangent.</summary>
        public Tensor Tanh() => Unary(UnaryOp.Tanh);
        /// <summary>In-place tanh_; returns this.</summary>
        public Tensor Tanh_() => UnaryInPlace(UnaryOp.Tanh);
        /// <summary>torch.sigmoid: 1 / (1 + e^-x).</summary>
        public Tensor Sigmoid() => Unary(UnaryOp.Sigmoid);
        /// <summary>In-place sigmoid_; returns this.</summary>
        public Tensor Sigmoid_() => UnaryInPlace(UnaryOp.Sigmoid);
        /// <summary>torch.relu: max(x, 0), keeps the dtype.</summary>
        public Tensor Relu() => Unary(UnaryOp.Relu);
        /// <summary>In-place relu_; returns this.</summary>
        public Tensor Relu_() => UnaryInPlace(UnaryOp.Relu);
        /// <summary>torch.logical_not: not x, a bool result.</summary>
        public Tensor LogicalNot() => Unary(UnaryOp.LogicalNot);
        /// <summary>In-place logical_not_; returns this.</summary>
        public Tensor LogicalNot_() => UnaryInPlace(UnaryOp.LogicalNot);
        /// <summary>torch.sign: sign, keeps the dtype.</summary>
        public Tensor Sign() => Unary(UnaryOp.Sign);
        /// <summary>In-place sign_; returns this.</summary>
        public Tensor Sign_() => UnaryInPlace(UnaryOp.Sign);
        /// <summary>torch.floor: floor.</summary>
        public Tensor Floor() => Unary(UnaryOp.Floor);
        /// <summary>In-place floor_; returns this.</summary>
        public Tensor Floor_() => UnaryInPlace(UnaryOp.Floor);
        /// <summary>torch.ceil: ceil.</summary>
        public Tensor Ceil() => Unary(UnaryOp.Ceil);
        /// <summary>In-place ceil_; returns this.</summary>
        public Tensor Ceil_() => UnaryInPlace(UnaryOp.Ceil);
        /// <summary>torch.round: round half to even.</summary>
        public Tensor Round() => Unary(UnaryOp.Round);
        /// <summary>In-place round_; returns this.</summary>
        public Tensor Round_() => UnaryInPlace(UnaryOp.Round);
        /// <summary>torch.reciprocal: 1/x (integers promote to float32).</summary>
        public Tensor Reciprocal() => Unary(UnaryOp.Reciprocal);
        /// <summary>In-place reciprocal_; returns this.</summary>
        public Tensor Reciprocal_() => UnaryInPlace(UnaryOp.Reciprocal);
        /// <summary>torch.square: x*x.</summary>
        public Tensor Square() => Unary(UnaryOp.Square);
        /// <summary>In-place square_; returns this.</summary>
        public Tensor Square_() => UnaryInPlace(UnaryOp.Square);
        // ------------------------------------------------------------ binary
        // Each op takes a Tensor (broadcast, promoted), a double (a Python float scalar) or a
        // long (a Python int scalar); the '_' forms write into this tensor and return it.
        /// <summary>torch.add(this, other): a + b.</summary>
        public Tensor Add(Tensor other) => Binary(BinaryOp.Add, other);
        /// <summary>torch.add(this, s) with a Python float scalar.</summary>
        public Tensor Add(double other) => Binary(BinaryOp.Add, other);
        /// <summary>torch.add(this, s) with a Python int scalar.</summary>
        public Tensor Add(long other) => Binary(BinaryOp.Add, other);
        /// <summary>this.add_(other) in place; returns this.</summary>
        public Tensor Add_(Tensor other) => BinaryInPlace(BinaryOp.Add, other);
        /// <summary>this.add_(s) in place with a Python float scalar; returns this.</summary>
        public Tensor Add_(double other) => BinaryInPlace(BinaryOp.Add, other);
        /// <summary>this.add_(s) in place with a Python int scalar; returns this.</summary>
        public Tensor Add_(long other) => BinaryInPlace(BinaryOp.Add, other);
        /// <summary>torch.sub(this, other): a - b (not for bool).</summary>
        public Tensor Sub(Tensor other) => Binary(BinaryOp.Sub, other);
        /// <summary>torch.sub(this, s) with a Python float scalar.</summary>
        public Tensor Sub(double other) => Binary(BinaryOp.Sub, other);
        /// <summary>torch.sub(this, s) with a Python int scalar.</summary>
        public Tensor Sub(long other) => Binary(BinaryOp.Sub, other);
        /// <summary>this.sub_(other) in place; returns this.</summary>
        public Tensor Sub_(Tensor other) => BinaryInPlace(BinaryOp.Sub, other);
        /// <summary>this.sub_(s) in place with a Python float scalar; returns this.</summary>
        public Tensor Sub_(double other) => BinaryInPlace(BinaryOp.Sub, other);
        /// <summary>this.sub_(s) in place with a Python int scalar; returns this.</summary>
        public Tensor Sub_(long other) => BinaryInPlace(BinaryOp.Sub, other);
        /// <summary>torch.mul(this, other): a * b.</summary>
        public Tensor Mul(Tensor other) => Binary(BinaryOp.Mul, other);
        /// <summary>torch.mul(this, s) with a Python float scalar.</summary>
        public Tensor Mul(double other) => Binary(BinaryOp.Mul, other);
        /// <summary>torch.mul(this, s) with a Python int scalar.</summary>
        public Tensor Mul(long other) => Binary(BinaryOp.Mul, other);
        /// <summary>this.mul_(other) in place; returns this.</summary>
        public Tensor Mul_(Tensor other) => BinaryInPlace(BinaryOp.Mul, other);
        /// <summary>this.mul_(s) in place with a Python float scalar; returns this.</summary>
        public Tensor Mul_(double other) => BinaryInPlace(BinaryOp.Mul, other);
        /// <summary>this.mul_(s) in place with a Python int scalar; returns this.</summary>
        public Tensor Mul_(long other) => BinaryInPlace(BinaryOp.Mul, other);
        /// <summary>torch.div(this, other): true division: integers promote to float32.</summary>
        public Tensor Div(Tensor other) => Binary(BinaryOp.Div, other);
        /// <summary>torch.div(this, s) with a Python float scalar.</summary>
        public Tensor Div(double other) => Binary(BinaryOp.Div, other);
        /// <summary>torch.div(this, s) with a Python int scalar.</summary>
        public Tensor Div(long other) => Binary(BinaryOp.Div, other);
        /// <summary>this.div_(other) in place; returns this.</summary>
        public Tensor Div_(Tensor other) => BinaryInPlace(BinaryOp.Div, other);
        /// <summary>this.div_(s) in place with a Python float scalar; returns this.</summary>
        public Tensor Div_(double other) => BinaryInPlace(BinaryOp.Div, other);
        /// <summary>this.div_(s) in place with a Python int scalar; returns this.</summary>
        public Tensor Div_(long other) => BinaryInPlace(BinaryOp.Div, other);
        /// <summary>torch.pow(this, other): a ** b.</summary>
        public Tensor Pow(Tensor other) => Binary(BinaryOp.Pow, other);
        /// <summary>torch.pow(this, s) with a Python float scalar.</summary>
        public Tensor Pow(double other) => Binary(BinaryOp.Pow, other);
        /// <summary>torch.pow(this, s) with a Python int scalar.</summary>
        public Tensor Pow(long other) => Binary(BinaryOp.Pow, other);
        /// <summary>this.pow_(other) in place; returns this.</summary>
        public Tensor Pow_(Tensor other) => BinaryInPlace(BinaryOp.Pow, other);
        /// <summary>this.pow_(s) in place with a Python float scalar; returns this.</summary>
        public Tensor Pow_(double other) => BinaryInPlace(BinaryOp.Pow, other);
        /// <summary>this.pow_(s) in place with a Python int scalar; returns this.</summary>
        public Tensor Pow_(long other) => BinaryInPlace(BinaryOp.Pow, other);
        /// <summary>torch.eq(this, other): a == b, a bool result.</summary>
        public Tensor Eq(Tensor other) => Binary(BinaryOp.Eq, other);
        /// <summary>torch.eq(this, s) with a Python float scalar.</summary>
        public Tensor Eq(double other) => Binary(BinaryOp.Eq, other);
        /// <summary>torch.eq(this, s) with a Python int scalar.</summary>
        public Tensor Eq(long other) => Binary(BinaryOp.Eq, other);
        /// <summary>this.eq_(other) in place; returns this.</summary>
        public Tensor Eq_(Tensor other) => BinaryInPlace(BinaryOp.Eq, other);
        /// <summary>this.eq_(s) in place with a Python float scalar; returns this.</summary>
        public Tensor Eq_(double other) => BinaryInPlace(BinaryOp.Eq, other);
        /// <summary>this.eq_(s) in place with a Python int scalar; returns this.</summary>
        public Tensor Eq_(long other) => BinaryInPlace(BinaryOp.Eq, other);
        /// <summary>torch.ne(this, other): a != b.</summary>
        public Tensor Ne(Tensor other) => Binary(BinaryOp.Ne, other);
        /// <summary>torch.ne(this, s) with a Python float scalar.</summary>
        public Tensor Ne(double other) => Binary(BinaryOp.Ne, other);
        /// <summary>torch.ne(this, s) with a Python int scalar.</summary>
        public Tensor Ne(long other) => Binary(BinaryOp.Ne, other);
        /// <summary>this.ne_(other) in place; returns this.</summary>
        public Tensor Ne_(Tensor other) => BinaryInPlace(BinaryOp.Ne, other);
        /// <summary>this.ne_(s) in place with a Python float scalar; returns this.</summary>
        public Tensor Ne_(double other) => BinaryInPlace(BinaryOp.Ne, other);
        /// <summary>this.ne_(s) in place with a Python int scalar; returns this.</summary>
        public Tensor Ne_(long other) => BinaryInPlace(BinaryOp.Ne, other);
        /// <summary>torch.lt(this, other): a &lt; b.</summary>
        public Tensor Lt(Tensor other) => Binary(BinaryOp.Lt, other);
        /// <summary>torch.lt(this, s) with a Python float scalar.</summary>
        public Tensor Lt(double other) => Binary(BinaryOp.Lt, other);
        /// <summary>torch.lt(this, s) with a Python int scalar.</summary>
        public Tensor Lt(long other) => Binary(BinaryOp.Lt, other);
        /// <summary>this.lt_(other) in place; returns this.</summary>
        public Tensor Lt_(Tensor other) => BinaryInPlace(BinaryOp.Lt, other);
        /// <summary>this.lt_(s) in place with a Python float scalar; returns this.</summary>
        public Tensor Lt_(double other) => BinaryInPlace(BinaryOp.Lt, other);
        /// <summary>this.lt_(s) in place with a Python int scalar; returns this.</summary>
        public Tensor Lt_(long other) => BinaryInPlace(BinaryOp.Lt, other);
        /// <summary>torch.le(this, other): a &lt;= b.</summary>
        public Tensor Le(Tensor other) => Binary(BinaryOp.Le, other);
        /// <summary>torch.le(this, s) with a Python float scalar.</summary>
        public Tensor Le(double other) => Binary(BinaryOp.Le, other);
        /// <summary>torch.le(this, s) with a Python int scalar.</summary>
        public Tensor Le(long other) => Binary(BinaryOp.Le, other);
        /// <summary>this.le_(other) in place; returns this.</summary>
        public Tensor Le_(Tensor other) => BinaryInPlace(BinaryOp.Le, other);
        /// <summary>this.le_(s) in place with a Python float scalar; returns this.</summary>
        public Tensor Le_(double other) => BinaryInPlace(BinaryOp.Le, other);
        /// <summary>this.le_(s) in place with a Python int scalar; returns this.</summary>
        public Tensor Le_(long other) => BinaryInPlace(BinaryOp.Le, other);
        /// <summary>torch.gt(this, other): a &gt; b.</summary>
        public Tensor Gt(Tensor other) => Binary(BinaryOp.Gt, other);
        /// <summary>torch.gt(this, s) with a Python float scalar.</summary>
        public Tensor Gt(double other) => Binary(BinaryOp.Gt, other);
        /// <summary>torch.gt(this, s) with a Python int scalar.</summary>
        public Tensor Gt(long other) => Binary(BinaryOp.Gt, other);
        /// <summary>this.gt_(other) in place; returns this.</summary>
        public Tensor Gt_(Tensor other) => BinaryInPlace(BinaryOp.Gt, other);
        /// <summary>this.gt_(s) in place with a Python float scalar; returns this.</summary>
        public Tensor Gt_(double other) => BinaryInPlace(BinaryOp.Gt, other);
        /// <summary>this.gt_(s) in place with a Python int scalar; returns this.</summary>
        public Tensor Gt_(long other) => BinaryInPlace(BinaryOp.Gt, other);
        /// <summary>torch.ge(this, other): a &gt;= b.</summary>
        public Tensor Ge(Tensor other) => Binary(BinaryOp.Ge, other);
        /// <summary>torch.ge(this, s) with a Python float scalar.</summary>
        public Tensor Ge(double other) => Binary(BinaryOp.Ge, other);
        /// <summary>torch.ge(this, s) with a Python int scalar.</summary>
        public Tensor Ge(long other) => Binary(BinaryOp.Ge, other);
        /// <summary>this.ge_(other) in place; returns this.</summary>
        public Tensor Ge_(Tensor other) => BinaryInPlace(BinaryOp.Ge, other);
        /// <summary>this.ge_(s) in place with a Python float scalar; returns this.</summary>
        public Tensor Ge_(double other) => BinaryInPlace(BinaryOp.Ge, other);
        /// <summary>this.ge_(s) in place with a Python int scalar; returns this.</summary>
        public Tensor Ge_(long other) => BinaryInPlace(BinaryOp.Ge, other);
        /// <summary>torch.logical_and(this, other): a and b, a bool result.</summary>
        public Tensor LogicalAnd(Tensor other) => Binary(BinaryOp.LogicalAnd, other);
        /// <summary>torch.logical_and(this, s) with a Python float scalar.</summary>
        public Tensor LogicalAnd(double other) => Binary(BinaryOp.LogicalAnd, other);
        /// <summary>torch.logical_and(this, s) with a Python int scalar.</summary>
        public Tensor LogicalAnd(long other) => Binary(BinaryOp.LogicalAnd, other);
        /// <summary>this.logical_and_(other) in place; returns this.</summary>
        public Tensor LogicalAnd_(Tensor other) => BinaryInPlace(BinaryOp.LogicalAnd, other);
        /// <summary>this.logical_and_(s) in place with a Python float scalar; returns this.</summary>
        public Tensor LogicalAnd_(double other) => BinaryInPlace(BinaryOp.LogicalAnd, other);
        /// <summary>this.logical_and_(s) in place with a Python int scalar; returns this.</summary>
        public Tensor LogicalAnd_(long other) => BinaryInPlace(BinaryOp.LogicalAnd, other);
        /// <summary>torch.logical_or(this, other): a or b.</summary>
        public Tensor LogicalOr(Tensor other) => Binary(BinaryOp.LogicalOr, other);
        /// <summary>torch.logical_or(this, s) with a Python float scalar.</summary>
        public Tensor LogicalOr(double other) => Binary(BinaryOp.LogicalOr, other);
        /// <summary>torch.logical_or(this, s) with a Python int scalar.</summary>
        public Tensor LogicalOr(long other) => Binary(BinaryOp.LogicalOr, other);
        /// <summary>this.logical_or_(other) in place; returns this.</summary>
        public Tensor LogicalOr_(Tensor other) => BinaryInPlace(BinaryOp.LogicalOr, other);
        /// <summary>this.logical_or_(s) in place with a Python float scalar; returns this.</summary>
        public Tensor LogicalOr_(double other) => BinaryInPlace(BinaryOp.LogicalOr, other);
        /// <summary>this.logical_or_(s) in place with a Python int scalar; returns this.</summary>
        public Tensor LogicalOr_(long other) => BinaryInPlace(BinaryOp.LogicalOr, other);
        /// <summary>torch.logical_xor(this, other): a xor b.</summary>
        public Tensor LogicalXor(Tensor other) => Binary(BinaryOp.LogicalXor, other);
        /// <summary>torch.logical_xor(this, s) with a Python float scalar.</summary>
        public Tensor LogicalXor(double other) => Binary(BinaryOp.LogicalXor, other);
        /// <summary>torch.logical_xor(this, s) with a Python int scalar.</summary>
        public Tensor LogicalXor(long other) => Binary(BinaryOp.LogicalXor, other);
        /// <summary>this.logical_xor_(other) in place; returns this.</summary>
        public Tensor LogicalXor_(Tensor other) => BinaryInPlace(BinaryOp.LogicalXor, other);
        /// <summary>this.logical_xor_(s) in place with a Python float scalar; returns this.</summary>
        public Tensor LogicalXor_(double other) => BinaryInPlace(BinaryOp.LogicalXor, other);
        /// <summary>this.logical_xor_(s) in place with a Python int scalar; returns this.</summary>
        public Tensor LogicalXor_(long other) => BinaryInPlace(BinaryOp.LogicalXor, other);
        /// <summary>torch.maximum(this, other): torch.maximum (NaN propagates).</summary>
        public Tensor Maximum(Tensor other) => Binary(BinaryOp.Maximum, other);
        /// <summary>torch.maximum(this, s) with a Python float scalar.</summary>
        public Tensor Maximum(double other) => Binary(BinaryOp.Maximum, other);
        /// <summary>torch.maximum(this, s) with a Python int scalar.</summary>
        public Tensor Maximum(long other) => Binary(BinaryOp.Maximum, other);
        /// <summary>this.maximum_(other) in place; returns this.</summary>
        public Tensor Maximum_(Tensor other) => BinaryInPlace(BinaryOp.Maximum, other);
        /// <summary>this.maximum_(s) in place with a Python float scalar; returns this.</summary>
        public Tensor Maximum_(double other) => BinaryInPlace(BinaryOp.Maximum, other);
        /// <summary>this.maximum_(s) in place with a Python int scalar; returns this.</summary>
        public Tensor Maximum_(long other) => BinaryInPlace(BinaryOp.Maximum, other);
        /// <summary>torch.minimum(this, other): torch.minimum (NaN propagates).</summary>
        public Tensor Minimum(Tensor other) => Binary(BinaryOp.Minimum, other);
        /// <summary>torch.minimum(this, s) with a Python float scalar.</summary>
        public Tensor Minimum(double other) => Binary(BinaryOp.Minimum, other);
        /// <summary>torch.minimum(this, s) with a Python int scalar.</summary>
        public Tensor Minimum(long other) => Binary(BinaryOp.Minimum, other);
        /// <summary>this.minimum_(other) in place; returns this.</summary>
        public Tensor Minimum_(Tensor other) => BinaryInPlace(BinaryOp.Minimum, other);
        /// <summary>this.minimum_(s) in place with a Python float scalar; returns this.</summary>
        public Tensor Minimum_(double other) => BinaryInPlace(BinaryOp.Minimum, other);
        /// <summary>this.minimum_(s) in place with a Python int scalar; returns this.</summary>
        public Tensor Minimum_(long other) => BinaryInPlace(BinaryOp.Minimum, other);
        /// <summary>torch.floor_divide(this, other): torch.floor_divide.</summary>
        public Tensor FloorDivide(Tensor other) => Binary(BinaryOp.FloorDivide, other);
        /// <summary>torch.floor_divide(this, s) with a Python float scalar.</summary>
        public Tensor FloorDivide(double other) => Binary(BinaryOp.FloorDivide, other);
        /// <summary>torch.floor_divide(this, s) with a Python int scalar.</summary>
        public Tensor FloorDivide(long other) => Binary(BinaryOp.FloorDivide, other);
        /// <summary>this.floor_divide_(other) in place; returns this.</summary>
        public Tensor FloorDivide_(Tensor other) => BinaryInPlace(BinaryOp.FloorDivide, other);
        /// <summary>this.floor_divide_(s) in place with a Python float scalar; returns this.</summary>
        public Tensor FloorDivide_(double other) => BinaryInPlace(BinaryOp.FloorDivide, other);
        /// <summary>this.floor_divide_(s) in place with a Python int scalar; returns this.</summary>
        public Tensor FloorDivide_(long other) => BinaryInPlace(BinaryOp.FloorDivide, other);
        /// <summary>torch.remainder(this, other): torch.remainder (sign of the divisor).</summary>
        public Tensor Remainder(Tensor other) => Binary(BinaryOp.Remainder, other);
        /// <summary>torch.remainder(this, s) with a Python float scalar.</summary>
        public Tensor Remainder(double other) => Binary(BinaryOp.Remainder, other);
        /// <summary>torch.remainder(this, s) with a Python int scalar.</summary>
        public Tensor Remainder(long other) => Binary(BinaryOp.Remainder, other);
        /// <summary>this.remainder_(other) in place; returns this.</summary>
        public Tensor Remainder_(Tensor other) => BinaryInPlace(BinaryOp.Remainder, other);
        /// <summary>this.remainder_(s) in place with a Python float scalar; returns this.</summary>
        public Tensor Remainder_(double other) => BinaryInPlace(BinaryOp.Remainder, other);
        /// <summary>this.remainder_(s) in place with a Python int scalar; returns this.</summary>
        public Tensor Remainder_(long other) => BinaryInPlace(BinaryOp.Remainder, other);
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
        public static Tensor operator +(Tensor a, Tensor b) => NotNull(a, nameof(a)).Binary(BinaryOp.Add, b);
        public static Tensor operator +(Tensor a, double b) => NotNull(a, nameof(a)).Binary(BinaryOp.Add, b);
        public static Tensor operator +(Tensor a, long b) => NotNull(a, nameof(a)).Binary(BinaryOp.Add, b);
        public static Tensor operator +(double a, Tensor b) => NotNull(b, nameof(b)).Binary(BinaryOp.Add, a, true);
        public static Tensor operator +(long a, Tensor b) => NotNull(b, nameof(b)).Binary(BinaryOp.Add, a, true);
        public static Tensor operator -(Tensor a, Tensor b) => NotNull(a, nameof(a)).Binary(BinaryOp.Sub, b);
        public static Tensor operator -(Tensor a, double b) => NotNull(a, nameof(a)).Binary(BinaryOp.Sub, b);
        public static Tensor operator -(Tensor a, long b) => NotNull(a, nameof(a)).Binary(BinaryOp.Sub, b);
        public static Tensor operator -(double a, Tensor b) => NotNull(b, nameof(b)).Binary(BinaryOp.Sub, a, true);
        public static Tensor operator -(long a, Tensor b) => NotNull(b, nameof(b)).Binary(BinaryOp.Sub, a, true);
        public static Tensor operator *(Tensor a, Tensor b) => NotNull(a, nameof(a)).Binary(BinaryOp.Mul, b);
        public static Tensor operator *(Tensor a, double b) => NotNull(a, nameof(a)).Binary(BinaryOp.Mul, b);
        public static Tensor operator *(Tensor a, long b) => NotNull(a, nameof(a)).Binary(BinaryOp.Mul, b);
        public static Tensor operator *(double a, Tensor b) => NotNull(b, nameof(b)).Binary(BinaryOp.Mul, a, true);
        public static Tensor operator *(long a, Tensor b) => NotNull(b, nameof(b)).Binary(BinaryOp.Mul, a, true);
        public static Tensor operator /(Tensor a, Tensor b) => NotNull(a, nameof(a)).Binary(BinaryOp.Div, b);
        public static Tensor operator /(Tensor a, double b) => NotNull(a, nameof(a)).Binary(BinaryOp.Div, b);
        public static Tensor operator /(Tensor a, long b) => NotNull(a, nameof(a)).Binary(BinaryOp.Div, b);
        public static Tensor operator /(double a, Tensor b) => NotNull(b, nameof(b)).Binary(BinaryOp.Div, a, true);
        public static Tensor operator /(long a, Tensor b) => NotNull(b, nameof(b)).Binary(BinaryOp.Div, a, true);
        public static Tensor operator %(Tensor a, Tensor b) => NotNull(a, nameof(a)).Binary(BinaryOp.Remainder, b);
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
