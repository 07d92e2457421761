#!/usr/bin/env bash
# Coverage-guided fuzzing of every parser (fuzz/, cargo-fuzz + libFuzzer).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
# runs each target (all of them when none is named) for SECONDS (default
# 60), in turn, on stable Rust: cargo-fuzz builds without a sanitizer
# (`-s none`, Rust code is memory-safe) and needs no nightly flags. Each
# target starts from its committed seeds (fuzz/seeds/TARGET) and grows its
# corpus in fuzz/corpus/TARGET, kept between runs; a crash is written to
# fuzz/artifacts/TARGET/ and ends the script with status 1. One summary
# line per target: executions, seconds, coverage (edges), features, corpus.
# The full log of each run is in fuzz/logs/TARGET.log.
#
# Needs cargo-fuzz: `cargo install cargo-fuzz`.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
seconds=${1:-60}
shift || true
if ! [[ $seconds =~ ^[0-9]+$ ]] || [ "$seconds" -eq 0 ]; then
  echo "usage: scripts/fuzz.sh [SECONDS] [TARGET...] (SECONDS a whole number, at least 1)" >&2
  exit 2
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz.sh: cargo-fuzz is missing: cargo install cargo-fuzz" >&2
  exit 2
fi
all=$(cargo fuzz list)
targets=("$@")
[ ${#targets[@]} -eq 0 ] && mapfile -t targets <<<"$all"
for t in "${targets[@]}"; do
  grep -qx "$t" <<<"$all" || { echo "fuzz.sh: no target $t (targets: $(echo $all))" >&2; exit 2; }
done

# What each target may hold in memory (MB) and its longest input (bytes).
limits() {
  case $1 in
    protocol_ugi) echo "2048 65536" ;;
    pgn | gui_api | protocol_codingame | protocol_riddles | datagen_records) echo "512 65536" ;;
    net_file) echo "512 600000" ;;
    *) echo "256 16384" ;;
  esac
}

mkdir -p logs
cargo fuzz build -s none 2>logs/build.log || { cat logs/build.log >&2; exit 1; }
# The net file's seeds come from the built-in net (not committed twice):
# as it is, and with its checksum left to the target to fix.
mkdir -p corpus/net_file
{ printf '\0'; cat ../nets/default.bin; } >corpus/net_file/default
{ printf '\1'; cat ../nets/default.bin; } >corpus/net_file/default-fixed

failed=0
printf '%-20s %12s %8s %8s %8s %8s  %s\n' target execs seconds cov ft corpus result
for t in "${targets[@]}"; do
  read -r rss len < <(limits "$t")
  mkdir -p "corpus/$t" "artifacts/$t"
  log="logs/$t.log"
  status=ok
  cargo fuzz run -s none "$t" "corpus/$t" "seeds/$t" -- \
    -max_total_time="$seconds" -rss_limit_mb="$rss" -malloc_limit_mb="$rss" \
    -max_len="$len" -timeout=20 -print_final_stats=1 \
    -artifact_prefix="artifacts/$t/" >"$log" 2>&1 || status="FAILED (see fuzz/$log)"
  [ "$status" = ok ] || failed=1
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  corpus=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$last")
  printf '%-20s %12s %8s %8s %8s %8s  %s\n' "$t" "${execs:-?}" "$seconds" "${cov:-?}" "${ft:-?}" "${corpus:-?}" "$status"
done
exit $failed
