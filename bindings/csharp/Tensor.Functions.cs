// Elementwise functions with extra arguments (ctorch.h section 31): gelu, nan_to_num, clamp by
// tensors, lerp, addcmul, addcdiv, where with scalars, isclose and allclose. Isnan, Isinf,
// Isfinite, Erf and Silu are table ops (the generated methods). Values, dtype rules and
// PyTorch's messages are the C library's (docs/ewfuncs.md).
using System;
using Ctorch.Swig;

namespace Ctorch
{
    public sealed partial class Tensor
    {
        /// <summary>torch.nn.functional.gelu(this, approximate): "none" (exact, with erf) or
        /// "tanh".</summary>
        public Tensor Gelu(string approximate = "none")
        {
            if (approximate == null) throw new ArgumentNullException(nameof(approximate));
            using (var a = Use()) { IntPtr r; Native.Check(ctorch.ct_gelu(a.Ptr, approximate, out r)); return Own(r); }
        }

        /// <summary>torch.nan_to_num(this, nan, posinf, neginf); null means None (nan 0, posinf the
        /// dtype's largest finite value, neginf its lowest). Integer and bool tensors come back as
        /// a copy.</summary>
        public Tensor NanToNum(double? nan = null, double? posinf = null, double? neginf = null)
        {
            using (var a = Use())
            {
                IntPtr r;
                Native.Check(ctorch.ct_nan_to_num(a.Ptr, nan.HasValue ? 1 : 0, nan ?? 0.0, posinf.HasValue ? 1 : 0,
                                                  posinf ?? 0.0, neginf.HasValue ? 1 : 0, neginf ?? 0.0, out r));
                return Own(r);
            }
        }

        /// <summary>torch.clamp(this, min, max) with tensor bounds (either may be null, not both):
        /// NaN where any operand is NaN; the three promote and broadcast.</summary>
        public Tensor Clamp(Tensor min, Tensor max)
        {
            using (var a = Use())
            using (var lo = (object)min == null ? default(Lease) : new Lease(min, nameof(min)))
            using (var hi = (object)max == null ? default(Lease) : new Lease(max, nameof(max)))
            {
                IntPtr r;
                Native.Check(ctorch.ct_clamp_tensor(a.Ptr, lo.Ptr, hi.Ptr, out r));
                return Own(r);
            }
        }

        /// <summary>torch.lerp(this, end, weight): this + weight * (end - this). end and weight
        /// must have this tensor's dtype.</summary>
        public Tensor Lerp(Tensor end, Tensor weight)
        {
            using (var a = Use())
            using (var e = Use(end, nameof(end)))
            using (var w = Use(weight, nameof(weight)))
            {
                IntPtr r;
                Native.Check(ctorch.ct_lerp(a.Ptr, e.Ptr, w.Ptr, out r));
                return Own(r);
            }
        }

        /// <summary>torch.lerp(this, end, weight) with a Python float weight.</summary>
        public Tensor Lerp(Tensor end, double weight)
        {
            using (var a = Use())
            using (var e = Use(end, nameof(end)))
            {
                IntPtr r;
                Native.Check(ctorch.ct_lerp_scalar(a.Ptr, e.Ptr, weight, out r));
                return Own(r);
            }
        }

        private Tensor Pointwise(Tensor tensor1, Tensor tensor2, double value, bool divide)
        {
            using (var a = Use())
            using (var b = Use(tensor1, nameof(tensor1)))
            using (var c = Use(tensor2, nameof(tensor2)))
            {
                IntPtr r;
                Native.Check(divide ? ctorch.ct_addcdiv(a.Ptr, b.Ptr, c.Ptr, value, out r)
                                    : ctorch.ct_addcmul(a.Ptr, b.Ptr, c.Ptr, value, out r));
                return Own(r);
            }
        }

        /// <summary>torch.addcmul(this, tensor1, tensor2, value): this + value * tensor1 * tensor2.</summary>
        public Tensor Addcmul(Tensor tensor1, Tensor tensor2, double value = 1) => Pointwise(tensor1, tensor2, value, false);

        /// <summary>torch.addcdiv(this, tensor1, tensor2, value): this + value * (tensor1 / tensor2);
        /// integer tensor1 and tensor2 throw (PyTorch's message).</summary>
        public Tensor Addcdiv(Tensor tensor1, Tensor tensor2, double value = 1) => Pointwise(tensor1, tensor2, value, true);

        private static Tensor WhereScalar(Tensor condition, Tensor t, string name, double? f, long i, bool reverse)
        {
            using (var c = Use(condition, nameof(condition)))
            using (var a = Use(t, name))
            {
                IntPtr r;
                Native.Check(f.HasValue ? ctorch.ct_where_scalar_f(c.Ptr, a.Ptr, f.Value, reverse ? 1 : 0, out r)
                                        : ctorch.ct_where_scalar_i(c.Ptr, a.Ptr, i, reverse ? 1 : 0, out r));
                return Own(r);
            }
        }

        /// <summary>torch.where(condition, x, y) with a Python float y (a wrapped number: a
        /// float16 x stays float16, an integer x gives float32).</summary>
        public static Tensor Where(Tensor condition, Tensor x, double y) => WhereScalar(condition, x, nameof(x), y, 0, false);

        /// <summary>torch.where(condition, x, y) with a Python float x.</summary>
        public static Tensor Where(Tensor condition, double x, Tensor y) => WhereScalar(condition, y, nameof(y), x, 0, true);

        /// <summary>torch.where(condition, x, y) with a Python int y (an int32 x stays int32).</summary>
        public static Tensor Where(Tensor condition, Tensor x, long y) => WhereScalar(condition, x, nameof(x), null, y, false);

        /// <summary>torch.where(condition, x, y) with a Python int x.</summary>
        public static Tensor Where(Tensor condition, long x, Tensor y) => WhereScalar(condition, y, nameof(y), null, x, true);

        /// <summary>torch.where(condition, x, y) with two Python floats: float32, of condition's
        /// shape and device.</summary>
        public static Tensor Where(Tensor condition, double x, double y)
        {
            using (var c = Use(condition, nameof(condition))) { IntPtr r; Native.Check(ctorch.ct_where_scalars_f(c.Ptr, x, y, out r)); return Own(r); }
        }

        /// <summary>torch.where(condition, x, y) with two Python ints: int64.</summary>
        public static Tensor Where(Tensor condition, long x, long y)
        {
            using (var c = Use(condition, nameof(condition))) { IntPtr r; Native.Check(ctorch.ct_where_scalars_i(c.Ptr, x, y, out r)); return Own(r); }
        }

        /// <summary>torch.isclose(this, other, rtol, atol, equal_nan): a bool tensor.</summary>
        public Tensor IsClose(Tensor other, double rtol = 1e-5, double atol = 1e-8, bool equalNan = false)
        {
            using (var a = Use())
            using (var b = Use(other, nameof(other)))
            {
                IntPtr r;
                Native.Check(ctorch.ct_isclose(a.Ptr, b.Ptr, rtol, atol, equalNan ? 1 : 0, out r));
                return Own(r);
            }
        }

        /// <summary>torch.allclose(this, other, rtol, atol, equal_nan) (true for empty tensors;
        /// synchronizes with a CUDA device).</summary>
        public bool AllClose(Tensor other, double rtol = 1e-5, double atol = 1e-8, bool equalNan = false)
        {
            using (var a = Use())
            using (var b = Use(other, nameof(other)))
            {
                int r;
                Native.Check(ctorch.ct_allclose(a.Ptr, b.Ptr, rtol, atol, equalNan ? 1 : 0, out r));
                return r != 0;
            }
        }
    }
}
