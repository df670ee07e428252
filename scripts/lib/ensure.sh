# Shared by start.sh, test.sh, admin.sh and .ci/run: make a fresh machine able to build, run and test.
# Everything is idempotent and quiet when there is nothing to do. Progress goes to stderr.

say() { printf '\033[36m==>\033[0m %s\n' "$*" >&2; }

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
