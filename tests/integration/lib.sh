# Shared helpers of the integration tests: a private testbed instance,
# assertions that count, polling with deadlines (never plain sleeps).
# Source it, call tb_start, run checks, end with tb_finish.
set -uo pipefail

src_dir=${PSIPLACE_SRC_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
export PSIPLACE_BUILD_DIR=${PSIPLACE_BUILD_DIR:-$src_dir/build}
# Whatever ends this test (meson's timeout may SIGKILL it before its EXIT
# trap runs), the daemons of every testbed it starts are ended after it
# (cluster.sh guard).
export PSIPLACE_STOP_WITH=$$
# Tests use their own instance so a developer's testbed (instance 0) survives.
export PSIPLACE_INSTANCE=${PSIPLACE_TEST_INSTANCE:-1}
# The release the plugins were built for (meson sets it; 22.05 by default).
export PSIPLACE_SLURM=${PSIPLACE_SLURM:-22.05}
cluster=$src_dir/contrib/testbed/cluster.sh
eval "$("$cluster" env)"

tb_pass=0
tb_fail=0
tb_failed=()
tb_skipped=()
tb_finished=0

# A test that ends with an error before tb_finish (a command under set -u
# finding an unset variable ends the shell, e.g. ${hosts[2]} when a job got
# fewer nodes) would leave meson a stream without a plan and without a
# failed check: its EXIT trap then adds one that says so (exit 77, meson's
# skip, is not a failure).  The EXIT traps
# the tests set themselves (the testbed's stop) are kept in front of it.
tb_ended_early() {
  [ "$1" != 0 ] && [ "$1" != 77 ] && [ "$tb_finished" = 0 ] || return 0
  not_ok "the test script ended early (exit status $1) after $((tb_pass + tb_fail)) checks: its stderr says where"
  echo "1..$((tb_pass + tb_fail))"
}
trap() {
  if [ $# -eq 2 ] && [ "$2" = EXIT ] && [ "$1" = - ]; then
    builtin trap 'tb_ended_early $?' EXIT
  elif [ $# -eq 2 ] && [ "$2" = EXIT ]; then
    builtin trap "tb_rc=\$?; $1
tb_ended_early \$tb_rc" EXIT
  else
    builtin trap "$@"
  fi
}
builtin trap 'tb_ended_early $?' EXIT

# tb_started: when the last tb_start began, in clock ticks since boot (the
# start of a process made then, /proc/PID/stat field 22): the stepds of this
# test's jobs started after it (stepds).
tb_started=
tb_start() {
  tb_started=$(awk '{ sub(/^.*\) /, ""); print $20 }' /proc/self/stat)
  "$cluster" start || { echo "Bail out! testbed did not start"; "$cluster" stop; exit 1; }
  trap '"$cluster" stop >/dev/null 2>&1' EXIT
}

# The tests of ordered resizes: start the testbed with slurmdbd where this
# release has it (acct=1; without it 22.05 refuses every update of a merged
# job, its acknowledgement too, as long as it runs: "DB index is being set"), and
# the test's work directory $work; both go when the test ends.
mall_start() {
  acct=0
  if "$cluster" accounting-support >/dev/null 2>&1; then export PSIPLACE_ACCOUNTING=dbd; acct=1; fi
  tb_start
  work=$(mktemp -d)
  trap '"$cluster" stop >/dev/null 2>&1; rm -rf "$work"' EXIT
}

# Start a 5-node testbed for placement tests: n1..n4 are fake nodes described
# by the hwloc topologies cluster.sh writes for them (TopologyFile, dry runs
# only); n5 is declared like this machine (real binding).  Placement input
# from the caller's environment is cleared so it cannot leak into a check.
topo=$PSIPLACE_TESTBED_DIR/etc/topo
tb_start_placement() {
  export PSIPLACE_REAL_NODE=1 PSIPLACE_POLICY=LASTAVAILABLE
  export PSIPLACE_PLUGSTACK_ARGS="TopologyFile=$topo/%n.xml"
  unset PSI_NODES PSI_HOSTS PSI_HOSTFILE PSI_NODES_SORT PSI_TPP OMP_NUM_THREADS PSI_EXCLUSIVE \
    PSI_OVERBOOK PSI_LOOP_NODES_FIRST PSI_WAIT __PSI_CPUMAP __PSI_NO_PINPROC __PSI_NO_BINDMEM \
    __PSI_NO_MEMBIND PSI_VERBOSE SLURM_DISTRIBUTION SBATCH_DISTRIBUTION \
    OMPI_MCA_rmaps_lama_map OMPI_MCA_rmaps_lama_bind OMPI_MCA_rmaps_lama_mppr OMPI_MCA_rmaps_lama_ordering
  tb_start
}

# --psi-verbose lines of a step, sorted by global task id: "G NODE CPUS MEMS".
report() { grep -E '^psiplace: [^ ]+ task [0-9]+ \(local' | sed -E 's/^psiplace: ([^ ]+) task ([0-9]+) \(local [0-9]+\): cpus ([^ ]+) mems ([^ ]+).*/\2 \1 \3 \4/' | sort -n | paste -sd';'; }

ok() { tb_pass=$((tb_pass + 1)); echo "ok $((tb_pass + tb_fail)) - $1"; }
not_ok() {
  tb_fail=$((tb_fail + 1)); tb_failed+=("$1")
  echo "not ok $((tb_pass + tb_fail)) - $1"
  shift; [ $# -gt 0 ] && printf '#   %s\n' "$@"
}

# skip NAME REASON: a part of a suite this release cannot run (a Slurm
# feature it lacks); named again in the summary, never silent.
skip() {
  tb_pass=$((tb_pass + 1)); tb_skipped+=("$1: $2")
  echo "ok $((tb_pass + tb_fail)) - $1 # SKIP $2"
}

# check NAME EXPECTED ACTUAL [OUTPUT]: OUTPUT (what the command printed) is
# shown when the check fails.
check_eq() {
  if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "expected: '$2'" "got:      '$3'" ${4:+"output:   ${4//$'\n'/ | }"}; fi
}

# check_match NAME REGEX TEXT
check_match() {
  if grep -Eq -- "$2" <<<"$3"; then ok "$1"; else not_ok "$1" "no match for /$2/ in:" "$3"; fi
}

# poll DEADLINE_S CMD...: run CMD until it succeeds or the deadline passes.
poll() {
  local deadline=$((SECONDS + $1)); shift
  until "$@"; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.1
  done
}

# Replace the testbed's metrics file and wait until slurmctld's reader
# thread has published it (one "metrics file ...: N nodes" log line per
# read): a decision right after the write may still see the old loads.
metrics_reads() { grep -c 'psiplace_cons_tres: metrics file .*: [0-9]* nodes' "$PSIPLACE_TESTBED_DIR/log/slurmctld.log"; }
reads_above() { [ "$(metrics_reads)" -gt "$1" ]; }
set_metrics() { # LINE...
  local before m=$PSIPLACE_TESTBED_DIR/etc/metrics
  before=$(metrics_reads)
  printf '%s\n' "$@" >"$m.new" && mv "$m.new" "$m"
  poll 30 reads_above "$before" || not_ok "slurmctld read the new metrics file within 30 s"
}

job_state() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'; }
job_done() { case $(job_state "$1") in COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|"") return 0 ;; *) return 1 ;; esac; }
# End states that last: slurmctld forgets an ended job MinJobAge (10 s) after
# it ends, and on a loaded machine that can be before a check reads it, so a
# check of how a job ended reads the jobcomp/filetxt record (the test exports
# PSIPLACE_JOBCOMP=1 before tb_start).  The last record of the job counts; a
# requeue writes one with JobState=PENDING or REQUEUED, which is not an end.
# job_done above only says "nothing left to wait for" (a purged job is done).
jobcomp_state() {
  awk -v id="JobId=$1" '$1 == id { for (i = 2; i <= NF; i++) if ($i ~ /^JobState=/) s = substr($i, 10) }
    END { print s }' "$PSIPLACE_TESTBED_DIR/log/jobcomp.txt" 2>/dev/null
}
job_ended() { case $(jobcomp_state "$1") in ""|PENDING|REQUEUED*) return 1 ;; *) return 0 ;; esac; }
job_running() { [ "$(job_state "$1")" = RUNNING ]; }
# step_running JOB: the job's first srun step (JOB.0) exists (an srun still
# creating its step when slurmctld goes away fails for want of a controller).
step_running() { squeue -h -s -j "$1" -o %i | grep -qx "$1\\.0"; }
node_of() { scontrol show job "$1" 2>/dev/null | sed -n 's/^ *NodeList=\([^ ]*\).*/\1/p'; }
# Processes of MPI job $1 of this testbed that are still alive (the demo,
# MPICH Hydra's proxies), as PID@NODE.
job_procs() {
  local p e
  for p in $(pgrep -f 'psiplace-resize-demo|hydra_pmi_proxy'); do
    e=$(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null) || continue
    grep -qx "SLURM_JOB_ID=$1" <<<"$e" && grep -qx "SLURM_CONF=$SLURM_CONF" <<<"$e" || continue
    echo "$p@$(sed -n 's/^SLURMD_NODENAME=//p' <<<"$e")"
  done
}
# PIDs of the salloc processes job $1 started (a grow's helper request,
# run in the background by the job's side), this testbed's only.
job_sallocs() {
  local p e
  for p in $(pgrep -x salloc); do
    e=$(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null) || continue
    grep -qx "SLURM_JOB_ID=$1" <<<"$e" && grep -qx "SLURM_CONF=$SLURM_CONF" <<<"$e" && echo "$p"
  done | paste -sd' '
}
no_sallocs() { [ -z "$(job_sallocs "$1")" ]; }

