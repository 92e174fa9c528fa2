#!/usr/bin/env bash
# Cuts a release of the operator: freezes the release built so far (bundle/, the installer and
# the Helm chart in dist/, and the commit its manager is built from) under releases/, appends
# VERSION to the stable channel of the file-based catalog, replacing the newest release and
# skipping every earlier one, and makes VERSION the version that `make bundle` and `make
# catalog` build. Frozen releases are never edited again; their images are rebuilt from them
# for any IMAGE_TAG_BASE. `make release VERSION=x.y.z` runs this, then renders the catalog,
# the installer and the chart of VERSION.
set -euo pipefail

version=${1:?usage: release.sh VERSION PACKAGE_CATALOG_DIR CSV_BASE}
package_dir=${2:?usage: release.sh VERSION PACKAGE_CATALOG_DIR CSV_BASE}
csv_base=${3:?usage: release.sh VERSION PACKAGE_CATALOG_DIR CSV_BASE}
package=$(basename "$package_dir")
channel_file="$package_dir/channel-stable.yaml"

fail() { echo "release: $*" >&2; exit 1; }

[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "VERSION must be MAJOR.MINOR.PATCH, got '$version'"
[[ -f $channel_file ]] || fail "$channel_file is missing"

released=$(sed -n "s/^- name: $package\.v//p" "$channel_file")
if grep -qx "$version" <<<"$released"; then
  fail "$version is released already; pick a higher VERSION"
fi
newest=$(tail -n 1 <<<"$released")
oldest=$(head -n 1 <<<"$released")
if [[ -n $newest ]]; then
  highest=$(printf '%s\n%s\n' "$newest" "$version" | sort -V | tail -n 1)
  [[ $highest == "$version" ]] || fail "VERSION $version is lower than the newest release $newest"
fi

if [[ -n $newest ]]; then
  # The manager of the frozen release is built from the commit that is checked out now, so
  # its sources must be committed as they are.
  if [[ -n $(git status --porcelain -- cmd api internal go.mod go.sum Dockerfile bundle bundle.Dockerfile dist) ]]; then
    fail "commit the sources of $newest first: its manager is built from the commit checked out"
  fi
  frozen=releases/$newest
  [[ ! -e $frozen ]] || fail "$frozen exists already"
  echo "==> Freezing release $newest (bundle/ and commit $(git rev-parse --short HEAD)) into $frozen"
  mkdir -p "$frozen"
  cp -R bundle/manifests bundle/metadata bundle/tests "$frozen/"
  # The installers of clusters without OLM: the one file for kubectl, and the Helm chart.
  cp dist/install.yaml "$frozen/install.yaml"
  cp -R dist/chart "$frozen/chart"
  git rev-parse HEAD >"$frozen/source-commit"
fi

echo "==> Adding $package.v$version to the stable channel${newest:+, replacing $newest}"
{
  echo "- name: $package.v$version"
  if [[ -n $newest ]]; then
    echo "  replaces: $package.v$newest"
    echo "  skipRange: '>=$oldest <$version'"
  fi
} >>"$channel_file"

echo "==> Building version $version from now on, created $(date -u +%Y-%m-%dT%H:%M:%SZ)"
sed -i.bak -e "s/^VERSION ?= .*/VERSION ?= $version/" Makefile && rm Makefile.bak
sed -i.bak -e "s/^    createdAt: .*/    createdAt: \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\"/" "$csv_base" && rm "$csv_base.bak"
