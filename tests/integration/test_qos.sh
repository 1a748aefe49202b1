#!/usr/bin/env bash
# Preemption by QOS (issue 20, item 4): PreemptType=preempt/qos needs QOS
# records, which only slurmdbd serves, so this suite starts the testbed with
# accounting (PSIPLACE_ACCOUNTING=dbd: a private MariaDB and the release's
# slurmdbd; QOS low and high, high Preempt=low).  Every node is held whole
# by a low-QOS job (or some by a normal-QOS job, which high may not
# preempt); a high-QOS job preempts on the node the policy ranks first among
# the preemptable ones, with QOS low's own PreemptMode REQUEUE and CANCEL; the
# select plugin's weights are the configured ones afterwards.  Plain
# select/cons_tres is the control (it preempts Slurm's first candidate).
# Nodes: n1 4 CPUs, n2 8, n3 16, n4 12; speeds n1 1.0, n2 2.0, n3 3.0, n4 0.5.
# Every testbed release: 22.05 with Debian's slurmdbd, 24.11 and 26.05 with
# their own (slurm-release.sh prefix adds accounting_storage/mysql).
source "$(dirname "$0")/lib.sh"

# Without accounting_storage/mysql the suite cannot run: a loud skip for a
# developer, a failure where it is required (contrib/test.sh sets
# PSIPLACE_REQUIRE_ACCOUNTING=1).
if ! why=$("$cluster" accounting-support); then
  if [ "${PSIPLACE_REQUIRE_ACCOUNTING:-0}" = 1 ]; then
    echo "Bail out! PSIPLACE_REQUIRE_ACCOUNTING=1 but Slurm $PSIPLACE_SLURM cannot run slurmdbd with a database: $why"
    exit 1
  fi
  echo "1..0 # SKIP preemption by QOS (preempt/qos) needs slurmdbd with a database: $why"
  exit 0
fi

export PSIPLACE_ACCOUNTING=dbd PSIPLACE_POLICY=LASTAVAILABLE
export PSIPLACE_PREEMPT_TYPE=preempt/qos PSIPLACE_PREEMPT_MODE=REQUEUE
tb_start
log=$PSIPLACE_TESTBED_DIR/log/slurmctld.log
first=--psi-alloc-policy=firstavailable

qos_of() { squeue -h -j "$1" -o %q 2>/dev/null; }
weights() {
  scontrol -o show node | sed -n 's/^NodeName=\([^ ]*\) .* Weight=\([0-9]*\) .*/\1:\2/p' | paste -sd' '
}

# ------------------------------------------------------------ accounting
# The daemon and clients of the testbed's release: Debian's slurmdbd 22.05
# cannot serve a newer slurmctld.  (Debian's binaries say "slurm-wlm".)
check_match "slurmdbd is Slurm $PSIPLACE_SLURM's" "slurmdbd version $PSIPLACE_SLURM\\." \
  "$(grep -m1 'slurmdbd version' "$PSIPLACE_TESTBED_DIR/log/slurmdbd.log")"
check_match "sacctmgr and sacct are Slurm $PSIPLACE_SLURM's" "^slurm(-wlm)? $PSIPLACE_SLURM\\.[0-9]+ slurm(-wlm)? $PSIPLACE_SLURM\\." \
  "$(sacctmgr -V) $(sacct -V)"
check_eq "slurmdbd serves the QOS: high preempts low" "high|low" \
  "$(sacctmgr -n -P show qos high format=name,preempt 2>&1)"
check_eq "slurmctld has the QOS from slurmdbd (assoc_mgr)" "low high" \
  "$(scontrol show assoc_mgr flags=qos 2>&1 | sed -n 's/^QOS=\(low\|high\)(.*/\1/p' | paste -sd' ')"
check_eq "slurmctld runs preempt/qos" "preempt/qos" \
  "$(scontrol show config | sed -n 's/^PreemptType *= *//p')"
check_match "slurmctld started with slurmdbd (no lost connection logged)" '^$' \
  "$(grep -E 'slurmdbd: .*(not responding|Connection refused)|Unable to contact slurmdbd' "$log")"

