// The bad-input corpus (issue 19): one row per hostile call across the public surface (null
// objects and arrays, disposed objects of every class with a Dispose, objects wrapping another
// kind's handle, wrong dtypes / shapes / devices, out-of-range values, NaN and infinity where
// they mean nothing), each with the exception type it must give and a fragment of the message
// that names the problem; rows that close an object while other threads use it; and, in the
// "gc" process, finalizers racing explicit Dispose. After every row the live counts of every
// handle kind are back at their start.
using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Threading;
using Ctorch;
using NUnit.Framework;

namespace Ctorch.Tests
{
    [TestFixture]
    public class BadInputTests : TestBase
    {
        /// <summary>One case: the call, the exception type it must throw (null: it must succeed,
        /// for the race rows, which check their outcomes themselves), for a CtorchException the
        /// status code, and a fragment the message must contain (for ArgumentNullException and
        /// ObjectDisposedException the parameter's or object's name).</summary>
        public sealed class Row
        {
            public readonly string Name;
            internal readonly Type Error;
            internal readonly StatusCode Code;
            internal readonly string Fragment;
            internal readonly Action Call;
            internal readonly bool NoGpuOnly;   // the CUDA-unavailable (301) rows
            internal readonly bool GpuOnly;     // rows that need a GPU (skipped visibly without one)
            internal readonly string CBug;      // a known C-layer problem: skipped while the call succeeds

            internal Row(string name, Type error, StatusCode code, string fragment, Action call,
                         bool noGpuOnly = false, string cBug = null, bool gpuOnly = false)
            {
                Name = name; Error = error; Code = code; Fragment = fragment; Call = call;
                NoGpuOnly = noGpuOnly; CBug = cBug; GpuOnly = gpuOnly;
            }

            public override string ToString() => Name;
        }

        private static Row Null(string name, string param, Action call) =>
            new Row(name, typeof(ArgumentNullException), 0, param, call);

        private static Row Disposed(string name, string objectName, Action call) =>
            new Row(name, typeof(ObjectDisposedException), 0, objectName, call);

        private static Row Arg(string name, Type error, string fragment, Action call) =>
            new Row(name, error, 0, fragment, call);

        private static Row Status(string name, StatusCode code, string fragment, Action call) =>
            new Row(name, code == StatusCode.OutOfMemory ? typeof(CtorchOutOfMemoryException) : typeof(CtorchException),
                    code, fragment, call);

        private static Row NoCuda(string name, Action call) =>
            new Row(name, typeof(CtorchException), StatusCode.CudaUnavailable, "CUDA is not available", call, noGpuOnly: true);

        private static Row Race(string name, Action call) => new Row(name, null, 0, null, call);

        // ToString never throws: for a bad object it prints what is wrong.
        private static Row Prints(string name, string expected, Func<string> call) =>
            new Row(name, null, 0, null, () => Assert.AreEqual(expected, call()));

        private static Row GpuRace(string name, Action call) => new Row(name, null, 0, null, call, gpuOnly: true);

        private static Row CBug(string name, StatusCode code, string fragment, string bug, Action call) =>
            new Row(name, typeof(CtorchException), code, fragment, call, cBug: bug);

        // ------------------------------------------------------------ objects the rows use

        private static Tensor Closed()
        {
            Tensor t = Tensor.Zeros(2);
            t.Dispose();
            return t;
        }

        private static T Closed<T>(T o) where T : IDisposable
        {
            o.Dispose();
            return o;
        }

        private static Tensor M(int rows, int cols) => Tensor.Ones(rows, cols);

        private static readonly string Scale = "template <typename T> T f(T x, T a) { return a * x; }";

        private static JitFunction Jit() => JitFunction.Create(Scale, ("a", 2.0));

        // A tensor object over a raw handle of another kind (an event's), not owned.
        private static void WithForeignTensor(Action<Tensor> body)
        {
            using (var e = new CudaEvent())
                body(new Tensor(new TensorHandle(e.Handle.DangerousGetHandle(), false)));
        }

        // A tensor object over a released raw tensor handle, not owned.
        private static void WithReleasedTensor(Action<Tensor> body)
        {
            Tensor t = Tensor.Zeros(3);
            IntPtr raw = t.Handle.DangerousGetHandle();
            t.Dispose();
            body(new Tensor(new TensorHandle(raw, false)));
        }

        private static void WithGraph(Action<CudaGraph> body)
        {
            using (var g = new CudaGraph()) body(g);
        }

        private static IntPtr RawOf<T>(NativeObject<T> o) where T : NativeHandle => o.Handle.DangerousGetHandle();

        // ------------------------------------------------------------ the table

        public static IEnumerable<TestCaseData> Rows() =>
            Table().Select(r => new TestCaseData(r).SetName("BadInput: " + r.Name));

