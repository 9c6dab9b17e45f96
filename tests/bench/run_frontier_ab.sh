#!/usr/bin/env bash
# A/B of crawl-frontier binaries on the frontier work of
# run_frontier_vs_redis.sh (add 10% and 90% duplicates, lease + done), the
# crawlfront side only: ROUNDS rounds, each binary once per round,
# alternating so that a machine whose speed drifts affects all alike. Prints
# every run, then per step each binary's median URLs/s and server CPU per
# URL, and each binary's median against the first's.
#   tests/bench/run_frontier_ab.sh ROUNDS BINARY BINARY [BINARY ...]
# URLS and HOSTS (default 1000000 10000) and the environment of
# run_frontier_vs_redis.sh (THREADS, WORKERS, DURABILITY, ...) pass through.
# Three rounds were not enough on a shared 2-core VM: a change that looked
# +12% over three was +0% over nine (docs/benchmarks.md, session 27).
set -euo pipefail
[ $# -ge 3 ] || { sed -n 2,12p "$0"; exit 2; }
ROUNDS=$1; shift
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS must be a positive integer, not '$ROUNDS'" >&2; exit 2; }
bins=()  # absolute: the script runs from the repository's root
for bin in "$@"; do
  [ -x "$bin" ] || { echo "not an executable: $bin" >&2; exit 2; }
  bins+=("$(realpath "$bin")")
done
cd "$(dirname "$0")/../.."
results=$(mktemp /tmp/frontier-ab.XXXXXX)
trap 'rm -f "$results"' EXIT
for round in $(seq "$ROUNDS"); do
  for i in $(seq $#); do
    bin=${bins[i - 1]}
    out=$(FRONTIER=$bin TARGETS=crawlfront ROUNDS=1 \
      tests/bench/run_frontier_vs_redis.sh "${URLS:-1000000}" "${HOSTS:-10000}" 2>&1) ||
      { echo "$out" >&2; echo "run $round of $bin failed" >&2; exit 1; }
    # "step URLs/s CPU" per phase line, in the order add 10%, add 90%, lease.
    steps=$(sed -n 's/.*phase=\([a-z]*\).* dup_pct=\([0-9]*\).* urls_per_s=\([0-9]*\) .*server_cpu_us_per_url=\([0-9.]*\).*/\1_dup\2 \3 \4/p;
                   s/.*phase=lease .* urls_per_s=\([0-9]*\) .*server_cpu_us_per_url=\([0-9.]*\).*/lease_done \1 \2/p' <<<"$out")
    [ "$(wc -l <<<"$steps")" = 3 ] || { echo "$out" >&2; echo "run $round of $bin failed" >&2; exit 1; }
    echo "round $round $bin: $(tr '\n' ' ' <<<"$steps")"
    while read -r step rate cpu; do echo "$i $step $rate $cpu"; done <<<"$steps" >>"$results"
  done
done
echo "medians of $ROUNDS rounds (URLs/s, server CPU us per URL; ratio to $1):"
awk -v n=$# -f tests/bench/median.awk -f <(echo '
  { r[$1, $2] = r[$1, $2] " " $3; c[$1, $2] = c[$1, $2] " " $4
    if (!($2 in seen)) { seen[$2] = 1; order[++k] = $2 } }
  END {
    for (s = 1; s <= k; s++) {
      st = order[s]; base = median(r[1, st])
      for (b = 1; b <= n; b++) {
        m = median(r[b, st])
        printf "%-12s %-3s %10.0f URLs/s %6.2f us/URL", st, "#" b, m, median(c[b, st])
        if (b > 1 && base > 0) printf "   x%.3f", m / base
        printf "\n"
      }
    }
  }') "$results"
for i in $(seq $#); do echo "#$i ${bins[i - 1]}"; done
