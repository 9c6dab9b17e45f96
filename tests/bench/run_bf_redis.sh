#!/usr/bin/env bash
# BF.* throughput of crawl-frontier against redis-server's SADD/SISMEMBER, with
# redis-benchmark (50 clients, pipelines of 1 and 64), in the same run.
#   tests/bench/run_bf_redis.sh [requests per test, default 1000000]
# ROUNDS=R (default 1) measures each pair R times, alternating crawlfront and
# redis so that a VM whose speed drifts affects both alike, and prints the
# medians. FRONTIER=BINARY runs another crawl-frontier (an A/B). Everything
# runs on 127.0.0.1 and is stopped by PID at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR=${BUILD_DIR:-build}
N=${1:-1000000}
ROUNDS=${ROUNDS:-1}
FRONTIER=${FRONTIER:-$BUILD_DIR/bin/crawl-frontier}
work=$(mktemp -d /tmp/bf-bench.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

"$FRONTIER" --listen 127.0.0.1:0 --http "" --data-dir "$work/data" \
  --port-file "$work/port" --log-level warn >"$work/frontier.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
fport=$(sed -n 's/^resp=//p' "$work/port")
source tests/bench/redis_wait.sh
start_redis_server "$work" "$work/redis.log" --save '' --appendonly yes --appendfsync everysec
pids+=("$redis_pid")
rport=$redis_port
redis-cli -p "$fport" BF.RESERVE bench 0.01 100000000 >/dev/null

rate() {  # port, pipeline, command...: prints requests/s (RATE_N requests, default N)
  local port=$1 p=$2; shift 2
  redis-benchmark -h 127.0.0.1 -p "$port" -c 50 -n "${RATE_N:-$N}" -P "$p" -r 100000000 -q "$@" 2>/dev/null |
    tr '\r' '\n' | sed -n 's/.*: \([0-9.]*\) requests per second.*/\1/p' | tail -1
}
# A rewrite child started by a Redis row must not run into the next run
# (wait_rewrite, redis_wait.sh).
median() { python3 -c "import statistics, sys; print(statistics.median(map(float, sys.argv[1:])))" "$@"; }
# compare LABEL SCALE REQUESTS PIPELINE crawlfront-args... "|" redis-args...
# Prints the medians over ROUNDS alternating runs (times SCALE) and their ratio.
compare() {
  local label=$1 scale=$2 n=$3 p=$4 side=a; shift 4
  local a_args=() b_args=() as=() bs=()
  for x in "$@"; do
    if [ "$x" = "|" ]; then side=b; elif [ $side = a ]; then a_args+=("$x"); else b_args+=("$x"); fi
  done
  for _ in $(seq "$ROUNDS"); do
    wait_rewrite "$rport"
    as+=("$(RATE_N=$n rate "$fport" "$p" "${a_args[@]}")")
    wait_rewrite "$rport"
    bs+=("$(RATE_N=$n rate "$rport" "$p" "${b_args[@]}")")
  done
  local a b
  a=$(median "${as[@]}"); b=$(median "${bs[@]}")
  printf "%-38s %14.0f %14.0f %8.2f\n" "$label" "$(python3 -c "print($a * $scale)")" \
    "$(python3 -c "print($b * $scale)")" "$(python3 -c "print($a / $b)")"
}
# 100 items per call, against SADD / SMISMEMBER with the same 100 members:
# BF.MADD into the reserved filter of the BF.ADD rows (one sub-filter), and
# BF.MADD into a filter with default parameters (it grows a chain of about
# 17 sub-filters, as RedisBloom's does, and every add probes them all) with
# BF.MEXISTS on it. N/10 calls per row (split over the rounds), so that
# Redis's sets stay near 10^7 members (a few hundred MB each).
items=(); for i in $(seq 100); do items+=("k${i}:__rand_int__"); done
printf "%-38s %14s %14s %8s\n" "test (50 clients)" "crawlfront/s" "redis/s" "ratio"
for p in 1 64; do
  compare "BF.ADD vs SADD, P=$p" 1 "$N" "$p" BF.ADD bench "u:__rand_int__" "|" SADD set "u:__rand_int__"
  compare "BF.EXISTS vs SISMEMBER, P=$p" 1 "$N" "$p" BF.EXISTS bench "u:__rand_int__" "|" \
    SISMEMBER set "u:__rand_int__"
done
calls=$((N / 10 / ROUNDS))
compare "BF.MADD x100 reserved vs SADD, P=64" 100 "$calls" 64 BF.MADD bench "${items[@]}" "|" \
  SADD set3 "${items[@]}"
compare "BF.MADD x100 default vs SADD, P=64" 100 "$calls" 64 BF.MADD bench2 "${items[@]}" "|" \
  SADD set2 "${items[@]}"
compare "BF.MEXISTS x100 vs SMISMEMBER, P=64" 100 "$calls" 64 BF.MEXISTS bench2 "${items[@]}" "|" \
  SMISMEMBER set2 "${items[@]}"
echo "(x100 rows: items/s; medians of $ROUNDS alternating run(s) per row)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
