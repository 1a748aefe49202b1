#!/usr/bin/env bash
# The testbed's final stop ends the jobs still running on its instance and
# nothing else (TAP output).  A test that fails with a job running leaves
# the job's slurmstepd and processes behind once the daemons are gone, and
# the next test on the instance finds them: `cluster.sh stop` ends them
# (cluster.sh stop-jobs).  A second testbed (instance PSIPLACE_TEARDOWN_OTHER,
# default this one + 32, or - 32 above 67) runs a job beside it that must
# survive; restart-slurmds and restart-ctld, which tests use under running
# jobs, must keep them and their steps.
source "$(dirname "$0")/lib.sh"
other=${PSIPLACE_TEARDOWN_OTHER:-$(( PSIPLACE_INSTANCE <= 67 ? PSIPLACE_INSTANCE + 32 : PSIPLACE_INSTANCE - 32 ))}
other_conf=$(PSIPLACE_INSTANCE=$other "$cluster" env | sed -n 's/^export SLURM_CONF=//p')
cleanup='PSIPLACE_INSTANCE=$other "$cluster" stop >/dev/null 2>&1; "$cluster" stop >/dev/null 2>&1
  [ -z "${srun_pid:-}" ] || kill "$srun_pid" 2>/dev/null'
trap "$cleanup" EXIT

# The job processes of testbed CONF whose command line is exactly CMD (its
# program with or without a path: srun starts /usr/bin/sleep), as
# PID:STARTTIME (their environment names the testbed's slurm.conf).
ticks() { awk '{ sub(/^.*\) /, ""); print $20 }' "/proc/$1/stat" 2>/dev/null; }
procs() { # CONF CMD
  local p
  for p in $(pgrep -f "^([^ ]*/)?$2\$"); do
    tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qxF "SLURM_CONF=$1" || continue
    echo "$p:$(ticks "$p")"
  done
}
# how many of the PID:STARTTIME ids still run (the same process, no zombie)
alive_ids() {
  local id n=0 st
  for id in "$@"; do
    st=$(awk '{ sub(/^.*\) /, ""); print $1 }' "/proc/${id%%:*}/stat" 2>/dev/null)
    [ "$(ticks "${id%%:*}")" = "${id#*:}" ] && [ -n "$st" ] && [ "$st" != Z ] && n=$((n + 1))
  done
  echo "$n"
}
# what runs of the ids, for a failed check
show() {
  echo "ids: $*"; ps -o pid,stat,args -p "$(printf '%s\n' "$@" | cut -d: -f1 | paste -sd,)"
}

# --- the other testbed and its job, started first
PSIPLACE_INSTANCE=$other "$cluster" start >/dev/null \
  || { echo "Bail out! testbed instance $other did not start"; exit 1; }
other_job=$(SLURM_CONF=$other_conf timeout 30 sbatch --parsable -o /dev/null --wrap 'timeout 300 sleep 309')
other_runs() { [ "$(SLURM_CONF=$other_conf squeue -h -j "$other_job" -o %T 2>/dev/null)" = RUNNING ] &&
  [ -n "$(procs "$other_conf" 'sleep 309')" ]; }
poll 60 other_runs
check_eq "instance $other: its job runs" 1 "$(other_runs && echo 1 || echo 0)"
other_ids=$(procs "$other_conf" 'sleep 309')

# --- this testbed: a batch job (a task, a process below it in a session of
# its own) and an srun step; restarts of every slurmd, then of slurmctld
# (on its saved state), keep them, their processes and their stepds
tb_start
trap "$cleanup" EXIT   # tb_start's stops this instance only
batch=$(timeout 30 sbatch --parsable -o /dev/null --wrap 'timeout 300 sleep 301 & setsid sleep 302 & wait')
srun_out=$PSIPLACE_TESTBED_DIR/log/teardown-srun.out
timeout 300 srun -N1 -n1 sleep 303 >"$srun_out" 2>&1 & srun_pid=$!
mine() { procs "$SLURM_CONF" 'sleep 301'; procs "$SLURM_CONF" 'sleep 302'; procs "$SLURM_CONF" 'sleep 303'; }
all_run() { [ "$(mine | wc -l)" = 3 ] && [ "$(stepds | wc -l)" = 2 ]; }
poll 60 all_run
check_eq "instance $PSIPLACE_INSTANCE: the batch job's and the step's processes and their 2 slurmstepds run" \
  "3 2" "$(mine | wc -l) $(stepds | wc -l)" "$(squeue -h -o '%i:%T:%N' | paste -sd' '); srun: $(cat "$srun_out")"
ids=$(mine; for p in $(stepds); do echo "$p:$(ticks "$p")"; done)
"$cluster" restart-slurmds
# shellcheck disable=SC2086  # ids, split on purpose
check_eq "restart-slurmds: the job's and the step's processes and stepds go on" 5 "$(alive_ids $ids)" \
  "$(show $ids); srun: $(cat "$srun_out")"
"$cluster" restart-ctld
# shellcheck disable=SC2086
check_eq "restart-ctld: the job's and the step's processes and stepds go on" 5 "$(alive_ids $ids)" \
  "$(show $ids); srun: $(cat "$srun_out")"
check_eq "after both restarts: job $batch still runs" RUNNING "$(squeue -h -j "$batch" -o %T)"
srun_ids=$(for p in $(pgrep -x srun); do
  tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qxF "SLURM_CONF=$SLURM_CONF" && echo "$p:$(ticks "$p")"; done)

# --- the final stop
out=$("$cluster" stop 2>&1); rc=$?
check_eq "cluster.sh stop with a job and a step running exits 0" 0 "$rc" "$out"
check_match "stop says it ended the 2 slurmstepds and the srun" 'ended 2 slurmstepds, [0-9]+ processes of their jobs and [1-9][0-9]* srun/salloc clients' "$out"
# stop itself checks that they are gone before it returns: no poll here
# shellcheck disable=SC2086
check_eq "after stop: none of the job's and the step's processes and stepds runs" 0 "$(alive_ids $ids)"
check_eq "after stop: no slurmstepd of instance $PSIPLACE_INSTANCE" "" "$(stepds | paste -sd' ')"
check_eq "after stop: no process of its jobs" "" "$(mine | paste -sd' ')"
# the step's srun: TERMed after slurmctld has gone it would go on for half a
# minute and could end the job of the same id of the instance's next start
# shellcheck disable=SC2086
check_eq "after stop: the step's srun (found before) is gone" "found 0" \
  "$([ -n "$srun_ids" ] && echo found || echo none) $(alive_ids $srun_ids)"
# shellcheck disable=SC2086
check_eq "instance $other: its job's process goes on" 1 "$(alive_ids $other_ids)"
check_eq "instance $other: its job still runs" RUNNING \
  "$(SLURM_CONF=$other_conf squeue -h -j "$other_job" -o %T 2>/dev/null)"

# --- the other testbed's stop ends its own job
out=$(PSIPLACE_INSTANCE=$other "$cluster" stop 2>&1); rc=$?
check_match "instance $other: stop ends its job's slurmstepd" 'ended 1 slurmstepds' "$out"
# shellcheck disable=SC2086
check_eq "instance $other: after its stop its job's process is gone" 0 "$(alive_ids $other_ids)"
tb_finish
