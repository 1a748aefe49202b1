#!/bin/bash
# Upgrading Slurm under psiplace (doc/upgrade.md): the 24.11 testbed with
# select/psiplace_cons_tres and the SPANK plugin's cluster policy
# (LASTAVAILABLE), with running jobs (batch, one with a step, a two-node
# job, salloc+srun, a job that starts a step after the upgrade, an array's
# first task) and pending ones (two throttled array tasks, a held job, a
# job waiting for all four nodes), upgraded in place to 26.05 on the same
# StateSaveLocation in the order of Slurm's upgrade guide: with accounting
# (slurmdbd 24.11 on a private MariaDB), slurmdbd first, while slurmctld
# and the slurmds run on (slurmdbd stopped, the database dumped, slurmdbd
# 26.05 started on it, converting the tables; slurmctld 24.11 reports to
# it meanwhile); then, as for a simultaneous upgrade, slurmctld
# stopped, every slurmd stopped, StateSaveLocation backed up, the 26.05
# daemons and psiplace's 26.05 build installed, slurmctld started, then the
# slurmds (PSIPLACE_UPGRADE_ORDER=slurmd-first: the slurmds, then
# slurmctld).
# This crosses psiplace's plugin_id change (180 up to 24.11, 109 from
# 25.05).  Every job is still there in its state, no daemon fails to read
# state or an RPC, the running jobs end normally and the pending ones start
# (end states from the jobcomp file), under the cluster policy, and every
# job is in sacct afterwards with the end state the jobcomp file has.
# Run from the 26.05 build (meson suite "upgrade"); it needs
# build-slurm-24.11 beside it (contrib/test.sh builds both in one lane).
set -uo pipefail
if [ "${PSIPLACE_SLURM:-22.05}" != 26.05 ]; then
  echo "1..0 # SKIP the upgrade test runs from the 26.05 build (this is ${PSIPLACE_SLURM:-22.05})"
  exit 77
