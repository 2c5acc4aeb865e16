#!/usr/bin/env bash
# Builds the native test binaries here (the GPU host has no Bazel) and copies them into
# gpu_artifacts/ (git-ignored), to be carried to the GPU host and run by tools/gpu_check.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
bazel build //capi:libctorch.so //tests/capi:capi_test //tests/capi:device_test //tests/capi:layout_test //tests/capi:cuda_test //tests/impl:core_test //examples/c:quickstart //tests/gpu:alloc_trace //tests/capi:memory_test //tests/capi:pluggable_test //tests/capi:random_test //tests/capi:linalg_test //tests/capi:fft_test //tests/gpu:libmyalloc.so
rm -rf gpu_artifacts && mkdir -p gpu_artifacts
B=$(bazel info bazel-bin)
cp -L "$B/capi/libctorch.so" "$B/tests/capi/capi_test" "$B/tests/capi/device_test" "$B/tests/capi/layout_test" "$B/tests/capi/cuda_test" "$B/tests/impl/core_test" "$B/examples/c/quickstart" "$B/tests/gpu/alloc_trace" "$B/tests/capi/memory_test" "$B/tests/capi/pluggable_test" "$B/tests/capi/random_test" "$B/tests/capi/linalg_test" "$B/tests/capi/fft_test" "$B/tests/gpu/libmyalloc.so" gpu_artifacts/
chmod u+w gpu_artifacts/*
# OpenBLAS and FFTW for the CPU products and FFTs (the GPU host may lack them; the device tool
# carries at most 64 MiB): compressed, unpacked by gpu_check.sh
bash tools/gpu_blas.sh pack gpu_artifacts/blas
du -sh gpu_artifacts

# The Go binding's test binary too (the GPU host has no Go toolchain; the binary needs only
# libctorch.so, found through LD_LIBRARY_PATH there).
bazel build //bindings/go:module
ART="$PWD/gpu_artifacts"
T=$(mktemp -d)
tar -C "$T" -xf "$B/bindings/go/ctorch_go_module.tar"
chmod -R u+w "$T/ctorch"
cp tests/go/*_test.go "$T/ctorch/"
(cd "$T/ctorch" && CGO_ENABLED=1 CGO_LDFLAGS="-L$ART" GOFLAGS=-mod=mod GOPROXY=off \
  GOCACHE="$T/gocache" GOPATH="$T/gopath" HOME="$T" go test -c -o "$ART/go_ctorch.test" .)
rm -rf "$T"
# the two largest (device code for three targets) travel xz-compressed; gpu_check.sh and
# bench/run.sh unpack them
xz -6 -T2 gpu_artifacts/libctorch.so gpu_artifacts/core_test
du -sh gpu_artifacts
