#!/usr/bin/env bash
# A real local Slurm cluster on one machine: munged, slurmctld and four
# (optionally five) slurmd started with -N, for psiplace's demo and
# integration tests.  PSIPLACE_SLURM picks the release: 22.05 (default,
# Debian 12's packages), 24.11 or 26.05 (built once into a cached prefix by
# slurm-release.sh; no system package is replaced).
#
#   cluster.sh deps        install build/test/cluster packages (idempotent)
#   cluster.sh slurm-src   a configured Slurm source tree of the release; prints its path
#                          (24.11/26.05: also builds the release's prefix)
#   cluster.sh build-dir   the psiplace build directory for the release
#   cluster.sh start       start the testbed (waits for all nodes idle)
#   cluster.sh stop        stop exactly the daemons start started, then end the jobs
#                          still running on this instance (stop-jobs)
#   cluster.sh stop-jobs   end this instance's slurmstepds, their jobs' processes and its
#                          srun/salloc clients (KILL to the stepds and clients, TERM to the
#                          rest, KILL after 5 s) and check that none is left; other
#                          instances' and a system Slurm's are never touched.  Only stop
#                          (and the guardian) call it: every other command keeps the
#                          running jobs and their steps
#   cluster.sh status      report what runs
#   cluster.sh env         print the export lines a shell needs
#   cluster.sh restart-ctld [SIG]  kill slurmctld with SIG (TERM), start it on its saved state
#   cluster.sh restart-malleabled [SIG]  (PSIPLACE_MALLEABLED=1) kill psiplace-malleabled with
#                          SIG (TERM), start it again (it resumes from its state file)
#   cluster.sh stop-ctld | restart-slurmds | start-ctld
#                          a SelectType switch in the documented order (doc/upgrade.md):
#                          slurmctld stopped, every slurmd restarted on the edited
#                          configuration, slurmctld started on its saved state
#   cluster.sh stop-slurmds | start-slurmds
#                          every slurmd stopped (their stepds and jobs go on) / started
#                          with this release's slurmd: with install-plugins between
#                          them, an in-place Slurm upgrade in the order of Slurm's
#                          upgrade guide (doc/upgrade.md): stop-ctld, stop-slurmds,
#                          install-plugins, start-slurmds, start-ctld
#                          (both, and restart-slurmds: PSIPLACE_SLURMD_CONF names the
#                          slurmds' own slurm.conf, e.g. a compute node's older copy in
#                          a rolling upgrade; default the testbed's)
#   cluster.sh install-plugins  point the running testbed's slurm.conf PluginDir and
#                          plugstack.conf's psiplace.so at this release's plugins
#                          (PSIPLACE_BUILD_DIR, else the release's build directory, and
#                          the release's own plugin directory): what installing the
#                          psiplace build for a new Slurm does on a site
#   cluster.sh stop-dbd | dump-db FILE | start-dbd
#                          (PSIPLACE_ACCOUNTING=dbd) slurmdbd stopped / the accounting
#                          database dumped into FILE (MariaDB keeps running) / this
#                          release's slurmdbd started on the existing database (slurmdbd.conf's
#                          PluginDir pointed at this release's plugins; a newer slurmdbd
#                          converts the tables before it answers): a slurmdbd upgrade,
#                          the first step of Slurm's upgrade guide
#   cluster.sh accounting-support  exit 0 when this release can run PSIPLACE_ACCOUNTING=dbd,
#                          else print why not and exit 1
#
# One instance setting, PSIPLACE_INSTANCE (0..99, default 0), derives every
# port and directory, so two clusters run side by side (at 99 the ports
# stay below PSIPLACE_NODE_TABLE's 20000 and those below 32768, where the
# kernel's ephemeral ports begin):
#   directory  ${PSIPLACE_TESTBED_ROOT:-/tmp/psiplace-testbed}-$PSIPLACE_INSTANCE
#   ports      17000 + 20*instance (slurmctld), +1..+5 (slurmd n1..n5), +6 (extra and
#              dynamic nodes), +7 (slurmdbd), +8 (MariaDB, with PSIPLACE_ACCOUNTING=dbd)
# Other settings (environment):
#   PSIPLACE_SLURM           22.05 | 24.11 | 26.05 (default 22.05)
#   PSIPLACE_BUILD_DIR       directory holding psiplace.so and select_psiplace_cons_tres.so
#                            (default <repo>/build for 22.05, <repo>/build-slurm-<release> otherwise)
#   PSIPLACE_INSTALLED=1     use the installed plugins only (packages): PluginDir is Slurm's
#                            plugin directory, the plugstack line names the psiplace.so there,
#                            no build directory is used
#   PSIPLACE_POLICY          NodeAllocationPolicy on the plugstack line (default LASTAVAILABLE; "none" omits it)
#   PSIPLACE_PLUGSTACK_ARGS  further arguments for the plugstack line
#   PSIPLACE_SELECT          SelectType (default select/psiplace_cons_tres)
#   PSIPLACE_SELECT_PARAMS   SelectTypeParameters (default CR_Core; e.g. CR_Core_Memory,
#                            CR_Core,CR_Pack_Nodes)
#   PSIPLACE_SCHED_PARAMS    SchedulerParameters (default: none; e.g. pack_serial_at_end)
#   PSIPLACE_PREEMPT_MODE    PreemptMode (default: none, Slurm's OFF; e.g. GANG)
#   PSIPLACE_MAX_NODE_COUNT  MaxNodeCount (dynamic nodes, 23.02+; default: none)
#   PSIPLACE_LICENSES        Licenses (default: none; e.g. merge:10)
#   PSIPLACE_PREEMPT_TYPE    PreemptType (default: none, Slurm's preempt/none; e.g.
#                            preempt/partition_prio)
#   PSIPLACE_PARTITION_ARGS  further arguments of the debug partition (e.g. OverSubscribe=FORCE:2)
#   PSIPLACE_REAL_NODE=1     add node n5 declared exactly like this machine (slurmd -C)
#   PSIPLACE_NODE_TABLE      "NAME:CPUS[:SOCKETS[:gpu]] ..." replaces n1..n4 with these nodes,
#                            in this order (SOCKETS sockets, default 1, of CPUS/SOCKETS cores,
#                            1000 MB each; gpu: one fake GPU bound to the first socket's
#                            cores, Cores=0-(CPUS/SOCKETS-1)), each a slurmd -N on port
#                            20000 + 40*instance + its position (1..39)
#   PSIPLACE_EXTRA_NODES=N   declare N more nodes (x[1-N]) that are never started (scale benchmarks)
#   PSIPLACE_SLURMD_TIMEOUT  SlurmdTimeout (default 30); slurmctld pings nodes every third of it
#   PSIPLACE_MSG_TIMEOUT     MessageTimeout (default 10, Slurm's)
#   PSIPLACE_CTLD_WAIT       seconds start waits for slurmctld to answer (default 30)
#   PSIPLACE_CACHE           cache dir for the Slurm source (default ~/.cache/psiplace)
#   PSIPLACE_POWER_SAVE=1    power saving: ResumeProgram starts a node's slurmd -N (its PID in
#                            pids/slurmd-NODE, where stop finds it), SuspendProgram stops it by
#                            that PID only; each call appends "resume|suspend NODE" to
#                            log/power.log.  start waits for all nodes idle, then powers down
#                            PSIPLACE_POWER_DOWN (default "n3 n4") and waits for them idle~.
#                            slurmctld runs both programs as SlurmUser (root here) with
#                            SLURM_CONF as the only environment.
#   PSIPLACE_SUSPEND_TIME    SuspendTime with power saving (default 60 s of idleness)
#   PSIPLACE_PARTITIONS      further partitions over the same nodes (names, blank-separated;
#                            debug stays the default partition)
#   PSIPLACE_PARTITION_ARGS_<NAME>  further arguments of partition NAME of PSIPLACE_PARTITIONS
#                            (e.g. PSIPLACE_PARTITION_ARGS_high="PriorityTier=10")
#   PSIPLACE_JOBCOMP=1       JobCompType=jobcomp/filetxt, one record per ended job in
#                            log/jobcomp.txt (the testbed has no slurmdbd: sacct has nothing)
#   PSIPLACE_PSICONF_EXTRA   lines appended to the testbed's psiplace.conf (e.g. PartitionName=...)
#   PSIPLACE_MALLEABLED=1    malleable jobs: JobSubmitPlugins=psiplace, permit_job_expansion
#                            added to SchedulerParameters, and psiplace-malleabled started
#                            after the nodes are idle (--foreground, log/malleabled.out,
#                            pids/malleabled; PSIPLACE_MALLEABLED_ARGS: its further arguments).
#                            JobSubmitPlugins=psiplace also whenever SchedulerParameters has
#                            permit_job_expansion (on 25.11+ it keeps merges from killing slurmctld)
#   PSIPLACE_ACCOUNTING      none | dbd (default none: accounting_storage/none).  dbd: a private
#                            MariaDB server (mariadb-install-db into db/data, mariadbd on
#                            127.0.0.1 port +8 and socket db/mysqld.sock, as root with
#                            --user=root) and the release's slurmdbd (22.05: Debian's; 24.11/
#                            26.05: the prefix's sbin/slurmdbd with its plugins, sacctmgr/sacct
#                            from its bin; etc/slurmdbd.conf, mode 600, DbdPort +7,
#                            accounting_storage/mysql over that port), both started
#                            before slurmctld and recorded in pids/ like the other daemons;
#                            slurm.conf gets AccountingStorageType=accounting_storage/slurmdbd,
#                            AccountingStorageEnforce=associations,limits,qos.  sacctmgr -i
#                            adds the cluster, account psiplace, user root (default account
#                            psiplace, QOS normal,low,high) and the QOS low and high
#                            (Preempt=low; PreemptMode as slurm.conf's until a test sets it).
#                            24.11/26.05: slurm-release.sh prefix adds accounting_storage/mysql
#                            to the cached prefix (needs libmariadb-dev; see: cluster.sh
#                            accounting-support)
#   PSIPLACE_TOPOLOGY        tree | block (default: none): writes etc/topology.conf and
#                            TopologyPlugin.  tree: leaf switches s1 (n1,n2) and s2 (n3,n4)
#                            under root (n5, with PSIPLACE_REAL_NODE=1, on s3); block (23.11+,
#                            so 24.11/26.05): blocks b1 (n1,n2), b2 (n3,n4), BlockSizes=2,4;
#                            yaml (26.05): etc/topology.yaml with two topologies, `tree`
#                            (the tree above, cluster default) and `blk` (blocks b1: n1,n3,
#                            b2: n2,n4, block_sizes 2), which a partition takes with
#                            PSIPLACE_PARTITION_ARGS_<NAME>="Topology=blk"
set -Eeuo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
instance=${PSIPLACE_INSTANCE:-0}
case $instance in
  ''|*[!0-9]*) echo "cluster.sh: PSIPLACE_INSTANCE='$instance' is not a number 0..99" >&2; exit 2 ;;
