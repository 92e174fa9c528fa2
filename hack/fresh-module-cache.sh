#!/usr/bin/env bash
# Runs a command as on a machine whose Go module cache is empty: in a mount namespace of its
# own, an empty folder is mounted over the module cache, at the same path, so that every
# module the command needs must be downloaded by the command itself. A target that reads a
# module's files without downloading it (`go list -m -f '{{.Dir}}'`, say) fails here as on a
# fresh machine, even where another target downloaded that module before.
#
# The build cache is kept: what it holds makes builds faster, never makes one work. The
# machine's module cache serves as the first proxy (a file:// GOPROXY), so that the
# downloads cost no network; the real proxies follow for what it lacks. Everything
# downloaded here is thrown away at the end. Needs root (or a user namespace) for the mount.
#
# Usage: hack/fresh-module-cache.sh COMMAND [ARG...]
set -euo pipefail

[ $# -gt 0 ] || { echo "usage: $0 COMMAND [ARG...]" >&2; exit 2; }

modcache=$(go env GOMODCACHE)
proxy=$(go env GOPROXY)
mkdir -p "$modcache"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/fresh-module-cache.XXXXXX")
# Modules are written read-only; -modcacherw below lets this folder go at the end.
trap 'chmod -R u+w "$scratch" 2>/dev/null || true; rm -rf "$scratch"' EXIT
mkdir -p "$scratch/machine" "$scratch/empty"

# Inside the namespace the machine's cache is first bound to $scratch/machine (the file://
# proxy reads it there), then the empty folder is bound over the cache's own path.
export FRESH_MODCACHE="$modcache" FRESH_SCRATCH="$scratch"
export GOPROXY="file://$scratch/machine/cache/download,$proxy"
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-modcacherw"
start=$SECONDS
status=0
unshare --mount --propagation private -- bash -c '
	set -e
	mount --bind "$FRESH_MODCACHE" "$FRESH_SCRATCH/machine"
	mount --bind "$FRESH_SCRATCH/empty" "$FRESH_MODCACHE"
	exec "$@"' fresh-module-cache "$@" || status=$?
echo "==> Ran $* on an empty module cache in $((SECONDS - start))s (downloaded $(du -sh "$scratch/empty" | cut -f1))"
exit $status
