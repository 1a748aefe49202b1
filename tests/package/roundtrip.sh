# Sourced by the package tests (test_installed.sh with dpkg -i,
# roundtrip_dry.sh without it): on a running testbed whose plugins are
# version N's, psiplace N -> N+1 -> N as the packages do it, under running
# jobs: a job begun under N runs through the upgrade and the downgrade, one
# begun under N+1 through the downgrade; after each install the daemons
# restart in doc/upgrade.md's order (slurmctld stopped, every slurmd
# restarted, slurmctld started) and load the installed version; a new job
# follows the cluster policy (LASTAVAILABLE: n4); both long jobs end
# COMPLETED (jobcomp file: the testbed runs with PSIPLACE_JOBCOMP=1) with
# their work done; no daemon logs an error; no slurmstepd is left.
# The caller defines: pkg_install DIR VERSION (install that version's
# packages from DIR), pkg_version (the installed version), pkg_psiplace
# ARGS... (the installed psiplace command), pkg_downgrade_said OUTPUT (a
# check on what the install of the older version printed), bail; and sets
# work, pkg_n, pkg_n1 (the directories of N and N+1), version, next, slurm_version.
release=$work/release
# A job waits (at most 10 minutes) until the test releases it.
cat >"$work/hold.sh" <<HOLD
#!/bin/bash
deadline=\$((SECONDS + 600))
until [ -e $release ] || [ \$SECONDS -ge \$deadline ]; do sleep 0.1; done
[ -e $release ] && echo finished
HOLD
chmod +x "$work/hold.sh"
# The restart order doc/upgrade.md gives, after each install: slurmctld
# stopped, every slurmd restarted, slurmctld started on its saved state.
restart_all() {
  "$cluster" stop-ctld >/dev/null 2>&1 && "$cluster" restart-slurmds >/dev/null 2>&1 &&
    "$cluster" start-ctld >/dev/null 2>&1
}
# "psiplace V built for Slurm S loaded" is the last such line of LOG
last_loaded() { grep -o "psiplace [^ ]* built for Slurm [^ ]* loaded" "$PSIPLACE_TESTBED_DIR/log/$1" | tail -1; }
is_loaded() { [ "$(last_loaded "$1")" = "psiplace $2 built for Slurm $slurm_version loaded" ]; }
n4_idle() { [ "$(sinfo -h -n n4 -o %t)" = idle ]; }

job=$(timeout 30 sbatch --parsable -N1 --psi-alloc-policy=firstavailable -o "$work/job.out" "$work/hold.sh")
poll 60 job_running "$job" || not_ok "long job $job runs before the upgrade" "state: $(job_state "$job")"

# --- N -> N+1 under the running job
out=$(pkg_install "$pkg_n1" "$next" 2>&1) || { printf '# %s\n' "$out"; bail "installing version $next failed"; }
check_eq "upgraded to $next" "$next" "$(pkg_version)"
check_eq "psiplace --version after the upgrade" "psiplace $next (built for Slurm $slurm_version)" "$(pkg_psiplace --version)"
check_eq "job $job still running after the install" RUNNING "$(job_state "$job")"
restart_all || not_ok "the daemons restart on the upgraded plugins"
poll 30 is_loaded slurmctld.log "$next"
check_eq "restarted slurmctld loaded version N+1" "psiplace $next built for Slurm $slurm_version loaded" "$(last_loaded slurmctld.log)"
poll 30 is_loaded slurmd-n1.log "$next"
check_eq "restarted slurmd loaded version N+1" "psiplace $next built for Slurm $slurm_version loaded" "$(last_loaded slurmd-n1.log)"
check_eq "job $job still running after the restart on N+1" RUNNING "$(job_state "$job")"
# a second long job, begun under N+1, runs through the downgrade
job2=$(timeout 30 sbatch --parsable -N1 --psi-alloc-policy=firstavailable -o "$work/job2.out" "$work/hold.sh")
poll 60 job_running "$job2" || not_ok "long job $job2 runs under N+1" "state: $(job_state "$job2")"
poll 60 n4_idle
check_eq "a new job under N+1 follows the cluster policy (n4)" n4 "$(SETTLE_KEEP="$job $job2" srun_node)"

# --- N+1 -> N (the downgrade a site does when N+1 misbehaves) under both jobs
out=$(pkg_install "$pkg_n" "$version" 2>&1) || { printf '# %s\n' "$out"; bail "installing version $version (downgrade) failed"; }
pkg_downgrade_said "$out"
check_eq "downgraded to $version" "$version" "$(pkg_version)"
check_eq "psiplace --version after the downgrade" "psiplace $version (built for Slurm $slurm_version)" "$(pkg_psiplace --version)"
check_eq "jobs $job and $job2 still running after the install" "RUNNING RUNNING" "$(job_state "$job") $(job_state "$job2")"
restart_all || not_ok "the daemons restart on the downgraded plugins"
poll 30 is_loaded slurmctld.log "$version"
check_eq "restarted slurmctld loaded version N again" "psiplace $version built for Slurm $slurm_version loaded" "$(last_loaded slurmctld.log)"
poll 30 is_loaded slurmd-n1.log "$version"
check_eq "restarted slurmd loaded version N again" "psiplace $version built for Slurm $slurm_version loaded" "$(last_loaded slurmd-n1.log)"
check_eq "jobs $job and $job2 still running after the restart on N" "RUNNING RUNNING" "$(job_state "$job") $(job_state "$job2")"
poll 60 n4_idle
check_eq "a new job under N again follows the cluster policy (n4)" n4 "$(SETTLE_KEEP="$job $job2" srun_node)"
touch "$release"
poll 60 job_ended "$job"; poll 60 job_ended "$job2"
check_eq "job $job (N, N+1, N) ended COMPLETED" COMPLETED "$(jobcomp_state "$job")"
check_eq "job $job2 (N+1, N) ended COMPLETED" COMPLETED "$(jobcomp_state "$job2")"
check_eq "both jobs did their work" "finished finished" "$(cat "$work/job.out" 2>/dev/null) $(cat "$work/job2.out" 2>/dev/null)"
check_eq "no slurmd or slurmctld error line during the round trip" "" \
  "$(grep -h 'error' "$PSIPLACE_TESTBED_DIR"/log/slurmctld.log "$PSIPLACE_TESTBED_DIR"/log/slurmd-n*.log |
     grep -vE 'Could not open .* state file|NOTE: Trying backup state save file' | head -5)"
"$cluster" stop >/dev/null 2>&1
check_no_stepds "upgrade and downgrade"

