#!/bin/bash
# The solver's benchmark: `ultimo solve` on each position of a list, with a
# limit per position; one line per position (result, plies, time, nodes),
# then totals. Times are the solver's own (`time_ms`, the table's
# allocation not counted); run it under /work/bin/quiet for timings.
#
#   scripts/solve-bench.sh [--time S | --nodes N] [--hash MIB] [--ultimo BIN]
#                          [--lines FROM-TO] [FILE]
#
# Defaults: --time 10, --hash 256, the release build, every line of
# scripts/solve-bench.txt (a FEN first on each line, `;` after it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
limit=(--time 10)
hash=256
ultimo="$here/../target/release/ultimo"
lines=""
file="$here/solve-bench.txt"
while [ $# -gt 0 ]; do
    case "$1" in
        --time|--nodes) limit=("$1" "$2"); shift 2 ;;
        --hash) hash="$2"; shift 2 ;;
        --ultimo) ultimo="$2"; shift 2 ;;
        --lines) lines="$2"; shift 2 ;;
        -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
        *) file="$1"; shift ;;
    esac
done
first=${lines%-*}; last=${lines#*-}
printf '%3s %4s %-7s %5s %9s %11s  %s\n' "#" "ply" result plies "time(s)" nodes "side"
n=0
results=()
while IFS= read -r line; do
    n=$((n + 1))
    if [ -n "$lines" ] && { [ "$n" -lt "$first" ] || [ "$n" -gt "$last" ]; }; then continue; fi
    fen=${line%%;*}
    [ -z "$fen" ] && continue
    json=$("$ultimo" solve --fen "$fen" "${limit[@]}" --hash "$hash" --json 2>/dev/null)
    row=$(jq -r '[.result, (.plies // "-"), (.time_ms / 1000), .nodes, .side, (.fen | split(" ") | .[0] | gsub("[^xo]"; "") | length)] | @tsv' <<<"$json")
    IFS=$'\t' read -r result plies secs nodes side ply <<<"$row"
    printf '%3d %4d %-7s %5s %9.3f %11d  %s\n' "$n" "$ply" "$result" "$plies" "$secs" "$nodes" "$side"
    results+=("$result $secs $nodes")
done < "$file"
totals=$(printf '%s\n' "${results[@]}" | awk '
    { n++; t += $2; nodes += $3; c[$1]++ }
    END {
        printf "%d %d %d %d %d %d %.3f %d\n", n, c["win"] + c["draw"] + c["loss"], c["win"], c["draw"], c["loss"], c["unknown"], t, nodes
    }')
read -r n k win draw loss unknown t nodes <<<"$totals"
median=$(printf '%s\n' "${results[@]}" | awk '$1 != "unknown" { print $2 }' | sort -n |
    awk '{ s[NR] = $1 } END { if (NR == 0) print 0; else if (NR % 2) print s[(NR + 1) / 2]; else print (s[NR / 2] + s[NR / 2 + 1]) / 2 }')
echo "answered $k of $n (win $win, draw $draw, loss $loss, unknown $unknown)"
awk -v m="$median" -v t="$t" -v nodes="$nodes" 'BEGIN { printf "median time of answered %.3f s, total time %.1f s, total nodes %d, %d nodes/s\n", m, t, nodes, (t > 0 ? nodes / t : 0) }'
