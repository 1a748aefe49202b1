#!/usr/bin/env bash
# Inspect Debian packages built for a Slurm tree this machine cannot install
# (trixie's 24.11 on Debian 12): the plugins package depends on exactly the
# tree's slurm-wlm-basic-plugins version, holds both plugins in Debian's
# slurm-wlm directory, and each plugin carries the plugin_version Slurm
# compares at load (the tree's SLURM_VERSION_NUMBER).  TAP output.
#   check_deb_for_tree.sh DIST_DIR SLURM_TREE
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/plugin_version.sh"
dist=${1:?usage: check_deb_for_tree.sh DIST_DIR SLURM_TREE}
tree=${2:?usage: check_deb_for_tree.sh DIST_DIR SLURM_TREE}
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok $((pass + fail)) - $1"; }
not_ok() { fail=$((fail + 1)); echo "not ok $((pass + fail)) - $1"; shift; printf '#   %s\n' "$@"; }
check_eq() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "expected: '$2'" "got:      '$3'"; fi; }

deb=$(ls "$dist"/psiplace-plugins_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || { echo "Bail out! no psiplace-plugins package in $dist"; exit 1; }
want_deb=$(dpkg-parsechangelog -l "$tree/debian/changelog" -S Version)
want_num=$(sed -n 's/^#define SLURM_VERSION_NUMBER[[:space:]]*//p' "$tree/slurm/slurm_version.h")
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
depends=$(dpkg-deb -f "$deb" Depends)
check_eq "Depends names slurm-wlm-basic-plugins (= $want_deb) exactly" \
  "slurm-wlm-basic-plugins (= $want_deb)" "$(printf '%s\n' "$depends" | tr ',' '\n' | sed 's/^ *//' | grep '^slurm-wlm-basic-plugins')"
x=$(mktemp -d); trap 'rm -rf "$x"' EXIT
dpkg-deb -x "$deb" "$x"
for so in job_submit_psiplace.so psiplace.so select_psiplace_cons_tres.so; do
  f=$x/usr/lib/$multiarch/slurm-wlm/$so
  if [ ! -f "$f" ]; then
    not_ok "$so is in /usr/lib/$multiarch/slurm-wlm" "package files: $(dpkg-deb -c "$deb" | awk '{print $6}' | grep '\.so$' | paste -sd' ')"
    continue
  fi
  ok "$so is in /usr/lib/$multiarch/slurm-wlm"
  got=$(plugin_version "$f")
  if [ -z "$got" ]; then
    not_ok "$so: plugin_version is the tree's SLURM_VERSION_NUMBER" "$so exports no plugin_version"
    continue
  fi
  check_eq "$so: plugin_version is the tree's SLURM_VERSION_NUMBER" "$((want_num))" "$got"
done
echo "1..$((pass + fail))"
echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
