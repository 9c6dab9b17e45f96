#!/usr/bin/env bash
# Recrawl seeding through crawlctl: a fresh crawl-frontier on 127.0.0.1 per
# binary and round, URLS URLs over HOSTS hosts in one file, seeded four
# times: plain (all new), --refetch +1h (every URL's recrawl queued),
# --refetch +30m and --refetch now (every waiting recrawl moved earlier).
# Prints each step's wall time; binaries alternate within a round so that a
# machine whose speed drifts affects all alike.
#   tests/bench/run_recrawl_seed.sh [ROUNDS [BINARY ...]]
# ROUNDS defaults to 2, BINARY to $BUILD_DIR/bin/crawl-frontier. URLS
# (100000), HOSTS (100), BATCH (crawlctl seed --batch, 1000). Every process
# is stopped by PID; each seed is bounded by STEP_TIMEOUT (300 s).
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR=${BUILD_DIR:-build}
ROUNDS=${1:-2}
shift || true
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS must be a positive integer" >&2; exit 2; }
bins=("$@")
[ ${#bins[@]} -gt 0 ] || bins=("$BUILD_DIR/bin/crawl-frontier")
CTL=$BUILD_DIR/bin/crawlctl
URLS=${URLS:-100000}
HOSTS=${HOSTS:-100}
BATCH=${BATCH:-1000}
STEP_TIMEOUT=${STEP_TIMEOUT:-300}
for b in "${bins[@]}" "$CTL"; do
  [ -x "$b" ] || { echo "not an executable: $b (scripts/build.sh builds it)" >&2; exit 2; }
done
work=$(mktemp -d /tmp/recrawl-seed.XXXXXX)
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
awk -v n="$URLS" -v h="$HOSTS" 'BEGIN { for (i = 0; i < n; i++) printf "http://h%d.example/p%d\n", i % h, i }' \
  >"$work/urls.txt"

seconds() {  # wall time of one seed, in seconds
  local start end
  start=$(date +%s.%N)
  timeout "$STEP_TIMEOUT" "$CTL" --frontier "127.0.0.1:$port" seed "$work/urls.txt" \
    --batch "$BATCH" "$@" >/dev/null 2>"$work/seed.err" ||
    { echo "crawlctl seed $* failed:" >&2; cat "$work/seed.err" >&2; return 1; }
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }'
}

echo "$URLS URLs over $HOSTS hosts, $BATCH per call; $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
for round in $(seq "$ROUNDS"); do
  for bin in "${bins[@]}"; do
    rm -rf "$work/data" "$work/port"
    "$bin" --listen 127.0.0.1:0 --http "" --data-dir "$work/data" --port-file "$work/port" \
      --log-level warn >"$work/frontier.log" 2>&1 &
    pid=$!
    for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
    port=$(sed -n 's/^resp=//p' "$work/port")
    [ -n "$port" ] || { cat "$work/frontier.log" >&2; exit 1; }
    plain=$(seconds) || exit 1
    queue=$(seconds --refetch +1h) || exit 1
    move30=$(seconds --refetch +30m) || exit 1
    movenow=$(seconds --refetch now) || exit 1
    echo "round $round $bin: plain $plain s, queue recrawls $queue s, move to +30m $move30 s, move to now $movenow s"
    kill "$pid"
    wait "$pid" || true
    pid=
  done
done
