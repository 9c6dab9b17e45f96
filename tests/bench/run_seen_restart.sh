#!/usr/bin/env bash
# Seen-set restart time (clean close, snapshot + 1% tail after a crash, no
# snapshot at all) and rebuild time per partition (issue #2). Run on an
# otherwise idle machine; the fill is done once and DIR/base is reused.
#   tests/bench/run_seen_restart.sh [URLS [DIR]]
# URLS defaults to 1e7 (the documented run uses 1e8: about 4 GiB in DIR,
# under 1 GiB of RAM); DIR defaults to /tmp/crawlfront_seen_restart.URLS.
# REPS (default 3) opens per scenario, SAMPLE (default 16) partitions rebuilt,
# BUILD_DIR (default build; TARGETS=seen_restart_bench scripts/build.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR=${BUILD_DIR:-build}
URLS=${1:-1e7}
DIR=${2:-/tmp/crawlfront_seen_restart.$URLS}
BIN="$BUILD_DIR/bench/seen_restart_bench"
if [ ! -x "$BIN" ]; then
  echo "missing $BIN: BUILD_DIR=$BUILD_DIR TARGETS=seen_restart_bench scripts/build.sh" >&2
  exit 1
fi
mkdir -p "$DIR"
echo "$(date -Is) on $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "free disk under $DIR: $(df -h --output=avail "$DIR" | tail -1 | tr -d ' ')"
start=$(date +%s)
"$BIN" --urls="$URLS" --dir="$DIR" --reps="${REPS:-3}" --sample="${SAMPLE:-16}"
echo "script total $(( $(date +%s) - start )) s, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "data kept in $DIR/base for the next run (rm -rf $DIR to drop it)"
