#!/usr/bin/env bash
# npm run lint: the formatting (Prettier) and lint (typescript-eslint, type-checked) checks that
# npm test runs first, and the 300-line limit on source modules. The eslint cache keeps a re-run to
# the files that changed. Comments that narrate history (issue numbers, passes) fail too.
set -euo pipefail
cd "$(dirname "$0")/.."
npx prettier --check --log-level warn .
npx eslint --cache --cache-location node_modules/.cache/eslint/ --max-warnings 0 .
bash scripts/check-file-size.sh
bash scripts/check-history-comments.sh
