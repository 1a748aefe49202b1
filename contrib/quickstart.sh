#!/usr/bin/env bash
# psiplace in five minutes: install, build, start a local 4-node Slurm with
# both plugins enabled, show where each node allocation policy puts the same
# job, then stop the testbed.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
contrib/build.sh
cluster=contrib/testbed/cluster.sh
export PSIPLACE_INSTANCE=${PSIPLACE_INSTANCE:-0} PSIPLACE_POLICY=LASTAVAILABLE
eval "$("$cluster" env)"
"$cluster" start
trap '"$cluster" stop' EXIT

echo
echo "== the testbed: slurm.conf SelectType=select/psiplace_cons_tres, plugstack.conf:"
sed 's/^/   /' "$PSIPLACE_TESTBED_DIR/etc/plugstack.conf"
sinfo -h -N -o '   %N %c CPUs %m MB %f %G'

where() { timeout 60 srun -N1 -n1 "$@" printenv SLURMD_NODENAME; }
echo
echo "== the same one-CPU job, different node allocation policies"
printf '   %-44s -> %s\n' "srun true   (cluster default LASTAVAILABLE)" "$(where)"
printf '   %-44s -> %s\n' "srun --psi-alloc-policy=firstavailable true" "$(where --psi-alloc-policy=firstavailable)"
printf '   %-44s -> %s\n' "srun --psi-alloc-policy=InReportedOrder true" "$(where --psi-alloc-policy=InReportedOrder)"
printf '   %-44s -> %s\n' "srun -N2 true (LASTAVAILABLE)" "$(timeout 60 srun -N2 printenv SLURMD_NODENAME | sort | paste -sd,)"
echo
echo "== LAMA: 8 ranks on 2 sockets x 4 cores, --psi-map-by socket --psi-bind-to core (RANK NODE CPUS)"
build/cli/psiplace map --topology 'pack:2 core:4 pu:1' -n 8 --psi-map-by socket --psi-bind-to core | awk '{printf "%s rank %s->cpu %s", (NR==1?"  ":","), $1, $3} END {print ""}'
build/cli/psiplace map --topology 'pack:2 core:4 pu:1' -n 8 --psi-map-by socket --psi-bind-to core --format svg >"$PSIPLACE_TESTBED_DIR/lama-socket-core.svg"
echo "   picture: $PSIPLACE_TESTBED_DIR/lama-socket-core.svg (more in doc/lama.md, doc/img/)"
echo
echo "== a bad request is refused before submission:"
timeout 60 srun --psi-alloc-policy=bogus true 2>&1 | sed 's/^/   /' || true
