#!/usr/bin/env bash
# The step environment against slurmstepd (TAP output; issue 18 findings 1
# and 7).  srun is not setuid: a user can change what it sends as the
# tasks' environment, which slurmstepd hands the SPANK plugin (S_JOB_ENV).
# tamper_env.so (LD_PRELOAD on srun) does that after srun has written
# SLURM_STEP_*; the plugin must hold the layout against Slurm's own counts
# and take its node name from slurmd, with one error line and no crash.
source "$(dirname "$0")/lib.sh"
shim=${PSIPLACE_TAMPER_ENV:-$PSIPLACE_BUILD_DIR/tests/integration/tamper_env.so}
tb_start_placement
log=$PSIPLACE_TESTBED_DIR/log

tampered() { # SPEC SRUN-ARGS...: srun with PSIPLACE_TEST_TAMPER=SPEC
  local spec=$1; shift
  PSIPLACE_TEST_TAMPER=$spec LD_PRELOAD=$shim timeout 60 srun "$@" 2>&1
}

# --- the shim reaches the tasks' environment (else the checks below prove nothing)
out=$(tampered 'SLURM_STEP_TASKS_PER_NODE=7,7' -w n1 -n1 printenv SLURM_STEP_TASKS_PER_NODE)
check_match "a user can change SLURM_STEP_TASKS_PER_NODE of a step (srun + LD_PRELOAD)" '^7,7$' "$out"

# --- finding 1: 4294 x 10^6 + 967,298 = 2^32 + 2 tasks for a step of 2 (--mpi=none:
# mpi/pmix refuses a node list that is not the step's before psiplace runs)
wrap='SLURM_STEP_TASKS_PER_NODE=1000000(x4294),967298;SLURM_STEP_NODELIST=n[0-4294]'
out=$(tampered "$wrap" --mpi=none -w n1 -n2 --psi-pset='a:0-1' true); rc=$?
check_eq "wrapping layout with --psi-pset: the step fails" 1 "$([ $rc -ne 0 ] && echo 1 || echo 0)" "$out"
check_eq "wrapping layout: one psiplace error line" 1 "$(grep -c '^psiplace: error:' <<<"$out")" "$out"
check_match "wrapping layout: the line names the variable, the value, Slurm's counts and what is accepted" \
  "^psiplace: error: n1: SLURM_STEP_TASKS_PER_NODE: '1000000\(x4294\),967298' gives 4295 nodes and 4294967298 tasks \(1000000 on node 0\); Slurm's step has 1 node, 2 tasks, 2 on node 0; accepted: one count per node of the step, adding up to its tasks$" "$out"
out=$(tampered "$wrap" -w n1 -n2 --exclusive --psi-tpp=1 --psi-dry-run true); rc=$?
check_match "wrapping layout with a placement: the same line" \
  "^psiplace: error: n1: SLURM_STEP_TASKS_PER_NODE: '1000000\(x4294\),967298' gives 4295 nodes" "$out"
out=$(tampered 'SLURM_STEP_TASKS_PER_NODE=1,1' -w n1 -n2 --psi-pset='a:0-1' true)
check_match "two nodes' counts for a one-node step: refused" \
  "^psiplace: error: n1: SLURM_STEP_TASKS_PER_NODE: '1,1' gives 2 nodes and 2 tasks \(1 on node 0\); Slurm's step has 1 node, 2 tasks, 2 on node 0;" "$out"
out=$(timeout 60 srun --mpi=pmix_v4 -w n1,n2 -N2 -n4 --psi-pset='a:0-3' --psi-verbose true 2>&1)
check_match "an untouched step still gets its node sets" 'process set psiplace://node/n2: ranks' "$out"
# A slurmstepd that dies (the old overflow: SIGSEGV after writing gigabytes)
# never logs "[STEP] done with job" (24.11: "done with step", 26.05:
# "stepd_cleanup: done with step (step_rc: ...)"): every step
# launched must (the testbed starts with empty logs).
steps_done() {
  local s missing=""
  for s in $(cat "$log"/slurmd-*.log | sed -n 's/.*launch task StepId=\([0-9.]*\) request.*/\1/p'); do
    grep -qE "\[$s\] (stepd_cleanup: )?done with (job|step)" "$log"/slurmd-*.log || missing="$missing $s"
  done
  [ -z "$missing" ] || { echo "$missing" >"$log/.steps-missing"; return 1; }
}
if poll 20 steps_done; then ok "every slurmstepd of the steps above ended (slurmd logs)"
else not_ok "every slurmstepd of the steps above ended (slurmd logs)" "no 'done with job' for:$(cat "$log/.steps-missing")"; fi

# --- finding 7: TopologyFile=$topo/%n.xml with the step's node list and
# SLURMD_NODENAME pointing at n1 (4 cores) or out of the directory; n3 has 2x8
want="0 n3 0-7 0;1 n3 8-15 0"
out=$(timeout 60 srun -w n3 -n2 --exclusive --psi-tpp=8 --psi-dry-run true 2>&1)
check_eq "n3 untouched: its own topology" "$want" "$(report <<<"$out")" "$out"
for spec in 'SLURM_STEP_NODELIST=n1;SLURMD_NODENAME=n1' 'SLURM_STEP_NODELIST=../topo/n1;SLURMD_NODENAME=../topo/n1'; do
  out=$(tampered "$spec" -w n3 -n2 --exclusive --psi-tpp=8 --psi-dry-run true)
  check_eq "n3 with ${spec%%;*}: still n3's topology" "$want" "$(report <<<"$out")" "$out"
done
out=$(tampered 'SLURM_STEP_NODELIST=n1' --mpi=pmix_v4 -w n3 -n2 --psi-pset='a:0' --psi-verbose true)
check_match "n3 with SLURM_STEP_NODELIST=n1: the step's sets are published" \
  'psiplace: n3: process set psiplace://all: ranks 0-1' "$out"
check_eq "n3 with SLURM_STEP_NODELIST=n1: no node set named after n1" "" \
  "$(grep 'psiplace://node/n1' <<<"$out")" "$out"
check_match "n3 with SLURM_STEP_NODELIST=n1: --psi-verbose says why" \
  "^psiplace: n3: no per-node process sets: SLURM_STEP_NODELIST does not name the step's 1 node with this node \(n3\) as node 0$" "$out"

tb_finish
