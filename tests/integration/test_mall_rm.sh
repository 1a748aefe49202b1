#!/usr/bin/env bash
# Resizes the resource manager orders, the job's side: a malleable batch job
# (sbatch --psi-malleable=1-4, psiplace-resize-demo --malleable under MPICH
# ch3) is given the orders the daemon would write, by the test as root
# (scontrol update JobId=J AdminComment=psiplace-resize=...):
#  - grow 1 -> 4 on an idle cluster: a helper psiplace-grow-J-1 is granted
#    and merged, processes start on the new nodes (one Slurm step each),
#    "granted NODELIST", Comment psiplace-ack=1;done;4;
#  - shrink naming 2 nodes: "released" exactly those, the job keeps the
#    others, nothing of the job left on them, another job runs there,
#    psiplace-ack=2;done;2;
#  - a grow that cannot be granted (every other node busy): the helper is
#    cancelled at the wait's end, psiplace-ack=3;failed;2;..., no helper
#    left pending, the job runs on at 2 nodes;
#  - the job ends with exit 0, and sacct has the resize records.
# Open MPI 4.1 cannot grow (mpirun's daemons cover the nodes of its start
# only): checked that the order is acknowledged failed and the job goes on.
# Few processes (at most 4 on 2 cores), placement, states and acks only.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

mpich=$src_dir/contrib/testbed/mpich.sh
mpich_prefix=$("$mpich" path 2>/dev/null) || mpich_prefix=""
if [ -z "$mpich_prefix" ]; then
  why="MPICH (ch3:nemesis) is not built: run contrib/testbed/mpich.sh prefix (tens of minutes once)"
  if [ "${PSIPLACE_REQUIRE_MPI:-0}" = 1 ]; then echo "Bail out! $why"; exit 1; fi
  echo "1..0 # SKIP $why"
  exit 0
fi
mdemo=$("$mpich" demo "$PSIPLACE_BUILD_DIR/mpich" 2>"$PSIPLACE_BUILD_DIR/mpich-demo.log") ||
  { echo "Bail out! the demo does not build with MPICH's mpicc: $(tail -n 5 "$PSIPLACE_BUILD_DIR/mpich-demo.log")"; exit 1; }
iface=${PSIPLACE_MPICH_IFACE:-$(ip -o route show default 2>/dev/null | awk '{print $5; exit}')}
iface=${iface:-eth0}

export PSIPLACE_SCHED_PARAMS=permit_job_expansion PSIPLACE_JOBCOMP=1
acct=0
if "$cluster" accounting-support >/dev/null 2>&1; then export PSIPLACE_ACCOUNTING=dbd; acct=1; fi
tb_start
work=$(mktemp -d)
trap '"$cluster" stop >/dev/null 2>&1; rm -rf "$work"' EXIT

# The batch script: Hydra with the "user" resource kernel (with Slurm's,
# Hydra leaves --nodelist out of a spawn's srun when the spawn has as many
# nodes as the job had at its start, and srun then picks the batch host)
# and without SLURMD_NODENAME (mpiexec passes its environment to every
# process it starts, and the batch host's name would hide the node a
# spawned process runs on).
cat >"$work/a.sh" <<EOF
#!/bin/bash
export HYDRA_LAUNCHER_EXTRA_ARGS=--overlap PSIPLACE_MALL_POLL_INTERVAL=1 PSIPLACE_MALL_GROW_WAIT=15
exec timeout -k 10 400 env -u SLURMD_NODENAME $mpich_prefix/bin/mpiexec -launcher slurm -rmk user \\
  -hosts "\$SLURMD_NODENAME" -iface $iface -n 1 $mdemo --malleable --run "\$1"
EOF
chmod +x "$work/a.sh"

comment() { scontrol -o show job "$1" 2>/dev/null | sed -n 's/.* Comment=\([^ ]*\).*/\1/p'; }
acked() { case $(comment "$1") in "psiplace-ack=$2;"*) return 0 ;; *) return 1 ;; esac; }
order() { # JOB TEXT
  scontrol update JobId="$1" AdminComment="$2" || not_ok "scontrol update AdminComment=$2"
}
deadline() { echo $(($(date +%s) + 120)); }
expand_nodes() { scontrol show hostnames "$1" | paste -sd,; }
# Steps of job J on node N (the spawned groups' hydra proxies).
steps_on() { scontrol -o show step "$1" 2>/dev/null | grep -E "NodeList=$2( |\$)" | sed -n 's/^StepId=\([^ ]*\).*/\1/p'; }
# Processes of job $1 of this testbed (the demo, Hydra's proxies), PID@NODE.
job_procs() {
  local p e
  for p in $(pgrep -f 'psiplace-resize-demo|hydra_pmi_proxy'); do
    e=$(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null) || continue
    grep -qx "SLURM_JOB_ID=$1" <<<"$e" && grep -qx "SLURM_CONF=$SLURM_CONF" <<<"$e" || continue
    echo "$p@$(sed -n 's/^SLURMD_NODENAME=//p' <<<"$e")"
  done
}
procs_on() { job_procs "$1" | grep -E "@($2)\$"; }
no_procs_on() { [ -z "$(procs_on "$1" "$2")" ]; }
lines() { grep -c -E "$2" "$1" 2>/dev/null; }
has_lines() { [ "$(lines "$1" "$2")" -ge "$3" ]; }

settle
out=$work/a.out
a=$(sbatch --parsable -N1 -n1 --psi-malleable=1-4 -o "$out" "$work/a.sh" 150) ||
  { echo "Bail out! sbatch of job A failed"; exit 1; }
