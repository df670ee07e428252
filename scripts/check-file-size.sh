#!/usr/bin/env bash
# No source module over 300 lines (tests, generated files, the dashboard's vendored assets and data
# files aside): a file that grows past it is doing two things and is split by what they are.
set -euo pipefail
cd "$(dirname "$0")/.."
MAX=300
over=$(git ls-files -co --exclude-standard -- '*.ts' '*.mts' '*.js' '*.mjs' | sort -u \
  | grep -Ev '(^|/)(node_modules|dist|generated)/|\.test\.|(^|/)test/|^test-e2e/|^bench/|\.d\.ts$' \
  | while read -r f; do [ -f "$f" ] && n=$(wc -l <"$f") && [ "$n" -gt "$MAX" ] && echo "  $f: $n lines"; done || true)
if [ -n "$over" ]; then
  echo "Source files over $MAX lines (split them by what they do):" >&2
  echo "$over" >&2
  exit 1
fi
