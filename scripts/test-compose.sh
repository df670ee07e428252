#!/usr/bin/env bash
# npm run test:compose: docker compose up of docker-compose.yml with stand-ins for the images Docker
# Hub would give (scripts/containers/compose.ts). Needs a Docker engine and the Compose v2 plugin
# (installed here when missing: docker.io, and Debian trixie's docker-compose package); one SKIPPED
# line and exit 0 where no engine can run.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/ensure.sh
ensure_all
docker_or_skip "compose test"
ensure_compose
if ! docker compose version >/dev/null 2>&1; then
  printf '\n\033[1;33m*** SKIPPED: compose test: the docker compose v2 plugin is missing ***\033[0m\n\n'
  exit 0
fi
ensure_node_image
exec node --import tsx scripts/containers/compose.ts "$@"
