# The prelude of the command-line tests (tests/cli_*.sh), sourced as their first command:
#   . "$(dirname "$0")/support/cli.sh"
# It takes the tool's path from $1 (made absolute, so that a test may cd), and gives a
# temporary directory $tmp removed at exit, the failure flag $fail that the test exits with,
# and the helpers below.
set -u
fail=0

# absolute PATH: PATH made absolute against the working directory ("" stays "")
absolute() {
  case $1 in /*|'') printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac
}

dirac=$(absolute "$1")
[ -x "$dirac" ] || { echo "FAILED $dirac is not an executable"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# check DESCRIPTION CONDITION...: runs the condition, prints "ok" or "FAILED" and the
# description, and marks the test failed
check() {
  local what=$1
  shift
  if "$@"; then echo "ok     $what"; else echo "FAILED $what"; fail=1; fi
}

# json_value FILE KEY: the value of a top-level scalar member of a summary (as written, one
# per line), without its quotes
json_value() {
  sed -n "s/^  \"$2\": \(.*\)/\1/p" "$1" | sed 's/,$//; s/^"//; s/"$//'
}

# csv_ok FILE: every row has the header's number of fields and only finite numbers
csv_ok() {
  awk -F, 'NR == 1 { n = NF; next }
           NF != n { print "row " NR ": " NF " fields, header has " n; bad = 1; exit }
           { for (i = 1; i <= NF; i++)
               if ($i !~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/) {
                 print "row " NR ": not a finite number: " $i; bad = 1; exit } }
           END { exit bad || NR < 2 }' "$1"
}
