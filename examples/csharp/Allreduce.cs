// An NCCL communicator across processes in C#: the torch.distributed pattern
//
//   dist.init_process_group("nccl", init_method="file://" + id_file, rank=rank, world_size=nranks)
//   t = torch.full((4,), rank + 1.0, device=f"cuda:{rank % torch.cuda.device_count()}")
//   dist.all_reduce(t)                    # every rank now holds nranks * (nranks + 1) / 2
//
// usage: Allreduce.exe [rank nranks id-file]    (default: 0 1 and a temporary file)
// Rank 0 makes the unique id and writes its bytes to id-file (to a temporary name first, then
// renamed, so no reader sees half an id); the other ranks wait for the file (polling, at most a
// minute). Each joins the communicator on device rank % device count, all-reduces a tensor of
// rank + 1 values and prints the result. Nothing here assumes one host: with the file on a shared
// file system (or copied to the other hosts) it runs unchanged across hosts. Two processes on one
// host:
//   bazel run //examples/csharp:allreduce -- 0 2 /tmp/nccl.id &
//   bazel run //examples/csharp:allreduce -- 1 2 /tmp/nccl.id
// Use a new id-file per run (rank 0 removes it once everyone has joined, or the join failed).
// Without CUDA or NCCL it says why and exits 0.
using System;
using System.Diagnostics;
using System.IO;
using System.Threading;
using Ctorch;

public static class Allreduce
{
    private static readonly TimeSpan JoinTimeout = TimeSpan.FromSeconds(60);

    public static int Main(string[] args)
    {
        if (args.Length != 0 && args.Length != 3)
        {
            Console.Error.WriteLine("usage: Allreduce.exe [rank nranks id-file]");
            return 2;
        }
        int rank = args.Length == 3 ? int.Parse(args[0]) : 0;
        int nranks = args.Length == 3 ? int.Parse(args[1]) : 1;
        string idFile = args.Length == 3 ? args[2] : Path.Combine(Path.GetTempPath(), "ctorch-nccl-" + Guid.NewGuid() + ".id");
        if (nranks < 1 || rank < 0 || rank >= nranks)
        {
            Console.Error.WriteLine($"rank {rank} is not in 0..{nranks - 1}");
            return 2;
        }

        if (!NcclComm.IsAvailable)   // no CUDA, or no libnccl.so.2: the library says which
        {
            try
            {
                NcclComm.GetUniqueId();
                Console.WriteLine("no communicator: NCCL is not available");
            }
            catch (CtorchException e)
            {
                Console.WriteLine($"no communicator: {e.StatusName}: {e.NativeMessage}");
            }
            return 0;
        }
        Console.WriteLine($"NCCL {NcclComm.Version}");

        byte[] id = rank == 0 ? WriteId(idFile) : ReadId(idFile);
        int device = rank % Cuda.DeviceCount;
        NcclComm joined;
        try
        {
            joined = new NcclComm(nranks, id, rank, device, JoinTimeout);   // waits for every rank
        }
        finally
        {
            if (rank == 0) File.Delete(idFile);   // everyone has joined (or given up): nobody reads it any more
        }
        using (DisposeScope.Begin())
        using (NcclComm comm = joined)
        {
            Tensor t = Tensor.Full(new long[] { 4 }, rank + 1, DType.Float32, Device.CudaAt(device));
            comm.AllReduce(t);                    // queued on the current stream of the device
            float[] r = t.ToArray<float>();       // waits for it
            float expected = nranks * (nranks + 1) / 2f;
            Console.WriteLine($"rank {comm.Rank} of {comm.Size} on cuda:{comm.DeviceIndex}: " +
                              $"[{string.Join(", ", r)}] (expected {expected} everywhere)");
            comm.Destroy();
            return Array.TrueForAll(r, v => v == expected) ? 0 : 1;
        }
    }

    // Rank 0: a new unique id, written to a temporary name and renamed to path.
    private static byte[] WriteId(string path)
    {
        byte[] id = NcclComm.GetUniqueId();
        string tmp = path + "." + Process.GetCurrentProcess().Id + ".tmp";
        File.WriteAllBytes(tmp, id);
        if (File.Exists(path)) File.Delete(path);
        File.Move(tmp, path);
        return id;
    }

    // The other ranks: wait until the file holds a whole id.
    private static byte[] ReadId(string path)
    {
        var sw = Stopwatch.StartNew();
        while (true)
        {
            try
            {
                byte[] id = File.ReadAllBytes(path);
                if (id.Length == NcclComm.UniqueIdBytes) return id;
            }
            catch (IOException) { }   // not there yet (FileNotFoundException is one)
            if (sw.Elapsed > JoinTimeout)
                throw new TimeoutException($"no unique id in {path} after {JoinTimeout.TotalSeconds} s (is rank 0 running?)");
            Thread.Sleep(50);
        }
    }
}
