#!/usr/bin/env bash
# make test-image: the container image end to end through podman, the
# systemd unit, and make release's reproducibility. Installs podman, runc
# and systemd when missing (Debian), and configures podman for these
# machines (containers.conf without default ulimits; runc, cgroupfs, host
# network). Nothing is pulled: the image is the local binary on scratch.
#
#  1. SQLite on a volume, listening on 0.0.0.0 as the image does, without
#     SHIPD_PUBLIC_URL: wait for health, buy a label (quote, create,
#     purchased, label.pdf) whose labelUrl is the address used (not the
#     wildcard), settingsUrl on localhost; back it up in place, restart the
#     container and read the label back.
#  1b. deploy/compose.sqlite.yaml through podman-compose (Debian's; podman
#     4 has no compose): up on a bridge network with a published port, buy
#     a label, down. deploy/compose.yaml resolves (podman-compose --dry-run:
#     every variable interpolated); its PostgreSQL, Redis and MinIO images
#     come from Docker Hub, out of reach here.
#  2. Two containers on a throwaway PostgreSQL (scripts/pg-test.sh), labels
#     in a file store on one shared volume: buy through each, read through
#     the other.
#  3. systemd-analyze verify deploy/systemd/shipd.service.
#  4. make release twice, the binary rebuilt between: the same bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
export GO

step() { echo "test-image: $*" >&2; }
fail() { echo "test-image: FAIL: $*" >&2; exit 1; }

