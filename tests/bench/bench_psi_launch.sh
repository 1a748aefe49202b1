#!/usr/bin/env bash
# Step launch cost of the psiplace SPANK plugin (target: wall ratio
# <= 1.05): `srun -N4 -n32 true` on the 4-node testbed, in one run,
# alternating three sides every round:
#   none    plugstack.conf without the psiplace line (plugin absent)
#   idle    psiplace loaded, the step asks for nothing (Slurm binds)
#   placed  psiplace places all 32 tasks (--psi-tpp=1; --psi-dry-run because
#           n1..n4 are fake nodes described by TopologyFile)
# Slurm's own binding cannot lay tasks out on the fake nodes: every side runs
# with --cpu-bind=none.  Prints `bench:` lines: the median wall time of each
# side and the ratios.
# Environment: BENCH_ROUNDS (15), BENCH_INSTANCE (22).
set -euo pipefail
# the daemons of every testbed started below end after this script, however
# it ends (contrib/testbed/cluster.sh guard)
export PSIPLACE_STOP_WITH=${PSIPLACE_STOP_WITH:-$$}
src=${PSIPLACE_SRC_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
cluster=$src/contrib/testbed/cluster.sh
export PSIPLACE_SLURM=${PSIPLACE_SLURM:-22.05}
# the release's own clients (sbatch, squeue) for 24.11/26.05
if [ "$PSIPLACE_SLURM" != 22.05 ]; then
  eval "$("$cluster" env | grep '^export PATH=')"
fi
rounds=${BENCH_ROUNDS:-15}
export PSIPLACE_INSTANCE=${BENCH_INSTANCE:-22}
topo=$(mktemp -d)
lstopo --input "pack:1 core:4 pu:1" --of xml "$topo/n1.xml" 2>/dev/null
lstopo --input "pack:2 core:4 pu:1" --of xml "$topo/n2.xml" 2>/dev/null
lstopo --input "pack:2 core:8 pu:1" --of xml "$topo/n3.xml" 2>/dev/null
lstopo --input "pack:2 core:6 pu:1" --of xml "$topo/n4.xml" 2>/dev/null
export PSIPLACE_PLUGSTACK_ARGS="TopologyFile=$topo/%n.xml"
"$cluster" start >/dev/null
trap '"$cluster" stop >/dev/null 2>&1; rm -rf "$topo"' EXIT
eval "$("$cluster" env)"
plugstack=$PSIPLACE_TESTBED_DIR/etc/plugstack.conf
with=$(cat "$plugstack")
now() { date +%s.%N; }

# Seconds of one step launch; the step must succeed.
launch() {
  local t0 t1
  t0=$(now)
  timeout 120 srun -N4 -n32 --cpu-bind=none "$@" true >/dev/null 2>&1 || { echo "bench: srun $* failed" >&2; exit 1; }
  t1=$(now)
  echo "$t1 - $t0" | bc -l
}
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

launch >/dev/null # warm up: the first job pays for node start-up
none=() idle=() placed=()
for ((r = 0; r < rounds; r++)); do
  : >"$plugstack"
  none+=("$(launch)")
  printf '%s\n' "$with" >"$plugstack"
  idle+=("$(launch)")
  placed+=("$(launch --psi-tpp=1 --psi-dry-run)")
done
mn=$(printf '%s\n' "${none[@]}" | median)
mi=$(printf '%s\n' "${idle[@]}" | median)
mp=$(printf '%s\n' "${placed[@]}" | median)
printf "bench: psi_launch_none_slurm$PSIPLACE_SLURM %.1f ms\n" "$(echo "1000 * $mn" | bc -l)"
printf "bench: psi_launch_idle_slurm$PSIPLACE_SLURM %.1f ms\n" "$(echo "1000 * $mi" | bc -l)"
printf "bench: psi_launch_placed_slurm$PSIPLACE_SLURM %.1f ms\n" "$(echo "1000 * $mp" | bc -l)"
printf "bench: psi_launch_idle_ratio_slurm$PSIPLACE_SLURM %.3f idle/none\n" "$(echo "$mi / $mn" | bc -l)"
printf "bench: psi_launch_placed_ratio_slurm$PSIPLACE_SLURM %.3f placed/none\n" "$(echo "$mp / $mn" | bc -l)"
