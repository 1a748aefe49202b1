#!/usr/bin/env bash
# The package round trip N -> N+1 -> N (roundtrip.sh) without dpkg -i (TAP):
# the same .debs test_installed.sh installs (built here, or taken from
# PSIPLACE_PKG_DIR and PSIPLACE_PKG_DIR_NEXT), unpacked with dpkg-deb -x, and
# their plugins and psiplace command put into a private directory the way
# dpkg replaces files (a new file renamed over the old one: running
# processes keep the old one mapped).  The testbed's PluginDir and
# plugstack line name that directory, so nothing is written into Slurm's
# plugin directory and other testbeds are never touched; what this cannot
# show is dpkg's own part (its database, the downgrade warning,
# conffiles), which only test_installed.sh (suite package, CI) exercises.
set -uo pipefail
src_dir=${PSIPLACE_SRC_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
work=$(mktemp -d)
inst=$work/inst
mkdir -p "$inst/plugins/select" "$inst/plugins/spank" "$inst/bin"
export PSIPLACE_SLURM=22.05 PSIPLACE_BUILD_DIR=$inst PSIPLACE_JOBCOMP=1
export PSIPLACE_TEST_INSTANCE=${PSIPLACE_TEST_INSTANCE:-9}
source "$(dirname "$0")/../integration/lib.sh"
trap '"$cluster" stop >/dev/null 2>&1; rm -rf "$work"' EXIT
trap 'exit 143' TERM INT
bail() { echo "Bail out! $*"; exit 1; }
sysdir=/usr/lib/x86_64-linux-gnu/slurm-wlm
slurm_version=$(dpkg-query -W -f='${Version}' slurm-wlm-basic-plugins | sed -e 's/^[0-9]*://' -e 's/-[^-]*$//')
version=$(sed -n "s/^  version : '\([^']*\)',/\1/p" "$src_dir/meson.build")
next=$version+upgrade1

debs_of() { ls "$1"/psiplace-plugins_"$2"_*.deb "$1"/psiplace-tools_"$2"_*.deb 2>/dev/null; }
build() { # DIR VERSION
  [ -n "$(debs_of "$1" "$2")" ] && return 0
  DEB_BUILD_OPTIONS=nocheck timeout 1200 "$src_dir/contrib/package.sh" deb --version "$2" --out "$1" \
    >"$work/build-$2.log" 2>&1 || { tail -30 "$work/build-$2.log" | sed 's/^/# /'; bail "package.sh deb --version $2 failed"; }
}
pkg_n=${PSIPLACE_PKG_DIR:-$work/n}
pkg_n1=${PSIPLACE_PKG_DIR_NEXT:-$work/n1}
build "$pkg_n" "$version"
build "$pkg_n1" "$next"
check_eq "version N: two packages" 2 "$(debs_of "$pkg_n" "$version" | wc -l)"
check_eq "version N+1: two packages" 2 "$(debs_of "$pkg_n1" "$next" | wc -l)"

# put FILE at DEST as dpkg does: written beside it, renamed over it
replace() { cp "$1" "$2.dpkg-new" && mv -f "$2.dpkg-new" "$2"; }
pkg_install() { # DIR VERSION
  local root=$work/root-$2 d
  rm -rf "$root"; mkdir -p "$root"
  for d in $(debs_of "$1" "$2"); do dpkg-deb -x "$d" "$root" || return 1; done
  replace "$root$sysdir/select_psiplace_cons_tres.so" "$inst/plugins/select/select_psiplace_cons_tres.so" &&
    replace "$root$sysdir/psiplace.so" "$inst/plugins/spank/psiplace.so" &&
    replace "$root/usr/bin/psiplace" "$inst/bin/psiplace" || return 1
  [ ! -e "$inst/version" ] || [ "$(cat "$inst/version")" = "$2" ] ||
    { dpkg --compare-versions "$2" lt "$(cat "$inst/version")" && echo "downgrading psiplace-plugins from $(cat "$inst/version") to $2"; }
  echo "$2" >"$inst/version"
  sha256sum "$root$sysdir/select_psiplace_cons_tres.so" "$root$sysdir/psiplace.so" | awk '{print $1}' >"$inst/sums"
}
pkg_version() { cat "$inst/version"; }
pkg_psiplace() { "$inst/bin/psiplace" "$@"; }
pkg_downgrade_said() {
  check_match "the install of N after N+1 is a downgrade" "downgrading psiplace-plugins from ${next//+/\\+} to $version" "$1"
  check_eq "the plugins in place are N's, byte for byte" "$(cat "$inst/sums")" \
    "$(sha256sum "$inst/plugins/select/select_psiplace_cons_tres.so" "$inst/plugins/spank/psiplace.so" | awk '{print $1}')"
}

out=$(pkg_install "$pkg_n" "$version" 2>&1) || { printf '# %s\n' "$out"; bail "unpacking version $version failed"; }
check_eq "psiplace --version (unpacked N) names version and Slurm" "psiplace $version (built for Slurm $slurm_version)" \
  "$(pkg_psiplace --version)"
tb_start
check_match "PluginDir names the unpacked plugins first" "^PluginDir=$inst/plugins/select:$inst/plugins/spank:" \
  "$(grep '^PluginDir=' "$SLURM_CONF")"
source "$(dirname "$0")/roundtrip.sh"
tb_finish
