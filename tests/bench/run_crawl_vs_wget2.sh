#!/usr/bin/env bash
# Crawl speed of crawlfront (crawl-frontier + 1, 2, 4 crawl-workers, WARC gzip
# level 6 and WARC off) against wget2 -r (several --max-threads) on the same
# simweb, a fresh simweb per run. Prints pages/s and CPU seconds per 1000
# pages (crawler alone, and with simweb's own CPU), then ratios
# crawlfront / best wget2.
#   tests/bench/run_crawl_vs_wget2.sh [HOSTS [PAGES]]      (default 100 1000)
# Environment: BUILD_DIR (build), SIMWEB (default $BUILD_DIR/bin/simweb),
#   WORKERS ("1 2 4"), WGET_THREADS ("1 4 16 64"), WARC (gzip levels and/or
#   "off": "6 off"), RUN_TIMEOUT seconds per run (600), ROUNDS (1): rounds of
#   every run, each round's ratios against that round's best wget2 run, then
#   the median ratio over the rounds (this VM's speed drifts by up to 2x over
#   minutes, so a single round can mislead).
# Same work for both: simweb with --slow-pages 0 --trap-every 0 --plain-robots
# (every host: User-agent: * / Disallow: /private/), both obey robots.txt
# (wget2 does by default), depth limit 1000 for both. "pages" are the requests
# simweb served (its access log), robots.txt and error pages included.
# wget2 has no --resolve/--connect-to, so it uses simweb as its HTTP(S) proxy
# (simweb serves absolute-form targets by their Host): nothing leaves
# 127.0.0.1, not even a DNS lookup. Every process is stopped by PID.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR=${BUILD_DIR:-build}
SIMWEB=${SIMWEB:-$BUILD_DIR/bin/simweb}
HOSTS=${1:-100}
PAGES=${2:-1000}
WORKERS=${WORKERS:-"1 2 4"}
WGET_THREADS=${WGET_THREADS:-"1 4 16 64"}
WARC=${WARC:-"6 off"}
ROUNDS=${ROUNDS:-1}
RUN_TIMEOUT=${RUN_TIMEOUT:-600}
TICK=$(getconf CLK_TCK)
work=$(mktemp -d /tmp/crawl-wget2.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

stop_all() {  # stops the processes of one run, by PID
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  pids=()
}

cpu_seconds() {  # pid...: their utime + stime so far, in seconds
  local p total=0
  for p in "$@"; do
    total=$(awk -v t="$TICK" -v a="$total" '{ sub(/^.*\) /, ""); printf "%.2f", a + ($12 + $13) / t }' "/proc/$p/stat")
  done
  echo "$total"
}

wait_port_file() {  # file: waits up to 10 s for it to be written
  for _ in $(seq 100); do [ -s "$1" ] && return 0; sleep 0.1; done
  echo "no port file $1" >&2; return 1
}

start_simweb() {  # dir: starts a fresh simweb; sets sim_pid and sim_port
  "$SIMWEB" --listen 127.0.0.1:0 --hosts "$HOSTS" --pages "$PAGES" --slow-pages 0 \
    --trap-every 0 --plain-robots --threads 2 --port-file "$1/simweb.port" \
    --access-log "$1/access.log" >"$1/simweb.log" 2>&1 &
  sim_pid=$!; pids+=("$sim_pid")
  wait_port_file "$1/simweb.port"
  sim_port=$(head -1 "$1/simweb.port" | tr -dc 0-9)
}

home_pages() { for ((h = 0; h < HOSTS; h++)); do echo "http://h$h.simweb.test/"; done; }

# name pages seconds crawler_cpu simweb_cpu: one line of the table and of $work/results
report() {
  awk -v n="$1" -v p="$2" -v s="$3" -v c="$4" -v w="$5" 'BEGIN {
    printf "%-26s %8d %8.2f %9.1f %8.2f %12.3f %12.3f\n", n, p, s, p / s, c + w, 1000 * c / p, 1000 * (c + w) / p
  }' | tee -a "$work/results"
  echo "$round" >>"$work/rounds"
}

