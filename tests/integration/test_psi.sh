#!/usr/bin/env bash
# ParaStation PSI_* end to end on a real 5-node Slurm (TAP output).
# n1..n4 are fake nodes described by TopologyFile (dry runs only); n5 is
# declared like this machine, so real binding is checked there.
source "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
tb_start_placement
trap '"$cluster" stop >/dev/null 2>&1; rm -rf "$work"' EXIT

# Expected report of a whole-node step: NODE TASKS CPUS-PER-TASK.
whole() { local i c out=""; for ((i = 0; i < $2; i++)); do c=$((i * $3)); [ "$3" -gt 1 ] && c="$c-$((c + $3 - 1))"; out="$out${out:+;}$i $1 $c 0"; done; echo "$out"; }
ntasks_line() { sed -n 's/.*NumCPUs=\([0-9]*\).*/\1/p'; }

# --- options are registered everywhere
help=$(srun --help 2>&1)
for o in psi-nodes psi-hosts psi-hostfile psi-nodes-sort psi-exclusive psi-overbook \
         psi-loop-nodes-first psi-wait psi-tpp psi-cpumap psi-no-pinproc psi-no-bindmem psi-dry-run; do
  check_match "srun --help lists --$o" "--$o" "$help"
done
check_match "sbatch --help lists --psi-tpp" '--psi-tpp' "$(sbatch --help 2>&1)"
check_match "salloc --help lists --psi-hosts" '--psi-hosts' "$(salloc --help 2>&1)"

# --- dry runs on the fake 8- and 16-CPU nodes (TopologyFile)
out=$(timeout 60 srun -w n2 -n4 --exclusive --psi-tpp=2 --psi-dry-run true 2>&1)
check_eq "n2 (2x4): --psi-tpp=2 gives 4 tasks two CPUs each in slot order" \
  "0 n2 0-1 0;1 n2 2-3 0;2 n2 4-5 0;3 n2 6-7 0" "$(printf '%s\n' "$out" | report)"
check_match "dry run says nothing was bound" '\(dry run: not bound\)$' "$out"
out=$(PSI_TPP=4 timeout 60 srun -w n3 -n4 --exclusive --psi-dry-run true 2>&1)
check_eq "n3 (2x8): PSI_TPP=4 as variable" "0 n3 0-3 0;1 n3 4-7 0;2 n3 8-11 0;3 n3 12-15 0" \
  "$(printf '%s\n' "$out" | report)" "$out"
out=$(OMP_NUM_THREADS=2 PSI_EXCLUSIVE=1 timeout 60 srun -w n3 -n8 --psi-dry-run true 2>&1)
check_eq "OMP_NUM_THREADS=2 counts once psiplace places (PSI_EXCLUSIVE)" "$(whole n3 8 2)" \
  "$(printf '%s\n' "$out" | report)"
out=$(OMP_NUM_THREADS=4,2 PSI_EXCLUSIVE=1 timeout 60 srun -w n3 -n16 --psi-dry-run true 2>&1)
check_match "OMP_NUM_THREADS=4,2 warns and uses 1" "^psiplace: warning: OMP_NUM_THREADS: '4,2' is not a positive integer" "$out"
check_eq "OMP_NUM_THREADS=4,2: one CPU per task" "$(whole n3 16 1)" "$(printf '%s\n' "$out" | report)"
out=$(timeout 60 srun -w n2,n3 -N2 -n4 --psi-loop-nodes-first --psi-dry-run true 2>&1)
check_eq "--psi-loop-nodes-first alternates n2, n3" "n2 n3 n2 n3" \
  "$(printf '%s\n' "$out" | report | tr ';' '\n' | awk '{print $2}' | paste -sd' ')"
out=$(PSI_LOOP_NODES_FIRST= timeout 60 srun -w n2,n3 -N2 -n4 --psi-dry-run true 2>&1)
check_eq "PSI_LOOP_NODES_FIRST (empty value) alternates too" "n2 n3 n2 n3" \
  "$(printf '%s\n' "$out" | report | tr ';' '\n' | awk '{print $2}' | paste -sd' ')"