        internal static Row[] Table()
        {
            var rows = new List<Row>
            {
                // ---- null objects and arrays
                Null("Add(null tensor)", "other", () => F(1).Add((Tensor)null)),
                Null("Sub_(null tensor)", "other", () => F(1).Sub_((Tensor)null)),
                Null("null + tensor", "a", () => { Tensor x = null; GC.KeepAlive(x + F(1)); }),
                Null("tensor * null", "b", () => { Tensor x = null; GC.KeepAlive(F(1) * x); }),
                Null("-null", "a", () => { Tensor x = null; GC.KeepAlive(-x); }),
                Null("Pow(2.0, null)", "exponent", () => Tensor.Pow(2.0, null)),
                Null("Eq(null)", "other", () => F(1).Eq((Tensor)null)),
                Null("Maximum(null)", "other", () => F(1).Maximum(null)),
                Null("Matmul(null)", "other", () => M(2, 2).Matmul(null)),
                Null("Mm(null)", "mat2", () => M(2, 2).Mm(null)),
                Null("Mv(null)", "vec", () => M(2, 2).Mv(null)),
                Null("Addmm(null, m)", "mat1", () => M(2, 2).Addmm(null, M(2, 2))),
                Null("Where(null, x, y)", "condition", () => Tensor.Where(null, F(1), F(2))),
                Null("Where(c, x, null)", "y", () => Tensor.Where(B(true), F(1), null)),
                Null("Cat(null array)", "tensors", () => Tensor.Cat((Tensor[])null)),
                Null("Cat(a null element)", "tensors", () => Tensor.Cat(F(1), null)),
                Null("Stack(null enumeration)", "tensors", () => Tensor.Stack((IEnumerable<Tensor>)null, 0)),
                Null("FromArray<float>(null)", "data", () => Tensor.FromArray((float[])null)),
                Null("FromArray(null Array)", "data", () => Tensor.FromArray((Array)null)),
                Null("Zeros(null shape)", "shape", () => Tensor.Zeros((long[])null, DType.Float32)),
                Null("Full(null shape)", "shape", () => Tensor.Full(null, 1.0)),
                Null("Rand(null shape)", "shape", () => Tensor.Rand((long[])null, DType.Float32)),
                Null("View(null)", "shape", () => F(1, 2).View(null)),
                Null("Reshape(null)", "shape", () => F(1, 2).Reshape(null)),
                Null("Permute(null)", "dims", () => F(1, 2).Permute(null)),
                Null("Expand(null)", "shape", () => F(1, 2).Expand(null)),
                Null("ExpandAs(null)", "other", () => F(1, 2).ExpandAs(null)),
                Null("CopyFrom(null)", "src", () => F(1, 2).CopyFrom(null)),
                Null("CopyTo(null array)", "destination", () => F(1, 2).CopyTo((float[])null)),
                Null("To(null tensor)", "other", () => F(1).To((Tensor)null)),
                Null("SharesStorage(null)", "other", () => F(1).SharesStorage(null)),
                Null("IsSame(null)", "other", () => F(1).IsSame(null)),
                Null("ZerosLike(null)", "t", () => Tensor.ZerosLike(null)),
                Null("RandLike(null)", "t", () => Tensor.RandLike(null)),
                Null("NewTensor(null)", "data", () => F(1).NewTensor((float[])null)),
                Null("NewZeros(null shape)", "shape", () => F(1).NewZeros(null)),
                Null("Sum(null dims)", "dims", () => F(1, 2).Sum((long[])null)),
                Null("Norm(p, null dims)", "dims", () => F(1, 2).Norm(2.0, (long[])null)),
                Null("new Tensor(null handle)", "handle", () => new Tensor((TensorHandle)null)),
                Null("Device.Parse(null)", "device", () => Device.Parse(null)),
                Null("Torch.SetRngState(null)", "state", () => Torch.SetRngState(null)),
                Null("Generator.SetState(null)", "state", () => { using (var g = new Generator()) g.SetState(null); }),
                Null("Randint(null shape, generator)", "shape",
                     () => Tensor.Randint(0, 3, null, (Generator)null)),
                Null("CudaEvent.ElapsedTime(null)", "end", () => { using (var e = new CudaEvent(true)) e.ElapsedTime(null); }),
                Null("new CudaEvent(null handle)", "handle", () => new CudaEvent((CudaEventHandle)null)),
                Null("new Generator(null handle)", "handle", () => new Generator((GeneratorHandle)null)),
                Null("JitFunction.Create(null code)", "code", () => JitFunction.Create(null)),
                Null("JitFunction.Call(null inputs)", "inputs", () => { using (var f = Jit()) f.Call((Tensor[])null); }),
                Null("JitFunction.CallOut(null outs)", "outs", () => { using (var f = Jit()) f.CallOut(null, F(1)); }),
                Null("MakeGraphed(null Func)", "fn", () => CudaGraph.MakeGraphed((Func<Tensor>)null, new[] { F(1) })),
                Null("FFT.Fft(null)", "input", () => FFT.Fft(null)),
                Null("Nvtx.Mark(null)", "msg", () => Nvtx.Mark(null)),
                Null("Nvtx.RangePush(null)", "msg", () => Nvtx.RangePush(null)),
                Null("CudaComm.Broadcast(null devices)", "devices", () => CudaComm.Broadcast(F(1), null)),
                Null("CudaComm.ReduceAdd(null)", "inputs", () => CudaComm.ReduceAdd(null)),
                Null("NcclComm.InitRank(null id)", "uniqueId", () => NcclComm.InitRank(1, null, 0)),
                Null("Cuda.LoadAllocator(null path)", "path", () => Cuda.LoadAllocator(null, "a", "f")),
                Null("Cuda.MemoryStat(null key)", "key", () => Cuda.MemoryStat(null)),
                Null("Cuda.SetRngState(null)", "state", () => Cuda.SetRngState(null)),
                Null("Cuda.SetRngStateAll(null)", "states", () => Cuda.SetRngStateAll(null)),
                Null("Cuda.SetSyncDebugMode(null string)", "mode", () => Cuda.SetSyncDebugMode((string)null)),

                // ---- disposed objects used again
                Disposed("disposed tensor: Dim", "tensor", () => GC.KeepAlive(Closed().Dim)),
                Disposed("disposed tensor: Shape", "tensor", () => GC.KeepAlive(Closed().Shape)),
                Disposed("disposed tensor: DType", "tensor", () => GC.KeepAlive(Closed().DType)),
                Disposed("disposed tensor: Add", "tensor", () => Closed().Add(1L)),
                Disposed("disposed tensor as the other operand", "other", () => F(1).Add(Closed())),
                Disposed("disposed tensor: in-place Mul_", "tensor", () => Closed().Mul_(2.0)),
                Disposed("disposed tensor: Sum", "tensor", () => Closed().Sum()),
                Disposed("disposed tensor: View", "tensor", () => Closed().View(2)),
                Disposed("disposed tensor: ToArray", "tensor", () => Closed().ToArray<float>()),
                Disposed("disposed tensor: ItemDouble", "tensor", () => Closed().ItemDouble()),
                Disposed("disposed tensor: Clone", "tensor", () => Closed().Clone()),
                Disposed("disposed tensor: To", "tensor", () => Closed().To(DType.Float64)),
                Disposed("disposed tensor: NewReference", "tensor", () => Closed().NewReference()),
                Disposed("disposed source of CopyFrom", "src", () => F(1, 2).CopyFrom(Closed())),
                Disposed("disposed argument of ExpandAs", "other", () => F(1).ExpandAs(Closed())),
                Disposed("disposed argument of To(Tensor)", "other", () => F(1).To(Closed())),
                Disposed("disposed element of Cat", "tensors", () => Tensor.Cat(F(1), Closed())),
                Disposed("disposed tensor: ZerosLike", "t", () => Tensor.ZerosLike(Closed())),
                Disposed("disposed condition of Where", "condition", () => Tensor.Where(Closed(), F(1), F(2))),
                Disposed("disposed operand of Matmul", "other", () => M(2, 2).Matmul(Closed())),
                Disposed("disposed input of FFT.Fft", "input", () => FFT.Fft(Closed())),
                Disposed("disposed tensor: Uniform_", "tensor", () => Closed().Uniform_()),
                Disposed("disposed generator: ManualSeed", "generator", () => Closed(new Generator()).ManualSeed(1)),
                Disposed("disposed generator passed to Rand", "generator",
                         () => Tensor.Rand(new long[] { 2 }, Closed(new Generator()))),
                Disposed("disposed event: Query", "event", () => Closed(new CudaEvent()).Query()),
                Disposed("disposed event: Record", "event", () => Closed(new CudaEvent()).Record()),
                Disposed("disposed end event of ElapsedTime", "end",
                         () => { using (var e = new CudaEvent(true)) e.ElapsedTime(Closed(new CudaEvent(true))); }),
                Disposed("disposed graph: Reset", "graph", () => Closed(new CudaGraph()).Reset()),
                Disposed("disposed graph: NewReference", "graph", () => Closed(new CudaGraph()).NewReference()),
                Disposed("disposed jit function: Call", "fn", () => Closed(Jit()).Call(F(1))),
                Disposed("disposed jit function: Name", "fn", () => GC.KeepAlive(Closed(Jit()).Name)),
                Disposed("disposed jit input", "inputs", () => { using (var f = Jit()) f.Call(Closed()); }),
                Disposed("disposed NcclComm: Rank", "comm", () => WithGraph(g =>
                    GC.KeepAlive(Closed(new NcclComm(new NcclCommHandle(RawOf(g), false))).Rank))),
                Disposed("disposed GraphedCallable: Run", "callable", () => WithGraph(g =>
                    Closed(new GraphedCallable(new GraphedCallableHandle(RawOf(g), false))).Run())),
                Disposed("disposed DisposeScope: Include", "DisposeScope",
                         () => Closed(DisposeScope.Begin()).Include(F(1))),

                // ---- objects of the wrong kind (a handle of another type) and released handles
                Status("tensor over an event's handle: Numel", StatusCode.InvalidHandle, "is not a ctorch tensor handle",
                       () => WithForeignTensor(t => GC.KeepAlive(t.Numel))),
                Status("tensor over an event's handle as an operand", StatusCode.InvalidHandle, "is not a ctorch tensor handle",
                       () => WithForeignTensor(t => F(1).Add(t))),
                Status("tensor over a released handle: Add", StatusCode.InvalidHandle, "already released",
                       () => WithReleasedTensor(t => t.Add(1L))),
                Status("tensor over a released handle: ToString", StatusCode.InvalidHandle, "already released",
                       () => WithReleasedTensor(t => t.ToString())),
                Prints("jit function over a graph's handle: ToString", "JitFunction(CT_ERR_INVALID_HANDLE)",
                       () => { string r = null; WithGraph(g => r = new JitFunction(new JitFunctionHandle(RawOf(g), false)).ToString()); return r; }),
                Prints("generator over a tensor's handle: ToString", "Generator(CT_ERR_INVALID_HANDLE)",
                       () => { using (Tensor t = F(1)) return new Generator(new GeneratorHandle(t.Handle.DangerousGetHandle(), false)).ToString(); }),
                Status("generator over a tensor's handle", StatusCode.InvalidHandle, "is not a ctorch generator handle",
                       () => { using (Tensor t = F(1)) new Generator(new GeneratorHandle(t.Handle.DangerousGetHandle(), false)).ManualSeed(1); }),
                Status("event over a generator's handle", StatusCode.InvalidHandle, "is not a ctorch event handle",
                       () => { using (var g = new Generator()) new CudaEvent(new CudaEventHandle(RawOf(g), false)).Query(); }),
                Status("graph over an event's handle", StatusCode.InvalidHandle, "is not a ctorch CUDA graph handle",
                       () => { using (var e = new CudaEvent()) new CudaGraph(new CudaGraphHandle(RawOf(e), false)).Pool(); }),
                Status("jit function over a graph's handle", StatusCode.InvalidHandle, "is not a ctorch jitted function handle",
                       () => WithGraph(g => GC.KeepAlive(new JitFunction(new JitFunctionHandle(RawOf(g), false)).Name))),
                Status("graphed callable over a graph's handle", StatusCode.InvalidHandle, "is not a ctorch graphed callable handle",
                       () => WithGraph(g => new GraphedCallable(new GraphedCallableHandle(RawOf(g), false)).Run())),
                Status("a tensor of another process's address space (FromHandle of a bad pointer)", StatusCode.InvalidHandle, "foreign or corrupted value 0x1000",
                       () => GC.KeepAlive(new Tensor(new TensorHandle(new IntPtr(0x1000), false)).Dim)),
                Arg("Tensor.FromHandle(zero)", typeof(ArgumentException), "invalid (zero) tensor handle",
                    () => Tensor.FromHandle(IntPtr.Zero)),
                Arg("CudaEvent.FromHandle(zero)", typeof(ArgumentException), "invalid (zero)",
                    () => CudaEvent.FromHandle(IntPtr.Zero)),

                // ---- wrong dtypes
                Status("Mean of an int64 tensor", StatusCode.DType, "could not infer output dtype", () => L(1, 2).Mean()),
                Status("Sub of bools", StatusCode.DType, "two bool tensors", () => B(true).Sub(B(false))),
                Status("Random_(0, 5) of a bool tensor", StatusCode.Argument, "out of bounds for Bool",
                       () => B(true, false).Random_(0, 5)),
                Status("Remainder of a complex tensor", StatusCode.DType, "not implemented for 'ComplexFloat'",
                       () => Tensor.Zeros(new long[] { 2 }, DType.Complex64).Remainder(2L)),
                Status("an unknown dtype code (99)", StatusCode.DType, "invalid dtype value 99", () => Tensor.Zeros(new long[] { 2 }, (DType)99)),
                Status("Add_(1.5) into an int64 tensor", StatusCode.DType, "can't be cast to the desired output type Long", () => L(1, 2).Add_(1.5)),
                Arg("ToArray<long> of a float32 tensor", typeof(ArgumentException), "float32", () => F(1).ToArray<long>()),
                Arg("Item<DateTime>", typeof(ArgumentException), "unsupported element type", () => F(1).Item<DateTime>()),
                Arg("DTypes.Of<decimal>", typeof(ArgumentException), "System.Decimal", () => DTypes.Of<decimal>()),
                Arg("Item<byte> of 300", typeof(OverflowException), "value 300 is outside the range of System.Byte",
                    () => F(300).Item<byte>()),
                Arg("Item<sbyte> of -200", typeof(OverflowException), "value -200 is outside the range of System.SByte",
                    () => L(-200).Item<sbyte>()),
                Arg("Item<int> of 2^40", typeof(OverflowException), "value 1099511627776 is outside the range of System.Int32",
                    () => L(1L << 40).Item<int>()),

                // ---- wrong shapes
                Status("Add of shapes [2] and [3]", StatusCode.Shape, "cannot be broadcast", () => F(1, 2).Add(F(1, 2, 3))),
                Status("Mm of vectors", StatusCode.Shape, "must be a matrix", () => F(1, 2).Mm(F(1, 2))),
                Status("Matmul [2,3] x [2,3]", StatusCode.Shape, "cannot be multiplied (2x3 and 2x3)", () => M(2, 3).Matmul(M(2, 3))),
                Status("View 4 elements as 5", StatusCode.Shape, "invalid for input of size 4", () => F(1, 2, 3, 4).View(5)),
                Status("View with two -1", StatusCode.Shape, "only one dimension can be inferred", () => F(1, 2, 3, 4).View(-1, -1)),
                Status("Expand [3] to [2]", StatusCode.Shape, "expanded size", () => F(1, 2, 3).Expand(2)),
                Status("Cat of [2,2] and [3]", StatusCode.Shape, "same number of dimensions", () => Tensor.Cat(M(2, 2), F(1, 2, 3))),
                Status("Stack of [2] and [3]", StatusCode.Shape, "equal size", () => Tensor.Stack(F(1, 2), F(1, 2, 3))),
                Status("Cat of nothing", StatusCode.Argument, "non-empty list", () => Tensor.Cat(new Tensor[0])),
                Status("ItemDouble of two elements", StatusCode.Shape, "2 elements cannot be converted", () => F(1, 2).ItemDouble()),
                Status("FromArray: 3 values for shape [2, 2]", StatusCode.BufferSize, "buffer has 12 bytes", () => Tensor.FromArray(new float[] { 1, 2, 3 }, 2, 2)),
                Status("FromBuffer: 3 bytes for one float", StatusCode.BufferSize, "buffer has 3 bytes",
                       () => { unsafe { byte* p = stackalloc byte[4]; Tensor.FromBuffer((IntPtr)p, 3, new long[] { 1 }, DType.Float32); } }),
                Arg("CopyTo an array too small", typeof(ArgumentException), "destination", () => F(1, 2, 3).CopyTo(new float[2])),
                Status("Dot of lengths 2 and 3", StatusCode.Shape, "same number of elements", () => F(1, 2).Dot(F(1, 2, 3))),
                Status("Where with unbroadcastable shapes", StatusCode.Shape, "cannot be broadcast", () => Tensor.Where(B(true, false), F(1, 2, 3), F(1))),

                // ---- wrong devices and device strings
                Status("Device.Parse(\"gpu\")", StatusCode.DeviceString, "gpu", () => Device.Parse("gpu")),
                Status("Device.Parse(\"cuda:x\")", StatusCode.DeviceString, "cuda:x", () => Device.Parse("cuda:x")),
                Status("Device.Parse(\"\")", StatusCode.DeviceString, "Invalid device string", () => Device.Parse("")),
                Status("Device.Parse(\"cuda:-1\")", StatusCode.DeviceString, "cuda:-1", () => Device.Parse("cuda:-1")),
                Arg("Device.CudaAt(-5)", typeof(ArgumentOutOfRangeException), "index", () => Device.CudaAt(-5)),
                Status("an unknown device type (7)", StatusCode.Argument, "invalid device type 7", () => Tensor.Zeros(new long[] { 2 }, DType.Float32, new Device((DeviceType)7))),
                Arg("Cuda.SetDevice(Device.Cpu)", typeof(ArgumentException), "device", () => Cuda.SetDevice(Device.Cpu)),
                Arg("a stream for the CPU", typeof(ArgumentException), "expected a CUDA device", () => new CudaStream(Device.Cpu)),
                NoCuda("To(cuda)", () => F(1).To(Device.Cuda)),
                NoCuda("Cuda()", () => F(1).Cuda()),
                NoCuda("Zeros on cuda", () => Tensor.Zeros(new long[] { 2 }, Device.Cuda)),
                NoCuda("To(\"cuda:0\")", () => F(1).To("cuda:0")),
                NoCuda("Cuda.SetDevice(0)", () => Cuda.SetDevice(0)),
                NoCuda("Cuda.Synchronize()", () => Cuda.Synchronize()),
                NoCuda("new CudaStream()", () => new CudaStream()),
                NoCuda("CudaStream.Current()", () => CudaStream.Current()),
                NoCuda("Cuda.MemoryAllocated()", () => Cuda.MemoryAllocated()),
                NoCuda("PinMemory()", () => F(1).PinMemory()),
                NoCuda("CudaEvent.Record()", () => { using (var e = new CudaEvent()) e.Record(); }),
                NoCuda("CudaGraph.CaptureBegin()", () => { using (var g = new CudaGraph()) g.CaptureBegin(); }),
                NoCuda("JitFunction.Call", () => { using (var f = Jit()) f.Call(F(1)); }),
                NoCuda("Cuda.CurrentBlasHandle()", () => Cuda.CurrentBlasHandle()),
                NoCuda("CufftPlanCache.Size", () => GC.KeepAlive(Cuda.CufftPlanCache.Size)),
                NoCuda("CudaComm.Broadcast", () => CudaComm.Broadcast(F(1), 0)),
                NoCuda("DeviceGuard(0)", () => new DeviceGuard(0)),
                NoCuda("Generator on cuda", () => new Generator(Device.Cuda)),
                NoCuda("Cuda.GetDeviceName(0)", () => Cuda.GetDeviceName(0)),

                // ---- out-of-range values: dims, indices, sizes, counts
                Status("Size(2) of a 2-d tensor", StatusCode.Index, "Dimension out of range", () => M(2, 3).Size(2)),
                Status("Stride(-3) of a 2-d tensor", StatusCode.Index, "but got -3", () => M(2, 3).Stride(-3)),
                Status("Sum(dim 2) of a 2-d tensor", StatusCode.Index, "Dimension out of range", () => M(2, 3).Sum(2)),
                Status("Transpose(0, 5)", StatusCode.Index, "but got 5", () => M(2, 3).Transpose(0, 5)),
                Status("Select(0, 10)", StatusCode.Index, "index 10 out of range", () => F(1, 2).Select(0, 10)),
                Status("this[-10]", StatusCode.Index, "index -10 out of range", () => GC.KeepAlive(F(1, 2)[-10])),
                Status("Narrow past the end", StatusCode.Index, "exceeds dimension size", () => F(1, 2, 3).Narrow(0, 1, 10)),
                Status("Slice with step 0", StatusCode.Argument, "step", () => F(1, 2, 3).Slice(0, 0, 3, 0)),
                Status("Unsqueeze(5)", StatusCode.Index, "Dimension out of range", () => F(1, 2).Unsqueeze(5)),
                Status("Squeeze(3)", StatusCode.Index, "Dimension out of range", () => F(1, 2).Squeeze(3)),
                Status("Flatten(1, 0)", StatusCode.Argument, "start_dim cannot come after end_dim", () => M(2, 3).Flatten(1, 0)),
                Status("Permute(0, 0)", StatusCode.Argument, "duplicate dims", () => M(2, 3).Permute(0, 0)),
                Status("ArgMax(dim 3)", StatusCode.Index, "Dimension out of range", () => F(1, 2).ArgMax(3)),
                Status("Max(dim) of an empty tensor", StatusCode.Shape, "non-zero size", () => Tensor.Zeros(0).Max(0)),
                Status("Cat(dim 4)", StatusCode.Index, "Dimension out of range", () => Tensor.Cat(new[] { F(1), F(2) }, 4)),
                Status("Zeros(-1)", StatusCode.Shape, "negative dimension -1", () => Tensor.Zeros(-1)),
                Status("Empty(2^61) floats", StatusCode.OutOfMemory, "more bytes than fit in int64", () => Tensor.Empty(1L << 61)),
                Status("Arange with step 0", StatusCode.Argument, "step", () => Tensor.Arange(0, 10, 0)),
                Status("Arange with a step of the wrong sign", StatusCode.Argument, "inconsistent with step sign", () => Tensor.Arange(0, 10, -1)),
                Status("Arange with an infinite step", StatusCode.Argument, "step", () => Tensor.Arange(0.0, 1.0, double.PositiveInfinity)),
                Status("Arange to NaN", StatusCode.Argument, "unsupported range", () => Tensor.Arange(0.0, double.NaN)),
                Status("Linspace with -1 steps", StatusCode.Argument, "non-negative", () => Tensor.Linspace(0, 1, -1)),
                Status("Eye(-2)", StatusCode.Argument, "greater or equal to 0", () => Tensor.Eye(-2)),
                Status("Randint with low == high", StatusCode.Argument, "'from' to be less than 'to'", () => Tensor.Randint(5, 5, new long[] { 2 })),
                Status("Uniform_ with from > to", StatusCode.Argument, "from=1 > to=0", () => F(1, 2).Uniform_(1, 0)),
                Status("Normal_ with a negative std", StatusCode.Argument, "std >= 0.0", () => F(1, 2).Normal_(0, -1)),
                Status("Bernoulli_ with p = 1.5", StatusCode.Argument, "p to be in [0, 1]", () => F(1, 2).Bernoulli_(1.5)),
                Status("Bernoulli_ with p = NaN", StatusCode.Argument, "p to be in [0, 1]", () => F(1, 2).Bernoulli_(double.NaN)),
                Status("Random_(5, 5)", StatusCode.Argument, "'from' to be less than 'to'", () => F(1, 2).Random_(5, 5)),
                Status("NumThreads = 0", StatusCode.Argument, "positive number of threads", () => Torch.NumThreads = 0),
                Status("NumThreads = -1", StatusCode.Argument, "positive number of threads", () => Torch.NumThreads = -1),
                Status("NumThreads = 2^30", StatusCode.Argument, "at most 4096", () =>
                {
                    int before = Torch.NumThreads;
                    try { Torch.NumThreads = 1 << 30; }
                    finally { if (Torch.NumThreads != before) Torch.NumThreads = before; }
                }),
                Status("Generator.SetState of 3 bytes", StatusCode.Argument, "wrong size", () => { using (var g = new Generator()) g.SetState(new byte[3]); }),
                Status("Torch.SetRngState of 17 bytes", StatusCode.Argument, "wrong size", () => Torch.SetRngState(new byte[17])),
                Arg("Cuda.SetSyncDebugMode(\"loud\")", typeof(ArgumentException), "loud", () => Cuda.SetSyncDebugMode("loud")),
                Status("SyncDebugMode 7", StatusCode.Argument, "invalid sync debug mode 7", () => Cuda.SetSyncDebugMode((SyncDebugMode)7)),
                Status("CudaSanitizer.Mode = 3", StatusCode.Argument, "unknown sanitizer mode 3", () => CudaSanitizer.Mode = (SanitizerMode)3),
                Status("FFT.Fft with n = 0", StatusCode.Argument, "Invalid number of data points (0)", () => FFT.Fft(F(1, 2), 0)),
                Status("FFT.Fft over dim 3", StatusCode.Index, "Dimension out of range", () => FFT.Fft(F(1, 2), null, 3)),
                Status("FFT.Fftfreq(-1)", StatusCode.Argument, "n must be positive", () => FFT.Fftfreq(-1)),
                Arg("Nvtx.Mark with a NUL", typeof(ArgumentException), "NUL", () => Nvtx.Mark("a\0b")),
                Status("JitFunction.Create of text that is no function", StatusCode.Argument, "Couldn't parse code", () => JitFunction.Create("not a function")),
                Status("JitFunction with 9 outputs", StatusCode.Argument, "1 to 8 outputs, got 9",
                    () => JitFunction.CreateMultiOutput(Scale, 9)),
                Arg("JitFunction with 0 outputs", typeof(ArgumentOutOfRangeException), "1 to 8 outputs",
                    () => JitFunction.CreateMultiOutput(Scale, 0)),
                Arg("JitFunction extra argument of an unsupported type", typeof(ArgumentException), "'a'",
                    () => JitFunction.Create(Scale, ("a", new object()))),
                Arg("JitFunction extra argument named null", typeof(ArgumentNullException), "kwargs",
                    () => JitFunction.Create(Scale, ((string)null, 1.0))),
                Arg("NcclComm unique id of 3 bytes", typeof(ArgumentException), "unique id", () => NcclComm.InitRank(1, new byte[3], 0)),
                Arg("NcclComm with a negative timeout", typeof(ArgumentOutOfRangeException), "timeout",
                    () => NcclComm.InitRank(1, new byte[NcclComm.UniqueIdBytes], 0, -1, TimeSpan.FromSeconds(-1))),
                Status("Cuda.LoadAllocator of a missing file", StatusCode.Argument, "cannot load the allocator library", () => Cuda.LoadAllocator("/nonexistent/alloc.so", "a", "f")),
                Arg("Cuda.LoadAllocator with a NUL", typeof(ArgumentException), "NUL", () => Cuda.LoadAllocator("a\0.so", "a", "f")),
                Status("Cuda.CachingAllocatorDelete of a pointer it never gave", StatusCode.Argument, "is not memory from",
                       () => Cuda.CachingAllocatorDelete(0x1234)),

                // ---- more null, foreign and closed objects
                Null("Gather(null)", "tensors", () => CudaComm.Gather(null)),
                Null("BroadcastOut(null outs)", "outs", () => CudaComm.BroadcastOut(F(1), null)),
                Null("ReduceAddCoalesced(a null row)", "inputs",
                     () => CudaComm.ReduceAddCoalesced(new IEnumerable<Tensor>[] { new[] { F(1) }, null })),
                Arg("ReduceAddCoalesced of ragged rows", typeof(ArgumentException), "row 1 has 2 tensors, row 0 has 1",
                    () => CudaComm.ReduceAddCoalesced(new IEnumerable<Tensor>[] { new[] { F(1) }, new[] { F(1), F(2) } })),
                Null("Scatter(null devices)", "devices", () => CudaComm.Scatter(F(1, 2), null)),
                Null("Cuda.SetRngStateAll(a null state)", "states", () => Cuda.SetRngStateAll(new byte[][] { null })),
                Arg("Cuda.SetRngStateAll(a state of 3 bytes)", typeof(ArgumentException), "state 0 has 3 bytes",
                    () => Cuda.SetRngStateAll(new[] { new byte[3] })),
                Null("MakeGraphed(null static inputs)", "staticInputs", () => CudaGraph.MakeGraphed(() => F(1), null)),
                Disposed("MakeGraphed(a disposed static input)", "staticInputs", () => CudaGraph.MakeGraphed(() => F(1), new[] { Closed() })),
                Null("CudaGraph.DebugDump(null)", "path", () => { using (var g = new CudaGraph()) g.DebugDump(null); }),
                Disposed("disposed graph: Capture", "graph", () => Closed(new CudaGraph()).Capture()),
                Disposed("disposed graph: DebugDump", "graph", () => Closed(new CudaGraph()).DebugDump("g.dot")),
                Status("graph over an event's handle: DebugDump", StatusCode.InvalidHandle, "is not a ctorch CUDA graph handle",
                       () => { using (var e = new CudaEvent()) new CudaGraph(new CudaGraphHandle(RawOf(e), false)).DebugDump("g.dot"); }),
                Null("Nvtx.Range(null format)", "format", () => Nvtx.Range(null, 1)),
                Null("DeviceGuard(null tensor)", "tensor", () => new DeviceGuard((Tensor)null)),
                Disposed("DeviceGuard(a disposed tensor)", "tensor", () => new DeviceGuard(Closed())),
                Null("RecordStream(null)", "stream", () => F(1).RecordStream(null)),
                Status("RecordStream(a stream over an event's handle)", StatusCode.InvalidHandle, "is not a ctorch stream handle",
                       () => { using (var e = new CudaEvent()) F(1).RecordStream(new CudaStream(new CudaStreamHandle(RawOf(e), false))); }),
                Status("a stream over an event's handle: Query", StatusCode.InvalidHandle, "is not a ctorch stream handle",
                       () => { using (var e = new CudaEvent()) new CudaStream(new CudaStreamHandle(RawOf(e), false)).Query(); }),
                Disposed("disposed stream: Query", "stream", () => { using (var e = new CudaEvent())
                    Closed(new CudaStream(new CudaStreamHandle(RawOf(e), false))).Query(); }),
                Status("CudaEvent.Wait on a stream over a generator's handle", StatusCode.InvalidHandle, "is not a ctorch stream handle",
                       () => { using (var g = new Generator()) using (var e = new CudaEvent()) e.Wait(new CudaStream(new CudaStreamHandle(RawOf(g), false))); }),
                Null("JitFunction.CallOut(a null output)", "outs", () => { using (var f = Jit()) f.CallOut(new Tensor[] { null }, F(1)); }),
                Disposed("JitFunction.CallOut(a disposed output)", "outs", () => { using (var f = Jit()) f.CallOut(new[] { Closed() }, F(1)); }),
                Arg("JitFunction extra argument with an empty name", typeof(ArgumentException), "empty name",
                    () => JitFunction.Create(Scale, ("", 1.0))),
                Arg("JitFunction extra argument with a NUL in its name", typeof(ArgumentException), "NUL",
                    () => JitFunction.Create(Scale, ("a\0", 1.0))),
                Status("JitFunction extra argument given twice", StatusCode.Argument, "twice",
                       () => JitFunction.Create(Scale, ("a", 1.0), ("a", 2.0))),
                Disposed("DisposeScope.MoveToOuter after Dispose", "DisposeScope", () => Closed(DisposeScope.Begin()).MoveToOuter(F(1))),
                Disposed("DisposeScope.Detach after Dispose", "DisposeScope", () => Closed(DisposeScope.Begin()).Detach(F(1))),
                Arg("new Device(cpu, -2)", typeof(ArgumentOutOfRangeException), "index", () => new Device(DeviceType.Cpu, -2)),

                // ---- null pointers and buffer sizes through the pointer overloads
                Status("FromBuffer(IntPtr.Zero)", StatusCode.NullPointer, "data is NULL", () => Tensor.FromBuffer(IntPtr.Zero, 4, new long[] { 1 }, DType.Float32)),
                Status("CopyTo(IntPtr.Zero, 8)", StatusCode.NullPointer, "data is NULL", () => F(1, 2).CopyTo(IntPtr.Zero, 8)),
                Status("CopyTo(ptr, 4) of two floats", StatusCode.BufferSize, "buffer has 4 bytes",
                       () => { unsafe { byte* p = stackalloc byte[8]; F(1, 2).CopyTo((IntPtr)p, 4); } }),
                Arg("FromArray of an object array", typeof(ArgumentException), "System.Object", () => Tensor.FromArray((Array)new object[2])),

                // ---- NaN and infinity where they mean nothing; values that do not fit the dtype
                Status("Full(NaN) as int64", StatusCode.Argument, "value cannot be converted", () => Tensor.Full(new long[] { 2 }, double.NaN, DType.Int64)),
                Status("Full(+inf) as int32", StatusCode.Argument, "value cannot be converted", () => Tensor.Full(new long[] { 2 }, double.PositiveInfinity, DType.Int32)),
                Status("Full(1e20) as int32", StatusCode.Argument, "value cannot be converted", () => Tensor.Full(new long[] { 2 }, 1e20, DType.Int32)),
                Status("Fill_(NaN) of an int64 tensor", StatusCode.Argument, "value cannot be converted", () => L(1, 2).Fill_(double.NaN)),
                Status("Scalar(NaN) as int64", StatusCode.Argument, "value cannot be converted", () => Tensor.Scalar(double.NaN, DType.Int64)),
                Status("Arange to +inf", StatusCode.Argument, "unsupported range", () => Tensor.Arange(0.0, double.PositiveInfinity)),
                Status("Arange from -inf", StatusCode.Argument, "unsupported range", () => Tensor.Arange(double.NegativeInfinity, 0.0)),
                Status("Uniform_ from NaN", StatusCode.Argument, "[from, to) range", () => F(1, 2).Uniform_(double.NaN, 1)),
                Status("Uniform_ to +inf", StatusCode.Argument, "to-from to exceed the limit", () => F(1, 2).Uniform_(0, double.PositiveInfinity)),
                Status("Normal_ with std NaN", StatusCode.Argument, "std >= 0.0", () => F(1, 2).Normal_(0, double.NaN)),
                Status("Linspace with 2^62 steps", StatusCode.OutOfMemory, "more bytes than fit in int64", () => Tensor.Linspace(0, 1, 1L << 62)),
                Status("Randint of shape [-1]", StatusCode.Shape, "negative dimension -1", () => Tensor.Randint(0, 10, new long[] { -1 })),
                Status("View(-2)", StatusCode.Shape, "invalid shape dimension -2", () => F(1, 2).View(-2)),
                Status("Expand(-2)", StatusCode.Shape, "-2", () => F(1).Expand(-2)),
                Status("Narrow with a negative length", StatusCode.Argument, "length must be non-negative", () => F(1, 2, 3).Narrow(0, 1, -1)),
                Status("Slice with a negative step", StatusCode.Argument, "step must be positive", () => F(1, 2, 3).Slice(0, 0, 3, -1)),
                Status("Eye(2^40) floats", StatusCode.Shape, "more elements than fit in int64", () => Tensor.Eye(1L << 40)),
                Status("an FftNorm of 7", StatusCode.Argument, "Invalid normalization mode: 7", () => FFT.Fft(F(1, 2), null, -1, (FftNorm)7)),
                Status("Generator.SetState with an offset not a multiple of 4", StatusCode.Argument, "invalid Philox offset 3",
                       () => { using (var g = new Generator()) { byte[] st = g.GetState(); st[8] = 3; g.SetState(st); } }),
                NoCuda("Cuda.SetPerProcessMemoryFraction(NaN)", () => Cuda.SetPerProcessMemoryFraction(double.NaN)),
                Status("Cuda.CachingAllocatorAlloc(-1)", StatusCode.Argument, "size must be positive", () => Cuda.CachingAllocatorAlloc(-1)),
                NoCuda("Generator.Default(cuda)", () => Generator.Default(Device.Cuda)),
                NoCuda("Cuda.GetRngState(3)", () => Cuda.GetRngState(3)),
                NoCuda("Cuda.MemoryStat of an unknown key", () => Cuda.MemoryStat("no.such.key")),
                NoCuda("Cuda.CanDeviceAccessPeer(0, -1)", () => Cuda.CanDeviceAccessPeer(0, -1)),
                Status("CudaEvent.ElapsedTime of unrecorded events", StatusCode.State, "must be recorded", () => { using (var a = new CudaEvent(true)) using (var b = new CudaEvent(true)) a.ElapsedTime(b); }),
                NoCuda("NcclComm.GetUniqueId()", () => NcclComm.GetUniqueId()),
                NoCuda("NcclComm.InitRank(0 ranks)", () => NcclComm.InitRank(0, new byte[NcclComm.UniqueIdBytes], 0)),

                // ---- extreme integers (overflow in size and index arithmetic)
                Status("Narrow(0, long.MaxValue, 2)", StatusCode.Index, "but got 9223372036854775807", () => F(1, 2, 3).Narrow(0, long.MaxValue, 2)),
                Status("Narrow(0, 1, long.MaxValue)", StatusCode.Index, "exceeds dimension size", () => F(1, 2, 3).Narrow(0, 1, long.MaxValue)),
                Status("Narrow(0, long.MinValue, 1)", StatusCode.Index, "but got -9223372036854775808", () => F(1, 2, 3).Narrow(0, long.MinValue, 1)),
                Status("Select(0, long.MinValue)", StatusCode.Index, "index -9223372036854775808 out of range", () => F(1, 2, 3).Select(0, long.MinValue)),
                Status("Select(0, long.MaxValue)", StatusCode.Index, "index 9223372036854775807 out of range", () => F(1, 2, 3).Select(0, long.MaxValue)),
                Status("Size(int.MinValue)", StatusCode.Index, "but got -2147483648", () => F(1, 2, 3).Size(int.MinValue)),
                Status("Transpose(int.MinValue, 0)", StatusCode.Index, "but got -2147483648", () => M(2, 2).Transpose(int.MinValue, 0)),
                Status("Unsqueeze(int.MaxValue)", StatusCode.Index, "but got 2147483647", () => F(1).Unsqueeze(int.MaxValue)),
                Status("Cat(dim int.MinValue)", StatusCode.Index, "but got -2147483648", () => Tensor.Cat(new[] { F(1), F(2) }, int.MinValue)),
                Status("Sum over dims {long.MinValue}", StatusCode.Index, "but got -9223372036854775808", () => F(1, 2).Sum(new[] { long.MinValue })),
                Status("Permute(long.MaxValue)", StatusCode.Index, "but got 9223372036854775807", () => F(1, 2).Permute(long.MaxValue)),
                Status("Zeros(long.MaxValue, 2)", StatusCode.Shape, "more elements than fit in int64", () => Tensor.Zeros(long.MaxValue, 2)),
                Status("Empty(long.MaxValue)", StatusCode.OutOfMemory, "more bytes than fit in int64", () => Tensor.Empty(long.MaxValue)),
                Status("Arange(long.MinValue, long.MaxValue)", StatusCode.Argument, "invalid number of elements", () => Tensor.Arange(long.MinValue, long.MaxValue)),
                Status("Arange(0, long.MaxValue, 1) as int64", StatusCode.Argument, "invalid number of elements", () => Tensor.Arange(0, long.MaxValue)),
                Status("View(long.MaxValue, 2) of 2 elements", StatusCode.Shape, "invalid for input of size 2", () => F(1, 2).View(long.MaxValue, 2)),
                Status("Reshape(-1, 0) of 2 elements", StatusCode.Shape, "invalid for input of size 2", () => F(1, 2).Reshape(-1, 0)),
                Status("FromArray(4 values, shape [2^62, 4])", StatusCode.Shape, "more elements than fit in int64", () => Tensor.FromArray(new float[4], 1L << 62, 4)),
                Status("FFT.Fft with n = long.MaxValue", StatusCode.OutOfMemory, "more bytes than fit in int64", () => FFT.Fft(F(1, 2), long.MaxValue)),
                Status("Randint(long.MinValue, long.MaxValue) of shape [2^62]", StatusCode.OutOfMemory, "more bytes than fit in int64",
                       () => Tensor.Randint(long.MinValue, long.MaxValue, new long[] { 1L << 62 })),
                Status("Random_(long.MinValue, long.MaxValue) of an int8 tensor", StatusCode.Argument, "out of bounds for Char",
                       () => Tensor.Zeros(new long[] { 2 }, DType.Int8).Random_(long.MinValue, long.MaxValue)),
                Status("Generator.SetState with offset -2^63", StatusCode.Argument, "non-negative multiple of 4",
                       () => { using (var g = new Generator()) { byte[] st = g.GetState(); for (int i = 8; i < 15; i++) st[i] = 0; st[15] = 0x80; g.SetState(st); } }),
                Arg("FromArray of a jagged array", typeof(ArgumentException), "System.Single[]", () => Tensor.FromArray((Array)new float[2][])),

                // ---- arguments of objects that exist only over foreign handles here
                Null("GraphedCallable.Run(null array)", "inputs", () => WithGraph(g =>
                    new GraphedCallable(new GraphedCallableHandle(RawOf(g), false)).Run(null))),
                Null("GraphedCallable.Run(a null input)", "inputs", () => WithGraph(g =>
                    new GraphedCallable(new GraphedCallableHandle(RawOf(g), false)).Run(new Tensor[] { null }))),
                Null("CudaStream.WaitStream(null)", "other", () => { using (var e = new CudaEvent())
                    new CudaStream(new CudaStreamHandle(RawOf(e), false)).WaitStream(null); }),
                Null("CudaStream.WaitEvent(null)", "cudaEvent", () => { using (var e = new CudaEvent())
                    new CudaStream(new CudaStreamHandle(RawOf(e), false)).WaitEvent(null); }),
                Null("CudaStream.MemoryStat(null)", "key", () => { using (var e = new CudaEvent())
                    new CudaStream(new CudaStreamHandle(RawOf(e), false)).MemoryStat(null); }),
                Null("NcclComm.AllReduce(null)", "tensor", () => WithGraph(g =>
                    new NcclComm(new NcclCommHandle(RawOf(g), false)).AllReduce(null))),
                Null("NcclComm.AllGather(null output)", "output", () => WithGraph(g =>
                    new NcclComm(new NcclCommHandle(RawOf(g), false)).AllGather(null, F(1)))),
                Disposed("NcclComm.Send(a disposed tensor)", "tensor", () => WithGraph(g =>
                    new NcclComm(new NcclCommHandle(RawOf(g), false)).Send(Closed(), 0))),
                Disposed("NcclComm.AllReduce on a disposed stream", "stream", () => WithGraph(g => { using (var e = new CudaEvent())
                    new NcclComm(new NcclCommHandle(RawOf(g), false)).AllReduce(F(1), NcclComm.ReduceOp.Sum,
                        Closed(new CudaStream(new CudaStreamHandle(RawOf(e), false)))); })),
                Null("CudaComm.ScatterOut(null outs)", "outs", () => CudaComm.ScatterOut(F(1, 2), null)),
                Arg("CudaComm.ScatterOut with 2 streams for 1 output", typeof(ArgumentException), "streams has 2 entries",
                    () => CudaComm.ScatterOut(F(1, 2), new[] { F(1) }, 0, new CudaStream[2])),
                Null("CudaComm.GatherOut(null output)", "output", () => CudaComm.GatherOut(new[] { F(1) }, null)),
            };
            rows.AddRange(Races());
            return rows.ToArray();
        }

