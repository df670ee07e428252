#!/usr/bin/env bash
# npm test: every test of the project (unit, integration against the real Postgres and RabbitMQ,
# end-to-end against the real fleet), after the format and lint checks and the type check. Extra
# arguments go to jest.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/ensure.sh
ensure_all
say "format and lint"
bash scripts/lint.sh
ensure_browser
ensure_redis
ensure_compose
say "type check"
pnpm run -s build
say "generated files current (types, SDK types from the joi schemas)"
node --import tsx scripts/generate/main.ts --check
say "tests"
exec npx jest --maxWorkers=2 "$@"