fi
src_dir=${PSIPLACE_SRC_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
new_build=${PSIPLACE_BUILD_DIR:-$src_dir/build-slurm-26.05}
old_build=${PSIPLACE_UPGRADE_FROM_BUILD:-$src_dir/build-slurm-24.11}
if [ ! -f "$old_build/plugins/spank/psiplace.so" ]; then
  echo "Bail out! no psiplace build for Slurm 24.11 in $old_build (PSIPLACE_SLURM=24.11 contrib/build.sh)"
  exit 1
fi
# Accounting when both releases can store it (each prefix's
# accounting_storage/mysql, MariaDB); CI requires it
# (PSIPLACE_REQUIRE_ACCOUNTING=1), elsewhere the test runs without slurmdbd
# and says so.
dbd_why=
for r in 24.11 26.05; do
  w=$(PSIPLACE_SLURM=$r "$src_dir/contrib/testbed/cluster.sh" accounting-support 2>&1) || dbd_why+="$r: $w "
done
if [ -n "$dbd_why" ] && [ "${PSIPLACE_REQUIRE_ACCOUNTING:-0}" = 1 ]; then
  echo "Bail out! PSIPLACE_REQUIRE_ACCOUNTING=1 but the upgrade cannot run slurmdbd: $dbd_why"
  exit 1
fi
if [ -n "$dbd_why" ]; then export PSIPLACE_ACCOUNTING=none; else export PSIPLACE_ACCOUNTING=dbd; fi
# The testbed starts as 24.11 with its build; SlurmdTimeout raised for the
# upgrade, as the guide asks (no node may be marked DOWN meanwhile).
export PSIPLACE_SLURM=24.11 PSIPLACE_BUILD_DIR=$old_build
export PSIPLACE_POLICY=LASTAVAILABLE PSIPLACE_JOBCOMP=1 PSIPLACE_SLURMD_TIMEOUT=300
source "$(dirname "$0")/lib.sh"
tb_start
t_start=$SECONDS
acct_since=$(date +%Y-%m-%dT%H:%M:%S)
dbd() { [ "${PSIPLACE_ACCOUNTING:-none}" = dbd ]; }

dir=$PSIPLACE_TESTBED_DIR
jobcomp=$dir/log/jobcomp.txt
work=$dir/upgrade
rm -rf "$work"; mkdir -p "$work/bin"
flag=$work/go
# srun as a job's script finds it after the upgrade: where a site's package
# replaces it in place (a link, switched to 26.05's with the daemons).
ln -sfn "$(command -v srun)" "$work/bin/srun"

# A job's work: wait (at most 300 s) for the flag, then succeed.
cat >"$work/wait.sh" <<'EOF'
#!/bin/bash
for _ in $(seq 1200); do [ -e "$1" ] && exit 0; sleep 0.25; done
exit 3
EOF
chmod +x "$work/wait.sh"

names() { squeue -h -o '%j %T' 2>/dev/null | grep '^up_' | grep -v '^up_window ' | sort; }
running_count() { names | grep -c ' RUNNING$'; }
comp_state() { # NAME: end states of the jobcomp records of that job name
  grep -o " Name=$1 .*" "$jobcomp" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | sort | uniq -c | awk '{print $2 "x" $1}' | paste -sd' '
}
# error lines of the daemons (psiplace's start-up line on 24.11, which names
# the RPC error it warns of, is not one)
error_lines() { # LOG...
  cat "$@" 2>/dev/null | grep -v 'psiplace_cons_tres: plugin_id 180:' |
    grep -v 'appears to have a different slurm.conf' | grep -cE 'error|unknown select plugin id|Malformed RPC|Incompatible' || true
}
# slurmdbd's records of this test's jobs: "JOBID NAME STATE" per job (array
# tasks by their own ids), sorted; and the same from the jobcomp file
acct_jobs() {
  sacct -n -P -X -a -S "$acct_since" -o JobIDRaw,JobName,State 2>/dev/null |
    awk -F'|' '$2 ~ /^up_/ { print $1, $2, $3 }' | sort
}
comp_jobs() {
  awk '{ id = ""; n = ""; s = ""
         for (i = 1; i <= NF; i++) { if ($i ~ /^JobId=/) id = substr($i, 7); if ($i ~ /^Name=/) n = substr($i, 6)
                                     if ($i ~ /^JobState=/) s = substr($i, 10) }
         if (n ~ /^up_/) last[id] = id " " n " " s }
       END { for (j in last) print last[j] }' "$jobcomp" 2>/dev/null | sort
}

# 7 of the 40 cores (n1 4, n2 8, n3 16, n4 12); LASTAVAILABLE fills from n4.
sbatch -Q -J up_batch -n1 -t 10 -o /dev/null --wrap "$work/wait.sh $flag"
sbatch -Q -J up_step -n1 -t 10 -o "$work/step.out" --wrap "srun -n1 $work/wait.sh $flag && echo step-ok"
sbatch -Q -J up_multi -N2 -n2 -t 10 -o "$work/multi.out" --wrap "srun -N2 -n2 $work/wait.sh $flag && echo multi-ok"
sbatch -Q -J up_late -n1 -t 10 -o "$work/late.out" \
  --wrap "$work/wait.sh $flag && $work/bin/srun -n1 $work/bin/srun --version && echo late-step-ok"
sbatch -Q -J up_array --array=1-3%1 -n1 -t 10 -o /dev/null --wrap "$work/wait.sh $flag"
timeout 300 salloc -Q -J up_salloc -N1 -n1 -t 10 srun -n1 "$work/wait.sh" "$flag" >"$work/salloc.out" 2>&1 &
salloc_pid=$!
poll 60 bash -c '[ "$(squeue -h -t RUNNING -o %j | grep -c "^up_")" -ge 6 ]' \
  && ok "24.11: load running" || not_ok "24.11: load not running" "$(names)"
