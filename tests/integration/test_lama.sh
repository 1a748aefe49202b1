#!/usr/bin/env bash
# LAMA mapping, binding, MPPR and ordering at step launch on a real
# 5-node Slurm (TAP output).  n1..n4 are fake nodes described by
# TopologyFile (dry runs only); n5 is declared like this machine, so real
# binding is checked there.
source "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
tb_start_placement
trap '"$cluster" stop >/dev/null 2>&1; rm -rf "$work"' EXIT

# What the tasks themselves print, sorted: "RANK NODE PSIPLACE_CPUS".
tasks() { grep -E '^[0-9]+ n[0-9] ' | sort -n | paste -sd';'; }
say='echo "$SLURM_PROCID $SLURMD_NODENAME $PSIPLACE_CPUS"'
errors() { printf '%s\n' "$1" | grep -c '^psiplace: error: '; }

# --- options are registered
help=$(srun --help 2>&1)
for o in psi-map-by psi-bind-to psi-lama-map psi-lama-bind psi-lama-mppr psi-lama-order psi-oversubscribe; do
  check_match "srun --help lists --$o" "--$o" "$help"
done

# --- the changeset's example: 2 sockets x 4 cores, by socket, bound to cores
out=$(timeout 60 srun -w n2 -n8 --exclusive --psi-map-by socket --psi-bind-to core --psi-verbose \
  --psi-dry-run bash -c "$say" 2>&1)
check_eq "n2 (2x4) --psi-map-by socket --psi-bind-to core: ranks 0,2,4,6 on socket 0, 1,3,5,7 on socket 1 (PSIPLACE_CPUS)" \
  "0 n2 0;1 n2 4;2 n2 1;3 n2 5;4 n2 2;5 n2 6;6 n2 3;7 n2 7" "$(printf '%s\n' "$out" | tasks)"
check_eq "... the same in the verbose lines" \
  "0 n2 0 0;1 n2 4 0;2 n2 1 0;3 n2 5 0;4 n2 2 0;5 n2 6 0;6 n2 3 0;7 n2 7 0" "$(printf '%s\n' "$out" | report)"
check_match "... verbose names the effective LAMA strings once per node" \
  '^psiplace: n2: LAMA map sbnch bind 1c mppr none order natural, Slurm layout one node$' "$out"
check_match "... dry run says nothing was bound" '\(dry run: not bound\)$' "$out"
check_match "... srun was asked for LAMA's distribution (block: n is outermost)" \
  '^psiplace: SLURM_DISTRIBUTION=block$' "$out"

out=$(timeout 60 srun -w n3 -n4 -c4 --psi-lama-map=csbnh --psi-lama-bind=2c --psi-dry-run true 2>&1)
check_eq "n3 (2x8) --psi-lama-bind=2c: two cores per task, socket 0 first" \
  "0 n3 0-1 0;1 n3 2-3 0;2 n3 4-5 0;3 n3 6-7 0" "$(printf '%s\n' "$out" | report)"
out=$(timeout 60 srun -w n2 -n4 -c2 --psi-lama-map=scbnh --psi-lama-order=s --psi-dry-run true 2>&1)
check_eq "--psi-lama-order=s numbers ranks in hardware order" \
  "0 n2 0 0;1 n2 1 0;2 n2 4 0;3 n2 5 0" "$(printf '%s\n' "$out" | report)"

# --- OMPI_MCA_rmaps_lama_* are defaults, options win
out=$(OMPI_MCA_rmaps_lama_map=scbnh timeout 60 srun -w n2 -n4 -c2 --psi-dry-run true 2>&1)
check_eq "OMPI_MCA_rmaps_lama_map=scbnh alone places by socket" \
  "0 n2 0 0;1 n2 4 0;2 n2 1 0;3 n2 5 0" "$(printf '%s\n' "$out" | report)"
out=$(OMPI_MCA_rmaps_lama_map=scbnh OMPI_MCA_rmaps_lama_bind=2c timeout 60 srun -w n2 -n2 -c4 \
  --psi-lama-map=csbnh --psi-dry-run true 2>&1)
check_eq "--psi-lama-map beats OMPI_MCA_rmaps_lama_map; OMPI_MCA_rmaps_lama_bind=2c still counts" \
  "0 n2 0-1 0;1 n2 2-3 0" "$(printf '%s\n' "$out" | report)"
