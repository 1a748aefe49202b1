#!/usr/bin/env bash
# A real local Slurm 22.05 cluster on one machine: munged, slurmctld and
# four (optionally five) slurmd started with -N, for psiplace's demo and
# integration tests.
#
#   cluster.sh deps        install build/test/cluster packages (idempotent)
#   cluster.sh slurm-src   fetch + configure the Slurm source of the installed version
#   cluster.sh start       start the testbed (waits for all nodes idle)
#   cluster.sh stop        stop exactly the daemons start started
#   cluster.sh status      report what runs
#   cluster.sh env         print the export lines a shell needs
#
# One instance setting, PSIPLACE_INSTANCE (0..49, default 0), derives every
# port and directory, so two clusters run side by side:
#   directory  ${PSIPLACE_TESTBED_ROOT:-/tmp/psiplace-testbed}-$PSIPLACE_INSTANCE
#   ports      17000 + 20*instance (slurmctld), +1..+5 (slurmd n1..n5)
# Other settings (environment):
#   PSIPLACE_BUILD_DIR       directory holding psiplace.so and select_psiplace_cons_tres.so (default <repo>/build)
#   PSIPLACE_POLICY          NodeAllocationPolicy on the plugstack line (default LASTAVAILABLE; "none" omits it)
#   PSIPLACE_PLUGSTACK_ARGS  further arguments for the plugstack line
#   PSIPLACE_SELECT          SelectType (default select/psiplace_cons_tres)
#   PSIPLACE_REAL_NODE=1     add node n5 declared exactly like this machine (slurmd -C)
#   PSIPLACE_EXTRA_NODES=N   declare N more nodes (x[1-N]) that are never started (scale benchmarks)
#   PSIPLACE_CACHE           cache dir for the Slurm source (default ~/.cache/psiplace)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
instance=${PSIPLACE_INSTANCE:-0}
case $instance in
  ''|*[!0-9]*) echo "cluster.sh: PSIPLACE_INSTANCE='$instance' is not a number 0..49" >&2; exit 2 ;;
esac
if [ "$instance" -gt 49 ]; then
  echo "cluster.sh: PSIPLACE_INSTANCE='$instance' is not a number 0..49" >&2; exit 2
fi
dir=${PSIPLACE_TESTBED_ROOT:-/tmp/psiplace-testbed}-$instance
base_port=$((17000 + 20 * instance))
cache=${PSIPLACE_CACHE:-$HOME/.cache/psiplace}
plugin_dir_sys=/usr/lib/x86_64-linux-gnu/slurm-wlm

log() { echo "cluster.sh[$instance]: $*" >&2; }
die() { log "error: $*"; exit 1; }

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

packages=(slurmctld slurmd slurm-client munge libslurm-dev libhwloc-dev hwloc
          libmunge-dev libcriterion-dev meson ninja-build pkg-config gcc clang
          libclang-rt-14-dev dpkg-dev autoconf automake libtool make
          librsvg2-bin python3 hyperfine)

cmd_deps() {
  local missing=() p
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing: ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# The deb-src entry is derived from the existing binary entry at run time.
ensure_deb_src() {
  if grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ || grep -qs '^deb-src' /etc/apt/sources.list; then
    return 0
  fi
  local f=/etc/apt/sources.list.d/debian.sources
  if [ -f "$f" ]; then
    # deb822: copy every stanza with Types: deb, as deb-src
    awk 'BEGIN{RS=""; ORS="\n\n"} /Types:[ \t]*deb([ \t]|\n|$)/ {sub(/Types:[ \t]*deb/, "Types: deb-src"); print}' "$f" \
      | as_root tee /etc/apt/sources.list.d/psiplace-src.sources >/dev/null
  elif [ -f /etc/apt/sources.list ]; then
    grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' \
      | as_root tee /etc/apt/sources.list.d/psiplace-src.list >/dev/null
  else
    die "no apt source found to derive a deb-src entry from"
  fi
  as_root apt-get update -qq
}

slurm_version() { dpkg-query -W -f='${Version}' libslurm-dev; }

slurm_src_dir() {
  local v; v=$(slurm_version)
  local upstream=${v%%-*}
  echo "$cache/slurm-src/$v/slurm-wlm-$upstream"
}

cmd_slurm_src() {
  local v src; v=$(slurm_version)
  [ -n "$v" ] || die "libslurm-dev is not installed (run: cluster.sh deps)"
  src=$(slurm_src_dir)
  if [ -f "$src/.psiplace-configured" ] && cmp -s "$src/slurm/slurm_version.h" /usr/include/slurm/slurm_version.h; then
    echo "$src"; return 0
  fi
  ensure_deb_src
  local top; top=$(dirname "$src")
  rm -rf "$top"; mkdir -p "$top"
  log "fetching slurm-wlm=$v source"
  (cd "$top" && apt-get source -qq "slurm-wlm=$v" >/dev/null 2>"$top/apt-source.log") \
    || { tail -5 "$top/apt-source.log" >&2; die "apt-get source slurm-wlm=$v failed"; }
  [ -d "$src" ] || die "expected $src after apt-get source"
  # Debian's patches edit configure.ac; the GTK/GLIB macros only feed sview.
  mkdir -p "$src/auxdir"
  cat >"$src/auxdir/psiplace_stubs.m4" <<'M4'
AC_DEFUN([AM_PATH_GLIB_2_0],[$3])
AC_DEFUN([AM_PATH_GTK_2_0],[$3])
M4
  log "autoreconf + configure (about 30 s)"
  (cd "$src" && autoreconf -fi >"$top/autoreconf.log" 2>&1) \
    || { tail -20 "$top/autoreconf.log" >&2; die "autoreconf failed"; }
  (cd "$src" && ./configure --prefix=/usr --sysconfdir=/etc/slurm \
      --libdir=/usr/lib/x86_64-linux-gnu --localstatedir=/var --runstatedir=/run \
      --with-munge --enable-pam --without-rpath --disable-debug \
      --enable-multiple-slurmd >"$top/configure.log" 2>&1) \
    || { tail -20 "$top/configure.log" >&2; die "configure failed"; }
  cmp -s "$src/slurm/slurm_version.h" /usr/include/slurm/slurm_version.h \
    || die "$src/slurm/slurm_version.h differs from the installed one"
  touch "$src/.psiplace-configured"
  echo "$src"
}
