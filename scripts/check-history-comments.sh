#!/usr/bin/env bash
# Comments say why the code is as it is, never the history that led to it: no issue numbers and no
# "second pass" or "(third pass)" narration in sources. History stays in git and the issue tracker.
set -euo pipefail
cd "$(dirname "$0")/.."
PATTERN='\bissues? #?[0-9]+|\b(second|third|fourth|fifth|sixth|seventh) pass\b|\b[a-z]+ pass\)'
found=$(git ls-files -co --exclude-standard -- '*.ts' '*.mts' '*.js' '*.mjs' '*.sh' '*.yml' '*.yaml' 'Dockerfile*' \
  | grep -Ev '(^|/)(node_modules|dist|generated)/|^scripts/check-history-comments.sh$' | sort -u \
  | while read -r f; do [ -f "$f" ] && grep -HnEi "$PATTERN" "$f"; done || true)
if [ -n "$found" ]; then
  echo "Comments that narrate history (say why instead; history stays in git):" >&2
  echo "$found" >&2
  exit 1
fi
