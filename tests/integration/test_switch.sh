#!/bin/bash
# Enabling and rolling back psiplace under load (doc/upgrade.md): a testbed
# running plain select/cons_tres with running jobs (batch, salloc+srun,
# multi-node, with a step, an array, in a reservation, suspended) and pending
# ones (held, throttled array tasks) is switched to select/psiplace_cons_tres
# with a cluster policy in the documented order (slurm.conf and
# plugstack.conf edited, slurmctld stopped, every slurmd restarted,
# slurmctld started); then rolled back to cons_tres the same way.  After each
# switch every job is still there in its state, no slurmd fails an RPC, the
# running jobs end normally (end states from the jobcomp file, which
# MinJobAge does not purge) and the pending ones start under the new
# configuration.  About two minutes.
set -uo pipefail
export PSIPLACE_SELECT=select/cons_tres PSIPLACE_POLICY=none PSIPLACE_JOBCOMP=1
source "$(dirname "$0")/lib.sh"
tb_start

etc=$PSIPLACE_TESTBED_DIR/etc
jobcomp=$PSIPLACE_TESTBED_DIR/log/jobcomp.txt
work=$PSIPLACE_TESTBED_DIR/switch
mkdir -p "$work"
so=$(awk '$1=="required" && /psiplace\.so/ {print $2}' "$etc/plugstack.conf")

# A job's work: wait (at most 300 s) for the round's flag, then succeed.
cat >"$work/wait.sh" <<'EOF'
#!/bin/bash
for _ in $(seq 1200); do [ -e "$1" ] && exit 0; sleep 0.25; done
exit 3
EOF
chmod +x "$work/wait.sh"

names_in() { squeue -h -o '%j %T' 2>/dev/null | grep "^$1_" | sort; }
all_running() { # PREFIX: every started job of the round runs or is suspended
  local s; s=$(names_in "$1")
  [ "$(grep -c ' RUNNING$' <<<"$s")" -ge 7 ] && ! grep -q "_salloc PENDING\|_batch PENDING\|_step PENDING\|_multi PENDING\|_resv PENDING\|_susp PENDING" <<<"$s"
}
none_left() { [ -z "$(squeue -h -o %j 2>/dev/null | grep "^$1_" | grep -v "_held$")" ]; }
comp_state() { # NAME: end states of the jobcomp records of that job name
  grep -o " Name=$1 .*" "$jobcomp" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | sort | uniq -c | awk '{print $2 "x" $1}' | paste -sd' '
}
# (psiplace's own start-up line names the first error; it is not one)
slurmd_errors() {
  cat "$PSIPLACE_TESTBED_DIR"/log/slurmd-n*.log 2>/dev/null | grep -v 'psiplace_cons_tres: plugin_id 180:' |
    grep -cE 'unknown select plugin id|jobinfo_unpack: unpack error|Malformed RPC' || true
}

# switch LABEL SELECTTYPE PLUGSTACK_ARGS: the documented order.
switch() {
  sed -i "s|^SelectType=.*|SelectType=$2|" "$SLURM_CONF"
  echo "required $so $3" >"$etc/plugstack.conf"
  "$cluster" stop-ctld && "$cluster" restart-slurmds && "$cluster" start-ctld \
    && ok "$1: slurmctld stopped, slurmds restarted, slurmctld started" \
    || not_ok "$1: the restart sequence failed"
}

