#!/usr/bin/env bash
# Fails when openapi/openapi.yaml breaks v1: v1 changes only additively (the
# spec's versioning rule), so a removed field or operation, a new required
# input or a changed type must not land. The contract is compared with
#   - the first v1 contract (the first commit of openapi/openapi.yaml),
#   - the previous commit's, and
#   - the last commit's, when the working tree changes it.
set -euo pipefail
cd "$(dirname "$0")/.."
OASDIFF="${OASDIFF:-go run github.com/oasdiff/oasdiff@v1.36.0}"
spec=openapi/openapi.yaml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

bases=()
first=$(git log --format=%H -- "$spec" | tail -n 1)
[ -n "$first" ] && bases+=("$first")
if git rev-parse -q --verify HEAD~1 >/dev/null; then bases+=("HEAD~1"); fi
if ! git diff --quiet HEAD -- "$spec"; then bases+=("HEAD"); fi

status=0
for base in "${bases[@]}"; do
	if ! git cat-file -e "$base:$spec" 2>/dev/null; then
		continue
	fi
	git show "$base:$spec" >"$tmp/base.yaml"
	echo "== $spec against $(git rev-parse --short "$base")"
	if ! $OASDIFF breaking "$tmp/base.yaml" "$spec" --fail-on ERR; then
		status=1
	fi
done
exit $status
