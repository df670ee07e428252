#!/usr/bin/env bash
# npm test: every test of the project (unit, integration against the real Postgres and RabbitMQ,
# end-to-end against the real fleet), after the type check. Extra arguments go to jest.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/ensure.sh
ensure_all
ensure_browser
ensure_redis
say "type check"
pnpm run -s build
say "tests"
exec npx jest --maxWorkers=2 "$@"
