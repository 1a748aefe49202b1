#!/usr/bin/env bash
# Every node allocation policy picks the expected nodes in a real Slurm
# (TAP output).  The testbed's nodes: n1 1x4 cores 2000 MB, n2 2x4 8000 MB
# (2 GPUs), n3 2x8 16000 MB (2 GPUs), n4 2x6 4000 MB; psiplace.conf gives
# Speed n1 1.0, n2 2.0, n3 3.0, n4 0.5 and Priority n1 10, n2 20, n3 5,
# n4 1; loads come from the metrics file.
source "$(dirname "$0")/lib.sh"
export PSIPLACE_POLICY=LASTAVAILABLE
tb_start
work=$(mktemp -d)
trap '"$cluster" stop >/dev/null 2>&1; rm -rf "$work"' EXIT
metrics=$PSIPLACE_TESTBED_DIR/etc/metrics
raw=${PSIPLACE_SUBMIT_RAW:-$PSIPLACE_BUILD_DIR/tests/integration/submit_raw}
nodes_of() { settle; timeout 60 srun "$@" bash -c 'echo $SLURMD_NODENAME' 2>&1 | sort | paste -sd,; }
# Submit through the C API with a job environment (as the SPANK plugin would set it).
raw_node() {
  local out=$work/raw.$RANDOM id
  id=$(cd "$work" && "$raw" "$out" "$@") || { echo "submit failed"; return; }
  poll 60 job_done "$id"
  cat "$out" 2>/dev/null
}

# --- CPULOAD: most CPUs free after max(allocated, load1)
set_metrics "n1 load1=0" "n2 load1=1" "n3 load1=15" "n4 load1=11"
check_eq "CPULOAD takes the node with most CPUs free of load (n2: 8-1)" n2 "$(srun_node --psi-alloc-policy=cpuload)"
set_metrics "n1 load1=0" "n2 load1=8" "n3 load1=15" "n4 load1=11"
check_eq "CPULOAD follows a rewritten metrics file (n1: 4-0)" n1 "$(srun_node --psi-alloc-policy=ProcessorLoad)"
set_metrics "n1 load1=0" "n2 load1=0" "n3 load1=0" "n4 load1=0"

# --- MINRESOURCE, FASTEST, PRIORITY (node Priority)
# n1 is also the first fit: a baseline; the cases after it tell MINRESOURCE
# from index order (checked with the plugin forced to FIRSTAVAILABLE)
check_eq "MINRESOURCE takes the smallest configured node (n1)" n1 "$(srun_node --psi-alloc-policy=minresource)"
# index order would give n1,n2 and the cluster's LASTAVAILABLE n3,n4
check_eq "MINRESOURCE -N2 takes the two smallest, n1 (2000 MB) and n4 (4000 MB)" "n1,n4" \
  "$(nodes_of -N2 --psi-alloc-policy=minresource)"
check_eq "MINRESOURCE without n1 takes n4, not the first (n2) or the largest (n3)" n4 \
  "$(srun_node -x n1 --psi-alloc-policy=minresource)"
# n1 has 4 cores: 5 CPUs per task leave n2, n3, n4, and index order would give n2
check_eq "MINRESOURCE -c5 (n1 too small) takes n4 (4000 MB), not the first fit n2" n4 \
  "$(srun_node -c5 --psi-alloc-policy=minresource)"
check_eq "FASTEST takes the highest Speed (n3)" n3 "$(srun_node --psi-alloc-policy=fastest)"
check_eq "NodeSpeed alias, two nodes: n3,n2" "n2,n3" "$(nodes_of -N2 --psi-alloc-policy=NodeSpeed)"
check_eq "PRIORITY without functions uses node Priority (n2)" n2 "$(srun_node --psi-alloc-policy=priority)"

# --- set policies
check_eq "MAXBALANCE -N2 takes the smallest Speed span (n1 1.0, n4 0.5)" "n1,n4" \
  "$(nodes_of -N2 --psi-alloc-policy=maxbalance)"
