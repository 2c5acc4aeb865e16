// The bad-input corpus by reflection (issue 19): every public method and constructor of the
// binding, called with null for each of its reference-type parameters that has no null default
// (ArgumentNullException naming that parameter), and every instance member of the disposable
// classes called on a disposed object (ObjectDisposedException), the other arguments valid.
using System;
using System.Collections.Generic;
using System.Linq;
using System.Reflection;
using Ctorch;
using NUnit.Framework;

namespace Ctorch.Tests
{
    [TestFixture]
    public class ApiSweepTests : TestBase
    {
        // Members that need no handle, or where null is documented: they may return normally.
        private static readonly HashSet<string> NullAllowed = new HashSet<string>
        {
            "Device.TryParse(device)",                  // false, by design
            "DisposeScope.Include(t)",                  // null is passed through (MoveToOuter, Detach too)
            "DisposeScope.MoveToOuter(t)",
            "DisposeScope.Detach(t)",
            "CudaStream.SetCurrent(stream)",            // 301 without a GPU: torch.cuda.set_stream(None) is a no-op
            "Cuda.SetStream(stream)",
            "StreamGuard..ctor(stream)",                // torch.cuda.stream(None) is a no-op
            "Cuda.UseStream(stream)",
            "CudaStream.Equals(other)",                 // equality with null is false
            "CudaStream.Equals(obj)",
            "CudaStream.op_Equality(a)",
            "CudaStream.op_Equality(b)",
            "CudaStream.op_Inequality(a)",
            "CudaStream.op_Inequality(b)",
            "Device.Equals(obj)",
            "Nvtx.Range(args)",                         // string.Format's null args
            "CudaSanitizer.SetCallback(callback)",      // null clears the callback
            "Tensor.FromArray(shape)",                  // null or no shape: 1-D of data.Length
            "Tensor.Rand(generator)",                   // null: the default generator (generator=None)
            "Tensor.Randn(generator)",
            "Tensor.Randint(generator)",
            "Tensor.Clamp(min)",                        // clamp by tensors: either bound may be None
            "Tensor.Clamp(max)",
        };

        private sealed class Made : IDisposable
        {
            private readonly List<IDisposable> _owned = new List<IDisposable>();
            public T Own<T>(T o) where T : IDisposable { _owned.Add(o); return o; }
            public void Dispose() { for (int i = _owned.Count - 1; i >= 0; i--) _owned[i].Dispose(); }
        }

        // A valid value of type t for an argument, or false when none can be made here.
        private static IntPtr Raw(Made m) => m.Own(new CudaEvent()).Handle.DangerousGetHandle();

        private static bool TryMake(Type t, Made m, out object v)
        {
            v = null;
            if (t == typeof(Tensor)) v = Tensor.FromArray(new float[] { 1, 2 });
            else if (t == typeof(Tensor[]) || t == typeof(IEnumerable<Tensor>)) v = new[] { Tensor.FromArray(new float[] { 1, 2 }) };
            else if (t == typeof(IEnumerable<IEnumerable<Tensor>>)) v = new[] { new[] { Tensor.FromArray(new float[] { 1, 2 }) } };
            else if (t == typeof(long[])) v = new long[] { 2 };
            else if (t == typeof(int[])) v = new[] { 0 };
            else if (t == typeof(string)) v = "x";
            else if (t == typeof(byte[])) v = new byte[Generator.StateSize];
            else if (t == typeof(IEnumerable<byte[]>)) v = new[] { new byte[Generator.StateSize] };
            else if (t == typeof(object[])) v = new object[0];
            else if (t == typeof((string, object)[])) v = new (string, object)[0];
            else if (t == typeof(IEnumerable<KeyValuePair<string, object>>)) v = new KeyValuePair<string, object>[0];
            else if (t == typeof(Generator)) v = m.Own(new Generator());
            else if (t == typeof(CudaEvent)) v = m.Own(new CudaEvent());
            else if (t == typeof(CudaGraph)) v = m.Own(new CudaGraph());
            else if (t == typeof(JitFunction)) v = m.Own(JitFunction.Create("template <typename T> T f(T x) { return x; }"));
            else if (t == typeof(Func<Tensor>)) v = (Func<Tensor>)(() => Tensor.Zeros(1));
            else if (t == typeof(Func<Tensor[]>)) v = (Func<Tensor[]>)(() => new[] { Tensor.Zeros(1) });
            else if (t == typeof(Action)) v = (Action)(() => { });
            else if (t == typeof(Action<string>)) v = (Action<string>)(s => { });
            else if (t == typeof(Array)) v = new float[] { 1, 2 };
            else if (t == typeof(float[])) v = new float[] { 1, 2 };
            else if (t == typeof(CudaStream[])) v = new CudaStream[1];   // null entries: the current stream
            else if (t == typeof(DisposeScope)) v = m.Own(DisposeScope.Begin());
            else if (t == typeof(IDictionary<string, Tensor>)) v = new Dictionary<string, Tensor>();
            else if (t == typeof(IDictionary<string, string>)) v = new Dictionary<string, string>();
            else if (t == typeof(SafeTensorsFile)) v = m.Own(SafeTensors.Load(SafeTensors.Save(new Dictionary<string, Tensor>())));
            // Without a GPU, objects over another kind's handle (not owned): the binding's null
            // checks come before any native call.
            else if (t == typeof(CudaStream)) v = new CudaStream(new CudaStreamHandle(Raw(m), false));
            else if (t == typeof(NcclComm)) v = new NcclComm(new NcclCommHandle(Raw(m), false));
            else if (t == typeof(GraphedCallable)) v = new GraphedCallable(new GraphedCallableHandle(Raw(m), false));
            else if (t == typeof(TensorHandle)) v = new TensorHandle();
            else if (t == typeof(SafeTensorsHandle)) v = new SafeTensorsHandle(Raw(m), false);
            else if (t == typeof(object)) v = 1;
            else if (t == typeof(Type)) v = typeof(float);
            else if (t.IsEnum) v = Enum.GetValues(t).GetValue(0);
            else if (t == typeof(Device)) v = Device.Cpu;
            else if (t == typeof(int)) v = 1;            // 1 output, device 1 ...: values the binding's own checks accept
            else if (t.IsValueType) v = Activator.CreateInstance(t);
            else return false;   // streams, communicators, graphed callables, other handles: only a GPU makes them
            return true;
        }

