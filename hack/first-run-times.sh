#!/usr/bin/env bash
# Measures what the README's quick start costs a newcomer: `make demo`, then `make test`, in a
# fresh clone of this commit with empty Go build and module caches (every module downloaded
# from GOPROXY, as on a new machine), and records both, with the commit, in docs/figures.json
# and the README's figure markers (hack/figures). Run it on an otherwise idle machine: it
# takes what it measures, about twenty minutes on two cores.
set -euo pipefail
cd "$(dirname "$0")/.."

[ -z "$(git status --porcelain)" ] || { echo "Commit first: the figures are recorded against HEAD." >&2; exit 1; }
machine_gocache=$(go env GOCACHE)
machine_gomodcache=$(go env GOMODCACHE)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/first-run.XXXXXX")
trap 'chmod -R u+w "$scratch" 2>/dev/null || true; rm -rf "$scratch"' EXIT
git clone -q . "$scratch/clone"

# measure runs `make $1` in the clone on the empty caches and prints how long it took.
measure() {
	local start=$SECONDS
	echo "==> Running make $1 in a fresh clone with empty Go caches" >&2
	if ! (cd "$scratch/clone" && GOCACHE="$scratch/gocache" GOMODCACHE="$scratch/gomodcache" GOFLAGS=-modcacherw \
		make "$1" >"$scratch/$1.log" 2>&1); then
		tail -50 "$scratch/$1.log" >&2
		echo "make $1 failed: nothing is recorded" >&2
		exit 1
	fi
	echo "==> make $1 took $((SECONDS - start))s" >&2
	echo $((SECONDS - start))
}
minutes() { awk -v seconds="$1" 'BEGIN { printf "%.1f minutes", seconds / 60 }'; }

demo=$(measure demo)
test=$(measure test)
GOCACHE=$machine_gocache GOMODCACHE=$machine_gomodcache go run ./hack/figures set --command "make first-run-times" \
	"first-run.demo=$(minutes "$demo")" "first-run.test=$(minutes "$test")" \
	"first-run.commit=$(git rev-parse --short=12 HEAD)"
echo "==> Recorded: make demo $(minutes "$demo"), make test $(minutes "$test"); review and commit docs/figures.json and README.md"
