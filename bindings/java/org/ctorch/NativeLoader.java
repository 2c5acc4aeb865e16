package org.ctorch;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.net.URLConnection;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Finds and loads the native libraries, {@code libctorch.so} and the JNI glue
 * {@code libctorch_jni.so} (which needs the first), the first time any {@code org.ctorch} class
 * is used. The first of these that applies wins:
 *
 * <ol>
 *   <li>an explicit directory: the system property {@value #PROPERTY}, else the environment
 *       variable {@value #ENV}. Both libraries are loaded from it by absolute path; a directory
 *       without them is an error (nothing else is tried).
 *   <li>the libraries inside the jar, under {@code org/ctorch/native/<os>-<arch>/} (the release
 *       jar, {@code //bindings/java:ctorch_native_jar}). They are copied once into a per-user
 *       cache, {@code $XDG_CACHE_HOME/ctorch} or {@code $HOME/.cache/ctorch} (else
 *       {@code user.home}), in a directory named by the SHA-256 of the jar's list of the
 *       libraries and their hashes, so later runs, other JVMs and other copies of the same jar
 *       reuse it; the directory appears whole (written next to it, then renamed), so concurrent
 *       JVMs never see half a library. Each use renews its modification time; extracting a new
 *       one removes the entries unused for {@link #UNUSED} (30 days). Where the cache cannot be used (not writable, not owned by
 *       this user, or writable by others) they go into a private temporary directory of
 *       {@code java.io.tmpdir} that is deleted when the JVM exits.
 *   <li>{@code System.loadLibrary("ctorch_jni")}: the directories of {@code java.library.path}
 *       (the workspace's tests and the jar without libraries,
 *       {@code //bindings/java:ctorch.jar});
 *       {@code libctorch.so} then resolves through the JNI library's RUNPATH or
 *       {@code LD_LIBRARY_PATH}.
 * </ol>
 *
 * <p>{@code libctorch.so} is always loaded first by absolute path: the JNI library's
 * {@code DT_NEEDED} entry {@code libctorch.so} then matches the loaded library's soname, and the
 * jar's copy of the glue also has the RUNPATH {@code $ORIGIN}. A failure throws
 * {@link UnsatisfiedLinkError} saying what was tried.
 */
final class NativeLoader {
  private NativeLoader() {}

  /** The system property naming a directory with both libraries (wins over {@link #ENV}). */
  static final String PROPERTY = "ctorch.library.path";

  /** The environment variable naming a directory with both libraries. */
  static final String ENV = "CTORCH_LIBRARY_PATH";

  /** The file names, in load order: the C library, then the JNI glue that needs it. */
  static final List<String> LIBRARIES = List.of("libctorch.so", "libctorch_jni.so");

  /** The jar's list of its libraries, {@code sha256sum}'s format ("hash  name" lines). */
  static final String MANIFEST = "natives.sha256";

  /** Loads the libraries (see the class comment); called once, by {@link Native}. */
  static void load() {
    String property = System.getProperty(PROPERTY);
    String env = System.getenv(ENV);
    if (property != null && !property.isEmpty()) {
      loadFrom(Path.of(property), "the system property " + PROPERTY);
      return;
    }
    if (env != null && !env.isEmpty()) {
      loadFrom(Path.of(env), "the environment variable " + ENV);
      return;
    }
    String platform = platform();
    String resources = "/org/ctorch/native/" + platform + "/";
    URL manifest = NativeLoader.class.getResource(resources + MANIFEST);
    if (manifest != null) {
      loadFrom(extract(resources, manifest), "the libraries of the jar (" + manifest + ")");
      return;
    }
    try {
      System.loadLibrary("ctorch_jni");
    } catch (UnsatisfiedLinkError e) {
      throw linkError("cannot load ctorch's native libraries. Tried: (1) -D" + PROPERTY
          + " and " + ENV + ": not set; (2) the jar's libraries for " + platform + " ("
          + resources.substring(1) + MANIFEST + "): not in the jar "
          + codeSource() + "; (3) System.loadLibrary(\"ctorch_jni\") with java.library.path="
          + System.getProperty("java.library.path") + ": " + e.getMessage(), e);
    }
  }

  /** Loads {@link #LIBRARIES} from {@code dir} by absolute path; {@code from} names its source. */
  private static void loadFrom(Path dir, String from) {
    Path abs = dir.toAbsolutePath();
    if (!Files.isDirectory(abs)) {
      throw linkError(from + " names " + abs + ", which is not a directory; it must hold "
          + String.join(" and ", LIBRARIES), null);
    }
    for (String name : LIBRARIES) {
      Path lib = abs.resolve(name);
      if (!Files.isRegularFile(lib)) {
        throw linkError(from + " names " + abs + ", which holds no " + name + " (looked for "
            + lib + "; it must hold " + String.join(" and ", LIBRARIES) + ")", null);
      }
      try {
        System.load(lib.toString());
      } catch (UnsatisfiedLinkError e) {
        throw linkError("cannot load " + lib + " (from " + from + "): " + e.getMessage(), e);
      }
    }
  }

  /**
   * The directory with the jar's libraries: the per-user cache (extracted there if missing), or
   * else a private temporary directory deleted at exit.
   */
  private static Path extract(String resources, URL manifestUrl) {
    byte[] manifest = read(manifestUrl);
    List<String> names = new ArrayList<>();
    for (String line : new String(manifest, StandardCharsets.UTF_8).split("\n")) {
      String[] f = line.trim().split("\\s+\\*?", 2);
      if (f.length == 2) {
        names.add(f[1]);
      }
    }
    if (!names.containsAll(LIBRARIES)) {
      throw linkError("the jar's " + manifestUrl + " lists " + names + ", not " + LIBRARIES, null);
    }
    String leaf = "native-" + platform() + "-" + hex(sha256(manifest)).substring(0, 16);
    Path base = cacheBase();
    String why;
    try {
      Path dir = base.resolve(leaf);
      if (complete(dir, resources)) {
        touch(dir);
      } else {
        publish(base, dir, resources);
        prune(base, dir);
      }
      return dir;
    } catch (IOException | UncheckedIOException | SecurityException e) {
      why = e.toString();
    }
    try {
      Path tmp = Files.createTempDirectory("ctorch-native-");  // rwx------ on POSIX
      tmp.toFile().deleteOnExit();  // deleted last: registered first
      for (String name : LIBRARIES) {
        Path lib = tmp.resolve(name);
        copy(resources, name, lib);
        lib.toFile().deleteOnExit();
      }
      return tmp;
    } catch (IOException | UncheckedIOException | SecurityException e) {
      throw linkError("cannot extract the jar's native libraries: the cache " + base + " failed ("
          + why + "), and so did a temporary directory in java.io.tmpdir="
          + System.getProperty("java.io.tmpdir") + " (" + e + "); set -D" + PROPERTY
          + " to a directory holding " + String.join(" and ", LIBRARIES), e);
    }
  }

  /**
   * Writes the libraries into a new directory in {@code base} and renames it to {@code dir};
   * when another JVM renamed its copy first, uses that one.
   */
  private static void publish(Path base, Path dir, String resources) throws IOException {
    boolean posix = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    if (posix) {
      Files.createDirectories(base, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
      checkPrivate(base);
    } else {
      Files.createDirectories(base);
    }
    Path tmp = Files.createTempDirectory(base, dir.getFileName() + ".tmp-");
    try {
      for (String name : LIBRARIES) {
        copy(resources, name, tmp.resolve(name));
      }
      try {
        Files.move(tmp, dir, StandardCopyOption.ATOMIC_MOVE);
      } catch (IOException e) {
        if (!complete(dir, resources)) {  // not another JVM's complete copy: give up on the cache
          throw e;
        }
      }
    } finally {
      deleteTree(tmp);
    }
    if (!complete(dir, resources)) {
      throw new IOException(dir + " is incomplete after extraction");
    }
  }

  /** Entries of the cache unused this long are removed when another version is extracted. */
  static final Duration UNUSED = Duration.ofDays(30);

  /**
   * Removes the cache's other entries (other builds' libraries, a crashed JVM's half-written
   * directory) whose modification time, renewed at every use, is older than {@link #UNUSED}.
   * Best effort: a failure leaves the entry.
   */
  private static void prune(Path base, Path keep) {
    Instant limit = Instant.now().minus(UNUSED);
    try (Stream<Path> entries = Files.list(base)) {
      for (Path p : (Iterable<Path>) entries::iterator) {
        if (!p.equals(keep) && p.getFileName().toString().startsWith("native-")
            && Files.getLastModifiedTime(p).toInstant().isBefore(limit)) {
          try {
            deleteTree(p);
          } catch (IOException e) {
            // not ours to delete, or already gone: leave it
          }
        }
      }
    } catch (IOException e) {
      // listing failed: nothing pruned
    }
  }

  /** Marks a cache entry as used now (for {@link #prune}); best effort. */
  private static void touch(Path dir) {
    try {
      Files.setLastModifiedTime(dir, FileTime.from(Instant.now()));
    } catch (IOException e) {
      // a read-only cache still serves
    }
  }

  private static final Set<PosixFilePermission> OWNER_ONLY =
      PosixFilePermissions.fromString("rwx------");

  /** Refuses a cache directory that another user owns or may write into. */
  private static void checkPrivate(Path base) throws IOException {
    Path probe = Files.createTempFile(base, ".owner-", "");
    try {
      if (!Files.getOwner(base).equals(Files.getOwner(probe))) {
        throw new IOException(base + " belongs to " + Files.getOwner(base) + ", not to this user");
      }
    } finally {
      Files.deleteIfExists(probe);
    }
    Set<PosixFilePermission> perms = Files.getPosixFilePermissions(base);
    if (perms.contains(PosixFilePermission.GROUP_WRITE)
        || perms.contains(PosixFilePermission.OTHERS_WRITE)) {
      throw new IOException(base + " is writable by other users ("
          + PosixFilePermissions.toString(perms) + ")");
    }
  }

  /** Whether {@code dir} holds every library with the size of the jar's copy. */
  private static boolean complete(Path dir, String resources) throws IOException {
    for (String name : LIBRARIES) {
      Path lib = dir.resolve(name);
      if (!Files.isRegularFile(lib) || Files.size(lib) != resourceSize(resources + name)) {
        return false;
      }
    }
    return true;
  }

  private static long resourceSize(String resource) throws IOException {
    URL url = NativeLoader.class.getResource(resource);
    if (url == null) {
      throw new IOException("the jar has no " + resource);
    }
    URLConnection c = url.openConnection();
    return c.getContentLengthLong();  // a jar entry's uncompressed size
  }

  private static void copy(String resources, String name, Path to) throws IOException {
    try (InputStream in = NativeLoader.class.getResourceAsStream(resources + name)) {
      if (in == null) {
        throw new IOException("the jar has no " + resources + name);
      }
      Files.copy(in, to, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** {@code $XDG_CACHE_HOME/ctorch}, else {@code $HOME/.cache/ctorch}, else user.home's. */
  private static Path cacheBase() {
    String xdg = System.getenv("XDG_CACHE_HOME");
    if (xdg != null && xdg.startsWith("/")) {
      return Path.of(xdg, "ctorch");
    }
    String home = System.getenv("HOME");
    if (home == null || !home.startsWith("/")) {
      home = System.getProperty("user.home");
    }
    return Path.of(home, ".cache", "ctorch");
  }

  /** The jar's folder for this machine: {@code linux-x86_64}, {@code linux-aarch64}... */
  static String platform() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    if (os.startsWith("linux")) {
      os = "linux";
    } else if (os.startsWith("mac")) {
      os = "macos";
    } else if (os.startsWith("windows")) {
      os = "windows";
    }
    if (arch.equals("amd64") || arch.equals("x86_64")) {
      arch = "x86_64";
    } else if (arch.equals("arm64")) {
      arch = "aarch64";
    }
    return os.replace(' ', '_') + "-" + arch;
  }

  private static String codeSource() {
    var cs = NativeLoader.class.getProtectionDomain().getCodeSource();
    return cs == null || cs.getLocation() == null ? "" : cs.getLocation().toString();
  }

  private static byte[] read(URL url) {
    try (InputStream in = url.openStream()) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw linkError("cannot read " + url + ": " + e, e);
    }
  }

  private static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);  // every Java platform has SHA-256
    }
  }

  private static String hex(byte[] bytes) {
    StringBuilder sb = new StringBuilder();
    for (byte b : bytes) {
      sb.append(String.format("%02x", b));
    }
    return sb.toString();
  }

  private static UnsatisfiedLinkError linkError(String message, Throwable cause) {
    UnsatisfiedLinkError e = new UnsatisfiedLinkError("ctorch: " + message);
    if (cause != null) {
      e.initCause(cause);
    }
    return e;
  }
}