esac
if [ "$instance" -gt 99 ]; then
  echo "cluster.sh: PSIPLACE_INSTANCE='$instance' is not a number 0..99" >&2; exit 2
fi
dir=${PSIPLACE_TESTBED_ROOT:-/tmp/psiplace-testbed}-$instance
base_port=$((17000 + 20 * instance))
cache=${PSIPLACE_CACHE:-$HOME/.cache/psiplace}
plugin_dir_sys=/usr/lib/x86_64-linux-gnu/slurm-wlm
slurmdbd_bin=/usr/sbin/slurmdbd
release=${PSIPLACE_SLURM:-22.05}
case $release in
  22.05|24.11|26.05) ;;
  *) echo "cluster.sh: PSIPLACE_SLURM='$release' is not a testbed release; accepted: 22.05, 24.11, 26.05" >&2; exit 2 ;;
esac

log() { echo "cluster.sh[$instance]: $*" >&2; }
# set -e must never fail silently: name the command that failed.
trap 'echo "cluster.sh[$instance]: error: line $LINENO: command failed: $BASH_COMMAND" >&2' ERR
die() { log "error: $*"; exit 1; }

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

packages=(slurmctld slurmd slurm-client munge libslurm-dev libhwloc-dev hwloc openmpi-bin libopenmpi-dev
          libmunge-dev libcriterion-dev meson ninja-build pkg-config gcc clang
          libclang-rt-14-dev dpkg-dev autoconf automake libtool make
          librsvg2-bin python3 hyperfine bc curl libpmix-dev libjson-c-dev libjansson-dev zlib1g-dev
          expect python3-pytest python3-pexpect mariadb-server slurmdbd libmariadb-dev)

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
  if [ "$release" != 22.05 ]; then
    "$here/slurm-release.sh" prefix "$release" >/dev/null
    "$here/slurm-release.sh" tree "$release"
    return
  fi
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

# ---------------------------------------------------------------- testbed
default_build_dir() {
  if [ "$release" = 22.05 ]; then echo "$repo/build"; else echo "$repo/build-slurm-$release"; fi
}

build_dir() {
  local b=${PSIPLACE_BUILD_DIR:-$(default_build_dir)}
  (cd "$b" 2>/dev/null && pwd) || die "build dir $b does not exist (build first: contrib/build.sh)"
}

# 24.11/26.05: that release's daemons, clients and plugins come first.
# build=1 builds the prefix when it is missing (start), else it must exist.
use_release_prefix() {
  [ "$release" = 22.05 ] && return 0
  local prefix
  if [ "${1:-}" = build ]; then
    prefix=$("$here/slurm-release.sh" prefix "$release") || die "building Slurm $release failed"
  else
    prefix=$(ls -d "$cache"/slurm/"$release".*-r*/prefix 2>/dev/null | while read -r p; do
               [ -f "$(dirname "$p")/.installed" ] && echo "$p"; done | tail -1)
    [ -n "$prefix" ] || die "Slurm $release is not built yet (run: PSIPLACE_SLURM=$release cluster.sh slurm-src)"
  fi
  export PATH="$prefix/bin:$prefix/sbin:$PATH"
  # never Debian's 22.05 slurmdbd, which cannot serve a newer slurmctld
  slurmdbd_bin=$prefix/sbin/slurmdbd
  # Debian's patches (24.11) name the plugin directory slurm-wlm.
  plugin_dir_sys=$prefix/lib/slurm
  [ -d "$plugin_dir_sys" ] || plugin_dir_sys=$prefix/lib/slurm-wlm
}

installed() { [ "${PSIPLACE_INSTALLED:-0}" = 1 ]; }

# PluginDir and the psiplace.so the plugstack line names: the build
# directory's first, or only Slurm's plugin directory for installed packages.
plugin_path() {
  if installed; then echo "$plugin_dir_sys"; return; fi
  local b; b=$(build_dir)
  echo "$b/plugins/select:$b/plugins/spank:$b/plugins/job_submit:$plugin_dir_sys"
}
malleabled() { [ "${PSIPLACE_MALLEABLED:-0}" = 1 ]; }
malleabled_bin() {
  if installed; then command -v psiplace-malleabled || echo /usr/sbin/psiplace-malleabled; return; fi
  echo "$(build_dir)/cli/malleabled/psiplace-malleabled"
}
spank_so() {
  if installed; then echo "$plugin_dir_sys/psiplace.so"; return; fi
  echo "$(build_dir)/plugins/spank/psiplace.so"
}

# start on a fresh clone: build psiplace for the release first when nobody
# named a build directory and the default one is not there yet.
ensure_built() {
  installed && return 0
  [ -z "${PSIPLACE_BUILD_DIR:-}" ] || return 0
  [ -f "$(default_build_dir)/build.ninja" ] && return 0
  log "no build for Slurm $release yet: running contrib/build.sh"
  PSIPLACE_SLURM=$release "$repo/contrib/build.sh" >&2 || die "contrib/build.sh failed"
}

conf=$dir/etc/slurm.conf
host=$(hostname -s)

export SLURM_CONF=$conf

