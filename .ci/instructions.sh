#!/usr/bin/env bash
# Instructions per operation of benchmark workloads, counted by callgrind inside the timed part of each run
# (`Harness.time` / `Harness.timeAsync`, inclusive: the actions, the reducer, the store, and a subscriber's
# wake when it runs on the sending thread, as `frame.*`'s does; not the history a workload builds first, and
# not a subscriber on a thread of its own, as `send.confirm`'s). Unlike a time, the count is the same on a
# busy machine and a quiet one.
#
#   .ci/instructions.sh [WORKLOAD ...]     # default: send.confirm.h1k frame.delta.h10k hold.delta.h10k
#                                          #          frame.append.h10k delta.store.h10k
#   SCRATCH_PATH=/tmp/bench-build .ci/instructions.sh   # build beside, not in, a shared `.build`
#
# Each workload runs twice, `--quick` and full; the count per operation is the difference of the two counts
# over the difference of their operations, so what happens once (the dynamic linker binding symbols on
# first use, the runtime caching conformances, the warm-up's cold caches) cancels out. Prints one JSON line
# per workload: {"name", "instructions_per_op", "quick", "full"} (each {"instructions", "ops"}). CI prints
# these; it never fails on them.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v valgrind > /dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind > /dev/null
fi
scratch_path=${SCRATCH_PATH:-.build}
swift build -c release --product benchmarks --scratch-path "$scratch_path" > /dev/null
benchmarks="$scratch_path/release/benchmarks"

workloads=("$@")
if [ ${#workloads[@]} -eq 0 ]; then workloads=(send.confirm.h1k frame.delta.h10k hold.delta.h10k frame.append.h10k delta.store.h10k); fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

for name in "${workloads[@]}"; do
  for size in quick full; do
    flag=$([ "$size" = quick ] && echo --quick || true)
    valgrind --tool=callgrind --callgrind-out-file="$scratch/$name.$size.out" \
      "$benchmarks" $flag --filter "$name" > "$scratch/$name.$size.json" 2> /dev/null
    callgrind_annotate --inclusive=yes --threshold=100 "$scratch/$name.$size.out" > "$scratch/$name.$size.txt" \
      2> /dev/null
  done
  python3 - "$name" "$scratch" << 'EOF'
import json, re, sys
name, scratch = sys.argv[1:3]

def count(size):
    # The outermost timing function's inclusive count: a specialization of Harness.time may call another
    # one (merged by the compiler), so the largest holds the rest.
    pattern = re.compile(r"\s*([\d,]+) .*\$s10Benchmarks7HarnessO(4time|9timeAsync)")
    counts = [int(m.group(1).replace(",", "")) for m in map(pattern.match, open(f"{scratch}/{name}.{size}.txt")) if m]
    result = next(json.loads(l) for l in open(f"{scratch}/{name}.{size}.json")
                  if l.startswith("{") and json.loads(l).get("name") == name)
    # The harness runs each workload once to warm up, then `runs` times; each run does `ops` operations.
    return {"instructions": max(counts), "ops": result["ops"] * (result["runs"] + 1)}

quick, full = count("quick"), count("full")
per_op = (full["instructions"] - quick["instructions"]) / (full["ops"] - quick["ops"])
print(json.dumps({"name": name, "instructions_per_op": round(per_op), "quick": quick, "full": full}))
EOF
done