        // ------------------------------------------------------------ closing during use

        // Runs body on three threads, and close on this one once all three have started (after
        // sleeping for pause ms); returns the first exception a thread let escape, or null.
        private static Exception WhileThreeThreadsRun(Action body, Action close, int pause)
        {
            Exception bad = null;
            int started = 0;
            var threads = new Thread[3];
            for (int i = 0; i < threads.Length; i++)
            {
                threads[i] = new Thread(() =>
                {
                    Interlocked.Increment(ref started);
                    try { body(); }
                    catch (Exception e) { Interlocked.CompareExchange(ref bad, e, null); }
                });
                threads[i].Start();
            }
            while (Volatile.Read(ref started) < threads.Length) Thread.Yield();
            if (pause > 0) Thread.Sleep(pause);
            close();
            foreach (Thread t in threads) t.Join();
            return bad;
        }

        // Three threads use the object while this thread closes it: each use succeeds or throws
        // ObjectDisposedException, nothing else; a use after the close throws it. Twenty rounds.
        private static void CloseDuringUse<T>(Func<T> make, Action<T> use, Action<T> close) where T : class
        {
            for (int round = 0; round < 20; round++)
            {
                T o = make();
                Exception bad = WhileThreeThreadsRun(() =>
                {
                    try { for (int k = 0; k < 2000; k++) use(o); }
                    catch (ObjectDisposedException) { }
                }, () => close(o), round % 3);
                if (bad != null) throw new AssertionException("a use raced with Dispose threw " + bad.GetType().Name + ": " + bad.Message);
                var after = Assert.Throws<ObjectDisposedException>(() => use(o), "a use after Dispose");
                Assert.IsNotEmpty(after.Message);
            }
        }

