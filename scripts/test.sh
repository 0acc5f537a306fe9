#!/usr/bin/env bash
# The whole test suite: set up, then build and test twice — an optimised build, and a debug
# build under AddressSanitizer + UndefinedBehaviorSanitizer — and fuzz the model language for
# DIRAC_FUZZ_SECONDS (default 30). Ends with "N passed, N failed" counting the test programs
# of both builds and the fuzzing run.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 1

passed=0
failed=0
run_suite() {   # run_suite DIR CMAKE-ARGS...
  local dir=$1
  shift
  echo "== build $dir ($*)"
  if ! bash scripts/build.sh "$dir" "$@"; then
    echo "build of $dir failed"
    failed=$((failed + 1))
    return
  fi
  local log="$dir/ctest.log"
  (cd "$dir" && ctest --output-on-failure -j"$(nproc)") 2>&1 | tee "$log"
  local total bad
  total=$(sed -n 's/.*tests passed, \([0-9]*\) tests failed out of \([0-9]*\).*/\2/p' "$log")
  bad=$(sed -n 's/.*tests passed, \([0-9]*\) tests failed out of \([0-9]*\).*/\1/p' "$log")
  if [ -z "$total" ]; then
    failed=$((failed + 1))
    return
  fi
  passed=$((passed + total - bad))
  failed=$((failed + bad))
}

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
run_suite build
run_suite build-asan -DDIRAC_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug

# the thread-safety contract under ThreadSanitizer: concurrent simulations (tests/test_threads.c);
# OpenBLAS runs single-threaded there (its own thread pool is not instrumented)
echo "== ThreadSanitizer: test_threads"
if gcc -std=c11 -g -O1 -fsanitize=thread -DDIRAC_VERSION_STRING='"tsan"' \
     -DDIRAC_SOURCE_DIR="\"$PWD\"" -Iinclude -Isrc -Itests -I/usr/include/suitesparse \
     tests/test_threads.c src/*.c -lklu -llapacke -llapack -lblas -lm -lpthread \
     -o build/test_threads_tsan &&
   OPENBLAS_NUM_THREADS=1 TSAN_OPTIONS=halt_on_error=1 build/test_threads_tsan; then
  echo "tsan: passed"
  passed=$((passed + 1))
else
  echo "tsan: FAILED"
  failed=$((failed + 1))
fi

# libFuzzer on parse + compile + a few steps, under ASan + UBSan, for a bounded time
echo "== fuzz (${DIRAC_FUZZ_SECONDS:-30} s)"
if bash fuzz/run.sh "${DIRAC_FUZZ_SECONDS:-30}" >build/fuzz.log 2>&1; then
  tail -n 1 build/fuzz.log
  echo "fuzz: passed"
  passed=$((passed + 1))
else
  tail -n 30 build/fuzz.log
  echo "fuzz: FAILED (log: build/fuzz.log, crash inputs in fuzz/artifacts/)"
  failed=$((failed + 1))
fi

echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
