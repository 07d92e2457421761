#!/usr/bin/env bash
# The test suite on a busy machine: `cargo test` RUNS times in a row (10 by
# default), each beside one spinning shell loop per core at the same
# priority, started before the run and killed after it. Prints one line a
# run (exit status, seconds, load average, test binaries passed and
# failed) and keeps each run's output in $LOGS/run-N.log.
#
#   scripts/stress-tests.sh [RUNS]
set -u
cd "$(dirname "$0")/.." || exit 1
runs=${1:-10}
logs=${LOGS:-target/stress}
mkdir -p "$logs"
cores=$(nproc)
git log --oneline -1 | cat
cargo test --no-run >"$logs/build.log" 2>&1 || { echo "the build failed: $logs/build.log"; exit 1; }
failed=0
for i in $(seq 1 "$runs"); do
  spinners=()
  for _ in $(seq 1 "$cores"); do
    (while :; do :; done) &
    spinners+=($!)
  done
  start=$(date +%s)
  cargo test >"$logs/run-$i.log" 2>&1
  rc=$?
  kill "${spinners[@]}" 2>/dev/null
  wait "${spinners[@]}" 2>/dev/null
  [ "$rc" -eq 0 ] || failed=$((failed + 1))
  echo "run $i: exit $rc, $(($(date +%s) - start)) s, load $(cut -d' ' -f1-3 /proc/loadavg)," \
    "$(grep -c '^test result: ok' "$logs/run-$i.log") binaries ok, $(grep -c '^test result: FAILED' "$logs/run-$i.log") failed"
done
echo "$((runs - failed)) of $runs runs green"
[ "$failed" -eq 0 ]
