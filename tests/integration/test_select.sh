#!/usr/bin/env bash
# select/psiplace_cons_tres against plain cons_tres (TAP output), issue 18:
#  A. the node COUNT a job gets is cons_tres's under a policy: the same jobs
#     (node ranges, --use-min-nodes, -n alone, --ntasks-per-node,
#     --spread-job) under SelectTypeParameters=CR_Core, CR_Core,CR_Pack_Nodes
#     and SchedulerParameters=pack_serial_at_end, first on a testbed with
#     SelectType=select/cons_tres, then with psiplace and LASTAVAILABLE
#     (RankedTier default and 0): real starts (salloc) and will-run answers
#     (sbatch --test-only) are compared node count by node count;
#  B. the ranked tier's answer equals the full decision's (RankedTier=0
#     against RankedTier=1000000, same job, same state) where cons_tres has
#     fallbacks that succeed on the tier only: a node range with memory
#     (CR_Core_Memory), a suspended job on a tier node (will-run), a job
#     that may share (OverSubscribe=YES with --oversubscribe).
# Testbed nodes: n1 4 CPUs 2000 MB, n2 8 CPUs 8000 MB, n3 16 CPUs 16000 MB,
# n4 12 CPUs 4000 MB; LASTAVAILABLE ranks n4, n3, n2, n1.
source "$(dirname "$0")/lib.sh"
export PSIPLACE_POLICY=LASTAVAILABLE
trap '"$cluster" stop >/dev/null 2>&1' EXIT
ctld_log=$PSIPLACE_TESTBED_DIR/log/slurmctld.log

restart() { "$cluster" stop >/dev/null 2>&1; tb_start >/dev/null; }
count() { [ -n "$1" ] && scontrol show hostnames "$1" 2>/dev/null | wc -l || echo none; }
# The nodes of a real start and of a will-run answer: "RUN WILLRUN"
run_nodes() { settle; timeout 60 salloc -Q "$@" printenv SLURM_JOB_NODELIST 2>/dev/null | tail -1; }
willrun() { timeout 60 sbatch --test-only "$@" --wrap true 2>&1; }
# (settled first: the real start just before it may still hold its node
# COMPLETING on a loaded machine, and the will-run then plans around it)
willrun_nodes() { settle; willrun "$@" | sed -n 's/.* on nodes \([^ ]*\) .*/\1/p'; }
# "RUN-COUNT WILLRUN-COUNT" of each job, one line per job
counts() {
  local j
  for j in "$@"; do
    # shellcheck disable=SC2086
    echo "$(count "$(run_nodes $j)") $(count "$(willrun_nodes $j)")"
  done
}
compare() { # LABEL "JOB..." CONS_TRES_COUNTS PSIPLACE_COUNTS
  local label=$1 i=0 j
  local -a jobs want got
  IFS=$'\n' read -r -d '' -a jobs <<<"$2"
  mapfile -t want <<<"$3"
  mapfile -t got <<<"$4"
  for j in "${jobs[@]}"; do
    [ -n "$j" ] || continue
    check_eq "$label: $j: node count (real start, will-run) is cons_tres's" "${want[$i]}" "${got[$i]}"
    i=$((i + 1))
  done
}
set_tier() { "$cluster" plugstack NodeAllocationPolicy=LASTAVAILABLE "RankedTier=$1" >/dev/null; }

# --- A. the node count ------------------------------------------------------
jobs_core="-N1-2 --use-min-nodes -n16
-n16
-n12
-N1-2 -n16
-N2-4 --use-min-nodes -n28
-N1-4 --ntasks-per-node=4 -n8
-N1-3 --ntasks-per-node=2 -n6
-N1-4 --spread-job -n4
-N1-4 -n2"
jobs_pack="-N1-2 --use-min-nodes -n16
-n16
-N2-4 --use-min-nodes -n28
-N1-3 --ntasks-per-node=2 -n6"
jobs_serial="-n1
-N1-2 --use-min-nodes -n16
-n16"

