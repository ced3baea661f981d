#!/usr/bin/env bash
# make sdk-test: the clients users generate from openapi/openapi.yaml run the
# same flow against a fresh server (quote, create with an idempotency key,
# poll, label, refund, list events with typed data, verify webhook
# signatures), each as its generator makes it:
#   - Go: oapi-codegen (the version shipd's go.mod pins), models and client,
#     into sdk/go/shipd, a module of its own (sdk/go/go.mod, go.sum);
#   - TypeScript: openapi-typescript types and the openapi-fetch client, the
#     versions sdk/typescript/package.json pins (and its package-lock.json),
#     type-checked by tsc before it runs.
# Python (openapi-python-client) is not run: this machine and CI reach no
# Python package index; sdk/README.md says what was tried.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
GO=${GO:-go}
tmp=$(mktemp -d)
pid=""
cleanup() {
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
start=$(date +%s)

# The TypeScript tools, from the lock file, only when it changed.
if ! [ sdk/typescript/node_modules/.package-lock.json -nt sdk/typescript/package-lock.json ]; then
	echo "sdk-test: installing sdk/typescript's npm packages"
	(cd sdk/typescript && npm ci --no-audit --no-fund --loglevel=error)
fi

echo "sdk-test: generating the clients"
$GO build -o "$tmp/oapi-codegen" github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen
mkdir -p sdk/go/shipd
(cd sdk/go && "$tmp/oapi-codegen" -config oapi-codegen.yaml ../../openapi/openapi.yaml && $GO build -o "$tmp/flow-go" .)
(cd sdk/typescript && npm run --silent generate >/dev/null && npm run --silent build)

# A fresh server on a port of its choosing, with the first start's demo token.
$GO build -o "$tmp/shipd" ./cmd/shipd
"$tmp/shipd" serve --addr 127.0.0.1:0 --db "$tmp/shipd.db" --sandbox-scan-interval 3s >"$tmp/serve.out" 2>"$tmp/serve.err" &
pid=$!
addr=""
for _ in $(seq 1 300); do
	addr=$(grep -o '"msg":"listening","addr":"[^"]*"' "$tmp/serve.err" | head -n 1 | sed 's/.*"addr":"//; s/"$//') || true
	[ -n "$addr" ] && break
	kill -0 "$pid" 2>/dev/null || { cat "$tmp/serve.err" >&2; echo "sdk-test: the server stopped" >&2; exit 1; }
	sleep 0.1
done
[ -n "$addr" ] || { cat "$tmp/serve.err" >&2; echo "sdk-test: the server did not start" >&2; exit 1; }
token=$(grep -o 'svc_test_[A-Za-z0-9]*' "$tmp/serve.out" | head -n 1)
export SHIPD_API="http://$addr/api/v1" SHIPD_TOKEN="$token"

passed=0
failed=0
for lang in go typescript; do
	case $lang in
	go) run=("$tmp/flow-go") ;;
	typescript) run=(node sdk/typescript/build/flow.js) ;;
	esac
	if "${run[@]}"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
done
echo "sdk-test: python not run: no Python package index is reachable (sdk/README.md)"
echo "sdk-test: $passed passed, $failed failed ($(($(date +%s) - start)) s)"
[ "$failed" -eq 0 ]
