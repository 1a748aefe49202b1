#!/usr/bin/env bash
# psiplace as a site installs it (TAP): the .debs installed with dpkg -i,
# the testbed started on the installed plugins only (PluginDir = Slurm's
# plugin directory, the plugstack line naming the installed psiplace.so), the
# foundation suite run against them, a malleable MPI program built out of
# tree against the installed libpsiplace-mpi-dev (mpicc $(pkg-config
# --cflags --libs psiplace-mpi)) and run, an upgrade to the next build (N+1,
# built here with --version) and a downgrade back to N with jobs running (the
# daemons restarted in doc/upgrade.md's order after each dpkg -i), then
# apt-get remove and Slurm's own files checked untouched.
# Needs root.  PSIPLACE_PKG_DIR: a directory with the four .debs of version V
# (psiplace-plugins, psiplace-tools, libpsiplace-mpi0, libpsiplace-mpi-dev)
# already built (contrib/package.sh deb); else built here.
set -uo pipefail
[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP dpkg -i needs root"; exit 77; }
export PSIPLACE_TEST_INSTANCE=${PSIPLACE_TEST_INSTANCE:-8}
export PSIPLACE_INSTALLED=1 PSIPLACE_SLURM=22.05
source "$(dirname "$0")/../integration/lib.sh"
work=$(mktemp -d)
installed=0
pkgs=(psiplace-plugins psiplace-tools libpsiplace-mpi0 libpsiplace-mpi-dev)
# Whatever ends the test (a bail-out, meson's timeout), the daemons stop and
# the packages it installed go: the machine is left as it was found.
cleanup() {
  "$cluster" stop >/dev/null 2>&1
  if [ "$installed" = 1 ] &&
     dpkg-query -W -f='${db:Status-Abbrev}\n' "${pkgs[@]}" 2>/dev/null | grep -q '^i'; then
    DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq "${pkgs[@]}" >/dev/null 2>&1
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM INT
sysdir=/usr/lib/x86_64-linux-gnu/slurm-wlm
slurm_pkgs=(slurm-wlm-basic-plugins slurmctld slurmd)
slurm_version=$(dpkg-query -W -f='${Version}' slurm-wlm-basic-plugins | sed -e 's/^[0-9]*://' -e 's/-[^-]*$//')
version=$(sed -n "s/^  version : '\([^']*\)',/\1/p" "$src_dir/meson.build")
next=$version+upgrade1
next_re=${next//+/\\+}
bail() { echo "Bail out! $*"; exit 1; }

# dpkg -i puts select_psiplace_cons_tres.so into $sysdir, and every slurmctld,
# srun and sinfo loads every select_*.so there: another Slurm on this machine
# whose PluginDir has $sysdir and a build directory's copy would die with
# "Duplicate plugin_id".  Leave such a machine alone, and never touch a psiplace
# that was installed before this test.
testbed_dir=${PSIPLACE_TESTBED_ROOT:-/tmp/psiplace-testbed}-${PSIPLACE_INSTANCE:-$PSIPLACE_TEST_INSTANCE}
# A daemon's slurm.conf is its -f, else SLURM_CONF in its environment, else
# its build's default; without a PluginDir line it loads its build's own
# plugin directory: $sysdir for Debian's daemons (/usr/sbin), a release
# prefix's lib/slurm for the testbed's 24.11 and 26.05 builds.  A process
# that has ended meanwhile (empty cmdline, no exe) is nobody's, and neither
# is a version or help query (cluster.sh's `slurmctld -V` on another lane's
# testbed start was once taken for a daemon without -f: a false skip).
others_using_sysdir() {
  local pid conf exe args
  for pid in $(pgrep -x 'slurm(ctld|d)'); do
    exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || continue
    args=$(tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null)
    case $'\n'$args$'\n' in $'\n\n' | *$'\n'-V$'\n'* | *$'\n'--version$'\n'* | *$'\n'-h$'\n'* | *$'\n'--help$'\n'*) continue ;; esac
    conf=$(sed -n '/^-f$/{n;p;q}' <<<"$args")
    [ -n "$conf" ] || conf=$(tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | sed -n 's/^SLURM_CONF=//p')
    [ -n "$conf" ] || conf=/etc/slurm/slurm.conf
    case $conf in "$testbed_dir"/*) continue ;; esac
    if grep -qiE "^[[:space:]]*PluginDir=(.*:)?$sysdir/?(:|\$)" "$conf" 2>/dev/null; then
      echo "$pid ($exe, $conf)"
    elif ! grep -qiE '^[[:space:]]*PluginDir=' "$conf" 2>/dev/null; then
      case $exe in /usr/sbin/*) echo "$pid ($exe, $conf)" ;; esac
    fi
  done
}
if busy=$(others_using_sysdir) && [ -n "$busy" ]; then
  echo "1..0 # SKIP other Slurm daemons load plugins from $sysdir: $(echo $busy)"
  exit 77
fi
if dpkg-query -W -f='${Status}' "${pkgs[@]}" 2>/dev/null | grep -q installed; then
  echo "1..0 # SKIP psiplace packages were installed before this test: not touching them"
  exit 77
fi

# --- the packages: version N (given or built) and N+1
debs_of() { local p; for p in "${pkgs[@]}"; do ls "$1/${p}_$2"_*.deb 2>/dev/null; done; }
pkg_n=${PSIPLACE_PKG_DIR:-$work/n}
if [ -z "$(debs_of "$pkg_n" "$version")" ]; then
  DEB_BUILD_OPTIONS=nocheck timeout 1200 "$src_dir/contrib/package.sh" deb --out "$pkg_n" >"$work/build-n.log" 2>&1 \
    || { tail -30 "$work/build-n.log" | sed 's/^/# /'; bail "contrib/package.sh deb failed"; }
fi
DEB_BUILD_OPTIONS=nocheck timeout 1200 "$src_dir/contrib/package.sh" deb --version "$next" --out "$work/n1" >"$work/build-n1.log" 2>&1 \
  || { tail -30 "$work/build-n1.log" | sed 's/^/# /'; bail "contrib/package.sh deb --version $next failed"; }
check_eq "version N: four packages" 4 "$(debs_of "$pkg_n" "$version" | wc -l)"
check_eq "version N+1: four packages" 4 "$(debs_of "$work/n1" "$next" | wc -l)"

# --- Slurm's own files before: dpkg -V and a checksum of every file
slurm_state() {
  dpkg -V "${slurm_pkgs[@]}" 2>&1
  dpkg -L "${slurm_pkgs[@]}" | while read -r f; do [ -f "$f" ] && [ ! -L "$f" ] && echo "$f"; done \
    | sort | xargs -d '\n' sha256sum
}
DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq "${pkgs[@]}" >/dev/null 2>&1
slurm_state >"$work/slurm-before"

# --- install N
installed=1
out=$(dpkg -i $(debs_of "$pkg_n" "$version") 2>&1) || { printf '# %s\n' "$out"; bail "dpkg -i of version $version failed"; }
check_eq "psiplace-plugins $version installed" "install ok installed $version" \
  "$(dpkg-query -W -f='${Status} ${Version}' psiplace-plugins)"
check_eq "psiplace-plugins depends on exactly the installed slurm-wlm-basic-plugins" \
  "slurm-wlm-basic-plugins (= $(dpkg-query -W -f='${Version}' slurm-wlm-basic-plugins))" \
  "$(dpkg-query -W -f='${Depends}' psiplace-plugins | tr ',' '\n' | sed 's/^ *//' | grep '^slurm-wlm-basic-plugins')"
check_eq "plugins are in Slurm's plugin directory" "$sysdir/job_submit_psiplace.so $sysdir/psiplace.so $sysdir/select_psiplace_cons_tres.so" \
  "$(dpkg -L psiplace-plugins | grep '\.so$' | sort | paste -sd' ')"
check_eq "psiplace --version (installed) names version and Slurm" "psiplace $version (built for Slurm $slurm_version)" \
  "$(/usr/bin/psiplace --version)"
check_match "psiplace check-config reads the example plugstack line" 'LASTAVAILABLE' \
  "$(/usr/bin/psiplace check-config /usr/share/doc/psiplace-plugins/examples/plugstack.conf \
      --psiplace-conf /dev/null 2>&1)"

# --- the foundation suite against the installed plugins
out=$(timeout 900 bash "$src_dir/tests/integration/test_foundation.sh" 2>&1); rc=$?
printf '%s\n' "$out" | grep -E '^(not ok|# )' | sed 's/^/#   /'
check_eq "foundation suite passes on the installed plugins ($(printf '%s\n' "$out" | grep -E '^# [0-9]+ passed'))" 0 "$rc"

# --- a testbed of our own: which plugins run, then N -> N+1 -> N under running jobs
# (end states from the jobcomp file)
export PSIPLACE_JOBCOMP=1
tb_start
conf_dir=$PSIPLACE_TESTBED_DIR/etc
check_eq "slurm.conf PluginDir is Slurm's plugin directory only" "PluginDir=$sysdir" "$(grep '^PluginDir=' "$conf_dir/slurm.conf")"
check_match "plugstack.conf names the installed psiplace.so" "^required $sysdir/psiplace.so " "$(cat "$conf_dir/plugstack.conf")"
ctld_pid=$(cat "$PSIPLACE_TESTBED_DIR/pids/slurmctld")
check_match "slurmctld maps the installed select plugin" "$sysdir/select_psiplace_cons_tres.so" "$(cat /proc/"$ctld_pid"/maps)"
check_eq "no build directory in slurmctld's maps" "" "$(grep -E "$src_dir|/build" /proc/"$ctld_pid"/maps | awk '{print $6}' | sort -u)"
loaded() { grep -q "$2" "$PSIPLACE_TESTBED_DIR/log/$1"; }
poll 30 loaded slurmctld.log "psiplace $version built for Slurm $slurm_version loaded"
check_match "slurmctld start-up line names version N and the Slurm release" \
  "select/psiplace_cons_tres: psiplace $version built for Slurm $slurm_version loaded" "$(cat "$PSIPLACE_TESTBED_DIR/log/slurmctld.log")"
check_match "slurmd start-up line names version N and the Slurm release" \
  "psiplace: psiplace $version built for Slurm $slurm_version loaded" "$(cat "$PSIPLACE_TESTBED_DIR/log/slurmd-n1.log")"

# --- a malleable MPI program built out of tree against the installed -dev
# package, run on the installed plugins: it grows from 1 process to 2 nodes
example=/usr/share/doc/libpsiplace-mpi-dev/examples/malleable_hello.c
check_eq "pkg-config psiplace-mpi (installed)" "-lpsiplace_mpi" "$(pkg-config --cflags --libs psiplace-mpi | xargs)"
check_eq "pkg-config --modversion psiplace-mpi is version N" "${version%%+*}" "$(pkg-config --modversion psiplace-mpi)"
mkdir -p "$work/app" && cp "$example" "$work/app/" 2>/dev/null
if (cd "$work/app" && mpicc -o malleable_hello malleable_hello.c $(pkg-config --cflags --libs psiplace-mpi)) >"$work/app/build.log" 2>&1; then
  ok "mpicc \$(pkg-config --cflags --libs psiplace-mpi) builds the installed example out of tree"
else
  not_ok "mpicc \$(pkg-config --cflags --libs psiplace-mpi) builds the installed example out of tree" "$(cat "$work/app/build.log")"
fi
# (by its real path: with merged /usr the loader may name it under /lib)
loaded=$(ldd "$work/app/malleable_hello" 2>/dev/null | awk '$1 == "libpsiplace_mpi.so.0" { print $3 }')
check_eq "the program loads the installed libpsiplace_mpi.so.0" \
  "$(readlink -f /usr/lib/x86_64-linux-gnu/libpsiplace_mpi.so.0)" "$([ -n "$loaded" ] && readlink -f "$loaded")"
if command -v mpirun >/dev/null; then
  out=$(cd "$work/app" && settle && OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader,tcp \
    timeout 150 salloc -N2 -n2 timeout 120 mpirun --oversubscribe -np 1 ./malleable_hello 2 2>&1)
  ranks=$(printf '%s\n' "$out" | sed -n 's/^rank \([01]\) of 2 on \(n[1-4]\)$/\1 \2/p' | sort)
  check_eq "the out-of-tree program grows from 1 process to 2 nodes (rank 0 and 1 on two nodes)" "0 1 2" \
    "$(cut -d' ' -f1 <<<"$ranks" | paste -sd' ') $(cut -d' ' -f2 <<<"$ranks" | sort -u | wc -l)" "$out"
else
  skip "the out-of-tree program runs" "no mpirun (openmpi-bin) on this machine"
fi


# --- N -> N+1 -> N under running jobs, with dpkg -i (roundtrip.sh)
pkg_install() { dpkg -i $(debs_of "$1" "$2"); }
pkg_version() { dpkg-query -W -f='${Status} ${Version}' psiplace-plugins | sed -n 's/^install ok installed //p'; }
pkg_psiplace() { /usr/bin/psiplace "$@"; }
pkg_downgrade_said() { check_match "dpkg -i names the downgrade" "[Dd]owngrading psiplace-plugins" "$1"; }
pkg_n1=$work/n1
source "$(dirname "$0")/roundtrip.sh"

# --- roll back: remove the packages, Slurm's files as before
DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq "${pkgs[@]}" >"$work/remove.log" 2>&1
check_eq "apt-get remove: packages gone" "" \
  "$(dpkg-query -W -f='${db:Status-Abbrev}${Package}\n' "${pkgs[@]}" 2>/dev/null | grep '^ii')"
check_eq "apt-get remove: no libpsiplace_mpi left" "" "$(ls /usr/lib/x86_64-linux-gnu | grep psiplace)"
check_eq "apt-get remove: no psiplace file left in the plugin directory" "" "$(ls "$sysdir" | grep psiplace)"
check_eq "apt-get remove: Slurm packages still installed" "ii ii ii" \
  "$(dpkg-query -W -f='${db:Status-Abbrev}' "${slurm_pkgs[@]}" | tr -s ' ' ' ' | sed 's/ $//')"
slurm_state >"$work/slurm-after"
check_eq "Slurm's own files untouched (dpkg -V and sha256 of every file)" "" \
  "$(diff "$work/slurm-before" "$work/slurm-after")"

tb_finish
