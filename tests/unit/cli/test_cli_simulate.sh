#!/usr/bin/env bash
# psiplace simulate on the command line: both node inputs, the plugstack
# line's policy first, json/csv, --jobs-csv, one error line each (TAP).
# usage: test_cli_simulate.sh PSIPLACE
set -uo pipefail
psiplace=$1
source "$(dirname "$0")/tap.sh"

printf 'name,cpus,real_memory,speed\nn1,4,8000,1\nn2,4,8000,2\nn3,4,8000,1\n' >"$d/nodes.csv"
cat >"$d/nodes.txt" <<'X'
NodeName=n1 Arch=x86_64 CPUTot=4 RealMemory=8000 OS=Linux 5.10.0 #1 SMP Weight=1
NodeName=n2 Arch=x86_64 CPUTot=4 RealMemory=8000 OS=Linux 5.10.0 #1 SMP Weight=1
NodeName=n3 Arch=x86_64 CPUTot=4 RealMemory=8000 OS=Linux 5.10.0 #1 SMP Weight=1
X
printf 'NodeName=n2 Speed=2\n' >"$d/psiplace.conf"
echo 'required /x/psiplace.so NodeAllocationPolicy=fastest' >"$d/plugstack.conf"
cat >"$d/jobs.txt" <<'X'
JobIDRaw|Submit|Eligible|Start|End|Timelimit|NNodes|NCPUS|ReqMem|ReqTRES|Partition|NodeList|State|Priority
1|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:40|00:05:00|2|8|1000M|billing=8,cpu=8,mem=2000M,node=2|p|n[1-2]|COMPLETED|100
1.batch|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:40|||4|||p|n1|COMPLETED|
2|2026-01-01T00:00:10|2026-01-01T00:00:10|2026-01-01T00:01:40|2026-01-01T00:03:20|00:05:00|3|12|1000M||p|n[1-3]|COMPLETED|100
3|2026-01-01T00:00:20|2026-01-01T00:00:20|2026-01-01T00:00:20|2026-01-01T00:00:50|00:01:00|1|4|1000M||p|n3|COMPLETED|50
4|2026-01-01T00:00:30|2026-01-01T00:00:30|Unknown|Unknown|00:01:00|1|4|1000M||p|None assigned|CANCELLED by 0|50
X

csv() { "$psiplace" simulate --trace "$d/jobs.txt" --format csv "$@" 2>&1 | sed -n 2p | cut -d, -f1-9; }
check "csv: 3 jobs, makespan 200, waits 0/90/0 (job 3 backfilled)" \
  "FIRSTAVAILABLE,3,0,200,0.883333,30.000,0.000,90.000,1.300000" \
  "$(csv --table "$d/nodes.csv" --policy firstavailable)"
check "scontrol show node -o gives the same" \
  "FIRSTAVAILABLE,3,0,200,0.883333,30.000,0.000,90.000,1.300000" \
  "$(csv --scontrol "$d/nodes.txt" --policy FIRSTAVAILABLE)"
check "the plugstack line's policy comes first" "FASTEST" \
  "$(csv --table "$d/nodes.csv" --plugstack "$d/plugstack.conf" | cut -d, -f1)"
out=$("$psiplace" simulate --trace "$d/jobs.txt" --table "$d/nodes.csv" 2>&1)
check "table: the counts of the trace" \
  "# trace $d/jobs.txt (sacct): 3 jobs of 5 lines; not replayed: 1 never ran, 0 still running, 1 steps, 0 malformed lines skipped; 0 array tasks, 0 without a limit, 0 unknown fields" \
  "$(printf '%s\n' "$out" | sed -n 1p)"
check "table: all eight policies" 8 "$(printf '%s\n' "$out" | grep -c '^[A-Z]')"
"$psiplace" simulate --trace "$d/jobs.txt" --scontrol "$d/nodes.txt" --psiconf "$d/psiplace.conf" \
  --policy FASTEST --speed-scaling --jobs-csv "$d/per-job.csv" >/dev/null 2>&1
check "--jobs-csv: job 1 on the fast node first, its slowest node (Speed 1) sets its time" "1,FASTEST,1767225600,1767225600,1767225600,1767225700,0,n2;n1" \
  "$(sed -n 2p "$d/per-job.csv")"
check "--format json has the policies" '"policy": "MAXBALANCE"' \
  "$("$psiplace" simulate --trace "$d/jobs.txt" --table "$d/nodes.csv" --policy maxbalance --format json | grep -o '"policy": "MAXBALANCE"')"

