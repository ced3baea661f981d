#!/usr/bin/env bash
# Runs a command against a throwaway Redis: starts redis-server on a free
# port of 127.0.0.1 in a temporary directory (no persistence), runs the
# command with SHIPD_TEST_REDIS_URL=redis://127.0.0.1:PORT/0 in its
# environment, then stops Redis and removes the directory, whatever the
# command's outcome. The script exits with the command's status.
#
#   scripts/redis-test.sh go test -count=1 -run Redis ./server/
#
# When redis-server is missing it is installed from Debian's packages
# (apt-get install -y redis-server; as root, or through sudo).
set -euo pipefail

if [[ $# -eq 0 ]]; then
	echo "usage: $0 COMMAND [ARG...]  (runs COMMAND with SHIPD_TEST_REDIS_URL set)" >&2
	exit 2
fi

log() { echo "redis-test: $*" >&2; }

install_redis() {
	local sudo=()
	if [[ $(id -u) -ne 0 ]]; then
		command -v sudo >/dev/null || { log "redis-server is missing and installing it needs root"; exit 1; }
		sudo=(sudo)
	fi
	log "redis-server not found: installing Debian's redis-server package"
	export DEBIAN_FRONTEND=noninteractive
	# Package lists may be missing or stale on a fresh machine: update only when the first try fails.
	"${sudo[@]}" apt-get install -y -qq redis-server >&2 ||
		{ "${sudo[@]}" apt-get update -qq >&2 && "${sudo[@]}" apt-get install -y -qq redis-server >&2; }
}

command -v redis-server >/dev/null || install_redis

workdir=$(mktemp -d "${TMPDIR:-/tmp}/shipd-redis.XXXXXX")
redis_pid=""

cleanup() {
	if [[ -n $redis_pid ]] && kill -0 "$redis_pid" 2>/dev/null; then
		kill "$redis_pid" 2>/dev/null || true
		wait "$redis_pid" 2>/dev/null || true
	fi
	rm -rf "$workdir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# answers_ping reports whether a Redis answers PONG on port $1. It uses
# bash's /dev/tcp, so redis-cli is not needed; the subshell keeps a refused
# connection from ending the script.
answers_ping() {
	local reply
	reply=$(
		exec 2>/dev/null
		exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
		printf 'PING\r\n' >&3
		IFS= read -r -t 1 line <&3 && printf '%s' "$line"
	) || return 1
	[[ $reply == "+PONG"* ]]
}

# A free port is one Redis manages to bind: pick a random high port and start
# Redis on it; if the port is taken, Redis exits and the next port is tried.
# (Asking for a free port first and binding later would race with other programs.)
start_redis() {
	local port
	for _ in $(seq 1 20); do
		port=$((20000 + RANDOM % 40000))
		redis-server --port "$port" --bind 127.0.0.1 --dir "$workdir" \
			--save "" --appendonly no --daemonize no \
			--logfile "$workdir/redis.log" >/dev/null 2>&1 &
		redis_pid=$!
		for _ in $(seq 1 100); do # up to 5 s to answer
			if answers_ping "$port"; then
				redis_port=$port
				return 0
			fi
			kill -0 "$redis_pid" 2>/dev/null || break # exited: port taken
			sleep 0.05
		done
		kill "$redis_pid" 2>/dev/null || true
		wait "$redis_pid" 2>/dev/null || true
		redis_pid=""
	done
	log "could not start redis-server; its last log:"
	cat "$workdir/redis.log" >&2 2>/dev/null || true
	return 1
}

start_redis
export SHIPD_TEST_REDIS_URL="redis://127.0.0.1:$redis_port/0"
log "SHIPD_TEST_REDIS_URL=$SHIPD_TEST_REDIS_URL (redis-server pid $redis_pid)"

status=0
"$@" || status=$?
exit "$status"