# The psiplace line of plugstack.conf, from PSIPLACE_POLICY and PSIPLACE_PLUGSTACK_ARGS.
plugstack_line() {
  local so=$1 args=""
  local pol=${PSIPLACE_POLICY-LASTAVAILABLE}
  [ -n "$pol" ] && [ "$pol" != none ] && args="NodeAllocationPolicy=$pol"
  [ -n "${PSIPLACE_PLUGSTACK_ARGS:-}" ] && args="$args $PSIPLACE_PLUGSTACK_ARGS"
  echo "required $so $args"
}

write_config() {
  local plugin_path so
  plugin_path=$(plugin_path) && so=$(spank_so) || die "no plugins to start with"
  [ -f "$so" ] || die "$so does not exist"
  local p=$base_port
  mkdir -p "$dir"/{etc,state,spool,log,run,munge,gpu,tmp}
  # Fake GPUs: character devices with /dev/null's numbers (TESTBED.md).
  for g in 0 1; do [ -e "$dir/gpu/gpu$g" ] || mknod "$dir/gpu/gpu$g" c 1 3; done
  local select=${PSIPLACE_SELECT:-select/psiplace_cons_tres} jobcomp=JobCompType=jobcomp/none
  [ "${PSIPLACE_JOBCOMP:-0}" = 1 ] && jobcomp=$'JobCompType=jobcomp/filetxt\nJobCompLoc='"$dir/log/jobcomp.txt"
  cat >"$conf" <<CONF
# psiplace testbed instance $instance (generated by contrib/testbed/cluster.sh)
ClusterName=psiplace$instance
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$p
SlurmdPort=$((p + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
SlurmctldDebug=${PSIPLACE_CTLD_DEBUG:-verbose}
SlurmdDebug=info
TmpFS=$dir/tmp/%n
PluginDir=$plugin_path
PlugStackConfig=$dir/etc/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
MpiDefault=none
ReturnToService=2
MailProg=/bin/true
SchedulerType=sched/backfill
SelectType=$select
SelectTypeParameters=${PSIPLACE_SELECT_PARAMS:-CR_Core}
SlurmdParameters=config_overrides
SlurmdTimeout=${PSIPLACE_SLURMD_TIMEOUT:-30}
MessageTimeout=${PSIPLACE_MSG_TIMEOUT:-10}
InactiveLimit=0
KillWait=5
MinJobAge=10
$jobcomp
$(accounting_slurm_conf)
GresTypes=gpu
NodeName=DEFAULT State=UNKNOWN ThreadsPerCore=1
$(node_lines "$p")
CONF
  local sched=${PSIPLACE_SCHED_PARAMS:-}
  malleabled && sched=${sched:+$sched,}permit_job_expansion
  # job_submit/psiplace wherever jobs may merge: on 25.11+ it is what keeps
  # slurmctld alive through a merge (doc/malleability.md)
  case ",$sched," in *,permit_job_expansion,*) echo "JobSubmitPlugins=psiplace" >>"$conf" ;; esac
  [ -n "$sched" ] && echo "SchedulerParameters=$sched" >>"$conf"
  [ -n "${PSIPLACE_PREEMPT_MODE:-}" ] && echo "PreemptMode=$PSIPLACE_PREEMPT_MODE" >>"$conf"
  [ -n "${PSIPLACE_PREEMPT_TYPE:-}" ] && echo "PreemptType=$PSIPLACE_PREEMPT_TYPE" >>"$conf"
  [ -n "${PSIPLACE_MAX_NODE_COUNT:-}" ] && echo "MaxNodeCount=$PSIPLACE_MAX_NODE_COUNT" >>"$conf"
  [ -n "${PSIPLACE_LICENSES:-}" ] && echo "Licenses=$PSIPLACE_LICENSES" >>"$conf"
  local nodes="n[1-4]"
  [ -z "${PSIPLACE_NODE_TABLE:-}" ] || nodes=$(node_names | tr ' ' ,)
  if [ "${PSIPLACE_REAL_NODE:-0}" = 1 ]; then
    # n5 is declared exactly like this machine, for real binding checks.
    local real
    real=$(slurmd -C | head -1 | sed -e 's/^NodeName=[^ ]*//' -e 's/UpTime=[^ ]*//')
    echo "NodeName=n5 NodeHostname=$host NodeAddr=127.0.0.1 Port=$((p + 5)) $real Features=real" >>"$conf"
    nodes="n[1-5]"
  fi
  if [ "${PSIPLACE_EXTRA_NODES:-0}" -gt 0 ]; then
    # Slurm's host ranges hold at most 65,536 names: one line per 50,000.  No
    # NodeHostname (it is the node name): 22.05 looks every node up by host
    # name at start, and one name shared by all took minutes at 100,000 nodes
    local lo hi xs=""
    for ((lo = 1; lo <= PSIPLACE_EXTRA_NODES; lo += 50000)); do
      hi=$((lo + 49999 < PSIPLACE_EXTRA_NODES ? lo + 49999 : PSIPLACE_EXTRA_NODES))
      echo "NodeName=x[$lo-$hi] NodeAddr=127.0.0.1 Port=$((p + 6)) Sockets=2 CoresPerSocket=8 RealMemory=1000 State=${PSIPLACE_EXTRA_STATE:-UNKNOWN}" >>"$conf"
      xs="$xs,x[$lo-$hi]"
    done
    echo "PartitionName=scale Nodes=$nodes$xs Default=NO MaxTime=INFINITE State=UP" >>"$conf"
  fi
  echo "PartitionName=debug Nodes=$nodes Default=YES MaxTime=INFINITE State=UP ${PSIPLACE_PARTITION_ARGS:-}" >>"$conf"
  local part pargs
  for part in ${PSIPLACE_PARTITIONS:-}; do
    pargs=PSIPLACE_PARTITION_ARGS_$part
    echo "PartitionName=$part Nodes=$nodes Default=NO MaxTime=INFINITE State=UP ${!pargs:-}" >>"$conf"
  done
  power_save_config
  topology_config
  accounting_config
  if [ -z "${PSIPLACE_NODE_TABLE:-}" ]; then
    echo "NodeName=n[2-3] Name=gpu File=$dir/gpu/gpu[0-1]" >"$dir/etc/gres.conf"
  else
    local e name cpus sockets gpu
    : >"$dir/etc/gres.conf"
    for e in $PSIPLACE_NODE_TABLE; do
      IFS=: read -r name cpus sockets gpu <<<"$e"
      [ -n "$gpu" ] || continue
      echo "NodeName=$name Name=gpu File=$dir/gpu/gpu0 Cores=0-$((cpus / ${sockets:-1} - 1))" >>"$dir/etc/gres.conf"
    done
  fi
  plugstack_line "$so" >"$dir/etc/plugstack.conf"
  cat >"$dir/etc/psiplace.conf" <<CONF
# per-node attributes Slurm lacks (see doc/psiplace.8)
MetricsFile=$dir/etc/metrics
NodeName=n1 Speed=1.0 Priority=10 ChargeRate=1.0
NodeName=n2 Speed=2.0 Priority=20 ChargeRate=2.0
NodeName=n3 Speed=3.0 Priority=5 ChargeRate=3.0
NodeName=n4 Speed=0.5 Priority=1 ChargeRate=0.5
CONF
  # hwloc topologies of the fake nodes as declared, for TopologyFile=.../%n.xml
  # (dry runs); n5, declared like the machine, has none: its real one is used.
  mkdir -p "$dir/etc/topo"
  lstopo -f --input "pack:1 core:4 pu:1" --of xml "$dir/etc/topo/n1.xml" 2>/dev/null
  lstopo -f --input "pack:2 core:4 pu:1" --of xml "$dir/etc/topo/n2.xml" 2>/dev/null
  lstopo -f --input "pack:2 core:8 pu:1" --of xml "$dir/etc/topo/n3.xml" 2>/dev/null
  lstopo -f --input "pack:2 core:6 pu:1" --of xml "$dir/etc/topo/n4.xml" 2>/dev/null
  [ -z "${PSIPLACE_PSICONF_EXTRA:-}" ] || printf '%s\n' "$PSIPLACE_PSICONF_EXTRA" >>"$dir/etc/psiplace.conf"
  : >"$dir/etc/metrics"
  for n in $(node_names); do echo "$n load1=0 load5=0 load15=0" >>"$dir/etc/metrics"; done
}

# The node lines of slurm.conf: n1..n4, or PSIPLACE_NODE_TABLE's nodes.
node_lines() {
  local p=$1 e i=0 name cpus sockets gpu
  if [ -z "${PSIPLACE_NODE_TABLE:-}" ]; then
    cat <<LINES
NodeName=n1 NodeHostname=$host NodeAddr=127.0.0.1 Port=$((p + 1)) Sockets=1 CoresPerSocket=4 RealMemory=2000 TmpDisk=50 Features=arm
NodeName=n2 NodeHostname=$host NodeAddr=127.0.0.1 Port=$((p + 2)) Sockets=2 CoresPerSocket=4 RealMemory=8000 TmpDisk=200 Features=intel,gpu Gres=gpu:2
NodeName=n3 NodeHostname=$host NodeAddr=127.0.0.1 Port=$((p + 3)) Sockets=2 CoresPerSocket=8 RealMemory=16000 TmpDisk=400 Features=amd,gpu,fast Gres=gpu:2
NodeName=n4 NodeHostname=$host NodeAddr=127.0.0.1 Port=$((p + 4)) Sockets=2 CoresPerSocket=6 RealMemory=4000 TmpDisk=100 Features=intel,fast
LINES
    return
  fi
  for e in $PSIPLACE_NODE_TABLE; do
    i=$((i + 1))
    [ "$i" -le 39 ] || die "PSIPLACE_NODE_TABLE: at most 39 nodes"
    IFS=: read -r name cpus sockets gpu <<<"$e"
    sockets=${sockets:-1}
    echo "NodeName=$name NodeHostname=$host NodeAddr=127.0.0.1 Port=$((20000 + 40 * instance + i)) Sockets=$sockets CoresPerSocket=$((cpus / sockets)) RealMemory=1000${gpu:+ Gres=gpu:1}"
  done
}

power_save() { [ "${PSIPLACE_POWER_SAVE:-0}" = 1 ]; }

# topology.conf and TopologyPlugin for PSIPLACE_TOPOLOGY (slurm.conf's
# directory is where every release looks for topology.conf).
topology_config() {
  local t=${PSIPLACE_TOPOLOGY:-} f=$dir/etc/topology.conf
  rm -f "$f" "$dir/etc/topology.yaml"
  case $t in
    ''|none) return 0 ;;
    tree)
      {
        echo "SwitchName=s1 Nodes=n[1-2]"
        echo "SwitchName=s2 Nodes=n[3-4]"
        if [ "${PSIPLACE_REAL_NODE:-0}" = 1 ]; then
          echo "SwitchName=s3 Nodes=n5"
          echo "SwitchName=root Switches=s[1-3]"
        else
          echo "SwitchName=root Switches=s[1-2]"
        fi
      } >"$f"
      echo "TopologyPlugin=topology/tree" >>"$conf" ;;
    block)
      [ "$release" != 22.05 ] || die "PSIPLACE_TOPOLOGY=block needs Slurm 23.11+ (topology/block); this testbed is $release"
      [ "${PSIPLACE_REAL_NODE:-0}" = 1 ] && die "PSIPLACE_TOPOLOGY=block: n5 would make a block smaller than BlockSizes' base (2)"
      printf '%s\n' "BlockName=b1 Nodes=n[1-2]" "BlockName=b2 Nodes=n[3-4]" "BlockSizes=2,4" >"$f"
      echo "TopologyPlugin=topology/block" >>"$conf" ;;
    yaml)
      # Per-partition topologies (25.05+): the tree above, the cluster
      # default, and a block topology `blk` that groups the nodes the other
      # way (b1: n1,n3; b2: n2,n4) for partitions with Topology=blk.
      [ "$release" = 26.05 ] || die "PSIPLACE_TOPOLOGY=yaml needs Slurm 25.05+ (topology.yaml); this testbed is $release"
      [ "${PSIPLACE_REAL_NODE:-0}" = 1 ] && die "PSIPLACE_TOPOLOGY=yaml: n5 is in no topology of the testbed's topology.yaml"
      cat >"$dir/etc/topology.yaml" <<'YAML'
