#!/usr/bin/env bash
# Packs a static shipd into dist/shipd_$VERSION_linux_amd64.tar.gz with the
# README, the contract and the licence notices of every module compiled in
# (from the module cache) and the systemd unit, and writes dist/SHA256SUMS. Reproducible: the
# binary carries no paths or build id (make build-static), and the archive
# has sorted names, one owner and mtime ($SOURCE_DATE_EPOCH, the commit's
# time), and gzip writes no name or time.
#
#   VERSION=v1.2.3 SOURCE_DATE_EPOCH=1700000000 scripts/release.sh bin/static/shipd
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:?usage: release.sh STATIC_BINARY}
go=${GO:-go}
version=${VERSION:-dev}
epoch=${SOURCE_DATE_EPOCH:-0}
name="shipd_${version}_linux_amd64"

work=$(mktemp -d /tmp/shipd-release-XXXXXX)
trap 'rm -rf "$work"' EXIT
root="$work/$name"
mkdir -p "$root/licenses"
install -m 0755 "$bin" "$root/shipd"
install -m 0644 README.md "$root/README.md"
install -m 0644 openapi/openapi.yaml "$root/openapi.yaml"
install -m 0644 deploy/systemd/shipd.service "$root/shipd.service"

# Every module whose packages are linked in (the main module has no path to
# copy from the cache, and none of its own licence file yet).
missing=()
while read -r mod dir; do
	[ -n "$dir" ] || continue
	files=$(find "$dir" -maxdepth 1 -type f \( -iname 'LICEN[CS]E*' -o -iname 'NOTICE*' -o -iname 'COPYING*' \) | sort)
	if [ -z "$files" ]; then
		missing+=("$mod")
		continue
	fi
	mkdir -p "$root/licenses/$mod"
	for f in $files; do install -m 0644 "$f" "$root/licenses/$mod/"; done
done < <(CGO_ENABLED=1 "$go" list -deps -tags "${STATIC_TAGS:-}" -f '{{with .Module}}{{if not .Main}}{{.Path}} {{.Dir}}{{end}}{{end}}' ./cmd/shipd | sort -u)
if [ ${#missing[@]} -gt 0 ]; then
	echo "release: no licence file found for: ${missing[*]}" >&2
	exit 1
fi

mkdir -p dist
out="dist/$name.tar.gz"
tar --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner \
	--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
	-C "$work" -cf - "$name" | gzip -9 -n >"$out"
(cd dist && sha256sum "$name.tar.gz" >SHA256SUMS)
echo "release: $out ($(du -h "$out" | cut -f1)), $(find "$root/licenses" -mindepth 1 -type d -links 2 | wc -l) modules' notices" >&2
cat dist/SHA256SUMS
