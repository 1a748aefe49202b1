#!/usr/bin/env bash
# Slurm releases other than Debian 12's 22.05, for compiling psiplace against
# them and for running the testbed on them.  Nothing here touches the
# system's Slurm packages or the machine's apt sources.
#
#   slurm-release.sh list              the releases psiplace is built against
#   slurm-release.sh tree VERSION      a configured source tree (enough to compile
#                                      the select plugin); prints its path
#   slurm-release.sh prefix VERSION    a full build installed into a cached prefix
#                                      (daemons, clients and accounting_storage/mysql
#                                      for slurmdbd); prints its path
#
# VERSION is a release (26.05.3) or its series (26.05).  22.05 is Debian 12's
# package (cluster.sh slurm-src); 24.11.5 comes from Debian trixie's source
# package with its security patches; the others from the upstream tarballs in
# ../shared/slurm-src/ (PSIPLACE_SLURM_TARBALLS), checked against their sha256.
# Results are cached under $PSIPLACE_CACHE/slurm/VERSION-RECIPE, keyed by the
# recipe below, so a second run costs nothing.
set -Eeuo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${PSIPLACE_CACHE:-$HOME/.cache/psiplace}
tarballs=${PSIPLACE_SLURM_TARBALLS:-$(cd "$repo/.." && pwd)/shared/slurm-src}
trap 'echo "slurm-release.sh: error: line $LINENO: command failed: $BASH_COMMAND" >&2' ERR
ME=slurm-release.sh
. "$(dirname "${BASH_SOURCE[0]}")/build-lib.sh"

# Bump when the way a tree or prefix is made changes: old caches are ignored.
RECIPE=r1

releases=(22.05.8 23.02.8 23.11.11 24.05.8 24.11.5 25.05.8 25.11.7 26.05.3)
declare -A sha256=(
  [23.02.8]=922bc49372acccc564f7b69dbbc18565ab583275011be3b24e9dc5b41547954b
  [23.11.11]=1cc6fa075ded0342ad57e817a3c758c5c4007568dbccbb7cb4d6c4e759998155
  [24.05.8]=e6cc4f239e721384dca0b143d615099142bb950ced607e7322d04b32b19e71c6
  [25.05.8]=91b6ff726db3700c880da654623495a8f3344e6128dc61fcd59f2ea9e69ef3ae
  [25.11.7]=803393fa46fafb6e782d6e4f48bdc6a95c8160564c68a6f7c32fd939c90d050a
  [26.05.3]=c3d77f8bc8fe15de2e1d2b34ef61c2ea640809e992a53e6b9d22eb6d4c59b9f9
)
trixie_version=24.11.5-4+deb13u1