variant() { # LABEL SELECT_PARAMS SCHED_PARAMS JOBS
  local label=$1 jobs=$4 ref got0 got16
  mapfile -t list <<<"$jobs"
  export PSIPLACE_SELECT_PARAMS=$2 PSIPLACE_SCHED_PARAMS=$3
  PSIPLACE_SELECT=select/cons_tres restart
  ref=$(counts "${list[@]}")
  restart
  got16=$(counts "${list[@]}")
  compare "$label, RankedTier=16" "$jobs" "$ref" "$got16"
  set_tier 0
  got0=$(counts "${list[@]}")
  compare "$label, RankedTier=0" "$jobs" "$ref" "$got0"
  unset PSIPLACE_SELECT_PARAMS PSIPLACE_SCHED_PARAMS
}
variant "CR_Core" CR_Core "" "$jobs_core"
variant "CR_Core,CR_Pack_Nodes" CR_Core,CR_Pack_Nodes "" "$jobs_pack"
variant "pack_serial_at_end" CR_Core pack_serial_at_end "$jobs_serial"

# The count is cons_tres's under every policy (per job, --psi-alloc-policy),
# not only under the cluster's LASTAVAILABLE.
jobs_policies="-N1-2 --use-min-nodes -n16
-n16
-N2-4 --use-min-nodes -n28"
mapfile -t list <<<"$jobs_policies"
PSIPLACE_SELECT=select/cons_tres restart
ref=$(counts "${list[@]}")
restart
for p in firstavailable cpuload minresource maxbalance fastest contiguous priority; do
  got=$(for j in "${list[@]}"; do counts "$j --psi-alloc-policy=$p"; done)
  compare "CR_Core, --psi-alloc-policy=$p" "$jobs_policies" "$ref" "$got"
done

# --- B. the ranked tier's equality -------------------------------------------
hold() { sbatch --parsable -o /dev/null "$@" --wrap 'sleep 300'; }
tier_line() { grep -c "ranked tier of [0-9]* of [0-9]* nodes offered first: $1" "$ctld_log"; }

# B1/B2/B3 under CR_Core_Memory
export PSIPLACE_SELECT_PARAMS=CR_Core_Memory
restart
for tier in 0 1000000; do
  set_tier "$tier"
  scontrol setdebugflags +SelectType # reconfigure resets DebugFlags
  # A job holds one CPU and 3000 of n4's 4000 MB: n4 stays a candidate
  # for 2500 MB (slurmctld filters by RealMemory only), with 11 free CPUs.
  settle
  m=$(hold -w n4 -n1 --mem=3000)
  poll 30 job_running "$m" || not_ok "B1: the job holding n4's memory runs"
  SETTLE_KEEP=$m
  # B1: a node range whose tier (n4, n3) has CPUs but on n4 not the free
  # memory: offered the tier, cons_tres's consecutive pass succeeds with
  # min_nodes (n3 alone); the whole set gives req_nodes = 2 (n3 and n2).
  b1[$tier]=$(run_nodes -N1-2 -n2 --mem=2500)
  # B2: the job's memory in eligibility: n4 lacks it, so the tier of one
  # node is n3, and cons_tres takes it (before: the tier was n4, not enough).
  taken=$(tier_line taken)
  b2[$tier]=$(run_nodes -N1 -n1 --mem=2500)
  b2t[$tier]=$(( $(tier_line taken) - taken ))
  scancel "$m"
  SETTLE_KEEP= settle
  # B3: a suspended job holding 3000 MB of n4 (idle to slurmctld: no
  # running job, no allocated CPU): will-run of a job needing 2500 MB and
  # 9 CPUs (only n4 and n3 have them).  Offered n4 alone, cons_tres fails
  # "now" and simulates the suspended job's end: a future start on n4; the
  # whole set starts it now on n3.  (9 CPUs: with RankedTier=0 only n4 has
  # a rank of its own, and in will-run the nodes behind it come in
  # cons_tres's order, which would give n2 a 1-CPU job: doc/select.md.)
  settle
  s=$(hold -w n4 -n1 --mem=3000)
  poll 30 job_running "$s" || not_ok "B3: the job to suspend runs"
  scontrol suspend "$s"
  poll 30 sh -c "[ \"\$(scontrol show job $s | sed -n 's/.*JobState=\([A-Z]*\).*/\1/p')\" = SUSPENDED ]" ||
    not_ok "B3: job $s suspended"
  out=$(willrun -N1 -n9 --mem=2500)
  b3[$tier]="$(sed -n 's/.* on nodes \([^ ]*\) .*/\1/p' <<<"$out") $(grep -q 'to start at' <<<"$out" &&
    [ "$(date -d "$(sed -n 's/.*to start at \([^ ]*\) .*/\1/p' <<<"$out")" +%s)" -le $(( $(date +%s) + 5 )) ] && echo now || echo later)"
  scancel "$s"
  SETTLE_KEEP= settle
