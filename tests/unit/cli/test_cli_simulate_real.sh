#!/usr/bin/env bash
# psiplace simulate on what real workloads bring (issue 32): gzipped SWF,
# jobs over their limit, SWF's allocated vs requested processors, the
# allocated vs used CPU share, delayed traced starts, the --bf-window
# cap, and (when ../shared/traces/ holds it) the KTH-SP2 log (TAP).
# usage: test_cli_simulate_real.sh PSIPLACE SOURCE_ROOT
set -uo pipefail
psiplace=$1
root=${2:-.}
source "$(dirname "$0")/tap.sh"

# field 1..18: job submit wait run procs cpu mem reqprocs reqtime reqmem
# status uid gid exe queue partition preceding think
swf() { printf '%s %s %s %s %s -1 -1 %s %s -1 1 1 1 1 1 1 -1 -1\n' "$@"; }
# COLUMN: the first policy's value of a column of the summary CSV
col() { awk -F, -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i } NR == 2 { print $k }'; }
sim() { "$psiplace" simulate --policy firstavailable --format csv "$@" 2>&1; }

printf 'name,cpus\nn1,4\nn2,4\n' >"$d/two4.csv"
printf 'name,cpus\nn1,1\nn2,1\nn3,1\nn4,1\n' >"$d/four1.csv"

# 3: the archive's .swf.gz reads like the plain text
{ echo '; a comment'; swf 1 0 0 100 4 4 200; swf 2 10 0 50 8 8 100; } >"$d/a.swf"
gzip -c "$d/a.swf" >"$d/a.swf.gz"
check "a gzipped SWF gives what the plain one gives" "$(sim --trace "$d/a.swf" --table "$d/two4.csv")" \
  "$(sim --trace "$d/a.swf.gz" --table "$d/two4.csv")"
head -c 40 "$d/a.swf.gz" >"$d/cut.swf.gz"
err=$(sim --trace "$d/cut.swf.gz" --table "$d/two4.csv"); rc=$?
check "a truncated gzip file: one error line naming it, exit 1" \
  "1 psiplace: error: --trace: $d/cut.swf.gz: not a complete gzip file" "$rc ${err%% (zlib*}"

# 4: the --bf-window cap is named
err=$(sim --trace "$d/a.swf" --table "$d/two4.csv" --bf-window 1000000000); rc=$?
check "--bf-window over the cap names the cap" \
  "2 psiplace: error: --bf-window: '1000000000' is over the cap of 100000000 s (about 3 years, longer than any trace's horizon)" \
  "$rc $err"

# 2: job 1 runs 300 s on a 100 s limit; job 2 waits for both nodes
{ swf 1 0 0 300 4 4 100; swf 2 10 0 50 8 8 100; } >"$d/over.swf"
check "--overrun kill (default): job 1 ends at its limit, job 2 starts at 100" "1 100" \
  "$(sim --trace "$d/over.swf" --table "$d/two4.csv" --jobs-csv /dev/stdout | awk -F, '$1 == 1 && NF == 8 { e = $6 } $1 == 2 && NF == 8 { s = $5 } END { print e == 100, s }')"
check "--overrun: the overrun job is counted" "1" \
  "$(sim --trace "$d/over.swf" --table "$d/two4.csv" | col overruns)"
check "--overrun run: it runs its traced 300 s (job 2 starts at 300)" "300" \
  "$(sim --trace "$d/over.swf" --table "$d/two4.csv" --overrun run --jobs-csv /dev/stdout | awk -F, '$1 == 2 && NF == 8 { print $5 }')"
check "the table says what happened to them" "# 1 jobs ran longer than their limit: ended at their limit as Slurm does (--overrun kill)" \
  "$("$psiplace" simulate --trace "$d/over.swf" --table "$d/two4.csv" --policy firstavailable | grep '^# 1 jobs ran longer')"
err=$(sim --trace "$d/over.swf" --table "$d/two4.csv" --overrun maybe); rc=$?
check "--overrun: a bad value is a usage error" "2 psiplace: error: --overrun: 'maybe' is not accepted; accepted: kill, run" "$rc $err"

