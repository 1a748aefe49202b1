#!/usr/bin/env bash
# The payoff of malleability on the testbed: one fixed workload of 20 jobs
# (4 nodes, whole nodes each, submitted at fixed offsets), a third of them
# malleable, run three times on the same testbed with psiplace-malleabled
# deciding every second:
#   start  the malleable jobs rigid at their start size (1 node)
#   max    the malleable jobs rigid at their maximum
#   mall   the malleable jobs --psi-malleable=1-MAX, starting on 1 node
# Every job is psiplace-resize-demo --malleable --work UNITS under MPICH
# ch3 (a fixed amount of work shared by its processes, one per node, each
# unit a short sum and a 0.2 s pause: little CPU), so a job that grows ends
# sooner.  Per run, from slurmdbd's records (sacct -D: every resize is a
# record; the helpers psiplace-grow-* left out, their nodes count in the
# job they merged into): makespan (first submission to last end), mean and
# p95 wait (first start - submission), utilisation (node-seconds held /
# (4 nodes x makespan)), node-hours, and the resizes.
#   bench_mall_payoff: mall: makespan 284 s, wait mean 125.0 s p95 214 s, utilisation 0.739, node-hours 0.233, resize records 4, load average 2.94
#   bench: mall_payoff_mall_makespan_slurm22.05 284 s
# and for the malleable run its resizes in order and what the daemon
# ordered, from its log:
#   bench_mall_payoff: mall: the daemon ordered 7 grows and 0 shrinks; acknowledged done 3, failed 0 (0 of them: helper not granted in time); 4 outstanding when their job ended
# Asserted (correctness only): every job COMPLETED, no helper left, the
# malleable jobs rigid in the first two runs, and resized at least once in
# the third.  Every run's records are exported for the simulator
# (BENCH_EXPORT_DIR, default the build directory:
# mall-payoff-RUN-sacct.txt, sacct -X -D -P: a resized job's records one a
# size, the earlier ones RESIZING, with a Comment column psi-malleable=1-MAX
# for the malleable jobs; mall-payoff-nodes.txt: scontrol -o show node):
#   psiplace simulate --trace build/mall-payoff-mall-sacct.txt \
#     --scontrol build/mall-payoff-nodes.txt --malleable trace
# and the malleable run's resizes are listed in their order
# ("bench_mall_payoff: mall: resizes: JOB FROM->TO ...").
# Environment: BENCH_INSTANCE (18), BENCH_RUNS ("start max mall"),
# BENCH_EXPORT_DIR, PSIPLACE_BUILD_DIR, PSIPLACE_SLURM.  Needs slurmdbd
# (MariaDB) and the cached MPICH; otherwise one "skipped" line.
set -uo pipefail
src=${PSIPLACE_SRC_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
export PSIPLACE_TEST_INSTANCE=${BENCH_INSTANCE:-18}
source "$src/tests/integration/lib.sh"
source "$src/tests/bench/bench_lib.sh"
runs=${BENCH_RUNS:-start max mall}
for r in $runs; do
  case $r in start | max | mall) ;; *) echo "bench_mall_payoff: BENCH_RUNS: '$r' is not start, max or mall" >&2; exit 2 ;; esac
done
export_dir=${BENCH_EXPORT_DIR:-$PSIPLACE_BUILD_DIR}
rel=_slurm$PSIPLACE_SLURM
mprefix=$("$src/contrib/testbed/mpich.sh" path 2>/dev/null) ||
  { echo "bench: mall_payoff skipped: MPICH ch3 not built (contrib/testbed/mpich.sh prefix)"; exit 0; }
"$src/contrib/testbed/cluster.sh" accounting-support >/dev/null 2>&1 ||
  { echo "bench: mall_payoff skipped: no slurmdbd on this machine ($("$src/contrib/testbed/cluster.sh" accounting-support 2>&1 | head -n 1))"; exit 0; }
