#!/usr/bin/env python3
"""Docs/PERFORMANCE.md's tables from the benchmarks' JSON lines, so that no table is written by hand.

    .build/release/benchmarks --filter frame. > run1.jsonl    # once per run; stdout only
    .ci/ratio-tables.py run1.jsonl run2.jsonl run3.jsonl     # or `... < run1.jsonl` for one run

Prints two Markdown tables: each workload's ns per op (the range of the runs' medians; bytes for a
`"unit": "bytes"` workload) with its operations and snapshots, then each ratio target the runs carry, with
its limit, each run's median, the min–max over every round of every run, and how many runs met it (a run
meets a target when its median does, as the benchmarks judge it). Reads nothing but the lines the
benchmarks print: a ratio's rounds are the benchmarks' own, not recomputed from the workloads' medians.
"""
import json
import sys


def number(value):
    """Three significant figures, thousands separated: 0.123, 4.56, 78.9, 1,234."""
    if value >= 1_000:
        return f"{value:,.0f}"
    return f"{value:.3g}" if value >= 1 else f"{value:.2g}"


def span(values):
    low, high = number(min(values)), number(max(values))
    return low if low == high else f"{low}–{high}"


def read(lines):
    workloads, ratios = {}, {}
    for line in lines:
        if not line.startswith("{"):
            continue
        entry = json.loads(line)
        if "ratio" in entry:
            ratios[entry["ratio"]] = entry
        elif "name" in entry:
            workloads[entry["name"]] = entry
    return workloads, ratios


def main(paths):
    runs = [read(open(path)) for path in paths] if paths else [read(sys.stdin)]
    names = list(dict.fromkeys(name for workloads, _ in runs for name in workloads))
    ratios = list(dict.fromkeys(ratio for _, run_ratios in runs for ratio in run_ratios))
    print(f"| workload | ns per op ({len(runs)} runs) | ops | snapshots (last round) |")
    print("|---|---|---|---|")
    for name in names:
        seen = [workloads[name] for workloads, _ in runs if name in workloads]
        unit = " bytes" if seen[0].get("unit") == "bytes" else ""
        snapshots = [entry["snapshots"] for entry in seen if entry.get("snapshots") is not None]
        print(
            f"| `{name}` | {span([entry['ns_per_op'] for entry in seen])}{unit} | {seen[0]['ops']:,} "
            f"| {span(snapshots) if snapshots else '–'} |"
        )
    print()
    print("| numerator / denominator | limit | median of each run | min–max of all rounds | met |")
    print("|---|---|---|---|---|")
    for ratio in ratios:
        seen = [run_ratios[ratio] for _, run_ratios in runs if ratio in run_ratios]
        limit = f"{'≤' if seen[0]['at_most'] else '≥'} {number(seen[0]['limit'])}"
        medians = ", ".join(number(entry["median"]) for entry in seen)
        rounds = span([entry["min"] for entry in seen] + [entry["max"] for entry in seen])
        met = sum(entry["met"] for entry in seen)
        print(f"| `{ratio}` | {limit} | {medians} | {rounds} | {met}/{len(seen)} |")


if __name__ == "__main__":
    main(sys.argv[1:])
