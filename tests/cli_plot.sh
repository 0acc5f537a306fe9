#!/usr/bin/env bash
# `dirac plot`: PNG and SVG figures for the default view and every shortcut (--phase, --xy,
# --errors), overlays with labels, file names and titles that would be gnuplot commands if
# they were not quoted, exit 2 with a message for missing files and columns and bad options,
# exit 2 without gnuplot, exit 3 when gnuplot fails.
# usage: cli_plot.sh PATH-TO-DIRAC SOURCE-DIR
. "$(dirname "$0")/support/cli.sh"
src=$(absolute "$2")
cd "$tmp" || exit 1
# png_ok FILE [WIDTH HEIGHT]: PNG signature, an IHDR of that size, more than 3 kB
png_ok() {
  [ -f "$1" ] || { echo "no file $1"; return 1; }
  [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
    { echo "$1: not a PNG signature"; return 1; }
  local w=${2:-800} h=${3:-500} size
  size=$(od -An -tu1 -j16 -N8 "$1" | awk '{ print $3 * 256 + $4, $7 * 256 + $8 }')
  [ "$size" = "$w $h" ] || { echo "$1: size $size, expected $w $h"; return 1; }
  [ "$(wc -c <"$1")" -gt 3000 ] || { echo "$1: only $(wc -c <"$1") bytes"; return 1; }
}
# svg_ok FILE: parses as XML (python3 or xmllint when there is one) with an <svg> root element
svg_ok() {
  [ -f "$1" ] || { echo "no file $1"; return 1; }
  [ "$(wc -c <"$1")" -gt 3000 ] || { echo "$1: only $(wc -c <"$1") bytes"; return 1; }
  if command -v python3 >/dev/null 2>&1; then
    python3 - "$1" <<'EOF'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
sys.exit(0 if root.tag in ("svg", "{http://www.w3.org/2000/svg}svg") else 1)
EOF
  elif command -v xmllint >/dev/null 2>&1; then
    xmllint --noout "$1" && grep -q '<svg' "$1"
  else
    grep -q '<svg' "$1" && grep -q '</svg>' "$1"
  fi
}
# status_and_message EXPECTED-STATUS PATTERN COMMAND...: exit status and a stderr line
status_and_message() {
  local want=$1 pattern=$2 rc
  shift 2
  "$@" >out.txt 2>err.txt
  rc=$?
  [ "$rc" -eq "$want" ] || { echo "exit $rc, expected $want; stderr:"; cat err.txt; return 1; }
  grep -q -- "$pattern" err.txt || { echo "no '$pattern' in stderr:"; cat err.txt; return 1; }
}

check "help lists plot" sh -c "'$dirac' help | grep -q '^  plot '"
if ! command -v gnuplot >/dev/null 2>&1; then
  echo "FAILED gnuplot is not installed (bash scripts/setup.sh installs gnuplot-nox)"
  exit 1
fi

# trajectories: the pendulum with a constraint-residual output column, two methods
cat >pend.dirac <<EOF
model pend
component p = pendulum() from "$src/examples/pendulum.dirac"
output residual_rod = p.x^2 + p.y^2 - p.l^2
EOF
for m in midpoint dirac1; do
  "$dirac" simulate pend.dirac --method $m --dt 0.01 --t-end 4 -q --out $m.csv
  check "simulate $m" test -s $m.csv
done
"$dirac" simulate "$src/examples/pendulum.dirac" --t-end 2 --every 10 -q --out plain.csv

# every view as PNG and SVG
for ext in png svg; do
  check "default view .$ext exits 0" "$dirac" plot plain.csv -o default.$ext
  check "--phase p.x .$ext exits 0" "$dirac" plot midpoint.csv --phase p.x -o phase.$ext
  check "--xy .$ext exits 0" "$dirac" plot midpoint.csv dirac1.csv --xy p.x,p.y -o xy.$ext
  check "--errors .$ext exits 0" "$dirac" plot midpoint.csv dirac1.csv --errors -o errors.$ext
  check "--y --logy .$ext exits 0" "$dirac" plot midpoint.csv --y p.angle,residual_rod --logy \
    --x p.x -o logy.$ext
done
for f in default phase xy errors logy; do
  check "$f.png is a valid 800x500 PNG" png_ok $f.png
  check "$f.svg is a valid SVG" svg_ok $f.svg
done
check "--size 640x400" "$dirac" plot plain.csv --size 640x400 -o small.png
check "small.png is 640x400" png_ok small.png 640 400
check "--errors=energy" "$dirac" plot midpoint.csv dirac1.csv --errors=energy -o energy.png
check "--errors=constraints with labels, ranges, axis labels" "$dirac" plot midpoint.csv \
  dirac1.csv --errors=constraints --label "mid point" --label "Dirac-1" --yrange 1e-18:10 \
  --xrange 0:4 --xlabel "time (s)" --ylabel "|phi| (m^2)" -o constraints.png
check "energy.png is a valid PNG" png_ok energy.png
check "constraints.png is a valid PNG" png_ok constraints.png
# residual 0 at some rows on a log scale: a note, the figure is still drawn
printf 't,x,E,residual_a\n0,1,-1,0\n1,2,-1.5,0\n2,3,-1.25,0\n' >zero_residual.csv
check "a residual 0 at every row: a note, exit 0" status_and_message 0 \
  "residual_a| in zero_residual.csv has no positive value" "$dirac" plot zero_residual.csv \
  --errors -o partial.png
check "partial.png is a valid PNG" png_ok partial.png
check "--phase over several files" "$dirac" plot midpoint.csv dirac1.csv --phase p.y \
  --title "two methods" -o phase2.png

# quoting: file names and texts that gnuplot would run if they were not quoted
cp plain.csv "<touch pwned1;x.csv"
cp plain.csv "it's \`touch pwned2\`.csv"
check "CSV named '<command' and with quote/backquote: exit 0" "$dirac" plot \
  "<touch pwned1;x.csv" "it's \`touch pwned2\`.csv" -o "|touch pwned3 #.png" \
  --title "it's \`touch pwned4\` @x
system('touch pwned5')" --label "a'b" --label "\`touch pwned6\`"
check "no command ran" sh -c '! ls pwned* >/dev/null 2>&1'
check "the figure named '|touch pwned3 #.png' exists" png_ok "|touch pwned3 #.png"
mkdir -p sub
check "output in a subdirectory, CSV by absolute path" "$dirac" plot "$tmp/plain.csv" \
  -o sub/fig.svg
check "sub/fig.svg is a valid SVG" svg_ok sub/fig.svg

# errors: exit 2 with a message
check "missing CSV: exit 2" status_and_message 2 "cannot read 'nothere.csv'" \
  "$dirac" plot nothere.csv -o x.png
check "unknown column: exit 2, columns listed" status_and_message 2 \
  "no column 'nope' in plain.csv (columns: t, x, y" "$dirac" plot plain.csv --y x,nope -o x.png
check "unknown --x column: exit 2" status_and_message 2 "no column 'tt'" \
  "$dirac" plot plain.csv --x tt -o x.png
check "--phase without a velocity column: exit 2" status_and_message 2 "no column 'angle''" \
  "$dirac" plot plain.csv --phase angle -o x.png
check "--xy with an unknown column: exit 2" status_and_message 2 "no column 'z'" \
  "$dirac" plot plain.csv --xy x,z -o x.png
check "--xy without two names: exit 2" status_and_message 2 "--xy needs two column names" \
  "$dirac" plot plain.csv --xy x -o x.png
check "--errors=constraints without residual columns: exit 2" status_and_message 2 \
  "no constraint residual column" "$dirac" plot plain.csv --errors=constraints -o x.png
check "--errors=bogus: exit 2" status_and_message 2 "--errors=energy" \
  "$dirac" plot plain.csv --errors=bogus -o x.png
check "--phase and --xy together: exit 2" status_and_message 2 "cannot be combined" \
  "$dirac" plot plain.csv --phase x --xy x,y -o x.png
check "--errors and --y together: exit 2" status_and_message 2 "cannot be combined" \
  "$dirac" plot plain.csv --errors --y x -o x.png
check "no -o: exit 2" status_and_message 2 "no output file" "$dirac" plot plain.csv
check "no CSV: exit 2" status_and_message 2 "usage: dirac plot" "$dirac" plot -o x.png
check "output .jpg: exit 2" status_and_message 2 "must end in .png or .svg" \
  "$dirac" plot plain.csv -o x.jpg
check "labels do not match files: exit 2" status_and_message 2 "1 --label options for 2 files" \
  "$dirac" plot plain.csv midpoint.csv --label one -o x.png
check "unknown option: exit 2" status_and_message 2 "unknown option '--bogus'" \
  "$dirac" plot plain.csv --bogus -o x.png
check "bad --yrange: exit 2" status_and_message 2 "--yrange" \
  "$dirac" plot plain.csv --yrange 3 -o x.png
check "--yrange not positive on a log scale: exit 2" status_and_message 2 "positive limits" \
  "$dirac" plot plain.csv --logy --yrange 0:1 -o x.png
check "bad --size: exit 2" status_and_message 2 "--size needs" \
  "$dirac" plot plain.csv --size 20x20 -o x.png
head -n 1 plain.csv >header_only.csv
check "CSV without data rows: exit 2" status_and_message 2 "has no data rows" \
  "$dirac" plot header_only.csv -o x.png
: >empty.csv
check "empty CSV: exit 2" status_and_message 2 "is empty" "$dirac" plot empty.csv -o x.png
check "output that cannot be created: exit 2" status_and_message 2 "cannot create 'nodir/x.png'" \
  "$dirac" plot plain.csv -o nodir/x.png
check "refuses to overwrite a CSV: exit 2" status_and_message 2 "refusing to overwrite" \
  "$dirac" plot plain.csv.svg -o plain.csv.svg
check "--help prints the usage" sh -c "'$dirac' plot --help | grep -q 'usage: dirac plot'"

# without gnuplot on PATH: exit 2 naming the package; a failing gnuplot: exit 3
mkdir -p nognuplot fakebin
check "no gnuplot: exit 2 naming gnuplot-nox" status_and_message 2 "gnuplot-nox" \
  env PATH="$tmp/nognuplot" "$dirac" plot plain.csv -o x.png
printf '#!/bin/sh\necho "fake gnuplot: something went wrong" >&2\nexit 1\n' >fakebin/gnuplot
chmod +x fakebin/gnuplot
check "gnuplot fails: exit 3 with its message" status_and_message 3 \
  "gnuplot: fake gnuplot: something went wrong" env PATH="$tmp/fakebin:/usr/bin:/bin" \
  "$dirac" plot plain.csv -o failed.png
check "a failed figure is removed" test ! -e failed.png

[ "$fail" -eq 0 ] && echo "cli_plot: all passed"
exit "$fail"