done
check_eq "B1: -N1-2 --mem=2500 under CR_Core_Memory: the tier's answer is the full decision's (${b1[1000000]})" \
  "${b1[1000000]}" "${b1[0]}"
check_eq "B1: the full decision gives req_nodes (2) nodes" 2 "$(count "${b1[1000000]}")"
check_eq "B2: -N1 --mem=2500: the tier's answer is the full decision's (${b2[1000000]})" "${b2[1000000]}" "${b2[0]}"
check_eq "B2: with the job's memory in eligibility the one-node tier (n3) is taken" 1 "${b2t[0]}"
check_eq "B3: will-run with a suspended job on n4: the tier's answer is the full decision's (${b3[1000000]})" \
  "${b3[1000000]}" "${b3[0]}"
check_eq "B3: the full decision starts it now on n3" "n3 now" "${b3[1000000]}"

# B4: OverSubscribe=YES:2 and --oversubscribe: a sharing job holds 11 of
# n4's 12 cores (one free, on one socket); a job of two nodes with cores on
# both sockets (--sockets-per-node=2) fits n4 only by sharing cores
# (cons_tres's later steps: an empty row).  Offered the tier (n4, n3) it
# shares n4; the whole set gives two idle nodes at step 1 (n3, n2).
# Without --oversubscribe the job cannot share, and the tier is offered.
unset PSIPLACE_SELECT_PARAMS
share_case() { # LABEL PARTITION_ARGS SHARE_FLAG [NO_SHARE: also a job that cannot share]
  local label=$1 flag=$3 noshare=${4:-} tier h
  local -A got got_n
  export PSIPLACE_PARTITION_ARGS=$2
  restart
  for tier in 0 1000000; do
    set_tier "$tier"
    settle
    # shellcheck disable=SC2086
    h=$(hold -w n4 -n11 $flag)
    poll 30 job_running "$h" || not_ok "$label: the job holding 11 CPUs of n4 runs"
    SETTLE_KEEP=$h
    # shellcheck disable=SC2086
    got[$tier]=$(run_nodes -N2 -n4 --sockets-per-node=2 $flag)
    [ -z "$noshare" ] || got_n[$tier]=$(run_nodes -N2 -n4 --sockets-per-node=2)
    scancel "$h"
    SETTLE_KEEP= settle
  done
  unset PSIPLACE_PARTITION_ARGS
  check_eq "$label: the tier's answer is the full decision's (${got[1000000]:-})" "${got[1000000]:-}" "${got[0]:-}"
  check_eq "$label: the full decision takes two idle nodes" "n[2-3]" "${got[1000000]:-}"
  [ -z "$noshare" ] ||
    check_eq "$label: without it (cannot share, the tier is offered) the same answer (${got_n[1000000]:-})" \
      "${got_n[1000000]:-}" "${got_n[0]:-}"
}
share_case "B4: OverSubscribe=YES:2, --oversubscribe" OverSubscribe=YES:2 --oversubscribe noshare
# FORCE: every job shares, no flag needed (gang scheduling needs FORCE too)
share_case "B5: OverSubscribe=FORCE:2" OverSubscribe=FORCE:2 ""