rounds="0 n1 0 0;1 n1 1 0;2 n1 2 0;3 n1 3 0;4 n1 0 0;5 n1 1 0;6 n1 2 0;7 n1 3 0"
if [ "$PSIPLACE_SLURM" = 22.05 ]; then
  out=$(timeout 60 salloc -w n1 -n8 --psi-overbook srun -n8 --psi-overbook --psi-dry-run true 2>&1)
  check_eq "salloc -n8 --psi-overbook: 8 tasks on n1's 4 CPUs in rounds" "$rounds" "$(printf '%s\n' "$out" | report)"
else
  # 23.02+ never starts an exclusive job that overcommits a node's CPUs:
  # the overbooked allocation is not exclusive, which --psi-verbose says.
  check_match "salloc -n8 --psi-overbook: not exclusive on $PSIPLACE_SLURM, and --psi-verbose says why" \
    "^psiplace: overbook: Slurm $PSIPLACE_SLURM never starts an exclusive job with more tasks than a node's CPUs" \
    "$(timeout 60 salloc -w n1 -n8 --psi-overbook --psi-verbose true 2>&1)"
fi
out=$(timeout 60 salloc -w n1 -N1 --exclusive srun -n8 --psi-overbook --psi-dry-run true 2>&1)
check_eq "whole-node allocation, overbooked step: 8 tasks on n1's 4 CPUs in rounds" "$rounds" \
  "$(printf '%s\n' "$out" | report)"
out=$(timeout 60 srun -w n1 -n2 --psi-tpp=1 --psi-no-pinproc --psi-dry-run bash -c 'echo "$PSIPLACE_CPUS"' 2>&1)
check_match "--psi-no-pinproc: no CPU binding reported" '^psiplace: n1 task 0 \(local 0\): cpus - mems 0' "$out"

# options of an enclosing sbatch reach its steps
id=$(sbatch --parsable -w n2 --exclusive --psi-tpp=2 -o "$work/sb.out" --wrap 'srun -n4 --psi-dry-run true')
poll 60 job_done "$id"
check_eq "sbatch --psi-tpp=2 is inherited by srun in the script" "$(whole n2 4 2)" \
  "$(report <"$work/sb.out")"

printf '#!/bin/bash\n#SBATCH -w n2 --exclusive\n#SBATCH --psi-tpp=2 --psi-loop-nodes-first\nsrun -n4 --psi-dry-run true\n' >"$work/job.sh"
id=$(sbatch --parsable -o "$work/sb2.out" "$work/job.sh")
poll 60 job_done "$id"
check_eq "#SBATCH --psi-tpp=2 in the script reaches the steps" "$(whole n2 4 2)" "$(report <"$work/sb2.out")"

# a step's own setting beats the option the job was given; -c makes the
# job's steps fit (RELIABILITY R7)
id=$(sbatch --parsable -w n2 -n4 -c2 --psi-tpp=2 -o "$work/sb3.out" \
  --wrap 'srun -n4 --psi-dry-run true; PSI_TPP=1 srun -n4 --psi-dry-run true; srun -n4 --psi-tpp=1 --psi-dry-run true')
poll 60 job_done "$id"
check_eq "sbatch -c2 --psi-tpp=2: the step inherits two CPUs per task, then PSI_TPP=1 in the step wins" \
  "$(whole n2 4 2) | 0 n2 0 0;1 n2 1 0;2 n2 2 0;3 n2 3 0" \
  "$(grep -m4 ' task ' "$work/sb3.out" | report) | $(grep ' task ' "$work/sb3.out" | sed -n 5,8p | report)"
check_eq "... and so does the step's own --psi-tpp=1 option" \
  "0 n2 0 0;1 n2 1 0;2 n2 2 0;3 n2 3 0" "$(grep ' task ' "$work/sb3.out" | sed -n 9,12p | report)"
