#!/usr/bin/env bash
# Installs the build into a temporary prefix and builds tests/install/consumer.c against the
# installed copy four ways: pkg-config (shared, and static with --static), find_package
# (dirac::dirac, dirac::dirac_static). Each program simulates a pendulum and checks the
# constraint residual. Also checks that the tool, the headers and the man page are installed.
#   install.sh BUILD_DIR SOURCE_DIR [EXTRA_CFLAGS]   (EXTRA_CFLAGS: the sanitizer flags)
set -euo pipefail
build=$1
src=$2
extra=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(dirname "$(find "$prefix" -name libdirac.a)")
[ -f "$libdir/libdirac.a" ] || fail "no libdirac.a"
ls "$libdir"/libdirac.so* >/dev/null || fail "no libdirac.so"
[ -f "$prefix/include/dirac/dirac.h" ] || fail "no include/dirac/dirac.h"
[ -f "$prefix/include/dirac/run.h" ] || fail "no include/dirac/run.h"
[ -x "$prefix/bin/dirac" ] || fail "no bin/dirac"
"$prefix/bin/dirac" --version | grep '^dirac [0-9]' >/dev/null || fail "bin/dirac --version"
man=$prefix/share/man/man1/dirac.1
[ -f "$man" ] || fail "no share/man/man1/dirac.1"
grep -q '^\.TH DIRAC 1' "$man" || fail "dirac.1 is not a man page"
if command -v groff >/dev/null; then
  [ -z "$(groff -man -Tutf8 -ww -z "$man" 2>&1)" ] || fail "groff warns about dirac.1"
fi
# the shared library exports the API and nothing else
if command -v nm >/dev/null; then
  others=$(nm -D --defined-only "$libdir/libdirac.so" | awk '$2 ~ /[TDBR]/ {print $3}' | grep -v '^dirac_' || true)
  [ -z "$others" ] || fail "libdirac.so exports non-API symbols: $(echo $others | head -c 200)"
fi

model=$src/examples/pendulum.dirac
export PKG_CONFIG_PATH=$libdir/pkgconfig
cc=${CC:-cc}
read -r -a cflags <<<"$(pkg-config --cflags dirac) $extra"

# pkg-config, shared
"$cc" "${cflags[@]}" -o "$work/pc_shared" "$src/tests/install/consumer.c" \
  $(pkg-config --libs dirac) -lm -Wl,-rpath,"$libdir"
ldd "$work/pc_shared" | grep "$libdir/libdirac.so" >/dev/null || fail "pc_shared does not use the installed libdirac.so"
"$work/pc_shared" "$model" || fail "pkg-config shared build"

# pkg-config, static: the same flags with --static, libdirac.a instead of -ldirac
"$cc" "${cflags[@]}" -o "$work/pc_static" "$src/tests/install/consumer.c" \
  $(pkg-config --static --libs dirac | sed 's/-ldirac\b/-l:libdirac.a/')
if ldd "$work/pc_static" | grep libdirac >/dev/null; then fail "pc_static links libdirac.so"; fi
"$work/pc_static" "$model" || fail "pkg-config static build"

# find_package
cmake -S "$src/tests/install" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_C_FLAGS="$extra" -DCMAKE_EXE_LINKER_FLAGS="$extra" >/dev/null || fail "find_package(dirac)"
cmake --build "$work/cmake" >/dev/null || fail "building against dirac::dirac"
ldd "$work/cmake/consumer_shared" | grep "$libdir/libdirac.so" >/dev/null || fail "dirac::dirac is not the installed libdirac.so"
"$work/cmake/consumer_shared" "$model" || fail "find_package shared build"
"$work/cmake/consumer_static" "$model" || fail "find_package static build"
echo "install: ok ($prefix)"