# a baseline (index order gives it too); the next cases do not
check_eq "CONTIGUOUS -N2 on an idle cluster takes n1,n2" "n1,n2" "$(nodes_of -N2 --psi-alloc-policy=contiguous)"
# idle, a candidate left out: index order would give n1,n3 (n2 out) and
# LASTAVAILABLE n2,n4 (n3 out); the first run of two adjacent candidates:
check_eq "CONTIGUOUS -N2 without n2 takes the run n3,n4 (FIRSTAVAILABLE: n1,n3)" "n3,n4" \
  "$(nodes_of -N2 -x n2 --psi-alloc-policy=contiguous)"
# idle, the candidates narrowed by features (n1 arm; n3, n4 fast): the first
# free run of two is n3,n4, not at index 0 (index order: n1,n3)
check_eq "CONTIGUOUS -N2 -C 'arm|fast' takes the run n3,n4 (FIRSTAVAILABLE: n1,n3)" "n3,n4" \
  "$(nodes_of -N2 -C 'arm|fast' --psi-alloc-policy=contiguous)"
check_eq "CONTIGUOUS -N2 without n3 takes the run n1,n2 (LASTAVAILABLE: n2,n4)" "n1,n2" \
  "$(nodes_of -N2 -x n3 --psi-alloc-policy=contiguous)"
check_eq "... while FIRSTAVAILABLE without n2 takes n1,n3" "n1,n3" \
  "$(nodes_of -N2 -x n2 --psi-alloc-policy=firstavailable)"
release=$work/release
hold='deadline=$((SECONDS+120)); until [ -e '"$release"' ] || [ $SECONDS -ge $deadline ]; do sleep 0.1; done'
busy=$(sbatch --parsable --exclusive -w n2 -o /dev/null --wrap "$hold")
SETTLE_KEEP=$busy
if poll 60 job_running "$busy"; then
  check_eq "CONTIGUOUS -N2 with n2 busy takes the run n3,n4" "n3,n4" "$(nodes_of -N2 --psi-alloc-policy=contiguous)"
  check_eq "FIRSTAVAILABLE -N2 with n2 busy takes n1,n3" "n1,n3" "$(nodes_of -N2 --psi-alloc-policy=firstavailable)"
else
  not_ok "exclusive job on n2 runs" "state $(job_state "$busy")"
fi
touch "$release"; poll 60 job_done "$busy"
SETTLE_KEEP=

# --- PRIORITYF: cluster default, node's own, the job's own
"$cluster" plugstack NodeAllocationPolicy=PRIORITY 'PriorityFunction="SPEED"' >/dev/null
check_eq "cluster PriorityFunction=SPEED under PRIORITY takes n3" n3 "$(srun_node)"
check_eq "job PRIORITYF -SPEED overrides the cluster function (n4)" n4 \
  "$(raw_node PSIPLACE_ALLOC_PRIORITY=-SPEED)"
check_eq "srun --psi-alloc-priority=-SPEED overrides the cluster function (n4)" n4 \
  "$(srun_node --psi-alloc-priority=-SPEED)"
before=$(sbatch --parsable --hold -o /dev/null --wrap true); scancel "$before"
out=$(timeout 60 srun --psi-alloc-priority='2*SPEEED' true 2>&1); rc=$?
check_eq "a bad --psi-alloc-priority: non-zero exit, one psiplace error line" "1 1" \
  "$([ $rc -ne 0 ] && echo 1 || echo 0) $(printf '%s\n' "$out" | grep -c '^psiplace: error: ')"
check_match "the error gives the position and the unknown name" \
  "^psiplace: error: --psi-alloc-priority: position 3: unknown component 'SPEEED'" "$out"
out=$(timeout 60 srun --psi-alloc-priority=SPEED --psi-alloc-policy=fastest true 2>&1); rc=$?
check_match "--psi-alloc-priority with another explicit policy is an error naming both" \
  '^psiplace: error: .*--psi-alloc-priority.*--psi-alloc-policy|^psiplace: error: .*--psi-alloc-policy.*--psi-alloc-priority' "$out"
after=$(sbatch --parsable --hold -o /dev/null --wrap true); scancel "$after"
check_eq "rejected PRIORITYF jobs did not advance the job id counter" $((before + 1)) "$after"
check_eq "job PRIORITYF with constants and components: 10*FEATURE[arm] - CPROCS (n1)" n1 \
  "$(raw_node 'PSIPLACE_ALLOC_PRIORITY=10*FEATURE[arm] - CPROCS')"
