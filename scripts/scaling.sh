#!/usr/bin/env bash
# How the search scales with threads on this machine, as a markdown table
# for the README: at 1, 2, 4, 8 and 16 threads (those up to the cores),
# the bench's iterations per second with the net and with playouts (their
# ratio to 1 thread from the same run), and a short match of N threads
# against 1 at a fixed time a move (default engine, random openings).
#
# Usage: scripts/scaling.sh [-g GAMES] [-m MOVETIME_MS] [-t "1 2 4 ..."] [ULTIMO]
#   ULTIMO     the binary (default: target/release/ultimo; build it with
#              `cargo build --release`)
#   -g GAMES   games per match, even (default 40; 400 for a figure to quote)
#   -m MS      time a move (default 100)
#   -t LIST    thread counts (default: 1 2 4 8 16, those up to the cores)
# Run it on an otherwise idle machine: the figures are timings. Progress goes
# to standard error, the table to standard output.
set -euo pipefail

games=40
movetime=100
list="1 2 4 8 16"
while getopts "g:m:t:h" opt; do
  case $opt in
    g) games=$OPTARG ;;
    m) movetime=$OPTARG ;;
    t) list=$OPTARG ;;
    *) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
ultimo=${1:-target/release/ultimo}
if [[ ! -x $ultimo ]]; then
  echo "error: no binary at $ultimo (cargo build --release)" >&2
  exit 2
fi
ultimo=$(cd "$(dirname "$ultimo")" && pwd)/$(basename "$ultimo")
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc)
threads=()
for t in $list; do
  if ((t <= cores)); then threads+=("$t"); fi
done

# The last line of `ultimo bench` is `<nodes> nodes <nps> nps`.
nps() { "$ultimo" bench --threads "$1" --eval "$2" | tail -n 1 | awk '{print $3}'; }

# The match's pentanomial Elo line: `elo penta +12.3 [-4.5, +29.0] ...`.
match() {
  local t=$1 out
  out=$("$ultimo" match --engine "cmd=$ultimo name=threads$t option.Threads=$t" \
    --engine "cmd=$ultimo name=threads1 option.Threads=1" \
    --games "$games" --movetime "$movetime" --random-plies 4 --seed 1 2>&1)
  local wdl elo
  wdl=$(echo "$out" | awk '/^games/ {print $4 " / " $6 " / " $8}')
  elo=$(echo "$out" | awk '/^elo penta/ {sub(/^elo penta +/, ""); sub(/ \(pentanomial\)/, ""); print}')
  echo "$wdl | $elo"
}

cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || true)
echo "${cpu:-unknown CPU}, $cores cores: \`scripts/scaling.sh -g $games -m $movetime\`"
echo
echo "| threads | bench, net (it/s) | ratio | bench, playouts (it/s) | ratio | vs 1 thread, $movetime ms a move: W / D / L | Elo |"
echo "|---|---|---|---|---|---|---|"
base_net=
base_playout=
for t in "${threads[@]}"; do
  echo "threads $t: bench" >&2
  net=$(nps "$t" net)
  playout=$(nps "$t" playout)
  base_net=${base_net:-$net}
  base_playout=${base_playout:-$playout}
  rn=$(awk -v a="$net" -v b="$base_net" 'BEGIN {printf "%.2fx", a / b}')
  rp=$(awk -v a="$playout" -v b="$base_playout" 'BEGIN {printf "%.2fx", a / b}')
  if ((t == 1)); then
    result="- | -"
  else
    echo "threads $t: $games games against 1 thread" >&2
    result=$(match "$t")
  fi
  echo "| $t | $net | $rn | $playout | $rp | $result |"
done
