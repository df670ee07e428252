#!/usr/bin/env bash
# npm test: every test of the project (unit, integration against the real Postgres and RabbitMQ,
# end-to-end against the real fleet), after the format and lint checks and the type check. Extra
# arguments go to jest.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/ensure.sh
ensure_all
ensure_browser
ensure_redis
ensure_compose
# The three checks are single processes each: side by side they take the time of the longest
# (eslint's), not of all three. Each one's output is printed whole when it ends.
say "format and lint, type check, generated files current (types, SDK types from the joi schemas)"
checks_dir=$(mktemp -d)
bash scripts/lint.sh >"$checks_dir/lint" 2>&1 & lint_pid=$!
pnpm run -s build >"$checks_dir/tsc" 2>&1 & tsc_pid=$!
node --import tsx scripts/generate/main.ts --check >"$checks_dir/generate" 2>&1 & generate_pid=$!
failed=""
for check in lint tsc generate; do
  pid_var="${check}_pid"
  if ! wait "${!pid_var}"; then failed="$failed $check"; fi
  cat "$checks_dir/$check"
done
rm -rf "$checks_dir"
if [ -n "$failed" ]; then
  echo "failed:$failed" >&2
  exit 1
fi
say "tests"
exec npx jest --maxWorkers=2 "$@"
