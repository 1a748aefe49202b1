#!/usr/bin/env bash
# Faults: slurmctld with select/psiplace_cons_tres killed, restarted and
# reconfigured under load, the metrics file abused, slurmstepd killed,
# and a soak of 2,000 decisions with slurmctld's memory reported
# (TAP output).  Every wait polls with a deadline; every job has a timeout.
# The scheduling latency of a one-node job is printed before and during each
# fault: a stalled decision shows as seconds, not milliseconds, and fails the
# bound below.  The job asks for CPULOAD, the policy that reads the metrics
# file, so a decision that waited for that file would show.
source "$(dirname "$0")/lib.sh"
export PSIPLACE_POLICY=LASTAVAILABLE
# end states read from the jobcomp record (lib.sh jobcomp_state), not from
# slurmctld, which purges ended jobs after MinJobAge
export PSIPLACE_JOBCOMP=1
tb_start
work=$(mktemp -d)
trap '"$cluster" stop >/dev/null 2>&1; rm -rf "$work"' EXIT
dir=$PSIPLACE_TESTBED_DIR
ctld_log=$dir/log/slurmctld.log
metrics=$dir/etc/metrics
# A decision that waits for a file or a lock shows as seconds; a launch on
# this testbed takes well under one.
latency_bound=${FAULTS_LATENCY_BOUND:-5}

now() { date +%s.%N; }
# Seconds for a plain one-node job from submission to its end.
latency() {
  local t0; t0=$(now)
  timeout 60 srun -N1 --psi-alloc-policy=cpuload true >/dev/null 2>&1 || { echo 999; return; }
  echo "$(now) - $t0" | bc -l
}
check_latency() { # NAME
  local l; l=$(latency)
  printf '# latency %s: %.3f s\n' "$1" "$l"
  check_eq "$1: a one-node CPULOAD job runs within ${latency_bound} s" 1 "$(echo "$l < $latency_bound" | bc -l)"
}
weights() { scontrol -o show node | sed -n 's/.* Weight=\([0-9]*\) .*/\1/p' | paste -sd' '; }
queue_count() { squeue -h -o %i | wc -l; }
queue_empty() { [ "$(queue_count)" -eq 0 ]; }
log_count() { grep -c -- "$1" "$ctld_log"; }
log_count_above() { [ "$(log_count "$1")" -gt "$2" ]; }
ctld_rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$(cat "$dir/pids/slurmctld")/status"; }

check_latency "before any fault"

# --- SIGKILL with a burst of 100 pending jobs, then restart
ids=()
for i in $(seq 100); do
  ids+=("$(sbatch --parsable --hold -o /dev/null --wrap true)")
done
# Slurm saves job state asynchronously: wait until the last job is on disk
# (RELIABILITY.md: jobs younger than that are Slurm's own loss, not ours).
state_has_last() { [ "$(stat -c %Y "$dir/state/job_state" 2>/dev/null || echo 0)" -gt "$1" ]; }
submitted=$(date +%s)
poll 30 state_has_last "$submitted" || true
"$cluster" restart-ctld KILL
known=0
for id in "${ids[@]}"; do
  [ -n "$(squeue -h -j "$id" -o %i 2>/dev/null)" ] && known=$((known + 1))
done
check_eq "SIGKILL with 100 pending jobs: all 100 known after restart" 100 "$known"
check_eq "SIGKILL: node weights as slurm.conf says" "1 1 1 1" "$(weights)"
# The restarted slurmctld first hears from every slurmd again (Slurm's own
# delay after a restart, with or without psiplace).
nodes_answer() { [ "$(sinfo -h -N -p debug -o '%t' | grep -cx idle)" -eq 4 ]; }
poll 60 nodes_answer || not_ok "the four nodes answer the restarted slurmctld"
check_latency "after the SIGKILL restart"
scontrol release "$(IFS=,; echo "${ids[*]}")" >/dev/null 2>&1
poll 240 queue_empty
check_eq "SIGKILL: the 100 jobs drained" 0 "$(queue_count)"

# --- SIGTERM restart with running jobs
release=$work/release
hold='deadline=$((SECONDS+120)); until [ -e '"$release"' ] || [ $SECONDS -ge $deadline ]; do sleep 0.1; done'
run=()
for n in n1 n2 n3 n4; do run+=("$(sbatch --parsable -w "$n" -n1 -o /dev/null --wrap "$hold")"); done
all_running() { local id; for id in "${run[@]}"; do job_running "$id" || return 1; done; }
poll 60 all_running || not_ok "four jobs running before SIGTERM"
"$cluster" restart-ctld TERM
check_eq "SIGTERM restart: the 4 running jobs still run" 4 \
  "$(for id in "${run[@]}"; do job_running "$id" && echo x; done | wc -l)"