        // ToString of an object that another thread disposes meanwhile never throws: it prints
        // the object or "Kind(disposed)". 3 threads print while this one disposes; 200 rounds.
        private static void PrintDuringClose<T>(Func<T> make, string disposed) where T : class, IDisposable
        {
            for (int round = 0; round < 200; round++)
            {
                T o = make();
                Exception bad = WhileThreeThreadsRun(() =>
                {
                    for (int k = 0; k < 10000 && o.ToString() != disposed; k++) { }
                }, o.Dispose, 0);
                if (bad != null) throw new AssertionException("ToString raced with Dispose threw " + bad.GetType().Name + ": " + bad.Message);
                Assert.AreEqual(disposed, o.ToString());
            }
        }

        private static IEnumerable<Row> Races()
        {
            yield return Race("print a tensor while it is disposed", () => PrintDuringClose(() => Tensor.Ones(2), "Tensor(disposed)"));
            yield return Race("print a generator while it is disposed", () => PrintDuringClose(() => new Generator(), "Generator(disposed)"));
            yield return Race("print a jit function while it is disposed", () => PrintDuringClose(() => Jit(), "JitFunction(disposed)"));
            yield return Race("close a tensor while 3 threads add to it", () => CloseDuringUse(
                () => Tensor.Ones(16), t => t.Add(1L).Dispose(), t => t.Dispose()));
            yield return Race("close a tensor while 3 threads reduce and print it", () => CloseDuringUse(
                () => Tensor.Ones(4, 4), t => { t.Sum(0).Dispose(); GC.KeepAlive(t.ToString()); }, t => t.Dispose()));
            yield return Race("close an operand while 3 threads cat it", () => CloseDuringUse(
                () => Tensor.Ones(3), t => { using (Tensor a = Tensor.Ones(3)) Tensor.Cat(a, t).Dispose(); }, t => t.Dispose()));
            yield return Race("close a tensor while 3 threads view it", () => CloseDuringUse(
                () => Tensor.Ones(2, 3), t => t.Transpose(0, 1).Dispose(), t => t.Dispose()));
            yield return Race("close a tensor while 3 threads copy into it", () => CloseDuringUse(
                () => Tensor.Ones(8), t => { using (Tensor s = Tensor.Zeros(8)) t.CopyFrom(s); }, t => t.Dispose()));
            yield return Race("close a tensor while 3 threads copy it out", () => CloseDuringUse(
                () => Tensor.Ones(8), t => GC.KeepAlive(t.ToArray<float>()), t => t.Dispose()));
            yield return Race("close a generator while 3 threads draw from it", () => CloseDuringUse(
                () => new Generator().ManualSeed(1), g => Tensor.Rand(new long[] { 4 }, g).Dispose(), g => g.Dispose()));
            yield return Race("close a generator while 3 threads read its state", () => CloseDuringUse(
                () => new Generator(), g => GC.KeepAlive(g.GetState()), g => g.Dispose()));
            yield return Race("close an event while 3 threads query it", () => CloseDuringUse(
                () => new CudaEvent(), e => e.Query(), e => e.Dispose()));
            yield return Race("close a graph while 3 threads take references", () => CloseDuringUse(
                () => new CudaGraph(), g => g.NewReference().Dispose(), g => g.Dispose()));
            yield return Race("close a jit function while 3 threads read its name", () => CloseDuringUse(
                () => Jit(), f => GC.KeepAlive(f.Name), f => f.Dispose()));
            yield return GpuRace("close a stream while 3 threads query and synchronize it", () => CloseDuringUse(
                () => new CudaStream(), st => { st.Query(); st.Synchronize(); }, st => st.Dispose()));
            yield return GpuRace("close an event while 3 threads record and query it", () => CloseDuringUse(
                () => new CudaEvent(), e => { e.Record(); e.Query(); }, e => e.Dispose()));
            yield return GpuRace("close a CUDA tensor while 3 threads add to it", () => CloseDuringUse(
                () => Tensor.Ones(new long[] { 16 }, Device.Cuda), t => t.Add(1L).Dispose(), t => t.Dispose()));
            yield return GpuRace("close a CUDA generator while 3 threads draw from it", () => CloseDuringUse(
                () => new Generator(Device.Cuda), g => Tensor.Rand(new long[] { 4 }, DType.Float32, Device.Cuda, g).Dispose(),
                g => g.Dispose()));
        }

