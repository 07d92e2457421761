#!/bin/bash
# A long `go infinite` through the protocol, as a GUI leaves analysis on:
# the engine's peak memory (peak RSS, against the Hash bound) and how its
# reports go on deepening, sampled at a few times.
#
#   scripts/long-analysis.sh [--seconds S] [--hash MIB] [--threads N]
#                            [--moves "M..."] [--ultimo BIN]
#
# Defaults: --seconds 600, --hash 16, --threads 1, the position after
# "e5 e4", the release build. Prints, for each sample time, the last
# report by then (time, depth, seldepth, nodes, hashfull, the first moves
# of the best line), then the peak RSS and the RSS of the same engine
# that only starts and quits, whose difference is what the search used.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
seconds=600
hash=16
threads=1
moves="e5 e4"
ultimo="$here/../target/release/ultimo"
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds="$2"; shift 2 ;;
        --hash) hash="$2"; shift 2 ;;
        --threads) threads="$2"; shift 2 ;;
        --moves) moves="$2"; shift 2 ;;
        --ultimo) ultimo="$2"; shift 2 ;;
        -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "error: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
if [[ ! -x $ultimo ]]; then
    echo "error: no binary at $ultimo (cargo build --release)" >&2
    exit 2
fi
if [[ ! -x /usr/bin/time ]]; then
    echo "error: /usr/bin/time is needed for the peak RSS (apt-get install time)" >&2
    exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "# go infinite for $seconds s, Hash $hash MiB, Threads $threads, position startpos moves $moves, $("$ultimo" --version)"
{
    echo "setoption name Hash value $hash"
    echo "setoption name Threads value $threads"
    echo "position startpos moves $moves"
    echo "go infinite"
    sleep "$seconds"
    echo "stop"
    sleep 1
    echo "quit"
} | /usr/bin/time -f "%M" -o "$work/rss" "$ultimo" > "$work/out"
echo "quit" | /usr/bin/time -f "%M" -o "$work/idle" "$ultimo" > /dev/null
python3 - "$work/out" "$seconds" "$(cat "$work/rss")" "$(cat "$work/idle")" "$hash" <<'EOF'
import sys
path, seconds, rss, idle, hash_mib = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
reports = []
for line in open(path):
    f = line.split()
    if not f or f[0] != 'info' or 'time' not in f or 'depth' not in f:
        continue
    def val(key):
        return f[f.index(key) + 1] if key in f else '-'
    pv = f[f.index('pv') + 1:f.index('pv') + 6] if 'pv' in f else []
    reports.append((int(val('time')), val('depth'), val('seldepth'), val('nodes'), val('hashfull'), ' '.join(pv)))
print(f"{'time':>8} {'depth':>5} {'seldepth':>8} {'nodes':>11} {'hashfull':>8}  pv")
marks = [t for t in (1, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600) if t < seconds] + [seconds]
for m in marks:
    seen = [r for r in reports if r[0] <= m * 1000]
    if seen:
        t, d, s, n, h, pv = seen[-1]
        print(f"{t / 1000:7.1f}s {d:>5} {s:>8} {n:>11} {h:>8}  {pv}")
print(f"peak RSS {rss / 1024:.1f} MiB; the engine started and quit: {idle / 1024:.1f} MiB; "
      f"the search's share {(rss - idle) / 1024:.1f} MiB against Hash {hash_mib} MiB")
EOF
