#!/bin/bash
# Builds the C# binding's NuGet package and its tar for the release archive
# (//bindings/csharp:nuget_dist, docs/csharp.md "Install"):
#   share/nuget/Ctorch.<ver>.nupkg       the package (a zip in NuGet's layout, as `nuget pack`
#                                         writes it: Ctorch.nuspec, [Content_Types].xml,
#                                         _rels/.rels, package/services/metadata/core-properties/)
#   share/nuget/ctorch/<ver>/            the same, expanded as in a NuGet global-packages folder
#                                         (ctorch.nuspec, ctorch.<ver>.nupkg.sha512,
#                                         .nupkg.metadata, lib/, runtimes/)
# Both hold lib/net47/Ctorch.dll (+ Ctorch.xml, its doc comments, and Ctorch.dll.config, whose
# dllmap sends Mono to ../../runtimes/linux-x64/native/libctorch_csharp.so) and
# runtimes/linux-x64/native/{libctorch.so,libctorch_csharp.so}; the glue's copy gets RUNPATH
# $ORIGIN, so its DT_NEEDED libctorch.so is the one beside it (Note [Native library
# resolution], NativeLibrary.cs).
# usage: nuget_pack.sh <out.tar> <version> <Ctorch.nuspec.in> <Ctorch.dll> <Ctorch.xml>
#                      <libctorch.so> <libctorch_csharp.so>
set -euo pipefail
out="$1" ver="$2" nuspec_in="$3" dll="$4" xml="$5" lib="$6" glue="$7"
case "$ver" in [0-9]*.[0-9]*.[0-9]*) ;; *) echo "nuget_pack.sh: bad version '$ver'" >&2; exit 1 ;; esac
# The target framework. mcs compiles Ctorch.dll against Mono's 4.5 profile (bindings/csharp/BUILD),
# whose mscorlib is .NET Framework 4.8's plus Span<T>/ReadOnlySpan<T>. Against Mono's reference
# assemblies of .NET Framework 4.7 (mcs -sdk:4.7) the only types it misses are those two spans
# (ValueTuple needs 4.7); so net47, for Mono and .NET Framework 4.7+ projects (on .NET Framework
# itself Tensor.FromSpan and Tensor.CopyTo(Span) would need System.Memory's types). Not
# netstandard2.0: that has neither ValueTuple nor Span without packages, and Mono ships no
# .NET Standard reference assemblies for mcs to compile against.
tfm=net47
id=Ctorch
W="$(mktemp -d)"
trap 'rm -rf "$W"' EXIT
P="$W/pkg"
mkdir -p "$P/lib/$tfm" "$P/runtimes/linux-x64/native" "$P/_rels" \
         "$P/package/services/metadata/core-properties"
sed "s/@VERSION@/$ver/g" "$nuspec_in" > "$P/$id.nuspec"
cp -L "$dll" "$xml" "$P/lib/$tfm/"
N="$P/runtimes/linux-x64/native"
cp -L "$lib" "$N/libctorch.so"
cp -L "$glue" "$N/libctorch_csharp.so"
# Mono takes a relative dllmap target from the assembly's folder.
cat > "$P/lib/$tfm/$id.dll.config" <<XML
<?xml version="1.0" encoding="utf-8"?>
<!-- Mono: where Ctorch.dll's DllImport "ctorch_csharp" is in this package's layout. Leave this
     file out when Ctorch.dll and the runtimes/linux-x64/native/ files sit in one folder. -->
<configuration>
  <dllmap dll="ctorch_csharp" target="../../runtimes/linux-x64/native/libctorch_csharp.so" os="linux" />
</configuration>
XML
chmod 0644 "$P/lib/$tfm/"* && chmod 0755 "$N/"*.so
patchelf --set-rpath '$ORIGIN' "$N/libctorch_csharp.so"
readelf -d "$N/libctorch_csharp.so" | grep -q 'NEEDED.*\[libctorch\.so\]' ||
  { echo "nuget_pack.sh: libctorch_csharp.so does not need libctorch.so by that name" >&2; exit 1; }
readelf -d "$N/libctorch.so" | grep -q 'SONAME.*\[libctorch\.so\]' ||
  { echo "nuget_pack.sh: libctorch.so's soname is not libctorch.so (the glue's DT_NEEDED)" >&2; exit 1; }

# The Open Packaging Conventions parts NuGet writes (fixed ids, so the package is reproducible).
props=4f2d9c1ae0b34c7d8e6a5b3c2d1e0f9a
cat > "$P/[Content_Types].xml" <<'XML'
<?xml version="1.0" encoding="utf-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml" /><Default Extension="nuspec" ContentType="application/octet" /><Default Extension="dll" ContentType="application/octet" /><Default Extension="xml" ContentType="application/octet" /><Default Extension="config" ContentType="application/octet" /><Default Extension="so" ContentType="application/octet" /><Default Extension="psmdcp" ContentType="application/vnd.openxmlformats-package.core-properties+xml" /></Types>
XML
cat > "$P/_rels/.rels" <<XML
<?xml version="1.0" encoding="utf-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Type="http://schemas.microsoft.com/packaging/2010/07/manifest" Target="/$id.nuspec" Id="R0000000000000001" /><Relationship Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="/package/services/metadata/core-properties/$props.psmdcp" Id="R0000000000000002" /></Relationships>
XML
# dc:description and the rest from the nuspec, so that the package states them once.
field() { sed -n "s:.*<$1>\(.*\)</$1>.*:\1:p" "$P/$id.nuspec" | head -1; }
cat > "$P/package/services/metadata/core-properties/$props.psmdcp" <<XML
<?xml version="1.0" encoding="utf-8"?><coreProperties xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns="http://schemas.openxmlformats.org/package/2006/metadata/core-properties"><dc:creator>$(field authors)</dc:creator><dc:description>$(field description)</dc:description><dc:identifier>$id</dc:identifier><version>$ver</version><keywords>$(field tags)</keywords><lastModifiedBy>ctorch nuget_pack.sh</lastModifiedBy></coreProperties>
XML

S="$W/share/nuget"
E="$S/ctorch/$ver"
mkdir -p "$E"
nupkg="$S/$id.$ver.nupkg"
find "$P" -exec touch -h -d '1980-01-01 00:00:00 UTC' {} +
(cd "$P" && LC_ALL=C TZ=UTC zip -q -X -D -9 "$nupkg" "$id.nuspec" '[Content_Types].xml' _rels/.rels \
   "package/services/metadata/core-properties/$props.psmdcp" \
   $(find lib runtimes -type f | LC_ALL=C sort))

# The global-packages folder's layout (what NuGet leaves after extracting the package): the
# nuspec under the lower-case id, the package's SHA-512 (base64) and .nupkg.metadata, the
# content; not the OPC parts.
cp "$P/$id.nuspec" "$E/ctorch.nuspec"
cp -a "$P/lib" "$P/runtimes" "$E/"
hash="$(python3 -c 'import base64, hashlib, sys; print(base64.b64encode(hashlib.sha512(open(sys.argv[1], "rb").read()).digest()).decode())' "$nupkg")"
printf '%s' "$hash" > "$E/ctorch.$ver.nupkg.sha512"
printf '{\n  "version": 2,\n  "contentHash": "%s",\n  "source": null\n}' "$hash" > "$E/.nupkg.metadata"

tar -C "$W" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf "$out" share
