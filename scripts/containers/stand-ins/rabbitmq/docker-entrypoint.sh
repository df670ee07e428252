#!/usr/bin/env bash
# The official rabbitmq image's settings, as far as docker-compose.yml relies on them: listeners on
# every address, guest allowed from anywhere but only if no default user is given, and the default
# user, password and vhost from RABBITMQ_DEFAULT_USER / _PASS / _VHOST (RabbitMQ creates them when
# its database is empty, that is on the first start of the volume).
set -Eeo pipefail
{
  echo "listeners.tcp.default = 5672"
  echo "management.tcp.port = 15672"
  echo "loopback_users.guest = false"
  [ -n "${RABBITMQ_DEFAULT_USER:-}" ] && echo "default_user = ${RABBITMQ_DEFAULT_USER}"
  [ -n "${RABBITMQ_DEFAULT_PASS:-}" ] && echo "default_pass = ${RABBITMQ_DEFAULT_PASS}"
  [ -n "${RABBITMQ_DEFAULT_VHOST:-}" ] && echo "default_vhost = ${RABBITMQ_DEFAULT_VHOST}"
  true
} >/etc/rabbitmq/rabbitmq.conf
exec "$@"