        // ------------------------------------------------------------ running a row

        private long _graphs, _graphed, _comms, _jits;

        [SetUp]
        public void StartOtherCounts()
        {
            _graphs = Torch.LiveCudaGraphCount;
            _graphed = Torch.LiveGraphedCallableCount;
            _comms = Torch.LiveNcclCommCount;
            _jits = Torch.LiveJitFunctionCount;
        }

        [TearDown]
        public void EndOtherCounts()
        {
            // (the tensor, stream, event and generator counts: TestBase)
            Settle();
            Assert.AreEqual(_graphs, Torch.LiveCudaGraphCount, "live CUDA graph count after the row");
            Assert.AreEqual(_graphed, Torch.LiveGraphedCallableCount, "live graphed callable count after the row");
            Assert.AreEqual(_comms, Torch.LiveNcclCommCount, "live NCCL communicator count after the row");
            Assert.AreEqual(_jits, Torch.LiveJitFunctionCount, "live jitted function count after the row");
        }

        [Test]
        public void TheCorpusHasAtLeast100Rows()
        {
            Row[] rows = Table();
            Assert.GreaterOrEqual(rows.Length, 100);
            CollectionAssert.AllItemsAreUnique(rows.Select(r => r.Name).ToArray(), "row names");
        }

        [TestCaseSource("Rows")]
        public void BadInput(Row row)
        {
            if (row.NoGpuOnly && Cuda.IsAvailable)
                Assert.Ignore("checks the CUDA-unavailable error, and this machine has a GPU");
            if (row.GpuOnly) RequireGpu();
            if (row.Error == null)
            {
                row.Call();
                return;
            }
            Exception e = null;
            try { row.Call(); }
            catch (Exception x) { e = x; }
            if (row.CBug == null)
            {
                Expect(row, e);
                return;
            }
            // A known C-layer problem: skipped (visibly, with what happened) until the C layer
            // gives the expected error.
            try { Expect(row, e); }
            catch (AssertionException)
            {
                Assert.Ignore("known C-layer problem, reported: " + row.CBug + "; now: " +
                              (e == null ? "no exception" : e.GetType().Name + ": " + e.Message));
            }
        }

