// torch.cuda.Event: CUDA events (section 14 of capi/ctorch.h).
using System;
using Ctorch.Swig;

namespace Ctorch
{
    /// <summary>
    /// A CUDA event, as torch.cuda.Event: a marker recorded on a stream, to wait for, query, or
    /// time. Each CudaEvent object owns one reference to a native event through its
    /// <see cref="CudaEventHandle"/>; <see cref="Dispose"/> releases it (the handle's finalizer
    /// does otherwise). Creating an event works without a GPU: the CUDA event itself is created at
    /// the first <see cref="Record"/>, on the recording stream's device; until then
    /// <see cref="Query"/> is true and <see cref="Synchronize"/> returns at once.
    /// </summary>
    public sealed class CudaEvent : NativeObject<CudaEventHandle>
    {
        /// <summary>Wraps a handle; the CudaEvent takes over its disposal.</summary>
        public CudaEvent(CudaEventHandle handle) : base(handle, "event", "CudaEvent") { }

        /// <summary>torch.cuda.Event(enable_timing, blocking): with enableTiming,
        /// <see cref="ElapsedTime"/> works (at a small cost); with blocking,
        /// <see cref="Synchronize"/> yields the CPU instead of spinning.</summary>
        public CudaEvent(bool enableTiming = false, bool blocking = false)
            : this(NewHandle((enableTiming ? EventFlags.EnableTiming : 0) | (blocking ? EventFlags.Blocking : 0))) { }

        private static CudaEventHandle NewHandle(int flags)
        {
            IntPtr r;
            Native.Check(ctorch.ct_event_create(flags, out r));
            return new CudaEventHandle(r, true);
        }

        /// <summary>Same as the constructor.</summary>
        public static CudaEvent Create(bool enableTiming = false, bool blocking = false) =>
            new CudaEvent(enableTiming, blocking);

        /// <summary>A CudaEvent for a raw ct_event handle that owns one reference.</summary>
        public static CudaEvent FromHandle(IntPtr handle) => new CudaEvent(new CudaEventHandle(handle, true));

        /// <summary>Another CudaEvent object for the same native event (ct_event_retain adds a
        /// reference): disposing one leaves the other usable.</summary>
        public CudaEvent NewReference()
        {
            using (var a = Use())
            {
                Native.Check(ctorch.ct_event_retain(a.Ptr));
                return new CudaEvent(new CudaEventHandle(a.Ptr, true));
            }
        }

        /// <summary>event.record(stream=None): records the event on stream (null: the current
        /// stream of the current device).</summary>
        public void Record(CudaStream stream = null)
        {
            using (var a = Use())
            using (var s = CudaStream.UseOrNull(stream, nameof(stream)))
            {
                Native.Check(ctorch.ct_event_record(a.Ptr, s.Ptr));
            }
        }

        /// <summary>event.wait(stream=None): work queued on stream (null: the current stream)
        /// after this call waits for the event. Does not block the host.</summary>
        public void Wait(CudaStream stream = null)
        {
            using (var a = Use())
            using (var s = CudaStream.UseOrNull(stream, nameof(stream)))
            {
                Native.Check(ctorch.ct_event_wait(a.Ptr, s.Ptr));
            }
        }

        /// <summary>event.query(): true when the recorded work is done (true for an event never
        /// recorded).</summary>
        public bool Query()
        {
            using (var a = Use()) return Out.Get<int>(ctorch.ct_event_query, a.Ptr) != 0;
        }

        /// <summary>event.synchronize(): waits until the recorded work is done.</summary>
        public void Synchronize()
        {
            using (var a = Use()) Native.Check(ctorch.ct_event_synchronize(a.Ptr));
        }

        /// <summary>event.elapsed_time(end): milliseconds from this event to end. Both must have
        /// been created with enableTiming and recorded, and end must be done (synchronize it);
        /// otherwise CtorchException with Code State.</summary>
        public double ElapsedTime(CudaEvent end)
        {
            using (var a = Use())
            using (var b = Use(end, nameof(end)))
            {
                double r;
                Native.Check(ctorch.ct_event_elapsed_time(a.Ptr, b.Ptr, out r));
                return r;
            }
        }

        public override string ToString() => IsDisposed ? "CudaEvent(disposed)" : "<torch.cuda.Event>";
    }
}
