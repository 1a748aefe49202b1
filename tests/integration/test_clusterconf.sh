#!/usr/bin/env bash
# Policies on real cluster configurations (issue 20, items 4-6): preemption,
# reservations, soft and counted constraints, LLN.  One testbed: debug
# (PriorityTier 1, the low jobs), high (PriorityTier 10, preempts debug's
# jobs), lln (LLN=YES); PreemptType=preempt/partition_prio,
# PreemptMode=REQUEUE; the cluster's policy is LASTAVAILABLE.
# Nodes: n1 arm 4 CPUs, n2 intel,gpu 8, n3 amd,gpu,fast 16, n4 intel,fast 12;
# speeds (psiplace.conf) n1 1.0, n2 2.0, n3 3.0, n4 0.5.
source "$(dirname "$0")/lib.sh"

export PSIPLACE_POLICY=LASTAVAILABLE PSIPLACE_PARTITIONS="high lln"
export PSIPLACE_PREEMPT_TYPE=preempt/partition_prio PSIPLACE_PREEMPT_MODE=REQUEUE
export PSIPLACE_PARTITION_ARGS_high="PriorityTier=10" PSIPLACE_PARTITION_ARGS_lln="LLN=YES"
tb_start
log=$PSIPLACE_TESTBED_DIR/log/slurmctld.log
first=--psi-alloc-policy=firstavailable

# A check that cannot run on this release: a TAP skip that names the reason.
skip() { tb_pass=$((tb_pass + 1)); echo "ok $((tb_pass + tb_fail)) - $1 # SKIP $2"; }

# The sorted, distinct nodes the tasks of an srun ran on.
nodes_of() { settle; timeout 60 srun "$@" printenv SLURMD_NODENAME 2>&1 | sort -u | paste -sd' '; }

# ------------------------------------------------------------ preemption
# One low job holds each node whole; the ids in low[n1..n4].
declare -A low
fill() {
  local n
  settle
  for n in n1 n2 n3 n4; do
    low[$n]=$(sbatch --parsable -p debug -N1 --exclusive -w "$n" -t 10 -o /dev/null --wrap 'sleep 300')
  done
  for n in n1 n2 n3 n4; do
    poll 60 job_running "${low[$n]}" || not_ok "low job ${low[$n]} runs on $n" "$(job_state "${low[$n]}")"
  done
}
# preempt NAME EXPECTED_NODE EXPECTED_STATE [sbatch options]: a one-CPU job
# in high, with every node full of debug's jobs, starts on EXPECTED_NODE;
# the low job there (and only that one) ends up in EXPECTED_STATE.
preempt() {
  local name=$1 want=$2 wstate=$3 id
  shift 3
  fill
  id=$(sbatch --parsable -p high -N1 -n1 -t 5 -o /dev/null "$@" --wrap 'sleep 120')
  poll 60 job_running "$id" || true
  check_preemption "preemption, $name" "$id" "$want" "$wstate" low %P
  scancel "$id" "${low[@]}" 2>/dev/null
}
preempt "REQUEUE, LASTAVAILABLE" n4 PENDING
check_match "the preempted job was requeued by Slurm" "preempted JobId=${low[n4]} has been requeued" \
  "$(grep 'preempted JobId' "$log" | tail -1)"
preempt "REQUEUE, FIRSTAVAILABLE (job option)" n1 PENDING "$first"
preempt "REQUEUE, FASTEST (job option)" n3 PENDING --psi-alloc-policy=fastest
scontrol update PartitionName=debug PreemptMode=CANCEL
preempt "CANCEL, LASTAVAILABLE" n4 PREEMPTED
preempt "CANCEL, FIRSTAVAILABLE (job option)" n1 PREEMPTED "$first"
scontrol update PartitionName=debug PreemptMode=REQUEUE
check_eq "node weights after the preemptions are the configured ones" "n1:1 n2:1 n3:1 n4:1" \
  "$(scontrol -o show node | sed -n 's/^NodeName=\([^ ]*\) .* Weight=\([0-9]*\) .*/\1:\2/p' | paste -sd' ')"
# Preemption by QOS (preempt/qos) needs slurmdbd: integration_qos.
settle
check_eq "after the preemptions, LASTAVAILABLE on an idle cluster: n4" n4 "$(srun_node)"

# ------------------------------------------------------------ reservations
scontrol create reservation ReservationName=r12 Nodes=n1,n2 StartTime=now Duration=30 Users=root >/dev/null
check_eq "reservation on n1,n2: LASTAVAILABLE inside it gives n2" n2 "$(srun_node --reservation=r12)"
check_eq "reservation on n1,n2: FIRSTAVAILABLE inside it gives n1" n1 "$(srun_node --reservation=r12 "$first")"
check_eq "reservation on n1,n2: a job outside it, LASTAVAILABLE, n4" n4 "$(srun_node)"
scontrol delete ReservationName=r12
scontrol create reservation ReservationName=maint Nodes=n4 StartTime=now Duration=30 Users=root \
  Flags=MAINT >/dev/null
check_eq "MAINT reservation on n4: a job outside it, LASTAVAILABLE, takes the next node (n3)" n3 \
  "$(srun_node)"
check_eq "MAINT reservation on n4: a job in it runs on n4" n4 "$(srun_node --reservation=maint)"
scontrol delete ReservationName=maint
scontrol create reservation ReservationName=flex Nodes=n3,n4 StartTime=now Duration=30 Users=root \
  Flags=FLEX >/dev/null
check_eq "FLEX reservation on n3,n4: -N1, FIRSTAVAILABLE: a reservation node first (n3)" n3 \
  "$(nodes_of --reservation=flex -N1 -n1 "$first")"
