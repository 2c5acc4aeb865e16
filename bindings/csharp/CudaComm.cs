// torch.cuda.comm: broadcast, reduce_add, scatter and gather between the GPUs of one process
// (section 20 of capi/ctorch.h; docs/csharp.md "Communication (NCCL)").
using System;
using System.Collections.Generic;
using System.Linq;
using Ctorch.Swig;

namespace Ctorch
{
    /// <summary>
    /// torch.cuda.comm: copies and reductions between the GPUs of this process, with PyTorch's
    /// argument rules and messages. Broadcast and ReduceAdd go through NCCL where PyTorch does (every
    /// tensor dense, contiguous and on a device of its own), the rest are copies on the current
    /// streams; results are ordered on the current streams of their devices (nothing waits for the
    /// host). Devices are CUDA device indices. Every returned Tensor is a new object that the caller
    /// owns (registered in the current <see cref="DisposeScope"/>); one on the source's own device is
    /// the source itself (Broadcast) or a view of it (Scatter), as in PyTorch. Null arrays or
    /// elements are ArgumentNullException, disposed tensors or streams ObjectDisposedException, arrays
    /// of mismatched lengths ArgumentException, all before any native call; the rest is the C
    /// layer's CtorchException (without CUDA: CudaUnavailable).
    /// </summary>
    public static class CudaComm
    {
        /// <summary>The bucket size of the *Coalesced functions when none is given (10 MiB,
        /// CT_COMM_DEFAULT_BUFFER_SIZE, torch's default).</summary>
        public static readonly long DefaultBufferSize = ctorch.CT_COMM_DEFAULT_BUFFER_SIZE;

        /// <summary>comm.broadcast(tensor, devices): tensor (CPU or CUDA) copied to each device;
        /// result i is on devices[i].</summary>
        public static Tensor[] Broadcast(Tensor tensor, params int[] devices)
        {
            if (devices == null) throw new ArgumentNullException(nameof(devices));
            using (var a = new Lease(tensor, nameof(tensor)))
            {
                var outs = new IntPtr[devices.Length];
                Native.Check(ctorch.ct_cuda_comm_broadcast(a.Ptr, devices, devices.Length, outs));
                return OwnAll(outs, outs.Length);
            }
        }

        /// <summary>comm.broadcast(tensor, out=outs): copies tensor into each of the CUDA tensors
        /// outs (of tensor's shape; another dtype converts).</summary>
        public static void BroadcastOut(Tensor tensor, params Tensor[] outs)
        {
            if (outs == null) throw new ArgumentNullException(nameof(outs));
            using (var a = new Lease(tensor, nameof(tensor)))
            using (var o = new MultiLease(outs, nameof(outs)))
            {
                Native.Check(ctorch.ct_cuda_comm_broadcast_out(a.Ptr, o.Ptrs, outs.Length));
            }
        }

        /// <summary>comm.broadcast_coalesced(tensors, devices, buffer_size): the tensors, all on
        /// devices[0], broadcast in buckets of about bufferSize bytes (&lt;= 0:
        /// <see cref="DefaultBufferSize"/>). result[d][i] is tensors[i] on devices[d]; result[0]
        /// holds the inputs themselves (new objects for the same tensors).</summary>
        public static Tensor[][] BroadcastCoalesced(IEnumerable<Tensor> tensors, int[] devices, long bufferSize = 0)
        {
            Tensor[] ts = ToArray(tensors, nameof(tensors));
            if (devices == null) throw new ArgumentNullException(nameof(devices));
            using (var l = new MultiLease(ts, nameof(tensors)))
            {
                var outs = new IntPtr[checked(ts.Length * devices.Length)];
                Native.Check(ctorch.ct_cuda_comm_broadcast_coalesced(l.Ptrs, ts.Length, devices, devices.Length,
                                                                      bufferSize, outs));
                return Rows(OwnAll(outs, outs.Length), devices.Length, ts.Length);
            }
        }

