// Random tensors: torch.rand/randn/randint, rand_like/randn_like, and the in-place draws
// uniform_, normal_, random_, bernoulli_ (section 16 of capi/ctorch.h). Each takes an optional
// Generator; null is the default generator of the tensor's device.
using System;
using Ctorch.Swig;

namespace Ctorch
{
    public sealed partial class Tensor
    {
        // ------------------------------------------------------------ rand / randn

        // The C signature of ct_rand and ct_randn.
        private delegate int DrawCall(long[] sizes, int ndim, int dtype, int devType, int devIndex, IntPtr gen, out IntPtr r);

        private static Tensor Draw(DrawCall call, long[] shape, DType dtype, Device? device, Generator generator)
        {
            CheckShape(shape, nameof(shape));
            Device d = Dev(device);
            using (var g = Generator.UseOrNull(generator, nameof(generator)))
            {
                IntPtr r;
                Native.Check(call(shape, shape.Length, (int)dtype, (int)d.Type, d.Index, g.Ptr, out r));
                return Own(r);
            }
        }

        /// <summary>torch.rand(shape): uniform values in [0, 1), float32, on the CPU, from the
        /// CPU's default generator.</summary>
        public static Tensor Rand(params long[] shape) => Rand(shape, DType.Float32);

        /// <summary>torch.rand(shape, dtype=, device=, generator=): uniform values in [0, 1).
        /// dtype: Float32, Float64, Float16 or BFloat16 (others: CtorchException, DType).
        /// generator null: the default generator of the device; a generator of another device
        /// type or CUDA index is CtorchException (Device).</summary>
        public static Tensor Rand(long[] shape, DType dtype, Device? device = null, Generator generator = null) =>
            Draw(ctorch.ct_rand, shape, dtype, device, generator);

        /// <summary>torch.rand(shape, device=, generator=) (float32).</summary>
        public static Tensor Rand(long[] shape, Device device, Generator generator = null) =>
            Rand(shape, DType.Float32, device, generator);

        /// <summary>torch.rand(shape, generator=) (float32, on the CPU as in torch: a CUDA
        /// generator needs the CUDA overloads).</summary>
        public static Tensor Rand(long[] shape, Generator generator) => Rand(shape, DType.Float32, Device.Cpu, generator);

        /// <summary>torch.randn(shape): standard normal values (mean 0, std 1), float32, on the
        /// CPU, from the CPU's default generator.</summary>
        public static Tensor Randn(params long[] shape) => Randn(shape, DType.Float32);

        /// <summary>torch.randn(shape, dtype=, device=, generator=): standard normal values, for
        /// Float32, Float64, Float16 and BFloat16 (see <see cref="Rand(long[], DType, Device?, Generator)"/>).</summary>
        public static Tensor Randn(long[] shape, DType dtype, Device? device = null, Generator generator = null) =>
            Draw(ctorch.ct_randn, shape, dtype, device, generator);

        /// <summary>torch.randn(shape, device=, generator=) (float32).</summary>
        public static Tensor Randn(long[] shape, Device device, Generator generator = null) =>
            Randn(shape, DType.Float32, device, generator);

        /// <summary>torch.randn(shape, generator=) (float32, on the CPU).</summary>
        public static Tensor Randn(long[] shape, Generator generator) => Randn(shape, DType.Float32, Device.Cpu, generator);

        // ------------------------------------------------------------ randint

        /// <summary>torch.randint(low, high, shape, dtype=, device=, generator=): integers drawn
        /// uniformly from [low, high), int64 by default; every real dtype (the range must fit in
        /// it). low &gt;= high is CtorchException (Argument).</summary>
        public static Tensor Randint(long low, long high, long[] shape, DType dtype = DType.Int64, Device? device = null,
                                     Generator generator = null)
        {
            CheckShape(shape, nameof(shape));
            Device d = Dev(device);
            using (var g = Generator.UseOrNull(generator, nameof(generator)))
            {
                IntPtr r;
                Native.Check(ctorch.ct_randint(low, high, shape, shape.Length, (int)dtype, (int)d.Type, d.Index, g.Ptr,
                    out r));
                return Own(r);
            }
        }

        /// <summary>torch.randint(low, high, shape, device=, generator=) (int64).</summary>
        public static Tensor Randint(long low, long high, long[] shape, Device device, Generator generator = null) =>
            Randint(low, high, shape, DType.Int64, device, generator);

        /// <summary>torch.randint(low, high, shape, generator=) (int64, on the CPU).</summary>
        public static Tensor Randint(long low, long high, long[] shape, Generator generator) =>
            Randint(low, high, shape, DType.Int64, Device.Cpu, generator);

