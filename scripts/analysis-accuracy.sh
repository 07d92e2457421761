#!/bin/bash
# Analysis against ground truth: `ultimo analyze` on each position of a
# list labelled by the solver (scripts/analysis-positions.txt, made by
# scripts/analysis-positions.py), with a given Hash and time each; prints
# one line per position, then the fraction whose best move keeps the
# proven value and the fraction whose reported result is right, each
# with its 95% interval.
#
#   scripts/analysis-accuracy.sh [--time S] [--hash MIB] [--jobs N]
#                                [--lines FROM-TO] [--ultimo BIN]
#                                [--out RESULTS] [FILE]
#
# Defaults: --time 1, --hash 16, --jobs 1 (positions analysed at once,
# one search thread each), the release build, every line of
# scripts/analysis-positions.txt. The reported result is the proven one
# when the best line has a proof, else the largest of its win, draw and
# loss chances. With --jobs above 1 the positions share the machine's
# cores: keep it at most the number of cores, as each search is timed.
# With --out, each result line is also appended to RESULTS as it comes,
# positions already there are skipped, and the fractions count every
# result in RESULTS within the lines asked for: a long run (60 s a
# position is four hours) can stop and go on where it left off.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
time=1
hash=16
jobs=1
lines=""
out=""
ultimo="$here/../target/release/ultimo"
file="$here/analysis-positions.txt"
while [ $# -gt 0 ]; do
    case "$1" in
        --time) time="$2"; shift 2 ;;
        --hash) hash="$2"; shift 2 ;;
        --jobs) jobs="$2"; shift 2 ;;
        --lines) lines="$2"; shift 2 ;;
        --ultimo) ultimo="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "error: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) file="$1"; shift ;;
    esac
done
if [[ ! -x $ultimo ]]; then
    echo "error: no binary at $ultimo (cargo build --release)" >&2
    exit 2
fi
total=$(grep -c . "$file")
first=1; last=$total
if [[ -n $lines ]]; then first=${lines%-*}; last=${lines#*-}; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One position: its line number and text in, one result line out.
one() {
    local n=$1 line=$2
    local fen=${line%%;*}
    "$ultimo" analyze --fen "$fen" --time "$time" --hash "$hash" --threads 1 \
        --multipv 1 --json > "$work/$n.json"
    python3 - "$n" "$line" "$work/$n.json" <<'EOF'
import json, sys
n, line, path = sys.argv[1], sys.argv[2], sys.argv[3]
fields = dict(f.split(' ', 1) for f in line.split(';')[1:] if ' ' in f)
value, keep, ply = fields['value'], fields['keep'].split(), fields['ply']
a = json.load(open(path))
best = a['lines'][0]
if best.get('proven'):
    reported, how = best['proven']['result'], 'proven'
else:
    w, d, l = best['wdl']
    reported, how = max(zip((w, d, l), ('win', 'draw', 'loss')))[1], 'wdl'
ok_move = best['move'] in keep
ok_result = reported == value
print(f"{int(n):4} {ply:>3} {value:5} {best['move']:4} {'yes' if ok_move else 'NO':4} "
      f"{reported:5} {how:6} {'yes' if ok_result else 'NO':4} {a['depth']:5} {a['seldepth']:8} "
      f"{a['nodes']:10} {a['hashfull']:8}")
EOF
}
export -f one
export ultimo time hash work

header="# $(basename "$file") lines $first-$last, --time $time --hash $hash, $jobs at once, $("$ultimo" --version)"
echo "$header"
# The positions already in RESULTS (their numbers), to skip.
declare -A done=()
if [[ -n $out ]]; then
    touch "$out"
    while read -r n _; do done[$n]=1; done < <(grep -v '^#' "$out" || true)
    if [[ ${#done[@]} -gt 0 ]]; then
        echo "# ${#done[@]} results already in $out: those positions are skipped"
    fi
    echo "$header" >> "$out"
fi
printf '%4s %3s %-5s %-4s %-4s %-5s %-6s %-4s %5s %8s %10s %8s\n' \
    "#" ply value best keep says from right depth seldepth nodes hashfull
sed -n "${first},${last}p" "$file" | awk -v f="$first" '{print f + NR - 1 "\t" $0}' |
    while IFS=$'\t' read -r n line; do
        if [[ -z ${done[$n]:-} ]]; then printf '%s\0%s\0' "$n" "$line"; fi
    done |
    xargs -0 -n 2 -P "$jobs" bash -c 'one "$1" "$2"' _ |
    if [[ -n $out ]]; then tee -a "$out"; else tee "$work/results"; fi
python3 - "${out:-$work/results}" "$first" "$last" <<'EOF'
import math, sys
first, last = int(sys.argv[2]), int(sys.argv[3])
rows = [l.split() for l in open(sys.argv[1]) if l.strip() and not l.startswith('#')]
rows = [r for r in rows if first <= int(r[0]) <= last]
n = len(rows)
def frac(k):
    # The share and its 95% Wilson interval.
    if n == 0:
        return "-"
    p, z = k / n, 1.96
    mid = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return f"{k}/{n} = {100 * p:.1f}% [{100 * (mid - half):.1f}, {100 * (mid + half):.1f}]"
moves = sum(r[4] == 'yes' for r in rows)
results = sum(r[7] == 'yes' for r in rows)
print(f"best move keeps the value  {frac(moves)}")
print(f"reported result is right   {frac(results)}")
EOF