        /// <summary>comm.reduce_add(inputs, destination): the sum of the CUDA tensors inputs (one
        /// shape) on device destination (-1: the current device), which must hold one of the
        /// inputs; with one input, that input itself.</summary>
        public static Tensor ReduceAdd(IEnumerable<Tensor> inputs, int destination = -1)
        {
            Tensor[] ts = ToArray(inputs, nameof(inputs));
            using (var l = new MultiLease(ts, nameof(inputs)))
            {
                IntPtr r;
                Native.Check(ctorch.ct_cuda_comm_reduce_add(l.Ptrs, ts.Length, destination, out r));
                return Tensor.Own(r);
            }
        }

        /// <summary>comm.reduce_add_coalesced(inputs, destination, buffer_size): inputs holds one
        /// row of tensors per device (every row as long as the first); result i is the sum of column
        /// i on destination (-1: the current device), reduced in buckets of about bufferSize bytes
        /// (&lt;= 0: <see cref="DefaultBufferSize"/>).</summary>
        public static Tensor[] ReduceAddCoalesced(IEnumerable<IEnumerable<Tensor>> inputs, int destination = -1,
                                                  long bufferSize = 0)
        {
            if (inputs == null) throw new ArgumentNullException(nameof(inputs));
            Tensor[][] rows = inputs.Select((row, d) =>
            {
                if (row == null) throw new ArgumentNullException(nameof(inputs), "row " + d + " is null");
                return row.ToArray();
            }).ToArray();
            int nTensors = rows.Length == 0 ? 0 : rows[0].Length;
            for (int d = 1; d < rows.Length; d++)
                if (rows[d].Length != nTensors)
                    throw new ArgumentException("row " + d + " has " + rows[d].Length + " tensors, row 0 has " + nTensors,
                                                nameof(inputs));
            Tensor[] flat = rows.SelectMany(r => r).ToArray();
            using (var l = new MultiLease(flat, nameof(inputs)))
            {
                var outs = new IntPtr[nTensors];
                Native.Check(ctorch.ct_cuda_comm_reduce_add_coalesced(l.Ptrs, rows.Length, nTensors, destination,
                                                                       bufferSize, outs));
                return OwnAll(outs, nTensors);
            }
        }

        /// <summary>comm.scatter(tensor, devices, chunk_sizes, dim, streams): tensor split along dim
        /// into chunks, the i-th copied to devices[i]. chunkSizes: null for equal chunks
        /// (tensor.chunk, which may give fewer chunks than devices: the result then has fewer
        /// tensors), or one size per device summing to tensor's size at dim. streams: null, or one
        /// stream (or null) per device, streams[i] on devices[i], on which chunk i is copied.</summary>
        public static Tensor[] Scatter(Tensor tensor, int[] devices, long[] chunkSizes = null, int dim = 0,
                                       CudaStream[] streams = null)
        {
            if (devices == null) throw new ArgumentNullException(nameof(devices));
            SameLength(chunkSizes, devices.Length, nameof(chunkSizes), "devices");
            SameLength(streams, devices.Length, nameof(streams), "devices");
            using (var a = new Lease(tensor, nameof(tensor)))
            using (var s = Streams(streams, nameof(streams)))
            {
                var outs = new IntPtr[devices.Length];
                int n;
                Native.Check(ctorch.ct_cuda_comm_scatter(a.Ptr, devices, devices.Length, chunkSizes, dim,
                                                         s.Ptrs, outs, out n));
                return OwnAll(outs, n);
            }
        }

        /// <summary>comm.scatter(tensor, dim=dim, streams=streams, out=outs): tensor split along dim
        /// by the sizes of the CUDA tensors outs at dim and copied into them; streams as for
        /// <see cref="Scatter"/>, one per output.</summary>
        public static void ScatterOut(Tensor tensor, IEnumerable<Tensor> outs, int dim = 0, CudaStream[] streams = null)
        {
            Tensor[] os = ToArray(outs, nameof(outs));
            SameLength(streams, os.Length, nameof(streams), "outs");
            using (var a = new Lease(tensor, nameof(tensor)))
            using (var o = new MultiLease(os, nameof(outs)))
            using (var s = Streams(streams, nameof(streams)))
            {
                Native.Check(ctorch.ct_cuda_comm_scatter_out(a.Ptr, o.Ptrs, os.Length, dim,
                                                             s.Ptrs));
            }
        }