# PSI_TPP exported into the job: its steps take it, and a step's own
# --psi-tpp=1 option beats it (command line > environment)
id=$(PSI_TPP=2 sbatch --parsable -w n2 -n4 -c2 -o "$work/sb4.out" \
  --wrap 'srun -n4 --psi-dry-run true; srun -n4 --psi-tpp=1 --psi-dry-run true')
poll 60 job_done "$id"
check_eq "PSI_TPP=2 in the job's environment: two CPUs per task, then the step's own --psi-tpp=1 wins" \
  "$(whole n2 4 2) | 0 n2 0 0;1 n2 1 0;2 n2 2 0;3 n2 3 0" \
  "$(grep -m4 ' task ' "$work/sb4.out" | report) | $(grep ' task ' "$work/sb4.out" | sed -n 5,8p | report)" \
  "$(cat "$work/sb4.out")"
# sbatch's own input variable for --exclusive gives whole nodes: accepted
id=$(SBATCH_EXCLUSIVE=exclusive sbatch --parsable -w n2 --psi-tpp=2 -o "$work/sb5.out" \
  --wrap 'srun -n4 --psi-dry-run true' 2>&1)
poll 60 job_done "$id"
check_eq "SBATCH_EXCLUSIVE=exclusive sbatch --psi-tpp=2: accepted, steps take two CPUs per task" \
  "$(whole n2 4 2)" "$(report <"$work/sb5.out" 2>/dev/null)" "$id"

out=$(timeout 90 srun -w n2 -n1 printenv SLURMD_NODENAME : -w n3 -n1 printenv SLURMD_NODENAME 2>/dev/null | sort | paste -sd' ')
check_eq "a heterogeneous step without psiplace options runs as Slurm runs it" "n2 n3" "$out"

# --- real binding on n5, declared like this machine
ncores=$(hwloc-calc --number-of core machine:0)
nthreads=$(hwloc-calc --number-of pu core:0)
slot_cpu() { hwloc-calc --physical-output -I pu "core:$(($1 % ncores)).pu:$(($1 / ncores))"; }
n=$((ncores * nthreads))
want=""; for ((i = 0; i < n; i++)); do want="$want${want:+;}$i $(slot_cpu $i)"; done
got=$(timeout 60 srun -w n5 -n$n --exclusive --psi-tpp=1 bash -c \
  'echo "$SLURM_PROCID $(sed -n "s/^Cpus_allowed_list:\t//p" /proc/self/status)"' 2>/dev/null | sort -n | paste -sd';')
check_eq "n5: tasks really run on their ParaStation slots (Cpus_allowed_list)" "$want" "$got"
got=$(timeout 60 srun -w n5 -n1 --exclusive --psi-tpp=1 bash -c 'echo "$PSIPLACE_CPUS|$SLURM_CPU_BIND_TYPE|$SLURM_CPU_BIND_LIST"' 2>/dev/null)
check_eq "n5: PSIPLACE_CPUS and SLURM_CPU_BIND* tell the applied mask" \
  "$(slot_cpu 0)|mask_cpu:|$(hwloc-calc --taskset --pi "pu:$(slot_cpu 0)")" "$got"
nnuma=$(hwloc-calc --number-of numa machine:0)
got=$(timeout 60 srun -w n5 -n1 --exclusive --psi-tpp=1 bash -c 'echo "$PSIPLACE_MEMS"; grep -c " bind:" /proc/self/numa_maps' 2>/dev/null | paste -sd' ')
if [ "$nnuma" -gt 1 ]; then
  check_match "n5: memory bound to the task's NUMA node" '^[0-9]+ [1-9]' "$got"
else
  check_match "n5: one NUMA node: PSIPLACE_MEMS names it (binding to it changes nothing)" '^0 ' "$got"