# 7: field 5 (allocated, 1) or field 8 (requested, 3) processors
swf 1 0 0 100 1 3 100 >"$d/procs.swf"
check "--swf-procs allocated (default): field 5, one node" "1" \
  "$(sim --trace "$d/procs.swf" --table "$d/four1.csv" --jobs-csv /dev/stdout | awk -F, '$1 == 1 && NF == 8 { print split($8, a, ";") }')"
check "--swf-procs requested: field 8, three nodes" "3" \
  "$(sim --trace "$d/procs.swf" --table "$d/four1.csv" --swf-procs requested --jobs-csv /dev/stdout | awk -F, '$1 == 1 && NF == 8 { print split($8, a, ";") }')"

# 9: 5 processors on 4-CPU nodes take 2 x 3 CPUs: 6 of 8 allocated, 5 used
swf 1 0 0 100 5 5 100 >"$d/round.swf"
check "utilisation: allocated 0.75 and used 0.625, both named" "0.750000 0.625000" \
  "$(r=$(sim --trace "$d/round.swf" --table "$d/two4.csv"); echo "$(col utilisation_allocated <<<"$r") $(col utilisation_used <<<"$r")")"

# 5: the trace starts both 8-CPU jobs at 0 on 8 CPUs: one must wait 100 s
{ swf 1 0 0 100 8 8 100; swf 2 0 0 100 8 8 100; } >"$d/oversub.swf"
check "--trace-starts: a start the cluster had no room for is delayed and counted (1, 100 s)" "1 100" \
  "$(r=$(sim --trace "$d/oversub.swf" --table "$d/two4.csv" --trace-starts); echo "$(col trace_start_delays <<<"$r") $(col trace_start_delay_max <<<"$r")")"
check "--trace-starts: the table says so" "# --trace-starts: 1 jobs started after their traced start (no room then), by up to 100 s" \
  "$("$psiplace" simulate --trace "$d/oversub.swf" --table "$d/two4.csv" --policy firstavailable --trace-starts | grep '^# --trace-starts')"

# 6: under --backfill slurm a job held back only by a node withheld for
# another job's plan is no shape wait: A (1 CPU, 100 s) on n1, B (2 CPUs)
# planned on n1+n2 at 100, C (1 CPU, 1000 s) would overlap B's plan on n2
printf 'name,cpus\nn1,1\nn2,1\n' >"$d/two1.csv"
{ swf 1 0 0 100 1 1 100; swf 2 1 0 100 2 2 100; swf 3 2 0 1000 1 1 1000; } >"$d/held.swf"
check "--backfill slurm: C waits for B's plan (waits 0 99 198)" "0 99 198" \
  "$(sim --trace "$d/held.swf" --table "$d/two1.csv" --backfill slurm --jobs-csv /dev/stdout | awk -F, 'NF == 8 && NR > 1 { printf "%s%s", s, $7; s = " " }')"
check "--backfill slurm: held back by a plan is not a shape wait (0)" "0" \
  "$(sim --trace "$d/held.swf" --table "$d/two1.csv" --backfill slurm | col shape_waits)"

err=$(sim --trace "$d/a.swf" --table "$d/two4.csv" --reserve count --backfill slurm); rc=$?
check "--reserve count is EASY's: refused with --backfill slurm" \
  "2 psiplace: error: --reserve count: only with --backfill easy (slurm plans specific nodes)" "$rc $err"