# ------------------------------------------------------------ preemption
# fill QOS_N1 QOS_N2 QOS_N3 QOS_N4: one job of that QOS holds each node
# whole; the ids in held[n1..n4].
declare -A held
fill() {
  local n qos=("$@") i=0
  settle
  for n in n1 n2 n3 n4; do
    held[$n]=$(sbatch --parsable --qos="${qos[i]}" -N1 --exclusive -w "$n" -t 10 -o /dev/null \
                 --wrap 'sleep 300')
    i=$((i + 1))
  done
  for n in n1 n2 n3 n4; do
    poll 60 job_running "${held[$n]}" || not_ok "job ${held[$n]} runs on $n" "$(job_state "${held[$n]}")"
  done
}
# preempt NAME "QOS_N1 .. QOS_N4" EXPECTED_NODE EXPECTED_STATE [sbatch options]:
# a one-CPU high-QOS job, with every node full, starts on EXPECTED_NODE;
# the job there (and only that one) ends up in EXPECTED_STATE.  high_id:
# the high job's id, high_qos: its QOS while it ran (26.05's squeue no
# longer lists a cancelled job, even by id).
high_id='' high_qos=''
preempt() {
  local name=$1 fillq=$2 want=$3 wstate=$4
  shift 4
  # shellcheck disable=SC2086
  fill $fillq
  high_id=$(sbatch --parsable --qos=high -N1 -n1 -t 5 -o /dev/null "$@" --wrap 'sleep 120')
  poll 60 job_running "$high_id" || true
  check_preemption "preemption by QOS, $name" "$high_id" "$want" "$wstate" held %q
  high_qos=$(qos_of "$high_id")
  scancel "$high_id" "${held[@]}" 2>/dev/null
}
all_low="low low low low"
# low_mode MODE: QOS low's own PreemptMode (slurmdbd sends the change to
# slurmctld; poll until slurmctld has it).
low_mode_is() { scontrol show assoc_mgr flags=qos qos=low 2>/dev/null | grep -q "PreemptMode=$1"; }
low_mode() {
  sacctmgr -i modify qos low set PreemptMode="$1" >/dev/null
  poll 30 low_mode_is "${1^^}" || not_ok "slurmctld learns QOS low's PreemptMode=$1" \
    "$(scontrol show assoc_mgr flags=qos qos=low | grep PreemptMode)"
}
low_mode requeue

preempt "REQUEUE, LASTAVAILABLE" "$all_low" n4 PENDING
check_eq "the high job runs with QOS high" high "$high_qos"
check_match "the preempted job was requeued by Slurm for the high job" \
  "preempted JobId=${held[n4]} has been requeued to reclaim resources for JobId=$high_id" \
  "$(grep 'preempted JobId' "$log" | tail -1)"
preempt "REQUEUE, FIRSTAVAILABLE (job option)" "$all_low" n1 PENDING "$first"
preempt "REQUEUE, FASTEST (job option)" "$all_low" n3 PENDING --psi-alloc-policy=fastest
# n4 runs a normal-QOS job, which high may not preempt: LASTAVAILABLE's
# first preemptable node is n3.
preempt "REQUEUE, LASTAVAILABLE, n4 not preemptable (QOS normal)" "low low low normal" n3 PENDING

low_mode cancel
preempt "CANCEL, LASTAVAILABLE" "$all_low" n4 PREEMPTED
cancelled=${held[n4]}
check_match "the preempted job was killed by Slurm for the high job" \
  "preempted JobId=$cancelled has been killed to reclaim resources for JobId=$high_id" \
  "$(grep 'preempted JobId' "$log" | tail -1)"
preempt "CANCEL, FIRSTAVAILABLE (job option)" "$all_low" n1 PREEMPTED "$first"
sacct_state() { sacct -n -X -P -j "$cancelled" -o state 2>/dev/null | head -1; }
sacct_preempted() { [ "$(sacct_state)" = PREEMPTED ]; }
poll 30 sacct_preempted || true
check_eq "slurmdbd recorded the preempted job as PREEMPTED (sacct)" PREEMPTED "$(sacct_state)"

check_eq "node weights after the preemptions are the configured ones" "n1:1 n2:1 n3:1 n4:1" \
  "$(weights)"
settle
check_eq "after the preemptions, LASTAVAILABLE on an idle cluster: n4" n4 "$(srun_node)"

# ------------------------------------------------------------ control
# Plain select/cons_tres on the same testbed: Slurm removes the candidates
# in its own order (equal QOS priority: job order) and takes the first
# start that fits, n1; LASTAVAILABLE's n4 above is the policy's.
"$cluster" stop >/dev/null 2>&1
PSIPLACE_SELECT=select/cons_tres "$cluster" start >/dev/null 2>&1 ||
  { echo "Bail out! the select/cons_tres testbed with accounting did not start"; "$cluster" stop; exit 1; }
low_mode requeue
preempt "REQUEUE, plain select/cons_tres (control): Slurm's first candidate" "$all_low" n1 PENDING

tb_finish
