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
# - a host with an older psiplace (request entries, no version): its request
#   applies, and slurmctld says it had no version; a job it submits without
#   options is one without a request.  Sent verbatim by submit_raw, and by a
#   real older psiplace.so: the SPANK plugin of commit old_commit below,
#   built from this repository's history for the same Slurm release;
# - a host with a newer psiplace (a higher version, entries slurmctld does
#   not know, a policy it does not know): what slurmctld knows applies, the
#   rest is ignored with an error line naming it; an unknown policy makes
#   the request malformed: the cluster policy, with an error line.
set -uo pipefail
export PSIPLACE_POLICY=LASTAVAILABLE
source "$(dirname "$0")/lib.sh"

# The older psiplace: main's last commit before the SPANK plugin sent the
# request's version (PSIPLACE_REQUEST=1).  It compiles against every testbed
# release (22.05, 24.11, 26.05), so every release runs the older plugin.
old_commit=1f3698a34816f501a13ed3d782a69b2877a42797

# old_spank: sets old_so to that commit's psiplace.so for this build's Slurm
# (PSIPLACE_HOSTSKEW_OLD_SPANK names another one), built once into the build
# directory: only the SPANK plugin's target, without optimisation.  Else
# old_rc=1 when the history lacks the commit (a shallow clone: skipped),
# old_rc=2 when it does not build; old_why says why.
old_spank() {
  old_so=${PSIPLACE_HOSTSKEW_OLD_SPANK:-} old_rc=0 old_why=
  [ -z "$old_so" ] || return 0
  local slurm_src=${PSIPLACE_SLURM_SRC-$("$cluster" slurm-src)} t0=$SECONDS v
  # one build per Slurm tree the build directory is configured with
  v=$(sed -n 's/^#define SLURM_VERSION_STRING "\(.*\)"$/\1/p' "$slurm_src/config.h" 2>/dev/null)
  local dir=$PSIPLACE_BUILD_DIR/hostskew-old/${old_commit:0:12}-slurm-${v:-installed}
  if [ -f "$dir/psiplace.so" ]; then
    old_so=$dir/psiplace.so
    echo "# the older psiplace.so (commit ${old_commit:0:12}), built before: $old_so"
    return 0
  fi
  local err
  if ! err=$(git -C "$src_dir" rev-parse --git-dir 2>&1 >/dev/null); then
    old_rc=1 old_why="the older psiplace (commit ${old_commit:0:12}) is built from the history of a git checkout; $src_dir: ${err//$'\n'/ }"
    return 1
  fi
  if ! git -C "$src_dir" cat-file -e "$old_commit^{commit}" 2>/dev/null; then
    old_rc=1 old_why="commit ${old_commit:0:12} (the older psiplace) is not in this clone's history"
    [ "$(git -C "$src_dir" rev-parse --is-shallow-repository)" = true ] &&
      old_why+=": a shallow clone (git fetch --unshallow)"
    return 1
  fi
  rm -rf "$dir" && mkdir -p "$dir/src" || { old_rc=2 old_why="cannot create $dir"; return 1; }
  if ! { git -C "$src_dir" archive "$old_commit" | tar -x -C "$dir/src" &&
         meson setup "$dir/build" "$dir/src" --buildtype=plain -Dslurm_src="$slurm_src" \
           -Dtests=disabled -Dmpi=disabled &&
         ninja -C "$dir/build" plugins/spank/psiplace.so; } >"$dir/build.log" 2>&1; then
    old_rc=2 old_why="building the SPANK plugin of commit ${old_commit:0:12} for Slurm $PSIPLACE_SLURM failed ($dir/build.log): $(tail -n 3 "$dir/build.log" | tr '\n' ' ')"
    return 1
  fi
  cp "$dir/build/plugins/spank/psiplace.so" "$dir/psiplace.so.new" && mv "$dir/psiplace.so.new" "$dir/psiplace.so"
  rm -rf "$dir/src" "$dir/build"
  old_so=$dir/psiplace.so
  echo "# the older psiplace.so (commit ${old_commit:0:12}) built for Slurm $PSIPLACE_SLURM in $((SECONDS - t0)) s: $old_so"
}
old_spank
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

# A real older psiplace.so on a submit host: the one PSIPLACE_HOSTSKEW_OLD_SPANK
# names, else old_spank builds it (above, before the testbed started).
if [ -n "$old_so" ]; then
  echo "required $old_so NodeAllocationPolicy=LASTAVAILABLE" >"$work/plugstack-old.conf"
  sed "s|^PlugStackConfig=.*|PlugStackConfig=$work/plugstack-old.conf|" "$SLURM_CONF" >"$work/slurm-old.conf"
  settle
  id=$(SLURM_CONF=$work/slurm-old.conf sbatch --parsable --psi-alloc-policy=FIRSTAVAILABLE -N1 -n1 -t 2 \
    -o "$work/oldso.out" --wrap 'printenv SLURMD_NODENAME')
  poll 60 job_done "$id"; poll 10 test -s "$work/oldso.out"
  check_eq "an older psiplace.so: its --psi-alloc-policy applies" n1 "$(cat "$work/oldso.out" 2>/dev/null)"
  check_match "an older psiplace.so: slurmctld says the request had no version" \
    "JobId=$id: psiplace request without a version \(a psiplace older than request version 1" "$(lines_of "$id")"
  settle
  id=$(SLURM_CONF=$work/slurm-old.conf sbatch --parsable -N1 -n1 -t 2 -o "$work/oldso2.out" --wrap 'printenv SLURMD_NODENAME')
  poll 60 job_done "$id"; poll 10 test -s "$work/oldso2.out"
  check_eq "an older psiplace.so without options: the cluster policy" n4 "$(cat "$work/oldso2.out" 2>/dev/null)"
  check_match "an older psiplace.so without options: slurmctld says no request came" \
    "JobId=$id: no psiplace request: its submit host has no psiplace SPANK plugin \(or one older than request version 1\); placed by the site's policy, LASTAVAILABLE" \
    "$(lines_of "$id")"
elif [ "$old_rc" = 1 ]; then
  skip "a real older psiplace.so on a submit host" "$old_why"
else
  not_ok "the older psiplace.so (commit ${old_commit:0:12}) builds against Slurm $PSIPLACE_SLURM" "$old_why"
fi
tb_finish
