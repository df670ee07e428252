#!/usr/bin/env bash
# Creates the mediaforge database, one login role per service and one schema per service.
#
# Run by the official postgres image from /docker-entrypoint-initdb.d, once, when the data
# directory is empty (a volume that already holds a cluster skips every init script: to re-run
# it in development, `docker compose down -v`). The entrypoint provides POSTGRES_USER and
# POSTGRES_DB and a server reachable over the local socket.
#
# For each service:  role <schema>_svc  (password from <SCHEMA>_DB_PASSWORD, dev default below)
#                    schema <schema>, owned by that role, nothing granted on it to anyone else
#                    the role's search_path = its own schema
# Database-wide:     PUBLIC loses every privilege on the database and on schema public; each
#                    service role gets CONNECT and CREATE on the database.
#
# Why CREATE on the database: every service runs `CREATE SCHEMA IF NOT EXISTS "<schema>"` at start.
# Postgres checks the CREATE privilege on the database before it looks whether the schema exists,
# so without that grant the statement fails even though it would be a no-op. The grant lets a role
# create new schemas of its own; it gives no access to another service's schema.
#
# Written to work whether the entrypoint executes it (it is executable) or sources it: no `exit`,
# no `set -u`, names prefixed with mf_.
set -Eeo pipefail

mf_db="${MEDIAFORGE_DB:-mediaforge}"
mf_admin_db="${POSTGRES_DB:-${POSTGRES_USER:-postgres}}"

mf_psql() {
  psql -v ON_ERROR_STOP=1 --no-psqlrc --username "${POSTGRES_USER:-postgres}" "$@"
}

# The database, unless POSTGRES_DB already created it.
mf_psql --dbname "$mf_admin_db" -v db="$mf_db" <<'SQL'
SELECT format('CREATE DATABASE %I', :'db')
WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = :'db')\gexec
SQL

mf_psql --dbname "$mf_db" -v db="$mf_db" <<'SQL'
REVOKE ALL ON DATABASE :"db" FROM PUBLIC;
REVOKE ALL ON SCHEMA public FROM PUBLIC;
SQL

# role  schema  variable holding the password
for mf_spec in \
  "gateway_svc  gateway  GATEWAY_DB_PASSWORD" \
  "billing_svc  billing  BILLING_DB_PASSWORD" \
  "jobs_svc     jobs     JOBS_DB_PASSWORD" \
  "editor_svc   editor   EDITOR_DB_PASSWORD" \
  "exports_svc  exports  EXPORTS_DB_PASSWORD" \
  "webhooks_svc webhooks WEBHOOKS_DB_PASSWORD"; do
  read -r mf_role mf_schema mf_var <<<"$mf_spec"
  mf_password="${!mf_var:-${mf_schema}_dev_password}"
  echo "01-service-users: role ${mf_role}, schema ${mf_schema}"
  mf_psql --dbname "$mf_db" -v db="$mf_db" -v role="$mf_role" -v schema="$mf_schema" -v password="$mf_password" <<'SQL'
SELECT format('CREATE ROLE %I', :'role')
WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'role')\gexec
ALTER ROLE :"role" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD :'password';
ALTER ROLE :"role" SET search_path = :"schema";
GRANT CONNECT, CREATE ON DATABASE :"db" TO :"role";
CREATE SCHEMA IF NOT EXISTS :"schema" AUTHORIZATION :"role";
ALTER SCHEMA :"schema" OWNER TO :"role";
REVOKE ALL ON SCHEMA :"schema" FROM PUBLIC;
SQL
done
unset mf_spec mf_role mf_schema mf_var mf_password