touch "$release"
all_done() { local id; for id in "${run[@]}"; do job_ended "$id" || return 1; done; }
poll 60 all_done
check_eq "SIGTERM restart: the 4 jobs completed" "COMPLETED COMPLETED COMPLETED COMPLETED" \
  "$(for id in "${run[@]}"; do jobcomp_state "$id"; done | paste -sd' ')"
check_eq "SIGTERM: node weights as slurm.conf says" "1 1 1 1" "$(weights)"

# --- 20 reconfigures while jobs are submitted; the metrics file abused meanwhile
# (RELIABILITY R1: a FIFO or 200 MB of garbage at the metrics path stalled
# every decision)
conf=$dir/etc/psiplace.conf
cp "$conf" "$work/psiplace.conf.good"
good_metrics() { printf 'n1 load1=0\nn2 load1=8\nn3 load1=16\nn4 load1=12\n' >"$metrics.new" && mv "$metrics.new" "$metrics"; }
abuse_metrics() { # round
  rm -f "$metrics"
  case $(($1 % 5)) in
    0) good_metrics ;;
    1) good_metrics; truncate -s 9 "$metrics" ;;
    2) mkfifo "$metrics" ;;
    3) head -c 200M /dev/urandom >"$metrics.new" && mv "$metrics.new" "$metrics" ;;
    4) ;; # removed
  esac
}
bad_before=$(log_count "keeping the previous configuration")
submitted=()
bad_rounds=0
for round in $(seq 20); do
  submitted+=("$(sbatch --parsable -n1 -o /dev/null --wrap true)")
  abuse_metrics "$round"
  if [ "$PSIPLACE_SLURM" = 22.05 ] && [ $((round % 4)) -eq 2 ]; then
    printf 'NodeName=n1 Speed=fast\n' >>"$conf"; bad_rounds=$((bad_rounds + 1))
  else
    cp "$work/psiplace.conf.good" "$conf"
  fi
  scontrol reconfigure >/dev/null 2>&1
  poll 30 bash -c 'scontrol ping 2>/dev/null | grep -q UP' || not_ok "slurmctld answers after reconfigure $round"
  submitted+=("$(sbatch --parsable -n1 -o /dev/null --wrap true)")
done
cp "$work/psiplace.conf.good" "$conf"
scontrol reconfigure >/dev/null 2>&1
poll 30 bash -c 'scontrol ping 2>/dev/null | grep -q UP'
if [ "$PSIPLACE_SLURM" = 22.05 ]; then
  check_eq "a malformed psiplace.conf at reconfigure: one log line each, old configuration kept" \
    "$bad_rounds" "$(($(log_count "keeping the previous configuration") - bad_before))"
fi
subs_done() { local id; for id in "${submitted[@]}"; do job_ended "$id" || return 1; done; }
poll 120 subs_done
check_eq "jobs submitted during 20 reconfigures all completed" 40 \
  "$(for id in "${submitted[@]}"; do [ "$(jobcomp_state "$id")" = COMPLETED ] && echo x; done | wc -l)"
# psiplace.conf abused at reconfigure (R1; 22.05 reconfigures in place; 23.11+
# re-executes slurmctld, where a bad file stops it at start, as documented):
# the plugin's reader thread reads it, so neither the reconfigure nor a
# decision waits, and the previous configuration stays.
if [ "$PSIPLACE_SLURM" = 22.05 ]; then
  for abuse in fifo garbage; do
    rm -f "$conf"
    case $abuse in
      fifo) mkfifo "$conf"; what="a FIFO" ;;
      garbage) head -c 8M /dev/urandom >"$conf"; what="8 MB of garbage" ;;
    esac
    before=$(log_count "keeping the previous configuration")
    start=$(date +%s%N)
    timeout 30 scontrol reconfigure >/dev/null 2>&1; rc=$?
    took=$(( ($(date +%s%N) - start) / 1000000 ))
    printf '# scontrol reconfigure with psiplace.conf %s: %d ms\n' "$what" "$took"
    check_eq "reconfigure with psiplace.conf $what returns" 0 "$rc"
    poll 10 log_count_above "keeping the previous configuration" "$before" ||
      not_ok "slurmctld logged that it keeps the previous configuration ($what)"
    check_eq "psiplace.conf $what: one log line, the previous configuration kept" 1 \
      "$(($(log_count "keeping the previous configuration") - before))"
    check_latency "psiplace.conf is $what"
  done
  cp "$work/psiplace.conf.good" "$conf"
  scontrol reconfigure >/dev/null 2>&1
  poll 30 bash -c 'scontrol ping 2>/dev/null | grep -q UP'
