#!/usr/bin/env bash
# The main scheduler on real nodes: BENCH_NODES (128) real `slurmd -N` on
# this host and a stream of BENCH_JOBS (2,000) short batch jobs of 1-16
# nodes, select/psiplace_cons_tres against select/cons_tres.  Prints
# `bench:` lines.
#
# One testbed of its own (instance BENCH_INSTANCE, default 50: directory
# /tmp/psiplace-realnodes-N, slurmctld port 17000 + 20 * N as cluster.sh,
# the slurmd ports 20000 + 300 * (N % 40) + i, one per node line by a port
# range), one set of nodes for both sides: slurmctld and the slurmd
# restarted with SelectType switched for each measurement (state wiped:
# each starts from the same idle machine; slurmd must run slurmctld's
# select plugin).  The nodes: r[1-N], CPUs=2 (1 socket, 2 cores) and
# RealMemory=100 each; proctrack/pgid, task/none, jobacct_gather/none,
# MpiDefault=none: nothing per job that costs beyond a fork.
# What keeps the slurmd cheap: SlurmdTimeout=300 (slurmctld pings a node
# every 100 s, and only one that has not talked to it for 100 s; a node
# ending jobs talks), MessageTimeout=10 (Slurm's default), TreeWidth=
# BENCH_NODES (slurmctld talks to every node itself: with Slurm's 50 the
# slurmd on this host would forward each other's messages), SlurmdDebug=
# error.  The cost of each slurmd (RSS, and CPU over BENCH_IDLE seconds, 60,
# of an idle machine) is measured and printed.
#
# A measurement (one side): slurmctld started on the side's SelectType,
# every node idle; the partition is DOWN while the BENCH_JOBS jobs are
# submitted (the same generated list, fixed seed, in the same order on
# both sides: sizes of 1-BENCH_MAX_NODES nodes, log-uniform, --exclusive,
# -t 1, `--wrap true`: the batch script runs on the first node, and
# slurmctld ends the job on all of them), `sdiag -r`, then the partition UP
# and the clock and slurmctld's CPU (/proc/PID/stat) start; sdiag is
# polled (0.2 s) until "Jobs started" reaches BENCH_JOBS (the rate: jobs /
# that time) and "Jobs completed" does (the CPU: slurmctld's utime + stime
# from UP to then, per job: it includes scheduling, launching and ending
# each job, which is what a decision costs slurmctld on real nodes).
# sdiag's "Main schedule statistics" (mean and max cycle, cycles, mean
# depth) and backfill's started jobs are read at the end.
# Epilog=/bin/true (BENCH_EPILOG) and SchedulerParameters=
# batch_sched_delay=0 (BENCH_SCHED_PARAMS): without an epilog a job's end
# reaches the main scheduler only through the nodes' answers to the
# terminate request, which queue a request that slurmctld's background
# thread serves after batch_sched_delay (3 s by default) on its 1-s tick:
# every stream then ran in waves 3 s (with 0: 1 s) apart on both sides, 5
# jobs/s on 16 nodes, a figure of the tick rather than of the scheduler.
# With an epilog (as most sites have) each node's epilog-complete RPC calls
# the scheduler at once: 22 jobs/s.  Otherwise Slurm's defaults
# (sched/backfill, bf_interval=30, default_queue_depth=100,
# sched_min_interval=2 us).
# Figures: median of BENCH_REPEATS (3) with spread; a repetition measures
# A then B or B then A, alternating.
#
# Policy visibly applied (once per side, on the idle machine before the
# first stream): three 1-node jobs, one after the other, each holding its
# node until released; psiplace's node must be the one `psiplace rank`
# ranks first over the node table slurmctld has at that moment (cluster
# policy BENCH_POLICY, LASTAVAILABLE: r<N>, r<N-1>, ...), cons_tres's is
# printed (Slurm's index order: r1, r2, r3); a check line says whether
# psiplace's choices were rank's and differed from cons_tres's.
#
# Ending: every slurmd's PID is recorded (pids/slurmd-rK); they are sent
# TERM together, KILL after 20 s, and the bench checks that none is left.
# Environment: BENCH_NODES, BENCH_JOBS, BENCH_MAX_NODES (16), BENCH_REPEATS,
# BENCH_IDLE, BENCH_POLICY, BENCH_INSTANCE, BENCH_KEEP=1 (leave the testbed
# running: its PIDs are printed), PSIPLACE_BUILD_DIR.  22.05 only (the
# testbed's Debian packages).
set -euo pipefail
src=${PSIPLACE_SRC_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
source "$src/tests/bench/bench_lib.sh"
cluster=$src/contrib/testbed/cluster.sh
nodes=${BENCH_NODES:-128} jobs=${BENCH_JOBS:-2000} maxn=${BENCH_MAX_NODES:-16}
repeats=${BENCH_REPEATS:-3} idle=${BENCH_IDLE:-60} inst=${BENCH_INSTANCE:-50}
policy=${BENCH_POLICY:-LASTAVAILABLE}
for v in "$nodes" "$jobs" "$maxn" "$repeats" "$idle" "$inst"; do
  case $v in
    '' | *[!0-9]*) echo "bench_realnodes: BENCH_NODES, BENCH_JOBS, BENCH_MAX_NODES, BENCH_REPEATS, BENCH_IDLE, BENCH_INSTANCE: '$v' is not a number" >&2; exit 2 ;;
  esac
