#!/usr/bin/env bash
# Per-partition policies (issue 20, item 3): three partitions over the same
# four nodes.  psiplace.conf gives debug FIRSTAVAILABLE and fast FASTEST;
# other has no line and keeps the plugstack line's LASTAVAILABLE.  Speeds
# (testbed psiplace.conf): n1 1.0, n2 2.0, n3 3.0, n4 0.5.
source "$(dirname "$0")/lib.sh"

export PSIPLACE_PARTITIONS="fast other" PSIPLACE_POLICY=LASTAVAILABLE
export PSIPLACE_PSICONF_EXTRA="PartitionName=debug NodeAllocationPolicy=FIRSTAVAILABLE
PartitionName=fast NodeAllocationPolicy=FASTEST"
tb_start
etc=$PSIPLACE_TESTBED_DIR/etc
psiplace=$PSIPLACE_BUILD_DIR/cli/psiplace

check_eq "debug (its line: FIRSTAVAILABLE) gives n1" n1 "$(srun_node -p debug)"
check_eq "fast (its line: FASTEST) gives n3" n3 "$(srun_node -p fast)"
check_eq "other (no line: the cluster's LASTAVAILABLE) gives n4" n4 "$(srun_node -p other)"
check_eq "the job's own option wins over its partition's line (fast, FIRSTAVAILABLE: n1)" n1 \
  "$(srun_node -p fast --psi-alloc-policy=firstavailable)"
check_eq "the job's own option wins over the cluster line (other, FASTEST: n3)" n3 \
  "$(srun_node -p other --psi-alloc-policy=fastest)"

# A job submitted to two partitions gets the policy of the one Slurm tries:
# with the other partition down, Slurm can only try the one that is up.
# "PARTITION NODE" of a job once it runs (scontrol names the partition it
# runs in; SLURM_JOB_PARTITION lists both).
ran_in() {
  local id; settle
  id=$(sbatch --parsable -p "$1" -N1 -n1 -t 1 -o /dev/null --wrap 'sleep 3') || return 1
  poll 60 job_running "$id" || { echo "job $id not running: $(job_state "$id")"; return 1; }
  scontrol show job "$id" | tr ' ' '\n' | sed -n 's/^Partition=//p; s/^NodeList=//p' | paste -sd' '
  scancel "$id"
}
scontrol update PartitionName=fast State=DOWN
check_eq "-p fast,debug with fast down: placed in debug by FIRSTAVAILABLE (n1)" "debug n1" \
  "$(ran_in fast,debug)"
scontrol update PartitionName=fast State=UP
scontrol update PartitionName=debug State=DOWN
check_eq "-p debug,fast with debug down: placed in fast by FASTEST (n3)" "fast n3" \
  "$(ran_in debug,fast)"
scontrol update PartitionName=debug State=UP
# Both up: whichever partition Slurm tries first, the node is that one's.
got=$(ran_in fast,debug)
check_match "-p fast,debug, both up: the node is the policy's of the partition it ran in ($got)" \
  '^(fast n3|debug n1)$' "$got"

# The CLI knows the lines: rank --partition over the testbed's nodes and files.
cat >"$PSIPLACE_TESTBED_DIR/nodes.csv" <<CSV
name,cpus
n1,4
n2,8
n3,16
n4,12
CSV
rank() { "$psiplace" rank --plugstack "$etc/plugstack.conf" --psiconf "$etc/psiplace.conf" \
  --table "$PSIPLACE_TESTBED_DIR/nodes.csv" --job nodes=1 "$@" 2>&1 | head -1 | awk '{print $1}'; }
for p in debug:n1 fast:n3 other:n4; do
  check_eq "psiplace rank --as-select --partition ${p%%:*} names the node slurmctld gave (${p#*:})" \
    "${p#*:}" "$(rank --as-select --partition "${p%%:*}")"
done
out=$("$psiplace" check-config "$etc/plugstack.conf" --psiplace-conf "$etc/psiplace.conf" 2>&1)
check_eq "check-config lists the partition lines" \
  "PartitionName=debug NodeAllocationPolicy=FIRSTAVAILABLE|PartitionName=fast NodeAllocationPolicy=FASTEST" \
  "$(grep '^PartitionName=' <<<"$out" | paste -sd'|')" "$out"

# A bad line is one FILE:LINE error for check-config; 22.05 reconfigures in
# place and keeps the previous configuration (23.11+ re-executes slurmctld,
# where a bad file stops it at start, as documented: not done there).
echo "PartitionName=fast NodeAllocationPolicy=CPULOAD" >>"$etc/psiplace.conf"
line=$(wc -l <"$etc/psiplace.conf")
out=$("$psiplace" check-config "$etc/plugstack.conf" --psiplace-conf "$etc/psiplace.conf" 2>&1)
check_match "check-config: a partition on two lines is one FILE:LINE error" \
  "^psiplace: error: $etc/psiplace.conf:$line: partition fast: already set at line [0-9]+$" "$out"
if [ "$PSIPLACE_SLURM" != 22.05 ]; then
  echo "# Slurm $PSIPLACE_SLURM: the refused reconfigure is checked on 22.05 only (23.11+ re-executes slurmctld)"
  tb_finish
fi
scontrol reconfigure
poll 30 grep -q "keeping the previous configuration.*psiplace.conf:$line: partition fast" \
  "$PSIPLACE_TESTBED_DIR/log/slurmctld.log"
check_match "slurmctld keeps the previous configuration and logs FILE:LINE" \
  "psiplace.conf:$line: partition fast: already set" \
  "$(grep 'keeping the previous configuration' "$PSIPLACE_TESTBED_DIR/log/slurmctld.log" | tail -1)"
poll 30 bash -c '[ "$(sinfo -h -N -p debug -t idle -o %N | sort -u | wc -l)" -eq 4 ]'
check_eq "fast still gives n3 after the refused reconfigure" n3 "$(srun_node -p fast)"

tb_finish
