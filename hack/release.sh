#!/usr/bin/env bash
# Cuts a release of the operator: appends VERSION to the stable channel of the file-based
# catalog, replacing the newest release and skipping every earlier one, and makes VERSION the
# version that `make bundle` and `make catalog` build. Entries of earlier releases are left
# exactly as they are. `make release VERSION=x.y.z` runs this, then renders the catalog entry.
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