done
if [ "$nodes" -lt 4 ] || [ "$nodes" -gt 299 ] || [ "$maxn" -lt 1 ] || [ "$maxn" -gt "$nodes" ] ||
   [ "$jobs" -lt 1 ] || [ "$repeats" -lt 1 ] || [ "$inst" -gt 59 ]; then
  echo "bench_realnodes: BENCH_NODES 4..299, BENCH_MAX_NODES 1..BENCH_NODES, BENCH_JOBS and BENCH_REPEATS >= 1, BENCH_INSTANCE 0..59" >&2
  exit 2
fi
export PSIPLACE_SLURM=${PSIPLACE_SLURM:-22.05}
if [ "$PSIPLACE_SLURM" != 22.05 ]; then
  echo "bench_realnodes: 22.05 only (the testbed's Debian packages); PSIPLACE_SLURM=$PSIPLACE_SLURM" >&2
  exit 2
fi
rel=_slurm$PSIPLACE_SLURM
PSIPLACE_BUILD_DIR=${PSIPLACE_BUILD_DIR:-$("$cluster" build-dir)}
b=$PSIPLACE_BUILD_DIR
cli=$b/cli/psiplace
for f in "$b/plugins/select/select_psiplace_cons_tres.so" "$b/plugins/spank/psiplace.so" "$cli"; do
  [ -f "$f" ] || { echo "bench_realnodes: $f missing (build first: contrib/build.sh)" >&2; exit 1; }
done

dir=/tmp/psiplace-realnodes-$inst
ctld_port=$((17000 + 20 * inst))
port0=$((20000 + 300 * (inst % 40)))
host=$(hostname -s)
conf=$dir/etc/slurm.conf
export SLURM_CONF=$conf
tick=$(getconf CLK_TCK)
tree_width=$nodes slurmd_timeout=300 msg_timeout=10
sched_params=${BENCH_SCHED_PARAMS-batch_sched_delay=0}
epilog=${BENCH_EPILOG-/bin/true}

# ---------------------------------------------------------------- testbed
# Start CMD in its own session, its real PID in pids/NAME (not waited for).
spawn() {
  local name=$1; shift
  setsid bash -c 'echo $$ >"$0.tmp" && mv "$0.tmp" "$0"; exec "$@"' "$dir/pids/$name" "$@" \
    </dev/null >>"$dir/log/$name.out" 2>&1 &
}
wait_pidfile() { # NAME
  local deadline=$((SECONDS + 30))
  until [ -s "$dir/pids/$1" ]; do
    [ $SECONDS -lt $deadline ] || { echo "bench_realnodes: $1 did not start" >&2; exit 1; }
    sleep 0.05
  done
}
pid_of() { cat "$dir/pids/$1" 2>/dev/null; }
sc() { timeout 60 "$@"; }

