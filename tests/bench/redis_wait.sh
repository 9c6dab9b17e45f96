# Sourced by the bench scripts that run redis-server.
# wait_rewrite PORT: waits (at most 120 s) until the Redis server on PORT
# runs no AOF rewrite. Redis rewrites its append-only file in a forked child
# once it has grown; waiting keeps that child out of the next measurement.
# Returns at once for a server without AOF (crawl-frontier).
wait_rewrite() {
  for _ in $(seq 1200); do
    redis-cli -p "$1" INFO persistence 2>/dev/null | tr -d '\r' |
      grep -Eq '^aof_rewrite_(in_progress|scheduled):1' || return 0
    sleep 0.1
  done
}
