#!/usr/bin/env bash
# The merge a grow ends with, by hand and without MPI, on every release:
# a running job J without licenses, a helper `salloc --no-shell -N1
# --dependency=expand:J`, `scontrol update JobId=H NumNodes=0`, then
# `scontrol update JobId=J NumNodes=ALL`.  Slurm 25.11 and 26.05 die in
# _valid_license_job_expansion() on such a merge unless job_submit/psiplace
# (written by cluster.sh with permit_job_expansion) gives the two jobs empty
# license lists first (doc/malleability.md, "Slurm releases that die
# merging"): checked here that slurmctld answers after the merge and that
# J holds both nodes and a bound step runs on each, with psiplace's select
# wrapper; then the same with a
# job that holds a license and a helper that holds one (Slurm's own path).
# On 26.05, slurmctld restarted without job_submit/psiplace: the select
# wrapper's error line saying a merge would kill it.
# The helper asks for its own node allocation policy (--psi-alloc-policy=
# PRIORITY, as a grow's helper inherits the malleable job's): the node
# psiplace's select plugin gives it is compared with `psiplace rank
# --as-select` on the node table slurmctld shows just before (the helper's
# --exclude'd node left out), the testbed's psiplace.conf and plugstack line,
# and that answer must differ from the cluster policy's (LASTAVAILABLE), so
# that the policy, not the node order, decided.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

export PSIPLACE_SCHED_PARAMS=permit_job_expansion PSIPLACE_LICENSES=merge:10
tb_start
check_match "slurm.conf has JobSubmitPlugins=psiplace (permit_job_expansion)" '^JobSubmitPlugins=psiplace$' "$(cat "$SLURM_CONF")"
ctld_pid=$(cat "$PSIPLACE_TESTBED_DIR/pids/slurmctld")

etc=$PSIPLACE_TESTBED_DIR/etc
psiplace=$PSIPLACE_BUILD_DIR/cli/psiplace
helper_policy=PRIORITY

ctld_alive() { kill -0 "$ctld_pid" 2>/dev/null && timeout 10 scontrol ping >/dev/null 2>&1; }
# node_table FILE EXCLUDED: the nodes as slurmctld has them now (CPUs,
# allocated CPUs, state, Weight) for psiplace rank, without EXCLUDED
node_table() {
  { echo name,cpus,alloc_cpus,state,weight
    scontrol -o show node | awk -v x="$2" '{
      delete v
      for (i = 1; i <= NF; i++) { k = $i; sub(/=.*/, "", k); v[k] = substr($i, length(k) + 2) }
      if (v["NodeName"] != x) print v["NodeName"] "," v["CPUTot"] "," v["CPUAlloc"] "," v["State"] "," v["Weight"] }'
  } >"$1"
}
# as_select TABLE [RANK OPTIONS...]: the node psiplace rank --as-select ranks first
as_select() {
  local t=$1
  shift
  "$psiplace" rank --as-select --plugstack "$etc/plugstack.conf" --psiconf "$etc/psiplace.conf" \
    --table "$t" --job nodes=1 "$@" 2>&1 | head -n 1 | awk '{print $1}'
}
helper_of() { squeue -h -n "$1" -o %i | head -n 1; }
nodes_of() { scontrol show hostnames "$(node_of "$1")" | wc -l; }

merge_case() { # LABEL [SBATCH/SALLOC OPTIONS...]
  local label=$1 j h out name n
  shift
  settle
  j=$(timeout 20 sbatch --parsable -N1 -n1 "$@" -o /dev/null --wrap 'sleep 120') ||
    { not_ok "$label: sbatch of J"; return; }
  poll 60 job_running "$j" || { not_ok "$label: J runs within 60 s"; return; }
  n=$(node_of "$j")
  name=merge-helper-$j
  table=$PSIPLACE_TESTBED_DIR/tmp/merge-nodes-$j.csv
  node_table "$table" "$n"
  want=$(as_select "$table" --policy "$helper_policy")
  cluster_pick=$(as_select "$table")
  out=$(timeout 60 salloc --no-shell -N1 -J "$name" -x "$n" --psi-alloc-policy="$helper_policy" \
    "$@" --dependency=expand:"$j" 2>&1)
  h=$(helper_of "$name")
  check_match "$label: the helper of J is granted" '^[0-9]+$' "$h"
  [ -n "$h" ] || { printf '#   %s\n' "$out"; scancel "$j"; return; }
  check_eq "$label: the helper's node is psiplace rank --as-select's choice for $helper_policy ($want)" \
    "$want" "$(node_of "$h")" "$(cat "$table")"
  check_eq "$label: $helper_policy's choice ($want) is not the cluster policy's ($cluster_pick)" yes \
    "$( [ -n "$want" ] && [ "$want" != "$cluster_pick" ] && echo yes)"
  out=$(timeout 30 scontrol update JobId="$h" NumNodes=0 2>&1)
  check_eq "$label: scontrol update JobId=H NumNodes=0 succeeds" "0" "$?" "$out"
  if ctld_alive; then ok "$label: slurmctld answers after the merge"; else
    not_ok "$label: slurmctld answers after the merge" "$(tail -n 5 "$PSIPLACE_TESTBED_DIR/log/slurmctld.out" 2>/dev/null)"
    tb_finish
  fi
  out=$(timeout 30 scontrol update JobId="$j" NumNodes=ALL 2>&1)
  check_eq "$label: J holds 2 nodes after the merge" 2 "$(nodes_of "$j")" "$out"
  check_eq "$label: the helper is no longer in the queue" "" "$(squeue -h -j "$h" -t PD,R -o %i 2>/dev/null)"
  # cons_tres ORs each job's core bitmap in at bit 0 (job_resources_bits_copy):
  # without the select wrapper's repair one of J's two nodes has no core and
  # a step bound there fails (doc/malleability.md, "22.05's merge and the
  # cores of the grown job")
  unbound=$(for n in $(scontrol show hostnames "$(node_of "$j")"); do
    timeout 60 srun --jobid="$j" --overlap -w "$n" -N1 -n1 true >/dev/null 2>&1 || echo "$n"; done | paste -sd,)
  check_eq "$label: a bound step runs on both of J's nodes" "" "$unbound"
  scancel "$j"
  poll 60 job_done "$j" || not_ok "$label: J ends after scancel"
}

merge_case "no licenses"
merge_case "licenses" -L merge:1
if ctld_alive; then ok "slurmctld still runs at the end"; else not_ok "slurmctld still runs at the end"; fi
warned() { grep -q 'permit_job_expansion without JobSubmitPlugins=psiplace' "$PSIPLACE_TESTBED_DIR/log/slurmctld.log"; }
if warned; then not_ok "no warning of a missing JobSubmitPlugins=psiplace with it configured"; else
  ok "no warning of a missing JobSubmitPlugins=psiplace with it configured"; fi
# The select wrapper names the missing plugin where the merge would kill
# slurmctld (26.05 here; 25.11 too).
if [ "$PSIPLACE_SLURM" = 26.05 ]; then
  sed -i '/^JobSubmitPlugins=psiplace$/d' "$SLURM_CONF"
  "$cluster" restart-ctld >/dev/null 2>&1 || not_ok "slurmctld restarts without JobSubmitPlugins"
  poll 30 warned
  check_match "without JobSubmitPlugins=psiplace the select wrapper logs one error line" \
    'error: select/psiplace_cons_tres: SchedulerParameters=permit_job_expansion without JobSubmitPlugins=psiplace' \
    "$(grep 'without JobSubmitPlugins' "$PSIPLACE_TESTBED_DIR/log/slurmctld.log")"
fi
tb_finish