check_eq "a malformed job PRIORITYF falls back to the cluster default (n3)" n3 \
  "$(raw_node 'PSIPLACE_ALLOC_PRIORITY=SPEED[')"
check_match "slurmctld named the job and the position of the error" \
  'malformed psiplace request, using the cluster default: PSIPLACE_ALLOC_PRIORITY: position' \
  "$(cat "$PSIPLACE_TESTBED_DIR/log/slurmctld.log")"
check_eq "a job policy overrides the cluster PRIORITY (firstavailable: n1)" n1 \
  "$(srun_node --psi-alloc-policy=firstavailable)"

# --- LASTAVAILABLE fits in time before reservations
"$cluster" plugstack NodeAllocationPolicy=LASTAVAILABLE >/dev/null
scontrol create reservation ReservationName=later StartTime=now+3hours Duration=60 Nodes=n3 Users=root >/dev/null
check_eq "LASTAVAILABLE, 1-hour job: n3, whose reservation starts soonest after the job ends" n3 \
  "$(srun_node -t 60)"
check_eq "LASTAVAILABLE, 10-hour job: n3 is blocked by its reservation, n4" n4 "$(srun_node -t 600)"
scontrol delete ReservationName=later
check_eq "LASTAVAILABLE without reservations: n4" n4 "$(srun_node -t 60)"

# --- a reservation by node count under a policy (doc/select.md, "Reservations").
# Up to 23.02 slurmctld picks its nodes with select_g_resv_test, which the
# plugin forwards to cons_tres: index order, n[1-2], not the policy's n[3-4].
# From 23.11 reservation.c:_resv_select asks select_g_job_test (will-run)
# with a job record of its own, which goes through the policy and the
# ranked tier: the nodes a 2-node exclusive job gets.  Either way slurmctld
# stays up, a job in the reservation runs on its nodes and will-run answers
# inside and outside it.
hosts() { scontrol show hostnames "$1" 2>/dev/null | paste -sd,; }
resv_nodes() { scontrol show reservation "$1" 2>/dev/null | sed -n 's/.* Nodes=\([^ ]*\).*/\1/p'; }
# the nodes a will-run answer names: "... on nodes n[1-2] in partition ..."
willrun_nodes() { hosts "$(printf '%s\n' "$1" | sed -n 's/.* on nodes \([^ ]*\) in partition.*/\1/p')"; }
policy_pair=$(nodes_of -N2 --exclusive)
out=$(scontrol create reservation ReservationName=cnt NodeCnt=2 StartTime=now Duration=10 Users=root 2>&1)
check_match "a NodeCnt=2 reservation under LASTAVAILABLE is created" '^Reservation created: cnt' "$out"
rnodes=$(hosts "$(resv_nodes cnt)")
case $PSIPLACE_SLURM in
  22.05|23.02)
    check_eq "$PSIPLACE_SLURM: the reservation gets cons_tres's resv_test nodes (index order), not the policy's ($policy_pair)" \
      "n1,n2" "$rnodes" ;;
  *)
    check_eq "$PSIPLACE_SLURM: the reservation gets the policy's nodes for a 2-node exclusive job" \
      "$policy_pair" "$rnodes" ;;
esac
check_match "slurmctld is up after the reservation" 'UP' "$(scontrol ping)"
check_eq "a job in the reservation runs on its nodes" "$rnodes" "$(nodes_of --reservation=cnt -N2)"
out=$(timeout 60 srun --test-only --reservation=cnt -N2 true 2>&1)
check_eq "srun --test-only in the reservation: its nodes" "$rnodes" "$(willrun_nodes "$out")" "$out"
out=$(timeout 60 sbatch --test-only -N2 -o /dev/null --wrap true 2>&1)
others=$(comm -23 <(printf 'n1\nn2\nn3\nn4\n') <(printf '%s\n' "${rnodes//,/$'\n'}") | paste -sd,)
check_eq "sbatch --test-only outside the reservation: the two other nodes" "$others" \
  "$(willrun_nodes "$out")" "$out"
scontrol delete ReservationName=cnt
check_match "slurmctld is up after the reservation is deleted" 'UP' "$(scontrol ping)"

