#!/usr/bin/env bash
# The whole test suite: set up, then build and test twice — an optimised build, and a debug
# build under AddressSanitizer + UndefinedBehaviorSanitizer — and fuzz the model language for
# DIRAC_FUZZ_SECONDS (default 30); install the Python package (python/) into a fresh virtual
# environment and run its pytest tests. Ends with "N passed, N failed" counting the test
# programs of both builds, the fuzzing run and the Python tests.
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
     -DDIRAC_SOURCE_DIR="\"$PWD\"" -Iinclude -Isrc -Itests -Itests/support -I/usr/include/suitesparse -I/usr/include/arpack \
     tests/test_threads.c src/*.c -larpack -lklu -llapacke -llapack -lblas -lm -lpthread -ldl \
     -o build/test_threads_tsan &&
   OPENBLAS_NUM_THREADS=1 TSAN_OPTIONS=halt_on_error=1 build/test_threads_tsan; then
  echo "tsan: passed"
  passed=$((passed + 1))
else
  echo "tsan: FAILED"
  failed=$((failed + 1))
fi

# The Python package, built against an installation of the optimised build (build/install) and
# installed into a fresh virtual environment that uses Debian's numpy and cffi
# (--system-site-packages; no build isolation, so no package index is needed); then pytest.
run_python() {
  echo "== python package"
  local py=/usr/bin/python3 venv=build/venv log=build/pytest.log
  [ -x "$py" ] || py=python3
  rm -rf "$venv" build/install
  if ! cmake --install build --prefix build/install >/dev/null ||
     ! "$py" -m venv --system-site-packages "$venv" ||
     ! DIRAC_PREFIX=$PWD/build/install "$venv/bin/pip" install -q --no-build-isolation ./python; then
    echo "python package: installation failed"
    failed=$((failed + 1))
    return
  fi
  DIRAC_CLI=$PWD/build/dirac "$venv/bin/python" -m pytest -q -p no:cacheprovider python/tests 2>&1 |
    tee "$log"
  local summary good bad
  summary=$(tail -n 1 "$log")
  good=$(echo "$summary" | sed -n 's/.* \([0-9][0-9]*\) passed.*/\1/p; s/^\([0-9][0-9]*\) passed.*/\1/p' | head -n 1)
  bad=$(echo "$summary" | grep -o '[0-9]* \(failed\|error\|errors\)' | awk '{s += $1} END {print s + 0}')
  if [ -z "$good" ] && [ "$bad" -eq 0 ]; then
    echo "python package: pytest did not report"
    failed=$((failed + 1))
    return
  fi
  passed=$((passed + ${good:-0}))
  failed=$((failed + bad))
}
run_python

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