check_eq "FLEX reservation on n3,n4: -N3, LASTAVAILABLE: both, then the policy's n2 outside" \
  "n2 n3 n4" "$(nodes_of --reservation=flex -N3 -n3)"
check_eq "FLEX reservation on n3,n4: -N3, FIRSTAVAILABLE: both, then the policy's n1 outside" \
  "n1 n3 n4" "$(nodes_of --reservation=flex -N3 -n3 "$first")"
scontrol delete ReservationName=flex
# LASTAVAILABLE's time fit against a reservation in the future is checked
# by integration_policies on every release.

# ------------------------------------------------------------ --prefer
check_eq "--prefer=intel (n2, n4), LASTAVAILABLE: n4" n4 "$(srun_node --prefer=intel)"
check_eq "--prefer=intel, FIRSTAVAILABLE: n2" n2 "$(srun_node --prefer=intel "$first")"
# (A job whose preferred nodes exist but are busy waits for them on 22.05:
# Slurm drops a preference only when no node could ever satisfy it.)
out=$(nodes_of -N3 -n3 --prefer=intel)
check_match "--prefer with more nodes than the preferred feature has is refused by Slurm at submission" \
  'Requested node configuration is not available' "$out"

# ------------------------------------------------------------ counted features
if [ "$PSIPLACE_SLURM" = 22.05 ]; then
  check_eq "-C '[intel*1&fast*1]' -N2, LASTAVAILABLE: intel n4, fast n3" "n3 n4" \
    "$(nodes_of -N2 -n2 -C '[intel*1&fast*1]')"
  check_match "-C '[intel*1&fast*1]' -N2, FIRSTAVAILABLE: intel n2 first, then a fast node" \
    '^n2 n[34]$' "$(nodes_of -N2 -n2 -C '[intel*1&fast*1]' "$first")"
else
  skip "counted features -C '[intel*1&fast*1]'" \
    "on Slurm $PSIPLACE_SLURM plain select/cons_tres leaves such a job pending (Reason=Resources) on the idle testbed"
fi

# ------------------------------------------------------------ --exclusive=user, --spread-job
settle
nb=$(sbatch --parsable --uid=65534 -D /tmp -w n4 -n1 -t 5 -o /dev/null --wrap 'sleep 120')
poll 60 job_running "$nb"
SETTLE_KEEP=$nb
check_eq "another user's job on n4: LASTAVAILABLE still takes n4 (it has room)" n4 "$(srun_node)"
check_eq "another user's job on n4: --exclusive=user, LASTAVAILABLE: n3" n3 \
  "$(srun_node --exclusive=user)"
scancel "$nb"
SETTLE_KEEP=
# The allocation, not a step: 26.05's srun cannot start a step of a
# --spread-job allocation here.  "NODE NODE" of a batch job once it runs.
alloc_nodes() {
  local id got
  settle
  id=$(sbatch --parsable -t 1 -o /dev/null "$@" --wrap 'sleep 5') || return 1
  poll 60 job_running "$id" || { echo "job $id: $(job_state "$id")"; return 1; }
  got=$(node_of "$id")
  scancel "$id"
  scontrol show hostnames "$got" | paste -sd' '
}
check_eq "--spread-job -N1-2 -n2: Slurm's count (2 nodes), LASTAVAILABLE's n3, n4" "n3 n4" \
  "$(alloc_nodes -N1-2 -n2 --spread-job)"
check_eq "--spread-job -N1-2 -n2, FIRSTAVAILABLE: n1, n2" "n1 n2" \
  "$(alloc_nodes -N1-2 -n2 --spread-job "$first")"

# ------------------------------------------------------------ LLN
# One CPU of n1 busy.  Which node is least loaded is cons_tres's
# (22.05, 24.11: the highest share of free CPUs, n2; 26.05 compares the
# CPUs the job can use, which gives n1): the policy must not change it.
settle
b1=$(sbatch --parsable -w n1 -n1 -t 5 -o /dev/null --wrap 'sleep 120')
poll 60 job_running "$b1"
SETTLE_KEEP=$b1
lln_last=$(srun_node -p lln)
lln_first=$(srun_node -p lln "$first")
check_match "LLN=YES partition: cons_tres's least loaded node ($lln_last), not LASTAVAILABLE's n4" \
  '^n[1-3]$' "$lln_last"
check_eq "LLN=YES partition: the job's FIRSTAVAILABLE gives the same node (LLN wins)" "$lln_last" \
  "$lln_first"
if [ "$PSIPLACE_SLURM" != 26.05 ]; then
  check_eq "LLN=YES partition on $PSIPLACE_SLURM: n2 (the highest share of free CPUs)" n2 \
    "$lln_last"
fi
check_eq "debug partition (no LLN), FIRSTAVAILABLE: n1" n1 "$(srun_node "$first")"
scancel "$b1"
SETTLE_KEEP=
lln_lines() { grep -c 'partitions with LLN=YES: ' "$log"; }
check_eq "one log line for the LLN partitions since start (partition updates add none)" 1 "$(lln_lines)"
check_match "it names the partition" 'partitions with LLN=YES: lln: their jobs are placed least-loaded' \
  "$(grep 'partitions with LLN=YES' "$log")"
# A change of the LLN partitions is logged again at the next decision.
scontrol update PartitionName=high LLN=YES
check_eq "high made LLN=YES: its jobs get cons_tres's least loaded node (n1 idle again: n1)" n1 \
  "$(srun_node -p high)"
check_match "the new set is logged at the next decision" 'partitions with LLN=YES: high,lln:|partitions with LLN=YES: lln,high:' \
  "$(grep 'partitions with LLN=YES' "$log" | tail -1)"
scontrol update PartitionName=high LLN=NO

tb_finish
