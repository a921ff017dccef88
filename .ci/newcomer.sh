#!/usr/bin/env bash
# A newcomer's first steps, as the README gives them: a new package beside this one with the README's
# manifest, and the README's first chat as its main.swift, built and run; it must print the scripted answer.
# What is run is read from README.md itself, so the README cannot drift from what works.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
ln -s "$repo" "$work/ConversationStore"  # the manifest's `.package(path: "../ConversationStore")`
mkdir -p "$work/MyChatApp/Sources/MyChatApp"
python3 - "$repo/README.md" "$work/MyChatApp" <<'PY'
import re, sys
readme, app = open(sys.argv[1]).read(), sys.argv[2]
blocks = re.findall(r"```swift\n(.*?)```", readme, re.S)
manifest = [b for b in blocks if b.startswith("// swift-tools-version:")]
first = [b for b in blocks if "func firstChat()" in b]
if len(manifest) != 1 or len(first) != 1:
    sys.exit(f"README.md: expected one manifest and one first chat, found {len(manifest)} and {len(first)}")
open(f"{app}/Package.swift", "w").write(manifest[0])
open(f"{app}/Sources/MyChatApp/main.swift", "w").write(first[0] + "\nprint(try await firstChat())\n")
PY
output="$(swift run --package-path "$work/MyChatApp" MyChatApp 2>&1)" || { echo "$output" >&2; exit 1; }
echo "$output" | tail -3
if [ "$(echo "$output" | tail -1)" != "Your order ships today." ]; then
  echo "the README's first chat did not print the scripted answer" >&2
  exit 1
fi
