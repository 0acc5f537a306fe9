#!/bin/sh
# Builds the libFuzzer harness of the model language (load with component files from a
# virtual file system, parse, compile, analyse, a few simulation steps) with clang (address
# and undefined-behaviour sanitizers) and runs it for a bounded time, on inputs of up to 64 KB.
#   fuzz/run.sh [SECONDS]        default 30; crashes are written to fuzz/artifacts/
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
seconds=${1:-30}
if ! command -v clang >/dev/null 2>&1; then
    echo "fuzz/run.sh: clang not found (Debian package clang: apt-get install clang)" >&2
    exit 1
fi
out="$here/build"
mkdir -p "$out" "$here/artifacts"
sources=""
for f in "$root"/src/*.c; do
    sources="$sources $f"
done
# shellcheck disable=SC2086
clang -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
    -DDIRAC_VERSION_STRING='"fuzz"' -I"$root/include" -I"$root/src" -I/usr/include/suitesparse -I/usr/include/arpack \
    "$here/fuzz_parse.c" $sources -larpack -lklu -llapacke -llapack -lblas -lm -o "$out/fuzz_parse"
# a scratch copy of the corpus grows with what the fuzzer finds; the seeds stay as they are
mkdir -p "$out/corpus"
cp "$here"/corpus/*.dirac "$out/corpus/"
"$out/fuzz_parse" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$here/artifacts/" -dict="$here/dirac.dict" "$out/corpus"