out=$(OMPI_MCA_rmaps_lama_map=csbnh timeout 60 srun -w n2 -n2 -c4 --psi-map-by socket \
  --psi-verbose --psi-dry-run true 2>&1)
check_eq "--psi-map-by beats OMPI_MCA_rmaps_lama_map" "0 n2 0 0;1 n2 4 0" "$(printf '%s\n' "$out" | report)"
check_match "... with a verbose note" '^psiplace: OMPI_MCA_rmaps_lama_map ignored: --psi-map-by is given$' "$out"

# --- MPPR: oversubscription fails the step clearly; --psi-oversubscribe runs it
out=$(timeout 60 srun -w n2 -n4 -c2 --psi-lama-mppr=1:s --psi-dry-run true 2>&1); rc=$?
check_eq "--psi-lama-mppr=1:s with 4 tasks on 2 sockets fails the step" "1 1" \
  "$([ $rc -ne 0 ] && echo 1 || echo 0) $(errors "$out")"
check_match "... one line naming map, bind, MPPR and the way out" \
  '^psiplace: error: n2: LAMA detected oversubscription after mapping 2 of 4 processes \(map cL1L2L3sNbnh, bind 1c, mppr 1:s, order n\); --psi-oversubscribe allows it \(Slurm gave the step 8 CPUs on this node\)$' "$out"
out=$(timeout 60 srun -w n2 -n4 -c2 --psi-lama-mppr=1:s --psi-oversubscribe --psi-dry-run true 2>&1); rc=$?
check_eq "--psi-oversubscribe: the step runs, MPPR dropped after the first pass" \
  "0 0 0 n2 0 0;1 n2 4 0;2 n2 0 0;3 n2 1 0" "$rc $(errors "$out") $(printf '%s\n' "$out" | report)"

out=$(timeout 60 srun -w n3 -n4 --psi-lama-bind=2c --psi-dry-run true 2>&1); rc=$?
check_match "2c without -c: the step has only its tasks' CPUs, and the error says how many" \
  '^psiplace: error: n3: LAMA detected oversubscription after mapping 2 of 4 processes \(map cL1L2L3sNbnh, bind 2c, mppr none, order n\); --psi-oversubscribe allows it \(Slurm gave the step 4 CPUs on this node\)$' "$out"

# --- several nodes: the distribution psiplace sets gives LAMA's node order
out=$(timeout 60 salloc -w n2,n4 -N2 --exclusive srun -N2 --ntasks-per-node=2 --psi-lama-map=nsbch --psi-verbose \
  --psi-dry-run bash -c "$say" 2>&1)
check_match "nsbch on two nodes: psiplace asks srun for a cyclic layout" '^psiplace: SLURM_DISTRIBUTION=cyclic$' "$out"
check_eq "... ranks alternate nodes, each node maps its own (n2 2x4, n4 2x6: socket 1 starts at 4 and 6)" \
  "0 n2 0;1 n4 0;2 n2 4;3 n4 6" "$(printf '%s\n' "$out" | tasks)"
check_match "... each node saw a cyclic layout" '^psiplace: n4: LAMA map nsbch bind 1c mppr none order natural, Slurm layout cyclic$' "$out"
out=$(timeout 60 salloc -w n2,n4 -N2 --exclusive srun -N2 --ntasks-per-node=2 --psi-map-by core --psi-dry-run true 2>&1)
check_eq "by core on two nodes: block, each node fills its cores" \
  "0 n2 0 0;1 n2 1 0;2 n4 0 0;3 n4 1 0" "$(printf '%s\n' "$out" | report)"

out=$(timeout 60 salloc -w n2,n4 -N2 --exclusive srun -N2 --ntasks-per-node=2 --psi-lama-map=nsbch \
  --psi-lama-order=s --psi-verbose --psi-dry-run true 2>&1)
check_match "sequential order on two nodes: psiplace asks for block" '^psiplace: SLURM_DISTRIBUTION=block$' "$out"
check_eq "... ranks in hardware order node by node" "0 n2 0 0;1 n2 4 0;2 n4 0 0;3 n4 6 0" \
  "$(printf '%s\n' "$out" | report)"
id=$(sbatch --parsable -w n2,n4 -N2 --exclusive --psi-lama-map=nsbch -o "$work/sb.out" \
  --wrap 'echo "dist=$SLURM_DISTRIBUTION"; srun -n4 --ntasks-per-node=2 --psi-dry-run true')
