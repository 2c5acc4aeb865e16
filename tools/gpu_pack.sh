#!/usr/bin/env bash
# Builds the GPU bundle here (//tests/gpu:bundle: the GPU host has no Bazel) and unpacks it into
# gpu_artifacts/ (git-ignored), to be carried to the GPU host and run by tools/gpu_check.sh
# (and bench/run.sh). What the bundle holds is listed in tests/gpu/BUILD.
set -euo pipefail
cd "$(dirname "$0")/.."
bazel build //tests/gpu:bundle
rm -rf gpu_artifacts && mkdir -p gpu_artifacts
tar -C gpu_artifacts -xf "$(bazel info bazel-bin)/tests/gpu/gpu_bundle.tar"
du -sh gpu_artifacts
