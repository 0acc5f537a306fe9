# The set-up shared by the benchmark drivers (bench/paper001.sh, bench/workprec.sh), sourced as
#   . "$(dirname "$0")/prelude.sh" BUILD-DIR OUT-SUBDIR "$@"
# Sets `top` (the source tree), `build` (top/BUILD-DIR) and `out`: the driver's first argument
# OUT_DIR (default build/OUT-SUBDIR), created and made absolute; `args` holds the driver's
# other arguments.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build="$top/$1"
out="${3:-$build/$2}"
args=("${@:4}")
mkdir -p "$out"
out=$(cd "$out" && pwd)
