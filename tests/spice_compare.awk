# Compares node voltages of a dirac CSV (first file: columns t, ..., v_NODE, ...) with an
# ngspice `wrdata ... all` table (second file: columns time, NODE, ..., time, BRANCH#branch):
# dirac's samples are interpolated linearly at ngspice's time points. Prints, per node, the
# largest difference relative to the node's peak |v| over the run, and exits 1 when one
# exceeds `tol` (passed with -v tol=...).
BEGIN { FS = "," }
FNR == 1 && NR == 1 {
    for (k = 1; k <= NF; k++) {
        if ($k == "t") tcol = k
        if ($k ~ /^v_/) { dcol[substr($k, 3)] = k }
    }
    next
}
NR == FNR {
    n++
    dt[n] = $tcol + 0
    for (name in dcol) dv[name, n] = $(dcol[name]) + 0
    next
}
FNR == 1 {
    FS = " "
    $0 = $0
    for (k = 1; k <= NF; k++) {
        name = tolower($k)
        gsub(/[^a-z0-9_]/, "_", name)
        if ($k != "time" && $k !~ /#/ && (name in dcol)) { ncol[k] = name; found++ }
        else if ($k != "time" && $k !~ /#/) { missing = missing " " $k }
    }
    next
}
{
    t = $1 + 0
    if (t > dt[n]) next
    while (j < n - 1 && dt[j + 1] <= t) j++
    if (j < 1) j = 1
    w = (dt[j + 1] > dt[j]) ? (t - dt[j]) / (dt[j + 1] - dt[j]) : 0
    for (k in ncol) {
        name = ncol[k]
        v = dv[name, j] + w * (dv[name, j + 1] - dv[name, j])
        d = v - $k; if (d < 0) d = -d
        a = $k + 0; if (a < 0) a = -a
        if (d > maxd[name]) maxd[name] = d
        if (a > peak[name]) peak[name] = a
    }
    rows++
}
END {
    if (missing != "") { printf "ngspice nodes without a dirac column:%s\n", missing; exit 1 }
    if (found == 0 || rows < 10) { printf "nothing compared (%d nodes, %d rows)\n", found, rows; exit 1 }
    worst = 0
    for (name in maxd) {
        r = peak[name] > 0 ? maxd[name] / peak[name] : maxd[name]
        if (r > worst) { worst = r; wname = name }
    }
    printf "%d nodes, %d ngspice rows: worst node %s, max |dirac - ngspice| / peak = %.2e\n", found, rows, wname, worst
    exit worst > tol ? 1 : 0
}
