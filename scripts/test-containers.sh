#!/usr/bin/env bash
# npm run test:containers: builds the six images from the Dockerfile, runs them against a fresh
# database and vhost on this machine's Postgres and RabbitMQ, and drives the containerised fleet
# (scripts/containers/smoke.ts). Where no Docker engine can run, one SKIPPED line and exit 0.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/ensure.sh
ensure_all
docker_or_skip "container smoke test"
ensure_node_image
exec node --import tsx scripts/containers/smoke.ts "$@"
