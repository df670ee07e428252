#!/usr/bin/env bash
# The official postgres image's start-up, as far as docker-compose.yml relies on it: on an empty
# PGDATA, initdb with POSTGRES_USER / POSTGRES_PASSWORD (password auth over TCP), POSTGRES_DB
# created, then every /docker-entrypoint-initdb.d file run (*.sh executed, or sourced when not
# executable; *.sql through psql) against a temporary server on the Unix socket only; then the
# server itself, listening on every address, as the postgres user.
set -Eeo pipefail

if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown -R postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi

if [ "$1" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD must be set (the official image refuses to start without it too)}"
  export POSTGRES_USER="${POSTGRES_USER:-postgres}"
  export POSTGRES_DB="${POSTGRES_DB:-$POSTGRES_USER}"
  initdb --username="$POSTGRES_USER" --pwfile=<(printf '%s\n' "$POSTGRES_PASSWORD") \
    --auth-local=trust --auth-host=scram-sha-256 -D "$PGDATA" >/dev/null
  printf "\nhost all all all scram-sha-256\n" >>"$PGDATA/pg_hba.conf"
  printf "\nlisten_addresses = '*'\n" >>"$PGDATA/postgresql.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -p 5432" -w start >/dev/null
  if [ "$POSTGRES_DB" != postgres ]; then
    psql -v ON_ERROR_STOP=1 --no-psqlrc --username "$POSTGRES_USER" --dbname postgres \
      -c "CREATE DATABASE \"$POSTGRES_DB\"" >/dev/null
  fi
  for f in /docker-entrypoint-initdb.d/*; do
    case "$f" in
      *.sh)
        echo "stand-in entrypoint: running $f"
        if [ -x "$f" ]; then "$f"; else . "$f"; fi
        ;;
      *.sql)
        echo "stand-in entrypoint: running $f"
        psql -v ON_ERROR_STOP=1 --no-psqlrc --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" -f "$f"
        ;;
    esac
  done
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  echo "stand-in entrypoint: PostgreSQL init process complete; ready for start up"
fi

exec "$@"
