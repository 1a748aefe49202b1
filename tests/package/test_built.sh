#!/usr/bin/env bash
# Build packages this machine cannot install and inspect them (TAP):
#   test_built.sh deb-24.11   .debs for trixie's Slurm 24.11 tree (check_deb_for_tree.sh)
#   test_built.sh rpm         the RPM from psiplace.spec for Debian 12's tree (check_rpm.sh)
# Unit tests are skipped in these builds (nocheck): the unit suite runs them.
# Exit 77 (skip) when the Slurm tree cannot be had.
set -uo pipefail
kind=${1:?usage: test_built.sh deb-24.11|rpm}
src=${PSIPLACE_SRC_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$src" || exit 1
case $kind in
  deb-24.11) tree=$(contrib/testbed/slurm-release.sh tree 24.11) ;;
  rpm) tree=$(contrib/testbed/cluster.sh slurm-src) ;;
  *) echo "Bail out! unknown kind '$kind'"; exit 1 ;;
esac
[ -n "$tree" ] && [ -f "$tree/config.h" ] || { echo "1..0 # SKIP no configured Slurm tree for $kind"; exit 77; }
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
if ! DEB_BUILD_OPTIONS=nocheck contrib/package.sh "${kind%%-*}" --slurm-src "$tree" --out "$out" >"$out/package.log" 2>&1; then
  tail -n 30 "$out/package.log"
  echo "Bail out! contrib/package.sh ${kind%%-*} --slurm-src $tree failed"
  exit 1
fi
case $kind in
  deb-24.11) grep -E '^[EWI]: ' "$out"/*.lintian | sed 's/^/# lintian: /'
             tests/package/check_deb_for_tree.sh "$out" "$tree" ;;
  rpm) tests/package/check_rpm.sh "$out" "$tree" ;;
esac
