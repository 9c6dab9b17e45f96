#!/usr/bin/env bash
# Cost of FRONTIER.DENY patterns on the add path: for each pattern count, a
# fresh crawl-frontier (data.durability=wal, delay 0, robots off) gets that
# many non-matching patterns ("^https?://trapI\.example/.*[?&]sort=", or
# unanchored "[?&]sortI=" with UNANCHORED=1), then frontier_load adds URLS
# URLs with 10% duplicates. Prints URLs/s and server CPU per URL; the
# 0-pattern row is the baseline of the same run.
#   tests/bench/run_deny_patterns.sh [URLS [COUNTS...]]   (default 1000000 0 1 10)
# Everything on 127.0.0.1; each server is stopped by PID; loads bounded by 600 s.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR=${BUILD_DIR:-build}
BIN=${FRONTIER:-$BUILD_DIR/bin/crawl-frontier}
LOAD=${LOAD:-$BUILD_DIR/bench/frontier_load}
URLS=${1:-1000000}
[ $# -gt 1 ] && shift || set -- 0 1 10
COUNTS=("$@")
TICK=$(getconf CLK_TCK)
work=$(mktemp -d /tmp/deny-bench.XXXXXX)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
cpu() { awk -v t="$TICK" '{ sub(/^.*\) /, ""); printf "%.3f", ($12 + $13) / t }' "/proc/$1/stat"; }

for n in "${COUNTS[@]}"; do
  rm -rf "$work/data" "$work/port"
  "$BIN" --listen 127.0.0.1:0 --http "" --data-dir "$work/data" --port-file "$work/port" \
    --log-level warn --set data.durability=wal --set crawl.default_delay=0 \
    --set crawl.respect_robots=false >"$work/log" 2>&1 &
  pid=$!
  for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
  port=$(sed -n 's/^resp=//p' "$work/port")
  for i in $(seq 1 "$n"); do
    if [ "${UNANCHORED:-0}" = 1 ]; then p="[?&]sort$i="; else p="^https?://trap$i\\.example/.*[?&]sort="; fi
    redis-cli -p "$port" FRONTIER.DENY ADD "$p" >/dev/null
  done
  before=$(cpu "$pid")
  rate=$(timeout 600 "$LOAD" --target crawlfront --port "$port" --phase add --urls "$URLS" \
    --hosts 10000 --dup-pct 10 --tag a --threads 4 | sed -n 's/.*urls_per_s=\([0-9]*\).*/\1/p')
  after=$(cpu "$pid")
  awk -v n="$n" -v r="$rate" -v a="$after" -v b="$before" -v u="$URLS" \
    'BEGIN { printf "patterns=%-3d urls_per_s=%-8s server_cpu_us_per_url=%.2f\n", n, r, (a - b) * 1e6 / u }'
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
done