work=$(mktemp -d)
mdemo=$("$src/contrib/testbed/mpich.sh" demo "$PSIPLACE_BUILD_DIR/mpich" 2>"$work/mpich-demo.log") ||
  { echo "bench_mall_payoff: the demo does not build with MPICH's mpicc:" >&2; tail -n 5 "$work/mpich-demo.log" >&2; exit 1; }
iface=$(ip -o route show default 2>/dev/null | awk '{print $5; exit}')
export PSIPLACE_ACCOUNTING=dbd PSIPLACE_MALLEABLED=1 PSIPLACE_MALLEABLED_ARGS="--interval 1"
export PSIPLACE_PSICONF_EXTRA=MalleableMinInterval=5 PSIPLACE_POLICY=LASTAVAILABLE
# four nodes of one size (2 CPUs), so that the three runs' node-hours are
# alike whatever nodes a job gets
export PSIPLACE_NODE_TABLE="n1:2 n2:2 n3:2 n4:2"
tb_start
trap '"$cluster" stop >/dev/null 2>&1; rm -rf "$work"' EXIT

# The workload: OFFSET NODES UNITS MAX (MAX 0: rigid; otherwise malleable
# 1-MAX, 1 node at its start).  Units per node
# about 50-150 (10-30 s at one iteration of 0.2 s per unit and process).
cat >"$work/jobs" <<'EOF'
0 2 200 0
0 1 120 4
3 4 240 0
5 1 100 0
8 1 160 3
10 2 120 0
12 3 300 0
15 1 140 4
18 2 160 0
20 1 60 0
22 1 180 2
25 4 200 0
28 2 240 0
30 1 120 4
33 1 80 0
36 3 180 0
40 1 150 3
42 2 100 0
45 1 90 0
48 1 160 4
EOF
# The batch script: NPROC processes (one per node; 1 for a malleable job,
# which grows by spawning), the work as its argument.
cat >"$work/job.sh" <<EOF
#!/bin/bash
export HYDRA_LAUNCHER_EXTRA_ARGS="--overlap --cpu-bind=none" PSIPLACE_MALL_POLL_INTERVAL=1 PSIPLACE_MALL_GROW_WAIT=30
if [ "\$2" = 1 ]; then hosts=\$SLURMD_NODENAME; else hosts=\$(scontrol show hostnames "\$SLURM_JOB_NODELIST" | paste -sd,); fi
exec timeout -k 10 600 env -u SLURMD_NODENAME $mprefix/bin/mpiexec -launcher slurm -rmk user \\
  -hosts "\$hosts" -iface ${iface:-eth0} -n "\$2" $mdemo --malleable --work "\$1"
EOF
chmod +x "$work/job.sh"

failed=0
fail() { echo "bench_mall_payoff: $*" >&2; failed=1; }
# p95 (nearest rank) of the numbers given
p95() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {i = int(0.95 * NR + 0.999999); print v[i < 1 ? 1 : i]}'; }
epoch() { date -d "$1" +%s; }