fi
all=$(timeout 60 srun -w n5 -n1 --cpu-bind=none sed -n 's/^Cpus_allowed_list:\t//p' /proc/self/status 2>/dev/null)
got=$(timeout 60 srun -w n5 -n1 --exclusive --psi-tpp=1 --psi-no-pinproc bash -c \
  'echo "$PSIPLACE_CPUS|$SLURM_CPU_BIND_TYPE|$(sed -n "s/^Cpus_allowed_list:\t//p" /proc/self/status)"' 2>/dev/null)
check_eq "n5: --psi-no-pinproc leaves the task on every CPU" "-|none|$all" "$got"
got=$(timeout 60 srun -w n5 -n1 bash -c 'echo "${PSIPLACE_CPUS-unset}"' 2>/dev/null)
check_eq "without PSI input psiplace leaves the step to Slurm" unset "$got"

# --- TopologyFile nodes refuse a real binding, with the reason
out=$(timeout 60 srun -w n3 -n2 --psi-tpp=2 true 2>&1); rc=$?
check_eq "binding on a TopologyFile node fails the step" 1 "$([ $rc -ne 0 ] && echo 1 || echo 0)"
check_match "... with one psiplace line naming the reason" '^psiplace: error: n3: TopologyFile describes another machine' "$out"
check_eq "... exactly once" 1 "$(printf '%s\n' "$out" | grep -c '^psiplace: error: ')"

# --- bad input: one error line, nothing submitted, the job id counter does not advance
before=$(next_job_id)
bad() { # NAME EXPECTED-LINE-REGEX CMD...
  local name=$1 re=$2 out rc; shift 2
  out=$("$@" 2>&1); rc=$?
  check_eq "$name: non-zero exit and one error line" "1 1" \
    "$([ $rc -ne 0 ] && echo 1 || echo 0) $(printf '%s\n' "$out" | grep -c '^psiplace: error: ')"
  check_match "$name: the line names input, value and what is accepted" "$re" "$out"
}
bad "PSI_TPP=abc" "^psiplace: error: PSI_TPP: 'abc' is not a positive integer$" env PSI_TPP=abc timeout 60 srun -n1 true
bad "--psi-tpp=0" "^psiplace: error: --psi-tpp: '0' is not a positive integer$" timeout 60 srun --psi-tpp=0 -n1 true
bad "PSI_NODES=n1" "^psiplace: error: PSI_NODES: 'n1' is not a node id list; accepted: " env PSI_NODES=n1 timeout 60 srun -n1 true
bad "PSI_HOSTS empty" "^psiplace: error: PSI_HOSTS: no host names" env PSI_HOSTS= timeout 60 srun -n1 true
bad "PSI_HOSTFILE missing" "^psiplace: error: PSI_HOSTFILE: cannot open '$work/none': No such file" env PSI_HOSTFILE=$work/none timeout 60 srun -n1 true
bad "PSI_NODES_SORT=fast" "^psiplace: error: PSI_NODES_SORT: 'fast' is not a sort mode; accepted: PROC, LOAD" env PSI_NODES_SORT=fast timeout 60 srun -n1 true
bad "two node-set options" "^psiplace: error: --psi-nodes and --psi-hosts cannot be combined" timeout 60 srun --psi-nodes=0 --psi-hosts=n1 -n1 true
bad "--psi-cpumap not allowed" "^psiplace: error: --psi-cpumap: not allowed on this cluster" timeout 60 srun --psi-cpumap=0 -n1 true
bad "PSI placement with LAMA" "^psiplace: error: PSI_TPP and --psi-lama-map cannot be combined" env PSI_TPP=2 timeout 60 srun --psi-lama-map=scbnh -n1 true
bad "sbatch PSI_TPP=x" "^psiplace: error: PSI_TPP: 'x' is not a positive integer$" env PSI_TPP=x sbatch --wrap true
bad "salloc --psi-nodes-sort=x" "^psiplace: error: --psi-nodes-sort: 'x' is not a sort mode" timeout 60 salloc --psi-nodes-sort=x true
bad "sbatch --psi-tpp=2 without -c" "^psiplace: error: --psi-tpp: 2 CPUs per task need -c 2 \\(--cpus-per-task=2\\) or --exclusive on the sbatch command line" \
  timeout 60 sbatch -n2 --psi-tpp=2 --wrap 'srun true'
