#!/usr/bin/env bash
# Tags the next release on main, vYYYY.MM.N, with the changelog's Unreleased section as
# its notes. CI builds the image; the deploy runs the migrations before it takes traffic.
set -euo pipefail
month=$(date -u +%Y.%m)
n=$(git tag --list "v${month}.*" | wc -l)
tag="v${month}.$((n + 1))"
notes=$(awk '/^## Unreleased/{on=1; next} /^## /{on=0} on' CHANGELOG.md)
git tag -a "$tag" -m "$notes"
git push origin "$tag"
echo "$tag"
