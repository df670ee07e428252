#!/usr/bin/env bash
# Builds a stand-in for the Node base image the Dockerfile starts from (NODE_IMAGE, by default
# node:20-bookworm-slim) where that image cannot be pulled (no Docker Hub on this network):
# Debian bookworm (debootstrap --variant=minbase) + this machine's own node binary and npm +
# this machine's CA bundle (package downloads inside builds go through this network's TLS
# proxy), with the node user (uid/gid 1000) the official image has. Tagged with the name given.
#
#   scripts/containers/base-image.sh node:20-bookworm-slim
#
# Root only (debootstrap). Idempotent: does nothing when the tag exists.
set -euo pipefail
TAG="${1:?usage: base-image.sh <tag>}"

say() { printf '\033[36m==>\033[0m %s\n' "$*" >&2; }

if docker image inspect "$TAG" >/dev/null 2>&1; then exit 0; fi
command -v debootstrap >/dev/null 2>&1 || {
  say "installing debootstrap"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >&2
}

NODE_BIN="$(readlink -f "$(command -v node)")"
NPM_DIR="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")"
CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
# The Debian mirror this machine's apt uses.
MIRROR="$(grep -hoE '^URIs: *\S+/debian$' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n1 | awk '{print $2}')"
MIRROR="${MIRROR:-http://deb.debian.org/debian}"

ROOT="$(mktemp -d /var/tmp/mf-base-XXXXXX)"
trap 'rm -rf "$ROOT"' EXIT
say "debootstrap bookworm (minbase) from $MIRROR for $TAG ($("$NODE_BIN" --version))"
debootstrap --variant=minbase bookworm "$ROOT" "$MIRROR" >/dev/null

install -m 0755 "$NODE_BIN" "$ROOT/usr/local/bin/node"
mkdir -p "$ROOT/usr/local/lib/node_modules"
cp -a "$NPM_DIR" "$ROOT/usr/local/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$ROOT/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$ROOT/usr/local/bin/npx"
mkdir -p "$ROOT/etc/ssl/certs"
install -m 0644 "$CA_BUNDLE" "$ROOT/etc/ssl/certs/ca-certificates.crt"
chroot "$ROOT" groupadd --gid 1000 node
chroot "$ROOT" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
# Slim, as the -slim images are: no apt lists, caches, docs or man pages.
rm -rf "$ROOT"/var/lib/apt/lists/* "$ROOT"/var/cache/apt/*.bin "$ROOT"/var/cache/apt/archives/*.deb \
  "$ROOT"/usr/share/doc/* "$ROOT"/usr/share/man/* "$ROOT"/usr/share/info/*

say "importing as $TAG"
tar -C "$ROOT" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=$("$NODE_BIN" --version | tr -d v)" \
  --change "ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt" \
  --change 'CMD ["node"]' \
  - "$TAG" >/dev/null
docker run --rm "$TAG" node -e "console.log('base image ' + process.argv[1] + ': node ' + process.version)" "$TAG" >&2
