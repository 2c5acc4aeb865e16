import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Arrays;

import org.ctorch.CtorchException;
import org.ctorch.Cuda;
import org.ctorch.DType;
import org.ctorch.Device;
import org.ctorch.NcclComm;
import org.ctorch.Tensor;

/**
 * An all-reduce across processes with an NCCL communicator, the Java form of
 *
 * <pre>
 * dist.init_process_group("nccl", init_method="file://" + id_file, rank=rank, world_size=nranks)
 * t = torch.full((4,), rank + 1.0, device=f"cuda:{rank % torch.cuda.device_count()}")
 * dist.all_reduce(t)                     # every rank: nranks * (nranks + 1) / 2
 * </pre>
 *
 * Usage: {@code Allreduce [<rank> <nranks> <id-file>]} (default: 0 1 and a temporary file).
 * Rank 0 makes the unique id and writes it to id-file (to a temporary name first, then renamed,
 * so a reader never sees half of it); the other ranks wait for the file (polling, at most 60
 * seconds) and read it. Each rank joins on device {@code rank % deviceCount}, all-reduces a
 * tensor of (rank + 1) values and checks the sum. The processes may run on one host or on
 * several with a shared file system (or with the file copied): nothing else changes. Use a new
 * id-file for every run; rank 0 deletes it once every rank has joined. For two processes on one
 * host:
 *
 * <pre>
 * bazel run //examples/java:allreduce -- 0 2 /tmp/ctorch.id &amp;
 * bazel run //examples/java:allreduce -- 1 2 /tmp/ctorch.id
 * </pre>
 *
 * Without CUDA or NCCL it says why and exits 0.
 */
public final class Allreduce {
  /** How long the ranks wait for the id file, and for each other to join. */
  static final Duration WAIT = Duration.ofSeconds(60);

  public static void main(String[] args) throws Exception {
    if (args.length != 0 && args.length != 3) {
      System.err.println("usage: Allreduce [<rank> <nranks> <id-file>]");
      System.exit(2);
    }
    int rank = args.length == 3 ? Integer.parseInt(args[0]) : 0;
    int nranks = args.length == 3 ? Integer.parseInt(args[1]) : 1;
    Path idFile = args.length == 3 ? Path.of(args[2]) : null;
    if (nranks < 1 || rank < 0 || rank >= nranks) {
      System.err.println("need 0 <= rank < nranks, got rank " + rank + " of " + nranks);
      System.exit(2);
    }

    if (!Cuda.isAvailable() || !NcclComm.isAvailable()) {
      System.out.println("the NCCL all-reduce needs CUDA and NCCL, which are not available here ("
          + whyNot() + ")");
      return;
    }
    boolean tempFile = idFile == null;
    if (tempFile) {
      idFile = Files.createTempFile("ctorch-nccl", ".id");
      Files.delete(idFile); // rank 0 makes it below, as it does for a given path
    }

    byte[] id;
    if (rank == 0) {
      id = NcclComm.uniqueId();
      publish(idFile, id);
    } else {
      id = await(idFile, NcclComm.UNIQUE_ID_BYTES, WAIT);
    }

    int device = rank % Cuda.deviceCount();
    System.out.println("rank " + rank + " of " + nranks + ": joining on cuda:" + device);
    try (NcclComm comm = NcclComm.initRank(nranks, id, rank, device, WAIT)) {
      if (rank == 0) {
        Files.deleteIfExists(idFile); // everyone has joined: a later run cannot read a stale id
      }
      try (Tensor t = Tensor.full(new long[] {4}, rank + 1, DType.FLOAT32, Device.cuda(device))) {
        comm.allReduce(t, NcclComm.ReduceOp.SUM); // queued on the current stream of the device
        float[] got = t.toFloatArray();           // the copy to the host waits for it
        float want = nranks * (nranks + 1) / 2f;
        System.out.println("rank " + rank + ": all_reduce(SUM) = " + Arrays.toString(got));
        for (float v : got) {
          if (v != want) {
            throw new AssertionError("rank " + rank + ": expected " + want + " everywhere, got " + Arrays.toString(got));
          }
        }
      }
      comm.destroy(); // a clean end (waits for the communicator's work), reporting any error
    } finally {
      if (tempFile) {
        Files.deleteIfExists(idFile);
      }
    }
    System.out.println("rank " + rank + ": ok");
  }

  /** Writes id to path atomically: a temporary file in the same directory, then a rename. */
  static void publish(Path path, byte[] id) throws IOException {
    Path dir = path.toAbsolutePath().getParent();
    Path tmp = Files.createTempFile(dir, path.getFileName() + ".", ".tmp");
    try {
      Files.write(tmp, id);
      Files.move(tmp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /** Polls until path holds n bytes (rank 0 renames it into place whole), at most timeout. */
  static byte[] await(Path path, int n, Duration timeout) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      if (Files.isRegularFile(path)) {
        byte[] id = Files.readAllBytes(path);
        if (id.length == n) {
          return id;
        }
        throw new IOException(path + " holds " + id.length + " bytes, not a unique id of " + n);
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("no unique id in " + path + " after " + timeout.toMillis() + " ms (is rank 0 running?)");
      }
      Thread.sleep(50);
    }
  }

  /** Why CUDA or NCCL cannot be used, from the library's own message. */
  static String whyNot() {
    try {
      Cuda.checkAvailable();
      NcclComm.version(); // loads NCCL, or says why it cannot
      return "no CUDA device";
    } catch (CtorchException e) {
      return e.detail();
    }
  }
}