bad "sbatch -c1 --psi-tpp=2 (R7: every step would fail)" "^psiplace: error: --psi-tpp: 2 CPUs per task need -c 2 \\(--cpus-per-task=2\\) or more, not -c 1; " \
  timeout 60 sbatch -n2 -c1 --psi-tpp=2 --wrap 'srun true'
bad "salloc with PSI_TPP=2 without -c" "^psiplace: error: PSI_TPP: 2 CPUs per task need -c 2" \
  env PSI_TPP=2 timeout 60 salloc -n2 true
# heterogeneous jobs and steps are refused with a message that says so (R6)
bad "heterogeneous step with --psi-tpp" "^psiplace: error: --psi-tpp: psiplace does not support heterogeneous jobs or steps \\(components separated by ':'\\)" \
  timeout 60 srun -w n2 -n1 --psi-tpp=2 --psi-verbose true : -w n3 -n1 true
bad "heterogeneous sbatch with PSI_HOSTS" "^psiplace: error: PSI_HOSTS: psiplace does not support heterogeneous" \
  env PSI_HOSTS=n2 timeout 60 sbatch -n1 : -n1 --wrap true
# node sets naming nodes the cluster lacks, from sbatch, salloc and a hostfile
bad "sbatch --psi-hosts unknown" "^psiplace: error: --psi-hosts: 'h0' is not a node of this cluster$" \
  timeout 60 sbatch --psi-hosts=n1,h0 --wrap true
bad "salloc --psi-nodes beyond" "^psiplace: error: --psi-nodes: node id 9 is beyond the cluster's 5 nodes \\(0-4\\)$" \
  timeout 60 salloc --psi-nodes=9 true
printf 'n1\nzz\n' >"$work/unknown.hosts"
bad "PSI_HOSTFILE unknown host" "^psiplace: error: PSI_HOSTFILE: 'zz' is not a node of this cluster$" \
  env PSI_HOSTFILE="$work/unknown.hosts" timeout 60 srun -n1 true
check_eq "rejected requests did not advance the job id counter" "$((before + 1))" "$(next_job_id)"
check_eq "the queue is empty" "" "$(squeue -h)"

# --- user CPU maps when the cluster allows them
"$cluster" plugstack NodeAllocationPolicy=LASTAVAILABLE AllowUserCpumap=yes "TopologyFile=$topo/%n.xml" >/dev/null
out=$(__PSI_CPUMAP=7-0 timeout 60 srun -w n2 -n8 --psi-dry-run true 2>&1)
check_eq "__PSI_CPUMAP=7-0 maps slots to CPUs backwards" "0 n2 7 0;1 n2 6 0;2 n2 5 0;3 n2 4 0;4 n2 3 0;5 n2 2 0;6 n2 1 0;7 n2 0 0" \
  "$(printf '%s\n' "$out" | report)"
out=$(timeout 60 srun -w n2 -n8 --psi-cpumap=3 --psi-dry-run true 2>&1); rc=$?
check_match "a map too short for the tasks fails the step with the reason" \
  '^psiplace: error: n2: --psi-cpumap: 1 of its CPUs are allocated to this step on this node; 8 tasks' "$out"
"$cluster" plugstack NodeAllocationPolicy=LASTAVAILABLE "TopologyFile=$topo/%n.xml" >/dev/null
out=$(__PSI_CPUMAP=7-0 PSI_VERBOSE=1 PSI_TPP=1 timeout 60 srun -w n2 -n1 --exclusive --psi-dry-run true 2>&1)
check_match "AllowUserCpumap=no: __PSI_CPUMAP ignored with a verbose note" \
  '^psiplace: __PSI_CPUMAP ignored: this cluster does not allow user CPU maps' "$out"

