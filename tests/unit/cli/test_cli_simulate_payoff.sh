#!/usr/bin/env bash
# The fidelity of psiplace simulate against the testbed: the payoff
# workload of tests/bench/bench_mall_payoff.sh (20 jobs, 7 malleable, 4
# nodes of 2 CPUs) as slurmdbd recorded it in its three runs (the
# committed exports tests/bench/data/mall-payoff-{start,max,mall}-sacct.txt,
# sacct -X -D: a resized job's records one a size), each replayed by the
# simulator: the rigid runs as they are, the malleable run with
# --malleable trace and the daemon's settings.  Per run the measured
# figures (computed here from the export, not by the simulator) and the
# simulated ones, side by side, and whether the same resizes happened in
# the same order; asserted within the tolerances doc/simulate.md derives
# ("Fidelity: the payoff workload replayed"). (TAP)
# usage: test_cli_simulate_payoff.sh PSIPLACE DATA_DIR
set -uo pipefail
psiplace=$1
data=$2
source "$(dirname "$0")/tap.sh"

nodes=$data/mall-payoff-nodes.txt
# The testbed's scheduler (sched/backfill with its defaults: every blocked
# job planned, a backfill pass every 30 s) and policy; the daemon's settings
# in the bench (psiplace-malleabled --interval 1, MalleableMinInterval=5),
# and the cost of a resize
# from tests/bench/bench_mall_rm.sh's medians on 22.05 with MPICH (order to
# acknowledgement: grow 1->2 2.17 s, 1->4 3.64 s: 1.43 s + 0.74 s a node;
# shrink 4->2 1.47 s)
policy=(--policy LASTAVAILABLE --backfill slurm --bf-interval 30)
mall=(--malleable trace --resize-interval 1 --resize-min-interval 5 --resize-cost 1.43,0.74,1.47,0)
# Tolerances (doc/simulate.md, "Fidelity: the payoff workload replayed"): the
# simulated makespan and mean wait against the measured ones, relative.
# The replay starts a job the second its nodes are free, Slurm 0-3 s later
# (1.1 s on average in the start run); the tolerance is the largest of
# these, 3 s, on every start of the chain that ends last (9 starts: 27 s of
# 216 s) and of each job's chain (20 % of the mean wait)
tol_mk=0.125 tol_wait=0.20

# The measured figures of an export: "makespan mean_wait jobs", per job its
# first submission, first start and last end over its records.
measured() {
  awk -F'|' '
    function ep(s,   y, m, d) {
      y = substr(s, 1, 4) + 0; m = substr(s, 6, 2) + 0; d = substr(s, 9, 2) + 0
      if (m <= 2) { y--; m += 12 }
      d += 365 * y + int(y / 4) - int(y / 100) + int(y / 400) + int((153 * (m - 3) + 2) / 5)
      return d * 86400 + substr(s, 12, 2) * 3600 + substr(s, 15, 2) * 60 + substr(s, 18, 2)
    }
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { j = $c["JobIDRaw"]; s = ep($c["Submit"]); st = ep($c["Start"]); e = ep($c["End"])
      if (!(j in sb) || s < sb[j]) sb[j] = s
      if (!(j in fs) || st < fs[j]) fs[j] = st
      if (!(j in le) || e > le[j]) le[j] = e }
    END { n = 0; first = ""; last = ""
      for (j in sb) { n++; w += fs[j] - sb[j]
        if (first == "" || sb[j] < first) first = sb[j]
        if (last == "" || le[j] > last) last = le[j] }
      printf "%d %.1f %d\n", last - first, w / n, n }' "$1"
}
# The measured resizes of an export in their order: "JOB:FROM->TO" a line
# (a record after a RESIZING one starts at the new size; a record of the
# same size is no resize), by the time of the resize, then the job.
measured_resizes() {
  awk -F'|' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { print $c["JobIDRaw"], $c["Start"], $c["NNodes"] }' "$1" | sort -k1,1n -k2,2 |
    awk '$1 == j && $3 != n { print $2, $1, $1 ":" n "->" $3 } { j = $1; n = $3 }' |
    sort -k1,1 -k2,2n | awk '{ print $3 }'
}
# COLUMN of the summary CSV's row of VARIANT (rigid, malleable; "" the first)
col() {
  awk -F, -v c="$1" -v v="$2" 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == c) k = i; if ($i == "variant") x = i }; next }
    v == "" || $x == v { print $k; exit }'
}
# |sim - meas| / meas <= tol
within() { awk -v s="$1" -v m="$2" -v t="$3" 'BEGIN { d = s - m; if (d < 0) d = -d; exit !(d <= t * m) }'; }
rel() { awk -v s="$1" -v m="$2" 'BEGIN { printf "%+.1f%%", 100 * (s - m) / m }'; }
# The longest common subsequence of two lists (one item a line): its length
lcs() {
  awk 'FNR == 1 { f++ } f == 1 { a[++na] = $0 } f == 2 { b[++nb] = $0 }
    END { for (i = 0; i <= na; i++) L[i, 0] = 0; for (k = 0; k <= nb; k++) L[0, k] = 0
      for (i = 1; i <= na; i++) for (k = 1; k <= nb; k++)
        L[i, k] = a[i] == b[k] ? L[i - 1, k - 1] + 1 : (L[i - 1, k] > L[i, k - 1] ? L[i - 1, k] : L[i, k - 1])
      print L[na, nb] }' "$1" "$2"
}

