#!/usr/bin/env bash
# Foundation: both plugins live in a real 4-node Slurm (TAP output).
# n1..n4 are idle and equal in Weight; n1 is the smallest node, so cons_tres
# alone (best fit) picks n1 for a one-CPU job and LASTAVAILABLE must move it.
source "$(dirname "$0")/lib.sh"
export PSIPLACE_POLICY=LASTAVAILABLE
tb_start
work=$(mktemp -d)
trap '"$cluster" stop >/dev/null 2>&1; rm -rf "$work"' EXIT

# --- options are registered
help=$(srun --help 2>&1)
check_match "srun --help lists --psi-alloc-policy" '--psi-alloc-policy=POLICY' "$help"
check_match "srun --help lists --psi-verbose" '--psi-verbose' "$help"
check_match "sbatch --help lists --psi-alloc-policy" '--psi-alloc-policy' "$(sbatch --help 2>&1)"

# --- cluster default LASTAVAILABLE
check_eq "default LASTAVAILABLE: job without policy lands on n4" n4 "$(srun_node)"
check_eq "--psi-alloc-policy=firstavailable lands on n1" n1 "$(srun_node --psi-alloc-policy=firstavailable)"
check_eq "Moab alias InReportedOrder lands on n1" n1 "$(srun_node --psi-alloc-policy=InReportedOrder)"
check_eq "Moab alias inreversereportedorder lands on n4" n4 "$(srun_node --psi-alloc-policy=inreversereportedorder)"
settle
check_eq "two-node job under LASTAVAILABLE takes n3,n4" "n3,n4" \
  "$(timeout 60 srun -N2 bash -c 'echo $SLURMD_NODENAME' | sort | paste -sd,)"

# --- behaviour that differs between Slurm releases (doc/select.md, "Slurm releases")
# will-run (sbatch --test-only, backfill's plan) follows the policy: from 23.11
# cons_tres rebuilds its order from node weights there, which the plugin sets
# for the test and restores afterwards.
settle
check_match "sbatch --test-only under LASTAVAILABLE plans n4" 'using 1 processors on nodes n4 ' \
  "$(timeout 60 sbatch --test-only -N1 --wrap true 2>&1)"
check_match "sbatch --test-only --psi-alloc-policy=firstavailable plans n1" 'using 1 processors on nodes n1 ' \
  "$(timeout 60 sbatch --test-only -N1 --psi-alloc-policy=firstavailable --wrap true 2>&1)"
check_eq "will-run left every node's Weight as slurm.conf says" "1 1 1 1" \
  "$(scontrol -o show node | sed -n 's/.* Weight=\([0-9]*\) .*/\1/p' | paste -sd' ')"
# srun -Q where its output is compared whole: an srun that has to wait
# (a node still completing the last job) adds "job N queued and waiting for
# resources" and "has been allocated resources" (info lines; -Q keeps the
# errors, which a failed check shows).
# PSI_TPP=2 reserves two CPUs for the task (srun reads SLURM_CPUS_PER_TASK
# from 23.11, SRUN_CPUS_PER_TASK before)
check_eq "PSI_TPP=2 srun -n1 gets 2 CPUs" "2 2" \
  "$(PSI_TPP=2 timeout 60 srun -Q -n1 bash -c 'echo $SLURM_JOB_CPUS_PER_NODE $SLURM_CPUS_PER_TASK' 2>&1)"
# GPUs across the two GPU nodes (2 each): cons_tres fills n2 first, as without psiplace
check_eq "--gpus=3 -N2: n2 gets GPUs 0,1 and n3 GPU 0" "n2 0,1;n3 0" \
  "$(timeout 60 srun -Q --gpus=3 -N2 bash -c 'echo $SLURMD_NODENAME $CUDA_VISIBLE_DEVICES' 2>&1 | sort | paste -sd';')"
# CoreCnt reservations: scontrol of 22.05/23.02 only accepts them for a
# SelectType it knows (plugin_id); 23.11+ accepts them with the wrapper.
out=$(timeout 30 scontrol create reservation ReservationName=cores StartTime=now Duration=5 \
  Users=root CoreCnt=2 Nodes=n3 2>&1); rc=$?
if [ "$PSIPLACE_SLURM" = 22.05 ]; then
  check_match "22.05: a CoreCnt reservation is refused by scontrol" \
    'CoreCnt or CPUCnt is only supported when SelectType includes select/cons_res' "$rc $out"
else
  check_eq "CoreCnt reservation created" 0 "$rc"
  check_match "the reservation holds 2 cores of n3" 'Nodes=n3 .*CoreCnt=2' \
    "$(scontrol -o show reservation cores 2>&1)"
  check_eq "a job in the reservation runs on n3" n3 \
    "$(timeout 60 srun -Q --reservation=cores -n1 printenv SLURMD_NODENAME 2>&1)"
  scontrol delete reservation cores
