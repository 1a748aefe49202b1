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
echo
echo "== a malleable job that Slurm resizes (psiplace-malleabled decides, the job acts; doc/malleability.md)"
# A new testbed: the daemon on (decisions every second), no real node (so
# that B can start only on the nodes A gives back).  As in
# tests/integration/test_mall_scenario.sh, the cluster's policy is
# FIRSTAVAILABLE and A asks for LASTAVAILABLE (it starts on n4): a job
# pinned to n1 failed its grow on 22.05 (the merged job has no CPU on n4 in
# scontrol show job -d), and B's nodes come from the other end.
"$cluster" stop >/dev/null
unset PSIPLACE_REAL_NODE PSIPLACE_PLUGSTACK_ARGS
export PSIPLACE_MALLEABLED=1 PSIPLACE_MALLEABLED_ARGS="--interval 1" PSIPLACE_PSICONF_EXTRA=MalleableMinInterval=0
export PSIPLACE_POLICY=FIRSTAVAILABLE
# with slurmdbd when this machine has MariaDB and slurmdbd (22.05 then
# answers the updates right after a merge at once instead of "try again")
if "$cluster" accounting-support >/dev/null 2>&1; then export PSIPLACE_ACCOUNTING=dbd; fi
# The full cycle needs MPICH ch3 (built once by contrib/testbed/mpich.sh);
# Debian's Open MPI 4.1 cannot do it: a grow's spawn onto a merged node is
# refused (mpirun's daemons cover the nodes of its start only), and a job
# can give nodes back only from processes a grow spawned.
if ! mprefix=$(contrib/testbed/mpich.sh path 2>/dev/null); then
  echo "   skipped: MPICH ch3 is not built; Debian's Open MPI 4.1 cannot run it (a grow's spawn onto a"
  echo "   merged node is refused: mpirun's daemons cover the nodes of its start only, and only processes"
  echo "   a grow spawned can give nodes back). Build MPICH once (contrib/testbed/mpich.sh prefix, about"
  echo "   40 minutes on 2 cores) and run this script again."
  exit 0
fi
mdemo=$(contrib/testbed/mpich.sh demo "$repo/build/mpich" 2>"$repo/build/mpich-demo.log") ||
  { echo "quickstart: FAILED: the demo does not build with MPICH's mpicc ($repo/build/mpich-demo.log)" >&2; exit 1; }
echo "   with MPICH ch3 ($mprefix); Debian's Open MPI 4.1 cannot grow a running job"
eval "$("$cluster" env)"
"$cluster" start
iface=$(ip -o route show default 2>/dev/null | awk '{print $5; exit}')
cat >"$PSIPLACE_TESTBED_DIR/a.sh" <<A
#!/bin/bash
export HYDRA_LAUNCHER_EXTRA_ARGS="--overlap --cpu-bind=none" PSIPLACE_MALL_POLL_INTERVAL=1
exec timeout -k 10 300 env -u SLURMD_NODENAME $mprefix/bin/mpiexec -launcher slurm -rmk user \\
  -hosts "\$SLURMD_NODENAME" -iface ${iface:-eth0} -n 1 $mdemo --malleable --run 240
A
chmod +x "$PSIPLACE_TESTBED_DIR/a.sh"
out=$PSIPLACE_TESTBED_DIR/a.out
failed() {
  echo "quickstart: FAILED: the malleable scenario: $*" >&2
  sed 's/^/   A: /' "$out" >&2 2>/dev/null
  scancel -u "$(id -un)" 2>/dev/null
  exit 1
}
# until DEADLINE_S COMMAND...: poll COMMAND every half second
until_s() { local end=$((SECONDS + $1)); shift; until "$@"; do [ $SECONDS -lt $end ] || return 1; sleep 0.5; done; }
field() { scontrol -o show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p"; }
hosts() { scontrol show hostnames "$1" 2>/dev/null | paste -sd,; }
size_is() { [ "$(hosts "$(field "$1" NodeList)" | tr , '\n' | grep -c .)" = "$2" ]; }
acked() { [[ $(field "$1" Comment) =~ ^psiplace-ack=[0-9]+\;done\;$2$ ]]; }
running() { [ "$(field "$1" JobState)" = RUNNING ]; }
released() { grep -q '^released ' "$out"; }
t0=$SECONDS
a=$(sbatch --parsable -N1 -n1 --psi-alloc-policy=LASTAVAILABLE -t 10 --psi-malleable=1-4 -o "$out" "$PSIPLACE_TESTBED_DIR/a.sh") ||
  failed "sbatch of A"
until_s 60 running "$a" || failed "A did not start within 60 s"
echo "   A: sbatch -N1 --psi-malleable=1-4 --psi-alloc-policy=LASTAVAILABLE a.sh (mpiexec ... psiplace-resize-demo --malleable): runs on $(field "$a" NodeList)"
until_s 120 acked "$a" 4 || failed "A did not grow to 4 nodes within 120 s (Comment: $(field "$a" Comment))"
size_is "$a" 4 || failed "A acknowledged 4 nodes, Slurm says $(field "$a" NodeList)"
echo "   idle cluster: the daemon ordered a grow; A runs on $(field "$a" NodeList) ($(field "$a" Comment), $((SECONDS - t0)) s)"
t1=$SECONDS
b=$(sbatch --parsable -N2 --exclusive -t 5 -o /dev/null --wrap "sleep 5") || failed "sbatch of B"
echo "   B: sbatch -N2 --exclusive (rigid) arrives and waits; the daemon orders A to shrink"
until_s 120 running "$b" || failed "B did not start within 120 s (A: $(field "$a" NodeList), $(field "$a" Comment))"
until_s 30 released || failed "A printed no 'released' line"
rel=$(hosts "$(sed -n 's/^released //p' "$out" | head -n 1)")
[ "$rel" = "$(hosts "$(field "$b" NodeList)")" ] ||
  failed "B runs on $(field "$b" NodeList), A released $rel"
acked "$a" 2 && size_is "$a" 2 || failed "A is not at 2 nodes after the shrink ($(field "$a" NodeList), $(field "$a" Comment))"
echo "   A released $(field "$b" NodeList) and runs on $(field "$a" NodeList) ($(field "$a" Comment));" \
  "B started on exactly those nodes, $((SECONDS - t1)) s after its submission"
scancel "$a" "$b"
until_s 60 eval '[ -z "$(squeue -h -o %i)" ]' || failed "A and B did not end within 60 s of scancel"
echo "   (the daemon would grow A back once B ends: tests/integration/test_mall_scenario.sh)"