# The runs whose export is committed (each measured once; doc/results.md,
# "The payoff on the testbed", says when and on what): start of 2026-12-02,
# and start, max and mall (three times) of 2026-12-07
runs="start start-20261207 max mall mall-2 mall-3"
for f in "$nodes" $(for r in $runs; do echo "$data/mall-payoff-$r-sacct.txt"; done); do
  [ -r "$f" ] || { echo "Bail out! $f is not there (tests/bench/bench_mall_payoff.sh writes it)"; exit 1; }
done

err=$("$psiplace" simulate --trace "$data/mall-payoff-start-sacct.txt" --scontrol "$nodes" --resizes-csv "$d/r.csv" 2>&1)
check "--resizes-csv without --malleable: one error line, exit 2" \
  "2 psiplace: error: --resizes-csv: '$d/r.csv' needs --malleable RULE (only a malleable replay resizes)" "$? $err"

echo "# run             measured: makespan  mean wait | simulated: makespan  mean wait | resizes measured/simulated"
for run in $runs; do
  trace=$data/mall-payoff-$run-sacct.txt
  read -r mk mw njobs < <(measured "$trace")
  measured_resizes "$trace" >"$d/$run.meas"
  if [[ $run = mall* ]]; then
    # The replay has no refused grow (a helper that Slurm did not start
    # within the job's wait: the job then goes on at its size, after that
    # wait).  Asserted: the replay with the jobs malleable that Slurm
    # resized (their range kept in the Comment column, the others' taken
    # out), so that both make the resizes Slurm granted; printed: the
    # replay of every malleable job, as the daemon decided.
    awk -F'|' -v OFS='|' 'NR == FNR { split($0, a, ":"); r[a[1]] = 1; next }
      FNR == 1 { for (i = 1; i <= NF; i++) if ($i == "Comment") k = i; print; next }
      !($1 in r) { $k = "" } { print }' "$d/$run.meas" "$trace" >"$d/granted.txt"
    all=$("$psiplace" simulate --trace "$trace" --scontrol "$nodes" "${policy[@]}" "${mall[@]}" --format csv 2>&1)
    printf "# $run, every malleable job malleable: simulated %s s, %s s (%s, %s), %s grows and %s shrinks\n" \
      "$(col makespan malleable <<<"$all")" "$(col wait_mean malleable <<<"$all")" \
      "$(rel "$(col makespan malleable <<<"$all")" "$mk")" "$(rel "$(col wait_mean malleable <<<"$all")" "$mw")" \
      "$(col grows malleable <<<"$all")" "$(col shrinks malleable <<<"$all")"
    out=$("$psiplace" simulate --trace "$d/granted.txt" --scontrol "$nodes" "${policy[@]}" "${mall[@]}" \
      --resizes-csv "$d/resizes.csv" --format csv 2>&1) || { check "simulate the $run run" 0 "$? $out"; continue; }
    variant=malleable
  else
    out=$("$psiplace" simulate --trace "$trace" --scontrol "$nodes" "${policy[@]}" --format csv 2>&1) ||
      { check "simulate the $run run" 0 "$? $out"; continue; }
    variant=""
  fi
  sk=$(col makespan "$variant" <<<"$out")
  sw=$(col wait_mean "$variant" <<<"$out")
  sj=$(col jobs "$variant" <<<"$out")
  printf '# %-15s %10s s %8s s | %10s s %8s s (%s, %s)\n' "$run" "$mk" "$mw" "$sk" "$sw" "$(rel "$sk" "$mk")" "$(rel "$sw" "$mw")"
  check "$run: the simulator replays every job of the export once ($njobs)" "$njobs" "$sj"
  if within "$sk" "$mk" "$tol_mk"; then r=yes; else r="no: $sk s against $mk s"; fi
  check "$run: simulated makespan within $tol_mk of the measured" yes "$r"
  if within "$sw" "$mw" "$tol_wait"; then r=yes; else r="no: $sw s against $mw s"; fi
  check "$run: simulated mean wait within $tol_wait of the measured" yes "$r"
  if [[ $run != mall* ]]; then
    check "$run: no resize in a rigid run" 0 "$(wc -l <"$d/$run.meas")"
    continue
  fi
  tail -n +2 "$d/resizes.csv" | awk -F, '{ print $3 ":" $5 "->" $6 }' >"$d/$run.sim"
  common=$(lcs "$d/$run.meas" "$d/$run.sim")
  echo "# $run resizes measured:  $(paste -sd' ' "$d/$run.meas")"
  echo "# $run resizes simulated: $(paste -sd' ' "$d/$run.sim")"
  if cmp -s "$d/$run.meas" "$d/$run.sim"; then same=yes; else same=no; fi
  echo "# $run: the same resizes in the same order: $same ($common of $(wc -l <"$d/$run.meas") measured and $(wc -l <"$d/$run.sim") simulated in a common order)"
  check "$run: Slurm resized a job (the run is a malleable one)" yes "$([ -s "$d/$run.meas" ] && echo yes)"
  # the resized jobs in the order of their first resize, each with its direction
  first_dir() { awk -F'[:>-]' '!($1 in s) { s[$1] = ($4 > $2 ? "grow" : "shrink"); print $1, s[$1] }' "$1" | paste -sd' '; }
  echo "# $run: resized jobs in the order of their first resize, measured: $(first_dir "$d/$run.meas"); simulated: $(first_dir "$d/$run.sim")"
  # asserted: the first resize is the same job's, in the same direction
  # (both runs; later ones differ, doc/simulate.md says why)
  check "$run: the first resize: the same job, the same direction" \
    "$(first_dir "$d/$run.meas" | cut -d' ' -f1-2)" "$(first_dir "$d/$run.sim" | cut -d' ' -f1-2)"
done
# What the simulator predicts from the rigid run alone (the start run's
# export replayed with --malleable trace), against the malleable run
# measured: the question a site asks before it has malleable jobs
if [[ " $runs " = *" mall "* ]]; then
  read -r mk mw _ < <(measured "$data/mall-payoff-mall-sacct.txt")
  out=$("$psiplace" simulate --trace "$data/mall-payoff-start-sacct.txt" --scontrol "$nodes" "${policy[@]}" \
    "${mall[@]}" --format csv 2>&1)
  pk=$(col makespan malleable <<<"$out") pw=$(col wait_mean malleable <<<"$out")
  printf '# predicted from the start run: makespan %s s, mean wait %s s against the malleable run measured %s s, %s s (%s, %s)\n' \
    "$pk" "$pw" "$mk" "$mw" "$(rel "$pk" "$mk")" "$(rel "$pw" "$mw")"
fi
tap_end
