#!/usr/bin/env bash
# A spawn-capable MPICH for the malleable tests.  Debian 12's MPICH 4.0.2
# (device ch4:ucx) cannot MPI_Comm_spawn; the same source rebuilt with the
# ch3:nemesis device and the Hydra process manager can (../shared/MALLEABLE.md).
# Nothing here touches the system's packages or apt sources.
#
#   mpich.sh prefix     build once (cold: tens of minutes on 2 cores) and print
#                       the installed prefix (bin/mpicc, bin/mpiexec)
#   mpich.sh path       print the prefix if it is built, else exit 1 (no build)
#   mpich.sh wait SECS  wait up to SECS for a build started elsewhere (its lock)
#                       to finish, then behave as `path`
#   mpich.sh demo DIR   build psiplace-resize-demo (and libpsiplace_mpi) with
#                       MPICH's mpicc in the meson build directory DIR (not
#                       installed: the installed demo is Open MPI's); prints
#                       the demo's path.  Needs the prefix (`path`).
#
# The result is cached under $PSIPLACE_CACHE/mpich/VERSION-RECIPE: the build runs
# in a staging directory, `make install DESTDIR=` goes there too, the prefix is
# then renamed into the cache and the marker .installed is written last, so a
# half-built prefix is never used.  A lock
# keeps two runs (CI's background build and a test) from building twice.
set -Eeuo pipefail
cache=${PSIPLACE_CACHE:-$HOME/.cache/psiplace}
trap 'echo "mpich.sh: error: line $LINENO: command failed: $BASH_COMMAND" >&2' ERR
ME=mpich.sh
. "$(dirname "${BASH_SOURCE[0]}")/build-lib.sh"

# Debian 12's source package; bump RECIPE when the way the prefix is made changes.
VERSION=4.0.2
RECIPE=r2
top="$cache/mpich/$VERSION-$RECIPE"
lock="$cache/mpich/.$VERSION-$RECIPE.lock"

# Only what spawning over TCP needs: no Fortran/C++ bindings, no ROMIO, no docs,
# no static libraries (libtool would compile everything twice), dataloop instead
# of yaksa (whose generated type kernels are most of the build), -O1, and
# MPICH's own test suite is neither configured (--no-recursion: only the
# AC_CONFIG_SUBDIRS test/mpi; mpl, json-c and hydra are configured inline)
# nor built (`make` does not enter test/).
configure_args() {
  printf '%s\n' --prefix="$top/prefix" \
    --with-device=ch3:nemesis --with-pm=hydra --with-hwloc=/usr \
    --with-datatype-engine=dataloop \
    --disable-fortran --disable-cxx --disable-romio --disable-doc \
    --enable-fast=O1 --disable-static --enable-shared \
    --disable-dependency-tracking --no-recursion
}

# The source via `apt-get source`: from the machine's own deb-src entries, or,
# if it has none, from a private apt configuration derived from its deb entries.
fetch_source() {
  local dir=$1 opts=()
  if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list; then
    local apt=$dir/apt
    mkdir -p "$apt/lists/partial" "$apt/archives/partial"
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
      awk 'BEGIN{RS=""; ORS="\n\n"} /Types:[ \t]*deb([ \t]|\n|$)/ {sub(/Types:[ \t]*deb/, "Types: deb-src"); print}' \
        /etc/apt/sources.list.d/debian.sources >"$apt/src.sources"
      opts=(-o "Dir::Etc::sourcelist=/dev/null" -o "Dir::Etc::sourceparts=$apt")
    else
      grep '^deb ' /etc/apt/sources.list 2>/dev/null | sed 's/^deb /deb-src /' >"$apt/src.list" || true
      [ -s "$apt/src.list" ] || die "no apt source on this machine to derive a deb-src entry from"
      opts=(-o "Dir::Etc::sourcelist=/dev/null" -o "Dir::Etc::sourceparts=$apt")
    fi
    opts+=(-o "Dir::State::Lists=$apt/lists" -o "Dir::Cache::Archives=$apt/archives" -o Debug::NoLocking=1)
    step "apt-get update (deb-src only, private lists)" "$dir/logs/apt-update.log" apt-get "${opts[@]}" update
  fi
  step "apt-get source mpich (applies Debian's patches)" "$dir/logs/apt-source.log" \
    bash -c 'cd "$1" && shift && apt-get "$@" source mpich' _ "$dir" "${opts[@]}"
  local src; src=$(ls -d "$dir"/mpich-*/ 2>/dev/null | head -1)
  [ -n "$src" ] && [ -x "$src/configure" ] || die "apt-get source gave no mpich tree with a configure script in $dir"
  case $(basename "$src") in
    "mpich-$VERSION") ;;
    *) die "apt-get source gave $(basename "$src"), this recipe is for mpich-$VERSION (Debian 12)" ;;
  esac
  mv "$src" "$dir/src"
}

# Run "$@" in the background with a progress line every 60 s (elapsed time and
# the number of files compiled so far).
with_progress() {
  local name=$1 logf=$2; shift 2
  log "$name (log: $logf)"
  "$@" >"$logf" 2>&1 &
  local pid=$! next=$((SECONDS - t0 + 60))
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1  # only paces the progress lines; the step is waited for below
    if [ $((SECONDS - t0)) -ge $next ]; then
      log "$name: $(elapsed), $(grep -c -- '--mode=compile\|^  CC ' "$logf" 2>/dev/null || true) files compiled, load $(cut -d' ' -f1-3 /proc/loadavg)"
      next=$((next + 60))
    fi
  done
  if ! wait "$pid"; then
    tail -n 25 "$logf" >&2
    die "$name failed; full log: $logf"
  fi
}

