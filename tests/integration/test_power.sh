#!/usr/bin/env bash
# Power saving (issue 20, item 2): a testbed whose ResumeProgram starts a
# node's slurmd and whose SuspendProgram stops it; n1 and n2 (12 CPUs) are
# up, n3 and n4 powered down (idle~).  A stream of 40 one-CPU jobs (at most
# 8 in the system at a time: an up node always has room) is run under plain
# cons_tres, psiplace LASTAVAILABLE PreferPoweredUp=no and =yes; the resumes
# (ResumeProgram calls, log/power.log) are counted and reported.
# Assertions: no resume with PreferPoweredUp=yes; a resume with =no
# (LASTAVAILABLE ranks n4 first when power does not count); no node resumed
# twice; a node being resumed takes the next jobs instead of waking another.
# Runs on every testbed release (22.05, 24.11, 26.05): the boot bits of
# sched_weight differ (psiplace_select_boot_bits() in common/policy/select_weights.c), the proof of
# boot (slurmd -b) does not.
source "$(dirname "$0")/lib.sh"

power_log=$PSIPLACE_TESTBED_DIR/log/power.log
resumes() { grep -c '^resume ' "$power_log" 2>/dev/null || true; }
resumed_nodes() { grep '^resume ' "$power_log" 2>/dev/null | awk '{print $2}' | sort | uniq -c | awk '{print $2 "x" $1}' | paste -sd' '; }
in_system() { squeue -h -o %i 2>/dev/null | wc -l; }
below() { [ "$(in_system)" -lt "$1" ]; }
empty() { [ "$(in_system)" -eq 0 ]; }

start_power() { # SELECT POLICY ARGS
  "$cluster" stop >/dev/null 2>&1
  PSIPLACE_POWER_SAVE=1 PSIPLACE_SUSPEND_TIME=600 PSIPLACE_POWER_DOWN="n3 n4" \
    PSIPLACE_SELECT=$1 PSIPLACE_POLICY=$2 PSIPLACE_PLUGSTACK_ARGS=$3 \
    "$cluster" start >/dev/null 2>&1 || { echo "Bail out! power-saving testbed did not start"; "$cluster" stop; exit 1; }
  trap '"$cluster" stop >/dev/null 2>&1' EXIT
}

# stream LABEL: 40 jobs, a new one whenever fewer than 8 are in the system;
# prints "resumes nodes seconds"
stream() {
  local i t0=$SECONDS ids=()
  for i in $(seq 1 40); do
    poll 60 below 8 || { echo "# $1: queue did not drain" >&2; break; }
    ids+=("$(sbatch --parsable -n1 -t 1 -o /dev/null --wrap 'sleep 1' 2>&1)")
  done
  poll 120 empty || echo "# $1: jobs left: $(squeue -h -o '%i:%T:%N' | paste -sd' ')" >&2
  echo "$(resumes) $(resumed_nodes) $((SECONDS - t0))"
}

declare -A figure
for mode in cons_tres last_no last_yes; do
  case $mode in
    cons_tres) start_power select/cons_tres none "" ;;
    last_no) start_power select/psiplace_cons_tres LASTAVAILABLE PreferPoweredUp=no ;;
    last_yes) start_power select/psiplace_cons_tres LASTAVAILABLE PreferPoweredUp=yes ;;
  esac
  check_eq "$mode: n3, n4 start powered down (idle~), n1, n2 idle" "n1:idle n2:idle n3:idle~ n4:idle~" \
    "$(sinfo -h -N -o '%N:%t' | sort -u | paste -sd' ')"
  figure[$mode]=$(stream "$mode")
  echo "# $mode: resumes, nodes resumed, seconds: ${figure[$mode]}"
  check_eq "$mode: no node resumed twice" "" \
    "$(grep '^resume ' "$power_log" 2>/dev/null | sort | uniq -d | paste -sd' ')"
  if [ "$mode" = last_yes ]; then
    check_eq "PreferPoweredUp=yes: no resume while an up node has room" 0 "${figure[$mode]%% *}"
    # A job's PRIORITYF that favours powered-down nodes still gets an up one.
    got=$(timeout 120 srun -Q -N1 -n1 --psi-alloc-priority='1 - POWER' printenv SLURMD_NODENAME 2>&1)
    check_match "PreferPoweredUp=yes: a job asking for '1 - POWER' still gets an up node ($got)" '^n[12]$' "$got"
    check_eq "PreferPoweredUp=yes: ... and wakes none" 0 "$(resumes)"
    # Fill n1 and n2 (12 CPUs), then three one-CPU jobs in a burst: the
    # first wakes a node, the next two go to that node (being resumed, it
    # counts as up), so there is exactly one resume.
    fill=$(sbatch --parsable -N2 -n12 -w n1,n2 -t 2 -o /dev/null --wrap 'sleep 60')
    poll 30 job_running "$fill" || not_ok "the job filling n1 and n2 runs"
    before=$(resumes)
    burst=()
    for i in 1 2 3; do burst+=("$(sbatch --parsable -n1 -t 1 -o /dev/null --wrap 'sleep 2')"); done
    for j in "${burst[@]}"; do poll 60 job_running "$j" || poll 1 job_done "$j"; done
    nodes=$(for j in "${burst[@]}"; do scontrol show job "$j" | sed -n 's/^ *NodeList=\([^ ]*\).*/\1/p'; done | sort -u | paste -sd' ')
    check_eq "a node being resumed takes the next jobs: one resume for three jobs" 1 "$(( $(resumes) - before ))"
    check_match "the three jobs share the resumed node ($nodes)" '^n[34]$' "$nodes"
    scancel "$fill" "${burst[@]}" 2>/dev/null
  fi
  if [ "$mode" = last_no ]; then
    check_match "PreferPoweredUp=no: LASTAVAILABLE's first node n4 is woken" 'n4x1' "${figure[$mode]}"
    # PRIORITYF's POWER sees the power state: n3 is made the one node down
    # (the stream may have woken it too).
    if ! sinfo -h -n n3 -o %t | grep -qx 'idle~'; then
      poll 120 empty || not_ok "the stream's jobs have ended before n3 is powered down"
      # a loaded slurmctld may drop the request while the node is still
      # being released: asked again (at most 4 times, 30 s each)
      n3_down() { sinfo -h -n n3 -o %t | grep -qx 'idle~'; }
      for _ in 1 2 3 4; do
        scontrol update NodeName=n3 State=POWER_DOWN 2>/dev/null
        poll 30 n3_down && break
      done
      # (open: on a loaded machine n3 stayed mixed~ for 2 minutes once; the
      # check below still decides what this part tests)
      n3_down || skip "n3 powers down again" "n3 still $(sinfo -h -n n3 -o %T) after 120 s (load)"
    fi
    got=$(timeout 120 srun -Q -N1 -n1 --psi-alloc-priority='1 - POWER' printenv SLURMD_NODENAME 2>&1)
    check_eq "PreferPoweredUp=no: '1 - POWER' picks the powered-down node n3 and wakes it" \
      "n3 resume n3" "$got $(grep '^resume ' "$power_log" | tail -1)"
  fi
done
"$cluster" stop >/dev/null 2>&1

echo "# figures (40 one-CPU jobs, at most 8 at a time, n1+n2 = 12 CPUs up, n3 n4 powered down):"
for mode in cons_tres last_no last_yes; do echo "#   $mode: resumes=${figure[$mode]%% *} (${figure[$mode]})"; done
tb_finish