poll 60 job_done "$id"
check_match "sbatch --psi-lama-map=nsbch: the job's steps get the cyclic distribution" '^dist=cyclic$' "$(cat "$work/sb.out")"
check_eq "... and its srun places LAMA's order across the nodes" "0 n2 0 0;1 n4 0 0;2 n2 4 0;3 n4 6 0" \
  "$(report <"$work/sb.out")"

out=$(timeout 60 salloc -w n2,n4 -N2 --exclusive srun -n12 --psi-lama-map=cnsbh --psi-verbose --psi-dry-run \
  bash -c "$say" 2>&1)
check_match "cnsbh over a known allocation (n2 2x4, n4 2x6): psiplace asks for LAMA's order rank by rank" \
  '^psiplace: SLURM_DISTRIBUTION=arbitrary$' "$out"
check_match "... and tells the steps the layout it asked for" '^psiplace: PSIPLACE_LAMA_LAYOUT=0\(x4\),1\(x6\),0\(x2\)$' "$out"
check_eq "... socket 0 of n2, socket 0 of n4, then socket 1 of n2" \
  "0 n2 0;1 n2 1;2 n2 2;3 n2 3;4 n4 0;5 n4 1;6 n4 2;7 n4 3;8 n4 4;9 n4 5;10 n2 4;11 n2 5" \
  "$(printf '%s\n' "$out" | tasks)"
check_match "... each node checked it" '^psiplace: n4: LAMA map cnsbh bind 1c mppr none order natural, Slurm layout arbitrary, as psiplace asked$' "$out"
out=$(timeout 60 salloc -w n2,n4 -N2 --exclusive srun -n12 --ntasks-per-node=6 -m block --psi-lama-map=cnsbh \
  --psi-dry-run true 2>&1); rc=$?
check_match "... while a forced -m block fails with both layouts" \
  '^psiplace: error: n2: task layout: block puts 6 tasks on this node, but map cnsbh moves to the next node after 4 of them; .*; nodes of tasks 0\.\.: Slurm \(block\) 0 0 0 0 0 0 1 1 1 1 1 1; LAMA \(map cnsbh\) ' "$out"

# --- layout verification: a distribution forced against the map fails every node clearly
out=$(timeout 60 srun -w n2,n4 -N2 --ntasks-per-node=2 -m block --psi-lama-map=nsbch --psi-verbose \
  --psi-dry-run true 2>&1); rc=$?
check_eq "-m block with map nsbch fails the step, one error line per node" "1 2" \
  "$([ $rc -ne 0 ] && echo 1 || echo 0) $(errors "$out")"
check_match "... psiplace left the user's -m alone (verbose note)" \
  "^psiplace: LAMA's node order \(--psi-lama-map\): not setting SLURM_DISTRIBUTION=cyclic, you chose -m/--distribution yourself$" "$out"
check_match "... the line shows the reason and both layouts" \
  '^psiplace: error: n2: task layout: block puts 2 tasks on this node, but map nsbch moves to the next node after 1 of them; .*nodes of tasks 0\.\.: Slurm \(block\) 0 0 1 1; LAMA \(map nsbch\) 0 1 0 1$' "$out"
check_eq "... and no task was reported as placed" "" "$(printf '%s\n' "$out" | report)"
out=$(SLURM_DISTRIBUTION=cyclic timeout 60 srun -w n2,n4 -N2 --ntasks-per-node=2 --psi-map-by core \
  --psi-dry-run true 2>&1); rc=$?
check_match "SLURM_DISTRIBUTION=cyclic with a by-core map fails with both layouts" \
  '^psiplace: error: n[24]: task layout: cyclic puts one task per round on this node, but map csbnh places tasks 0 and 1 here before moving to the next node; use a block layout; nodes of tasks 0\.\.: Slurm \(cyclic\) 0 1 0 1; LAMA \(map csbnh\) 0 0 1 1$' "$out"