- topology: tree
  cluster_default: true
  tree:
    switches:
      - switch: s1
        nodes: n[1-2]
      - switch: s2
        nodes: n[3-4]
      - switch: root
        children: s[1-2]
- topology: blk
  block:
    block_sizes:
      - 2
    blocks:
      - block: b1
        nodes: n[1,3]
      - block: b2
        nodes: n[2,4]
YAML
      ;;
    *) die "PSIPLACE_TOPOLOGY='$t' is not a topology; accepted: tree, block, yaml, none" ;;
  esac
}

# ---------------------------------------------------------------- accounting
# PSIPLACE_ACCOUNTING=dbd: MariaDB and slurmdbd of this instance only (no
# system service, no system file touched: --no-defaults everywhere).
accounting_mode=${PSIPLACE_ACCOUNTING:-none}
case $accounting_mode in
  none|dbd) ;;
  *) echo "cluster.sh: PSIPLACE_ACCOUNTING='$accounting_mode' is not an accounting mode; accepted: none, dbd" >&2; exit 2 ;;
esac
accounting() { [ "$accounting_mode" = dbd ]; }
db_dir=$dir/db
db_sock=$db_dir/mysqld.sock
db_port=$((base_port + 8))
dbd_port=$((base_port + 7))
# Small and fast: a throw-away database (InnoDB log not flushed per commit).
db_opts=(--innodb-buffer-pool-size=64M --innodb-log-file-size=16M --innodb-flush-log-at-trx-commit=0)

# Why this release cannot store accounting (nothing when it can).
accounting_missing() {
  [ -f "$plugin_dir_sys/accounting_storage_mysql.so" ] && return 0
  if [ "$release" = 22.05 ]; then
    echo "no accounting_storage_mysql.so in $plugin_dir_sys: install Debian's slurmdbd (cluster.sh deps)"
  else
    echo "Slurm $release's prefix has no accounting_storage/mysql in $plugin_dir_sys, so its slurmdbd cannot store QOS (Debian's slurmdbd 22.05 cannot serve a $release slurmctld): add it with PSIPLACE_SLURM=$release cluster.sh slurm-src (slurm-release.sh prefix; needs libmariadb-dev, cluster.sh deps)"
  fi
}

cmd_accounting_support() {
  local why; why=$(accounting_missing)
  [ -z "$why" ] || { echo "$why"; exit 1; }
}

# start: refuse before anything is built or started.
accounting_preflight() {
  accounting || return 0
  local why; why=$(accounting_missing)
  [ -z "$why" ] || die "PSIPLACE_ACCOUNTING=dbd: $why"
  command -v mariadbd >/dev/null && command -v mariadb-install-db >/dev/null \
    || die "PSIPLACE_ACCOUNTING=dbd: mariadbd missing (install mariadb-server: cluster.sh deps)"
  [ -x "$slurmdbd_bin" ] || die "PSIPLACE_ACCOUNTING=dbd: $slurmdbd_bin missing (cluster.sh deps)"
}

accounting_slurm_conf() {
  if ! accounting; then echo "AccountingStorageType=accounting_storage/none"; return; fi
  echo "AccountingStorageType=accounting_storage/slurmdbd"
  echo "AccountingStorageHost=127.0.0.1"
  echo "AccountingStoragePort=$dbd_port"
  # the munge socket of connections to slurmdbd (AuthInfo is not used there)
  echo "AccountingStoragePass=$dir/munge/munge.socket"
  echo "AccountingStorageEnforce=associations,limits,qos"
}

# etc/slurmdbd.conf (beside slurm.conf, where slurmdbd looks: SLURM_CONF's
# directory); slurmdbd refuses it unless its mode is 600.  The database
# password is made here, for this start only.
accounting_config() {
  local f=$dir/etc/slurmdbd.conf
  rm -f "$f"
  accounting || return 0
  local pass; pass=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
  (umask 077; cat >"$f" <<CONF
# slurmdbd of psiplace testbed instance $instance (generated by contrib/testbed/cluster.sh)
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
DbdHost=$host
DbdAddr=127.0.0.1
DbdPort=$dbd_port
SlurmUser=root
PidFile=$dir/run/slurmdbd.pid
LogFile=$dir/log/slurmdbd.log
DebugLevel=info
PluginDir=$plugin_dir_sys
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$db_port
StorageUser=slurm
StoragePass=$pass
StorageLoc=slurm_acct_db
CONF
  )
  chmod 600 "$f"
}