fi

# sbatch (allocator context) carries the request too
id=$(sbatch --parsable -N1 --psi-alloc-policy=FirstAvailable -o "$work/sb.out" --wrap 'printenv SLURMD_NODENAME')
poll 60 job_done "$id"
check_eq "sbatch --psi-alloc-policy=FirstAvailable lands on n1" n1 "$(cat "$work/sb.out" 2>/dev/null)"
check_eq "salloc --psi-alloc-policy=firstavailable lands on n1" n1 \
  "$(timeout 60 salloc -N1 --psi-alloc-policy=firstavailable srun printenv SLURMD_NODENAME 2>/dev/null)"

# --psi-verbose reports the decision source
verbose=$(timeout 60 srun -N1 --psi-verbose true 2>&1)
check_match "--psi-verbose names the cluster default" '^psiplace: node allocation policy LASTAVAILABLE \(cluster default\)$' "$verbose"

# --- bad input: one error line, nothing submitted
before=$(sbatch --parsable --hold -o /dev/null --wrap true); scancel "$before"
out=$(timeout 60 srun --psi-alloc-policy=bogus true 2>&1); rc=$?
check_eq "srun --psi-alloc-policy=bogus exits non-zero" 1 "$([ $rc -ne 0 ] && echo 1 || echo 0)"
check_eq "exactly one 'psiplace: error: ' line" 1 "$(printf '%s\n' "$out" | grep -c '^psiplace: error: ')"
check_match "error line names option, value and accepted values" \
  "^psiplace: error: --psi-alloc-policy: 'bogus' is not a policy; accepted: FIRSTAVAILABLE, LASTAVAILABLE, CPULOAD, MINRESOURCE, MAXBALANCE, FASTEST, CONTIGUOUS, PRIORITY" "$out"
out=$(sbatch --psi-alloc-policy=nope --wrap true 2>&1); rc=$?
check_eq "sbatch --psi-alloc-policy=nope exits non-zero with one error line" "1 1" \
  "$([ $rc -ne 0 ] && echo 1 || echo 0) $(printf '%s\n' "$out" | grep -c '^psiplace: error: ')"
out=$(timeout 60 salloc --psi-alloc-policy=nope true 2>&1); rc=$?
check_eq "salloc --psi-alloc-policy=nope exits non-zero with one error line" "1 1" \
  "$([ $rc -ne 0 ] && echo 1 || echo 0) $(printf '%s\n' "$out" | grep -c '^psiplace: error: ')"
after=$(sbatch --parsable --hold -o /dev/null --wrap true); scancel "$after"
check_eq "rejected jobs did not advance the job id counter" $((before + 1)) "$after"

# --- GPUs and core sharing behave as under select/cons_tres
gpus=$(timeout 60 srun -N2 --gpus=3 bash -c 'echo "$SLURMD_NODENAME $CUDA_VISIBLE_DEVICES"' | sort)
check_eq "--gpus=3 spans n2,n3 with 2 + 1 GPUs" "2+1" \
  "$(printf '%s\n' "$gpus" | awk '{n=split($2,a,","); print n}' | sort -r | paste -sd+)"
check_match "--gpus=3 ran on the GPU nodes" '^n2 .*n3 ' "$(printf '%s ' $gpus)"

release=$work/release
hold='deadline=$((SECONDS+120)); until [ -e '"$release"' ] || [ $SECONDS -ge $deadline ]; do sleep 0.1; done'
j1=$(sbatch --parsable -w n1 -n1 -o /dev/null --wrap "$hold")
j2=$(sbatch --parsable -w n1 -n1 -o /dev/null --wrap "$hold")
if poll 60 job_running "$j1" && poll 60 job_running "$j2"; then
  c1=$(scontrol show job -d "$j1" | sed -n 's/.*Nodes=n1 CPU_IDs=\([^ ]*\).*/\1/p')
  c2=$(scontrol show job -d "$j2" | sed -n 's/.*Nodes=n1 CPU_IDs=\([^ ]*\).*/\1/p')
  if [ -n "$c1" ] && [ -n "$c2" ] && [ "$c1" != "$c2" ]; then ok "two 1-CPU jobs on n1 got different CPUs ($c1, $c2)"
  else not_ok "two 1-CPU jobs on n1 got different CPUs" "job $j1: '$c1'" "job $j2: '$c2'"; fi
else
  not_ok "two 1-CPU jobs on n1 ran together" "states: $(job_state "$j1") $(job_state "$j2")"
fi
touch "$release"
poll 60 job_done "$j1"; poll 60 job_done "$j2"