# released while slurmctld is 26.05 and the slurmds 24.11 (rolling), else after the upgrade
window=$(sbatch --parsable --hold -J up_window -N1 -n1 -t 2 -o "$work/window.out" --wrap 'printenv SLURMD_NODENAME')
held=$(sbatch --parsable --hold -J up_held -N1 -n1 -t 2 -o "$work/held.out" --wrap 'printenv SLURMD_NODENAME')
# all four nodes to itself: pending until the load has ended
sbatch -Q -J up_wide --exclusive -N4 -n4 -t 2 -o "$work/wide.out" --wrap "$work/bin/srun -N4 -n4 printenv SLURMD_NODENAME | sort | paste -sd,"
poll 20 bash -c '[ "$(squeue -h -n up_wide -o %T)" = PENDING ]' || not_ok "24.11: the wide job is not pending"
# the three srun steps (up_step, up_multi, up_salloc)
poll 30 bash -c '[ "$(squeue -h -s -o %i | grep -c "\.0$")" -ge 3 ]' || not_ok "24.11: the steps are not running" "$(squeue -s)"
steps_before=$(squeue -h -s -o '%i' | grep -c '\.0$')
before=$(names)
njobs=$(scontrol -o show job | grep -c '^JobId=')
check_match "24.11: slurmctld is 24.11" '^slurm(-wlm)? 24\.11' "$(scontrol -V)"
check_match "24.11: psiplace built for 24.11 loaded" 'psiplace_cons_tres: psiplace .* built for Slurm 24\.11' \
  "$(cat "$dir/log/slurmctld.log")"

# ---- the upgrade, in the guide's order: the daemons started in its list's
# order (slurmctld, then the slurmds), or with PSIPLACE_UPGRADE_ORDER=slurmd-first
# as its simultaneous procedure's optional steps have it (the slurmds, then
# slurmctld)
# slurmctld) or, with PSIPLACE_UPGRADE_ORDER=rolling, the guide's rolling upgrade:
# slurmctld upgraded first while the 24.11 slurmds run on, the compute
# nodes' own files (a slurm.conf and plugstack.conf of theirs, naming the
# 24.11 build: what a node not yet upgraded has) untouched, a job started
# meanwhile on a 24.11 slurmd, then the slurmds upgraded
order=${PSIPLACE_UPGRADE_ORDER:-ctld-first}
case $order in ctld-first|slurmd-first|rolling) ;; *) echo "Bail out! PSIPLACE_UPGRADE_ORDER='$order'; accepted: ctld-first, slurmd-first, rolling"; exit 1 ;; esac
echo "# upgrade order: $order"
if [ "$order" = rolling ]; then
  etc=$dir/etc
  cp "$etc/plugstack.conf" "$etc/plugstack-node.conf"
  sed "s|^PlugStackConfig=.*|PlugStackConfig=$etc/plugstack-node.conf|" "$SLURM_CONF" >"$etc/slurm-node.conf"
  PSIPLACE_SLURMD_CONF=$etc/slurm-node.conf "$cluster" restart-slurmds \
    && ok "rolling: the 24.11 slurmds restarted on the nodes' own files" || not_ok "rolling: slurmds not restarted"