# --- setup (idempotent)
need=()
command -v podman >/dev/null || need+=(podman)
command -v runc >/dev/null || [ -x /usr/sbin/runc ] || need+=(runc)
command -v systemd-analyze >/dev/null || need+=(systemd)
command -v jq >/dev/null || need+=(jq)
command -v podman-compose >/dev/null || need+=(podman-compose)
command -v curl >/dev/null || need+=(curl)
if [ ${#need[@]} -gt 0 ]; then
	step "installing ${need[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null && apt-get install -y -qq "${need[@]}" >/dev/null
fi
if ! grep -qs '^default_ulimits *= *\[\]' /etc/containers/containers.conf; then
	mkdir -p /etc/containers
	if [ -s /etc/containers/containers.conf ]; then
		fail "/etc/containers/containers.conf exists without 'default_ulimits = []' under [containers]: add it"
	fi
	printf '[containers]\ndefault_ulimits = []\n' >/etc/containers/containers.conf
fi
P=(podman --runtime runc --cgroup-manager=cgroupfs)

run_id="shipd-it-$$"
cleanup() {
	for c in "$run_id-sqlite" "$run_id-pg1" "$run_id-pg2"; do "${P[@]}" rm -f -t 5 "$c" >/dev/null 2>&1 || true; done
	for v in "$run_id-data" "$run_id-labels"; do "${P[@]}" volume rm -f "$v" >/dev/null 2>&1 || true; done
	podman-compose -p "$run_id-compose" -f deploy/compose.sqlite.yaml down -v >/dev/null 2>&1 || true
	for r in "$run_id-dry"_{postgres,redis,minio}-data; do podman volume rm -f "$r" >/dev/null 2>&1 || true; done
	podman network rm -f "$run_id-dry_default" "$run_id-compose_default" >/dev/null 2>&1 || true
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# wait_healthy CONTAINER: the image's HEALTHCHECK (shipd healthcheck, /readyz).
# podman's timers need systemd, absent here: run the check by hand.
wait_healthy() {
	for _ in $(seq 1 120); do
		if "${P[@]}" healthcheck run "$1" >/dev/null 2>&1; then return 0; fi
		[ "$("${P[@]}" inspect -f '{{.State.Running}}' "$1")" = true ] || { "${P[@]}" logs "$1" >&2; fail "$1 exited"; }
		sleep 0.5
	done
	"${P[@]}" logs "$1" | tail -20 >&2
	fail "$1 not healthy in 60 s"
}

SHIPMENT='{
  "fromAddress": {"name": "Shop", "phone": "415 555 0100", "street1": "1 Market St", "city": "San Francisco", "state": "CA", "zip": "94105", "country": "US"},
  "toAddress":   {"name": "Ada Lovelace", "phone": "212 555 0199", "street1": "350 Fifth Avenue", "city": "New York", "state": "NY", "zip": "10118", "country": "US"},
  "parcel":      {"weightOz": 32, "lengthIn": 10, "widthIn": 8, "heightIn": 4}
}'

# api BASE TOKEN METHOD PATH [BODY]: the body on stdout, fails on a non-2xx.
api() {
	local out code data=()
	[ $# -lt 5 ] || data=(-H 'Content-Type: application/json' --data "$5")
	out=$(mktemp)
	code=$(curl -s -o "$out" -w '%{http_code}' -X "$3" "$1/api/v1$4" -H "Authorization: Bearer $2" "${data[@]}")
	if [ "${code:0:1}" != 2 ]; then cat "$out" >&2; rm -f "$out"; fail "$3 $4: HTTP $code"; fi
	cat "$out"
	rm -f "$out"
}

# buy BASE TOKEN [READ_BASE]: quote, create, wait for purchased (read
# through READ_BASE), label.pdf; prints the label's id.
buy() {
	local base=$1 token=$2 read=${3:-$1} id status=""
	[ "$(api "$base" "$token" POST /labels/quote "$SHIPMENT" | jq '.rates | length')" -gt 0 ] || fail "quote: no rates"
	id=$(api "$base" "$token" POST /labels/create "$(jq -c '. + {serviceCategory: "express"}' <<<"$SHIPMENT")" | jq -r .id)
	for _ in $(seq 1 150); do
		status=$(api "$read" "$token" GET "/labels/$id" | jq -r .status)
		[ "$status" = purchased ] && break
		sleep 0.2
	done
	[ "$status" = purchased ] || fail "label $id: $status, not purchased"
	check_pdf "$read" "$token" "$id"
	echo "$id"
}

check_pdf() {
	local head
	head=$(curl -sf "$1/api/v1/labels/$3/label.pdf" -H "Authorization: Bearer $2" | head -c 5 || true)
	[ "$head" = "%PDF-" ] || fail "label $3: label.pdf is not a PDF at $1 (${head:-no answer})"
}

# --- build
step "building the image"
make --no-print-directory image >/tmp/shipd-image-build.log 2>&1 || { tail -30 /tmp/shipd-image-build.log; fail "make image"; }
image=shipd:latest
"${P[@]}" run --rm "$image" version --json 2>>/tmp/shipd-image-podman.log | jq -e '.version != "dev" and .commit != ""' >/dev/null || fail "shipd version in the image"
"${P[@]}" image inspect -f '{{index .Labels "org.opencontainers.image.version"}}' "$image" | grep . >/dev/null || fail "image labels"

# --- 1. SQLite on a volume, restarted
step "SQLite on a volume"
port=$(free_port)
base="http://127.0.0.1:$port"
"${P[@]}" volume create "$run_id-data" >/dev/null
# 0.0.0.0 and no SHIPD_PUBLIC_URL, as `docker run -p` of the image has.
"${P[@]}" run -d --name "$run_id-sqlite" --network host -e SHIPD_ADDR="0.0.0.0:$port" \
	-v "$run_id-data:/data" "$image" serve --job-poll-interval 20ms >/dev/null 2>/tmp/shipd-image-podman.log
wait_healthy "$run_id-sqlite"
first_start=$("${P[@]}" logs "$run_id-sqlite" 2>/dev/null | sed -n '/^{$/,/^}$/p')
token=$(jq -r .token <<<"$first_start")
[ -n "$token" ] && [ "$token" != null ] || fail "no demo token in the first start's output"
settings=$(jq -r .settingsUrl <<<"$first_start")
[ "$settings" = "http://localhost:$port/settings/" ] || fail "settingsUrl $settings, want http://localhost:$port/settings/"
"${P[@]}" logs "$run_id-sqlite" 2>&1 | grep '"msg":"listening"' | grep -q '"public_url":"the URLs of answers are each request' ||
	fail "the listening line does not say which base URL answers use"
id=$(buy "$base" "$token")
label_url=$(api "$base" "$token" GET "/labels/$id" | jq -r .labelUrl)
[ "$label_url" = "$base/api/v1/labels/$id/label.pdf" ] || fail "labelUrl $label_url, want $base/api/v1/labels/$id/label.pdf"
"${P[@]}" exec "$run_id-sqlite" /usr/local/bin/shipd backup --db /data/shipd.db --to /data/backup.db | jq -e '.bytes > 0' >/dev/null ||
	fail "shipd backup in the container"
"${P[@]}" restart -t 30 "$run_id-sqlite" >/dev/null 2>>/tmp/shipd-image-podman.log
wait_healthy "$run_id-sqlite"
[ "$(api "$base" "$token" GET "/labels/$id" | jq -r .status)" = purchased ] || fail "label $id after the restart"
check_pdf "$base" "$token" "$id"
"${P[@]}" logs "$run_id-sqlite" 2>&1 | grep '"msg":"shut down"' >/dev/null || fail "no drained shutdown logged on restart"
step "SQLite: bought $id (labelUrl $label_url), backed up, read back after a restart"

# --- 1b. the compose files through podman-compose
step "compose.sqlite.yaml through podman-compose"
cport=$(free_port)
compose=(podman-compose -p "$run_id-compose" -f deploy/compose.sqlite.yaml)
SHIPD_PORT=$cport "${compose[@]}" up -d >/tmp/shipd-compose.log 2>&1 || { tail -20 /tmp/shipd-compose.log >&2; fail "podman-compose up"; }
wait_healthy "$run_id-compose_shipd_1"
ctoken=$(podman logs "$run_id-compose_shipd_1" 2>/dev/null | sed -n '/^{$/,/^}$/p' | jq -r .token)
[ -n "$ctoken" ] && [ "$ctoken" != null ] || fail "compose: no demo token in the first start's output"
cbase="http://127.0.0.1:$cport"
cid=$(buy "$cbase" "$ctoken")
[ "$(api "$cbase" "$ctoken" GET "/labels/$cid" | jq -r .labelUrl)" = "$cbase/api/v1/labels/$cid/label.pdf" ] || fail "compose: labelUrl not on the published port"
"${compose[@]}" down -v >>/tmp/shipd-compose.log 2>&1 || { tail -20 /tmp/shipd-compose.log >&2; fail "podman-compose down"; }
dry=$(SHIPD_WEBHOOK_KEY=$(openssl rand -hex 32) podman-compose --dry-run -p "$run_id-dry" -f deploy/compose.yaml up -d 2>&1) ||
	{ echo "$dry" | tail -20 >&2; fail "podman-compose --dry-run up of compose.yaml"; }
[ "$(grep -c '^podman run' <<<"$dry")" = 6 ] || { echo "$dry" >&2; fail "compose.yaml: want 6 containers"; }
! grep '^podman run' <<<"$dry" | grep -q '\${' || { echo "$dry" >&2; fail "compose.yaml: a variable left uninterpolated"; }
step "compose: bought $cid through podman-compose on port $cport; compose.yaml resolves to 6 containers"

# --- 2. two containers on PostgreSQL, one shared label volume
step "PostgreSQL, two instances"
"${P[@]}" volume create "$run_id-labels" >/dev/null
export P_CMD="${P[*]}" RUN_ID="$run_id" IMAGE="$image"
export -f api buy check_pdf fail step wait_healthy free_port
export SHIPMENT
scripts/pg-test.sh bash -c '
	set -euo pipefail
	P=($P_CMD)
	dbname="shipd_image_$$"
	psql -q "$SHIPD_TEST_DATABASE_URL" -c "CREATE DATABASE $dbname" >/dev/null
	db="${SHIPD_TEST_DATABASE_URL%%/postgres\?*}/$dbname?sslmode=disable"
	key=$(openssl rand -hex 32)
	# The label volume at /data: the image owns /data to its user, and a
	# new volume takes the ownership of where it is mounted.
	common=(--network host -e SHIPD_DB="$db" -e SHIPD_WEBHOOK_KEY="$key" -e SHIPD_LABEL_STORE=file:///data/labels -v "$RUN_ID-labels:/data")
	"${P[@]}" run --rm "${common[@]}" "$IMAGE" migrate >/dev/null 2>>/tmp/shipd-image-podman.log
	acct=$("${P[@]}" run --rm "${common[@]}" "$IMAGE" accounts create --name Image 2>>/tmp/shipd-image-podman.log | jq -r .id)
	token=$("${P[@]}" run --rm "${common[@]}" "$IMAGE" tokens create --account "$acct" --mode test --scopes read:shipments,write:shipments 2>>/tmp/shipd-image-podman.log | jq -r .token)
	p1=$(free_port); p2=$(free_port)
	"${P[@]}" run -d --name "$RUN_ID-pg1" "${common[@]}" -e SHIPD_ADDR="127.0.0.1:$p1" -e SHIPD_NODE_ID=pg1 "$IMAGE" >/dev/null 2>>/tmp/shipd-image-podman.log
	"${P[@]}" run -d --name "$RUN_ID-pg2" "${common[@]}" -e SHIPD_ADDR="127.0.0.1:$p2" -e SHIPD_NODE_ID=pg2 "$IMAGE" >/dev/null 2>>/tmp/shipd-image-podman.log
	wait_healthy "$RUN_ID-pg1"
	wait_healthy "$RUN_ID-pg2"
	a=$(buy "http://127.0.0.1:$p1" "$token" "http://127.0.0.1:$p2")
	b=$(buy "http://127.0.0.1:$p2" "$token" "http://127.0.0.1:$p1")
	check_pdf "http://127.0.0.1:$p1" "$token" "$a"
	check_pdf "http://127.0.0.1:$p2" "$token" "$b"
	"${P[@]}" rm -f -t 30 "$RUN_ID-pg1" "$RUN_ID-pg2" >/dev/null 2>&1
	step "PostgreSQL: bought $a through one instance and $b through the other, each read through both"
' >&2

# --- 3. the systemd unit
step "systemd-analyze verify"
unit=$(mktemp -d)/shipd.service
# verify checks that ExecStart exists: point it at the binary just built.
sed "s|^ExecStart=/usr/local/bin/shipd|ExecStart=$PWD/bin/static/shipd|" deploy/systemd/shipd.service >"$unit"
out=$(systemd-analyze verify "$unit" 2>&1) || { echo "$out" >&2; fail "systemd-analyze verify"; }
[ -z "$out" ] || { echo "$out" >&2; fail "systemd-analyze verify printed warnings"; }
rm -rf "$(dirname "$unit")"

# --- 4. make release, twice
step "make release, twice"
make --no-print-directory release >/tmp/shipd-release-1.log 2>&1 || { tail -20 /tmp/shipd-release-1.log; fail "make release"; }
first=$(cat dist/SHA256SUMS)
rm -f bin/static/shipd dist/*.tar.gz dist/SHA256SUMS
make --no-print-directory release >/tmp/shipd-release-2.log 2>&1 || { tail -20 /tmp/shipd-release-2.log; fail "make release (second)"; }
second=$(cat dist/SHA256SUMS)
[ "$first" = "$second" ] || fail "make release is not reproducible: $first vs $second"
tar -tzf "dist/$(awk '{print $2}' <<<"$second")" | grep '/licenses/github.com/mattn/go-sqlite3/LICENSE' >/dev/null || fail "release: no licence notices"
# README's "Without building": the archive's binary runs as it is.
ex=$(mktemp -d)
tar -xzf "dist/$(awk '{print $2}' <<<"$second")" -C "$ex"
"$ex"/shipd_*_linux_amd64/shipd version --json | jq -e '.version != "dev"' >/dev/null || fail "release: the archive's shipd does not run"
rm -rf "$ex"
step "release reproducible: $second"
echo "test-image: ok"