# --backfill slurm: every blocked job planned, a planned node withheld whole
# (A runs on n1,n2; B waits for all three nodes, planned at A's limit; C,
# which would outlast that plan, fits beside B on n3 but only EASY lets it)
cat >"$d/plan.txt" <<'X'
JobIDRaw|Submit|Eligible|Start|End|Timelimit|NNodes|NCPUS
1|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:40|00:05:00|2|8
2|2026-01-01T00:00:10|2026-01-01T00:00:10|2026-01-01T00:01:40|2026-01-01T00:03:20|00:05:00|3|6
3|2026-01-01T00:00:20|2026-01-01T00:00:20|2026-01-01T00:00:20|2026-01-01T00:00:50|00:10:00|1|2
X
waits() { "$psiplace" simulate --trace "$d/plan.txt" --table "$d/nodes.csv" --policy firstavailable \
  --jobs-csv /dev/stdout --format csv "$@" | awk -F, '$2 == "FIRSTAVAILABLE" && NF == 8 { printf "%s%s", s, $7; s = " " }'; }
check "EASY: C starts beside B's reservation (waits 0 90 0)" "0 90 0" "$(waits)"
check "--backfill slurm: C waits, B's planned n3 is withheld whole (waits 0 90 80)" "0 90 80" \
  "$(waits --backfill slurm)"
check "--backfill slurm: the table names the model" "1" \
  "$("$psiplace" simulate --trace "$d/plan.txt" --table "$d/nodes.csv" --backfill slurm | grep -c '; slurm backfill,')"
starts() { "$psiplace" simulate --trace "$d/plan.txt" --table "$d/nodes.csv" --policy firstavailable \
  --jobs-csv /dev/stdout --format csv "$@" | awk -F, '$2 == "FIRSTAVAILABLE" && NF == 8 { if (!t0) t0 = $5; printf "%s%s:%s", s, $5 - t0, $8; s = " " }'; }
check "--trace-starts: each job starts when the trace says, on the engine's nodes" \
  "0:n1;n2 100:n1;n2;n3 20:n3" "$(starts --trace-starts)"
# --trace-nodes: Slurm put job 1 on n2 (FIRSTAVAILABLE would take n1);
# each job then starts on the traced nodes, so job 2 finds n1 free as
# Slurm did and job 3 finds only n3; job 4's NodeList is no node here.
cat >"$d/tn.txt" <<'X'
JobIDRaw|Submit|Eligible|Start|End|Timelimit|NNodes|NCPUS|NodeList
1|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:40|00:05:00|1|4|n2
2|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:00:10|2026-01-01T00:01:50|00:05:00|1|4|n1
3|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:00:20|2026-01-01T00:01:00|00:05:00|1|4|n3
4|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:00|2026-01-01T00:01:30|00:05:00|1|2|n9
X
tn() { "$psiplace" simulate --trace "$d/tn.txt" --table "$d/nodes.csv" "$@"; }
tnjobs() { tn --policy firstavailable --jobs-csv "$d/tn.csv" "$@" >/dev/null && awk -F, 'NR > 1 { if (!t0) t0 = $5; printf "%s%s:%s", s, $5 - t0, $8; s = " " }' "$d/tn.csv"; }
check "--trace-starts: one choice differs, every later state with it (n1 n2 n3 ...)" \
  "0:n1 10:n2 20:n3 60:n3" "$(tnjobs --trace-starts)"
check "--trace-nodes: the engine's own choices, each on Slurm's node state (n1 n1 n3; job 4 waits for n3)" \
  "0:n1 10:n1 20:n3 60:n3" "$(tnjobs --trace-nodes)"
check "--trace-nodes: csv, 3 decisions, 2 the same, none without room, 1 untraced" "3,2,0.666667,0,1" \
  "$(tn --policy firstavailable --trace-nodes --format csv | sed -n 2p | cut -d, -f13-17)"
check "--trace-nodes: csv header names them" "decisions,decisions_same,decisions_same_share,decisions_no_room,decisions_untraced" \
  "$(tn --trace-nodes --format csv | sed -n 1p | cut -d, -f13-17)"
check "--trace-nodes: the table's column" "3 66.7 0 1" \
  "$(tn --trace-nodes --policy firstavailable | awk '$1 == "FIRSTAVAILABLE" { print $13, $14, $15, $16 }')"
check "--trace-nodes: json" '"decisions": {"compared": 3, "same_nodes": 2' \
  "$(tn --policy firstavailable --trace-nodes --format json | grep -o '"decisions": {"compared": 3, "same_nodes": 2')"
check "--trace-nodes: LASTAVAILABLE agrees only where one node is left" "3 33.3" \
  "$(tn --trace-nodes --policy lastavailable | awk '$1 == "LASTAVAILABLE" { print $13, $14 }')"