fi
# slurmdbd first, while slurmctld and the slurmds (24.11) run on
if dbd; then
  poll 30 bash -c '[ "$(sacct -n -P -X -a -S '"$acct_since"' -s R -o JobName | grep -c "^up_")" -ge 6 ]'
  check_eq "24.11: slurmdbd has the running jobs" 6 \
    "$(acct_jobs | awk '$3 == "RUNNING"' | wc -l)" "$(acct_jobs | paste -sd';')"
  rpc() { sacctmgr -n -P show cluster "psiplace$PSIPLACE_INSTANCE" format=rpc 2>/dev/null; }
  rpc_2411=$(rpc)
  dbd_start=$SECONDS
  "$cluster" stop-dbd && ok "upgrade: slurmdbd 24.11 stopped" || not_ok "upgrade: slurmdbd not stopped"
  "$cluster" dump-db "$work/acct.sql" && [ -s "$work/acct.sql" ] && ok "upgrade: the accounting database backed up" \
    || not_ok "upgrade: the accounting database not backed up"
  dbd_lines=$(wc -l <"$dir/log/slurmdbd.log") dbd_ctld_lines=$(wc -l <"$dir/log/slurmctld.log")
  PSIPLACE_SLURM=26.05 PSIPLACE_BUILD_DIR=$new_build "$cluster" start-dbd \
    && ok "upgrade: slurmdbd 26.05 started on the 24.11 database" || not_ok "upgrade: slurmdbd 26.05 did not start"
  dbd_secs=$((SECONDS - dbd_start))
  dbd_log() { tail -n +"$((dbd_lines + 1))" "$dir/log/slurmdbd.log"; }
  check_match "upgrade: slurmdbd is 26.05" 'slurmdbd version 26\.05' "$(dbd_log)"
  # (the testbed's MariaDB is small on purpose: slurmdbd's advice on its
  # settings is no error of the upgrade)
  dbd_errors() { dbd_log | grep error | grep -v 'Database settings not recommended values'; }
  check_eq "upgrade: slurmdbd 26.05 logged no error converting the 24.11 database" 0 \
    "$(dbd_errors | wc -l)" "$(dbd_errors | tail -5)"
  check_match "upgrade: slurmdbd 26.05 converted the 24.11 tables" '(adding|dropping) (key|column) .* table' "$(dbd_log)"
  registered() { tail -n +"$((dbd_ctld_lines + 1))" "$dir/log/slurmctld.log" | grep -q 'Registering slurmctld .* with slurmdbd'; }
  poll 60 registered
  check_eq "upgrade: slurmctld 24.11 registered with slurmdbd 26.05" 1 "$(registered && echo 1 || echo 0)"
  check_eq "upgrade: slurmdbd 26.05 has the running jobs of the 24.11 database" 6 \
    "$(acct_jobs | awk '$3 == "RUNNING"' | wc -l)" "$(acct_jobs | paste -sd';')"
fi
up_start=$SECONDS
ctld_lines=$(wc -l <"$dir/log/slurmctld.log")
"$cluster" stop-ctld && ok "upgrade: slurmctld 24.11 stopped" || not_ok "upgrade: slurmctld not stopped"
if [ "$order" != rolling ]; then
  "$cluster" stop-slurmds && ok "upgrade: every slurmd 24.11 stopped" || not_ok "upgrade: slurmds not stopped"
  check_eq "upgrade: the running jobs' slurmstepds go on without slurmd" 1 \
    "$([ "$(stepds | wc -l)" -ge 6 ] && echo 1 || echo 0)" "$(stepds | paste -sd' ')"
fi
rm -rf "$work/state.backup"
cp -a "$dir/state" "$work/state.backup" && ok "upgrade: StateSaveLocation backed up" \
  || not_ok "upgrade: StateSaveLocation not backed up"
# 26.05's daemons and clients first in PATH, psiplace's 26.05 build named
# by PluginDir and plugstack.conf (the same files, edited in place).
export PSIPLACE_SLURM=26.05 PSIPLACE_BUILD_DIR=$new_build
eval "$("$cluster" env)"
"$cluster" install-plugins && ok "upgrade: psiplace's 26.05 build installed" \
  || not_ok "upgrade: psiplace's 26.05 build not installed"