# --- LASTAVAILABLE in backfill's plans fits from the planned start, not from
# now (RELIABILITY R4).  n3 and n4 are busy for an hour with one core free
# each (the engine ranks only nodes with a CPU free); a 2-CPU, 1-hour job
# that may only use them (-x n1,n2) starts when they free.  backfill plans it (SchedNodeList) with will-run calls of
# select_g_job_test.  It clears pending jobs' start_time each cycle, so its
# first call plans from now; for a job that is not --exclusive _try_sched
# (backfill.c) asks again once that answer lies in the future, and the plugin
# passes the start found to the engine.  n3 reserved in 3 hours: the job fits
# before the reservation on n3, which ranks before n4 (no reservation).  In
# 90 minutes: it would fit if it started now (ends in 1 h), not at its
# planned start (ends in 2 h), so n4; the old plugin's start of 1 s gave n3.
plan_release=$work/release.plan
plan_hold='deadline=$((SECONDS+900)); until [ -e '"$plan_release"' ] || [ $SECONDS -ge $deadline ]; do sleep 0.5; done'
sched_nodes() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*SchedNodeList=\([^ ]*\).*/\1/p'; }
sched_nodes_are() { [ "$(sched_nodes "$1")" = "$2" ]; }
# seconds from now to the job's planned start
planned_in() { echo $(( $(date -d "$(squeue -h -j "$1" -o %S)" +%s) - $(date +%s) )); }
settle
busy3=$(sbatch --parsable -w n3 -n15 -t 60 -o /dev/null --wrap "$plan_hold")
busy4=$(sbatch --parsable -w n4 -n11 -t 60 -o /dev/null --wrap "$plan_hold")
if poll 60 job_running "$busy3" && poll 60 job_running "$busy4"; then
  scontrol create reservation ReservationName=plan StartTime=now+3hours Duration=60 Nodes=n3 \
    Users=root >/dev/null
  planned=$(sbatch --parsable -x n1,n2 -N1 -n2 -t 60 -o /dev/null --wrap true)
  # backfill runs every 30 s (bf_interval)
  poll 90 sched_nodes_are "$planned" n3
  check_eq "backfill plan, LASTAVAILABLE: n3, reserved in 3 h, after the planned end in 2 h" n3 \
    "$(sched_nodes "$planned")" "$(squeue --start -j "$planned" 2>&1)"
  in=$(planned_in "$planned")
  check_eq "the plan starts when n3 and n4 free, in about an hour" 1 \
    "$([ "$in" -gt 3000 ] && [ "$in" -le 3600 ] && echo 1 || echo 0)" "starts in $in s"
  scontrol update ReservationName=plan StartTime=now+90minutes Duration=60 >/dev/null
  poll 90 sched_nodes_are "$planned" n4
  check_eq "backfill plan, n3 reserved in 90 min, before the planned end: n4 (fit from now: n3)" n4 \
    "$(sched_nodes "$planned")" "$(squeue --start -j "$planned" 2>&1)"
  scancel "$planned"
  scontrol delete ReservationName=plan
else
  not_ok "jobs filling n3 and n4 run" "states $(job_state "$busy3") $(job_state "$busy4")"
fi
touch "$plan_release"; poll 60 job_done "$busy3"; poll 60 job_done "$busy4"

# --- the site's Weight tiers stay the major key unless PolicyOverridesWeight=yes
scontrol update NodeName=n4 Weight=10
check_eq "n4 in a heavier Weight tier: LASTAVAILABLE takes n3" n3 "$(srun_node)"
"$cluster" plugstack NodeAllocationPolicy=LASTAVAILABLE PolicyOverridesWeight=yes >/dev/null
scontrol update NodeName=n4 Weight=10 # reconfigure restored slurm.conf's Weight
check_eq "n4 is still in the heavier tier" "Weight=10" "$(scontrol show node n4 | grep -o 'Weight=[0-9]*')"
check_eq "PolicyOverridesWeight=yes: LASTAVAILABLE takes n4 despite its Weight" n4 "$(srun_node)"
"$cluster" plugstack NodeAllocationPolicy=LASTAVAILABLE >/dev/null # also restores Weight=1

# --- site files: a bad metrics line is skipped, a bad psiplace.conf is fatal at start
# n2, without a load of its own, keeps slurmd's (this machine's, which on
# a shared test machine can exceed n2's 8 CPUs); the others get a load far
# above their CPUs, so n2 wins unless this machine's load passes 90
set_metrics "n1 load1=100" "n2 load1=oops" "n3 load1=100" "n4 load1=100"
check_eq "a malformed metrics line is skipped (n2 keeps no load): CPULOAD takes n2" n2 \
  "$(srun_node --psi-alloc-policy=cpuload)"
