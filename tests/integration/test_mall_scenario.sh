#!/usr/bin/env bash
# The malleable scenario with psiplace-malleabled deciding (PSIPLACE_MALLEABLED=1,
# decisions every second, MalleableMinInterval=0) and the job acting
# (psiplace-resize-demo --malleable under MPICH ch3): job A
# (--psi-malleable=1-4) starts on 1 node of an idle cluster and grows to 4;
# a rigid job B of 2 nodes arrives: A shrinks to 2 and B starts on exactly
# the nodes A released, with no process of A on them; B ends; A grows back
# to 4; A ends with exit 0; sacct has the resize records.
# Few processes (at most 4 on 2 cores); placement, states and acks only.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/mall_lib.sh"

export PSIPLACE_MALLEABLED=1 PSIPLACE_MALLEABLED_ARGS="--interval 1" PSIPLACE_POLICY=FIRSTAVAILABLE
export PSIPLACE_PSICONF_EXTRA=$'MalleableMinInterval=0' PSIPLACE_JOBCOMP=1
mall_start
mall_script "$work/a.sh" 60

node_count() { scontrol show hostnames "$(node_of "$1")" 2>/dev/null | wc -l; }
holds() { [ "$(node_count "$1")" = "$2" ]; }
# the latest ack in A's Comment: "ID KIND-RESULT SIZE"
ack_is() { [[ $(comment "$1") =~ ^psiplace-ack=[0-9]+\;$2\;$3$ ]]; }

settle
out=$work/a.out
# A starts on n1 (the cluster's policy FIRSTAVAILABLE) and grows onto n2-n4,
# the layout whose merge 22.05's cons_tres got wrong (doc/malleability.md,
# "22.05's merge and the cores of the grown job"); after a merge its batch
# host must stay the job's first node, or a node registration can requeue
# it as missing ("A merged job whose batch host is not its first node").
a=$(sbatch --parsable -N1 -n1 -t 15 --psi-malleable=1-4 -o "$out" "$work/a.sh" 240) ||
  { echo "Bail out! sbatch of job A failed"; exit 1; }
poll 60 job_running "$a" || not_ok "job A runs within 60 s"
start=$(node_of "$a")

# ---- A grows to 4 on the idle cluster
poll 120 holds "$a" 4
check_eq "A grows to 4 nodes on the idle cluster" 4 "$(node_count "$a")" "$(cat "$out")"
poll 60 ack_is "$a" done 4
check_match "A acknowledges the grow done at 4" '^psiplace-ack=[0-9]+;done;4$' "$(comment "$a")"
poll 60 has_lines "$out" '^resize 1 rank [0-3] of 4 ' 4
check_eq "4 processes report resize 1 of 4" 4 "$(lines "$out" '^resize 1 rank [0-3] of 4 ')" "$(cat "$out")"
check_eq "'granted' names the 3 nodes A got" \
  "$(scontrol show hostnames n[1-4] | grep -vx "$start" | paste -sd,)" \
  "$(expand_nodes "$(sed -n '1,/^granted /s/^granted //p' "$out")")" "$(cat "$out")"

# ---- rigid B of 2 nodes arrives: A shrinks to 2, B starts on the released nodes
# B takes whole nodes: under CR_Core it would otherwise start at once beside
# A, which holds one CPU per node
b=$(sbatch --parsable -N2 --exclusive -t 5 -o /dev/null --wrap "sleep 25")
poll 120 job_running "$b" || not_ok "B starts within 120 s"
bnodes=$(expand_nodes "$(node_of "$b")")
poll 60 has_lines "$out" '^released ' 1
released=$(expand_nodes "$(sed -n 's/^released //p' "$out" | head -n 1)")
check_eq "B starts on exactly the nodes A released" "$released" "$bnodes" "$(cat "$out")"
check_eq "A runs on 2 nodes beside B" 2 "$(node_count "$a")"
check_match "A acknowledges the shrink done at 2" '^psiplace-ack=[0-9]+;done;2$' "$(comment "$a")"
check_eq "no process of A on B's nodes" "" "$(procs_on "$a" "${bnodes//,/|}" | paste -sd' ')"
check_eq "no step of A on B's nodes" "" "$(for n in ${bnodes//,/ }; do steps_on "$a" "$n"; done | paste -sd' ')"
check_match "A's survivors report resize 2 of 2" '^resize 2 rank [01] of 2 ' "$(cat "$out")"

# ---- B ends: A grows back to 4
poll 120 job_done "$b" || not_ok "B ends within 120 s"
poll 150 holds "$a" 4
check_eq "A grows back to 4 nodes after B" 4 "$(node_count "$a")" "$(cat "$out")"
poll 60 has_lines "$out" '^granted ' 2
check_eq "the second 'granted' names B's nodes" "$bnodes" \
  "$(expand_nodes "$(sed -n 's/^granted //p' "$out" | sed -n 2p)")" "$(cat "$out")"
poll 60 has_lines "$out" '^resize 3 rank [0-3] of 4 ' 4
check_eq "4 processes report resize 3 of 4" 4 "$(lines "$out" '^resize 3 rank [0-3] of 4 ')" "$(cat "$out")"
# a step bound by task/affinity (no --cpu-bind=none) on each of A's nodes:
# without the select plugin's repair of the merge the nodes after the first
# ones have no core (or another node's) and the step fails in
# task_g_set_affinity
unbound=$(for n in $(scontrol show hostnames "$(node_of "$a")"); do
  timeout 60 srun --jobid="$a" --overlap -w "$n" -N1 -n1 true >/dev/null 2>&1 || echo "$n"; done | paste -sd,)
check_eq "a bound step runs on every node of A after the grow back" "" "$unbound"

# ---- A ends with exit 0
a_ended() { job_done "$a" && case $(jobcomp_state "$a") in ""|RESIZING|PENDING) return 1 ;; esac; }
poll 400 a_ended || not_ok "job A ends within 400 s"
check_eq "A ends COMPLETED" COMPLETED "$(jobcomp_state "$a")" "$(cat "$out")"
check_match "A finishes on 4 processes" '^done [0-9]+ units in [0-9]+ iterations on 4 processes$' "$(cat "$out")"
# (26.05.3's slurmstepd writes "error: Unable to unlink domain socket" into
# the job's output when a step on a node the job gave back ends: its own
# cleanup of a directory the node's release already removed; not A's.)
check_eq "A prints no error" "" \
  "$(grep -E 'error|Fatal' "$out" | grep -v 'slurmstepd: error: Unable to unlink domain socket')" "$(cat "$out")"
poll 30 no_procs_on "$a" 'n[0-9]+'
check_eq "nothing of A is left after it" "" "$(job_procs "$a" | paste -sd' ')"
check_eq "no helper left in the queue" "" "$(squeue -h -o %j | grep '^psiplace-grow-')"
if [ "$acct" = 1 ]; then
  rec=$(sacct -n -D -X -j "$a" -o State,NNodes -P 2>/dev/null | paste -sd' ')
  check_match "sacct: A's records: 1 node, 4, 2, 4" 'RESIZING\|1 .*RESIZING\|4 .*RESIZING\|2 .*COMPLETED\|4' "$rec"
else
  skip "sacct resize records" "$("$cluster" accounting-support 2>&1 | head -n 1)"
fi
tb_finish