# Every option of psiplace simulate --help is in the man page
man=$root/doc/psiplace.1
missing=$(for o in $("$psiplace" simulate --help | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
  grep -qF -- "$(printf '%s' "$o" | sed 's/-/\\-/g')" "$man" || printf '%s ' "$o"; done)
check "simulate --help: every option is in doc/psiplace.1" "" "$missing"

# The real log, if it is there (never committed: the archive's own copy)
kth=$root/../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz
if [ -r "$kth" ]; then
  awk 'BEGIN { print "name,cpus"; for (i = 1; i <= 100; i++) print "n" i ",1" }' >"$d/kth.csv"
  r=$(sim --trace "$kth" --table "$d/kth.csv")
  check "KTH-SP2 (gzipped): 28,475 jobs, 475 over their limit" "28475 475" "$(col jobs <<<"$r") $(col overruns <<<"$r")"
  means() { "$psiplace" simulate --trace "$kth" --table "$d/kth.csv" --format csv "$@" | awk -F, 'NR > 1 { print $6 }' | sort -u | wc -l; }
  check "KTH-SP2, node-specific EASY: the mean wait depends on the policy (CONTIGUOUS differs)" "2" "$(means)"
  check "KTH-SP2, --backfill slurm on single-CPU nodes: no shape waits" "0" \
    "$(sim --trace "$kth" --table "$d/kth.csv" --backfill slurm | col shape_waits)"
  check "KTH-SP2, --reserve count: on identical single-CPU nodes every policy gives one mean wait" "1" "$(means --reserve count)"
  # malleable: a quarter and a half of the jobs (doc/simulate.md's study on
  # identical nodes): the same jobs replayed, waits lower, more so at 50 %
  mw() { "$psiplace" simulate --trace "$kth" --table "$d/kth.csv" --policy FIRSTAVAILABLE \
           --reserve count --malleable "fraction=$1,seed=1" --format csv |
         awk -F, 'NR > 1 { printf "%s ", $6 } NR == 3 { printf "%s %s", $19, ($20 + $21 > 0) }'; }
  read -r r25 m25 n25 any25 <<<"$(mw 0.25)"
  read -r r50 m50 n50 any50 <<<"$(mw 0.5)"
  check "KTH-SP2 --malleable: 7,076 and 14,188 jobs malleable, resized" "7076 1 14188 1" \
    "$n25 $any25 $n50 $any50"
  check "KTH-SP2 --malleable: the rigid replay is the rigid mean wait, 6,850 s" "6849.650 6849.650" "$r25 $r50"
  check "KTH-SP2 --malleable: the mean wait falls, more at 50 % than at 25 %" "yes" \
    "$(awk -v r="$r25" -v a="$m25" -v b="$m50" 'BEGIN { print (b < a && a < r) ? "yes" : "no: " r " " a " " b }')"
else
  echo "# SKIP KTH-SP2: $kth is absent (the Parallel Workloads Archive's log, not in the repository)"
fi
# bounded conversions (UBSan found them): a ReqMem whose unit takes it past
# 1e15 MB, and a --speed-scaling reference far out of range
{ echo 'JobIDRaw|Submit|Eligible|Start|End|Timelimit|NNodes|NCPUS|ReqMem|ReqTRES|Partition|NodeList|State|Priority'
  echo '7|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:00|2026-01-01T00:02:00|00:10:00|1|4|999999999999999Tc||p|n1|COMPLETED|1'; } >"$d/mem.sacct"
err=$(sim --trace "$d/mem.sacct" --table "$d/two4.csv"); rc=$?
check "ReqMem 999999999999999Tc: one error line naming the field, exit 1" \
  "1 ReqMem is not a size up to 1e15 MB" "$rc $(printf '%s' "$err" | grep -o 'ReqMem is not a size up to 1e15 MB' | head -1)"
check "ReqMem 999999999999999Tc: nothing else printed" 1 "$(printf '%s\n' "$err" | wc -l)"
err=$(sim --trace "$d/a.swf" --table "$d/two4.csv" --speed-scaling=1e300); rc=$?
check "--speed-scaling=1e300 refused with what is accepted" \
  "2 psiplace: error: --speed-scaling: '1e300' is not a Speed; accepted: 0.000001..1000000" "$rc $err"
printf 'name,cpus,speed\nn1,4,0.000000001\nn2,4,1\n' >"$d/slow.csv"
out=$(sim --trace "$d/a.swf" --table "$d/slow.csv" --speed-scaling=1000000); rc=$?
check "a tiny node Speed with a large reference: a bounded makespan, exit 0" "0 yes" \
  "$rc $(printf '%s' "$out" | col makespan | awk '{ print ($1 >= 0 && $1 <= 2e12) ? "yes" : "no: " $1 }')"

tap_end
