#!/usr/bin/env bash
# Builds the pinned virtual environment the AG-UI producer tests start their servers from, once: again only
# when requirements.txt changes. Prints the environment's python last.
#
#   Tests/AgentProducers/make-venv.sh [VENV_DIR]     (default: <repo>/.build/agent-venv)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
venv="${1:-$repo/.build/agent-venv}"
stamp="$venv/.requirements.sha256"
want="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"
if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  echo "$venv/bin/python"
  exit 0
fi
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --disable-pip-version-check --no-input -q -r "$here/requirements.txt"
echo "$want" > "$stamp"
echo "$venv/bin/python"