db_up() { mariadb-admin --no-defaults --socket="$db_sock" -uroot ping >/dev/null 2>&1; }
dbd_up() { sacctmgr -n -P show cluster format=cluster >/dev/null 2>&1; }

# MariaDB, slurmdbd, then the records slurmctld needs at its start.
start_accounting() {
  accounting || return 0
  local pass
  accounting_preflight
  rm -rf "$db_dir"; mkdir -p "$db_dir"
  # No systemd here: mariadbd runs as a child of this script, as root
  # (--user=root, which it otherwise refuses), on a private datadir.
  mariadb-install-db --no-defaults --datadir="$db_dir/data" --user=root \
      --auth-root-authentication-method=socket --skip-test-db --skip-name-resolve "${db_opts[@]}" \
      >"$dir/log/mariadb-install-db.log" 2>&1 \
    || { grep -i -m 5 -E '\[error\]|error:|fatal' "$dir/log/mariadb-install-db.log" >&2
         tail -n 20 "$dir/log/mariadb-install-db.log" >&2; die "mariadb-install-db failed"; }
  spawn mariadbd mariadbd --no-defaults --datadir="$db_dir/data" --socket="$db_sock" \
    --port="$db_port" --bind-address=127.0.0.1 --pid-file="$dir/run/mariadbd.pid" \
    --log-error="$dir/log/mariadbd.log" --user=root --skip-name-resolve --skip-log-bin "${db_opts[@]}"
  wait_daemon mariadbd 60 "" db_up
  pass=$(sed -n 's/^StoragePass=//p' "$dir/etc/slurmdbd.conf")
  mariadb --no-defaults --socket="$db_sock" -uroot -e \
    "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$pass'; GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';" \
    || die "creating the database user slurm failed"
  spawn slurmdbd "$slurmdbd_bin" -D
  # The first start creates the tables (some seconds).
  wait_daemon slurmdbd 120 "" dbd_up
  local c=psiplace$instance
  sacctmgr_do add cluster "$c"
  sacctmgr_do add qos low Description=testbed-low
  sacctmgr_do add qos high Description=testbed-high Preempt=low
  sacctmgr_do add account psiplace Cluster="$c" Description=testbed Organization=psiplace
  sacctmgr_do add user root Account=psiplace Cluster="$c"
  sacctmgr_do modify user root set DefaultAccount=psiplace QOS=normal,low,high
}

# A slurmdbd upgrade in place: the running one stopped (slurmctld queues
# its records meanwhile), the database dumped, this release's started on the
# same database.  The first start of a newer slurmdbd converts the tables
# (seconds on a testbed) before it answers.
cmd_stop_dbd() { accounting || die "instance $instance runs without slurmdbd (PSIPLACE_ACCOUNTING=dbd)"; stop_daemon slurmdbd; }
cmd_dump_db() { # FILE
  accounting || die "instance $instance runs without slurmdbd (PSIPLACE_ACCOUNTING=dbd)"
  [ -n "${1:-}" ] || die "dump-db: name the file to dump the accounting database into"
  mariadb-dump --no-defaults --socket="$db_sock" -uroot --single-transaction slurm_acct_db >"$1" \
    || die "dumping slurm_acct_db into $1 failed"
}
cmd_start_dbd() {
  accounting || die "instance $instance runs without slurmdbd (PSIPLACE_ACCOUNTING=dbd)"
  alive "$dir/pids/slurmdbd" && die "slurmdbd of instance $instance runs"
  local why; why=$(accounting_missing)
  [ -z "$why" ] || die "$why"
  sed -i "s|^PluginDir=.*|PluginDir=$plugin_dir_sys|" "$dir/etc/slurmdbd.conf"
  local lines; lines=$(wc -l <"$dir/log/slurmdbd.log" 2>/dev/null || echo 0)
  spawn slurmdbd "$slurmdbd_bin" -D
  # its own line, not a client's answer: this release's clients cannot read
  # a slurm.conf whose PluginDir still names the older release's plugins
  # (the other daemons' upgrade comes after slurmdbd's)
  wait_daemon slurmdbd 180 " after start on the existing database" dbd_started "$lines"
}
dbd_started() { tail -n +"$(($1 + 1))" "$dir/log/slurmdbd.log" 2>/dev/null | grep -q 'slurmdbd version .* started'; }

# sacctmgr -i, failing loudly (sacctmgr prints its error on stdout).
sacctmgr_do() {
  local out
  out=$(sacctmgr -i "$@" 2>&1) || die "sacctmgr $*: $out"
}

# slurm.conf lines and the two programs for power saving (every release: a
# resumed node is POWERING_UP until its slurmd registers with a boot time
# after the resume request, at most ResumeTimeout; a suspended one
# POWERING_DOWN for SuspendTimeout).
power_save_config() {
  power_save || return 0
  local r=$dir/etc/resume.sh s=$dir/etc/suspend.sh
  # slurmctld closes every descriptor and passes only SLURM_CONF: the
  # programs set PATH and log to a file themselves.
  cat >"$r" <<PROG
#!/bin/bash
# ResumeProgram of testbed instance $instance: start slurmd -N for each node
# (-b: report a boot now, or slurmctld waits for one until ResumeTimeout).
export PATH=$PATH
exec >>"$dir/log/power.out" 2>&1
# slurmctld (24.11+ at least) kills the program's process group when it
# exits: wait until each slurmd has left it (its PID file is written after
# setsid), at most 10 s.
nodes=\$(scontrol show hostnames "\$1")
for n in \$nodes; do
  echo "resume \$n" >>"$dir/log/power.log"
  mkdir -p "$dir/spool/\$n" "$dir/tmp/\$n" "$dir/pids"
  # a slurmd of this node still recorded (a suspend's TERM not done yet, or
  # a node marked down at ResumeTimeout): ended first, by its PID, so that
  # the new one can bind the port and none is left unrecorded
  p=\$(cat "$dir/pids/slurmd-\$n" 2>/dev/null) || p=
  if [ -n "\$p" ] && kill -0 "\$p" 2>/dev/null; then
    kill -TERM "\$p" 2>/dev/null
    end=\$((SECONDS + 5))
    while kill -0 "\$p" 2>/dev/null && [ \$SECONDS -lt \$end ]; do sleep 0.05; done
    kill -KILL "\$p" 2>/dev/null
  fi
  rm -f "$dir/pids/slurmd-\$n"
  setsid bash -c 'echo \$\$ >"\$0"; exec "\$@"' "$dir/pids/slurmd-\$n" \\
    slurmd -b -D -N "\$n" -f "$conf" </dev/null >>"$dir/log/slurmd-\$n.out" 2>&1 &
done
deadline=\$((SECONDS + 10))
for n in \$nodes; do
  until [ -s "$dir/pids/slurmd-\$n" ]; do
    [ \$SECONDS -lt \$deadline ] || { echo "resume: slurmd of \$n did not start"; exit 1; }
    sleep 0.05
  done
done
exit 0
PROG
  cat >"$s" <<PROG
#!/bin/bash
# SuspendProgram of testbed instance $instance: stop the slurmd the
# ResumeProgram or start recorded for each node, by that PID only.
export PATH=$PATH
exec >>"$dir/log/power.out" 2>&1
for n in \$(scontrol show hostnames "\$1"); do
  echo "suspend \$n" >>"$dir/log/power.log"
  f="$dir/pids/slurmd-\$n"
  p=\$(cat "\$f" 2>/dev/null) || continue
  # the record stays until the process is gone (SuspendTimeout is 5 s):
  # otherwise a slow exit would leave a slurmd that stop cannot find
  if [ -n "\$p" ]; then
    kill -TERM "\$p" 2>/dev/null
    end=\$((SECONDS + 4))
    while kill -0 "\$p" 2>/dev/null && [ \$SECONDS -lt \$end ]; do sleep 0.05; done
    kill -KILL "\$p" 2>/dev/null
  fi
  rm -f "\$f"
done
exit 0
PROG
  chmod 755 "$r" "$s"
  cat >>"$conf" <<CONF
ResumeProgram=$r
SuspendProgram=$s
SuspendTime=${PSIPLACE_SUSPEND_TIME:-60}
SuspendTimeout=5
ResumeTimeout=60
ResumeRate=0
SuspendRate=0
SlurmctldParameters=power_save_interval=1,power_save_min_interval=0,idle_on_node_suspend
CONF
}

