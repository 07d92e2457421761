#!/bin/bash
# Ultimo's solver against nelhage/ultimattt's df-pn (single-threaded,
# `analyze --engine=dfpn`) on the solver's benchmark, with the same limit
# per position and the same table memory; the table in docs/solver.md.
# Build ultimattt yourself, outside this repository; nothing of it is here.
#
#   scripts/solve-compare.sh ULTIMATTT [--time S] [--hash MIB] [--ultimo BIN]
#                            [--lines FROM-TO] [FILE]
#
# One line per position: Ultimo's result (win, draw, loss or unknown for the
# side to move, '-' for what it knows of an unknown one) and time, then
# ultimattt's answer to its question "does the side to move win?" (yes, no,
# or '-' when it did not finish within the limit, enforced with `timeout` as
# its df-pn does not stop by itself) and its reported time, and whether the
# two disagree on that question. Times are each program's own (its table's
# set-up not counted). Then: how many each answers, the median times on the
# positions both answer, and the disagreements. Defaults: --time 10,
# --hash 256, the release build, scripts/solve-bench.txt. Run it under
# /work/bin/quiet for timings, in batches with --lines. A NO is worth a
# look on both sides: stock ultimattt's endgame shortcuts prove some wins
# that are not there (docs/solver.md).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ultimattt="$1"; shift
limit=10
hash=256
ultimo="$here/../target/release/ultimo"
lines=""
file="$here/solve-bench.txt"
while [ $# -gt 0 ]; do
    case "$1" in
        --time) limit="$2"; shift 2 ;;
        --hash) hash="$2"; shift 2 ;;
        --ultimo) ultimo="$2"; shift 2 ;;
        --lines) lines="$2"; shift 2 ;;
        *) file="$1"; shift ;;
    esac
done
first=${lines%-*}; last=${lines#*-}
printf '%3s %4s %-8s %8s  %-4s %8s  %s\n' "#" ply ultimo "time(s)" dfpn "time(s)" agree
rows=()
n=0
while IFS= read -r line; do
    n=$((n + 1))
    if [ -n "$lines" ] && { [ "$n" -lt "$first" ] || [ "$n" -gt "$last" ]; }; then continue; fi
    fen=${line%%;*}
    [ -z "$fen" ] && continue
    # Ultimo: the full value; its answer to "does the side to move win?"
    # is yes for a win, no for a draw or a loss or once a win is ruled out.
    json=$("$ultimo" solve --fen "$fen" --time "$limit" --hash "$hash" --json 2>/dev/null)
    read -r result upper secs ply < <(jq -r '[.result, .upper, (.time_ms / 1000),
        (.fen | split(" ") | .[0] | gsub("[^xo]"; "") | length)] | @tsv' <<<"$json")
    case "$result/$upper" in
        win/*) uwins=yes ;;
        draw/* | loss/* | unknown/draw | unknown/loss) uwins=no ;;
        *) uwins=- ;;
    esac
    pos=$(python3 "$here/ultimattt-notation.py" "$fen")
    out=$(timeout "$limit" "$ultimattt" analyze --engine=dfpn --table-mem="${hash}M" "$pos" 2>/dev/null || true)
    answer=$(grep -o 'result=[A-Za-z]*' <<<"$out" | cut -d= -f2 || true)
    dsecs=$(grep -o 'time=[0-9.]*' <<<"$out" | cut -d= -f2 || true)
    case "$answer" in
        True) dwins=yes ;;
        False) dwins=no ;;
        *) dwins=-; dsecs=- ;;
    esac
    agree=""
    if [ "$uwins" != - ] && [ "$dwins" != - ]; then
        [ "$uwins" = "$dwins" ] && agree=yes || agree=NO
    fi
    shown=$result
    [ "$result" = unknown ] && [ "$uwins" = no ] && shown="not-win"
    [ "$uwins" = - ] && secs=-
    printf '%3d %4d %-8s %8s  %-4s %8s  %s\n' "$n" "$ply" "$shown" "$secs" "$dwins" "$dsecs" "$agree"
    rows+=("$n $result $uwins $secs $dwins $dsecs $agree")
done < "$file"
printf '%s\n' "${rows[@]}" | awk '
    function median(a, k,   i, j, t) {
        for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
        return k == 0 ? 0 : (k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2)
    }
    {
        n++
        if ($2 != "unknown") full++
        if ($3 != "-") u++
        if ($5 != "-") d++
        if ($3 != "-" && $5 != "-") { both++; us[both] = $4; ds[both] = $6 }
        if ($3 != "-" && $5 == "-") uonly++
        if ($3 == "-" && $5 != "-") donly++
        if ($7 == "NO") { bad++; badlist = badlist " " $1 }
    }
    END {
        printf "positions %d; win-or-not answered: ultimo %d (full value %d), ultimattt %d; both %d, only ultimo %d, only ultimattt %d\n", n, u, full, d, both, uonly, donly
        printf "median time on the %d both answer: ultimo %.3f s, ultimattt %.3f s\n", both, median(us, both), median(ds, both)
        printf "disagreements on win-or-not: %d%s\n", bad, badlist
    }'
