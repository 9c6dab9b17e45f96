# Sourced by the bench scripts that run redis-server.
# wait_rewrite PORT: waits (at most 120 s) until the server on PORT runs no
# background rewrite: Redis rewrites its append-only file in a forked child
# once it has grown, crawl-frontier flushes full memtables and compacts
# RocksDB's levels on background threads. Waiting keeps that work out of the
# next measurement and counts its CPU in the step that caused it, for both.
wait_rewrite() {
  for _ in $(seq 1200); do
    redis-cli -p "$1" INFO persistence 2>/dev/null | tr -d '\r' |
      grep -Eq '^(aof_rewrite_(in_progress|scheduled)|flush_in_progress|compaction_in_progress):1' ||
      return 0
    sleep 0.1
  done
}

# start_redis_server DIR LOG [redis-server options...]: starts redis-server
# on a free port of 127.0.0.1 and sets redis_pid and redis_port. It checks
# that the server answering on the port is the one it started (by its
# process id): a port picked at random was once the frontier's own, and
# redis-benchmark then measured the frontier's errors. Retries on another
# port if the server exits at start.
start_redis_server() {
  local dir=$1 log=$2; shift 2
  for _ in 1 2 3 4 5; do
    redis_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    redis-server --port "$redis_port" --bind 127.0.0.1 --dir "$dir" --daemonize no "$@" \
      >"$log" 2>&1 &
    redis_pid=$!
    for _ in $(seq 100); do
      kill -0 "$redis_pid" 2>/dev/null || break
      redis-cli -p "$redis_port" INFO server 2>/dev/null | tr -d '\r' |
        grep -qx "process_id:$redis_pid" && return 0
      sleep 0.1
    done
    kill "$redis_pid" 2>/dev/null || true
    wait "$redis_pid" 2>/dev/null || true
  done
  cat "$log" >&2
  return 1
}
