#!/usr/bin/env bash
# Where one crawl-frontier spends the steps of run_frontier_vs_redis.sh (add
# 10% and 90% duplicates, lease + done): per step, the wall time and each of
# the frontier's threads' CPU seconds (by thread name: the io thread carries
# the binary's name, crawlfront:wal is the writer, rocksdb:high flushes,
# rocksdb:low compacts), the VmRSS growth per queued URL after the first
# step, and the queue head refills of the whole run.
#   tests/bench/run_frontier_threads.sh [BINARY]   (default build/bin/crawl-frontier)
# URLS and HOSTS (default 1000000 10000), THREADS add clients (4), WORKERS
# lease workers (8), EXTRA more flags for the frontier (e.g. "--set
# crawl.queue_heads_bytes=1073741824"), RUN_TIMEOUT per step (600 s).
# Everything on 127.0.0.1; the frontier is stopped by its PID.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${1:-build/bin/crawl-frontier}
[ -x "$BIN" ] || { echo "not an executable: $BIN" >&2; exit 2; }
LOAD=${LOAD:-build/bench/frontier_load}
URLS=${URLS:-1000000}
HOSTS=${HOSTS:-10000}
RUN_TIMEOUT=${RUN_TIMEOUT:-600}
TICK=$(getconf CLK_TCK)
work=$(mktemp -d /tmp/frontier-threads.XXXXXX)
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# shellcheck disable=SC2086  # EXTRA is a list of flags
"$BIN" --listen 127.0.0.1:0 --http "" --data-dir "$work/data" --port-file "$work/port" \
  --log-level warn --set crawl.default_delay=0 --set crawl.respect_robots=false \
  --set crawl.max_inflight_per_host=1000 ${EXTRA:-} >"$work/log" 2>&1 &
pid=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(sed -n 's/^resp=//p' "$work/port")
[ -n "$port" ] || { cat "$work/log" >&2; exit 1; }

# "name ticks" per thread name, summed over threads of the same name.
thread_ticks() {
  for t in /proc/"$pid"/task/*; do
    echo "$(tr ' ' _ <"$t/comm") $(sed 's/^.*) //' "$t/stat" | awk '{ print $12 + $13 }')"
  done | awk '{ a[$1] += $2 } END { for (k in a) print k, a[k] }' | sort
}
step() {  # name load-args...
  local name=$1; shift
  thread_ticks >"$work/before"
  local line
  line=$(timeout "$RUN_TIMEOUT" "$LOAD" --target crawlfront --port "$port" "$@")
  thread_ticks >"$work/after"
  local wall; wall=$(tr ' ' '\n' <<<"$line" | sed -n 's/^seconds=//p')
  printf "%-8s wall %6.2f s  CPU s:" "$name" "$wall"
  join -a2 "$work/before" "$work/after" | awk -v t="$TICK" '
    { d = (NF == 3 ? $3 - $2 : $2) / t; sum += d; printf " %s %.2f", $1, d }
    END { printf "  total %.2f\n", sum }'
}
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status"; }

rss0=$(rss_kb)
step add10 --phase add --urls "$URLS" --hosts "$HOSTS" --dup-pct 10 --tag a --threads "${THREADS:-4}"
echo "VmRSS growth after add10: $(( ($(rss_kb) - rss0) * 1024 / URLS )) bytes per added URL"
step add90 --phase add --urls "$URLS" --hosts "$HOSTS" --dup-pct 90 --tag b --threads "${THREADS:-4}"
step lease --phase lease --urls $((URLS * 11 / 10)) --workers "${WORKERS:-8}"
redis-cli -p "$port" INFO | tr -d '\r' | grep -E '^(urls_done|queue_head_refills|queue_heads_refilled):'
