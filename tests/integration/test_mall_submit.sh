#!/usr/bin/env bash
# --psi-malleable=MIN-MAX at submission on a real Slurm (TAP output): every
# bad request gives one psiplace error line naming the option, the value
# and what is accepted, and no job (the job id counter does not advance,
# the queue and the job completion log stay empty).  n2 and n3 have GPUs;
# partition debug has the 4 nodes n1..n4, partition small MaxNodes=2.
source "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
export PSIPLACE_JOBCOMP=1 PSIPLACE_PARTITIONS=small PSIPLACE_PARTITION_ARGS_small=MaxNodes=2
unset SBATCH_PARTITION SALLOC_PARTITION SBATCH_GPUS SALLOC_GPUS SBATCH_GRES SALLOC_GRES
tb_start
trap '"$cluster" stop >/dev/null 2>&1; rm -rf "$work"' EXIT
jobcomp=$PSIPLACE_TESTBED_DIR/log/jobcomp.txt
records() { [ -e "$jobcomp" ] && wc -l <"$jobcomp" || echo 0; }

# --- accepted: the range reaches slurmctld and the job runs
id=$(timeout 60 sbatch --parsable -N1 --psi-malleable=1-4 -o "$work/ok.out" --wrap 'printenv SLURMD_NODENAME')
poll 60 job_ended "$id"
check_eq "sbatch -N1 --psi-malleable=1-4 runs" COMPLETED "$(jobcomp_state "$id")"
id=$(timeout 60 sbatch --parsable -p small -N2 --psi-malleable=1-2 -o /dev/null --wrap true)
poll 60 job_ended "$id"
check_eq "sbatch -p small -N2 --psi-malleable=1-2 (MaxNodes=2) runs" COMPLETED "$(jobcomp_state "$id")"
check_eq "salloc -N2 --psi-malleable=2-4 runs" 2 \
  "$(timeout 60 salloc -N2 --psi-malleable=2-4 srun printenv SLURMD_NODENAME 2>/dev/null | sort -u | wc -l)"
check_eq "a GPU job without --psi-malleable runs (--gpus=1)" 1 \
  "$(timeout 60 salloc -N1 --gpus=1 srun printenv CUDA_VISIBLE_DEVICES 2>/dev/null | grep -c .)"
settle

# --- bad input: one error line, no job
before=$(next_job_id)
records_before=$(records)
bad() { # NAME EXPECTED-LINE-REGEX CMD...
  local name=$1 re=$2 out rc; shift 2
  out=$("$@" 2>&1); rc=$?
  check_eq "$name: non-zero exit and one psiplace error line" "1 1" \
    "$([ $rc -ne 0 ] && echo 1 || echo 0) $(printf '%s\n' "$out" | grep -c '^psiplace: error: ')" "$out"
  check_match "$name: the line names the option, the value and what is accepted" "$re" "$out"
}
accepted='accepted: MIN-MAX, node counts with 1 <= MIN <= MAX, e.g. 1-4$'
bad "sbatch --psi-malleable=4-1" "^psiplace: error: --psi-malleable: '4-1': MIN 4 is above MAX 1; $accepted" \
  timeout 60 sbatch -N1 --psi-malleable=4-1 --wrap true
bad "sbatch --psi-malleable=0-2" "^psiplace: error: --psi-malleable: '0-2': MIN is 0; $accepted" \
  timeout 60 sbatch -N1 --psi-malleable=0-2 --wrap true
bad "sbatch --psi-malleable=abc" "^psiplace: error: --psi-malleable: 'abc' is not MIN-MAX with node counts up to 1048576; $accepted" \
  timeout 60 sbatch -N1 --psi-malleable=abc --wrap true
bad "salloc --psi-malleable=abc" "^psiplace: error: --psi-malleable: 'abc' is not MIN-MAX" \
  timeout 60 salloc -N1 --psi-malleable=abc true
max_line() { echo "^psiplace: error: --psi-malleable=$1: MAX $2 is above the $3 nodes partition $4 can give a job \\(its MaxNodes and node count\\); accepted: MAX from 1 to $3\$"; }
bad "sbatch --psi-malleable=1-100000 (debug has 4 nodes)" "$(max_line 1-100000 100000 4 debug)" \
  timeout 60 sbatch -N1 --psi-malleable=1-100000 --wrap true
bad "salloc --psi-malleable=1-5 (debug has 4 nodes)" "$(max_line 1-5 5 4 debug)" \
  timeout 60 salloc -N1 --psi-malleable=1-5 true
bad "sbatch -p small --psi-malleable=1-3 (MaxNodes=2)" "$(max_line 1-3 3 2 small)" \
  timeout 60 sbatch -p small -N1 --psi-malleable=1-3 --wrap true
bad "SBATCH_PARTITION=small --psi-malleable=1-3" "$(max_line 1-3 3 2 small)" \
  env SBATCH_PARTITION=small timeout 60 sbatch -N1 --psi-malleable=1-3 --wrap true
