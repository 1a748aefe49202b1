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

source "$(dirname "${BASH_SOURCE[0]}")/mall_lib.sh"

export PSIPLACE_SCHED_PARAMS=permit_job_expansion PSIPLACE_JOBCOMP=1
mall_start

mall_script "$work/a.sh" 15


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
check_eq "grow: no salloc of A left running" "" "$(job_sallocs "$a")"

# ---- shrink 4 -> 2, releasing two of the new nodes
rel=$(cut -d, -f2,3 <<<"$new")
kept=$(printf '%s\n' "$start" "$(cut -d, -f1 <<<"$new")" | sort | paste -sd,)
relexpr=$(scontrol show hostlist "$rel")
order "$a" "psiplace-resize=2;shrink;2;$(deadline);$relexpr;1"
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
check_eq "grow without free node: no salloc of A left running" "" "$(job_sallocs "$a")"
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
# ---- a user cannot merge an allocation of theirs into another user's job:
# Slurm checks neither that the two jobs' users match nor that the merging
# user owns the job; psiplace's select wrapper refuses select_p_job_expand
u2=psimj2$PSIPLACE_INSTANCE
restore() { restore_opened; userdel "$u2" 2>/dev/null; }
trap 'scancel -u "$u2" 2>/dev/null; "$cluster" stop >/dev/null 2>&1; restore; rm -rf "$work"' EXIT
id "$u2" >/dev/null 2>&1 || useradd -M -s /bin/bash "$u2" || not_ok "useradd $u2"
open_for_users
[ "$acct" = 1 ] && { sacctmgr -i add user "$u2" Account=psiplace Cluster="psiplace$PSIPLACE_INSTANCE" >/dev/null ||
  not_ok "sacctmgr add user $u2"; }
as2() { timeout 60 runuser -u "$u2" -- env PATH="$PATH" SLURM_CONF="$SLURM_CONF" "$@"; }
settle
v=$(sbatch --parsable -N1 -n1 -o /dev/null --wrap "sleep 300")
poll 60 job_running "$v" || not_ok "root's job $v runs"
vnode=$(node_of "$v")
hout=$(cd /tmp && as2 salloc --no-shell -N1 -J psimj-foreign --dependency=expand:"$v" -x "$vnode" 2>&1)
h=$(squeue -h -n psimj-foreign -o %i)
if [ -n "$h" ]; then
  mout=$(cd /tmp && as2 scontrol update JobId="$h" NumNodes=0 2>&1)
  check_eq "another user's merge leaves root's job on its node" "$vnode" "$(node_of "$v")" "$mout"
  check_match "the select wrapper refused it (slurmctld log)" \
    "refusing to merge JobId=$h \(user [0-9]+\) into JobId=$v \(user 0\): the jobs' users differ" \
    "$(grep 'refusing to merge' "$PSIPLACE_TESTBED_DIR/log/slurmctld.log")"
else
  # slurmctld's refusal, not the client failing before it asked (a
  # "PluginDir: Permission denied" once passed here as "denied")
  check_match "Slurm refused another user's expand: dependency on root's job" \
    "^salloc: error: .*([Dd]ependency|Access/permission denied)" "$(grep -v PluginDir <<<"$hout")"
fi
scancel "$v"; scancel -u "$u2" 2>/dev/null
tb_finish