full_version() {
  local v=$1 r
  for r in "${releases[@]}"; do
    case $r in "$v"|"$v".*) echo "$r"; return 0 ;; esac
  done
  die "unknown Slurm release '$v'; known: ${releases[*]}"
}

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# Debian trixie's source of 24.11.5: a private apt configuration derived from
# the machine's own Debian entries (URI and keyring), never the global one.
fetch_trixie() {
  local top=$1 apt=$1/apt uri sec
  mkdir -p "$apt/lists/partial" "$apt/archives/partial"
  uri=$(awk '/^URIs:/ {print $2}' /etc/apt/sources.list.d/debian.sources 2>/dev/null | grep -v -- -security | head -1)
  sec=$(awk '/^URIs:/ {print $2}' /etc/apt/sources.list.d/debian.sources 2>/dev/null | grep -- -security | head -1)
  if [ -z "$uri" ]; then
    uri=$(awk '$1 == "deb" && $3 !~ /security/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null)
    sec=$(awk '$1 == "deb" && $3 ~ /security/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null)
  fi
  [ -n "$uri" ] || die "no Debian apt source on this machine to derive trixie's from"
  [ -n "$sec" ] || sec="${uri%/debian}/debian-security"
  local kr=/usr/share/keyrings/debian-archive-keyring.gpg
  {
    echo "deb-src [signed-by=$kr] $uri trixie main"
    echo "deb-src [signed-by=$kr] $sec trixie-security main"
  } >"$apt/sources.list"
  local opts=(-o "Dir::Etc::sourcelist=$apt/sources.list" -o Dir::Etc::sourceparts=/dev/null
              -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache::Archives=$apt/archives"
              -o Debug::NoLocking=1)
  step "apt-get update (trixie sources only)" "$top/apt-update.log" apt-get "${opts[@]}" update
  # (trixie lists the version twice, in the main and the security pool, so
  # showsrc pkg=version finds nothing: select the stanza ourselves)
  apt-cache "${opts[@]}" showsrc slurm-wlm >"$top/showsrc.txt" 2>/dev/null \
    || die "trixie's sources do not list slurm-wlm"
  # The Sources stanza of exactly that version.
  awk -v v="$trixie_version" 'BEGIN{RS=""} index($0, "\nVersion: " v "\n") {print; exit}' "$top/showsrc.txt" >"$top/stanza.txt"
  [ -s "$top/stanza.txt" ] || die "no Sources stanza for $trixie_version"
  local dirs; dirs=$(awk -v v="$trixie_version" 'BEGIN{RS=""} index($0, "\nVersion: " v "\n")' "$top/showsrc.txt" | awk '/^Directory:/ {print $2}' | sort -u)
  # Fetch every file of the stanza except the .dsc (the mirror lacks it), from
  # the main pool or the security pool, checking sha256.
  local name sum size got
  while read -r sum size name; do
    case $name in *.dsc) continue ;; esac
    got=
    for u in "$uri" "$sec"; do
      for d in $dirs; do
        if curl -fsS -o "$top/$name" "$u/$d/$name" 2>/dev/null; then
          got=$u/$d; break 2
        fi
      done
    done
    [ -n "$got" ] || die "cannot download $name from the main or security pool"
    echo "$sum  $top/$name" | sha256sum -c --quiet - || die "sha256 mismatch for $name"
    log "fetched $name"
  done < <(awk '/^Checksums-Sha256:/ {f=1; next} /^[^ ]/ {f=0} f {print $1, $2, $3}' "$top/stanza.txt")
  # Rebuild the .dsc from the stanza: Source/Version/Format... and a Files block.
  local dsc="$top/slurm-wlm_${trixie_version#*:}.dsc"
  {
    sed -n -e 's/^Package:/Source:/p' -e '/^\(Format\|Binary\|Architecture\|Version\|Maintainer\|Standards-Version\|Build-Depends\):/p' "$top/stanza.txt"
    echo "Files:"
    for f in "$top"/slurm-wlm_*.tar.*; do
      echo " $(md5sum <"$f" | cut -d' ' -f1) $(stat -c %s "$f") $(basename "$f")"
    done
  } >"$dsc"
  step "dpkg-source -x (applies Debian's patches)" "$top/dpkg-source.log" \
    dpkg-source --no-check -x "$dsc" "$top/src"
}

fetch_upstream() {
  local top=$1 v=$2 tag tb
  tag="slurm-${v//./-}-1"
  tb="$tarballs/$tag.tar.gz"
  [ -f "$tb" ] || die "no tarball $tb (set PSIPLACE_SLURM_TARBALLS)"
  echo "${sha256[$v]}  $tb" | sha256sum -c --quiet - || die "sha256 mismatch: $tb"
  step "unpack $tag" "$top/unpack.log" tar xzf "$tb" -C "$top"
  mv "$top/$tag" "$top/src"
}

configure_args() {
  local prefix=$1
  local args=(--prefix="$prefix" --sysconfdir="$prefix/etc" --with-munge
              --enable-multiple-slurmd --disable-debug --without-rpath)
  local pmix
  pmix=$(ls -d /usr/lib/x86_64-linux-gnu/pmix2 2>/dev/null || true)
  [ -n "$pmix" ] && args+=(--with-pmix="$pmix")
  printf '%s\n' "${args[@]}"
}

# A configured tree of release v in $top/src.
make_tree() {
  local v=$1 top=$2
  rm -rf "$top"; mkdir -p "$top"
  if [ "$v" = 24.11.5 ]; then
    fetch_trixie "$top"
    # Debian's patches edit configure.ac; the GTK/GLIB macros only feed sview.
    mkdir -p "$top/src/auxdir"
    printf 'AC_DEFUN([AM_PATH_GLIB_2_0],[$3])\nAC_DEFUN([AM_PATH_GTK_2_0],[$3])\n' >"$top/src/auxdir/psiplace_stubs.m4"
    step "autoreconf $v" "$top/autoreconf.log" bash -c "cd '$top/src' && autoreconf -fi"
  else
    fetch_upstream "$top" "$v"
  fi
  local args
  args=$(configure_args "$top/prefix" | tr '\n' ' ')
  step "configure $v" "$top/configure.log" bash -c "cd '$top/src' && ./configure $args"
  touch "$top/.configured"
}

# One tree or prefix of a release is made by one process at a time: CI's
# stages build and compile against releases concurrently (contrib/test.sh),
# and tree and prefix share the release's cache directory.
lock_release() {
  mkdir -p "$cache/slurm"
  exec 9>"$cache/slurm/.lock-$1"
  flock 9
}

cmd_tree() {
  local v; v=$(full_version "$1")
  if [ "$v" = 22.05.8 ]; then "$here/cluster.sh" slurm-src; return; fi
  lock_release "$v"
  local top="$cache/slurm/$v-$RECIPE"
  [ -f "$top/.configured" ] || make_tree "$v" "$top"
  echo "$top/src"
}

# accounting_storage/mysql (slurmdbd's storage, for the testbed's
# PSIPLACE_ACCOUNTING=dbd) added to an installed prefix whose tree was
# configured without MySQL headers (every prefix made before libmariadb-dev
# was in cluster.sh deps): configure again with the recorded arguments
# (config.status --recheck), then make and install only src/database's
# MySQL library and the plugin, 40-50 s instead of a rebuild of
# all of Slurm.  A prefix configured with the headers has the plugin from
# its full build and costs nothing here.
with_mysql() { grep -qx 'S\["WITH_MYSQL_TRUE"\]=""' "$1/config.status"; }
ensure_mysql_plugin() {
  local v=$1 top=$2 src=$2/src pkglib
  pkglib=$top/prefix/lib/slurm
  [ -d "$pkglib" ] || pkglib=$top/prefix/lib/slurm-wlm
  [ -f "$pkglib/accounting_storage_mysql.so" ] && return 0
  command -v mariadb_config >/dev/null || command -v mysql_config >/dev/null \
    || die "Slurm $v: adding accounting_storage/mysql needs the MySQL client headers (mariadb_config): install libmariadb-dev (cluster.sh deps)"
  local start=$SECONDS
  log "Slurm $v has no accounting_storage/mysql: adding it to $top/prefix (about a minute: configure again, then only the plugin; not a rebuild of Slurm)"
  # HAVE_MYSQL, the only define the headers change, is read by no source
  # file (only include guards carry the name): config.h keeps its time, so a
  # later make of the tree, or psiplace compiled against it
  # (check-releases.sh), recompiles nothing for it.  The Makefiles change.
  local before=$top/config.h.before-mysql
  if ! with_mysql "$src"; then
    cp -p "$src/config.h" "$before"
    step "configure $v again with MySQL (same arguments)" "$top/mysql-configure.log" \
      bash -c "cd '$src' && ./config.status --recheck && ./config.status"
    with_mysql "$src" || die "Slurm $v: configure found no usable MySQL library (see $top/mysql-configure.log)"
  fi
  if [ -f "$before" ]; then
    if cmp -s <(grep -v HAVE_MYSQL "$before") <(grep -v HAVE_MYSQL "$src/config.h"); then
      touch -r "$before" "$src/config.h"
    else
      log "warning: configure changed $src/config.h beyond HAVE_MYSQL: a later make of the tree recompiles it all"
    fi
  fi
  step "make and install accounting_storage/mysql of $v" "$top/mysql-make.log" bash -c \
    "cd '$src' && make -C src/database && make -C src/plugins/accounting_storage/mysql install"
  [ -f "$pkglib/accounting_storage_mysql.so" ] || die "Slurm $v: make install left no $pkglib/accounting_storage_mysql.so"
  echo "$((SECONDS - start)) s" >"$top/mysql-time.txt"
  log "accounting_storage/mysql of $v installed in $((SECONDS - start)) s"
}

cmd_prefix() {
  local v; v=$(full_version "$1")
  [ "$v" != 22.05.8 ] || die "22.05 runs from Debian's packages; no prefix"
  lock_release "$v"
  local top="$cache/slurm/$v-$RECIPE"
  if [ -f "$top/.installed" ]; then
    ensure_mysql_plugin "$v" "$top"
    echo "$top/prefix"; return 0
  fi
  [ -f "$top/.configured" ] || make_tree "$v" "$top"
  local jobs=${PSIPLACE_MAKE_JOBS:-$(nproc)}
  log "building Slurm $v with $jobs jobs (about 5-6 minutes on 2 cores; progress every 30 s)"
  ( cd "$top/src" && nice -n 10 make -j"$jobs" >"$top/make.log" 2>&1 ) &
  local pid=$! start=$SECONDS next=30
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1  # a progress line every 30 s; the build itself is waited for below
    if [ $((SECONDS - start)) -ge $next ]; then
      log "make $v: $((SECONDS - start)) s, $(grep -c -- '--mode=compile' "$top/make.log" 2>/dev/null || true) files compiled so far"
      next=$((next + 30))
    fi
  done
  if ! wait "$pid"; then tail -n 25 "$top/make.log" >&2; die "make $v failed; full log: $top/make.log"; fi
  step "make install $v" "$top/install.log" bash -c "cd '$top/src' && make install"
  mkdir -p "$top/prefix/etc"
  touch "$top/.installed"
  ensure_mysql_plugin "$v" "$top"
  echo "$top/prefix"
}

case ${1:-} in
  list) printf '%s\n' "${releases[@]}" ;;
  tree) [ $# -eq 2 ] || die "usage: slurm-release.sh tree VERSION"; cmd_tree "$2" ;;
  prefix) [ $# -eq 2 ] || die "usage: slurm-release.sh prefix VERSION"; cmd_prefix "$2" ;;
  *) die "usage: slurm-release.sh list | tree VERSION | prefix VERSION" ;;
esac
