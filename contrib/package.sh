#!/usr/bin/env bash
# Build psiplace's packages for the Slurm they will be loaded into.
#
#   contrib/package.sh deb [--slurm-src DIR] [--version V] [--out DIR]
#       Debian packages psiplace-plugins, psiplace-tools, libpsiplace-mpi0 and
#       libpsiplace-mpi-dev with
#       dpkg-buildpackage -us -uc -b, then lintian (fails on errors).
#   contrib/package.sh rpm [--slurm-src DIR] [--out DIR]
#       the RPM from psiplace.spec with rpmbuild -bb --define 'slurm_src DIR'
#       (here with Debian's rpm package: --nodeps, BuildRequires are RHEL names).
#
# --slurm-src: a configured source tree of exactly the Slurm to run (default:
# contrib/testbed/cluster.sh slurm-src, Debian 12's installed 22.05; e.g.
# trixie's 24.11 tree: contrib/testbed/slurm-release.sh tree 24.11).  The
# plugins package depends on exactly the slurm-wlm-basic-plugins version of
# the tree's debian/changelog when it has one (PSIPLACE_SLURM_DEB_VERSION
# overrides), else on the installed one's.
# --version: build as version V (the upgrade test builds N and N+1).
# --out: where the packages go (default <repo>/dist).  The build runs in a
# copy of the source, so the checkout stays clean.
set -Eeuo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
trap 'echo "package.sh: error: line $LINENO: command failed: $BASH_COMMAND" >&2' ERR
die() { echo "package.sh: error: $*" >&2; exit 1; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

kind=${1:-}; [ $# -gt 0 ] && shift
slurm_src="" version="" out=$repo/dist
while [ $# -gt 0 ]; do
  case $1 in
    --slurm-src) slurm_src=${2:?--slurm-src needs a directory}; shift 2 ;;
    --version) version=${2:?--version needs a version}; shift 2 ;;
    --out) out=${2:?--out needs a directory}; shift 2 ;;
    *) die "unknown argument '$1'; usage: package.sh deb|rpm [--slurm-src DIR] [--version V] [--out DIR]" ;;
  esac
done
case $kind in deb|rpm) ;; *) awk 'NR > 1 && /^#/ {sub(/^# ?/, ""); print; next} NR > 1 {exit}' "$0"; exit 2 ;; esac