# --- node sets and sort modes (decided by select/psiplace_cons_tres)
check_eq "PSI_NODES=0 (0-based) runs on n1" n1 "$(PSI_NODES=0 timeout 60 srun -n1 --psi-dry-run printenv SLURMD_NODENAME 2>/dev/null)"
check_eq "PSI_NODES=1 (0-based) runs on n2" n2 "$(PSI_NODES=1 timeout 60 srun -n1 --psi-dry-run printenv SLURMD_NODENAME 2>/dev/null)"
check_eq "PSI_HOSTS=n3 runs on n3" n3 "$(PSI_HOSTS=n3 timeout 60 srun -n1 --psi-dry-run printenv SLURMD_NODENAME 2>/dev/null)"
check_eq "PSI_NODES beats PSI_HOSTS" n1 "$(PSI_NODES=0 PSI_HOSTS=n3 timeout 60 srun -n1 --psi-dry-run printenv SLURMD_NODENAME 2>/dev/null)"
check_eq "--psi-hosts suppresses PSI_NODES" n4 "$(PSI_NODES=0 timeout 60 srun --psi-hosts=n4 -n1 --psi-dry-run printenv SLURMD_NODENAME 2>/dev/null)"
printf 'n2\nn3\n' >"$work/hosts"
check_eq "PSI_HOSTFILE: hosts in file order" "n2 n3" \
  "$(PSI_HOSTFILE=$work/hosts timeout 60 srun -n2 --psi-dry-run printenv SLURMD_NODENAME 2>/dev/null | sort | paste -sd' ')"
set_metrics "n1 load1=3 load5=0 load15=0" "n2 load1=0.25 load5=9 load15=0" \
  "n3 load1=1 load5=0 load15=0" "n4 load1=2 load5=0 load15=0"
# The sort checks below choose among idle nodes: each first waits until the
# job before it has left its nodes (a loaded CI machine once ran the LOAD
# check while the PSI_HOSTFILE job's n2 was still completing: it got n3, the
# next lowest load).
settle
check_eq "PSI_NODES_SORT=LOAD over n1..n4 takes n2 (lowest load per thread: 0.25/8)" n2 \
  "$(PSI_NODES=0-3 PSI_NODES_SORT=load timeout 60 srun -n1 --psi-dry-run printenv SLURMD_NODENAME 2>/dev/null)"
settle
check_eq "PSI_NODES_SORT=LOAD_5 takes n3 (n1, n3, n4 tie at 0: more threads first)" n3 \
  "$(PSI_NODES=0-3 PSI_NODES_SORT=load_5 timeout 60 srun -n1 --psi-dry-run printenv SLURMD_NODENAME 2>/dev/null)"
settle
check_eq "PSI_NODES_SORT=NONE keeps the PSI_HOSTS order" n4 \
  "$(PSI_HOSTS='n4 n1' PSI_NODES_SORT=none timeout 60 srun -n1 --psi-dry-run printenv SLURMD_NODENAME 2>/dev/null)"
# names found by slurmctld's own lookup, in list order, not index order (R9)
settle
check_eq "PSI_NODES_SORT=NONE: -N2 takes the first two of PSI_HOSTS='n4 n2 n1'" "n2 n4" \
  "$(PSI_HOSTS='n4 n2 n1' PSI_NODES_SORT=none timeout 60 srun -N2 -n2 --psi-dry-run printenv SLURMD_NODENAME 2>/dev/null | sort | paste -sd' ')"
settle
check_eq "PSI_NODES_SORT=PROC on an idle cluster: all rate 0, more threads first (n3)" n3 \
  "$(PSI_NODES=0-3 PSI_NODES_SORT=proc timeout 60 srun -n1 --psi-dry-run printenv SLURMD_NODENAME 2>/dev/null)"
