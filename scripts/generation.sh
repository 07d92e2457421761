#!/usr/bin/env bash
# One generation of the net, end to end and resumable: self-play games with
# the current net (in shards, as on a cluster), their merge, training, a
# gate match with an SPRT against the current net, and the record of it
# all for nets/README.md. Run it again after a stop: a shard's datagen
# goes on where it stopped, and each finished step (merged data, trained
# net, gate) is kept and skipped.
#
# Usage: scripts/generation.sh -n NAME [options] [ULTIMO]
#   ULTIMO      the binary (default: target/release/ultimo)
#   -n NAME     the new net's name (1-16 printable characters), e.g. g5
#   -c FILE     the current net (default: nets/default.bin, the built-in)
#   -w DIR      the work folder (default: gen/NAME)
#   -g GAMES    self-play games (default 210000)
#   -N NODES    iterations a move in self-play (default 1000)
#   -r PLIES    random plies opening each game (default 6)
#   -s SEED     seed of the self-play run (default 7000000)
#   -k SHARDS   shards of the run (default 1); -p only prints each shard's
#               command (for a job array) and stops; run again to merge
#   -t THREADS  threads of each datagen (default: the cores)
#   -e EPOCHS   training epochs (default 4; with -f, 3)
#   -l LAMBDA   weight of the result in the target (default 0.5; with -f,
#               1: the game's result alone, g14l1's recipe, nets/README.md)
#   -f          fine-tune: start from the current net (train --init) at a
#               tenth of the learning rate (0.0002, g11f's and g14l1's),
#               instead of fresh weights
#   -L LR       the learning rate at the start (default: train's 0.002;
#               with -f, 0.0002)
#   -d FILE     older data to train on too (repeatable)
#   -G GAMES    most gate games (default 2000; the SPRT may stop sooner)
#   -M NODES    gate: iterations a move (default 30000, about 100 ms of one
#               thread); -T MS plays a time a move instead
#   -S "E0 E1 A B"  the gate's SPRT (default "0 10 0.05 0.05")
#   -C N        gate games at once (default: the cores)
# The gate passes when the SPRT accepts H1 (the new net is better by
# about E1 Elo or more). Everything goes to DIR: shard-K.bin, data.bin,
# NAME.nnue, train.log, gate.pgn, gate.json, gate.log, and record.md, the
# section for nets/README.md with the commands and the gate's result.
set -euo pipefail

name=""
current=nets/default.bin
work=""
games=210000
nodes=1000
plies=6
seed=7000000
shards=1
print_only=false
threads=$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc)
epochs=
lambda=
finetune=false
lr=
older=()
gate_games=2000
gate_limit=(--nodes 30000)
sprt="0 10 0.05 0.05"
concurrency=$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc)
while getopts "n:c:w:g:N:r:s:k:pt:e:l:fL:d:G:M:T:S:C:h" opt; do
  case $opt in
    n) name=$OPTARG ;;
    c) current=$OPTARG ;;
    w) work=$OPTARG ;;
    g) games=$OPTARG ;;
    N) nodes=$OPTARG ;;
    r) plies=$OPTARG ;;
    s) seed=$OPTARG ;;
    k) shards=$OPTARG ;;
    p) print_only=true ;;
    t) threads=$OPTARG ;;
    e) epochs=$OPTARG ;;
    l) lambda=$OPTARG ;;
    f) finetune=true ;;
    L) lr=$OPTARG ;;
    d) older+=("$OPTARG") ;;
    G) gate_games=$OPTARG ;;
    M) gate_limit=(--nodes "$OPTARG") ;;
    T) gate_limit=(--movetime "$OPTARG") ;;
    S) sprt=$OPTARG ;;
    C) concurrency=$OPTARG ;;
    h) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "see $0 -h" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
