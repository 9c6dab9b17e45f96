#!/usr/bin/env bash
# Frontier work against crawl-frontier (data.durability=everysec: WAL fsynced
# every second) and against a scrapy-redis style frontier on redis-server
# (appendonly, appendfsync everysec: the same durability), the same
# load from build/bench/frontier_load, a fresh server each:
#   1. add URLS URLs over HOSTS hosts, 10% duplicates (FRONTIER.ADD x100 vs
#      SADD fingerprint + ZADD queue, pipelined per batch of 100);
#   2. add URLS more, 90% duplicates;
#   3. lease + done until the queue is empty, 8 simulated workers
#      (FRONTIER.LEASE 100 + pipelined FRONTIER.DONE vs ZPOPMIN 100 + HSET
#      inflight + pipelined HDEL).
# Prints URLs/s, server CPU per URL (with Redis's AOF rewrite children and
# crawl-frontier's memtable flushes and compactions, both waited for after
# each step), resident memory per queued URL after
# step 1 (VmRSS growth of the server process), ratios crawlfront/redis, and
# the ceiling those ratios have while client and server share the cores.
#   tests/bench/run_frontier_vs_redis.sh [URLS [HOSTS]]   (default 1000000 10000)
# Environment: BUILD_DIR (build), LOAD (default $BUILD_DIR/bench/frontier_load),
#   THREADS add client threads (4), WORKERS lease workers (8),
#   FRONTIER the crawl-frontier binary ($BUILD_DIR/bin/crawl-frontier; e.g.
#   an older build for an A/B), TARGETS which servers run ("crawlfront redis"),
#   DURABILITY the frontier's data.durability (everysec), REDIS_FSYNC
#   Redis's appendfsync (everysec); DURABILITY=fsync REDIS_FSYNC=always
#   compares both with every acknowledged write fsynced, ROUNDS (1) how many
#   times the targets run, alternating; with more than one, the ratios are
#   of each step's medians, with the lowest and highest round's ratio (on a
#   shared 2-core VM single runs of the same binary differed by 10%).
# The frontier runs without politeness (delay 0, robots off, 1000 leases per
# host) because the Redis baseline has none. Everything on 127.0.0.1; every
# process is stopped by PID; each load run is bounded by RUN_TIMEOUT (600 s).
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR=${BUILD_DIR:-build}
LOAD=${LOAD:-$BUILD_DIR/bench/frontier_load}
URLS=${1:-1000000}
HOSTS=${2:-10000}
THREADS=${THREADS:-4}
WORKERS=${WORKERS:-8}
RUN_TIMEOUT=${RUN_TIMEOUT:-600}
FRONTIER=${FRONTIER:-$BUILD_DIR/bin/crawl-frontier}
TARGETS=${TARGETS:-crawlfront redis}
DURABILITY=${DURABILITY:-everysec}
REDIS_FSYNC=${REDIS_FSYNC:-everysec}
ROUNDS=${ROUNDS:-1}
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS must be a positive integer, not '$ROUNDS'" >&2; exit 2; }
round=1
TICK=$(getconf CLK_TCK)
work=$(mktemp -d /tmp/frontier-redis.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# utime + stime + the reaped children's: Redis rewrites its AOF in a forked
# child, part of what its durability costs.
cpu_seconds() {
  awk -v t="$TICK" '{ sub(/^.*\) /, ""); printf "%.3f", ($12 + $13 + $14 + $15) / t }' "/proc/$1/stat"
}
# After each step: the rewrite child's CPU is counted in the step that
# caused it and does not overlap the next one.
source tests/bench/redis_wait.sh
rss_bytes() { echo $(( $(awk '/^VmRSS:/ { print $2 }' "/proc/$1/status") * 1024 )); }
field() { tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p"; }  # line key: value of key=value

start_crawlfront() {  # sets server_pid, server_port
  rm -rf "$work/cf-data" "$work/cf.port"
  "$FRONTIER" --listen 127.0.0.1:0 --http "" --data-dir "$work/cf-data" \
    --port-file "$work/cf.port" --log-level warn --set data.durability="$DURABILITY" \
    --set crawl.default_delay=0 --set crawl.respect_robots=false \
    --set crawl.max_inflight_per_host=1000 >"$work/frontier.log" 2>&1 &
  server_pid=$!; pids+=("$server_pid")
  for _ in $(seq 100); do [ -s "$work/cf.port" ] && break; sleep 0.1; done
  server_port=$(sed -n 's/^resp=//p' "$work/cf.port")
  [ -n "$server_port" ] || { cat "$work/frontier.log" >&2; return 1; }
}

start_redis() {  # sets server_pid, server_port
  rm -rf "$work/redis"; mkdir -p "$work/redis"
  start_redis_server "$work/redis" "$work/redis.log" --save '' --appendonly yes \
    --appendfsync "$REDIS_FSYNC" || return 1
  server_pid=$redis_pid; pids+=("$server_pid")
  server_port=$redis_port
}

# target phase args...: runs one load, prints its line plus server CPU per URL,
# appends "target step urls_per_s cpu_us_per_url" to $work/results.
load() {
  local target=$1 step=$2; shift 2
  local c0; c0=$(cpu_seconds "$server_pid")
  local line
  line=$(timeout "$RUN_TIMEOUT" "$LOAD" --target "$target" --port "$server_port" "$@")
  local w0=$SECONDS
  wait_rewrite "$server_port"
  local waited=$((SECONDS - w0))
  local cpu_us; cpu_us=$(awk -v a="$(cpu_seconds "$server_pid")" -v b="$c0" -v n="$(field "$line" urls)" \
    'BEGIN { printf "%.2f", (n > 0 ? 1e6 * (a - b) / n : 0) }')
  echo "$line server_cpu_us_per_url=$cpu_us background_wait_s=$waited"
  echo "$round $target $step $(field "$line" urls_per_s) $cpu_us $(field "$line" client_cpu_us_per_url)" \
    >>"$work/results"
  last_line=$line
}

run_target() {  # target
  local t=$1
  if [ "$t" = crawlfront ]; then start_crawlfront; else start_redis; fi
  sleep 0.5  # let start-up work settle before the memory baseline
  local rss0; rss0=$(rss_bytes "$server_pid")
  load "$t" add_dup10 --phase add --urls "$URLS" --hosts "$HOSTS" --dup-pct 10 --tag a --threads "$THREADS"
  local queued; queued=$(field "$last_line" new)
  local rss1; rss1=$(rss_bytes "$server_pid")
  echo "$t memory: VmRSS $rss0 -> $rss1 bytes with $queued queued URLs:" \
    "$(( (rss1 - rss0) / queued )) bytes per queued URL (growth), $(( rss1 / queued )) total"
  load "$t" add_dup90 --phase add --urls "$URLS" --hosts "$HOSTS" --dup-pct 90 --tag b --threads "$THREADS"
  queued=$((queued + $(field "$last_line" new)))
  load "$t" lease_done --phase lease --urls "$queued" --workers "$WORKERS"
  [ "$(field "$last_line" urls)" = "$queued" ] ||
    echo "$t: leased $(field "$last_line" urls) of $queued queued URLs" >&2
  kill "$server_pid"; wait "$server_pid" 2>/dev/null || true
}

echo "$URLS URLs per add step over $HOSTS hosts; crawl-frontier data.durability=$DURABILITY; redis appendfsync $REDIS_FSYNC;" \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$ROUNDS"); do
  [ "$ROUNDS" = 1 ] || echo "round $round of $ROUNDS"
  for t in $TARGETS; do run_target "$t"; done
done
[[ " $TARGETS " == *" crawlfront "* && " $TARGETS " == *" redis "* ]] || exit 0
if [ "$ROUNDS" = 1 ]; then
  echo "crawlfront / redis (URLs/s: higher is better; server CPU per URL: lower is better):"
else
  echo "crawlfront / redis, medians of $ROUNDS alternated rounds (URLs/s: higher is better;" \
    "server CPU per URL: lower is better; lowest and highest round in brackets):"
fi
awk -v rounds="$ROUNDS" -f tests/bench/median.awk -f <(echo '
  function add(a, key, x) { a[key] = (key in a ? a[key] " " : "") x }
  $2 == "crawlfront" { add(r, $3, $4); add(c, $3, $5); add(cc, $3, $6); cf[$1, $3] = $4
                       if (!($3 in seen)) { seen[$3] = 1; order[++k] = $3 } }
  $2 == "redis" { add(rr, $3, $4); add(rc, $3, $5); add(rcc, $3, $6); rd[$1, $3] = $4 }
  END {
    for (i = 1; i <= k; i++) {
      s = order[i]
      lo = hi = ""
      for (key in cf) {
        split(key, p, SUBSEP)
        if (p[2] != s || rd[key] <= 0) continue
        x = cf[key] / rd[key]
        if (lo == "" || x < lo) lo = x
        if (hi == "" || x > hi) hi = x
      }
      mr = median(rr[s]); mrc = median(rc[s])
      printf "%-12s URLs/s x%.2f", s, (mr > 0 ? median(r[s]) / mr : 0)
      if (rounds > 1 && lo != "") printf " [x%.2f-x%.2f]", lo, hi
      if (mrc > 0) printf "   server CPU/URL x%.2f", median(c[s]) / mrc
      # With the cores saturated, URLs/s ~ cores / (client + server CPU per
      # URL); were crawlfront'"'"'s server free, the ratio would reach this.
      if (median(cc[s]) > 0) printf "   ceiling x%.2f", (mrc + median(rcc[s])) / median(cc[s])
      printf "\n"
    }
  }') "$work/results"
echo "(ceiling: redis server + client CPU per URL over crawlfront's client CPU per URL,"
echo " the ratio a crawlfront server costing nothing would show while the two share the cores)"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