# B6: will-run where the tier would be every candidate (need + RankedTier
# >= candidates: backfill's large jobs) and RankedTier is below the
# candidates: the first `need` nodes of the order are offered alone
# (exact_first, doc/select.md "Backfill cycles"); the answer is the full
# decision's (RankedTier=1000000, which never takes the shortcut).  Then
# with a job on n4 (not settled in will-run): no shortcut, the same answer.
exact_line() { grep -c "the first $1 nodes of the order offered alone: taken" "$ctld_log"; }
restart
declare -A b6 b6h b6t
for tier in 1 1000000; do
  set_tier "$tier"
  scontrol setdebugflags +SelectType
  settle
  taken=$(exact_line 3)
  b6[$tier]=$(willrun_nodes -N3 -n3)
  b6t[$tier]=$(( $(exact_line 3) - taken ))
  h=$(hold -w n4 -n1)
  poll 30 job_running "$h" || not_ok "B6: the job on n4 runs"
  SETTLE_KEEP=$h
  taken=$(exact_line 3)
  b6h[$tier]="$(willrun_nodes -N3 -n3) $(( $(exact_line 3) - taken ))"
  scancel "$h"
  SETTLE_KEEP= settle
done
check_eq "B6: will-run -N3, RankedTier=1 (tier = all 4 candidates): the answer is the full decision's (${b6[1000000]})" \
  "${b6[1000000]}" "${b6[1]}"
check_eq "B6: the full decision gives LASTAVAILABLE's first three" "n[2-4]" "${b6[1000000]}"
check_eq "B6: RankedTier=1 took the first 3 nodes offered alone (slurmctld log)" 1 "${b6t[1]}"
check_eq "B6: RankedTier=1000000 never takes the shortcut" 0 "${b6t[1000000]}"
check_eq "B6: a job on n4: no shortcut, the full decision's answer (${b6h[1000000]})" \
  "${b6h[1000000]}" "${b6h[1]}"
check_eq "B6: a job on n4: the first 3 nodes were not offered alone" 0 "${b6h[1]##* }"

# B7: will-run needing every candidate (-N4 on the 4 nodes): all of them or
# none whatever the order, so cons_tres decides with its own weights (the
# policy's distinct weights made that O(n^2) in _eval_nodes).
all_line() { grep -c "will-run needs every one of the 4 nodes offered" "$ctld_log"; }
taken=$(all_line)
check_eq "B7: will-run -N4 on the 4 nodes gets them all" "n[1-4]" "$(willrun_nodes -N4 -n4)"
check_eq "B7: decided with cons_tres's own weights (slurmctld log)" 1 "$(( $(all_line) - taken ))"

# B8: will-run where the tier is offered (need + RankedTier below the 4
# candidates, as for backfill's small jobs): exact_first() inside
# tier_first() offers the first `need` nodes alone before the tier; the
# answer is the full decision's.  (B1-B3 use RankedTier=0, where the tier is
# the first `need` nodes and this step does not arise.)
declare -A b8 b8t
for tier in 1 1000000; do
  set_tier "$tier"
  scontrol setdebugflags +SelectType
  settle
  for k in 1 2; do
    taken=$(exact_line "$k")
    b8[$tier,$k]=$(willrun_nodes -N"$k" -n"$k")
    b8t[$tier,$k]=$(( $(exact_line "$k") - taken ))
  done
done
for k in 1 2; do
  check_eq "B8: will-run -N$k, RankedTier=1 (a tier of $((k + 1)) of 4): the full decision's answer (${b8[1000000,$k]})" \
    "${b8[1000000,$k]}" "${b8[1,$k]}"
  check_eq "B8: will-run -N$k, RankedTier=1: the first $k nodes offered alone and taken (slurmctld log)" 1 "${b8t[1,$k]}"
  check_eq "B8: will-run -N$k, RankedTier=1000000: never offered alone" 0 "${b8t[1000000,$k]}"
