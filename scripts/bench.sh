#!/usr/bin/env bash
# npm run bench -- <name>: the benchmarks in bench/ (figures, never pass/fail), after making sure the
# machine has what they need (as npm test does). Arguments go to bench/run.ts.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/ensure.sh
ensure_all
exec node --import tsx bench/run.ts "$@"
