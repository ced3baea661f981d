#!/usr/bin/env bash
# Runs a command against a throwaway PostgreSQL: starts a server in a
# temporary directory on a free port (as the postgres user when run as root),
# exports SHIPD_TEST_DATABASE_URL (a superuser URL the tests create their
# databases from), runs "$@", and removes the server whatever happens.
# With SHIPD_TEST_DATABASE_URL already set, it only runs the command.
#
#   scripts/pg-test.sh go test ./store/
set -euo pipefail

if [ -n "${SHIPD_TEST_DATABASE_URL:-}" ]; then
	exec "$@"
fi

pgbin=""
for d in /usr/lib/postgresql/*/bin; do
	[ -x "$d/initdb" ] && pgbin="$d"
done
if [ -z "$pgbin" ]; then
	echo "pg-test: installing Debian's PostgreSQL server" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null && apt-get install -y -qq postgresql >/dev/null
	for d in /usr/lib/postgresql/*/bin; do
		[ -x "$d/initdb" ] && pgbin="$d"
	done
fi
[ -n "$pgbin" ] || { echo "pg-test: no PostgreSQL server found or installed" >&2; exit 1; }

dir=$(mktemp -d /tmp/shipd-pg-XXXXXX)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; fi

cleanup() {
	as_pg "$pgbin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
	rm -rf "$dir"
}
trap cleanup EXIT

as_pg "$pgbin/initdb" -D "$dir/data" -U postgres -A trust --no-sync -E UTF8 >/dev/null
# Durability is not what these tests measure: fsync off keeps them fast.
as_pg "$pgbin/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
	-o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400" start >/dev/null
export SHIPD_TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
echo "pg-test: PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port" >&2
"$@"
