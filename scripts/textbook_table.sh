#!/usr/bin/env bash
# Regenerates the model x method matrix of docs/methods.md ("Every method on every model class")
# from the textbook suite (tests/test_textbook.c), between the textbook-matrix markers.
#   scripts/textbook_table.sh [BUILD_DIR]     (default build/; build it first)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
table=$(mktemp)
trap 'rm -f "$table" "$table.doc"' EXIT
if ! DIRAC_TEXTBOOK_TABLE="$table" "$dir/tests/test_textbook" >/dev/null; then
  echo "textbook_table: the textbook suite fails; fix it before documenting it" >&2
  exit 1
fi
awk -v table="$table" '
  /<!-- textbook-matrix:begin -->/ { print; while ((getline line < table) > 0) print line; skip = 1; next }
  /<!-- textbook-matrix:end -->/   { skip = 0 }
  !skip' docs/methods.md > "$table.doc"
grep -q 'textbook-matrix:end' "$table.doc" || { echo "textbook_table: markers missing" >&2; exit 1; }
cp "$table.doc" docs/methods.md
echo "docs/methods.md: textbook matrix updated"