        // The classes whose Device parameters must be CUDA devices (checked before null).
        private static readonly Type[] CudaOnly = { typeof(Cuda), typeof(CudaStream), typeof(DeviceGuard), typeof(CufftPlanCache) };

        private static bool Sweepable(MethodBase mb) =>
            !mb.ContainsGenericParameters &&
            mb.GetParameters().All(p => !p.ParameterType.IsByRef && !p.ParameterType.IsPointer &&
                                        !p.ParameterType.Name.StartsWith("Span") && !p.ParameterType.Name.StartsWith("ReadOnlySpan"));

        private static IEnumerable<MethodBase> PublicMembers()
        {
            foreach (Type type in typeof(Tensor).Assembly.GetExportedTypes())
            {
                if (type.Namespace != "Ctorch" || typeof(Exception).IsAssignableFrom(type) || typeof(Delegate).IsAssignableFrom(type))
                    continue;
                const BindingFlags flags = BindingFlags.Public | BindingFlags.Instance | BindingFlags.Static | BindingFlags.DeclaredOnly;
                foreach (MethodInfo mi in type.GetMethods(flags))
                {
                    MethodBase mb = mi;
                    if (mi.IsGenericMethodDefinition)
                    {
                        if (mi.GetGenericArguments().Length != 1) continue;
                        try { mb = mi.MakeGenericMethod(typeof(float)); }
                        catch (ArgumentException) { continue; }
                    }
                    if (Sweepable(mb)) yield return mb;
                }
                if (!type.IsAbstract)
                    foreach (ConstructorInfo ci in type.GetConstructors()) if (Sweepable(ci)) yield return ci;
            }
        }

        private static string Name(MethodBase mb, ParameterInfo p) =>
            mb.DeclaringType.Name + "." + mb.Name + "(" + p.Name + ")";

        public static IEnumerable<TestCaseData> NullCases()
        {
            foreach (MethodBase mb in PublicMembers())
            {
                ParameterInfo[] ps = mb.GetParameters();
                for (int i = 0; i < ps.Length; i++)
                {
                    Type t = ps[i].ParameterType;
                    if (t.IsValueType) continue;
                    if (ps[i].HasDefaultValue && ps[i].DefaultValue == null) continue;   // documented default
                    string sig = string.Join(", ", ps.Select(p => p.ParameterType.Name));
                    yield return new TestCaseData(mb, i).SetName("NullSweep: " + mb.DeclaringType.Name + "." + mb.Name +
                                                                  "(" + sig + ") with null " + ps[i].Name);
                }
            }
        }

