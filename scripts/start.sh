#!/usr/bin/env bash
# npm start: install what is missing, build, then run all six services and print an API key.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/ensure.sh
ensure_all
say "building (type check)"
pnpm run -s build
exec node --import tsx scripts/dev-fleet.ts
