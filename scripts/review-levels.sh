#!/usr/bin/env bash
# How each level plays, as the project's own review judges it: every level
# of `ultimo levels` (and full strength) plays itself with `ultimo match`,
# then `ultimo analyze --pgn --review` judges every move of those games
# (opening moves marked {book} are not judged). Prints a markdown table:
# level, nominal Elo, moves judged, average loss in winning chances, and
# the rates of inaccuracies (?!), mistakes (?) and blunders (??).
#
# Usage: scripts/review-levels.sh [-n GAMES] [-N NODES] [-m MS] [-s SEED]
#                                 [-G GAME] [-l "1 2 ... full"] [ULTIMO]
#   ULTIMO     the binary (default: target/release/ultimo)
#   -n GAMES   games a level, even (default 10)
#   -N NODES   the review's iterations a position (default 20000; one
#              thread, so the marks repeat)
#   -m MS      the games' time a move (default 100)
#   -s SEED    seed of the random openings (default 1)
#   -G GAME    uttt (default) or super15
#   -l LIST    the levels (default: all, then full)
# Progress goes to standard error, the table to standard output.
set -euo pipefail

games=10
nodes=20000
movetime=100
seed=1
game=uttt
list=""
while getopts "n:N:m:s:G:l:h" opt; do
  case $opt in
    n) games=$OPTARG ;;
    N) nodes=$OPTARG ;;
    m) movetime=$OPTARG ;;
    s) seed=$OPTARG ;;
    G) game=$OPTARG ;;
    l) list=$OPTARG ;;
    *) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
ultimo=${1:-target/release/ultimo}
if [[ ! -x $ultimo ]]; then
  echo "error: no binary at $ultimo (cargo build --release)" >&2
  exit 2
fi
ultimo=$(cd "$(dirname "$ultimo")" && pwd)/$(basename "$ultimo")
mapfile -t elos < <("$ultimo" levels --game "$game" | awk 'NR > 1 && $1 ~ /^[0-9]+$/ {print $2}')
if [[ -z $list ]]; then
  list="$(seq -s ' ' 1 "${#elos[@]}") full"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

spec() {
  case $1 in
    full) echo "cmd=$ultimo name=$2" ;;
    *) echo "cmd=$ultimo name=$2 option.UCI_LimitStrength=true option.UCI_Elo=${elos[$(($1 - 1))]}" ;;
  esac
}

echo "| level | nominal Elo | moves judged | average loss | ?! a move | ? a move | ?? a move |"
echo "|---|---|---|---|---|---|---|"
for level in $list; do
  pgn="$work/level-$level.pgn"
  echo "level $level: $games games against itself..." >&2
  "$ultimo" match --engine "$(spec "$level" a)" --engine "$(spec "$level" b)" \
    --games "$games" --movetime "$movetime" --random-plies 2 --seed "$seed" \
    --game "$game" --pgnout "$pgn" >/dev/null 2>&1
  # Each game's summary lines: `x: 30 moves, 1 inaccuracy, 0 mistakes,
  # 2 blunders, average loss 0.12`.
  for ((g = 1; g <= games; g++)); do
    echo "level $level: reviewing game $g of $games..." >&2
    "$ultimo" analyze --pgn "$pgn" --game-number "$g" --nodes "$nodes" --threads 1 \
      --hash 64 2>/dev/null | grep -E '^[xo]: [0-9]+ moves' || true
  done >"$work/summary-$level.txt"
  nominal=$([[ $level == full ]] && echo - || echo "${elos[$((level - 1))]}")
  awk -v level="$level" -v nominal="$nominal" '
    {
      gsub(/,/, "");
      moves += $2; inacc += $4; mist += $6; blund += $8; loss += $2 * $NF
    }
    END {
      if (moves == 0) { printf "| %s | %s | 0 | - | - | - | - |\n", level, nominal; exit }
      printf "| %s | %s | %d | %.3f | %.3f | %.3f | %.3f |\n", level, nominal, moves,
        loss / moves, inacc / moves, mist / moves, blund / moves
    }' "$work/summary-$level.txt"
done
