#!/usr/bin/env bash
# Builds and runs the quickstart (CUDA if present, else CPU), after installing what is missing.
# Usage: tools/demo.sh [c|java|csharp|go]   (default: c)
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
lang="${1:-c}"
bazel run --ui_event_filters=-info,-stdout,-stderr --noshow_progress "//examples/$lang:quickstart"