done
check_eq "B8: the full decision gives LASTAVAILABLE's first node and first two" "n4 n[3-4]" \
  "${b8[1000000,1]} ${b8[1000000,2]}"

# B9: a GRES job takes no shortcut (issue 30, finding 3): cons_tres's first
# pass keeps only the cores beside the requested GRES and a second pass,
# when no node is to spare, allows non-local GRES, so offered the first
# `need` nodes alone (or the tier) it can succeed where the whole set takes
# another node.  Will-run -N1 --gres=gpu:1 (candidates n3, n2): with
# RankedTier=1 the plugin before offered n3 alone (exact_first, logged
# "taken"); now neither exact_first nor the tier is offered, and the answer
# is the full decision's.
gres_taken() { grep -c "nodes of the order offered alone: taken\|ranked tier of [0-9]* of [0-9]* nodes offered first: taken" "$ctld_log"; }
declare -A b9 b9t
for tier in 1 1000000; do
  set_tier "$tier"
  scontrol setdebugflags +SelectType
  settle
  taken=$(gres_taken)
  b9[$tier]=$(willrun_nodes -N1 -n1 --gres=gpu:1)
  b9t[$tier]=$(( $(gres_taken) - taken ))
done
check_eq "B9: will-run -N1 --gres=gpu:1, RankedTier=1: the full decision's answer (${b9[1000000]})" \
  "${b9[1000000]}" "${b9[1]}"
check_eq "B9: a GRES job: no shortcut taken with RankedTier=1 (slurmctld log)" 0 "${b9t[1]}"

# On a testbed of PSIPLACE_NODE_TABLE's nodes under FIRSTAVAILABLE (their
# slurm.conf order): "WILL-RUN-NODES REAL-START-NODES" of the job with
# RankedTier=TIER and with 1000000 (the full decision) into ARRAY[TIER].
table_case() { # ARRAY TABLE TIER JOB...
  local -n into=$1
  local tier
  export PSIPLACE_NODE_TABLE=$2
  restart
  for tier in "$3" 1000000; do
    "$cluster" plugstack NodeAllocationPolicy=FIRSTAVAILABLE "RankedTier=$tier" >/dev/null
    scontrol setdebugflags +SelectType
    into[$tier]="$(willrun_nodes "${@:4}") $(run_nodes "${@:4}")"
  done
  unset PSIPLACE_NODE_TABLE
}

# B10: cons_tres's retry (issue 30, finding 2).  choose_nodes() retries a
# failed greedy pass with the low-CPU nodes removed.  20 nodes in policy
# order (FIRSTAVAILABLE: slurm.conf order) t01=8 CPUs, t02=2, t03..t19=6,
# t20=10; -N3 -n20 with RankedTier=16 (tier = the first 19): over the tier
# alone the first pass fails (8 + 2, then no node of 10) and the retry
# without t02 gives t01 t03 t04; the whole set's first pass reaches t20:
# t01 t02 t20.  The plugin before took the tier's answer (real start and
# will-run: t[01,03-04]); now it takes the tier only when its answer is the
# order's first nodes.
table="t01:8 t02:2"
for i in $(seq 3 19); do table="$table t$(printf %02d "$i"):6"; done
declare -A b10 b11
table_case b10 "$table t20:10" 16 -N3 -n20
check_eq "B10: -N3 -n20 over 8,2,6x17,10 CPUs, RankedTier=16: will-run and real start are the full decision's (${b10[1000000]})" \
  "${b10[1000000]}" "${b10[16]}"
check_eq "B10: the full decision's first pass takes t01 t02 t20" "t[01-02,20] t[01-02,20]" "${b10[1000000]}"

