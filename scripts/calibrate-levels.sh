#!/usr/bin/env bash
# The levels' ladder: each level of `ultimo levels` plays the one below it
# (level 1 plays the uniformly random mover, whose Elo is 0), with
# `ultimo match` at a fixed time a move, and the Elo steps add up to each
# level's measured Elo. Prints the markdown table that README.md shows:
# level, nominal Elo (UCI_Elo), the step over the level below with its
# interval, the measured Elo with its interval (the steps' half-widths
# added in quadrature), the difference from nominal, and the games.
# Last, full strength against level 10 (a step only).
#
# Usage: scripts/calibrate-levels.sh [-g GAMES] [-m MOVETIME_MS] [-s SEED]
#                                    [-G GAME] [-l "1 2 3 ..."] [ULTIMO]
#   ULTIMO     the binary (default: target/release/ultimo; build it with
#              `cargo build --release`)
#   -g GAMES   games a step, even (default 200)
#   -m MS      time a move (default 100); a level plays its own nodes
#              within it
#   -s SEED    seed of the random openings (default 1; step k uses SEED+k)
#   -G GAME    uttt (default) or super15, each on its own scale
#   -l LIST    the levels to measure (default: all, then full strength);
#              a level measured without the one below it in the same run
#              (a spot check, e.g. -l "3 6 9") starts from that level's
#              nominal Elo, and its interval is its step's alone
#   -c N       games at once (default: the cores)
# Elo is pentanomial (pairs of games with colours swapped), from openings
# of 2 random plies. Progress goes to standard error, the table to
# standard output.
set -euo pipefail

games=200
movetime=100
seed=1
game=uttt
list=""
concurrency=$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc)
while getopts "g:m:s:G:l:c:h" opt; do
  case $opt in
    g) games=$OPTARG ;;
    m) movetime=$OPTARG ;;
    s) seed=$OPTARG ;;
    G) game=$OPTARG ;;
    l) list=$OPTARG ;;
    c) concurrency=$OPTARG ;;
    *) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
ultimo=${1:-target/release/ultimo}
if [[ ! -x $ultimo ]]; then
  echo "error: no binary at $ultimo (cargo build --release)" >&2
  exit 2
fi
ultimo=$(cd "$(dirname "$ultimo")" && pwd)/$(basename "$ultimo")

# Each level's nominal Elo, from `ultimo levels` (its lines 2 to 11).
mapfile -t elos < <("$ultimo" levels --game "$game" | awk 'NR > 1 && $1 ~ /^[0-9]+$/ {print $2}')
levels=${#elos[@]}
if [[ -z $list ]]; then
  list="$(seq -s ' ' 1 "$levels") full"
fi

# An engine spec: "random", "full" or a level number.
spec() {
  case $1 in
    random) echo "cmd=$ultimo name=random option.RandomMove=true" ;;
    full) echo "cmd=$ultimo name=full" ;;
    *) echo "cmd=$ultimo name=level$1 option.UCI_LimitStrength=true option.UCI_Elo=${elos[$(($1 - 1))]}" ;;
  esac
}

# One step: `step A B K` plays A against B and prints "ELO LO HI" from the
# match's pentanomial line `elo penta +12.3 [-4.5, +29.0] (pentanomial)`.
step() {
  local out
  out=$("$ultimo" match --engine "$(spec "$1")" --engine "$(spec "$2")" \
    --games "$games" --movetime "$movetime" --random-plies 2 --seed $((seed + $3)) \
    --concurrency "$concurrency" --game "$game" 2>&1)
  echo "$out" | awk '/^elo penta/ {gsub(/[\[\],]/, " "); print $3, $4, $5}'
}

echo "| level | nominal Elo | step over the level below | measured Elo | measured - nominal | games |"
echo "|---|---|---|---|---|---|"
cum=0
var=0
last=0
for level in $list; do
  if [[ $level == full ]]; then
    below=$levels
    echo "full strength against level $below ($games games)..." >&2
  elif [[ $level == 1 ]]; then
    below=random
    echo "level 1 against the random mover ($games games)..." >&2
  else
    below=$((level - 1))
    echo "level $level against level $below ($games games)..." >&2
  fi
  k=$([[ $level == full ]] && echo $((levels + 1)) || echo "$level")
  read -r elo lo hi <<<"$(step "$level" "$below" "$k")"
  num='^[+-]?[0-9]'
  if ! [[ ${elo:-} =~ $num && ${lo:-} =~ $num && ${hi:-} =~ $num ]]; then
    echo "error: no finite Elo for $level against $below (one side won every game?)" >&2
    exit 1
  fi
  if [[ $level == full ]]; then
    echo "| full | - | $elo [$lo, $hi] | - | - | $games |"
    continue
  fi
  if ((level > 1 && last != level - 1)); then
    # A spot check: from the nominal Elo of the level below.
    cum=${elos[$((level - 2))]}
    var=0
  fi
  last=$level
  read -r cum var mid half diff <<<"$(awk -v c="$cum" -v v="$var" -v e="$elo" -v l="$lo" -v h="$hi" -v n="${elos[$((level - 1))]}" \
    'BEGIN { c += e; hw = (h - l) / 2; v += hw * hw; s = sqrt(v); printf "%.1f %.4f %.0f %.0f %+.0f\n", c, v, c, s, c - n }')"
  echo "| $level | ${elos[$((level - 1))]} | $elo [$lo, $hi] | $mid ± $half | $diff | $games |"
done