        /// <summary>torch.randint(high, shape, ...): integers in [0, high).</summary>
        public static Tensor Randint(long high, long[] shape, DType dtype = DType.Int64, Device? device = null,
                                     Generator generator = null) =>
            Randint(0, high, shape, dtype, device, generator);

        // ------------------------------------------------------------ *_like

        /// <summary>torch.rand_like(t, dtype=, generator=): uniform values in [0, 1) with t's
        /// shape and device, and t's dtype unless dtype is given (a floating dtype).</summary>
        public static Tensor RandLike(Tensor t, DType? dtype = null, Generator generator = null)
        {
            using (var a = Use(t, nameof(t)))
            using (var g = Generator.UseOrNull(generator, nameof(generator)))
            {
                IntPtr r;
                Native.Check(ctorch.ct_rand_like(a.Ptr, DTypes.Code(dtype), g.Ptr, out r));
                return Own(r);
            }
        }

        /// <summary>torch.randn_like(t, dtype=, generator=): standard normal values with t's
        /// shape and device, and t's dtype unless dtype is given (a floating dtype).</summary>
        public static Tensor RandnLike(Tensor t, DType? dtype = null, Generator generator = null)
        {
            using (var a = Use(t, nameof(t)))
            using (var g = Generator.UseOrNull(generator, nameof(generator)))
            {
                IntPtr r;
                Native.Check(ctorch.ct_randn_like(a.Ptr, DTypes.Code(dtype), g.Ptr, out r));
                return Own(r);
            }
        }

        // ------------------------------------------------------------ in place

        /// <summary>tensor.uniform_(from, to, generator=): fills this floating tensor with values
        /// drawn uniformly from [from, to); returns this. from &gt; to is CtorchException
        /// (Argument), an integer tensor (DType).</summary>
        public Tensor Uniform_(double from = 0.0, double to = 1.0, Generator generator = null)
        {
            using (var a = Use())
            using (var g = Generator.UseOrNull(generator, nameof(generator)))
            {
                Native.Check(ctorch.ct_tensor_uniform_(a.Ptr, from, to, g.Ptr));
            }
            return this;
        }

        /// <summary>tensor.normal_(mean, std, generator=): fills this floating tensor with normal
        /// values; returns this. std &lt; 0 is CtorchException (Argument), an integer tensor
        /// (DType).</summary>
        public Tensor Normal_(double mean = 0.0, double std = 1.0, Generator generator = null)
        {
            using (var a = Use())
            using (var g = Generator.UseOrNull(generator, nameof(generator)))
            {
                Native.Check(ctorch.ct_tensor_normal_(a.Ptr, mean, std, g.Ptr));
            }
            return this;
        }

        /// <summary>tensor.random_(generator=): integers over the dtype's range (bool: 0 or 1;
        /// a floating dtype: [0, 2^mantissa digits], e.g. [0, 2^24] for float32); returns this.</summary>
        public Tensor Random_(Generator generator = null)
        {
            using (var a = Use())
            using (var g = Generator.UseOrNull(generator, nameof(generator)))
            {
                Native.Check(ctorch.ct_tensor_random_(a.Ptr, g.Ptr));
            }
            return this;
        }

        /// <summary>tensor.random_(to, generator=): integers in [0, to); returns this.</summary>
        public Tensor Random_(long to, Generator generator = null) => Random_(0, to, generator);

        /// <summary>tensor.random_(from, to, generator=): integers in [from, to) (ct_tensor_random_range_),
        /// for every real dtype; returns this. from &gt;= to, or a bound outside what the dtype
        /// holds, is CtorchException (Argument).</summary>
        public Tensor Random_(long from, long to, Generator generator = null)
        {
            using (var a = Use())
            using (var g = Generator.UseOrNull(generator, nameof(generator)))
            {
                Native.Check(ctorch.ct_tensor_random_range_(a.Ptr, from, to, g.Ptr));
            }
            return this;
        }

        /// <summary>tensor.bernoulli_(p, generator=): 1 with probability p, else 0, for every real
        /// dtype; returns this. p outside [0, 1] is CtorchException (Argument).</summary>
        public Tensor Bernoulli_(double p = 0.5, Generator generator = null)
        {
            using (var a = Use())
            using (var g = Generator.UseOrNull(generator, nameof(generator)))
            {
                Native.Check(ctorch.ct_tensor_bernoulli_(a.Ptr, p, g.Ptr));
            }
            return this;
        }
    }
}