write_config() { # SelectType
  cat >"$conf" <<CONF
# bench_realnodes testbed (instance $inst), generated
ClusterName=realnodes$inst
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$((port0 + 1))
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
SlurmctldDebug=${BENCH_CTLD_DEBUG:-info}
SlurmdDebug=error
TmpFS=$dir/tmp
PluginDir=$b/plugins/select:$b/plugins/spank:/usr/lib/x86_64-linux-gnu/slurm-wlm
PlugStackConfig=$dir/etc/plugstack.conf
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
MailProg=/bin/true
SchedulerType=sched/backfill
${sched_params:+SchedulerParameters=$sched_params}
${epilog:+Epilog=$epilog}
SelectType=$1
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
SlurmdTimeout=$slurmd_timeout
MessageTimeout=$msg_timeout
TreeWidth=$tree_width
InactiveLimit=0
KillWait=5
MaxJobCount=$((jobs + 1000))
NodeName=r[1-$nodes] NodeHostname=$host NodeAddr=127.0.0.1 Port=[$((port0 + 1))-$((port0 + nodes))] CPUs=2 Sockets=1 CoresPerSocket=2 ThreadsPerCore=1 RealMemory=100 State=UNKNOWN
PartitionName=rn Nodes=r[1-$nodes] Default=YES MaxTime=INFINITE State=UP
CONF
}

port_free() { ! ss -Htln "sport = :$1" | grep -q .; }

