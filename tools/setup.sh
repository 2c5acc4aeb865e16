#!/usr/bin/env bash
# Idempotent set-up: installs the Debian packages the build and the test suites need.
# Safe to run again: it installs only what is missing.
set -euo pipefail
PKGS=(bazel-bootstrap swig openjdk-17-jdk-headless junit4 mono-mcs mono-devel nunit-console
      golang-go libgtest-dev unzip zip g++ binutils libopenblas-dev libfftw3-dev python3
      cmake make pkg-config patchelf xz-utils
      nlohmann-json3-dev   # JSON for the safetensors header (impl/io)
      clang libclang-rt-14-dev libomp-dev)   # the fuzzing build (README.md, Fuzzing)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: CUDA 13 is expected at /usr/local/cuda (nvcc, cudart_static); it is not there" >&2
  exit 1
fi
