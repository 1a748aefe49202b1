#!/usr/bin/env bash
# psiplace simulate against the real thing (TAP output): a generated trace
# of PSIPLACE_SIM_JOBS jobs (default 100; 1-4 nodes x 1-4 CPUs each, a
# `sleep` of 1-6 s, limits of 1-2 min) runs on the testbed under real
# sbatch and slurmctld with sched/backfill, once per policy; the jobs'
# records (jobcomp/filetxt: the testbed has no slurmdbd, so sacct has
# nothing to give) become the columns of the documented sacct export, and
# `psiplace simulate` replays that export on the testbed's own
# `scontrol show node -o`, psiplace.conf and plugstack line.  Per policy:
# the share of jobs the model gave exactly Slurm's nodes, and the rank
# correlation (Spearman) of start times.  doc/simulate.md explains where
# the two differ.
source "$(dirname "$0")/lib.sh"
cli=$PSIPLACE_BUILD_DIR/cli/psiplace
njobs=${PSIPLACE_SIM_JOBS:-100}
policies=${PSIPLACE_SIM_POLICIES:-FIRSTAVAILABLE LASTAVAILABLE CPULOAD}
# Thresholds the test asserts (doc/simulate.md: what was measured).
min_same=${PSIPLACE_SIM_MIN_SAME:-0.35}
# Start order (replayed): what it guards is the backfill model, the same
# for every policy (EASY instead of --backfill slurm measured 0.85):
# FIRSTAVAILABLE and LASTAVAILABLE, measured 0.928-0.976, assert 0.88.
# CPULOAD's choice turns on every node's free CPUs at the instant of the
# decision, so each end Slurm processes after a start of the same second
# (doc/simulate.md, difference 3; the more, the more slurmctld lags on a
# loaded machine) can change its node where the other two's fixed node
# orders do not, and a full replay compounds each such change (difference
# 6).  Measured 0.924-0.960 at load averages 0.2-2.9, 0.949 at 4.4, and
# 0.875 at 5.4 (a CI run; 0.938 on its re-run): CPULOAD asserts 0.85, and
# its own choices are checked decision by decision below.  The machine's
# load is not in it: the testbed's metrics file gives Slurm load1=0 for
# every node (it wins over slurmd's CPULoad), the model counts busy CPUs.
min_rho=${PSIPLACE_SIM_MIN_RHO:-0.88}
min_rho_cpuload=${PSIPLACE_SIM_MIN_RHO_CPULOAD:-0.85}
min_same_at=${PSIPLACE_SIM_MIN_SAME_AT:-0.50}
# Decision by decision: the issue's goal is 95 %; FIRSTAVAILABLE and
# LASTAVAILABLE measured 86-98 % with sleeps of 1-6 s on 22.05 and 26.05,
# 91-99 % with 2-12 s (job ends and starts in the same second decided the
# other way): the test asserts 80 % (one more same-second pass than the
# 86 % run; CI runs it on two releases) and prints the figure and every
# differing decision.
min_same_dec=${PSIPLACE_SIM_MIN_SAME_DEC:-0.80}
# CPULOAD: its choice turns on the free CPUs at the decision's instant
# (doc/simulate.md, "Decision by decision"): 82-95 % measured with 1-6 s,
# 79-93 % with 2-12 s (79 % in a run before the compression)
min_same_dec_cpuload=${PSIPLACE_SIM_MIN_SAME_DEC_CPULOAD:-0.75}
export PSIPLACE_JOBCOMP=1
# Scheduling at second resolution: the main loop and the backfill loop
# every second, backfill's reservation map in seconds (default 60).
export PSIPLACE_SCHED_PARAMS=bf_interval=1,sched_interval=1,bf_resolution=1
work=$(mktemp -d)
# PSIPLACE_SIM_KEEP=DIR: the exports, node tables and comparisons are kept there.
trap '"$cluster" stop >/dev/null 2>&1; [ -z "${PSIPLACE_SIM_KEEP:-}" ] || cp -r "$work/." "$PSIPLACE_SIM_KEEP"; rm -rf "$work"' EXIT