ln -sfn "$(command -v srun)" "$work/bin/srun"
start_slurmds() { "$cluster" start-slurmds && ok "upgrade: every slurmd 26.05 started" || not_ok "upgrade: slurmds not started"; }
start_ctld() {
  "$cluster" start-ctld && ok "upgrade: slurmctld 26.05 started on the 24.11 state" \
    || not_ok "upgrade: slurmctld 26.05 did not start"
}
comp_of() { # ID NAME: the job's end state and what it printed
  poll 60 job_ended "$1"
  echo "$(jobcomp_state "$1") $(cat "$work/$2.out" 2>/dev/null)"
}
case $order in
  ctld-first) start_ctld; start_slurmds ;;
  slurmd-first) start_slurmds; start_ctld ;;
  rolling)
    start_ctld
    poll 60 bash -c '[ "$(sinfo -h -N -p debug -o "%N %t" | grep -cE " (mix|alloc|idle)$")" -ge 4 ]' \
      || not_ok "rolling: the 24.11 slurmds answer slurmctld 26.05" "$(sinfo -N -p debug)"
    scontrol release "$window"
    check_eq "rolling: a job started on a 24.11 slurmd under slurmctld 26.05 (cluster policy) completed" \
      "COMPLETED n4" "$(comp_of "$window" window)"
    check_eq "rolling: n4's slurmd and its psiplace were 24.11's meanwhile" \
      "slurmd version 24.11 psiplace 0.1.0 built for Slurm 24.11" \
      "$(grep -o 'slurmd version [0-9]*\.[0-9]*' "$dir/log/slurmd-n4.log" | tail -1) $(grep -o 'psiplace [^ ]* built for Slurm [0-9]*\.[0-9]*' "$dir/log/slurmd-n4.log" | tail -1)"
    "$cluster" stop-slurmds && ok "rolling: the slurmds 24.11 stopped" || not_ok "rolling: slurmds not stopped"
    start_slurmds ;;
esac
up_secs=$((SECONDS - up_start))

check_match "26.05: slurmctld is 26.05" '^slurm(-wlm)? 26\.05' "$(scontrol -V)"
check_match "26.05: psiplace built for 26.05 loaded" 'psiplace_cons_tres: psiplace .* built for Slurm 26\.05' \
  "$(cat "$dir/log/slurmctld.log")"
poll 60 bash -c '[ "$(sinfo -h -N -p debug -o "%N %t" | grep -cE " (mix|alloc|idle)$")" -ge 4 ]' \
  || not_ok "26.05: nodes back" "$(sinfo -N -p debug)"
poll 30 bash -c "[ \"\$(squeue -h -o '%j %T' | grep '^up_' | sort)\" = \"$before\" ]"
check_eq "26.05: every job there in its state" "$before" "$(names)"
check_eq "26.05: the running steps are there" "$steps_before" "$(squeue -h -s -o '%i' | grep -c '\.0$')"
new_log() { tail -n +"$((ctld_lines + 1))" "$dir/log/slurmctld.log"; }
check_eq "26.05: slurmctld recovered every job record of the 24.11 state" "$njobs" \
  "$(new_log | sed -n 's/.*Recovered information about \([0-9]*\) jobs.*/\1/p')"
check_eq "26.05: slurmctld logged no error reading the 24.11 state" 0 "$(new_log | error_lines)" \
  "$(new_log | grep -E 'error' | tail -5)"
check_eq "26.05: the wide job still pends" PENDING "$(squeue -h -n up_wide -o %T)"

# ---- the running jobs end, the pending ones start
touch "$flag"
poll 150 bash -c '[ -z "$(squeue -h -o %j | grep "^up_" | grep -vE "^up_(held|window)$")" ]' \
  && ok "26.05: every job ended" || not_ok "26.05: jobs left" "$(names)"
wait "$salloc_pid"; check_eq "26.05: salloc+srun (24.11's, begun before) exit" 0 "$?" "$(cat "$work/salloc.out")"
for n in batch step multi late salloc wide; do
  poll 20 bash -c "grep -q ' Name=up_$n ' '$jobcomp'"
  check_eq "26.05: up_$n ended" "JobState=COMPLETEDx1" "$(comp_state up_$n)"
done
poll 20 bash -c "[ \$(grep -c ' Name=up_array ' '$jobcomp') -ge 3 ]"
check_eq "26.05: the array's three tasks ended (two started after the upgrade)" \
  "JobState=COMPLETEDx3" "$(comp_state up_array)"