setup() {
  local p k
  for ((p = port0 + 1; p <= port0 + nodes; p++)); do
    port_free "$p" || { echo "bench_realnodes: port $p is in use (another instance $inst?)" >&2; exit 1; }
  done
  port_free "$ctld_port" || { echo "bench_realnodes: port $ctld_port is in use" >&2; exit 1; }
  if [ -d "$dir/pids" ] && ls "$dir"/pids/* >/dev/null 2>&1; then
    for p in "$dir"/pids/*; do
      kill -0 "$(cat "$p")" 2>/dev/null && { echo "bench_realnodes: $dir runs ($p); stop it first" >&2; exit 1; }
    done
  fi
  rm -rf "$dir"
  mkdir -p "$dir"/{etc,state,spool,log,run,munge,tmp,pids,work}
  for ((k = 1; k <= nodes; k++)); do mkdir -p "$dir/spool/r$k"; done
  echo "required $b/plugins/spank/psiplace.so NodeAllocationPolicy=$policy" >"$dir/etc/plugstack.conf"
  echo "# bench_realnodes: no per-node attributes (the policy needs none)" >"$dir/etc/psiplace.conf"
  chmod 700 "$dir/munge"
  mungekey --create --keyfile="$dir/munge/munge.key" >/dev/null 2>&1 ||
    dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
  chmod 600 "$dir/munge/munge.key"
  spawn munged munged --foreground --force --key-file="$dir/munge/munge.key" \
    --socket="$dir/munge/munge.socket" --pid-file="$dir/munge/munged.pid" \
    --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munge.seed" --num-threads=10
  wait_pidfile munged
  local deadline=$((SECONDS + 10))
  until munge -n -S "$dir/munge/munge.socket" 2>/dev/null | unmunge -S "$dir/munge/munge.socket" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || { echo "bench_realnodes: munged not answering" >&2; exit 1; }
    sleep 0.05
  done
}

# slurmctld on SelectType $1, fresh state, until every node is idle.
ctld_start() {
  local deadline
  rm -rf "$dir/state"; mkdir -p "$dir/state"
  write_config "$1"
  spawn slurmctld slurmctld -D -i -f "$conf"
  wait_pidfile slurmctld
  deadline=$((SECONDS + 60))
  until sc scontrol ping 2>/dev/null | grep -q UP; do
    kill -0 "$(pid_of slurmctld)" 2>/dev/null || { tail -20 "$dir/log/slurmctld.log" >&2; echo "bench_realnodes: slurmctld exited" >&2; exit 1; }
    [ $SECONDS -lt $deadline ] || { echo "bench_realnodes: slurmctld not answering" >&2; exit 1; }
    sleep 0.1
  done
}
slurmd_start_all() {
  local k
  for ((k = 1; k <= nodes; k++)); do spawn "slurmd-r$k" slurmd -D -N "r$k" -f "$conf"; done
  for ((k = 1; k <= nodes; k++)); do wait_pidfile "slurmd-r$k"; done
}
idle_count() { sc sinfo -h -N -p rn -t idle -o %N 2>/dev/null | sort -u | wc -l; }
wait_all_idle() {
  local deadline=$((SECONDS + 180)) got
  while :; do
    got=$(idle_count)
    [ "$got" -ge "$nodes" ] && return 0
    [ $SECONDS -lt $deadline ] || { sc sinfo -p rn >&2 || true; echo "bench_realnodes: $got of $nodes nodes idle after 180 s" >&2; exit 1; }
    sleep 0.2
  done
}
# TERM to the PIDs recorded under pids/ matching $1 (a glob) at once, KILL after 20 s.
end_pids() {
  local f p pids=() left deadline=$((SECONDS + 20))
  for f in "$dir"/pids/$1; do
    [ -f "$f" ] || continue
    p=$(cat "$f"); [ -n "$p" ] && kill -0 "$p" 2>/dev/null && pids+=("$p")
  done
  [ ${#pids[@]} -gt 0 ] || return 0
  kill -TERM "${pids[@]}" 2>/dev/null || true
  while :; do
    left=()
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && left+=("$p"); done
    [ ${#left[@]} -eq 0 ] && break
    if [ $SECONDS -ge $deadline ]; then kill -KILL "${left[@]}" 2>/dev/null || true; break; fi
    sleep 0.1
  done
  for f in "$dir"/pids/$1; do rm -f "$f"; done
}
# slurmctld and every slurmd on SelectType $1 (slurmd must run the same
# select plugin: it unpacks the job's select data by the plugin's id, and a
# batch launch from the other plugin fails "Header lengths are longer than
# data received"), until every node is idle.
# Their spool is wiped too: job ids start at 1 again, and a slurmd
# remembers the credentials of the previous run's jobs of the same ids.
testbed_start() {
  local k
  rm -rf "$dir/spool"
  for ((k = 1; k <= nodes; k++)); do mkdir -p "$dir/spool/r$k"; done
  ctld_start "$1"; slurmd_start_all; wait_all_idle
}
testbed_stop() { end_pids 'slurmd-r*'; end_pids slurmctld; }
# Everything started, by recorded PID; then none of them may be left.
stop_all() {
  local f p nleft=0
  local recorded=()
  # a policy check's jobs (on an error exit) end when released
  touch "$dir/work/release" 2>/dev/null || true
  for f in "$dir"/pids/*; do [ -f "$f" ] && recorded+=("$(cat "$f")"); done
  end_pids 'slurmd-r*'
  end_pids slurmctld
  end_pids munged
  for p in "${recorded[@]}"; do kill -0 "$p" 2>/dev/null && nleft=$((nleft + 1)); done
  echo "$nleft"
}
if [ "${BENCH_KEEP:-0}" = 1 ]; then
  trap 'echo "bench_realnodes: kept $dir running, PIDs in $dir/pids" >&2' EXIT
else
  trap 'stop_all >/dev/null 2>&1' EXIT
  trap "exit 143" TERM INT
fi

# ---------------------------------------------------------------- figures
# The queue: one size per line (generated once, fixed seed).
gen_queue() {
  awk -v jobs="$jobs" -v m="$maxn" 'BEGIN {
    srand(21)
    for (j = 0; j < jobs; j++) { k = int(exp(log(m + 1) * rand())); if (k > m) k = m; if (k < 1) k = 1; print k }
  }'
}
# sdiag's fields: "started completed main_last main_max main_cycles main_mean main_depth bf_started"
sdiag_fields() {
  sc sdiag | awk '
    /^Jobs started:/ {st = $NF} /^Jobs completed:/ {co = $NF}
    /^Main schedule statistics/ {m = 1} /^Backfilling stats/ {m = 0; bf = 1}
    m && /^[ \t]*Last cycle:/ {ml = $NF} m && /^[ \t]*Max cycle:/ {mx = $NF}
    m && /^[ \t]*Total cycles:/ {mc = $NF} m && /^[ \t]*Mean cycle:/ {mm = $NF}
    m && /^[ \t]*Mean depth cycle:/ {md = $NF}
    bf && /Total backfilled jobs \(since last stats cycle start\)/ {bs = $NF}
    END {print st + 0, co + 0, ml + 0, mx + 0, mc + 0, mm + 0, md + 0, bs + 0}'
}
sum_ticks() { # PIDs...: utime + stime
  local p s=0 t
  for p in "$@"; do t=$(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null) || t=0; s=$((s + t)); done
  echo "$s"
}
ctld_cpu() { sum_ticks "$(pid_of slurmctld)"; }
slurmd_pids() { local k; for ((k = 1; k <= nodes; k++)); do pid_of "slurmd-r$k"; done; }

# One stream on the running slurmctld: sets R to
# "rate_jobs_per_s cpu_ms_per_job main_mean_us main_max_us main_cycles main_depth bf_started wall_s".
stream() {
  local t0 c0 t_start="" st co mx mc mm md bs deadline w k
  sc scontrol update PartitionName=rn State=DOWN
  while read -r k; do
    sc sbatch -Q -p rn -N "$k" --exclusive -t 1 -J rn -o /dev/null --wrap true >/dev/null
  done <"$dir/work/queue"
  sc sdiag -r >/dev/null
  c0=$(ctld_cpu); t0=$(now)
  sc scontrol update PartitionName=rn State=UP
  deadline=$((SECONDS + 1800))
  while :; do
    read -r st co _ mx mc mm md bs < <(sdiag_fields)
    [ -n "$t_start" ] || [ "$st" -lt "$jobs" ] || t_start=$(now)
    [ "$co" -lt "$jobs" ] || break
    [ $SECONDS -lt $deadline ] || { echo "bench_realnodes: $st started, $co completed of $jobs after 1800 s" >&2; exit 1; }
    sleep 0.2
  done
  w=$(echo "$t_start - $t0" | bc -l)
  R="$(echo "$jobs / $w" | bc -l) $(echo "1000 * ($(ctld_cpu) - $c0) / $tick / $jobs" | bc -l) $mm $mx $mc $md $bs $w"
}

# The node table as slurmctld has it, for psiplace rank.
node_table() {
  echo "name,cpus,alloc_cpus,real_memory,alloc_memory,tmp_disk,features,weight"
  sc scontrol show node -o | awk '{
    delete v
    for (i = 1; i <= NF; i++) { k = $i; sub(/=.*/, "", k); v[k] = substr($i, length(k) + 2) }
    f = v["AvailableFeatures"]; gsub(",", ";", f); if (f == "(null)") f = ""
    print v["NodeName"] "," v["CPUTot"] "," v["CPUAlloc"] "," v["RealMemory"] "," v["AllocMem"] "," v["TmpDisk"] "," f "," v["Weight"]
  }'
}
# Three 1-node jobs one after the other, each holding its node: sets
# CHOSEN ("r128 r127 r126") and RANKED (psiplace rank's first node before each).
policy_check() {
  local id node want deadline release=$dir/work/release
  CHOSEN="" RANKED="" 
  rm -f "$release"
  local hold='deadline=$((SECONDS+300)); until [ -e '"$release"' ] || [ $SECONDS -ge $deadline ]; do sleep 0.1; done'
  local ids=()
  for _ in 1 2 3; do
    node_table >"$dir/work/nodes.csv"
    want=$("$cli" rank --plugstack "$dir/etc/plugstack.conf" --psiconf "$dir/etc/psiplace.conf" \
      --table "$dir/work/nodes.csv" --job nodes=1 --as-select </dev/null 2>/dev/null | awk 'NR == 1 {print $1}')
    id=$(sc sbatch --parsable -p rn -N1 --exclusive -t 5 -J check -o /dev/null --wrap "$hold")
    ids+=("$id")
    deadline=$((SECONDS + 60))
    until [ "$(sc squeue -h -j "$id" -o %T)" = RUNNING ]; do
      [ $SECONDS -lt $deadline ] || { echo "bench_realnodes: check job $id not running after 60 s" >&2; exit 1; }
      sleep 0.1
    done
    node=$(sc squeue -h -j "$id" -o %N)
    CHOSEN="$CHOSEN $node" RANKED="$RANKED $want"
  done
  touch "$release"
  deadline=$((SECONDS + 60))
  until [ -z "$(sc squeue -h -o %i)" ] && [ "$(idle_count)" -ge "$nodes" ]; do
    [ $SECONDS -lt $deadline ] || { echo "bench_realnodes: check jobs ${ids[*]} not ended after 60 s" >&2; exit 1; }
    sleep 0.1
  done
  CHOSEN=${CHOSEN# } RANKED=${RANKED# }
}

# ---------------------------------------------------------------- run
bt=$(build_type "$b")
slurm_version=$(timeout 10 slurmctld -V | awk '{print $2}') || slurm_version=unknown
printf 'bench_realnodes: build type %s, Slurm %s, load average %s, %d slurmd -N (CPUs=2 RealMemory=100 each), SlurmdTimeout=%d (ping every %d s), MessageTimeout=%d, TreeWidth=%d, SchedulerParameters=%s, Epilog=%s, %d jobs of 1-%d nodes, cluster policy %s, figures: median of %d repetitions and spread (max - min)\n' \
  "$bt" "$slurm_version" "$(load1)" "$nodes" "$slurmd_timeout" $((slurmd_timeout / 3)) "$msg_timeout" "$tree_width" "${sched_params:-none}" "${epilog:-none}" "$jobs" "$maxn" "$policy" "$repeats"

A=select/psiplace_cons_tres B=select/cons_tres
setup
gen_queue >"$dir/work/queue"
t_setup=$(now)
testbed_start "$A"
name=realnodes_${nodes}nodes
echo "bench_realnodes: $name$rel: $nodes slurmd up and idle in $(printf %.1f "$(echo "$(now) - $t_setup" | bc -l)") s"

# The slurmd's cost: RSS now, CPU over $idle idle seconds.
mapfile -t dpids < <(slurmd_pids)
rss=0
for p in "${dpids[@]}"; do rss=$((rss + $(awk '/^VmRSS:/ {print $2}' "/proc/$p/status"))); done
c0=$(sum_ticks "${dpids[@]}"); cc0=$(ctld_cpu); t0=$(now)
[ "$idle" -eq 0 ] || sleep "$idle" # a measurement interval, not a wait for a daemon
c1=$(sum_ticks "${dpids[@]}"); cc1=$(ctld_cpu); dt=$(echo "$(now) - $t0" | bc -l)
printf 'bench: %s_slurmd_rss%s %.1f MiB\n' "$name" "$rel" "$(echo "$rss / 1024 / $nodes" | bc -l)"
printf 'bench: %s_slurmd_rss_total%s %.1f MiB\n' "$name" "$rel" "$(echo "$rss / 1024" | bc -l)"
if [ "$idle" -gt 0 ]; then
  printf 'bench: %s_slurmd_idle_cpu%s %.3f ms/min\n' "$name" "$rel" "$(echo "60 * 1000 * ($c1 - $c0) / $tick / $dt / $nodes" | bc -l)"
  printf 'bench: %s_ctld_idle_cpu%s %.1f ms/min\n' "$name" "$rel" "$(echo "60 * 1000 * ($cc1 - $cc0) / $tick / $dt" | bc -l)"
fi
printf 'bench: %s_ctld_rss%s %.1f MiB\n' "$name" "$rel" "$(echo "$(awk '/^VmRSS:/ {print $2}' "/proc/$(pid_of slurmctld)/status") / 1024" | bc -l)"

declare -A res=() chosen=() ranked=()
l0=$(load1) fresh=A
for ((k = 0; k < repeats; k++)); do
  if ((k % 2)); then order="B A"; else order="A B"; fi
  for side in $order; do
    st=${!side}
    # every measurement on a fresh testbed (the first one's is)
    [ "$fresh" = "$side" ] || { testbed_stop; testbed_start "$st"; }
    fresh=
    if [ -z "${chosen[$side]:-}" ]; then
      policy_check; chosen[$side]=$CHOSEN; ranked[$side]=$RANKED
    fi
    stream; res[$side.$k]=$R
  done
done
echo "bench_realnodes: ${name}_${jobs}jobs$rel: load average $l0 at start, $(load1) at end"
n=${name}_${jobs}jobs
for side in A B; do
  s=psiplace; [ "$side" = A ] || s=cons_tres
  for f in 1 2 3 4 5 6 7 8; do
    v=()
    for ((k = 0; k < repeats; k++)); do v+=("$(echo "${res[$side.$k]}" | cut -d' ' -f$f)"); done
    case $f in
      1) figure "${n}_rate_$s$rel" %.2f jobs/s "${v[@]}" ;;
      2) figure "${n}_ctld_cpu_per_job_$s$rel" %.2f ms "${v[@]}" ;;
      3) figure "${n}_main_mean_cycle_$s$rel" %.0f us "${v[@]}" ;;
      4) figure "${n}_main_max_cycle_$s$rel" %.0f us "${v[@]}" ;;
      5) figure "${n}_main_cycles_$s$rel" %.0f cycles "${v[@]}" ;;
      6) figure "${n}_main_mean_depth_$s$rel" %.0f jobs "${v[@]}" ;;
      7) figure "${n}_backfilled_$s$rel" %.0f jobs "${v[@]}" ;;
      8) figure "${n}_wall_$s$rel" %.1f s "${v[@]}" ;;
    esac
  done