# The trace: "K P SLEEP LIMIT_MIN" per job, deterministic.
awk -v n="$njobs" 'function rnd() { s = (s * 1103515245 + 12345) % 2147483648; return s / 2147483648 }
  BEGIN { s = 7; for (i = 0; i < n; i++) {
    k = 1 + int(rnd() * 4); if (rnd() < 0.5) k = 1
    printf "%d %d %d %d\n", k, 1 + int(rnd() * 4), 1 + int(rnd() * 6), 1 + int(rnd() * 2) } }' >"$work/trace"

all_idle() { [ "$(sinfo -h -N -o %T | sort -u | paste -sd,)" = idle ]; }
mine_done() { local q; q=$(squeue -h -o %i) || return 1; [ -z "$q" ]; }
records() { local c; c=$(wc -l <"$PSIPLACE_TESTBED_DIR/log/jobcomp.txt" 2>/dev/null); echo "${c:-0}"; }
records_at_least() { [ "$(records)" -ge "$1" ]; }

# jobcomp/filetxt records as `sacct -a -X -P -o JobIDRaw,Submit,Eligible,
# Start,End,Timelimit,NNodes,NCPUS,ReqMem,ReqTRES,Partition,NodeList,State,
# Priority` prints them (ReqMem, ReqTRES, Priority empty: the testbed
# consumes no memory, priority/basic is submit order).
to_sacct() {
  echo 'JobIDRaw|Submit|Eligible|Start|End|Timelimit|NNodes|NCPUS|ReqMem|ReqTRES|Partition|NodeList|State|Priority'
  # a requeued job (a launch that failed on a loaded machine) has a record
  # per run: the last one is its own
  awk '/^JobId=/ { delete f; for (i = 1; i <= NF; i++) { p = index($i, "="); f[substr($i, 1, p - 1)] = substr($i, p + 1) }
    lim = f["TimeLimit"]; if (lim ~ /^[0-9]+$/) lim = sprintf("%02d:%02d:00", int(lim / 60), lim % 60)
    rec[f["JobId"]] = sprintf("%s|%s|%s|%s|%s|%s|%s|%s|||%s|%s|%s|", f["JobId"], f["SubmitTime"], f["EligibleTime"],
      f["StartTime"], f["EndTime"], lim, f["NodeCnt"], f["ProcCnt"], f["Partition"], f["NodeList"], f["JobState"]) }
    END { for (id in rec) print rec[id] }' "$1" | sort -t'|' -k1,1n
}

# Spearman's rho of two columns (average ranks for ties).
ranks() { # column file -> "row rank"
  sort -k"$1","$1"n "$2" | awk -v c="$1" '{ v[NR] = $c; r[NR] = $1 } END {
    for (i = 1; i <= NR; ) { j = i; while (j < NR && v[j + 1] == v[i]) j++
      for (k = i; k <= j; k++) print r[k], (i + j) / 2; i = j + 1 } }' | sort -k1,1
}
spearman() { # file of "row a b"
  join <(ranks 2 "$1") <(ranks 3 "$1") | awk '{ n++; x += $2; y += $3; xx += $2 * $2; yy += $3 * $3; xy += $2 * $3 }
    END { d = sqrt((n * xx - x * x) * (n * yy - y * y)); printf "%.4f\n", (d > 0 ? (n * xy - x * y) / d : 0) }'
}

