#!/usr/bin/env bash
# The main job: set up, build, and run the demo of the current release.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh build
./build/dirac demo
