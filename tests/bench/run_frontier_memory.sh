#!/usr/bin/env bash
# Resident memory and restart time with many queued URLs (issue 3: 10^7
# queued URLs over 10^5 hosts), crawl-frontier against the scrapy-redis
# style frontier on redis-server (appendonly, appendfsync everysec), the same
# load from build/bench/frontier_load (add phase, no duplicates), a fresh
# server each. Per target it prints:
#   - VmRSS before and after the load (after background flushes, compactions
#     and AOF rewrites settled), the peak (VmHWM), bytes per queued URL;
#   - the data directory's size and the add rate;
#   - a clean restart (SIGTERM, start again) and one after kill -9: how long
#     the stop took, then how long until the server answers with every URL
#     still queued (checked), and VmRSS then.
# Then crawlfront / redis ratios of bytes per queued URL and restart times.
#   tests/bench/run_frontier_memory.sh [URLS [HOSTS]]   (default 10000000 100000)
# Environment: BUILD_DIR (build), LOAD, FRONTIER, THREADS (4) add clients,
#   BATCH (1000) URLs per FRONTIER.ADD / pipeline, TARGETS ("crawlfront redis"),
#   RUN_TIMEOUT (1800 s) per load, START_TIMEOUT (600 s) per start.
# Everything on 127.0.0.1; every process is stopped by its PID.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR=${BUILD_DIR:-build}
LOAD=${LOAD:-$BUILD_DIR/bench/frontier_load}
FRONTIER=${FRONTIER:-$BUILD_DIR/bin/crawl-frontier}
URLS=${1:-10000000}
HOSTS=${2:-100000}
THREADS=${THREADS:-4}
BATCH=${BATCH:-1000}
TARGETS=${TARGETS:-crawlfront redis}
RUN_TIMEOUT=${RUN_TIMEOUT:-1800}
START_TIMEOUT=${START_TIMEOUT:-600}
work=$(mktemp -d /tmp/frontier-memory.XXXXXX)
server_pid=
cleanup() {
  [ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
source tests/bench/redis_wait.sh
status_kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
field() { tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p"; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }

# Starts the target's server on its data dir (kept across restarts); sets
# server_pid and server_port.
start_server() {
  local t=$1
  if [ "$t" = crawlfront ]; then
    rm -f "$work/cf.port"
    "$FRONTIER" --listen 127.0.0.1:0 --http "" --data-dir "$work/cf-data" \
      --port-file "$work/cf.port" --log-level info --set crawl.default_delay=0 \
      --set crawl.respect_robots=false >>"$work/frontier.log" 2>&1 &
    server_pid=$!
    for _ in $(seq $((START_TIMEOUT * 10))); do
      [ -s "$work/cf.port" ] && break
      kill -0 "$server_pid" 2>/dev/null || break
      sleep 0.1
    done
    server_port=$(sed -n 's/^resp=//p' "$work/cf.port" 2>/dev/null)
    [ -n "$server_port" ] || { tail -20 "$work/frontier.log" >&2; return 1; }
  else
    mkdir -p "$work/redis"
    # A restart loads the append-only file before it answers; the helper
    # waits for INFO, so allow it the start timeout.
    start_redis_server "$work/redis" "$work/redis.log" --save '' --appendonly yes \
      --appendfsync everysec || return 1
    server_pid=$redis_pid
    server_port=$redis_port
  fi
}

# Queued URLs as the server reports them.
queued_now() {
  if [ "$1" = crawlfront ]; then
    redis-cli -p "$server_port" INFO | tr -d '\r' | sed -n 's/^urls_queued://p'
  else
    redis-cli -p "$server_port" ZCARD crawl:default:queue | tr -d '\r'
  fi
}

# Answering INFO with all URLs queued: how long a restart keeps the crawl
# waiting.
wait_ready() {
  local t=$1 want=$2
  for _ in $(seq $((START_TIMEOUT * 20))); do
    [ "$(queued_now "$t" 2>/dev/null)" = "$want" ] && return 0
    kill -0 "$server_pid" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}

stop_server() {  # signal
  kill "-$1" "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=
}

restart() {  # target signal label queued
  local t=$1 sig=$2 label=$3 queued=$4
  local s0; s0=$(now_ms)
  stop_server "$sig"
  local t0; t0=$(now_ms)
  start_server "$t"
  wait_ready "$t" "$queued" || { echo "$t: $label restart lost URLs: $(queued_now "$t") queued of $queued" >&2; return 1; }
  local ms=$(( $(now_ms) - t0 ))
  local rss; rss=$(( $(status_kb "$server_pid" VmRSS) * 1024 ))
  echo "$t $label restart: stopped in $(( t0 - s0 )) ms, then $ms ms until $queued URLs" \
    "queued; VmRSS $(mib "$rss")"
  echo "$t restart_$label $ms" >>"$work/results"
}

run_target() {
  local t=$1
  rm -rf "$work/cf-data" "$work/redis" "$work/frontier.log"
  start_server "$t"
  sleep 0.5  # start-up work settles before the baseline
  local rss0; rss0=$(( $(status_kb "$server_pid" VmRSS) * 1024 ))
  local line
  line=$(timeout "$RUN_TIMEOUT" "$LOAD" --target "$t" --port "$server_port" --phase add \
    --urls "$URLS" --hosts "$HOSTS" --dup-pct 0 --tag m --threads "$THREADS" --batch "$BATCH")
  wait_rewrite "$server_port"
  local queued; queued=$(field "$line" new)
  [ "$(queued_now "$t")" = "$queued" ] || { echo "$t: $(queued_now "$t") queued, $queued added" >&2; return 1; }
  local rss1 hwm disk
  rss1=$(( $(status_kb "$server_pid" VmRSS) * 1024 ))
  hwm=$(( $(status_kb "$server_pid" VmHWM) * 1024 ))
  if [ "$t" = crawlfront ]; then disk=$(du -sb "$work/cf-data" | cut -f1); else disk=$(du -sb "$work/redis" | cut -f1); fi
  echo "$t: $queued URLs queued over $HOSTS hosts at $(field "$line" urls_per_s) URLs/s;" \
    "VmRSS $(mib "$rss0") -> $(mib "$rss1") (peak $(mib "$hwm")):" \
    "$(( rss1 / queued )) bytes per queued URL ($(( (rss1 - rss0) / queued )) growth);" \
    "data dir $(mib "$disk")"
  echo "$t bytes_per_url $(( rss1 / queued ))" >>"$work/results"
  restart "$t" TERM clean "$queued"
  restart "$t" KILL kill9 "$queued"
  stop_server TERM
}

echo "$URLS URLs over $HOSTS hosts, $THREADS clients, batches of $BATCH;" \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)"
: >"$work/results"
for t in $TARGETS; do run_target "$t"; done
[[ " $TARGETS " == *" crawlfront "* && " $TARGETS " == *" redis "* ]] || exit 0
echo "crawlfront / redis (lower is better):"
awk '{ v[$1, $2] = $3; k[$2] = 1 }
  END { for (s in k) if (v["redis", s] > 0) printf "  %-16s x%.2f\n", s, v["crawlfront", s] / v["redis", s] }' \
  "$work/results" | sort
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