# compare JOBS_CSV OUT: "id real_start real_nodes sim_start sim_nodes" per job
compare() {
  while IFS=, read -r id _ _ _ st _ _ nl; do
    echo "$id $st $(tr ';' '\n' <<<"$nl" | sort | paste -sd,)"
  done <"$1" | sort -k1,1 | join "$work/real.$pol" - >"$2"
}
same_share() { awk '$3 == $5 { s++ } END { printf "%.4f", NR ? s / NR : 0 }' "$1"; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN { print (a >= b) }'; }

# Where the time goes, per policy (printed with the figures).
lap() { local now=$SECONDS; laps+=" $1 $((now - lap_at)) s,"; lap_at=$now; }
for pol in $policies; do
  export PSIPLACE_POLICY=$pol
  laps="" lap_at=$SECONDS
  "$cluster" stop >/dev/null 2>&1
  "$cluster" start >/dev/null || { not_ok "$pol: testbed starts"; continue; }
  poll 60 all_idle || { not_ok "$pol: all nodes idle" "$(sinfo -N -h)"; continue; }
  lap start
  base=$(records)
  # Every job eligible at one time, so that the start order is the
  # queue's and not the submission's pace: submitted with a begin time far
  # ahead, then all moved to one near second in one update (a --begin at
  # submission would have to allow for the slowest submission).
  ids=()
  while read -r k p s l; do
    ids+=("$(timeout 30 sbatch --parsable --begin=now+1hour -N "$k" --ntasks-per-node="$p" -t "$l" -o /dev/null \
      --wrap "sleep $s")") || break
  done <"$work/trace"
  begin_epoch=$(( $(date +%s) + 3 ))
  timeout 30 scontrol update JobId="$(IFS=,; echo "${ids[*]}")" \
    StartTime="$(date -d "@$begin_epoch" +%Y-%m-%dT%H:%M:%S)" >/dev/null
  slack=$(( begin_epoch - $(date +%s) ))
  late=$(( slack <= 0 ))
  lap submission
  check_eq "$pol: $njobs jobs submitted and given one begin time before it passed" "$njobs 0" "${#ids[@]} $late"
  # Their records end the wait (reading a file, not asking slurmctld ten
  # times a second while it schedules); a requeued job has one record per
  # run, so the queue is then checked empty.  About 70 s of work, 5 min at most.
  if ! poll 300 records_at_least $((base + njobs)) || ! poll 30 mine_done; then
    not_ok "$pol: the jobs end within 5 min" "$(squeue -h | head -5)"
    scancel "${ids[@]}" 2>/dev/null
    continue
  fi
  lap "trace (from the begin update)"
  # this round's records (job ids start again at 1 when the testbed restarts)
  tail -n +$((base + 1)) "$PSIPLACE_TESTBED_DIR/log/jobcomp.txt" >"$work/jobcomp.$pol"
  to_sacct "$work/jobcomp.$pol" >"$work/sacct.$pol"
  check_eq "$pol: the export has a record per job, COMPLETED" "$njobs" \
    "$(awk -F'|' 'NR > 1 && $13 == "COMPLETED"' "$work/sacct.$pol" | wc -l)"
  check_eq "$pol: every job eligible at the begin time" "$njobs" \
    "$(awk -F'|' -v e="$(date -d "@$begin_epoch" +%Y-%m-%dT%H:%M:%S)" 'NR > 1 && $3 == e' "$work/sacct.$pol" | wc -l)"
  echo "# $pol: $(grep -c 'JobState=PENDING' "$work/jobcomp.$pol") jobs requeued by Slurm"
  scontrol show node -o >"$work/nodes.$pol"
  cp "$PSIPLACE_TESTBED_DIR/log/slurmctld.log" "$work/slurmctld.$pol" 2>/dev/null
  sim=("$cli" simulate --trace "$work/sacct.$pol" --scontrol "$work/nodes.$pol"
    --psiconf "$PSIPLACE_TESTBED_DIR/etc/psiplace.conf" --plugstack "$PSIPLACE_TESTBED_DIR/etc/plugstack.conf"
    --policy "$pol" --order submit --backfill slurm)
  out=$("${sim[@]}" --jobs-csv "$work/sim.$pol" 2>&1)
  check_eq "$pol: psiplace simulate replays the export" 0 "$?" "$out"
  out=$("${sim[@]}" --trace-starts --jobs-csv "$work/at.$pol" 2>&1)
  check_eq "$pol: psiplace simulate --trace-starts replays it" 0 "$?" "$out"
  # decision by decision: each job where and when Slurm started it, the
  # engine's choice made on Slurm's own node state (same export)
  dec=$("${sim[@]}" --trace-nodes --format csv --jobs-csv "$work/dec.$pol" 2>&1)
  check_eq "$pol: psiplace simulate --trace-nodes replays it" 0 "$?" "$dec"
  lap simulate
  # id real_start real_nodes (nodes sorted, comma-separated)
  declare -A hosts=()
  awk -F'|' 'NR > 1 { print $1, $4, $12 }' "$work/sacct.$pol" | while read -r id st nl; do
    [ -n "${hosts[$nl]:-}" ] || hosts[$nl]=$(scontrol show hostnames "$nl" | sort | paste -sd,)
    echo "$id $(date -d "$st" +%s) ${hosts[$nl]}"
  done | sort -k1,1 >"$work/real.$pol"
  compare "$work/sim.$pol" "$work/both.$pol"
  same=$(same_share "$work/both.$pol")
  awk '{ print $1, $2, $4 }' "$work/both.$pol" >"$work/starts.$pol"
  rho=$(spearman "$work/starts.$pol")
  compare "$work/at.$pol" "$work/both_at.$pol"
  same_at=$(same_share "$work/both_at.$pol")
  compare "$work/dec.$pol" "$work/both_dec.$pol"
  same_dec=$(same_share "$work/both_dec.$pol")
  # the report's own figure: decisions,decisions_same,share,no_room,untraced
  dec_row=$(printf '%s\n' "$dec" | awk -F, -v p="$pol" '$1 == p { print $13, $14, $16, $17 }')
  echo "# $pol: $(wc -l <"$work/both.$pol") jobs; replayed: identical allocations $same, start-time rank correlation $rho; at Slurm's start times: identical allocations $same_at; decision by decision: identical $same_dec (decisions, same, no room, untraced: $dec_row)"
  lap compare
  span=$(awk -F'|' 'NR > 1 { print $5 }' "$work/sacct.$pol" | sort | tail -1)
  echo "# $pol: seconds:${laps%,}; the last job ended $(( $(date -d "$span" +%s) - begin_epoch )) s after the begin time, $slack s after the last submission; load $(cut -d' ' -f1-3 /proc/loadavg)"
  awk '$3 != $5 { print "#   at Slurm'"'"'s start times, job " $1 ": slurm " $3 ", model " $5 }' "$work/both_at.$pol" | head -5
  awk '$3 != $5 { print "#   decision by decision, job " $1 " at " $2 ": slurm " $3 ", model " $5 }' "$work/both_dec.$pol"
  check_eq "$pol: --trace-nodes compares every job, none untraced, and counts what the test counts" \
    "$(wc -l <"$work/both_dec.$pol") $(awk '$3 == $5' "$work/both_dec.$pol" | wc -l) 0" \
    "$(awk '{ print $1, $2, $4 }' <<<"$dec_row")"
  check_eq "$pol: replayed, identical allocations >= $min_same" 1 "$(ge "$same" "$min_same")"
  thr=$min_rho; [ "$pol" != CPULOAD ] || thr=$min_rho_cpuload
  check_eq "$pol: replayed, start-time rank correlation >= $thr" 1 "$(ge "$rho" "$thr")" \
    "rho $rho at load $(cut -d' ' -f1-3 /proc/loadavg)"
  check_eq "$pol: at Slurm's start times, identical allocations >= $min_same_at" 1 "$(ge "$same_at" "$min_same_at")"
  thr=$min_same_dec; [ "$pol" != CPULOAD ] || thr=$min_same_dec_cpuload
  check_eq "$pol: decision by decision, identical allocations >= $thr" 1 "$(ge "$same_dec" "$thr")"
done
tb_finish
