#!/usr/bin/env bash
# npm run --silent admin -- <command> [flags]: the admin CLI (one JSON object on stdout).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/ensure.sh
ensure_pnpm
ensure_deps
exec node --import tsx services/gateway/src/admin/cli.ts "$@"