done
ratio=() cratio=()
for ((k = 0; k < repeats; k++)); do
  ratio+=("$(echo "$(echo "${res[A.$k]}" | cut -d' ' -f1) / $(echo "${res[B.$k]}" | cut -d' ' -f1)" | bc -l)")
  cratio+=("$(echo "$(echo "${res[A.$k]}" | cut -d' ' -f2) / $(echo "${res[B.$k]}" | cut -d' ' -f2)" | bc -l)")
done
figure "${n}_rate_ratio$rel" %.3f psiplace/cons_tres "${ratio[@]}"
figure "${n}_ctld_cpu_ratio$rel" %.3f psiplace/cons_tres "${cratio[@]}"
echo "bench_realnodes: policy check: psiplace ($policy) chose ${chosen[A]} for three 1-node jobs on the idle machine, psiplace rank ranked ${ranked[A]} first; cons_tres chose ${chosen[B]}"
ok=0
[ "${chosen[A]}" = "${ranked[A]}" ] && [ "${chosen[A]}" != "${chosen[B]}" ] && ok=1
printf 'bench: %s_policy_applied%s %d check\n' "$name" "$rel" "$ok"

if [ "${BENCH_KEEP:-0}" != 1 ]; then
  trap - EXIT
  nleft=$(stop_all)
  echo "bench_realnodes: ended $((nodes + 2)) recorded daemons by PID, $nleft left"
  [ "$nleft" = 0 ] || { echo "bench_realnodes: $nleft recorded daemons still run" >&2; exit 1; }
fi
