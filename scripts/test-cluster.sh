#!/usr/bin/env bash
# npm run test:cluster: the fleet on a three-node RabbitMQ cluster on this machine (Debian's
# rabbitmq-server, installed when missing; the system node on 5672 is left as it is) loses the node
# it is connected to mid-burst, and the fault suite's invariants are checked
# (test-e2e/cluster/node-loss.cluster.test.ts; docs/runbook.md, "A RabbitMQ cluster").
# Runs the nodes as the rabbitmq user, so it needs root. About 4 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/ensure.sh
ensure_all
if [ "$(id -u)" != "0" ]; then
  echo "npm run test:cluster needs root: the cluster's nodes run as the rabbitmq user" >&2
  exit 1
fi
MF_CLUSTER_TEST=1 exec npx jest --selectProjects cluster "$@"
