#!/usr/bin/env bash
# Packs the C# suite for the GPU host (which has no Mono) into gpu_csharp/ (git-ignored): the
# Mono runtime and the few framework assemblies the suite loads, the nunit-console runner, the
# test and binding assemblies, libctorch.so (xz-compressed) and libctorch_csharp.so, Mono's
# configuration, run.sh (tests/gpu/csharp_run.sh) and the Bazel test's driver
# (tools/mono_test.sh), which run.sh uses. Carry gpu_csharp and run
#   bash gpu_csharp/run.sh            # both processes of the suite (as //tests/csharp:csharp_test)
#   bash gpu_csharp/run.sh -run=Ctorch.Tests.CudaMemoryTests   # extra args go to nunit-console
# The last lines read "csharp: M skipped" and "N passed, N failed", as the Bazel test's. Needs
# only glibc (and libstdc++ / libgomp for libctorch.so, as the GPU bundle's suites do) on the GPU
# host. Mono here (Debian 12) wants glibc 2.36; on an older glibc, run.sh starts it through the
# carried glibc.
set -euo pipefail
cd "$(dirname "$0")/.."
# the examples (examples/csharp/BUILD's PROGRAMS: name and source), run after the suite
EXAMPLES=$(sed -n '/^PROGRAMS = {/,/^}/p' examples/csharp/BUILD | grep -o '"[A-Za-z]*": "[A-Za-z]*"' | tr -d '":')
bazel build //tests/csharp:CtorchTests.dll //bindings/csharp:Ctorch.dll //bindings/swig:libctorch_csharp.so //capi:libctorch.so \
  $(echo "$EXAMPLES" | awk '{print "//examples/csharp:" $1 "_exe"}')
B=$(bazel info bazel-bin)
P=gpu_csharp
rm -rf "$P"
mkdir -p "$P/bin" "$P/lib/mono/4.5" "$P/lib/native" "$P/lib/glibc" "$P/etc/mono/4.5" "$P/tests"

# The runtime. Its RUNPATH-free binary needs only libc, libm and libgcc_s.
cp -L "$(readlink -f /usr/bin/mono)" "$P/bin/mono"

# The framework assemblies the suite loads (MONO_LOG_MASK=asm on a run of both processes, with
# failing tests too): nothing else of /usr/lib/mono (about 200 MB) is needed.
for a in mscorlib System System.Core System.Numerics System.Xml System.Configuration \
         System.Runtime.Remoting System.Drawing; do
  cp -L "/usr/lib/mono/4.5/$a.dll" "$P/lib/mono/4.5/"
done

# libmono-native.so ("System.Native": file system calls of mscorlib) and what it links besides
# glibc (Kerberos, for System.Net.Security.Native); found through LD_LIBRARY_PATH.
cp -L /usr/lib/libmono-native.so "$P/lib/native/"
for l in libgssapi_krb5.so.2 libkrb5.so.3 libk5crypto.so.3 libcom_err.so.2 libkrb5support.so.0 libkeyutils.so.1; do
  cp -L "/lib/x86_64-linux-gnu/$l" "$P/lib/native/"
done
cp -L "$B/capi/libctorch.so" "$B/bindings/swig/libctorch_csharp.so" "$P/lib/native/"

# glibc itself, used only where the host's is older than what the files above need.
for l in ld-linux-x86-64.so.2 libc.so.6 libm.so.6 libpthread.so.0 libdl.so.2 librt.so.1 libresolv.so.2 libutil.so.1; do
  cp -L "/lib/x86_64-linux-gnu/$l" "$P/lib/glibc/"
done

# Mono's configuration: machine.config (System.Configuration reads it) and a config whose
# dllmaps name libraries by file name only (LD_LIBRARY_PATH finds them in lib/native).
cp -L /etc/mono/4.5/machine.config "$P/etc/mono/4.5/"
cat > "$P/etc/mono/config" <<'CONFIG'
<configuration>
	<dllmap dll="i:cygwin1.dll" target="libc.so.6" os="!windows" />
	<dllmap dll="libc" target="libc.so.6" os="!windows"/>
	<dllmap dll="i:msvcrt" target="libc.so.6" os="!windows"/>
	<dllmap dll="i:msvcrt.dll" target="libc.so.6" os="!windows"/>
	<dllmap dll="System.Native" target="libmono-native.so" os="!windows" />
	<dllmap dll="System.Net.Security.Native" target="libmono-native.so" os="!windows" />
</configuration>
CONFIG

# The runner (nunit 2.6.4 assemblies; the test assembly references nunit.framework 2.6.4.0)
# and the assemblies under test, side by side: the runner loads everything from its folder.
cp -L /usr/lib/nunit/nunit-console.exe /usr/lib/nunit/nunit-console.exe.config "$P/tests/"
for a in nunit-console-runner nunit.core nunit.core.interfaces nunit.util nunit.framework; do
  cp -L "/usr/lib/cli/$a-2.6.3/$a.dll" "$P/tests/"
done
cp -L "$B/tests/csharp/CtorchTests.dll" "$B/bindings/csharp/Ctorch.dll" "$P/tests/"
mkdir -p "$P/examples"
echo "$EXAMPLES" > "$P/examples.txt"
for s in $(echo "$EXAMPLES" | awk '{print $2}'); do cp -L "$B/examples/csharp/$s.exe" "$P/examples/"; done
chmod -R u+w "$P"

# The newest glibc symbol version any carried file needs (run.sh compares the host's with it).
need=$(for f in "$P/bin/mono" "$P"/lib/native/*; do objdump -T "$f"; done | grep -o 'GLIBC_[0-9][0-9.]*' |
       sed 's/GLIBC_//' | sort -uV | tail -1)

echo "$need" > "$P/glibc_need"
cp tests/gpu/csharp_run.sh "$P/run.sh"
cp tools/mono_test.sh "$P/mono_test.sh"  # run.sh runs the suite with the Bazel driver
chmod +x "$P/run.sh"
xz -6 -T2 "$P/lib/native/libctorch.so"  # the device tool carries at most 64 MiB; run.sh unpacks it
du -sh "$P"