check "without --trace-nodes: no decision columns (12, and 4 of utilisation_used and counts)" "16" \
  "$(tn --policy firstavailable --format csv | sed -n 1p | awk -F, '{ print NF }')"
# The same second: A ends at 20 s; Slurm placed B (n2) before A's end was
# processed, and C on A's node after it: A holds n1 for B's choice and
# not for C's, whose traced node needs its CPUs.
cat >"$d/same.txt" <<'X'
JobIDRaw|Submit|Eligible|Start|End|Timelimit|NNodes|NCPUS|NodeList
1|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:00:20|00:05:00|1|4|n1
2|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:00:20|2026-01-01T00:01:00|00:05:00|1|4|n2
3|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:00:20|2026-01-01T00:01:00|00:05:00|1|4|n1
X
check "--trace-nodes: an end in the second of a start holds its CPUs unless that start's traced nodes need them" \
  "3,3,1.000000,0,0" \
  "$("$psiplace" simulate --trace "$d/same.txt" --table "$d/nodes.csv" --policy firstavailable --trace-nodes --format csv | sed -n 2p | cut -d, -f13-17)"
check "--bf-interval 30: job 3 is backfilled at the pass of t=30, not on arrival (waits 0 90 10)" \
  "FIRSTAVAILABLE,3,0,200,0.883333,33.333,10.000,90.000" "$(csv --table "$d/nodes.csv" --policy firstavailable --bf-interval 30 | cut -d, -f1-8)"
err=$("$psiplace" simulate --trace "$d/jobs.txt" --table "$d/nodes.csv" --bf-interval 1h 2>&1); rc=$?
check "--bf-interval: a bad value is one usage error" "2 psiplace: error: --bf-interval: '1h' is not a number of seconds (0 to 86400)" "$rc $err"
err=$("$psiplace" simulate --trace "$d/jobs.txt" --table "$d/nodes.csv" --backfill fifo 2>&1); rc=$?
check "--backfill: a bad value names what is accepted" "2 psiplace: error: --backfill: 'fifo' is not accepted; accepted: easy, slurm" "$rc $err"

# --svg: well-formed, one CDF and one utilisation curve per policy
"$psiplace" simulate --trace "$d/jobs.txt" --table "$d/nodes.csv" --policy firstavailable,cpuload,contiguous \
  --svg "$d/chart.svg" >/dev/null
if command -v xmllint >/dev/null; then
  check "--svg: well-formed XML" "0" "$(xmllint --noout "$d/chart.svg" >/dev/null 2>&1; echo $?)"
else
  check "--svg: well-formed XML (xmllint missing: the root closes)" "</svg>" "$(tail -n 1 "$d/chart.svg")"
fi
check "--svg: a CDF curve per policy, in order" "FIRSTAVAILABLE CPULOAD CONTIGUOUS" \
  "$(grep -o 'class="cdf" data-policy="[A-Z]*"' "$d/chart.svg" | cut -d'"' -f4 | paste -sd' ')"
check "--svg: a utilisation curve per policy" "3" "$(grep -c 'class="util"' "$d/chart.svg")"
check "--svg: a CDF ends at 100% (y 0)" "0.0" \
  "$(grep -o 'class="cdf" data-policy="CPULOAD"[^>]*' "$d/chart.svg" | sed 's/.* \([0-9.,]*\)".*/\1/' | cut -d, -f2)"
err=$("$psiplace" simulate --trace "$d/jobs.txt" --table "$d/nodes.csv" --svg "$d/no/such/dir.svg" 2>&1 >/dev/null); rc=$?
check "--svg: an unwritable file is one error line" "1 psiplace: error: --svg: cannot write '$d/no/such/dir.svg'" "$rc $err"

sed 's/2026-01-01T00:03:20/2026-01-01T00:00:20/' "$d/jobs.txt" >"$d/bad.txt"
err=$("$psiplace" simulate --trace "$d/bad.txt" --table "$d/nodes.csv" 2>&1); rc=$?
check "a malformed line: one FILE:LINE error, exit 1" "1 psiplace: error: $d/bad.txt:4: End is before Start" "$rc $err"
check "--lenient skips and counts it" "1 malformed lines" \
  "$("$psiplace" simulate --trace "$d/bad.txt" --table "$d/nodes.csv" --lenient | sed -n 1p | grep -o '1 malformed lines')"
