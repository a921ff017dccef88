#!/usr/bin/env bash
# Builds the documentation of every module a host imports with the toolchain's own tools: symbol graphs from
# the compiler (swift symbolgraph-extract), then `docc convert` with warnings as errors, so a broken symbol
# link, an article that does not parse or a parameter left undocumented fails the run. ConversationStore
# has a catalog of articles (Sources/ConversationStore/ConversationStore.docc); the others are their doc
# comments. The archives land in .build/docs/<Module>.doccarchive.
set -euo pipefail
cd "$(dirname "$0")/.."

swift build
modules=(ConversationStore ConversationState Reducers Persistence ServerSentEvents ChatHTTP ChatAGUI ChatAISDK
  ChatOpenAI ConversationTesting)
triple=$(swift -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["target"]["triple"])')
bin=$(swift build --show-bin-path)
work=.build/docs-work
rm -rf "$work" .build/docs
mkdir -p "$work" .build/docs
for module in "${modules[@]}"; do
  graphs="$work/$module-symbols"
  mkdir -p "$graphs"
  # -I Sources/CSQLite: Persistence imports the system SQLite through that module map.
  swift symbolgraph-extract -module-name "$module" -I "$bin/Modules" -I Sources/CSQLite -target "$triple" \
    -output-dir "$graphs" \
    -minimum-access-level public
  catalog="Sources/$module/$module.docc"
  if [ ! -d "$catalog" ]; then
    catalog="$work/$module.docc"
    mkdir -p "$catalog"
  fi
  docc convert "$catalog" --additional-symbol-graph-dir "$graphs" --output-path ".build/docs/$module.doccarchive" \
    --fallback-display-name "$module" --fallback-bundle-identifier "conversationstore.$module" \
    --warnings-as-errors > "$work/$module.log" 2>&1 || { cat "$work/$module.log" >&2; exit 1; }
  echo "$module: .build/docs/$module.doccarchive"
done
