#!/usr/bin/env bash
# A/B of crawl-frontier binaries under redis-benchmark (50 clients): for each
# round and binary, a fresh daemon, requests/s and the server's CPU
# microseconds per request (/proc/PID/stat), alternating so that a machine
# whose speed drifts affects both alike.
#   tests/bench/run_bf_ab.sh REQUESTS PIPELINE ROUNDS BINARY [BINARY ...]
# CMD=add (default) | exists | madd | madd-reserved | ping picks the command
# (add, exists and madd-reserved use a reserved 10^8 filter, madd a default
# scaling one). Everything runs on 127.0.0.1; each daemon is stopped by PID.
set -euo pipefail
[ $# -ge 4 ] || { sed -n 2,9p "$0"; exit 2; }
N=$1; P=$2; ROUNDS=$3; shift 3
TICK=$(getconf CLK_TCK)
case ${CMD:-add} in
  add) args=(BF.ADD bench "u:__rand_int__") ;;
  exists) args=(BF.EXISTS bench "u:__rand_int__") ;;
  ping) args=(PING) ;;
  madd) args=(BF.MADD bench2); for i in $(seq 100); do args+=("k$i:__rand_int__"); done ;;
  madd-reserved) args=(BF.MADD bench); for i in $(seq 100); do args+=("k$i:__rand_int__"); done ;;
  *) echo "unknown CMD=$CMD" >&2; exit 2 ;;
esac
cpu_ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }
for _ in $(seq "$ROUNDS"); do
  for bin in "$@"; do
    work=$(mktemp -d /tmp/bf-ab.XXXXXX)
    "$bin" --listen 127.0.0.1:0 --http "" --data-dir "$work/data" --port-file "$work/port" \
      --log-level warn >"$work/log" 2>&1 &
    pid=$!
    for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
    port=$(sed -n 's/^resp=//p' "$work/port")
    redis-cli -p "$port" BF.RESERVE bench 0.01 100000000 >/dev/null
    t0=$(cpu_ticks "$pid")
    rate=$(timeout 300 redis-benchmark -h 127.0.0.1 -p "$port" -c 50 -n "$N" -P "$P" \
      -r 100000000 -q "${args[@]}" 2>/dev/null | tr '\r' '\n' |
      sed -n 's/.*: \([0-9.]*\) requests per second.*/\1/p' | tail -1)
    t1=$(cpu_ticks "$pid")
    kill "$pid"; wait "$pid" 2>/dev/null || true
    rm -rf "$work"
    python3 -c "print(f'{\"$bin\":40} {float(\"${rate:-0}\"):>10.0f} req/s \
{($t1 - $t0) / $TICK * 1e6 / $N:7.2f} us server CPU/request')"
  done
done
