#!/usr/bin/env bash
# The dirac tool's basic contract: --version, help, demo, and exit 2 on unknown commands.
# usage: cli_basics.sh PATH-TO-DIRAC
. "$(dirname "$0")/support/cli.sh"
out=$("$dirac" --version); rc=$?
check "--version exits 0" test $rc -eq 0
check "--version prints the version" grep -Eq '^dirac [0-9]+\.[0-9]+\.[0-9]+$' <<<"$out"
out=$("$dirac" help); rc=$?
check "help exits 0" test $rc -eq 0
check "help lists demo with a description" grep -Eq '^  demo +[a-z]' <<<"$out"
out=$("$dirac" demo); rc=$?
check "demo exits 0" test $rc -eq 0
angle=$(sed -n 's/.*largest principal angle \([0-9.e+-]*\) rad.*/\1/p' <<<"$out")
check "demo: interconnected structure equals the induced one (angle <= 1e-12)" \
  awk -v a="$angle" 'BEGIN { exit !(a != "" && a + 0 <= 1e-12) }'
err=$("$dirac" frobnicate 2>&1 >/dev/null); rc=$?
check "unknown command exits 2" test $rc -eq 2
check "unknown command is named in the message" grep -q "unknown command 'frobnicate'" <<<"$err"
exit $fail
