#!/usr/bin/env bash
# BF.* throughput of crawl-frontier against redis-server's SADD/SISMEMBER, with
# redis-benchmark (50 clients, pipelines of 1 and 64), in the same run.
#   tests/bench/run_bf_redis.sh [requests per test, default 1000000]
# Everything runs on 127.0.0.1 and is stopped by PID at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR=${BUILD_DIR:-build}
N=${1:-1000000}
work=$(mktemp -d /tmp/bf-bench.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

"$BUILD_DIR/bin/crawl-frontier" --listen 127.0.0.1:0 --http "" --data-dir "$work/data" \
  --port-file "$work/port" --log-level warn >"$work/frontier.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
fport=$(sed -n 's/^resp=//p' "$work/port")
rport=$((20000 + RANDOM % 20000))
redis-server --port "$rport" --bind 127.0.0.1 --save '' --appendonly yes --appendfsync everysec \
  --dir "$work" --daemonize no >"$work/redis.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do redis-cli -p "$rport" ping >/dev/null 2>&1 && break; sleep 0.1; done
redis-cli -p "$fport" BF.RESERVE bench 0.01 100000000 >/dev/null

rate() {  # port, pipeline, command...: prints requests/s (RATE_N requests, default N)
  local port=$1 p=$2; shift 2
  redis-benchmark -h 127.0.0.1 -p "$port" -c 50 -n "${RATE_N:-$N}" -P "$p" -r 100000000 -q "$@" 2>/dev/null |
    tr '\r' '\n' | sed -n 's/.*: \([0-9.]*\) requests per second.*/\1/p' | tail -1
}
# 100 items per call: BF.MADD into a filter with default parameters (it
# grows a chain of sub-filters, as RedisBloom's does) and BF.MEXISTS on it,
# against SADD / SMISMEMBER with the same 100 members. N/10 calls each, so
# that Redis's set stays near 10^7 members (a few hundred MB).
items=(); for i in $(seq 100); do items+=("k${i}:__rand_int__"); done
printf "%-34s %14s %14s %8s\n" "test (50 clients)" "crawlfront/s" "redis/s" "ratio"
for p in 1 64; do
  a=$(rate "$fport" "$p" BF.ADD bench "u:__rand_int__"); b=$(rate "$rport" "$p" SADD set "u:__rand_int__")
  printf "%-34s %14s %14s %8.2f\n" "BF.ADD vs SADD, P=$p" "$a" "$b" "$(python3 -c "print($a / $b)")"
  a=$(rate "$fport" "$p" BF.EXISTS bench "u:__rand_int__"); b=$(rate "$rport" "$p" SISMEMBER set "u:__rand_int__")
  printf "%-34s %14s %14s %8.2f\n" "BF.EXISTS vs SISMEMBER, P=$p" "$a" "$b" "$(python3 -c "print($a / $b)")"
done
for pair in "BF.MADD bench2|SADD set2" "BF.MEXISTS bench2|SMISMEMBER set2"; do
  a=$(RATE_N=$((N / 10)) rate "$fport" 64 ${pair%|*} "${items[@]}")
  b=$(RATE_N=$((N / 10)) rate "$rport" 64 ${pair#*|} "${items[@]}")
  base=${pair#*|}
  printf "%-34s %14s %14s %8.2f  items/s\n" "${pair%% *} x100 vs ${base%% *}, P=64" \
    "$(python3 -c "print(int($a * 100))")" "$(python3 -c "print(int($b * 100))")" \
    "$(python3 -c "print($a / $b)")"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