        private static void Expect(Row row, Exception e)
        {
            Assert.IsNotNull(e, row.Name + ": no exception");
            Assert.AreEqual(row.Error, e.GetType(), row.Name + ": threw " + e.GetType().Name + ": " + e.Message);
            Assert.IsFalse(string.IsNullOrEmpty(e.Message), "empty message");
            if (e is ArgumentNullException an)
            {
                Assert.AreEqual(row.Fragment, an.ParamName, "parameter name; message: " + e.Message);
            }
            else if (e is ObjectDisposedException od)
            {
                Assert.AreEqual(row.Fragment, od.ObjectName, "object name; message: " + e.Message);
                StringAssert.Contains("disposed", e.Message);
            }
            else if (e is CtorchException ce)
            {
                Assert.AreEqual(row.Code, ce.Code, "code; message: " + e.Message);
                Assert.AreEqual(Torch.StatusName(row.Code), ce.StatusName);
                Assert.IsFalse(string.IsNullOrEmpty(ce.NativeMessage), "the native message is empty");
                StringAssert.Contains(row.Fragment, ce.NativeMessage);
            }
            else
            {
                StringAssert.Contains(row.Fragment, e.Message);
            }
        }
    }

    /// <summary>Finalizers racing explicit Dispose (category "gc": a process of its own, with
    /// the conservative-scan residue allowed, see GcFixture).</summary>
    [TestFixture]
    [Category("gc")]
    public class FinalizerRaceTests : GcFixture
    {
        // Bases dropped (their finalizers release them) while other threads dispose their views
        // and NewReferences and a third thread collects: the storage outlives every view, no
        // release happens twice.
        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void DropBasesDisposeViews(int n)
        {
            var views = new Tensor[n];
            for (int i = 0; i < n; i++)
            {
                Tensor t = Tensor.Arange(6L).View(2, 3);
                views[i] = (i % 2 == 0) ? t.Transpose(0, 1) : t.NewReference();
                // t is dropped here
            }
            bool done = false;
            var collector = new Thread(() =>
            {
                while (!Volatile.Read(ref done)) { GC.Collect(); GC.WaitForPendingFinalizers(); }
            });
            collector.Start();
            var disposers = new Thread[2];
            for (int k = 0; k < disposers.Length; k++)
            {
                int first = k;
                disposers[k] = new Thread(() =>
                {
                    for (int i = first; i < n; i += disposers.Length)
                    {
                        long sum = views[i].Sum().ItemLong();
                        if (sum != 15) throw new InvalidOperationException("a view of a dropped base read " + sum);
                        views[i].Dispose();
                    }
                });
                disposers[k].Start();
            }
            foreach (Thread d in disposers) d.Join();
            Volatile.Write(ref done, true);
            collector.Join();
        }