check_match "26.05: the step begun on 24.11 ended" step-ok "$(cat "$work/step.out" 2>/dev/null)"
check_match "26.05: the two-node step ended" multi-ok "$(cat "$work/multi.out" 2>/dev/null)"
check_match "26.05: a 24.11 batch job started a 26.05 step" '^slurm 26\.05.*late-step-ok$' \
  "$(paste -sd' ' "$work/late.out" 2>/dev/null)"
check_eq "26.05: the job pending for four nodes ran on them" n1,n2,n3,n4 "$(cat "$work/wide.out" 2>/dev/null)"
if [ "$order" != rolling ]; then
  scontrol release "$window"
  check_eq "26.05: the job held over the upgrade completed (cluster policy)" "COMPLETED n4" "$(comp_of "$window" window)"
fi
scontrol release "$held"
poll 60 bash -c "grep -q ' Name=up_held ' '$jobcomp'"
check_eq "26.05: the held job ended" "JobState=COMPLETEDx1" "$(comp_state up_held)"
check_eq "26.05: the held job started under the cluster policy (LASTAVAILABLE)" n4 "$(cat "$work/held.out" 2>/dev/null)"
# a new job with a per-job policy, from 26.05's sbatch with psiplace's 26.05 build
settle
id=$(sbatch --parsable -J up_new --psi-alloc-policy=FIRSTAVAILABLE -N1 -n1 -t 2 -o "$work/new.out" --wrap 'printenv SLURMD_NODENAME')
poll 60 job_ended "$id"
check_eq "26.05: a new job's --psi-alloc-policy applies" "COMPLETED n1" "$(jobcomp_state "$id") $(cat "$work/new.out" 2>/dev/null)"
check_eq "26.05: no slurmd logged an error" 0 "$(error_lines "$dir"/log/slurmd-n*.log)" \
  "$(grep -hE 'error' "$dir"/log/slurmd-n*.log | tail -5)"
check_eq "26.05: no slurmctld error after the upgrade" 0 "$(new_log | error_lines)" "$(new_log | grep -E 'error' | tail -5)"
check_no_stepds "26.05"
if dbd; then
  # every job in slurmdbd's records, ended as the jobcomp file has it: the
  # records of 24.11 converted, the ends reported by slurmctld 26.05
  poll 30 bash -c '[ "$(sacctmgr -n -P show cluster psiplace'"$PSIPLACE_INSTANCE"' format=rpc)" != "'"$rpc_2411"'" ]'
  check_eq "26.05: slurmctld 26.05 registered with slurmdbd (a newer RPC version than 24.11's $rpc_2411)" 1 \
    "$([ "$(rpc)" -gt "$rpc_2411" ] 2>/dev/null && echo 1 || echo 0)" "rpc $(rpc)"
  want=$(comp_jobs)
  poll 60 bash -c "[ \"\$(sacct -n -P -X -a -S '$acct_since' -o JobIDRaw,JobName,State 2>/dev/null | awk -F'|' '\$2 ~ /^up_/ { print \$1, \$2, \$3 }' | sort)\" = '$want' ]"
  check_eq "26.05: every job in sacct with its end state ($(wc -l <<<"$want") jobs)" "$want" "$(acct_jobs)"
  check_eq "26.05: every job in sacct COMPLETED" "" "$(acct_jobs | awk '$3 != "COMPLETED"')"
  check_eq "26.05: slurmctld logged no accounting error" 0 "$(new_log | grep -ciE 'error.*(slurmdbd|accounting)')"
  check_eq "26.05: slurmdbd 26.05 logged no error" 0 "$(dbd_errors | wc -l)" "$(dbd_errors | tail -5)"
  echo "# slurmdbd upgrade (stopped, dumped, 26.05 started on the converted database): ${dbd_secs} s"
else
  skip "slurmdbd upgraded first, every job in sacct" "no accounting: $dbd_why"
fi
echo "# upgrade (slurmctld stopped to both started, $order): ${up_secs} s; test $((SECONDS - t_start)) s after the testbed started"
tb_finish
