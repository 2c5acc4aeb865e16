// Reading a C function's out-parameter, in one place: call it, turn a failing status into the
// exception (Native.Check), return the value. For the getters of the idiomatic layer, e.g.
// `public static long MemoryAllocated(int device = -1) => Out.Get<long>(ctorch.ct_cuda_memory_allocated, device);`.
using System;

namespace Ctorch
{
    internal static class Out
    {
        internal delegate int Call<T>(out T value);

        internal delegate int CallAt<T>(int index, out T value);

        internal delegate int CallOn<T>(IntPtr handle, out T value);

        /// <summary>The out-parameter of call().</summary>
        internal static T Get<T>(Call<T> call)
        {
            T r;
            Native.Check(call(out r));
            return r;
        }

        /// <summary>The out-parameter of call(handle) (a leased native handle).</summary>
        internal static T Get<T>(CallOn<T> call, IntPtr handle)
        {
            T r;
            Native.Check(call(handle, out r));
            return r;
        }

        /// <summary>The out-parameter of call(index) (a device index, -1 for the current one).</summary>
        internal static T Get<T>(CallAt<T> call, int index)
        {
            T r;
            Native.Check(call(index, out r));
            return r;
        }
    }
}
