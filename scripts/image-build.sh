#!/usr/bin/env bash
# Builds the image shipd:$VERSION (and shipd:latest) from a static shipd
# binary with $ENGINE (podman or docker), FROM scratch: the context is made
# here from the binary, the host's CA certificates and a passwd/group naming
# the unprivileged user 65532, so nothing is pulled from a registry.
#
#   ENGINE=podman VERSION=v1.2.3 scripts/image-build.sh bin/static/shipd
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:?usage: image-build.sh STATIC_BINARY}
engine=${ENGINE:-podman}
version=${VERSION:-dev}
# A tag may not hold "+" and the like: git describe's output is safe, a
# hand-set VERSION is sanitised.
tag=$(printf '%s' "$version" | tr -c 'A-Za-z0-9_.-' '-')

certs=/etc/ssl/certs/ca-certificates.crt
[ -r "$certs" ] || { echo "image-build: $certs is missing (apt-get install ca-certificates)" >&2; exit 1; }
if ldd "$bin" >/dev/null 2>&1; then
	echo "image-build: $bin is dynamically linked: build it with make build-static" >&2
	exit 1
fi

ctx=$(mktemp -d /tmp/shipd-image-XXXXXX)
trap 'rm -rf "$ctx"' EXIT
mkdir -p "$ctx/rootfs/usr/local/bin" "$ctx/rootfs/etc/ssl/certs" "$ctx/rootfs/tmp" "$ctx/data"
chmod 1777 "$ctx/rootfs/tmp"
install -m 0755 "$bin" "$ctx/rootfs/usr/local/bin/shipd"
install -m 0644 "$certs" "$ctx/rootfs/etc/ssl/certs/ca-certificates.crt"
printf 'root:x:0:0:root:/root:/sbin/nologin\nshipd:x:65532:65532:shipd:/data:/sbin/nologin\n' >"$ctx/rootfs/etc/passwd"
printf 'root:x:0:\nshipd:x:65532:\n' >"$ctx/rootfs/etc/group"
chmod 0644 "$ctx/rootfs/etc/passwd" "$ctx/rootfs/etc/group"
chmod 0700 "$ctx/data"

# podman's default OCI format has no HEALTHCHECK: the docker format keeps it.
opts=()
[ "$(basename "$engine")" = podman ] && opts=(--format docker --pull=never)
"$engine" build "${opts[@]}" -f deploy/Containerfile \
	--build-arg VERSION="$version" --build-arg COMMIT="${COMMIT:-}" --build-arg BUILD_DATE="${BUILD_DATE:-}" \
	-t "shipd:$tag" -t shipd:latest "$ctx"
echo "image-build: shipd:$tag" >&2