one_run() { # VARIANT
  local v=$1 t0 off n u max ids=() id args i first last excl
  settle
  t0=$(date +%s)
  while read -r off n u max; do
    while [ $(($(date +%s) - t0)) -lt "$off" ]; do sleep 0.2; done
    if [ "$max" = 0 ]; then
      args=(-N"$n" "$work/job.sh" "$u" "$n")
    else
      case $v in
        start) args=(-N1 "$work/job.sh" "$u" 1) ;;
        max) args=(-N"$max" "$work/job.sh" "$u" "$max") ;;
        mall) args=(-N1 --psi-malleable=1-"$max" "$work/job.sh" "$u" 1) ;;
      esac
    fi
    # whole nodes for the rigid jobs; the malleable ones (all three runs
    # alike) are not --exclusive: 22.05 refuses to merge a helper into an
    # exclusive job ("Unspecified error"), so one CPU per node
    excl=--exclusive
    [ "$max" = 0 ] || excl=""
    id=$(sbatch --parsable ${excl:+"$excl"} -t 15 -J "payoff-$v-$max" -o "$work/$v.%j.out" "${args[@]}") ||
      { fail "$v: sbatch ${args[*]} failed"; return; }
    ids+=("$id")
  done <"$work/jobs"
  all_done() { [ -z "$(squeue -h -o %i 2>/dev/null)" ]; }
  poll 900 all_done || fail "$v: the jobs did not end within 900 s: $(squeue -h -o '%i %j %T %D' | paste -sd';')"
  first=${ids[0]} last=${ids[-1]}
  # slurmdbd has the last records a few seconds after the ends
  recs() { sacct -n -X -D -P -j "$(IFS=,; echo "${ids[*]}")" -o JobIDRaw,JobName,Submit,Start,End,NNodes,State 2>/dev/null; }
  ended() { [ "$(recs | awk -F'|' '$7 !~ /RESIZING/' | grep -c -E 'COMPLETED|FAILED|CANCELLED|TIMEOUT')" -ge "${#ids[@]}" ]; }
  poll 60 ended || fail "$v: sacct has not every job's end"
  # times as seconds since the epoch
  recs | while IFS='|' read -r j name sb st en nn state; do
    echo "$j|$name|$(epoch "$sb")|$(epoch "$st")|$(epoch "$en")|$nn|$state"
  done >"$work/$v.recs"
  for i in "${ids[@]}"; do
    [ "$(awk -F'|' -v j="$i" '$1 == j && $7 !~ /RESIZING/ {print $7}' "$work/$v.recs")" = COMPLETED ] ||
      { fail "$v: job $i did not complete: $(grep "^$i|" "$work/$v.recs" | paste -sd';')"; sed 's/^/#   /' "$work/$v.$i.out" >&2; }
  done
  [ -z "$(squeue -h -o %j | grep '^psiplace-grow-')" ] || fail "$v: a helper is left in the queue"
  local resizes
  resizes=$(awk -F'|' '$7 ~ /RESIZING/' "$work/$v.recs" | wc -l)
  case $v in
    start | max) [ "$resizes" = 0 ] || fail "$v: $resizes resize records in a run without malleable jobs" ;;
    mall) [ "$resizes" -gt 0 ] || fail "mall: no malleable job was resized" ;;
  esac
  # the figures: per job its submission, first start, last end; node-seconds over its records
  awk -F'|' -v r="$resizes" -v v="$v" '
    { j = $1; s = $3; st = $4; e = $5
      # a resized job: its later records are submitted at the resize
      if (!(j in sub_)) { sub_[j] = s; start[j] = st; n++ }
      if (s < sub_[j]) sub_[j] = s
      if (st < start[j]) start[j] = st
      if (!(j in end_) || e > end_[j]) end_[j] = e
      ns += (e - st) * $6
      if (min_s == "" || s < min_s) min_s = s
      if (max_e == "" || e > max_e) max_e = e }
    END { for (j in sub_) print "wait", start[j] - sub_[j]
          mk = max_e - min_s
          printf "sum %d %.3f %.3f %d\n", mk, ns / (4 * mk), ns / 3600, r }' "$work/$v.recs" >"$work/$v.fig"
  local waits mk util nh mean
  waits=$(awk '$1 == "wait" {print $2}' "$work/$v.fig")
  read -r _ mk util nh resizes < <(grep '^sum' "$work/$v.fig")
  # shellcheck disable=SC2086
  mean=$(printf '%s\n' $waits | awk '{s += $1} END {printf "%.1f", s / NR}')
  # shellcheck disable=SC2086
  printf 'bench_mall_payoff: %s: makespan %d s, wait mean %s s p95 %s s, utilisation %s, node-hours %s, resize records %d, load average %s\n' \
    "$v" "$mk" "$mean" "$(p95 $waits)" "$util" "$nh" "$resizes" "$(load1)"
  echo "bench: mall_payoff_${v}_makespan$rel $mk s"
  echo "bench: mall_payoff_${v}_wait_mean$rel $mean s"
  # shellcheck disable=SC2086
  echo "bench: mall_payoff_${v}_wait_p95$rel $(p95 $waits) s"
  echo "bench: mall_payoff_${v}_utilisation$rel $util"
  echo "bench: mall_payoff_${v}_node_hours$rel $nh h"
  if [ "$v" = mall ]; then
    # the resizes in their order: a job's record after a RESIZING one
    # starts at the new size (a record of the same size, e.g. after
    # NumNodes=ALL or a shrink to the same nodes, is no resize)
    sort -t'|' -k1,1n -k4,4n "$work/$v.recs" | awk -F'|' '
      NR == 1 || $3 < t0 {t0 = $3}
      {r[NR] = $0} END {
        for (i = 2; i <= NR; i++) { split(r[i - 1], a, "|"); split(r[i], b, "|")
          if (a[1] == b[1] && a[6] != b[6]) print b[4] - t0, a[1], a[6] "->" b[6] } }' |
      sort -n -k1,1 >"$work/$v.resizes"
    printf 'bench_mall_payoff: mall: %d resizes (job from->to at seconds after the first submission):' \
      "$(wc -l <"$work/$v.resizes")"
    awk '{printf " %s %s at %d", $2, $3, $1} END {print ""}' "$work/$v.resizes"
    # what the daemon ordered and how the jobs acknowledged it (a grow
    # whose helper Slurm did not start within the job's wait is "failed")
    local mlog=$PSIPLACE_TESTBED_DIR/log/malleabled.out
    # (a job that ends while its grow's helper pends, computing on at its
    # size, leaves the order unacknowledged: "ended with decision N
    # outstanding")
    printf 'bench_mall_payoff: mall: the daemon ordered %d grows and %d shrinks; acknowledged done %d, failed %d (%d of them: helper not granted in time); %d outstanding when their job ended\n' \
      "$(grep -c ': grow [0-9]' "$mlog")" "$(grep -c ': shrink [0-9]' "$mlog")" \
      "$(grep -c 'acknowledged done' "$mlog")" "$(grep -c 'acknowledged failed' "$mlog")" \
      "$(grep -c 'acknowledged failed.*not_granted' "$mlog")" "$(grep -c 'ended with decision [0-9]* outstanding' "$mlog")"
  fi
  # the export for the simulator: this run's records (-D: every size of a
  # resized job), the malleable jobs marked in a Comment column by their range
  sacct -X -D -P -j "$(IFS=,; echo "${ids[*]}")" \
    -o JobIDRaw,JobName,Submit,Eligible,Start,End,Timelimit,NNodes,NCPUS,Partition,NodeList,State,Priority 2>/dev/null |
    awk -F'|' -v OFS='|' 'NR == 1 {print $0, "Comment"; next}
      {m = $2; sub(/^payoff-[a-z]+-/, "", m); print $0, (m + 0 > 0 ? "psi-malleable=1-" m : "")}' \
    >"$export_dir/mall-payoff-$v-sacct.txt"
  scontrol -o show node >"$export_dir/mall-payoff-nodes.txt"
  echo "bench_mall_payoff: the $v run's export for the simulator: $export_dir/mall-payoff-$v-sacct.txt ($export_dir/mall-payoff-nodes.txt)"
}

echo "bench_mall_payoff: release $(git -C "$src" describe --always --dirty 2>/dev/null || echo unknown)," \
  "Slurm $(sinfo -V | awk '{print $2}'), MPICH ch3, 4 nodes on $(nproc) cores, 20 jobs (7 malleable)," \
  "psiplace-malleabled --interval 1, MalleableMinInterval=5, load average $(cut -d' ' -f1-3 /proc/loadavg) at start"
for r in $runs; do one_run "$r"; done
echo "bench_mall_payoff: load average $(cut -d' ' -f1-3 /proc/loadavg) at end"
exit "$failed"