        private static object Receiver(MethodBase mb, Made m)
        {
            if (mb.IsStatic || mb is ConstructorInfo) return null;
            object r;
            if (!TryMake(mb.DeclaringType, m, out r)) Assert.Ignore("no " + mb.DeclaringType.Name + " made here");
            return r;
        }

        private static Exception Invoke(MethodBase mb, object target, object[] args)
        {
            try
            {
                if (mb is ConstructorInfo ci) { object o = ci.Invoke(args); (o as IDisposable)?.Dispose(); }
                else { object r = mb.Invoke(target, args); (r as IDisposable)?.Dispose(); }
                return null;
            }
            catch (TargetInvocationException e) { return e.InnerException; }
        }

        // The classes with a Dispose whose objects can be made here, and the members of theirs
        // that need no handle (they keep working on a disposed object).
        private static readonly Type[] Disposables =
        {
            typeof(Tensor), typeof(Generator), typeof(CudaEvent), typeof(CudaGraph), typeof(JitFunction),
            typeof(CudaStream), typeof(NcclComm), typeof(GraphedCallable), typeof(DisposeScope), typeof(SafeTensorsFile),
        };

        private static readonly HashSet<string> DisposedAllowed = new HashSet<string>
        {
            "Dispose", "get_IsDisposed", "get_Handle", "ToString", "Equals", "GetHashCode", "GetType",
            "GraphedCallable.get_StaticInputs", "GraphedCallable.get_Outputs",   // managed lists
            "DisposeScope.get_Count",                                            // managed: 0 after Dispose
        };

        public static IEnumerable<TestCaseData> DisposedCases()
        {
            foreach (MethodBase mb in PublicMembers())
            {
                if (mb.IsStatic || mb is ConstructorInfo || !Disposables.Contains(mb.DeclaringType)) continue;
                string sig = string.Join(", ", mb.GetParameters().Select(p => p.ParameterType.Name));
                yield return new TestCaseData(mb).SetName("DisposedSweep: " + mb.DeclaringType.Name + "." + mb.Name + "(" + sig + ")");
            }
        }

        [TestCaseSource("DisposedCases")]
        public void DisposedSweep(MethodBase mb)
        {
            ParameterInfo[] ps = mb.GetParameters();
            using (var m = new Made())
            {
                object target = Receiver(mb, m);
                ((IDisposable)target).Dispose();
                var args = new object[ps.Length];
                for (int i = 0; i < ps.Length; i++)
                {
                    if (ps[i].ParameterType == typeof(string) && ps[i].Name == "device") args[i] = "cpu";
                    else if (!TryMake(ps[i].ParameterType, m, out args[i]))
                        Assert.Ignore("no " + ps[i].ParameterType.Name + " made here");
                }
                Exception e = Invoke(mb, target, args);
                string name = mb.DeclaringType.Name + "." + mb.Name;
                if (DisposedAllowed.Contains(mb.Name) || DisposedAllowed.Contains(name))
                {
                    Assert.IsNull(e, name + " on a disposed object threw " + e?.GetType().Name + ": " + e?.Message);
                    return;
                }
                Assert.IsNotNull(e, name + ": no exception on a disposed object");
                Assert.IsInstanceOf<ObjectDisposedException>(e, name + ": threw " + e.GetType().Name + ": " + e.Message);
                StringAssert.Contains("disposed", e.Message);
            }
        }

        [TestCaseSource("NullCases")]
        public void NullSweep(MethodBase mb, int nullIndex)
        {
            ParameterInfo[] ps = mb.GetParameters();
            using (var m = new Made())
            {
                object target = Receiver(mb, m);
                var args = new object[ps.Length];
                for (int i = 0; i < ps.Length; i++)
                {
                    if (i == nullIndex) continue;
                    if (ps[i].ParameterType == typeof(Device) && CudaOnly.Contains(mb.DeclaringType))
                        args[i] = Device.Cuda;
                    else if (!TryMake(ps[i].ParameterType, m, out args[i]))
                        Assert.Ignore("no " + ps[i].ParameterType.Name + " made here");
                }
                Exception e = Invoke(mb, target, args);
                string name = Name(mb, ps[nullIndex]);
                if (NullAllowed.Contains(name))
                {
                    Assert.IsFalse(e is NullReferenceException, name + ": NullReferenceException");
                    return;
                }
                Assert.IsNotNull(e, name + ": no exception for null");
                Assert.IsInstanceOf<ArgumentNullException>(e, name + ": threw " + e.GetType().Name + ": " + e.Message);
                Assert.AreEqual(ps[nullIndex].Name, ((ArgumentNullException)e).ParamName, name + ": " + e.Message);
            }
        }
    }
}