settle
check_eq "a job policy beats PSI_NODES_SORT within the node set (firstavailable over 1-3: n2)" n2 \
  "$(PSI_NODES=1-3 PSI_NODES_SORT=load timeout 60 srun -n1 --psi-alloc-policy=firstavailable --psi-dry-run printenv SLURMD_NODENAME 2>/dev/null)"
check_eq "a node set outside the request cannot be escaped: PSI_HOSTS=n4 with -w n1 is refused" "" \
  "$(PSI_HOSTS=n4 timeout 60 srun -w n1 -n1 --immediate=5 printenv SLURMD_NODENAME 2>/dev/null)"

# --- a PSI node set naming unknown nodes: refused in the client, and a job
# sent past the client runs nowhere, never outside its set (RELIABILITY R5)
bad "PSI_HOSTS naming an unknown host" "^psiplace: error: PSI_HOSTS: 'h0' is not a node of this cluster$" \
  env PSI_HOSTS=h0,n1 timeout 60 srun -N1 true
bad "--psi-hosts naming an unknown host" "^psiplace: error: --psi-hosts: 'nx' is not a node of this cluster$" \
  timeout 60 srun -N1 --psi-hosts=n1,nx true
bad "PSI_NODES beyond the cluster" "^psiplace: error: PSI_NODES: node id 7 is beyond the cluster's 5 nodes \(0-4\)$" \
  env PSI_NODES=7 timeout 60 srun -n1 true
raw=${PSIPLACE_SUBMIT_RAW:-$PSIPLACE_BUILD_DIR/tests/integration/submit_raw}
out=$(cd "$work" && timeout 60 "$raw" "$work/raw.out" PSIPLACE_PSI=1 PSIPLACE_PSI_HOSTS=h0 2>&1); rc=$?
check_eq "a raw job whose PSI set names only unknown hosts is refused at submission" "1 0" \
  "$([ $rc -ne 0 ] && echo 1 || echo 0) $([ -s "$work/raw.out" ] && echo 1 || echo 0)"
check_match "... by slurmctld, which says why" 'Requested node configuration is not available' "$out"

# --- psiplace map --cores reproduces a step that got part of a node: n3's
# first cores are held by another job; the step's own cores (scontrol show
# job -d) given to the command give the plugin's binding.
release=$work/release.cores
hold='deadline=$((SECONDS+120)); until [ -e '"$release"' ] || [ $SECONDS -ge $deadline ]; do sleep 0.1; done'
holder=$(sbatch --parsable -w n3 -n5 -o /dev/null --wrap "$hold")
SETTLE_KEEP=$holder
if poll 60 job_running "$holder"; then
  out=$(timeout 60 srun -w n3 -n2 --psi-tpp=2 --psi-dry-run bash -c \
    'if [ "$SLURM_PROCID" = 0 ]; then scontrol show job -d "$SLURM_JOB_ID" | grep -o "CPU_IDs=[^ ]*"; fi; true' 2>&1)
  cores=$(printf '%s\n' "$out" | sed -n 's/^CPU_IDs=//p' | head -1)
  plugin=$(printf '%s\n' "$out" | report | tr ';' '\n' | awk '{print $1, $3}' | paste -sd';')
  cli=$("${PSIPLACE_BUILD_DIR}/cli/psiplace" map --topology "$topo/n3.xml" --cores "$cores" -n 2 --psi-tpp=2 2>&1 |
    awk '{print $1, $3}' | paste -sd';')
  check_match "the step got part of n3 (cores $cores)" '^[0-9]' "$cores"
  check_eq "psiplace map --cores $cores gives the plugin's binding" "$plugin" "$cli"
else
  not_ok "a job holding part of n3 runs"
fi
touch "$release"; poll 60 job_done "$holder"
SETTLE_KEEP=

tb_finish
