#!/usr/bin/env bash
# The body of action.yml: install dqctl globally from a tarball, by default one packed from the action's own
# checkout ($GITHUB_ACTION_PATH, i.e. the ref pinned in `uses:`). The checkout is copied first, so the build
# never writes into the action's folder. Writes `version=<x.y.z>` to $GITHUB_OUTPUT when it is set.
#   DQCTL_TARBALL   a path or URL of a dqctl-*.tgz to install instead of building one
#   RUNNER_TEMP     scratch folder (default: a mktemp folder)
#   npm_config_prefix  where `npm install --global` installs (npm's own setting; the runner's default otherwise)
set -euo pipefail
source_dir="${GITHUB_ACTION_PATH:-$(cd "$(dirname "$0")/.." && pwd)}"
scratch="$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/dqctl-install.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT

tarball="${DQCTL_TARBALL:-}"
if [ -z "$tarball" ]; then
  echo "::group::build dqctl from $source_dir"
  mkdir "$scratch/src"
  # everything the build needs, nothing the build made (node_modules, dist) or git's own files
  tar -C "$source_dir" --exclude=./node_modules --exclude=./dist --exclude=./.git -cf - . | tar -C "$scratch/src" -xf -
  (cd "$scratch/src" && npm ci --no-audit --no-fund --prefer-offline) # prepare builds dist/
  tarball="$scratch/$(cd "$scratch/src" && npm pack --ignore-scripts --silent --pack-destination "$scratch")"
  echo "::endgroup::"
fi
npm install --global --no-audit --no-fund --omit=dev "$tarball"
version="$(dqctl --version)"
echo "installed dqctl $version from ${DQCTL_TARBALL:-the checkout at $source_dir}"
if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "version=$version" >> "$GITHUB_OUTPUT"; fi
