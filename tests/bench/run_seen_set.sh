#!/usr/bin/env bash
# Seen-set throughput against RocksDB alone and std::unordered_set, as ratios
# measured in the same run. Run on an otherwise idle machine.
#   tests/bench/run_seen_set.sh [extra Google Benchmark flags]
# CRAWLFRONT_BENCH_PREFILL (default 10^6) sets the URLs seen before timing.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR=${BUILD_DIR:-build}
out=$(mktemp /tmp/seen_set_bench.XXXXXX.json)
"$BUILD_DIR/bench/seen_set_bench" --benchmark_out="$out" --benchmark_out_format=json "$@"
for subject in BM_SeenSetExact BM_SeenSetBloomOnly; do
  python3 tests/bench/ratios.py "$out" "$subject" BM_RocksDbOnly BM_UnorderedSet
done
echo "raw results: $out"