        [Test]
        public void DroppedBasesAndDisposedViewsRace()
        {
            long start = StartCount;
            OnOwnThread(() => DropBasesDisposeViews(3000));
            long left = WaitForCount(start) - start;
            Assert.That(left, Is.InRange(0L, Residue), "tensors still alive");
        }

        // Of each pair of objects for one native object (NewReference), one is disposed on a
        // worker thread while the other is dropped for the finalizer, with collections running.
        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void HalfDisposedHalfDropped<T>(int n, Func<T> make, Func<T, T> another) where T : class, IDisposable
        {
            var kept = new T[n];
            for (int i = 0; i < n; i++)
            {
                T o = make();
                T p = another(o);
                kept[i] = (i % 2 == 0) ? o : p;   // the other one is dropped
            }
            var disposer = new Thread(() => { foreach (T o in kept) o.Dispose(); });
            disposer.Start();
            for (int i = 0; i < 20; i++) { GC.Collect(); GC.WaitForPendingFinalizers(); }
            disposer.Join();
        }

        [TestCase("tensors")]
        [TestCase("events")]
        [TestCase("generators")]
        [TestCase("graphs")]
        [TestCase("jit functions")]
        public void DisposeRacesTheFinalizerOfASecondReference(string kind)
        {
            Func<long> count = LiveCount(kind);
            long start = count();
            OnOwnThread(() =>
            {
                const int n = 2000;
                if (kind == "tensors") HalfDisposedHalfDropped(n, () => Tensor.Ones(3), t => t.NewReference());
                else if (kind == "events") HalfDisposedHalfDropped(n, () => new CudaEvent(), e => e.NewReference());
                else if (kind == "graphs") HalfDisposedHalfDropped(n, () => new CudaGraph(), g => g.NewReference());
                else if (kind == "jit functions")
                    HalfDisposedHalfDropped(n, () => JitFunction.Create("template <typename T> T f(T x) { return x; }"), f => f.NewReference());
                else HalfDisposedHalfDropped(n, () => new Generator(), g => g.NewReference());
            });
            long left = WaitForCount(start, count) - start;
            Assert.That(left, Is.InRange(0L, Residue), kind + " still alive");
        }
    }
}
