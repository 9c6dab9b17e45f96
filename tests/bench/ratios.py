#!/usr/bin/env python3
"""Prints Google Benchmark JSON results as ratios to a baseline in the same run.

usage: ratios.py RESULTS.json SUBJECT_PREFIX BASELINE_PREFIX [BASELINE_PREFIX ...]
Benchmarks are matched by the part of the name after the first '/', e.g.
BM_SeenSetExact/dup_pct:90/... against BM_RocksDbOnly/dup_pct:90/...
Rates come from items_per_second (higher is better), else real_time.
"""
import json
import sys


def rate(b):
    if "items_per_second" in b:
        return b["items_per_second"], "items/s"
    return 1e9 / b["real_time"], "ops/s"


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    data = json.load(open(sys.argv[1]))
    subject, baselines = sys.argv[2], sys.argv[3:]
    runs = {}
    for b in data["benchmarks"]:
        if b.get("run_type") == "aggregate":
            continue
        name, _, rest = b["name"].partition("/")
        runs.setdefault(name, {})[rest] = b
    print(f"load average at start: {data['context'].get('load_avg')}")
    for rest, b in sorted(runs.get(subject, {}).items()):
        r, unit = rate(b)
        line = f"{subject}/{rest}: {r / 1e6:.3f} M{unit} (cpu {b['cpu_time']:.0f} {b['time_unit']})"
        for base in baselines:
            other = runs.get(base, {}).get(rest)
            if other:
                line += f"  x{r / rate(other)[0]:.2f} vs {base}"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