poll 60 job_running "$a" || not_ok "job A runs within 60 s"
start=$(node_of "$a")
check_match "A starts on one node" '^n[1-4]$' "$start"

# ---- grow 1 -> 4
order "$a" "psiplace-resize=1;grow;3;$(deadline)"
poll 90 acked "$a" 1
check_eq "grow: A acknowledges done at 4 nodes" "psiplace-ack=1;done;4" "$(comment "$a")" "$(cat "$out")"
nodes=$(expand_nodes "$(node_of "$a")")
check_eq "grow: A holds all 4 nodes in Slurm" "n1,n2,n3,n4" "$nodes"
granted=$(sed -n 's/^granted //p' "$out")
new=$(scontrol show hostnames n[1-4] | grep -vx "$start" | paste -sd,)
check_eq "grow: 'granted' names the 3 new nodes" "$new" "$(expand_nodes "$granted")" "$(cat "$out")"
poll 30 has_lines "$out" '^resize 1 rank [0-9] of 4 ' 4
check_eq "grow: 4 processes report resize 1 of 4" 4 "$(lines "$out" '^resize 1 rank [0-3] of 4 ')" "$(cat "$out")"
for n in ${new//,/ }; do
  check_match "grow: a process of resize 1 runs on new node $n" "^resize 1 rank [1-3] of 4 group [0-9]+ node $n\$" "$(cat "$out")"
  check_match "grow: Slurm runs a step of A on $n (the group's proxy)" "^$a\.[0-9]+$" "$(steps_on "$a" "$n")"
done
check_eq "grow: no helper of A left in the queue" "" "$(squeue -h -n "psiplace-grow-$a-1" -o %i)"

# ---- shrink 4 -> 2, releasing two of the new nodes
rel=$(cut -d, -f2,3 <<<"$new")
kept=$(printf '%s\n' "$start" "$(cut -d, -f1 <<<"$new")" | sort | paste -sd,)
relexpr=$(scontrol show hostlist "$rel")
order "$a" "psiplace-resize=2;shrink;2;$(deadline);$relexpr;0"
poll 90 acked "$a" 2
check_eq "shrink: A acknowledges done at 2 nodes" "psiplace-ack=2;done;2" "$(comment "$a")" "$(cat "$out")"
check_eq "shrink: 'released' names exactly the ordered nodes" "$rel" \
  "$(expand_nodes "$(sed -n 's/^released //p' "$out")")" "$(cat "$out")"
check_eq "shrink: A keeps the other two in Slurm" "$kept" "$(expand_nodes "$(node_of "$a")")"
poll 30 no_procs_on "$a" "${rel//,/|}"
check_eq "shrink: no process of A left on $rel" "" "$(procs_on "$a" "${rel//,/|}" | paste -sd' ')"
check_eq "shrink: no step of A left on $rel" "" \
  "$(for n in ${rel//,/ }; do steps_on "$a" "$n"; done | paste -sd' ')"
b=$(timeout 60 srun -N2 -w "$rel" printenv SLURMD_NODENAME 2>&1 | sort | paste -sd,)
check_eq "shrink: another job runs on the released nodes" "$rel" "$b"

# ---- a grow that cannot be granted: every other node busy
hold=$(sbatch --parsable -N2 -w "$rel" --exclusive -o /dev/null --wrap "sleep 300")
poll 60 job_running "$hold" || not_ok "the blocking job runs"
order "$a" "psiplace-resize=3;grow;1;$(deadline)"
poll 90 acked "$a" 3
check_match "grow without free node: A acknowledges failed at 2 nodes, with the reason" \
  '^psiplace-ack=3;failed;2;.*not_granted_within_15_s' "$(comment "$a")"
check_eq "grow without free node: no helper of A left in the queue" "" \
  "$(squeue -h -n "psiplace-grow-$a-3" -o %i)"
check_eq "grow without free node: A still holds its 2 nodes" "$kept" "$(expand_nodes "$(node_of "$a")")"
scancel "$hold"

# ---- A ends with exit 0
# jobcomp writes a record at each resize (JobState=RESIZING): the last one
# that counts is the job's end
a_ended() { job_done "$a" && case $(jobcomp_state "$a") in ""|RESIZING|PENDING) return 1 ;; esac; }
poll 240 a_ended || not_ok "job A ends within 240 s"
check_eq "A ends COMPLETED" COMPLETED "$(jobcomp_state "$a")" "$(cat "$out")"
check_match "A's processes finish the work on 2 processes" '^done [0-9]+ units in [0-9]+ iterations on 2 processes$' "$(cat "$out")"
check_eq "A prints no error" "" "$(grep -E 'error|Fatal' "$out")" "$(cat "$out")"
poll 30 no_procs_on "$a" 'n[0-9]+'
check_eq "nothing of A is left after it" "" "$(job_procs "$a" | paste -sd' ')"
if [ "$acct" = 1 ]; then
  rec=$(sacct -n -D -X -j "$a" -o State,NNodes -P 2>/dev/null | paste -sd' ')
  check_match "sacct: A's records show the resize (RESIZING at 1 node, then 4)" 'RESIZING\|1 .*RESIZING\|4 .*COMPLETED\|2' "$rec"
  check_match "sacct: the helper psiplace-grow-$a-1 is recorded" "psiplace-grow-$a-1" \
    "$(sacct -n -X -S now-1hour -o JobName%40 2>/dev/null)"
else
  skip "sacct resize records" "$("$cluster" accounting-support 2>&1 | head -n 1)"
fi
tb_finish