elapsed() { local s=$((SECONDS - t0)); printf '%dm%02ds' $((s / 60)) $((s % 60)); }

build() {
  local stage="$cache/mpich/.build-$VERSION-$RECIPE"
  local jobs=${PSIPLACE_MAKE_JOBS:-2}
  t0=$SECONDS
  log "building MPICH $VERSION (ch3:nemesis, hydra) into $top with make -j$jobs at nice 19 (cold: about 20-40 minutes on 2 busy cores)"
  rm -rf "$stage" "$top"
  mkdir -p "$stage/logs"
  fetch_source "$stage"
  local args; mapfile -t args < <(configure_args)
  mkdir -p "$stage/build"
  with_progress "configure" "$stage/logs/configure.log" \
    bash -c 'cd "$1/build" && shift && exec nice -n 19 ../src/configure "$@"' _ "$stage" "${args[@]}"
  log "configure done at $(elapsed)"
  with_progress "make -j$jobs" "$stage/logs/make.log" nice -n 19 make -C "$stage/build" -j"$jobs"
  log "make done at $(elapsed)"
  # Installed into the staging directory first (MPICH knows its final
  # prefix), then moved into the cache in one rename.
  with_progress "make install" "$stage/logs/install.log" \
    nice -n 19 make -C "$stage/build" install DESTDIR="$stage/root"
  mkdir -p "$top"
  mv "$stage/root$top/prefix" "$top/prefix"
  "$top/prefix/bin/mpichversion" >"$stage/logs/mpichversion.txt" 2>&1 \
    || die "the installed mpichversion does not run (see $stage/logs/mpichversion.txt)"
  grep -q 'ch3:nemesis' "$stage/logs/mpichversion.txt" || die "the installed MPICH is not ch3:nemesis"
  mv "$stage/logs" "$top/logs"
  echo "cold build $(elapsed) ($((SECONDS - t0)) s), make -j$jobs at nice 19, load at the end $(cut -d' ' -f1-3 /proc/loadavg)" >"$top/logs/build-time.txt"
  rm -rf "$stage"
  touch "$top/.installed"
  log "MPICH $VERSION installed in $top/prefix after $(elapsed)"
}

cmd_prefix() {
  mkdir -p "$cache/mpich"
  exec 9>"$lock"
  if ! flock -n 9; then
    log "another run is building MPICH $VERSION (lock $lock); waiting for it"
    flock 9
  fi
  [ -f "$top/.installed" ] || build
  echo "$top/prefix"
}

cmd_path() {
  [ -f "$top/.installed" ] || return 1
  echo "$top/prefix"
}

cmd_wait() {
  local secs=$1
  mkdir -p "$cache/mpich"
  exec 9>"$lock"
  # flock -w is the deadline: the build holds the lock until it is done or failed.
  flock -w "$secs" 9 || die "MPICH $VERSION still building after $secs s (lock $lock)"
  flock -u 9
  cmd_path || die "MPICH $VERSION is not built (the build failed or never ran; see $cache/mpich/.build-$VERSION-$RECIPE/logs)"
}

# A build directory of this source tree with -Dmpicc=MPICH's wrapper; only
# the demo and what it needs are compiled (the plugins stay Open MPI-free).
cmd_demo() {
  local dir=$1 prefix repo
  prefix=$(cmd_path) || die "MPICH $VERSION is not built (run: mpich.sh prefix)"
  repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  # MPICH 4.0's mpi_proto.h declares MPI_Status arrays as "MPI_Status x[]"
  # and MPI_STATUSES_IGNORE as (MPI_Status *)1: GCC 12 then warns
  # "accessing 20 bytes in a region of size 0" at every MPI_Waitall(...,
  # MPI_STATUSES_IGNORE) (fixed in later MPICH headers); only that warning
  # is turned off, the rest stays an error.
  if [ ! -f "$dir/build.ninja" ]; then
    step "meson setup $dir (-Dmpicc=$prefix/bin/mpicc)" "$dir.setup.log" \
      meson setup "$dir" "$repo" --werror -Dmpi=enabled -Dmpicc="$prefix/bin/mpicc" -Dtests=disabled \
      -Dc_args=-Wno-stringop-overflow
  else  # (a newer recipe has another prefix)
    step "meson configure $dir -Dmpicc=$prefix/bin/mpicc" "$dir.setup.log" \
      meson configure "$dir" -Dmpicc="$prefix/bin/mpicc"
  fi
  step "ninja psiplace-resize-demo in $dir" "$dir.ninja.log" ninja -C "$dir" cli/psiplace-resize-demo
  echo "$dir/cli/psiplace-resize-demo"
}

case ${1:-} in
  prefix) [ $# -eq 1 ] || die "usage: mpich.sh prefix"; cmd_prefix ;;
  path) [ $# -eq 1 ] || die "usage: mpich.sh path"; cmd_path ;;
  wait) [ $# -eq 2 ] && [[ $2 =~ ^[0-9]+$ ]] || die "usage: mpich.sh wait SECONDS"; cmd_wait "$2" ;;
  demo) [ $# -eq 2 ] || die "usage: mpich.sh demo BUILD_DIR"; cmd_demo "$2" ;;
  *) die "usage: mpich.sh prefix | path | wait SECONDS | demo BUILD_DIR" ;;
esac