check_match "slurmctld logged the skipped metrics line" 'metrics:2: not a number, line skipped' \
  "$(cat "$PSIPLACE_TESTBED_DIR/log/slurmctld.log")"
check_match "slurmctld still answers" 'UP' "$(scontrol ping)"

# --- the metrics file is read by a thread of its own: a FIFO, a huge file or
# no file is refused there (logged once), and decisions go on without its
# values, never waiting.  With the values n1 is the only node with free
# CPUs; without them slurmd's own loads count and the biggest node, n3, wins.
ctld_log=$PSIPLACE_TESTBED_DIR/log/slurmctld.log
log_count() { grep -c -- "$1" "$ctld_log"; }
log_count_above() { [ "$(log_count "$1")" -gt "$2" ]; }
# replace_metrics WHAT LOG-TEXT: replace the file by WHAT, wait for LOG-TEXT
replace_metrics() {
  local before; before=$(log_count "$2")
  rm -f "$metrics"
  case $1 in
    fifo) mkfifo "$metrics" ;;
    huge) head -c 200M /dev/urandom >"$metrics.new" && mv "$metrics.new" "$metrics" ;;
    none) ;;
  esac
  poll 20 log_count_above "$2" "$before"
}
set_metrics "n1 load1=0" "n2 load1=8" "n3 load1=16" "n4 load1=12"
check_eq "metrics: only n1 has CPUs free of load: CPULOAD takes n1" n1 "$(srun_node --psi-alloc-policy=cpuload)"
replace_metrics fifo "metrics file: $metrics: not a regular file; its values are dropped"
check_eq "metrics file replaced by a FIFO: refused once in the log" 1 \
  "$(log_count "metrics file: $metrics: not a regular file")"
check_eq "FIFO: the values are dropped, CPULOAD takes n3 at once" n3 "$(srun_node --psi-alloc-policy=cpuload)"
set_metrics "n1 load1=0" "n2 load1=8" "n3 load1=16" "n4 load1=12"
check_eq "a good file again: CPULOAD takes n1" n1 "$(srun_node --psi-alloc-policy=cpuload)"
replace_metrics huge "metrics file: $metrics: 209715200 bytes, more than the 67108864 accepted"
check_eq "200 MB of garbage: refused unread, CPULOAD takes n3" n3 "$(srun_node --psi-alloc-policy=cpuload)"
replace_metrics none "metrics file: $metrics: No such file or directory"
check_eq "metrics file removed: CPULOAD takes n3" n3 "$(srun_node --psi-alloc-policy=cpuload)"
check_match "slurmctld still answers" 'UP' "$(scontrol ping)"
# Only slurmctld stops: munged stays up (26.05 authenticates before plugins start).
ctld_pid=$(cat "$PSIPLACE_TESTBED_DIR/pids/slurmctld")
kill -TERM "$ctld_pid"
poll 30 bash -c "! kill -0 $ctld_pid 2>/dev/null" || not_ok "slurmctld stopped within 30 s"
conf_dir=$PSIPLACE_TESTBED_DIR/etc
cp "$conf_dir/psiplace.conf" "$work/psiplace.conf.good"
printf 'NodeName=n1 Speed=fast\n' >>"$conf_dir/psiplace.conf"
bad_line=$(wc -l <"$conf_dir/psiplace.conf")
: >"$PSIPLACE_TESTBED_DIR/log/slurmctld.log"
timeout 60 slurmctld -D -i -f "$SLURM_CONF" >/dev/null 2>&1; rc=$?
check_eq "slurmctld refuses to start with a bad psiplace.conf" 1 "$([ $rc -ne 0 ] && [ $rc -ne 124 ] && echo 1 || echo 0)"
check_match "the fatal line names the file and the line" \
  "fatal: select/psiplace_cons_tres: .*psiplace.conf:$bad_line: " "$(cat "$PSIPLACE_TESTBED_DIR/log/slurmctld.log")"
cp "$work/psiplace.conf.good" "$conf_dir/psiplace.conf"
tb_finish
