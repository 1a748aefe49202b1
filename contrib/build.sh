#!/usr/bin/env bash
# Install what is needed, fetch the Slurm source tree and build psiplace
# (warnings are errors) into build/, or for PSIPLACE_SLURM=24.11|26.05 into
# build-slurm-<release>/ after building that release's Slurm prefix once.
# Used by quickstart.sh and test.sh.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
contrib/testbed/cluster.sh deps
src=$(contrib/testbed/cluster.sh slurm-src)
build=${PSIPLACE_BUILD_DIR:-$(contrib/testbed/cluster.sh build-dir)}
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" --werror -Dslurm_src="$src" >/dev/null
else
  meson configure "$build" -Dslurm_src="$src" >/dev/null
fi
ninja -C "$build" >/dev/null
echo "built: $build"
