#!/bin/sh
# Patroni's post_bootstrap (deploy/patroni.yml): run once, on the member that initialised the cluster, with a
# superuser connection string as $1. Makes the nodes' user `snapboard`, its password from the environment,
# and its database; the nodes create their tables themselves.
set -eu
: "${SNAPBOARD_PG_PASSWORD:?SNAPBOARD_PG_PASSWORD is not set}"
psql "$1" -v ON_ERROR_STOP=1 -v password="$SNAPBOARD_PG_PASSWORD" <<'SQL'
CREATE ROLE snapboard LOGIN PASSWORD :'password';
CREATE DATABASE snapboard OWNER snapboard;
SQL