        /// <summary>comm.gather(tensors, dim): the CUDA tensors concatenated along dim on the
        /// current CUDA device; the dtype is the first tensor's.</summary>
        public static Tensor Gather(IEnumerable<Tensor> tensors, int dim = 0) => Gather(tensors, dim, Device.Cuda);

        /// <summary>comm.gather(tensors, dim, destination): the CUDA tensors concatenated along dim
        /// on destination: a CUDA device ("cuda": the current one) or the CPU (the copies then wait
        /// for the GPU).</summary>
        public static Tensor Gather(IEnumerable<Tensor> tensors, int dim, Device destination)
        {
            Tensor[] ts = ToArray(tensors, nameof(tensors));
            using (var l = new MultiLease(ts, nameof(tensors)))
            {
                IntPtr r;
                Native.Check(ctorch.ct_cuda_comm_gather(l.Ptrs, ts.Length, dim, (int)destination.Type,
                                                        destination.Index, out r));
                return Tensor.Own(r);
            }
        }

        /// <summary>comm.gather(tensors, dim, destination) with a CUDA device index (-1: the current
        /// device).</summary>
        public static Tensor Gather(IEnumerable<Tensor> tensors, int dim, int destination) =>
            Gather(tensors, dim, new Device(DeviceType.Cuda, destination));

        /// <summary>comm.gather(tensors, dim, out=output): the tensors concatenated along dim into
        /// output (CPU or CUDA), whose shape must be theirs concatenated along dim.</summary>
        public static void GatherOut(IEnumerable<Tensor> tensors, Tensor output, int dim = 0)
        {
            Tensor[] ts = ToArray(tensors, nameof(tensors));
            using (var l = new MultiLease(ts, nameof(tensors)))
            using (var o = new Lease(output, nameof(output)))
            {
                Native.Check(ctorch.ct_cuda_comm_gather_out(l.Ptrs, ts.Length, o.Ptr, dim));
            }
        }

        // ---------------------------------------------------------------- helpers

        private static Tensor[] ToArray(IEnumerable<Tensor> tensors, string name)
        {
            if (tensors == null) throw new ArgumentNullException(name);
            return tensors.ToArray();
        }

        // An optional per-device array must have one entry per device (the C function reads that
        // many).
        private static void SameLength<T>(T[] a, int n, string name, string other)
        {
            if (a != null && a.Length != n)
                throw new ArgumentException(name + " has " + a.Length + " entries for " + n + " " + other, name);
        }

        private static MultiLease Streams(CudaStream[] streams, string name) =>
            streams == null ? default(MultiLease) : new MultiLease(streams, name, true);

        /// <summary>Tensors for the first n handles of a C result array (new references). An n
        /// out of range or a zero handle among them is a library bug: every handle of the array is
        /// released and InvalidOperationException thrown.</summary>
        private static Tensor[] OwnAll(IntPtr[] raw, int n)
        {
            string bad = n < 0 || n > raw.Length ? "ctorch reported " + n + " results for room for " + raw.Length
                       : Array.IndexOf(raw, IntPtr.Zero, 0, n) >= 0 ? "ctorch returned no tensor for a result"
                       : null;
            if (bad != null)
            {
                foreach (IntPtr h in raw) if (h != IntPtr.Zero) ctorch.ct_tensor_release(h);
                throw new InvalidOperationException(bad);
            }
            var r = new Tensor[n];
            for (int i = 0; i < n; i++) r[i] = Tensor.Own(raw[i]);
            return r;
        }

        // flat[d * cols + i] as result[d][i].
        private static Tensor[][] Rows(Tensor[] flat, int rows, int cols)
        {
            var r = new Tensor[rows][];
            for (int d = 0; d < rows; d++)
            {
                r[d] = new Tensor[cols];
                Array.Copy(flat, d * cols, r[d], 0, cols);
            }
            return r;
        }
    }
}
