#!/bin/bash
# A submit host whose plugstack.conf lacks the psiplace line (or that has no
# psiplace.so): its sbatch/srun/salloc refuse --psi-* options as unknown, and
# a job it submits reaches slurmctld without psiplace's request, where the
# cluster policy (LASTAVAILABLE: the last idle node, n4) applies.
set -uo pipefail
export PSIPLACE_POLICY=LASTAVAILABLE
source "$(dirname "$0")/lib.sh"
tb_start

work=$PSIPLACE_TESTBED_DIR/hostskew
mkdir -p "$work"
: >"$work/plugstack.conf"
sed "s|^PlugStackConfig=.*|PlugStackConfig=$work/plugstack.conf|" "$SLURM_CONF" >"$work/slurm.conf"

for c in sbatch salloc srun; do
  out=$(SLURM_CONF=$work/slurm.conf timeout 30 $c --psi-tpp=2 -N1 true 2>&1); rc=$?
  check_eq "$c without the psiplace line refuses --psi-tpp (exit status)" 1 "$([ $rc -ne 0 ] && echo 1 || echo 0)" "$out"
  check_match "$c without the psiplace line: the option is unknown" 'unrecognized option|invalid option|unknown option' "$out"
done

settle
id=$(SLURM_CONF=$work/slurm.conf sbatch --parsable -N1 -n1 -t 2 -o "$work/job.out" --wrap 'printenv SLURMD_NODENAME')
poll 60 job_done "$id"
poll 10 test -s "$work/job.out"
check_eq "a job without psiplace's request runs under the cluster policy" n4 "$(cat "$work/job.out" 2>/dev/null)"
echo "# slurmctld on job $id: $(grep -E "JobId=$id[^0-9]" "$PSIPLACE_TESTBED_DIR/log/slurmctld.log" | grep -i psiplace | head -3 | paste -sd'|')"
tb_finish