fi
abuse_metrics 2 # a FIFO (R1)
check_latency "metrics file is a FIFO"
abuse_metrics 3 # 200 MB of garbage
check_latency "metrics file is 200 MB of garbage"
abuse_metrics 4 # removed
check_latency "metrics file removed"
good_metrics
check_eq "weights as slurm.conf says after the reconfigures" "1 1 1 1" "$(weights)"

# --- a metrics file of 300 malformed lines: a few logged per read, then
# one count (RELIABILITY R1b: 200 KB of random bytes gave 656 log lines)
bad_lines() { grep -c -- "$metrics:[0-9]*: not key=value, line skipped" "$ctld_log"; }
before_lines=$(bad_lines) before_more=$(log_count "metrics file $metrics: [0-9]* more problem lines not logged")
for i in $(seq 300); do echo "n1 garbage$i"; done >"$metrics.new" && mv "$metrics.new" "$metrics"
poll 20 log_count_above "metrics file $metrics: [0-9]* more problem lines not logged" "$before_more" ||
  not_ok "slurmctld read the metrics file of malformed lines"
check_eq "300 malformed metrics lines: 5 logged and one line counting the other 295" "5 1" \
  "$(($(bad_lines) - before_lines)) $(($(log_count "metrics file $metrics: 295 more problem lines not logged") - before_more))"
good_metrics

# --- slurmstepd killed mid-launch
marker=$work/started
timeout 60 srun -N1 -w n2 bash -c "touch $marker; exec sleep 60" >/dev/null 2>&1 &
srun_pid=$!
poll 30 test -e "$marker" || not_ok "the step started"
# this testbed's step stepds only (stepds, lib.sh): other testbeds' steps
# run on this machine too, and a name alone would kill theirs
step_pids=$(for p in $(stepds); do
  tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -qE '^slurmstepd: \[[0-9]+\.0\]' && echo "$p"
done)
check_eq "the step's slurmstepd found" 1 "$([ -n "$step_pids" ] && echo 1 || echo 0)"
[ -n "$step_pids" ] && kill -KILL $step_pids
# Slurm notices a vanished slurmstepd only at the step's end; the user's
# scancel ends it, and nothing of psiplace keeps the node.
killed_job=$(squeue -h -w n2 -o %i | head -1)
[ -n "$killed_job" ] && scancel "$killed_job"
srun_gone() { ! kill -0 "$srun_pid" 2>/dev/null; }
poll 30 srun_gone
check_eq "srun returns once the job of the killed slurmstepd is cancelled" 1 "$(srun_gone && echo 1 || echo 0)"
wait "$srun_pid" 2>/dev/null
settle
check_eq "n2 runs the next job" n2 "$(timeout 60 srun -w n2 -N1 printenv SLURMD_NODENAME 2>&1)"
check_latency "after slurmstepd was killed"
check_eq "slurmctld still answers after the killed step" UP "$(scontrol ping | grep -o UP | head -1)"

# --- soak: decisions with mixed policies and PRIORITYF, RSS every 500
# Slurm's own slurmctld grows in its first will-run decisions (26.05 with
# plain cons_tres: +8 MB over 2,000, flattening after 1,500): the growth is
# taken after 1,000 decisions, and the bound catches a leak per decision
# (4 kB each), not allocator noise.
policies=(firstavailable lastavailable cpuload minresource maxbalance fastest contiguous priority)
prio=('SPEED' '-CPROCS+2*SPEED' '10*FEATURE[arm]-LOAD' 'CPROCS/(1+LOAD)')
rss0=$(ctld_rss_kb)
decisions=${FAULTS_DECISIONS:-2000}
rss=()
for ((i = 1; i <= decisions; i++)); do
  if ((i % 3)); then
    sbatch --test-only -N$((1 + i % 2)) --psi-alloc-policy=${policies[i % 8]} --wrap true >/dev/null 2>&1
  else
    sbatch --test-only -N1 --psi-alloc-policy=priority --psi-alloc-priority="${prio[i % 4]}" --wrap true >/dev/null 2>&1
  fi
  ((i % 500)) || rss+=("$(ctld_rss_kb)")
done
printf '# slurmctld RSS: start %d kB, after every 500 decisions: %s kB\n' "$rss0" "${rss[*]}"
if [ "${#rss[@]}" -ge 4 ]; then
  first=${rss[1]:-0} last=${rss[${#rss[@]} - 1]}
  growth=$(( (last - first) * 1000 / (decisions - 1000) ))
  printf '# slurmctld RSS growth after 1,000 decisions: %d kB per 1,000 decisions\n' "$growth"
  check_eq "soak: slurmctld RSS grows less than 4 MB per 1,000 decisions after warm-up" 1 \
    "$([ "$growth" -lt 4096 ] && echo 1 || echo 0)"
fi
check_latency "after the soak"

check_no_stepds "after every step"

tb_finish
