#!/usr/bin/env bash
# psiplace in five minutes: install, build, start a local 4-node Slurm with
# both plugins enabled, show where each node allocation policy puts the same
# job, then stop the testbed.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
contrib/build.sh
cluster=contrib/testbed/cluster.sh
export PSIPLACE_INSTANCE=${PSIPLACE_INSTANCE:-0} PSIPLACE_POLICY=LASTAVAILABLE PSIPLACE_REAL_NODE=1
eval "$("$cluster" env)"
# Dry runs on the fake nodes use topologies as declared; n5 is real.
export PSIPLACE_PLUGSTACK_ARGS="TopologyFile=$PSIPLACE_TESTBED_DIR/etc/topo/%n.xml"
"$cluster" start
trap '"$cluster" stop' EXIT

echo
echo "== the testbed: slurm.conf SelectType=select/psiplace_cons_tres, plugstack.conf:"
sed 's/^/   /' "$PSIPLACE_TESTBED_DIR/etc/plugstack.conf"
sinfo -h -N -o '   %N %c CPUs %m MB %f %G'

where() { timeout 60 srun -N1 -n1 "$@" printenv SLURMD_NODENAME; }
where2() { timeout 60 srun -N2 "$@" printenv SLURMD_NODENAME | sort | paste -sd,; }
show() { printf '   %-52s -> %s\n' "$1" "$2"; }
echo "   psiplace.conf (per-node Speed/Priority):"
grep '^NodeName' "$PSIPLACE_TESTBED_DIR/etc/psiplace.conf" | sed 's/^/     /'
printf '%s\n' "n1 load1=0.5" "n2 load1=7" "n3 load1=2" "n4 load1=11" >"$PSIPLACE_METRICS"
echo "   metrics file (as a site's monitoring would write it):"
sed 's/^/     /' "$PSIPLACE_METRICS"
echo
echo "== the same one-CPU job, different node allocation policies"
show "srun true   (cluster default LASTAVAILABLE)" "$(where)"
show "srun --psi-alloc-policy=firstavailable" "$(where --psi-alloc-policy=firstavailable)"
show "srun --psi-alloc-policy=fastest        (Speed)" "$(where --psi-alloc-policy=fastest)"
show "srun --psi-alloc-policy=priority       (Priority)" "$(where --psi-alloc-policy=priority)"
show "srun --psi-alloc-policy=cpuload        (free CPUs)" "$(where --psi-alloc-policy=cpuload)"
show "srun --psi-alloc-policy=InReportedOrder (Moab name)" "$(where --psi-alloc-policy=InReportedOrder)"
show "srun -N2 --psi-alloc-policy=maxbalance (Speed span)" "$(where2 --psi-alloc-policy=maxbalance)"
show "srun -N2 true (LASTAVAILABLE)" "$(where2)"
echo
echo "== dry run of the same engine: psiplace rank"
printf 'name,cpus,speed,load1\nn1,4,1.0,0.5\nn2,8,2.0,7\nn3,16,3.0,2\nn4,12,0.5,11\n' >"$PSIPLACE_TESTBED_DIR/nodes.csv"
echo "   psiplace rank --policy priority --priority '2*SPEED - LOAD' --table nodes.csv --explain"
build/cli/psiplace rank --policy priority --priority '2*SPEED - LOAD' --table "$PSIPLACE_TESTBED_DIR/nodes.csv" --explain | sed 's/^/     /'
echo
echo "== ParaStation job scripts just work: PSI_* variables, --psi-* options"
echo "   PSI_TPP=2 srun -w n2 -n4 --exclusive --psi-verbose --psi-dry-run true   (n2: 2 sockets x 4 cores)"
PSI_TPP=2 timeout 60 srun -w n2 -n4 --exclusive --psi-verbose --psi-dry-run true 2>&1 | grep ' task ' | sort -k4n | sed 's/^/     /'
echo "   PSI_LOOP_NODES_FIRST=1 srun -N2 -n4 --psi-verbose --psi-dry-run true"
PSI_LOOP_NODES_FIRST=1 timeout 60 srun -N2 -n4 --psi-verbose --psi-dry-run true 2>&1 | grep ' task ' | sort -k4n | sed 's/^/     /'
echo "   real binding on n5 (declared like this machine): PSI_TPP=1 srun -w n5 -n2 --psi-verbose grep Cpus_allowed_list /proc/self/status"
PSI_TPP=1 timeout 60 srun -w n5 -n2 --psi-verbose bash -c 'echo "task $SLURM_PROCID: $(grep Cpus_allowed_list /proc/self/status)"' 2>&1 | grep -E ' task |Cpus_allowed' | sort | sed 's/^/     /'
echo
echo "== LAMA: 8 ranks on 2 sockets x 4 cores, --psi-map-by socket --psi-bind-to core (RANK NODE CPUS)"
build/cli/psiplace map --topology 'pack:2 core:4 pu:1' -n 8 --psi-map-by socket --psi-bind-to core | awk '{printf "%s rank %s->cpu %s", (NR==1?"  ":","), $1, $3} END {print ""}'
build/cli/psiplace map --topology 'pack:2 core:4 pu:1' -n 8 --psi-map-by socket --psi-bind-to core --format svg >"$PSIPLACE_TESTBED_DIR/lama-socket-core.svg"
echo "   picture: $PSIPLACE_TESTBED_DIR/lama-socket-core.svg (more in doc/lama.md, doc/img/)"
echo
echo "== a bad request is refused before submission:"
timeout 60 srun --psi-alloc-policy=bogus true 2>&1 | sed 's/^/   /' || true
