#!/usr/bin/env bash
# Configures and builds dirac into DIR (default build/); extra arguments go to cmake.
#   scripts/build.sh [DIR] [-DOPTION=VALUE]...
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$dir" -j"$(nproc)" >/dev/null