# --- real binding on n5, declared like this machine
ncores=$(hwloc-calc --number-of core machine:0)
# Linux CPU list ("0-1,4") from any list ("0,1,4"), as /proc and PSIPLACE_CPUS write it.
ranges() { python3 -c 'import sys
l = sorted({int(x) for p in sys.argv[1].split(",") for x in range(int(p.split("-")[0]), int(p.split("-")[-1]) + 1)})
r, i = [], 0
while i < len(l):
    j = i
    while j + 1 < len(l) and l[j + 1] == l[j] + 1: j += 1
    r.append(str(l[i]) if i == j else "%d-%d" % (l[i], l[j])); i = j + 1
print(",".join(r))' "$1"; }
core_cpus() { ranges "$(hwloc-calc --physical-output --intersect pu "core:$1")"; }
want=""; for ((i = 0; i < ncores; i++)); do want="$want${want:+;}$i $(core_cpus $i) $(core_cpus $i)"; done
got=$(timeout 60 srun -w n5 -n$ncores --exclusive --psi-map-by core bash -c \
  'echo "$SLURM_PROCID $PSIPLACE_CPUS $(sed -n "s/^Cpus_allowed_list:\t//p" /proc/self/status)"' 2>/dev/null | sort -n | paste -sd';')
check_eq "n5: --psi-map-by core binds task i to core i (PSIPLACE_CPUS, Cpus_allowed_list)" "$want" "$got"
got=$(timeout 60 srun -w n5 -n1 --exclusive --psi-map-by core bash -c 'echo "$PSIPLACE_CPUS|$SLURM_CPU_BIND_TYPE|$SLURM_CPU_BIND_LIST"' 2>/dev/null)
check_eq "n5: SLURM_CPU_BIND* tell the applied mask" \
  "$(core_cpus 0)|mask_cpu:|$(hwloc-calc --taskset core:0)" "$got"
all=$(timeout 60 srun -w n5 -n1 --cpu-bind=none sed -n 's/^Cpus_allowed_list:\t//p' /proc/self/status 2>/dev/null)
got=$(timeout 60 srun -w n5 -n1 --exclusive --psi-bind-to none bash -c \
  'echo "$PSIPLACE_CPUS|$SLURM_CPU_BIND_TYPE|$(sed -n "s/^Cpus_allowed_list:\t//p" /proc/self/status)"' 2>/dev/null)
check_eq "n5: --psi-bind-to none leaves the task on every CPU" "-|none|$all" "$got"

# --- bad input: one error line, nothing submitted, the job id counter does not advance
before=$(next_job_id)
bad() { # NAME EXPECTED-LINE-REGEX CMD...
  local name=$1 re=$2 out rc; shift 2
  out=$("$@" 2>&1); rc=$?
  check_eq "$name: non-zero exit and one error line" "1 1" "$([ $rc -ne 0 ] && echo 1 || echo 0) $(errors "$out")"
  check_match "$name: the line names input, value and what is wrong" "$re" "$out"
}
bad "PSI_TPP with --psi-map-by" "^psiplace: error: PSI_TPP and --psi-map-by cannot be combined: PSI task placement" \
  env PSI_TPP=2 timeout 60 srun --psi-map-by=core -n1 true
bad "--psi-loop-nodes-first with OMPI_MCA_rmaps_lama_map" \
  "^psiplace: error: --psi-loop-nodes-first and OMPI_MCA_rmaps_lama_map cannot be combined" \
  env OMPI_MCA_rmaps_lama_map=scbnh timeout 60 srun --psi-loop-nodes-first -n1 true
bad "sbatch --psi-tpp with --psi-lama-bind" "^psiplace: error: --psi-tpp and --psi-lama-bind cannot be combined" \
  sbatch --psi-tpp=2 --psi-lama-bind=1c --wrap true
bad "--psi-lama-map without h" "^psiplace: error: --psi-lama-map: 'scbn'.*h" timeout 60 srun --psi-lama-map=scbn -n1 true
bad "OMPI_MCA_rmaps_lama_map lacking the binding level" \
  "^psiplace: error: OMPI_MCA_rmaps_lama_map: 'sbnh' lacks 'c', the level of the binding '1c'" \
  env OMPI_MCA_rmaps_lama_map=sbnh timeout 60 srun -n1 true
bad "--psi-map-by with --psi-lama-map" "^psiplace: error: --psi-map-by and --psi-lama-map cannot be combined" \
  timeout 60 srun --psi-map-by=core --psi-lama-map=csbnh -n1 true
check_eq "rejected requests did not advance the job id counter" "$((before + 1))" "$(next_job_id)"
check_eq "the queue is empty" "" "$(squeue -h)"

tb_finish