need() { # install the named Debian packages when missing
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "package.sh: installing ${missing[*]}" >&2
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

"$repo/contrib/testbed/cluster.sh" deps
[ -n "$slurm_src" ] || slurm_src=$("$repo/contrib/testbed/cluster.sh" slurm-src)
slurm_src=$(cd "$slurm_src" && pwd) || die "--slurm-src $slurm_src does not exist"
[ -f "$slurm_src/config.h" ] || die "$slurm_src is not a configured Slurm tree (no config.h)"
slurm_version=$(sed -n 's/^#define SLURM_VERSION_STRING "\(.*\)"/\1/p' "$slurm_src/config.h")
# The slurm-wlm-basic-plugins version to depend on: a Debian source tree
# (Debian 12's 22.05, trixie's 24.11) says it in its changelog; otherwise
# the installed package's (debian/rules checks that it is the tree's release).
if [ -z "${PSIPLACE_SLURM_DEB_VERSION:-}" ] && [ -f "$slurm_src/debian/changelog" ]; then
  PSIPLACE_SLURM_DEB_VERSION=$(dpkg-parsechangelog -l "$slurm_src/debian/changelog" -S Version)
fi
export PSIPLACE_SLURM_DEB_VERSION=${PSIPLACE_SLURM_DEB_VERSION:-}
meson_version=$(sed -n "s/^  version : '\([^']*\)',/\1/p" "$repo/meson.build")
version=${version:-$meson_version}
mkdir -p "$out"; out=$(cd "$out" && pwd)

# A copy of what git tracks (and new files not ignored), at version V.
stage_source() {
  local dest=$1
  mkdir -p "$dest"
  if git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
    (cd "$repo" && git ls-files -z -co --exclude-standard | xargs -0 -I{} find {} -maxdepth 0 -type f -print0 \
      | tar --null -T - -cf -) | tar -C "$dest" -xf -
  else
    tar -C "$repo" --exclude='./build*' --exclude=./dist -cf - . | tar -C "$dest" -xf -
  fi
  sed -i "s/^  version : '[^']*',/  version : '$version',/" "$dest/meson.build"
}

build_deb() {
  need debhelper lintian fakeroot
  local top; top=$(mktemp -d); trap 'rm -rf "$top"' RETURN
  local src=$top/psiplace-$version
  stage_source "$src"
  local cl_version; cl_version=$(cd "$src" && dpkg-parsechangelog -S Version)
  if [ "$cl_version" != "$version" ]; then
    # A build of another version (upgrade tests, site rebuilds): its own entry.
    { printf 'psiplace (%s) unstable; urgency=medium\n\n  * Built by contrib/package.sh for Slurm %s.\n\n -- %s  %s\n\n' \
        "$version" "$slurm_version" "$(dpkg-parsechangelog -l "$src/debian/changelog" -S Maintainer)" "$(date -R)"
      cat "$src/debian/changelog"; } >"$src/debian/changelog.new"
    mv "$src/debian/changelog.new" "$src/debian/changelog"
  fi
  echo "package.sh: dpkg-buildpackage psiplace $version for Slurm $slurm_version ($slurm_src)" >&2
  (cd "$src" && PSIPLACE_SLURM_SRC=$slurm_src dpkg-buildpackage -us -uc -b >"$top/build.log" 2>&1) \
    || { tail -40 "$top/build.log" >&2; die "dpkg-buildpackage failed (log above)"; }
  local f changes=$top/psiplace_${version}_$(dpkg-architecture -qDEB_HOST_ARCH).changes
  for f in "$top"/*.deb "$top"/*.buildinfo "$changes"; do cp "$f" "$out/"; done
  cp "$top/build.log" "$out/psiplace_${version}.build.log"
  echo "package.sh: lintian" >&2
  lintian --display-info "$out/$(basename "$changes")" | tee "$out/psiplace_${version}.lintian" >&2 \
    || die "lintian reports errors (above; accepted warnings: doc/packaging.md)"
  ls "$out"/psiplace-plugins_"$version"_*.deb "$out"/psiplace-tools_"$version"_*.deb \
    "$out"/libpsiplace-mpi0_"$version"_*.deb "$out"/libpsiplace-mpi-dev_"$version"_*.deb
}

build_rpm() {
  need rpm
  local top; top=$(mktemp -d); trap 'rm -rf "$top"' RETURN
  local src=$top/psiplace-$version
  stage_source "$src"
  mkdir -p "$top"/rpmbuild/{SOURCES,BUILD,RPMS,SRPMS,SPECS}
  tar -C "$top" -czf "$top/rpmbuild/SOURCES/psiplace-$version.tar.gz" "psiplace-$version"
  echo "package.sh: rpmbuild psiplace $version for Slurm $slurm_version ($slurm_src)" >&2
  # --nodeps: BuildRequires name RHEL packages (slurm-devel, hwloc-devel);
  # here the Debian equivalents are installed by cluster.sh deps.
  rpmbuild -bb --nodeps --define "_topdir $top/rpmbuild" --define "slurm_src $slurm_src" \
    --define "version_override $version" --define "psiplace_nodebuginfo 1" \
    "$src/psiplace.spec" >"$top/build.log" 2>&1 \
    || { tail -40 "$top/build.log" >&2; die "rpmbuild failed (log above)"; }
  cp "$top"/rpmbuild/RPMS/*/*.rpm "$out/"
  cp "$top/build.log" "$out/psiplace-$version.rpmbuild.log"
  local r
  for r in "$top"/rpmbuild/RPMS/*/*.rpm; do
    echo "== $(basename "$r"): files"; rpm -qlp "$r"
    echo "== $(basename "$r"): requires"; rpm -qp --requires "$r"
  done >&2
  ls "$out"/psiplace-*"$version"-*.rpm
}

case $kind in
  deb) build_deb ;;
  rpm) build_rpm ;;
esac
