#!/bin/sh
# Starts Patroni (docker-compose.yml, profile cluster) with the passwords from compose's secrets in its
# environment, where Patroni reads them; a missing or empty secret stops the container, saying which.
set -eu
secret() {
    file=/run/secrets/$1
    [ -s "$file" ] || { echo "snapboard-patroni: the secret $1 ($file) is missing or empty: see docker-compose.yml" >&2; exit 1; }
    cat "$file"
}
PATRONI_SUPERUSER_PASSWORD=$(secret pg_superuser_password)
PATRONI_REPLICATION_PASSWORD=$(secret pg_replication_password)
PATRONI_REWIND_PASSWORD=$(secret pg_rewind_password)
SNAPBOARD_PG_PASSWORD=$(secret snapboard_pg_password)
export PATRONI_SUPERUSER_PASSWORD PATRONI_REPLICATION_PASSWORD PATRONI_REWIND_PASSWORD SNAPBOARD_PG_PASSWORD
exec patroni "$@"