# B11: GRES beside the cores (issue 30, finding 3, the issue's shape).
# ga, gb: 2 sockets x 8 cores, gpu:1 with Cores=0-7; gc: no GPU; gd: 1
# socket x 16 cores, gpu:1.  -N1 -n12 --gres=gpu:1: cons_tres's first pass
# keeps only the 8 cores beside each GPU, so over the whole set only gd
# holds the job; offered ga alone (RankedTier=1) the second pass, allowing
# non-local GRES, succeeds on ga.  The plugin before: ga with RankedTier=1
# (will-run and real start), gd with 1000000.
table_case b11 "ga:16:2:gpu gb:16:2:gpu gc:16:2 gd:16:1:gpu" 1 -N1 -n12 --gres=gpu:1
check_eq "B11: -N1 -n12 --gres=gpu:1, GPUs on one of two sockets, RankedTier=1: will-run and real start are the full decision's (${b11[1000000]})" \
  "${b11[1000000]}" "${b11[1]}"
check_eq "B11: the full decision takes gd (16 cores beside its GPU)" "gd gd" "${b11[1000000]}"

# B12: the start a policy sees in will-run (issue 30, finding 4).  A job
# whose range is open (-n36 alone) is probed by count_first() with a
# will-run of cons_tres, which writes the job's start_time; the policy
# must see the job's start_time as backfill left it on entry.  n4 held
# (12 CPUs, 10 min), a -N4 job planned at its end, then -n36 -t 15: in
# backfill's will-runs the probe answers "at n4's end" (~600 s).  The
# plugin before: in 3 of 6 calls the policy saw 599 s where start_time on
# entry was 0; now the two agree in every call.
export PSIPLACE_SCHED_PARAMS=bf_interval=1
restart
unset PSIPLACE_SCHED_PARAMS
scontrol setdebugflags +SelectType
h=$(hold -w n4 -n12 -t 10)
poll 30 job_running "$h" || not_ok "B12: the job holding n4 runs"
hold -N4 -t 20 >/dev/null
p=$(hold -n36 -t 15)
sees() { grep "JobId=$p: will-run: the policy sees" "$ctld_log"; }
enough_sees() { [ "$(sees | wc -l)" -ge 6 ]; }
poll 60 enough_sees || not_ok "B12: backfill tried job $p six times"
b12=$(sees | sed -n 's/.*sees a start \([0-9]*\) s from now (the job.s start_time on entry: \([0-9]*\) s.*/\1 \2/p' |
  awk '$1 != $2' | wc -l)
check_eq "B12: will-run of -n36 (count_first's probe): the policy's start is the job's start_time on entry in every call" 0 "$b12"
scancel -u "$(id -un)"

# B13: the count of a few (issue 30, finding 8).  A range left open (-n
# alone, -N2-10) where the candidates end in a tail of identical idle
# nodes: count_first() asks cons_tres for the count over the head and the
# first MAX(M, head CPUs) + 1 tail nodes only, not all (shortcuts.c,
# few_probe).  h1 (4 CPUs), h2 (2), then u01..u16 (2 each) under
# LASTAVAILABLE: the counts are plain cons_tres's, the nodes of will-run
# and real start with RankedTier=1 are the full decision's
# (RankedTier=1000000, which never takes it), and the slurmctld log shows
# it taken; with a job on h1 (the head may be busy) the same.  Where it
# must not be taken the answers are the full decision's and the log shows
# none: a job on u16 (no idle tail), a GRES job (finding 3: only the job's
# GRES tells), B10's table, where cons_tres's retry decides (finding 2:
# -N3-4 -n20: at most 4 nodes cannot give 20 CPUs one at a time, and t20
# is alone of its kind).
few_line() { grep -c "count of a few: .*: taken" "$ctld_log"; }
# count_first's decisions (a range left open): 26.05 gives --ntasks-per-node
# jobs a fixed count, and will-run req_nodes = max_nodes
gives_line() { grep -c "cons_tres gives [0-9]* node" "$ctld_log"; }
u_table="h1:4 h2:2"
for i in $(seq 1 16); do u_table="$u_table u$(printf %02d "$i"):2"; done
b13_jobs=("-n3" "-n5" "-n2" "-N2-10 -n4" "-n4 --ntasks-per-node=1")
export PSIPLACE_NODE_TABLE=$u_table
PSIPLACE_SELECT=select/cons_tres restart
b13_ref=$(counts "${b13_jobs[@]}")
restart
declare -A b13 b13t b13c b13n
for tier in 1 1000000; do
  set_tier "$tier"
  scontrol setdebugflags +SelectType
  few=$(few_line) gives=$(gives_line)
  for j in "${b13_jobs[@]}"; do
    # shellcheck disable=SC2086
    b13[$tier,$j]="$(willrun_nodes $j) $(run_nodes $j)"
  done
  [ "$tier" = 1 ] && b13_got=$(for j in "${b13_jobs[@]}"; do read -r w r <<<"${b13[1,$j]}"; echo "$(count "$r") $(count "$w")"; done)
  b13t[$tier]=$(( $(few_line) - few ))
  b13n[$tier]=$(( $(gives_line) - gives ))
  for busy in h1 u16; do
    settle
    h=$(hold -w "$busy" -n1)
    poll 30 job_running "$h" || not_ok "B13: the job holding $busy runs"
    SETTLE_KEEP=$h
    few=$(few_line)
    b13[$tier,$busy]="$(willrun_nodes -n5) $(run_nodes -n5)"
    b13c[$tier,$busy]=$(( $(few_line) - few ))
    scancel "$h"
    SETTLE_KEEP= settle
  done