run_crawlfront() {  # workers gzip_level|off
  local dir="$work/cf-$1-$2-r$round" fport i
  mkdir -p "$dir"
  start_simweb "$dir"
  "$BUILD_DIR/bin/crawl-frontier" --listen 127.0.0.1:0 --http "" --data-dir "$dir/data" \
    --port-file "$dir/frontier.port" --log-level warn --set crawl.default_delay=0 \
    --set crawl.respect_robots=true --set 'crawl.allow_host_suffixes=[".simweb.test"]' \
    --set crawl.max_depth=1000 >"$dir/frontier.log" 2>&1 &
  local fpid=$!; pids+=("$fpid")
  wait_port_file "$dir/frontier.port"
  fport=$(sed -n 's/^resp=//p' "$dir/frontier.port")
  local warc=(--set warc.enabled=true --set "warc.gzip_level=$2")
  [ "$2" = off ] && warc=(--set warc.enabled=false)
  local wpids=()
  for ((i = 0; i < $1; i++)); do
    "$BUILD_DIR/bin/crawl-worker" --frontier "127.0.0.1:$fport" --worker-id "w$i" \
      --connect-to "::127.0.0.1:$sim_port" --set fetch.allow_private_networks=true \
      --warc-dir "$dir/warc" "${warc[@]}" --log-level warn >"$dir/worker$i.log" 2>&1 &
    wpids+=($!); pids+=($!)
  done
  # Start-up CPU (RocksDB open, worker set-up) is not part of the crawl.
  local cpu0 sim0; cpu0=$(cpu_seconds "$fpid" "${wpids[@]}"); sim0=$(cpu_seconds "$sim_pid")
  local start; start=$(date +%s.%N)
  home_pages | xargs redis-cli -p "$fport" FRONTIER.ADD >/dev/null
  # One redis-cli polls INFO every 0.1 s (a redis-cli, tr and grep started
  # per poll took ~10% of this 2-core machine away from the crawl); it ends
  # on its next write after awk has seen the crawl finish.
  local finished=0
  if (set +o pipefail; redis-cli -p "$fport" -r $((RUN_TIMEOUT * 10)) -i 0.1 INFO crawl 2>/dev/null |
    awk '{ sub(/\r$/, "") } $0 == "finished:1" { f = 1; exit } END { exit !f }'); then
    finished=1
  fi
  local seconds; seconds=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { print e - s }')
  [ "$finished" = 1 ] || echo "crawlfront $1 $2: not finished after ${RUN_TIMEOUT}s" >&2
  local cpu sim_cpu
  cpu=$(awk -v a="$(cpu_seconds "$fpid" "${wpids[@]}")" -v b="$cpu0" 'BEGIN { print a - b }')
  sim_cpu=$(awk -v a="$(cpu_seconds "$sim_pid")" -v b="$sim0" 'BEGIN { print a - b }')
  local done_urls; done_urls=$(redis-cli -p "$fport" INFO crawl | tr -d '\r' | sed -n 's/^urls_done://p')
  stop_all
  echo "  (crawlfront $1 workers, warc $2: urls_done=$done_urls)" >>"$work/notes"
  report "crawlfront/w=$1/warc=$2" "$(wc -l <"$dir/access.log")" "$seconds" "$cpu" "$sim_cpu"
}

run_wget2() {  # max_threads
  local dir="$work/wget2-$1-r$round"
  mkdir -p "$dir"
  start_simweb "$dir"
  local proxy="127.0.0.1:$sim_port"
  # --filter-urls applies the accept regex before downloading, so links to
  # other domains are never requested; the proxies catch anything else.
  /usr/bin/time -f "%e %U %S" -o "$dir/time" timeout "$RUN_TIMEOUT" wget2 -q -r -l 1000 \
    --robots=on -H --domains=simweb.test --filter-urls \
    --accept-regex '^https?://[^/]*\.simweb\.test(:[0-9]+)?([/?#]|$)' \
    --http-proxy="$proxy" --https-proxy="$proxy" --tries=1 --timeout=30 \
    --max-threads="$1" -P "$dir/files" $(home_pages) >"$dir/wget2.log" 2>&1 || true
  local sim_cpu; sim_cpu=$(cpu_seconds "$sim_pid")
  stop_all
  local seconds user sys
  # The last line: time puts "Command exited with non-zero status" first.
  read -r seconds user sys < <(tail -1 "$dir/time") || { cat "$dir/time" >&2; return 1; }
  report "wget2/threads=$1" "$(wc -l <"$dir/access.log")" "$seconds" \
    "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" "$sim_cpu"
  rm -rf "$dir/files"
}

echo "simweb: $HOSTS hosts x $PAGES pages; load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-26s %8s %8s %9s %8s %12s %12s\n" run pages seconds pages/s cpu_s \
  "cpu/1000p" "+simweb/1000p"
for ((round = 1; round <= ROUNDS; round++)); do
  [ "$ROUNDS" = 1 ] || echo "round $round"
  for t in $WGET_THREADS; do run_wget2 "$t"; done
  for w in $WORKERS; do
    for g in $WARC; do run_crawlfront "$w" "$g"; done
  done
done
sort -u "$work/notes" 2>/dev/null || true
echo "ratios to the best wget2 run of the same round (pages/s: higher is better; CPU: lower is better):"
paste -d' ' "$work/results" "$work/rounds" | awk -v rounds="$ROUNDS" -f tests/bench/median.awk -f <(echo '
  /^wget2/ { r = $NF; if ($4 > bw[r]) bw[r] = $4; if (bc[r] == "" || $6 < bc[r]) bc[r] = $6; if (bt[r] == "" || $7 < bt[r]) bt[r] = $7 }
  /^crawlfront/ { n[++k] = $1; r_[k] = $NF; p[k] = $4; c[k] = $6; t[k] = $7 }
  END {
    for (i = 1; i <= k; i++) {
      r = r_[i]
      if (bw[r] == 0 || bc[r] == 0 || bt[r] == 0) { print "no usable wget2 run in round " r; exit 1 }
      a = p[i] / bw[r]; b = c[i] / bc[r]; d = t[i] / bt[r]
      printf "%-26s%s pages/s x%.2f   crawler cpu/1000p x%.2f   with simweb x%.2f\n", n[i], (rounds > 1 ? " r" r : ""), a, b, d
      if (!(n[i] in seen)) { seen[n[i]] = 1; order[++o] = n[i] }
      ra[n[i]] = ra[n[i]] " " a; rb[n[i]] = rb[n[i]] " " b; rd[n[i]] = rd[n[i]] " " d
    }
    if (rounds > 1) {
      print "medians over " rounds " rounds:"
      for (j = 1; j <= o; j++)
        printf "%-26s pages/s x%.2f   crawler cpu/1000p x%.2f   with simweb x%.2f\n", order[j], median(ra[order[j]]), median(rb[order[j]]), median(rd[order[j]])
    }
  }')
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