# The checks of one preemption on the four nodes, each held by a job
# (HELD: the name of an associative array node -> job id): the high job
# HIGH_ID runs on WANT, the job held there is in WSTATE, the others still
# run.  SQF: the squeue field shown beside each job when the first fails
# (%P partition, %q QOS).
check_preemption() { # LABEL HIGH_ID WANT WSTATE HELD SQF
  local label=$1 id=$2 want=$3 wstate=$4 sqf=$6 n others=""
  local -n on_node=$5
  check_eq "$label: the high job preempts on $want" "$want" "$(node_of "$id")" \
    "$(job_state "$id"); $(squeue -h -o "%i:$sqf:%T:%N" | paste -sd' ')"
  for n in n1 n2 n3 n4; do
    [ "$n" = "$want" ] && continue
    job_running "${on_node[$n]}" || others="$others $n:$(job_state "${on_node[$n]}")"
  done
  check_eq "$label: the job on $want is $wstate" "$wstate" "$(job_state "${on_node[$want]}")"
  check_eq "$label: the other jobs still run" "" "$others"
}

# The node a one-node srun lands on.
# Placement checks start when no earlier job still holds nodes: srun can
# return while its job is still completing (26.05: its epilog), and a node
# still held changes what a policy can pick.  SETTLE_KEEP: job ids a test
# keeps running on purpose.
SETTLE_KEEP=${SETTLE_KEEP:-}
no_stray_jobs() {
  local ids id
  ids=$(squeue -h -t RUNNING,COMPLETING,CONFIGURING -o %i) || return 1
  for id in $ids; do
    case " $SETTLE_KEEP " in *" $id "*) ;; *) return 1 ;; esac
  done
  return 0
}
# A job that has ended can leave its nodes COMPLETING a while longer on a
# loaded machine (the epilog, slurmd's answer): a job submitted then waits
# ("queued and waiting for resources") or goes elsewhere.
no_completing_nodes() {
  local n
  n=$(sinfo -h -t completing -o %N) || return 1
  [ -z "$n" ]
}
settle() {
  poll 30 no_stray_jobs || echo "# jobs still holding nodes after 30 s: $(squeue -h -o '%i:%T:%N' | paste -sd' ')" >&2
  poll 30 no_completing_nodes || echo "# nodes still completing after 30 s: $(sinfo -h -t completing -o %N)" >&2
}
# slurmstepd processes of this testbed: those with a file of the testbed's
# directory open (every release keeps its node's slurmd log open; 24.11+
# clears a stepd's environment) or its SLURM_CONF in their environment; of
# those, after a tb_start, only the stepds started since (this test's jobs,
# not an earlier test's on this instance).
stepd_of_test() { # PID
  local t
  find "/proc/$1/fd" -mindepth 1 -lname "$PSIPLACE_TESTBED_DIR/*" -print -quit 2>/dev/null | grep -q . ||
    { tr '\0' '\n' <"/proc/$1/environ"; } 2>/dev/null | grep -qxF "SLURM_CONF=$SLURM_CONF" || return 1
  [ -n "${tb_started:-}" ] || return 0
  t=$(awk '{ sub(/^.*\) /, ""); print $20 }' "/proc/$1/stat" 2>/dev/null) && [ -n "$t" ] && [ "$t" -ge "$tb_started" ]
}
stepds() {
  local p
  for p in $( { pgrep -x slurmstepd; pgrep -f '^slurmstepd:'; } | sort -u); do
    stepd_of_test "$p" && echo "$p"
  done
}
no_stepds() { [ -z "$(stepds)" ]; }
check_no_stepds() { # NAME
  poll 30 no_stepds
  check_eq "$1: no slurmstepd of this testbed left behind" "" "$(stepds | paste -sd' ')"
}
srun_node() { settle; timeout 60 srun -N1 -n1 "$@" printenv SLURMD_NODENAME 2>&1; }