done
compare "B13: a head and an idle tail, RankedTier=1" "$(printf '%s\n' "${b13_jobs[@]}")" "$b13_ref" "$b13_got"
for j in "${b13_jobs[@]}"; do
  check_eq "B13: $j over h1 h2 u01..u16, RankedTier=1: will-run and real start are the full decision's (${b13[1000000,$j]})" \
    "${b13[1000000,$j]}" "${b13[1,$j]}"
done
check_eq "B13: RankedTier=1 took the count of a few in each of count_first's ${b13n[1]} decisions over the ${#b13_jobs[@]} jobs (will-run and real start, slurmctld log)" \
  "${b13n[1]} yes" "${b13t[1]} $([ "${b13n[1]}" -ge 8 ] && echo yes || echo "no: fewer than 8")"
check_eq "B13: RankedTier=1000000 never takes it" 0 "${b13t[1000000]}"
for busy in h1 u16; do
  check_eq "B13: -n5 with a job on $busy, RankedTier=1: the full decision's answer (${b13[1000000,$busy]})" \
    "${b13[1000000,$busy]}" "${b13[1,$busy]}"
done
check_eq "B13: -n5 with a job on h1 (head): the count of a few taken" yes \
  "$([ "${b13c[1,h1]}" -ge 2 ] && echo yes || echo "no: ${b13c[1,h1]}")"
check_eq "B13: -n5 with a job on u16 (no idle tail): no count of a few" 0 "${b13c[1,u16]}"
g_table=""
for i in $(seq 1 12); do g_table="$g_table g$(printf %02d "$i"):2:1:gpu"; done
declare -A b13g b13r
table_case b13g "$g_table" 1 -n3 --gres=gpu:1
check_eq "B13: -n3 --gres=gpu:1 on 12 identical nodes with a GPU, RankedTier=1: will-run and real start are the full decision's (${b13g[1000000]})" \
  "${b13g[1000000]}" "${b13g[1]}"
check_eq "B13: a GRES job: no count of a few (slurmctld log)" 0 "$(few_line)"
table_case b13r "$table t20:10" 1 -N3-4 -n20
check_eq "B13: -N3-4 -n20 over B10's 8,2,6x17,10 CPUs, RankedTier=1: will-run and real start are the full decision's (${b13r[1000000]})" \
  "${b13r[1000000]}" "${b13r[1]}"
check_eq "B13: no idle tail of its kind behind t20: no count of a few (slurmctld log)" 0 "$(few_line)"
unset PSIPLACE_NODE_TABLE

tb_finish
