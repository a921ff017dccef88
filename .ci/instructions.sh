#!/usr/bin/env bash
# Instructions per operation of benchmark workloads, counted by callgrind inside the timed part of each run
# (`Harness.time` / `Harness.timeAsync`, inclusive: the actions, the reducer, the store, and a subscriber's
# wake when it runs on the sending thread, as `frame.*`'s does; not the history a workload builds first, and
# not a subscriber on a thread of its own, as `send.confirm`'s). Unlike a time, the count is the same on a
# busy machine and a quiet one.
#
#   .ci/instructions.sh [WORKLOAD ...]     # default: send.confirm.h1k frame.delta.h10k delta.store.h10k
#
# Prints one JSON line per workload: {"name", "instructions", "ops", "instructions_per_op"}, where `ops` counts
# the warm-up run and the five measured runs (`--quick` sizes). CI prints these; it never fails on them.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v valgrind > /dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind > /dev/null
fi
swift build -c release --product benchmarks > /dev/null

workloads=("$@")
if [ ${#workloads[@]} -eq 0 ]; then workloads=(send.confirm.h1k frame.delta.h10k delta.store.h10k); fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

for name in "${workloads[@]}"; do
  valgrind --tool=callgrind --callgrind-out-file="$scratch/$name.out" \
    .build/release/benchmarks --quick --filter "$name" > "$scratch/$name.json" 2> "$scratch/$name.log"
  callgrind_annotate --inclusive=yes --threshold=100 "$scratch/$name.out" > "$scratch/$name.txt" 2> /dev/null
  python3 - "$name" "$scratch/$name.txt" "$scratch/$name.json" << 'EOF'
import json, re, sys
name, annotated, lines = sys.argv[1:4]
# The outermost timing function's inclusive count: a specialization of Harness.time may call another one
# (merged by the compiler), so the largest is the one that holds the rest.
counts = [int(m.group(1).replace(",", "")) for m in
          (re.match(r"\s*([\d,]+) .*\$s10Benchmarks7HarnessO(4time|9timeAsync)", l) for l in open(annotated)) if m]
instructions = max(counts) if counts else None
result = next(json.loads(l) for l in open(lines) if l.startswith("{") and json.loads(l).get("name") == name)
# The harness runs each workload once to warm up, then `runs` times; each run does `ops` operations.
ops = result["ops"] * (result["runs"] + 1)
print(json.dumps({"name": name, "instructions": instructions, "ops": ops,
                  "instructions_per_op": round(instructions / ops) if instructions else None}))
EOF
done