# --- hostile job environment: slurmctld survives, default policy applies
raw=${PSIPLACE_SUBMIT_RAW:-$PSIPLACE_BUILD_DIR/tests/integration/submit_raw}
long=$(head -c 10000 /dev/zero | tr '\0' 'A')
id=$(cd "$work" && "$raw" "$work/raw.out" "PSIPLACE_ALLOC_POLICY=$(printf 'first\001\377')" "PSIPLACE_ALLOC_POLICY" "=x" "PSIPLACE_ALLOC_POLICY=$long")
poll 60 job_done "$id"
check_eq "malformed job env: job scheduled by the default policy (n4)" n4 "$(cat "$work/raw.out" 2>/dev/null)"
check_match "slurmctld logged the malformed request naming the job" "JobId=$id: malformed psiplace request" \
  "$(cat "$PSIPLACE_TESTBED_DIR/log/slurmctld.log")"
check_match "slurmctld still answers" 'UP' "$(scontrol ping)"
# Two malformed jobs checked alternately, again and again (RELIABILITY R8): both wait for
# n4, held by another job, while other jobs make slurmctld schedule (each
# pass tests whether they could ever run).  Each is logged once.
release=$work/release.n4
hold='deadline=$((SECONDS+120)); until [ -e '"$release"' ] || [ $SECONDS -ge $deadline ]; do sleep 0.1; done'
blocker=$(sbatch --parsable --exclusive -w n4 -o /dev/null --wrap "$hold")
poll 60 job_running "$blocker"
a=$(cd "$work" && SUBMIT_RAW_NODES=n4 "$raw" "$work/a.out" "PSIPLACE_ALLOC_POLICY=bad-a")
b=$(cd "$work" && SUBMIT_RAW_NODES=n4 "$raw" "$work/b.out" "PSIPLACE_ALLOC_POLICY=bad-b")
for i in 1 2 3; do
  id=$(sbatch --parsable -w n1 -o /dev/null --wrap true); poll 60 job_done "$id"
done
touch "$release"
poll 60 job_done "$a"; poll 60 job_done "$b"
check_eq "malformed requests of two jobs checked alternately: each logged once" "1 1" \
  "$(grep -c "JobId=$a: malformed psiplace request" "$PSIPLACE_TESTBED_DIR/log/slurmctld.log") $(grep -c "JobId=$b: malformed psiplace request" "$PSIPLACE_TESTBED_DIR/log/slurmctld.log")"

# --- the cluster default changes with plugstack.conf (scontrol reconfigure)
"$cluster" plugstack NodeAllocationPolicy=FIRSTAVAILABLE >/dev/null
check_eq "default FIRSTAVAILABLE: job without policy lands on n1" n1 "$(srun_node)"
check_eq "--psi-alloc-policy=lastavailable lands on n4" n4 "$(srun_node --psi-alloc-policy=lastavailable)"
"$cluster" plugstack >/dev/null
check_eq "no policy anywhere: cons_tres's own order (n1)" n1 "$(srun_node)"

# a bad plugstack line: srun refuses with one line; what slurmctld does
# depends on how the release reconfigures (doc/select.md)
"$cluster" plugstack NodeAllocationPolicy=LASTAVAILABLE Bogus=1 >/dev/null 2>&1
out=$(timeout 60 srun true 2>&1); rc=$?
check_eq "bad plugstack argument: srun fails with one psiplace error" "1 1" \
  "$([ $rc -ne 0 ] && echo 1 || echo 0) $(printf '%s\n' "$out" | grep -c '^psiplace: error: ')"
check_match "the error names the argument and the accepted keys" "unknown argument 'Bogus'; accepted keys: NodeAllocationPolicy" "$out"
if [ "$PSIPLACE_SLURM" = 22.05 ]; then
  # 22.05 reconfigures in place: the plugin keeps its previous configuration.
  check_match "slurmctld logged the bad line and kept the previous configuration" \
    'keeping the previous configuration: .*plugstack.conf:1: psiplace: unknown argument' "$(cat "$PSIPLACE_TESTBED_DIR/log/slurmctld.log")"
  check_match "slurmctld still answers after the bad reconfigure" 'UP' "$(scontrol ping)"
else
  # 23.11+ re-executes slurmctld on reconfigure; the testbed's slurmctld runs
  # in the foreground (-D), so it re-executes in place and the new process
  # refuses the bad line at plugin init, naming file and line.  (A daemonized
  # slurmctld keeps the old process running when the new one fails.)
  check_match "slurmctld refused the bad line at start, naming file and line" \
    'fatal: select/psiplace_cons_tres: .*plugstack.conf:1: psiplace: unknown argument' "$(cat "$PSIPLACE_TESTBED_DIR/log/slurmctld.log")"
fi

tb_finish