printf '#!/bin/sh\n#SBATCH -p small\n#SBATCH --psi-malleable=1-3\n#SBATCH -N 1\ntrue\n' >"$work/small.sh"
bad "#SBATCH -p small --psi-malleable=1-3" "$(max_line 1-3 3 2 small)" timeout 60 sbatch "$work/small.sh"
bad "sbatch -N5 --psi-malleable=1-4 (start outside the range)" \
  "^psiplace: error: --psi-malleable=1-4: the job starts at -N 5, outside the range; accepted: -N from 1 to 4$" \
  timeout 60 sbatch -N5 --psi-malleable=1-4 --wrap true
bad "sbatch --psi-malleable=1-4 without -N" \
  "^psiplace: error: --psi-malleable=1-4 needs -N/--nodes with one node count from 1 to 4" \
  timeout 60 sbatch --psi-malleable=1-4 --wrap true
gres_line() { echo "^psiplace: error: --psi-malleable=1-2: $1 asks for GRES, and Slurm cannot grow a job with GRES; accepted: a malleable job without --gres/--gpus\\*, or a GRES job without --psi-malleable\$"; }
bad "sbatch --psi-malleable=1-2 --gpus=1" "$(gres_line --gpus=1)" \
  timeout 60 sbatch -N1 --psi-malleable=1-2 --gpus=1 --wrap true
bad "salloc --psi-malleable=1-2 --gres=gpu:1" "$(gres_line --gres=gpu:1)" \
  timeout 60 salloc -N1 --psi-malleable=1-2 --gres=gpu:1 true
bad "salloc --psi-malleable=1-2 -G 1" "$(gres_line -G=1)" \
  timeout 60 salloc -N1 --psi-malleable=1-2 -G 1 true
bad "SBATCH_GPUS=1 sbatch --psi-malleable=1-2" "$(gres_line SBATCH_GPUS=1)" \
  env SBATCH_GPUS=1 timeout 60 sbatch -N1 --psi-malleable=1-2 --wrap true
printf '#!/bin/sh\n#SBATCH --psi-malleable=1-2\n#SBATCH -N 1\n#SBATCH --gpus-per-node=1\ntrue\n' >"$work/gpu.sh"
bad "#SBATCH --gpus-per-node=1 with --psi-malleable=1-2" "$(gres_line --gpus-per-node=1)" \
  timeout 60 sbatch "$work/gpu.sh"
check_eq "the queue is empty" "" "$(squeue -h)"
check_eq "no job reached the job completion log" "$records_before" "$(records)"
check_eq "rejected requests did not advance the job id counter" "$((before + 1))" "$(next_job_id)"

# --- slurmctld refuses a malleable GRES job the SPANK plugin did not see
# (submitted through the C API with the range in its job environment)
case $PSIPLACE_SLURM in 22.05|23.02) tres=gres:gpu:1 ;; *) tres=gres/gpu:1 ;; esac
raw=$(realpath "${PSIPLACE_SUBMIT_RAW:-$PSIPLACE_BUILD_DIR/tests/integration/submit_raw}")
log=$PSIPLACE_TESTBED_DIR/log/slurmctld.log
records_before=$(records)
out=$(cd "$work" && SUBMIT_RAW_TRES_PER_NODE=$tres timeout 60 "$raw" "$work/raw.out" PSIPLACE_MALLEABLE=1-2 2>&1); rc=$?
check_eq "slurmctld refuses a PSIPLACE_MALLEABLE job with $tres" "1" "$([ $rc -ne 0 ] && echo 1 || echo 0)" "$out"
check_match "... as a job that can run on no node" "Requested node configuration is not available" "$out"
check_match "... with the reason in slurmctld's log" \
  'psiplace_cons_tres: JobId=[0-9]+: --psi-malleable \(PSIPLACE_MALLEABLE\): the job asks for GRES, and Slurm cannot grow a job with GRES' \
  "$(cat "$log")"
check_eq "... the queue is empty" "" "$(squeue -h)"
# Slurm logs a submission refused by slurmctld as a job that failed at once
# on no node (job_completion_logger): never ran, holds nothing
check_eq "... its one completion record: FAILED on no node" "FAILED NodeCnt=0" \
  "$(tail -n +$((records_before + 1)) "$jobcomp" | sed -n 's/.*JobState=\([A-Z]*\) .*\(NodeCnt=[0-9]*\).*/\1 \2/p' | paste -sd' ')"
id=$(cd "$work" && SUBMIT_RAW_TRES_PER_NODE=$tres timeout 60 "$raw" "$work/raw2.out")
poll 60 job_ended "$id"
check_eq "the same GRES job without PSIPLACE_MALLEABLE runs" COMPLETED "$(jobcomp_state "$id")"
id=$(cd "$work" && timeout 60 "$raw" "$work/raw3.out" PSIPLACE_MALLEABLE=1-2)
poll 60 job_ended "$id"
check_eq "a PSIPLACE_MALLEABLE job without GRES runs" COMPLETED "$(jobcomp_state "$id")"

tb_finish
