// NVTX (section 22 of ctorch.h): torch.cuda.nvtx's marks and ranges for Nsight Systems.
using System;
using System.Threading;
using Ctorch.Swig;

namespace Ctorch
{
    /// <summary>
    /// torch.cuda.nvtx: marks and ranges that Nsight Systems (<c>nsys profile -t nvtx,cuda mono
    /// app.exe</c>) and other NVTX tools show on the timeline. No GPU is needed: without a
    /// profiler attached every call is a cheap no-op.
    /// <para>The values are NVTX's, passed through as torch does: <see cref="RangePush"/> and
    /// <see cref="RangePop"/> return the depth the tool reports (0 for the outermost range) and
    /// -2 (<see cref="NoPushPopTracking"/>) when no tool is attached; <see cref="RangeStart"/>
    /// returns the tool's range id, 0 without a tool.</para>
    /// <para>Pushed ranges nest per OS thread, so push and pop on the same thread;
    /// <see cref="Range(string)"/> does both around a block:</para>
    /// <code>
    /// using (Nvtx.Range($"step {i}"))
    /// {
    ///     var y = x * 2.0;
    /// }
    /// </code>
    /// <para>Messages reach the tool as UTF-8. A null message throws ArgumentNullException, one
    /// containing a NUL character (which would cut the C string short) ArgumentException.</para>
    /// </summary>
    public static class Nvtx
    {
        /// <summary>What push and pop return when no tool is attached
        /// (NVTX_NO_PUSH_POP_TRACKING).</summary>
        public const int NoPushPopTracking = -2;

        /// <summary>torch.cuda.nvtx.mark(msg): an instantaneous event.</summary>
        public static void Mark(string msg)
        {
            Cuda.CheckCString(msg, nameof(msg));
            Native.Check(ctorch.ct_nvtx_mark(msg));
        }

        /// <summary>torch.cuda.nvtx.range_push(msg): starts a nested range on this thread and
        /// returns its zero-based depth as the tool reports it (-2 without a tool).</summary>
        public static int RangePush(string msg)
        {
            Cuda.CheckCString(msg, nameof(msg));
            int depth;
            Native.Check(ctorch.ct_nvtx_range_push(msg, out depth));
            return depth;
        }

        /// <summary>torch.cuda.nvtx.range_pop(): ends this thread's innermost pushed range and
        /// returns its zero-based depth as the tool reports it (-2 without a tool; negative when
        /// the tool reports an error, such as a pop without a push).</summary>
        public static int RangePop()
        {
            int depth;
            Native.Check(ctorch.ct_nvtx_range_pop(out depth));
            return depth;
        }

        /// <summary>torch.cuda.nvtx.range_start(msg): starts a range that may end on any thread
        /// and returns the tool's id for <see cref="RangeEnd"/> (0 without a tool).</summary>
        public static ulong RangeStart(string msg)
        {
            Cuda.CheckCString(msg, nameof(msg));
            ulong id;
            Native.Check(ctorch.ct_nvtx_range_start(msg, out id));
            return id;
        }

        /// <summary>torch.cuda.nvtx.range_end(id): ends the range <see cref="RangeStart"/>
        /// returned.</summary>
        public static void RangeEnd(ulong id) => Native.Check(ctorch.ct_nvtx_range_end(id));

        /// <summary><c>with torch.cuda.nvtx.range(msg):</c> pushes a range now and pops it when
        /// disposed; use with <c>using</c>.</summary>
        public static Scope Range(string msg) => new Scope(RangePush(msg));

        /// <summary>torch.cuda.nvtx.range(msg, *args): the message is
        /// <c>string.Format(format, args)</c> (torch uses str.format, whose "{0}" fields are
        /// the same).</summary>
        public static Scope Range(string format, params object[] args)
        {
            if (format == null) throw new ArgumentNullException(nameof(format));
            return Range(string.Format(format, args));
        }

        /// <summary>A pushed range; Dispose pops it.</summary>
        public sealed class Scope : IDisposable
        {
            private readonly int _threadId = Thread.CurrentThread.ManagedThreadId;
            private bool _disposed;

            internal Scope(int depth) { Depth = depth; }

            /// <summary>The depth the push returned (-2 without a tool).</summary>
            public int Depth { get; }

            /// <summary>True once disposed.</summary>
            public bool IsDisposed => _disposed;

            /// <summary>Pops the range; calling it again does nothing. Must run on the thread
            /// that pushed it, since NVTX nests pushed ranges per thread
            /// (InvalidOperationException otherwise, and the range stays open).</summary>
            public void Dispose()
            {
                if (_disposed) return;
                if (Thread.CurrentThread.ManagedThreadId != _threadId)
                    throw new InvalidOperationException("an Nvtx.Scope must be disposed on the thread that created it " +
                                                        "(NVTX ranges nest per thread)");
                _disposed = true;
                RangePop();
            }
        }
    }
}