# Power down PSIPLACE_POWER_DOWN and wait until each is idle~ (powered down).
power_down_start_nodes() {
  power_save || return 0
  local nodes=${PSIPLACE_POWER_DOWN-n3 n4} n deadline=$((SECONDS + 60)) got want
  [ -n "$nodes" ] || return 0
  scontrol update NodeName="$(echo $nodes | tr ' ' ,)" State=POWER_DOWN
  want=$(echo $nodes | wc -w)
  while :; do
    got=0
    for n in $nodes; do
      sinfo -h -n "$n" -o '%t' 2>/dev/null | grep -qx 'idle~' && got=$((got + 1))
    done
    [ "$got" -eq "$want" ] && break
    [ $SECONDS -lt $deadline ] || { sinfo -N >&2; log_tail; die "nodes $nodes not idle~ after 60 s"; }
    sleep 0.2
  done
}

node_names() {
  local n="n1 n2 n3 n4" e
  if [ -n "${PSIPLACE_NODE_TABLE:-}" ]; then
    n=""
    for e in $PSIPLACE_NODE_TABLE; do n="$n ${e%%:*}"; done
    n=${n# }
  fi
  [ "${PSIPLACE_REAL_NODE:-0}" = 1 ] && n="$n n5"
  echo "$n"
}

# Start CMD in its own session, recording its real PID in pids/NAME.
spawn() {
  local name=$1; shift
  mkdir -p "$dir/pids"
  setsid bash -c 'echo $$ >"$0"; exec "$@"' "$dir/pids/$name" "$@" \
    </dev/null >>"$dir/log/$name.out" 2>&1 &
  local deadline=$((SECONDS + 10))
  until [ -s "$dir/pids/$name" ]; do
    [ $SECONDS -lt $deadline ] || die "$name did not start"
    sleep 0.05
  done
}

alive() { local p; p=$(cat "$1" 2>/dev/null) && [ -n "$p" ] && kill -0 "$p" 2>/dev/null; }

log_tail() {
  local f
  for f in "$dir"/log/*.log "$dir"/log/*.out; do
    [ -s "$f" ] || continue
    echo "==> $f <==" >&2; tail -n 15 "$f" >&2
  done
}

# Poll until every node is idle (deadline), else fail with the log tail.
wait_idle() {
  local want deadline=$((SECONDS + ${1:-60})) got
  want=$(node_names | wc -w)
  while :; do
    got=$(sinfo -h -N -p debug -o '%N %t' 2>/dev/null | awk '$2=="idle" || $2=="idle~"' | sort -u | wc -l)
    [ "$got" -ge "$want" ] && return 0
    if [ $SECONDS -ge $deadline ]; then
      sinfo -N -p debug >&2 || true
      log_tail
      die "nodes not idle after ${1:-60}s ($got of $want)"
    fi
    sleep 0.2
  done
}

# Poll until the recorded slurmctld answers (30 s), failing with the log
# tail when it exits or stays silent; WHEN ends the messages.
ctld_up() { scontrol ping 2>/dev/null | grep -q UP; }
wait_ctld() { wait_daemon slurmctld "${PSIPLACE_CTLD_WAIT:-30}" "$1" ctld_up; }

# Poll CHECK... until it succeeds; fail with the log tail when the recorded
# daemon NAME exits or after SECONDS.  WHEN ends the messages.
wait_daemon() { # NAME SECONDS WHEN CHECK...
  local name=$1 secs=$2 when=$3 deadline
  shift 3
  deadline=$((SECONDS + secs))
  until "$@"; do
    alive "$dir/pids/$name" || { log_tail; die "$name exited$when (see $dir/log/$name.log)"; }
    [ $SECONDS -lt $deadline ] || { log_tail; die "$name not answering$when after $secs s"; }
    sleep 0.1
  done
}

cmd_start() {
  if [ -d "$dir/pids" ] && ls "$dir"/pids/* >/dev/null 2>&1; then
    for f in "$dir"/pids/*; do
      alive "$f" && die "instance $instance already runs ($dir); stop it first"
    done
  fi
  command -v slurmctld >/dev/null || die "slurmctld missing (run: cluster.sh deps)"
  rm -rf "$dir/state" "$dir/spool" "$dir/log" "$dir/run" "$dir/pids" "$dir/munge" "$dir/tmp" "$dir/db"
  write_config
  mkdir -p "$dir/spool" "$dir/log" "$dir/run" "$dir/munge"
  # One TmpFS per node: slurmd's PMIx plugin keeps per-node files there, and
  # nodes sharing one directory break multi-node PMIx steps (PSETS.md).
  for n in $(node_names); do mkdir -p "$dir/spool/$n" "$dir/tmp/$n"; done
  chmod 700 "$dir/munge"
  mungekey --create --keyfile="$dir/munge/munge.key" >/dev/null 2>&1 \
    || dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
  chmod 600 "$dir/munge/munge.key"
  spawn munged munged --foreground --force --key-file="$dir/munge/munge.key" \
    --socket="$dir/munge/munge.socket" --pid-file="$dir/munge/munged.pid" \
    --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munge.seed" --num-threads=10
  local deadline=$((SECONDS + 10))
  until munge -n -S "$dir/munge/munge.socket" 2>/dev/null | unmunge -S "$dir/munge/munge.socket" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || { log_tail; die "munged not answering"; }
    sleep 0.05
  done
  start_accounting
  spawn slurmctld slurmctld -D -i -f "$conf"
  wait_ctld ""
  for n in $(node_names); do
    spawn "slurmd-$n" slurmd -D -N "$n" -f "$conf"
  done
  wait_idle 60
  if malleabled; then
    # shellcheck disable=SC2086  # further arguments, split on purpose
    spawn malleabled "$(malleabled_bin)" --foreground ${PSIPLACE_MALLEABLED_ARGS:-}
  fi
  power_down_start_nodes
  log "up: Slurm $(slurmctld -V | awk '{print $2}'), $(node_names | wc -w) nodes idle, SLURM_CONF=$conf"
  guard
}

# PSIPLACE_STOP_WITH=PID (the tests' lib.sh sets it to the test's PID): a
# guardian in a session of its own ends the daemons this start recorded
# once PID has ended, however it ended.  A test that meson's timeout ends
# (SIGTERM to its process group, SIGKILL 0.5 s later) may never reach its
# EXIT trap: it waits in a foreground command such as srun, which takes
# longer than that to end.  Only the PIDs recorded now are ended, so a later
# start of the same instance (the next test) is never touched; then the
# instance's jobs' stepds and processes (stop-jobs), of those only the
# stepds started before the guardian last saw PID alive: the next test's
# cannot be among them.
guard() {
  [ -n "${PSIPLACE_STOP_WITH:-}" ] || return 0
  local f p ids=()
  # each daemon as PID:STARTTIME (/proc/PID/stat field 22): PIDs come round
  # again within minutes on a busy machine (pid_max 32768), and the
  # guardian must end this start's daemons only, never a later process
  # that got one of their PIDs
  for f in "$dir"/pids/*; do
    p=$(cat "$f" 2>/dev/null) || continue
    [ -n "$p" ] && [ -r "/proc/$p/stat" ] || continue
    ids+=("$p:$(awk '{ sub(/^.*\) /, ""); print $20 }' "/proc/$p/stat")")
  done
  [ ${#ids[@]} -gt 0 ] || return 0
  local test=$PSIPLACE_STOP_WITH
  [ -r "/proc/$test/stat" ] || return 0
  test=$test:$(awk '{ sub(/^.*\) /, ""); print $20 }' "/proc/$test/stat")
  setsid bash -c '
    same() { [ -r "/proc/${1%%:*}/stat" ] &&
      [ "$(awk "{ sub(/^.*\\) /, \"\"); print \$20 }" "/proc/${1%%:*}/stat" 2>/dev/null)" = "${1#*:}" ]; }
    # a supervisor: polls its test (the uptime read before each poll)
    while read -r up _ </proc/uptime && same "$1"; do seen=$up; sleep 1; done
    cl=$2 inst=$3; shift 3; left=()
    for id in "$@"; do same "$id" && kill -TERM "${id%%:*}" 2>/dev/null && left+=("$id"); done
    end=$((SECONDS + 10))
    while [ ${#left[@]} -gt 0 ] && [ $SECONDS -lt $end ]; do
      sleep 0.1; l=(); for id in "${left[@]}"; do same "$id" && l+=("$id"); done; left=("${l[@]}")
    done
    for id in "${left[@]}"; do same "$id" && kill -KILL "${id%%:*}" 2>/dev/null; done
    before=$(awk -v u="$seen" -v h="$(getconf CLK_TCK)" "BEGIN { printf \"%d\", u * h }")
    PSIPLACE_INSTANCE=$inst PSIPLACE_STOP_SESSION=1 "$cl" stop-jobs "$before"
    exit 0' _ "$test" "$here/cluster.sh" "$instance" "${ids[@]}" </dev/null >/dev/null 2>&1 &
}

# ---------------------------------------------------------------- jobs left
# A test that fails with a job still running leaves its slurmstepd and the
# job's processes behind when the daemons are stopped (slurmd does not end
# its stepds): the next test on the instance would find them.  The final
# stop ends them.  What tells this instance's stepds (all three releases,
# checked): each keeps its node's slurmd log ($dir/log/slurmd-NODE.log, the
# SlurmdLogFile) open, also after a new start removed it; 22.05's have
# SLURM_CONF in their environment, 24.11's and 26.05's a cleared one; their
# parent is not slurmd (PID 1 adopts them: slurmd forks twice) and their
# working directory is the submitter's, so neither tells them.  The name
# alone never does: other instances and a system Slurm run beside this one.

# PID's start, in clock ticks since boot (/proc/PID/stat field 22), or fails.
start_ticks() { awk '{ sub(/^.*\) /, ""); print $20 }' "/proc/$1/stat" 2>/dev/null; }
# PID is alive and not a zombie.
running() { local st; st=$(awk '{ sub(/^.*\) /, ""); print $1 }' "/proc/$1/stat" 2>/dev/null) && [ -n "$st" ] && [ "$st" != Z ]; }

# The slurmstepds of this instance (a file of $dir open), one PID a line;
# BEFORE (clock ticks since boot): only those started before it.
instance_stepds() { # [BEFORE]
  local p t
  for p in $( { pgrep -x slurmstepd || :; pgrep -f '^slurmstepd:' || :; } | sort -un); do
    [ -n "$(find "/proc/$p/fd" -mindepth 1 -lname "$dir/*" -print -quit 2>/dev/null)" ] || continue
    if [ -n "${1:-}" ]; then
      t=$(start_ticks "$p") || continue
      [ -n "$t" ] && [ "$t" -lt "$1" ] || continue
    fi
    echo "$p"
  done
}

# The stepds STEPD... and their jobs' processes, as PID:STARTTIME: every
# process of a stepd's session (slurmd starts each stepd in a session of its
# own and its tasks stay in it, each task in a process group of its own) and
# every process below those (a task that made a session of its own).
job_processes() { # STEPD...
  local own; own=$(ps -o sid= -p $$ | tr -d ' ')
  ps -e -o pid=,ppid=,sid= | awk -v want=" $* " -v own="$own" -v me=$$ '
    { pp[$1] = $2; sid[$1] = $3 }
    END {
      n = split(want, a, " ")
      for (i = 1; i <= n; i++) if (a[i] in sid) { keep[a[i]] = 1; s[sid[a[i]]] = 1 }
      delete s[own]; delete s[0]; delete s[1]
      for (p in pp) if (sid[p] in s) keep[p] = 1
      do { more = 0; for (p in pp) if (!(p in keep) && (pp[p] in keep)) { keep[p] = 1; more = 1 } } while (more)
      for (p in keep) if (p != me && p > 1) print p
    }' | while read -r p; do
      t=$(start_ticks "$p") && [ -n "$t" ] && echo "$p:$t"
    done
}

# ID (PID:STARTTIME) still runs: the same process, not a zombie.
same_running() { [ "$(start_ticks "${1%%:*}")" = "${1#*:}" ] && running "${1%%:*}"; }

# This instance's srun and salloc clients (SLURM_CONF names its slurm.conf),
# as PID:STARTTIME; BEFORE as for instance_stepds.  Once slurmctld is gone a
# client that is told to end (TERM) goes on for half a minute or more trying
# to cancel its step and complete its job, and when the instance's next
# start comes up on the same port within that time, it ends the new
# slurmctld's job of the same id (seen: the next test's srun step cancelled).
instance_clients() { # [BEFORE]
  local p t
  for p in $( { pgrep -x srun || :; pgrep -x salloc || :; } | sort -un); do
    { tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null | grep -qxF "SLURM_CONF=$conf" || continue
    t=$(start_ticks "$p") && [ -n "$t" ] || continue
    [ -z "${1:-}" ] || [ "$t" -lt "$1" ] || continue
    echo "$p:$t"
  done
}

# End this instance's stepds (started before BEFORE, when given), their
# jobs' processes and its srun and salloc clients: KILL to the stepds
# (nothing of a stopped instance can answer them, and they must start
# nothing more) and to the clients, TERM to the jobs' processes, KILL after
# 5 s (the testbed's KillWait), then check that every one is gone (5 s more)
# and no stepd of this instance is left.
cmd_stop_jobs() { # [BEFORE]
  local stepds ids=() clients=() id left l deadline n
  stepds=$(instance_stepds "${1:-}" | paste -sd' ')
  mapfile -t clients < <(instance_clients "${1:-}")
  [ -n "$stepds" ] || [ ${#clients[@]} -gt 0 ] || return 0
  # shellcheck disable=SC2086  # PIDs, split on purpose
  [ -z "$stepds" ] || mapfile -t ids < <(job_processes $stepds)
  for id in "${clients[@]}"; do same_running "$id" && kill -KILL "${id%%:*}" 2>/dev/null; done
  for id in "${ids[@]}"; do
    case " $stepds " in *" ${id%%:*} "*) same_running "$id" && kill -KILL "${id%%:*}" 2>/dev/null ;; esac
  done
  for id in "${ids[@]}"; do same_running "$id" && kill -TERM "${id%%:*}" 2>/dev/null; done
  left=("${ids[@]}") deadline=$((SECONDS + 5))
  while [ ${#left[@]} -gt 0 ] && [ $SECONDS -lt $deadline ]; do
    sleep 0.1; l=(); for id in "${left[@]}"; do same_running "$id" && l+=("$id"); done; left=("${l[@]}")
  done
  for id in "${left[@]}"; do same_running "$id" && kill -KILL "${id%%:*}" 2>/dev/null; done
  ids+=("${clients[@]}")
  deadline=$((SECONDS + 5))
  while :; do
    l=(); for id in "${ids[@]}"; do same_running "$id" && l+=("$id"); done
    [ ${#l[@]} -eq 0 ] && [ -z "$(instance_stepds "${1:-}")" ] && break
    if [ $SECONDS -ge $deadline ]; then
      log "error: still running 5 s after SIGKILL: ${l[*]:-no process of the jobs}; stepds: $(instance_stepds "${1:-}" | paste -sd' ')"
      return 1
    fi
    sleep 0.1
  done
  n=$(wc -w <<<"$stepds")
  log "ended $n slurmstepds, $((${#ids[@]} - n - ${#clients[@]})) processes of their jobs and ${#clients[@]} srun/salloc clients"
}

cmd_stop() {
  local pids=() f p
  [ -d "$dir/pids" ] || { log "nothing to stop"; cmd_stop_jobs; return; }
  for f in "$dir"/pids/*; do
    [ -f "$f" ] || continue
    p=$(cat "$f")
    [ -n "$p" ] && kill -0 "$p" 2>/dev/null && pids+=("$p")
  done
  if [ ${#pids[@]} -gt 0 ]; then
    kill -TERM "${pids[@]}" 2>/dev/null || true
    local deadline=$((SECONDS + 10)) left
    while :; do
      left=()
      for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && left+=("$p"); done
      [ ${#left[@]} -eq 0 ] && break
      if [ $SECONDS -ge $deadline ]; then
        kill -KILL "${left[@]}" 2>/dev/null || true
        break
      fi
      sleep 0.1
    done
  fi
  rm -rf "$dir/pids"
  log "stopped ${#pids[@]} daemons"
  # the daemons first: no slurmd starts a step any more
  cmd_stop_jobs
}

cmd_status() {
  local f rc=0
  if [ ! -d "$dir/pids" ]; then echo "instance $instance: not running ($dir)"; return 3; fi
  for f in "$dir"/pids/*; do
    if alive "$f"; then echo "$(basename "$f") running (pid $(cat "$f"))"
    else echo "$(basename "$f") NOT running"; rc=1; fi
  done
  sinfo -N -o '%N %t %c %m %f %G' 2>/dev/null || rc=1
  return $rc
}

cmd_env() {
  echo "export PSIPLACE_SLURM=$release"
  [ "$release" = 22.05 ] || echo "export PATH=$PATH"
  echo "export SLURM_CONF=$conf"
  echo "export PSIPLACE_TESTBED_DIR=$dir"
  echo "export PSIPLACE_METRICS=$dir/etc/metrics"
}

# Stop slurmctld with SIGNAL (default TERM), wait until it is gone, start it
# again on the saved state and wait until it answers (fault tests).
cmd_restart_ctld() {
  stop_daemon slurmctld "${1:-TERM}"
  spawn slurmctld slurmctld -D -f "$conf"
  wait_ctld " after restart"
}

cmd_restart_malleabled() {
  stop_daemon malleabled "${1:-TERM}"
  # shellcheck disable=SC2086  # further arguments, split on purpose
  spawn malleabled "$(malleabled_bin)" --foreground ${PSIPLACE_MALLEABLED_ARGS:-}
}

# Stop the recorded daemon NAME with SIGNAL (default TERM) and wait until it
# is gone (30 s).
stop_daemon() { # NAME [SIGNAL]
  local pid deadline sig=${2:-TERM}
  pid=$(cat "$dir/pids/$1" 2>/dev/null) || die "no $1 of instance $instance"
  kill -"$sig" "$pid" 2>/dev/null || true
  deadline=$((SECONDS + 30))
  while kill -0 "$pid" 2>/dev/null; do
    [ $SECONDS -lt $deadline ] || die "$1 ($pid) still runs 30 s after SIG$sig"
    sleep 0.05
  done
  rm -f "$dir/pids/$1"
}

# A change of SelectType in the documented order (doc/upgrade.md), in three
# steps a test can put checks between: slurmctld stopped on its saved state,
# every slurmd restarted on the edited configuration (running jobs' stepds
# go on), slurmctld started again.
cmd_stop_ctld() { stop_daemon slurmctld; }
cmd_restart_slurmds() {
  local n
  for n in $(node_names); do
    stop_daemon "slurmd-$n"
    spawn "slurmd-$n" slurmd -D -N "$n" -f "${PSIPLACE_SLURMD_CONF:-$conf}"
  done
}
cmd_stop_slurmds() {
  local n
  for n in $(node_names); do stop_daemon "slurmd-$n"; done
}
cmd_start_slurmds() {
  local n
  for n in $(node_names); do
    alive "$dir/pids/slurmd-$n" && die "slurmd-$n of instance $instance runs"
    spawn "slurmd-$n" slurmd -D -N "$n" -f "${PSIPLACE_SLURMD_CONF:-$conf}"
  done
}
cmd_install_plugins() {
  local path so
  [ -f "$conf" ] || die "instance $instance has no configuration (start it first)"
  path=$(plugin_path) && so=$(spank_so) || die "no plugins to install"
  [ -f "$so" ] || die "$so does not exist"
  sed -i "s|^PluginDir=.*|PluginDir=$path|" "$conf"
  sed -i -E "s#^(required|optional)[[:space:]]+[^[:space:]]*psiplace\.so#\1 $so#" "$dir/etc/plugstack.conf"
  grep -qF "$so" "$dir/etc/plugstack.conf" || die "plugstack.conf has no psiplace line to point at $so"
}
cmd_start_ctld() {
  alive "$dir/pids/slurmctld" && die "slurmctld of instance $instance runs"
  spawn slurmctld slurmctld -D -f "$conf"
  wait_ctld " after start on saved state"
}

# Lines the select plugin logs when it has (re)read its configuration: the
# site reader thread after a reconfigure in place (22.05-23.02), or the
# plugin's start in a re-executed slurmctld (23.11+).
conf_reads() {
  grep -cE 'psiplace_cons_tres: (configuration read again|keeping the previous configuration|psiplace .* loaded)' \
    "$dir/log/slurmctld.log" 2>/dev/null || true
}
conf_read_since() { [ "$(conf_reads)" -gt "$1" ]; }

# Rewrite the psiplace line's arguments and make slurmctld re-read it.
cmd_plugstack() {
  local so before; so=$(spank_so)
  PSIPLACE_POLICY=none PSIPLACE_PLUGSTACK_ARGS="$*" plugstack_line "$so" >"$dir/etc/plugstack.conf"
  before=$(conf_reads)
  scontrol reconfigure
  # From 23.11 a reconfigure re-executes slurmctld: wait until it answers
  # again and the nodes are back from "unknown" (1-2 s).
  wait_ctld " after reconfigure"
  # The plugin reads the files in a thread of its own: wait for its line.
  local deadline=$((SECONDS + 30))
  until conf_read_since "$before"; do
    [ $SECONDS -lt $deadline ] || { log_tail; die "the select plugin did not read its configuration within 30 s"; }
    sleep 0.1
  done
  wait_idle 30
}

case ${1:-} in
  deps) cmd_deps ;;
  slurm-src) cmd_slurm_src ;;
  build-dir) default_build_dir ;;
  start) use_release_prefix build; accounting_preflight; ensure_built; cmd_start ;;
  # stop runs in a session of its own: a caller ended by meson's timeout
  # (SIGTERM to its process group, then SIGKILL 0.5 s later) or by CI
  # cannot take it down half-way, so every recorded daemon is ended.
  stop) [ -n "${PSIPLACE_STOP_SESSION:-}" ] || PSIPLACE_STOP_SESSION=1 exec setsid -w "$0" stop
        cmd_stop ;;
  stop-jobs) [ -n "${PSIPLACE_STOP_SESSION:-}" ] || PSIPLACE_STOP_SESSION=1 exec setsid -w "$0" "$@"
        shift; cmd_stop_jobs "$@" ;;
  status) use_release_prefix; cmd_status ;;
  env) use_release_prefix; cmd_env ;;
  plugstack) use_release_prefix; shift; cmd_plugstack "$@" ;;
  restart-ctld) use_release_prefix; shift; cmd_restart_ctld "$@" ;;
  restart-malleabled) use_release_prefix; shift; cmd_restart_malleabled "$@" ;;
  stop-ctld) use_release_prefix; cmd_stop_ctld ;;
  restart-slurmds) use_release_prefix; cmd_restart_slurmds ;;
  start-ctld) use_release_prefix; cmd_start_ctld ;;
  stop-slurmds) use_release_prefix; cmd_stop_slurmds ;;
  start-slurmds) use_release_prefix; cmd_start_slurmds ;;
  install-plugins) use_release_prefix; cmd_install_plugins ;;
  stop-dbd) use_release_prefix; cmd_stop_dbd ;;
  dump-db) use_release_prefix; shift; cmd_dump_db "$@" ;;
  start-dbd) use_release_prefix; cmd_start_dbd ;;
  accounting-support) use_release_prefix; cmd_accounting_support ;;
  *) awk 'NR > 1 && /^#/ {sub(/^# ?/, ""); print; next} NR > 1 {exit}' "$0"; exit 2 ;;
esac