# Jobs submitted as another local user (useradd in the test) must reach the
# release's clients, the PluginDir entries and the SPANK plugin, which may
# lie under root's home (the cache) or in a checkout others cannot traverse
# (a clone into a mktemp -d directory is 700).  open_for_users makes every
# directory above them traversable (o+x, no listing) and the testbed's
# munge directory reachable; restore_opened puts the modes back.
tb_opened=()
# Directories opened for other users are counted across tests (lanes run
# tests of several releases side by side under one checkout): the count
# and the mode to restore are kept in a file per directory under
# $tb_open_dir, changed under a lock, and the last test that opened a
# directory restores its mode.  A test killed before its restore leaves the
# directory o+x (a count that never reaches zero), never closed under
# another test.
tb_open_dir=/tmp/psiplace-opened   # one for every test of the machine, whatever its TMPDIR
open_path() {
  local d=$1 key mode n
  mkdir -p "$tb_open_dir"
  while [ "$d" != / ] && [ -n "$d" ]; do
    if [ -d "$d" ]; then
      key=$tb_open_dir/$(printf '%s' "$d" | sha1sum | cut -c1-16)
      {
        flock 9
        if [ -f "$key" ]; then
          read -r mode n _ <"$key"
          echo "$mode $((n + 1)) $d" >"$key"
          tb_opened+=("$d")
        elif [ "$(( 0$(stat -c %a "$d") & 01 ))" = 0 ]; then
          echo "$(stat -c %a "$d") 1 $d" >"$key"
          chmod o+x "$d"
          tb_opened+=("$d")
        fi
      } 9>"$tb_open_dir.lock"
    fi
    d=$(dirname "$d")
  done
}
open_for_users() {
  local p stack
  open_path "$(dirname "$(command -v sbatch)")"
  for p in $(sed -n 's/^PluginDir=//p' "$SLURM_CONF" | tr ':' ' '); do open_path "$p"; done
  stack=$(sed -n 's/^PlugStackConfig=//p' "$SLURM_CONF")
  p=$(awk '$1 == "required" || $1 == "optional" {print $2; exit}' "$stack" 2>/dev/null)
  [ -z "$p" ] || open_path "$(dirname "$p")"
  chmod 711 "$PSIPLACE_TESTBED_DIR/munge"
}
restore_opened() {
  local d key mode n
  for d in "${tb_opened[@]}"; do
    key=$tb_open_dir/$(printf '%s' "$d" | sha1sum | cut -c1-16)
    {
      flock 9
      if [ -f "$key" ]; then
        read -r mode n _ <"$key"
        if [ "$n" -le 1 ]; then chmod "$mode" "$d"; rm -f "$key"
        else echo "$mode $((n - 1)) $d" >"$key"; fi
      fi
    } 9>"$tb_open_dir.lock"
  done
  tb_opened=()
}

# The id the next job will get: submit a tiny held job and cancel it.
next_job_id() {
  local id
  id=$(sbatch --parsable --hold -o /dev/null --wrap true) || return 1
  scancel "$id"
  echo $((id + 1))
}

tb_finish() {
  tb_finished=1
  echo "1..$((tb_pass + tb_fail))"
  echo "# $tb_pass passed, $tb_fail failed"
  [ ${#tb_skipped[@]} -eq 0 ] || printf '# skipped: %s\n' "${tb_skipped[@]}"
  if [ "$tb_fail" -gt 0 ]; then
    printf '# failed: %s\n' "${tb_failed[@]}"
    echo "# slurmctld log tail:"; tail -n 30 "$PSIPLACE_TESTBED_DIR/log/slurmctld.log" | sed 's/^/#   /'
    exit 1
  fi
  exit 0
}
