#!/usr/bin/env bash
# Fails when openapi/openapi.yaml breaks v1: v1 changes only additively (the
# spec's versioning rule), so a removed or renamed field, enum value, status
# or operation, a new required input or a changed type must not land.
#
#   scripts/check-api.sh             the contract against its history:
#                                    - the first v1 contract (the first commit of openapi/openapi.yaml),
#                                    - the previous commit's, and
#                                    - the last commit's, when the working tree changes it.
#   scripts/check-api.sh BASE NEW    one comparison of two contract files; the
#                                    gate's own test (openapi/gate_test.go) uses it,
#                                    so the gate has one definition: gate() below.
#
# oasdiff's default levels call some removals info; openapi/oasdiff-levels.txt
# raises them, with the reasons. openapi/oasdiff-ignore.txt lists the breaking
# changes accepted on purpose, each with its reason.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# The one pin of oasdiff's version (OASDIFF overrides the command).
OASDIFF="${OASDIFF:-${GO:-go} run github.com/oasdiff/oasdiff@v1.36.0}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# oasdiff reads a levels file of "check-id level" lines only; ours has comments.
sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$root/openapi/oasdiff-levels.txt" >"$tmp/levels.txt"
ignore="$root/openapi/oasdiff-ignore.txt"

# gate BASE NEW fails when NEW breaks a client of BASE: on errors and on
# warnings (a change oasdiff cannot prove safe is not additive either).
gate() {
	$OASDIFF breaking "$1" "$2" --fail-on WARN \
		--severity-levels "$tmp/levels.txt" --err-ignore "$ignore" --warn-ignore "$ignore"
}

case $# in
0) ;;
2)
	gate "$1" "$2"
	exit
	;;
*)
	echo "usage: $0 [BASE.yaml NEW.yaml]" >&2
	exit 2
	;;
esac

cd "$root"
spec=openapi/openapi.yaml
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
	if ! gate "$tmp/base.yaml" "$spec"; then
		status=1
	fi
done
exit $status
