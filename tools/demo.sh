#!/usr/bin/env bash
# Builds and runs the quickstart (CUDA if present, else CPU), after installing what is missing:
# the devices, tensors moved to the device, a stream and an event (CUDA), a seeded randn, a
# matmul, an rfft and the CUDA memory summary; it checks the values it prints.
# Usage: tools/demo.sh [c|java|csharp|go]   (default: c)
set -euo pipefail
cd "$(dirname "$0")/.."
lang="${1:-c}"
case "$lang" in
  c | java | csharp | go) ;;
  *) echo "usage: tools/demo.sh [c|java|csharp|go]   (got '$lang')" >&2; exit 2 ;;
esac
bash tools/setup.sh
bazel run --ui_event_filters=-info,-stdout,-stderr --noshow_progress "//examples/$lang:quickstart"