# round PREFIX LABEL SELECTTYPE PLUGSTACK_ARGS WANT_NODE: submit the load,
# switch, check.
round() {
  local p=$1 label=$2 flag=$work/$1.go salloc_pid before after held
  rm -f "$flag"
  scontrol create reservation ReservationName=${p}_resv Users=root Nodes=n1 StartTime=now \
    Duration=30 >/dev/null || not_ok "$label: reservation not created"
  sbatch -Q -J ${p}_resv --reservation=${p}_resv -n1 -t 10 -o /dev/null --wrap "$work/wait.sh $flag"
  sbatch -Q -J ${p}_batch -n1 -t 10 -o /dev/null --wrap "$work/wait.sh $flag"
  sbatch -Q -J ${p}_step -n1 -t 10 -o "$work/${p}_step.out" --wrap "srun -n1 $work/wait.sh $flag && echo step-ok"
  sbatch -Q -J ${p}_multi -N2 -n2 -t 10 -o /dev/null --wrap "srun -N2 -n2 $work/wait.sh $flag"
  sbatch -Q -J ${p}_array --array=1-3%1 -n1 -t 10 -o /dev/null --wrap "$work/wait.sh $flag"
  sbatch -Q -J ${p}_susp -n1 -t 10 -o /dev/null --wrap "$work/wait.sh $flag"
  timeout 300 salloc -Q -J ${p}_salloc -N1 -n1 -t 10 srun -n1 "$work/wait.sh" "$flag" \
    >"$work/${p}_salloc.out" 2>&1 &
  salloc_pid=$!
  held=$(sbatch --parsable --hold -J ${p}_held -N1 -n1 -t 2 -o "$work/${p}_held.out" --wrap 'printenv SLURMD_NODENAME')
  poll 60 all_running "$p" && ok "$label: load running" || not_ok "$label: load not running" "$(names_in "$p")"
  local susp; susp=$(squeue -h -n ${p}_susp -o %i)
  scontrol suspend "$susp"
  poll 20 bash -c "squeue -h -j $susp -o %T | grep -qx SUSPENDED" || not_ok "$label: not suspended"
  # the srun steps of _step, _multi and _salloc running before the switch
  # stops slurmctld (an srun still creating its step would fail for want of
  # a controller: not what the switch is tested for)
  local n id
  for n in step multi salloc; do
    id=$(squeue -h -n "${p}_$n" -o %i)
    poll 30 step_running "$id" || not_ok "$label: ${p}_$n's step is not running" "$(squeue -s)"
  done
  before=$(names_in "$p")
  local errs; errs=$(slurmd_errors)

  switch "$label" "$3" "$4"
  poll 30 bash -c "[ \"\$(squeue -h -o '%j %T' | grep '^${p}_' | sort)\" = \"$before\" ]"
  after=$(names_in "$p")
  check_eq "$label: every job there in its state" "$before" "$after"
  check_match "$label: slurmctld runs $3" "^SelectType += $3\$" "$(scontrol show config | grep '^SelectType ')"

  scontrol resume "$susp"
  touch "$flag"
  poll 120 none_left "$p" && ok "$label: every job ended" || not_ok "$label: jobs left" "$(names_in "$p")"
  wait "$salloc_pid"; check_eq "$label: salloc+srun exit" 0 "$?" "$(cat "$work/${p}_salloc.out")"
  local n
  for n in resv batch step multi susp salloc; do
    poll 20 bash -c "grep -q ' Name=${p}_$n ' '$jobcomp'"
    check_eq "$label: ${p}_$n ended" "JobState=COMPLETEDx1" "$(comp_state ${p}_$n)"
  done
  poll 20 bash -c "[ \$(grep -c ' Name=${p}_array ' '$jobcomp') -ge 3 ]"
  check_eq "$label: the array's three tasks ended (two started after the switch)" \
    "JobState=COMPLETEDx3" "$(comp_state ${p}_array)"
  check_match "$label: the step ended" step-ok "$(cat "$work/${p}_step.out" 2>/dev/null)"
  check_eq "$label: no slurmd failed an RPC" "$errs" "$(slurmd_errors)"

  scontrol delete reservation=${p}_resv
  scontrol release "$held"
  poll 60 bash -c "grep -q ' Name=${p}_held ' '$jobcomp'"
  check_eq "$label: the pending job ended" "JobState=COMPLETEDx1" "$(comp_state ${p}_held)"
  check_eq "$label: the pending job started under the new configuration" "$5" \
    "$(cat "$work/${p}_held.out" 2>/dev/null)"
}

# Plain cons_tres puts a one-core job on the tightest idle node (n1, 4
# cores); the LASTAVAILABLE policy on the last one (n4).
round sw1 "enable" select/psiplace_cons_tres NodeAllocationPolicy=LASTAVAILABLE n4
# (the line names plugin_id 180, which psiplace has up to 24.11; it is
# logged up to 23.11, whose RPCs carry select data with the id: from 24.05
# they carry none, and from 25.05 psiplace has cons_tres's 109)
case $PSIPLACE_SLURM in
  22.05|23.02|23.11)
    check_match "enable: slurmctld logs the restart rule" "plugin_id 180: slurmctld and every slurmd" \
      "$(cat "$PSIPLACE_TESTBED_DIR/log/slurmctld.log")" ;;
  *) check_eq "enable: no plugin_id 180 line from $PSIPLACE_SLURM (no select data in RPCs)" 0 \
       "$(grep -c 'plugin_id 180' "$PSIPLACE_TESTBED_DIR/log/slurmctld.log")" ;;
esac
round sw2 "roll back" select/cons_tres "" n1
tb_finish