err=$("$psiplace" simulate --trace "$d/jobs.txt" --table "$d/nodes.csv" --bf-window 0 2>&1); rc=$?
check "a bad value: usage error naming option and value" "2 psiplace: error: --bf-window: '0' is not a positive number of seconds" "$rc $err"
err=$("$psiplace" simulate --trace "$d/jobs.txt" --table "$d/nodes.csv" --policy fastest,nope 2>&1); rc=$?
check "an unknown policy: exit 2" "2" "$rc"
err=$("$psiplace" simulate --trace "$d/jobs.txt" 2>&1); rc=$?
check "no cluster: usage error" "2" "$rc"

# --malleable: rigid and malleable side by side; bad values one error line each
printf 'name,cpus\nn1,1\nn2,1\nn3,1\nn4,1\n' >"$d/four.csv"
printf '1 0 0 100 4 -1 -1 4 1000 -1 1 1 1 1 1 1 -1 -1\n2 10 0 50 2 -1 -1 2 1000 -1 1 1 1 1 1 1 -1 -1\n' >"$d/mall.swf"
msim() { "$psiplace" simulate --trace "$d/mall.swf" --table "$d/four.csv" --policy FIRSTAVAILABLE "$@"; }
out=$(msim --malleable min-nodes=3 --format csv 2>&1)
check "--malleable csv: a rigid and a malleable row (makespan 150 and 132, 1 grow 1 shrink)" \
  "rigid,150,0,0 malleable,132,1,1" \
  "$(awk -F, 'NR > 1 { printf "%s%s,%s,%s,%s", (NR > 2 ? " " : ""), $18, $4, $20, $21 }' <<<"$out")"
out=$(msim --malleable min-nodes=3 2>&1)
check "--malleable table: rows FIRSTAVAILABLE rigid and FIRSTAVAILABLE mall" "2" \
  "$(grep -c '^FIRSTAVAILABLE \(rigid\|mall\) ' <<<"$out")"
check "--malleable table: the change per policy" \
  "# FIRSTAVAILABLE: malleable against rigid: makespan -12.0%, mean wait -98.9%, 1 grows, 1 shrinks" \
  "$(grep '^# FIRSTAVAILABLE: malleable' <<<"$out")"
out=$(msim --malleable min-nodes=3 --format json 2>&1)
check "--malleable json: each policy gains a malleable object with the same figures and the resizes" \
  "132 1 1 1" \
  "$(printf '%s' "$out" | python3 -c 'import json,sys; p=json.load(sys.stdin)["policies"][0]["malleable"]; print(p["makespan"], p["grows"], p["shrinks"], p["malleable_jobs"])' 2>&1)"
msim --malleable min-nodes=3 --svg "$d/m.svg" >/dev/null 2>&1
check "--malleable svg: rigid and malleable curves of both panels" "2 2" \
  "$(grep -c 'data-variant="malleable"' "$d/m.svg") $(grep -c 'data-variant="rigid"' "$d/m.svg")"
while IFS='|' read -r args want; do
  read -ra av <<<"$args"
  err=$(msim "${av[@]}" 2>&1 >/dev/null); rc=$?
  check "bad: $args" "2 1 psiplace: error: $want" "$rc $(wc -l <<<"$err") $err"
done <<'X'
--malleable fraction=2|--malleable: 'fraction=2' is not accepted; accepted: fraction=F (0 < F <= 1) with an optional ,seed=N; min-nodes=N (N >= 1); trace
--malleable all|--malleable: 'all' is not accepted; accepted: fraction=F (0 < F <= 1) with an optional ,seed=N; min-nodes=N (N >= 1); trace
--malleable trace --malleable-range 3,4|--malleable-range: '3,4' is not accepted; accepted: LO,HI, multiples of a job's nodes: 0 < LO <= 1 <= HI <= 1000
--malleable trace --resize-interval 0|--resize-interval: '0' is not accepted; accepted: a whole number of seconds, 1 to 86400
--malleable trace --resize-min-interval 1m|--resize-min-interval: '1m' is not accepted; accepted: a whole number of seconds, 0 to 86400
--malleable trace --resize-cost 1,2|--resize-cost: '1,2' is not accepted; accepted: GROW_BASE,GROW_PER_NODE,SHRINK_BASE,SHRINK_PER_NODE, seconds, each 0 to 86400
--malleable trace --resize-efficiency 2|--resize-efficiency: '2' is not accepted; accepted: a number, 0 < E <= 1
--resize-cost 1,1,1,1|--resize-cost: '1,1,1,1' needs --malleable RULE (which jobs are malleable)
--malleable trace --trace-starts|--malleable: 'trace' is not replayed with --trace-starts or --trace-nodes (the traced starts are rigid jobs' starts)
X

tap_end
