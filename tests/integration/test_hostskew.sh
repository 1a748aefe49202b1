#!/bin/bash
# Submit hosts that differ from slurmctld's psiplace (doc/upgrade.md,
# "Submit hosts that differ"):
# - a host whose plugstack.conf lacks the psiplace line (or that has no
#   psiplace.so): its sbatch/srun/salloc refuse --psi-* options as unknown,
#   and a job it submits reaches slurmctld without psiplace's request: the
#   cluster policy (LASTAVAILABLE: the last idle node, n4) applies, and
#   slurmctld says so (verbose) when the job starts;
# - a host with psiplace sends the request's version with every job, asked
#   for something or not: no such line for its jobs;
# - a host with an older psiplace (request entries, no version; modelled by
#   submit_raw, which sends a job environment verbatim; or a real older
#   psiplace.so named by PSIPLACE_HOSTSKEW_OLD_SPANK): its request applies,
#   and slurmctld says it had no version;
# - a host with a newer psiplace (a higher version, entries slurmctld does
#   not know, a policy it does not know): what slurmctld knows applies, the
#   rest is ignored with an error line naming it; an unknown policy makes
#   the request malformed: the cluster policy, with an error line.
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
log=$PSIPLACE_TESTBED_DIR/log/slurmctld.log
lines_of() { grep -E "JobId=$1[^0-9]" "$log" | grep 'psiplace_cons_tres'; }
check_match "slurmctld says the job came without psiplace's request" \
  "JobId=$id: no psiplace request: its submit host has no psiplace SPANK plugin .*placed by the site's policy, LASTAVAILABLE" \
  "$(lines_of "$id")"

# raw NAME ENTRY...: a job submitted with exactly these job environment
# entries; it prints its node into $work/NAME.out.  Echoes the job id.
raw=${PSIPLACE_SUBMIT_RAW:-$PSIPLACE_BUILD_DIR/tests/integration/submit_raw}
raw_job() {
  local name=$1 id; shift
  settle
  id=$(cd "$work" && "$raw" "$work/$name.out" "$@") || return 1
  poll 60 job_done "$id"
  poll 10 test -s "$work/$name.out"
  echo "$id"
}

settle
id=$(sbatch --parsable -N1 -n1 -t 2 -o "$work/own.out" --wrap 'printenv SLURMD_NODENAME')
poll 60 job_done "$id"
poll 10 test -s "$work/own.out"
check_eq "a job from a psiplace host without options: the cluster policy" n4 "$(cat "$work/own.out" 2>/dev/null)"
check_eq "a job from a psiplace host carries the request's version: no line" "" "$(lines_of "$id")"

id=$(raw_job older PSIPLACE_ALLOC_POLICY=FIRSTAVAILABLE)
check_eq "an older psiplace's request (no version) applies" n1 "$(cat "$work/older.out" 2>/dev/null)"
check_match "slurmctld says the request had no version" \
  "JobId=$id: psiplace request without a version \(a psiplace older than request version 1" "$(lines_of "$id")"

id=$(raw_job newer PSIPLACE_REQUEST=2 PSIPLACE_FUTURE_KNOB=3 PSIPLACE_ALLOC_POLICY=FIRSTAVAILABLE)
check_eq "a newer psiplace's request: what slurmctld knows applies" n1 "$(cat "$work/newer.out" 2>/dev/null)"
check_match "slurmctld names what it ignored (error)" \
  "error: select/psiplace_cons_tres: JobId=$id: a newer psiplace on the submit host: request version 2, .* reads version 1: 1 entry it does not know ignored \(PSIPLACE_FUTURE_KNOB\), the rest applies" \
  "$(grep -E "JobId=$id[^0-9]" "$log")"
check_eq "...once for the job" 1 "$(grep -cE "JobId=$id: a newer psiplace" "$log")"

id=$(raw_job newpol PSIPLACE_REQUEST=2 PSIPLACE_ALLOC_POLICY=QUANTUMFIRST)
check_eq "a policy slurmctld does not know: the cluster policy" n4 "$(cat "$work/newpol.out" 2>/dev/null)"
check_match "slurmctld says the request was malformed and why (error)" \
  "error: select/psiplace_cons_tres: JobId=$id: malformed psiplace request, using the cluster default: .*QUANTUMFIRST" \
  "$(grep -E "JobId=$id[^0-9]" "$log")"

# A real older psiplace.so (built from an earlier psiplace for this Slurm
# release) on a submit host, when one is given.
if [ -n "${PSIPLACE_HOSTSKEW_OLD_SPANK:-}" ]; then
  echo "required $PSIPLACE_HOSTSKEW_OLD_SPANK NodeAllocationPolicy=LASTAVAILABLE" >"$work/plugstack-old.conf"
  sed "s|^PlugStackConfig=.*|PlugStackConfig=$work/plugstack-old.conf|" "$SLURM_CONF" >"$work/slurm-old.conf"
  settle
  id=$(SLURM_CONF=$work/slurm-old.conf sbatch --parsable --psi-alloc-policy=FIRSTAVAILABLE -N1 -n1 -t 2 \
    -o "$work/oldso.out" --wrap 'printenv SLURMD_NODENAME')
  poll 60 job_done "$id"; poll 10 test -s "$work/oldso.out"
  check_eq "an older psiplace.so: its --psi-alloc-policy applies" n1 "$(cat "$work/oldso.out" 2>/dev/null)"
  check_match "an older psiplace.so: slurmctld says the request had no version" \
    "JobId=$id: psiplace request without a version" "$(lines_of "$id")"
  settle
  id=$(SLURM_CONF=$work/slurm-old.conf sbatch --parsable -N1 -n1 -t 2 -o "$work/oldso2.out" --wrap 'printenv SLURMD_NODENAME')
  poll 60 job_done "$id"; poll 10 test -s "$work/oldso2.out"
  check_eq "an older psiplace.so without options: the cluster policy" n4 "$(cat "$work/oldso2.out" 2>/dev/null)"
  check_match "an older psiplace.so without options: slurmctld says no request came" \
    "JobId=$id: no psiplace request" "$(lines_of "$id")"
else
  skip "a real older psiplace.so on a submit host" "PSIPLACE_HOSTSKEW_OLD_SPANK not set (the older request is modelled by submit_raw above)"
fi
tb_finish