ultimo=${1:-target/release/ultimo}
[ -n "$name" ] || { echo "generation.sh: give the new net's name with -n NAME" >&2; exit 2; }
[ -x "$ultimo" ] || { echo "generation.sh: no binary at $ultimo (cargo build --release)" >&2; exit 2; }
[ -f "$current" ] || { echo "generation.sh: no current net at $current" >&2; exit 2; }
work=${work:-gen/$name}
# A fine-tune's defaults are the recipe of the last nets whose gates
# passed (g11f: 3 epochs at lr 0.0002; g14l1: the same with lambda 1).
if $finetune; then epochs=${epochs:-3} lambda=${lambda:-1} lr=${lr:-0.0002}; else epochs=${epochs:-4} lambda=${lambda:-0.5}; fi
mkdir -p "$work"
say() { echo "generation $name: $*" >&2; }

# 1. Self-play with the current net, shard by shard (each resumable).
datagen=("$ultimo" datagen --eval net --net "$current" --games "$games" --nodes "$nodes"
  --random-plies "$plies" --seed "$seed" --threads "$threads")
if [ ! -f "$work/data.bin" ]; then
  for k in $(seq 1 "$shards"); do
    shard=(--out "$work/shard-$k.bin")
    [ "$shards" -gt 1 ] && shard=(--shard "$k/$shards" "${shard[@]}")
    if $print_only; then
      printf '%q ' "${datagen[@]}" "${shard[@]}"; echo
    else
      say "self-play, shard $k of $shards"
      "${datagen[@]}" "${shard[@]}"
    fi
  done
  $print_only && exit 0
  if [ "$shards" -gt 1 ]; then
    "$ultimo" datagen --merge "$work"/shard-*.bin --out "$work/data.bin"
  else
    mv "$work/shard-1.bin" "$work/data.bin"
  fi
fi

# 2. Training.
train=("$ultimo" train --data "$work/data.bin" "${older[@]}" --out "$work/$name.nnue"
  --name "$name" --epochs "$epochs" --lambda "$lambda" --seed 1)
$finetune && train+=(--init "$current")
[ -n "$lr" ] && train+=(--lr "$lr")
if [ ! -f "$work/$name.nnue" ]; then
  say "training"
  "${train[@]}" | tee "$work/train.log"
fi

# 3. The gate: the new net against the current one, both on this binary.
read -r -a sprt_args <<<"$sprt"
gate=("$ultimo" match
  --engine "cmd=$ultimo name=$name option.EvalFile=$work/$name.nnue"
  --engine "cmd=$ultimo name=current option.EvalFile=$current"
  --games "$gate_games" "${gate_limit[@]}" --random-plies 4 --seed "$((seed + 1))"
  --sprt "${sprt_args[@]}" --concurrency "$concurrency"
  --pgnout "$work/gate.pgn" --json "$work/gate.json")
if [ ! -f "$work/gate.json" ]; then
  say "gate match"
  rm -f "$work/gate.pgn"
  "${gate[@]}" | tee "$work/gate.log"
fi

# 4. The record.
decision=$(python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["standings"]["pairings"][0]; print(p["sprt"]["decision"])' "$work/gate.json")
{
  echo "## $name: $(sed -n 's/^wrote .*(net \(.*\))$/\1/p' "$work/train.log" 2>/dev/null | tail -1)"
  echo
  echo '```text'
  printf '%q ' "${datagen[@]}"; [ "$shards" -gt 1 ] && echo "--shard K/$shards ..." || echo "--out ..."
  printf '%q ' "${train[@]}"; echo
  printf '%q ' "${gate[@]}"; echo
  echo '```'
  echo
  echo "Gate (SPRT $sprt): **$decision**"
  echo
  echo '```text'
  grep -E '^(games|score|elo|nelo|pairs|end) ' "$work/gate.log" || true
  echo '```'
} >"$work/record.md"
say "gate: $decision; the record for nets/README.md is $work/record.md"
[ "$decision" = H1 ]
