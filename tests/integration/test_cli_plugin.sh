#!/usr/bin/env bash
# The psiplace command answers as the plugins do (TAP output).  For a table
# of requests, on a real Slurm:
#  - node choice: the nodes a job gets from select/psiplace_cons_tres equal
#    `psiplace rank` over the same cluster (a node table read from scontrol,
#    the testbed's plugstack.conf, psiplace.conf and metrics file), with one
#    node partly allocated and loads that differ, so that every policy has
#    its own answer;
#  - binding: the CPUs the SPANK plugin gives each task of a step equal
#    `psiplace map` for the node's topology with the same options.
# A wrong rank or map (or a plugin that stops going through the library)
# makes a row differ.  n5 (this machine) is left out of the node choices:
# its load is the machine's, which a table cannot hold still.
source "$(dirname "$0")/lib.sh"
tb_start_placement
work=$(mktemp -d)
trap '"$cluster" stop >/dev/null 2>&1; rm -rf "$work"' EXIT
etc=$PSIPLACE_TESTBED_DIR/etc
cli=$PSIPLACE_BUILD_DIR/cli/psiplace

# --- node choice -----------------------------------------------------------
# Loads from the metrics file; wait until slurmctld's reader published them.
before=$(metrics_reads)
printf '%s\n' "n1 load1=0" "n2 load1=6" "n3 load1=2" "n4 load1=11" >"$etc/metrics.new" &&
  mv "$etc/metrics.new" "$etc/metrics"
poll 10 reads_above "$before" || not_ok "slurmctld read the new metrics file within 10 s"

# n3 partly allocated for the whole table.
release=$work/release
hold='deadline=$((SECONDS+300)); until [ -e '"$release"' ] || [ $SECONDS -ge $deadline ]; do sleep 0.1; done'
holder=$(sbatch --parsable -w n3 -n6 -o /dev/null --wrap "$hold")
SETTLE_KEEP=$holder
poll 60 job_running "$holder" || not_ok "a job holding 6 CPUs of n3 runs"

# The node table as slurmctld has it (CSV columns of `psiplace rank`).
node_table() {
  echo "name,cpus,alloc_cpus,real_memory,alloc_memory,tmp_disk,features,weight"
  scontrol show node -o 'n[1-4]' | awk '{
    delete v
    for (i = 1; i <= NF; i++) { k = $i; sub(/=.*/, "", k); v[k] = substr($i, length(k) + 2) }
    f = v["AvailableFeatures"]; gsub(",", ";", f); if (f == "(null)") f = ""
    print v["NodeName"] "," v["CPUTot"] "," v["CPUAlloc"] "," v["RealMemory"] "," v["AllocMem"] "," v["TmpDisk"] "," f "," v["Weight"]
  }'
}
node_table >"$work/nodes.csv"
check_match "the node table shows n3 partly allocated" '^n3,16,6,' "$(cat "$work/nodes.csv")"

# rank_row NODES [--policy P | --priority EXPR]: the CLI's nodes, sorted.
cli_nodes() {
  local k=$1; shift
  "$cli" rank --plugstack "$etc/plugstack.conf" --psiconf "$etc/psiplace.conf" \
    --metrics "$etc/metrics" --table "$work/nodes.csv" --seed 1 --job "nodes=$k" "$@" </dev/null 2>&1 | sort | paste -sd,
}
# The nodes a job of K nodes gets, sorted.
plugin_nodes() {
  local k=$1; shift
  settle
  timeout 60 srun --quiet -x n5 -N "$k" --ntasks-per-node=1 "$@" printenv SLURMD_NODENAME </dev/null 2>&1 | sort | paste -sd,
}
# K  srun options                                 rank options
node_table_rows() { cat <<'TABLE'
1||
2||
1|--psi-alloc-policy=firstavailable|--policy FIRSTAVAILABLE
3|--psi-alloc-policy=firstavailable|--policy FIRSTAVAILABLE
1|--psi-alloc-policy=cpuload|--policy CPULOAD
2|--psi-alloc-policy=ProcessorLoad|--policy CPULOAD
1|--psi-alloc-policy=minresource|--policy MINRESOURCE
2|--psi-alloc-policy=minresource|--policy MINRESOURCE
1|--psi-alloc-policy=fastest|--policy FASTEST
2|--psi-alloc-policy=priority|--policy PRIORITY
2|--psi-alloc-policy=maxbalance|--policy MAXBALANCE
2|--psi-alloc-policy=contiguous|--policy CONTIGUOUS
1|--psi-alloc-priority='10*SPEED - LOAD'|--priority '10*SPEED - LOAD'
2|--psi-alloc-priority='APROCS + 4*FEATURE[intel]'|--priority 'APROCS + 4*FEATURE[intel]'
1|--psi-alloc-priority='AMEM - 100*NODEINDEX'|--priority 'AMEM - 100*NODEINDEX'
TABLE
}
# run_table LABEL: every row's nodes from the plugin against psiplace rank's;
# the answers go to choices[].
run_table() {
  choices=()
  while IFS='|' read -r k sopt ropt; do
    [ -n "$k" ] || continue
    eval "sargs=($sopt)"; eval "rargs=($ropt)"
    want=$(cli_nodes "$k" "${rargs[@]}")
    got=$(plugin_nodes "$k" "${sargs[@]}")
    check_eq "$1-N$k ${sopt:-(cluster policy LASTAVAILABLE)}: the plugin's nodes ($got) are psiplace rank's" "$want" "$got"
    choices+=("$got")
  done < <(node_table_rows)
}
run_table ""
first_choices=("${choices[@]}")
# The table must tell implementations apart: its answers are not all the same.
distinct=$(printf '%s\n' "${choices[@]}" | sort -u | wc -l)
check_eq "the node-choice rows have at least 6 different answers (got $distinct)" 1 "$([ "$distinct" -ge 6 ] && echo 1 || echo 0)"
# a GPU job, decided over all nodes, for the ranked tier below
gpu_full=$(plugin_nodes 1 --psi-alloc-policy=minresource --gres=gpu:1)

# --- the ranked tier first (doc/select.md) ----------------------------------
# With the default RankedTier=16 four nodes are never more than the tier, so
# the table above decided over all candidates.  With RankedTier=1 the tier is
# one node more than the job needs and cons_tres is offered it alone first:
# the answers must not change (a tier in another order than the policy's
# changes them), and DebugFlags=SelectType logs which way each decision went.
touch "$release"; poll 60 job_done "$holder"
SETTLE_KEEP=
rm -f "$release"
before=$(metrics_reads)
"$cluster" plugstack NodeAllocationPolicy=LASTAVAILABLE "TopologyFile=$topo/%n.xml" RankedTier=1 >/dev/null ||
  not_ok "plugstack.conf with RankedTier=1 read after reconfigure"
# 23.11+ re-executes slurmctld: its reader reads the metrics file anew
[ "$PSIPLACE_SLURM" = 22.05 ] || poll 10 reads_above "$before" ||
  not_ok "slurmctld read the metrics file again within 10 s"
scontrol setdebugflags +SelectType
holder=$(sbatch --parsable -w n3 -n6 -o /dev/null --wrap "$hold")
SETTLE_KEEP=$holder
poll 60 job_running "$holder" || not_ok "a job holding 6 CPUs of n3 runs again"
ctld_log=$PSIPLACE_TESTBED_DIR/log/slurmctld.log
tier_taken() { grep -c 'ranked tier of [0-9]* of [0-9]* nodes offered first: taken' "$ctld_log"; }
tier_missed() { grep -c 'ranked tier of [0-9]* of [0-9]* nodes offered first: not enough' "$ctld_log"; }
taken0=$(tier_taken) missed0=$(tier_missed)
run_table "RankedTier=1: "
check_eq "RankedTier=1 gives every row the answer of the full decision" \
  "$(printf '%s ' "${first_choices[@]}")" "$(printf '%s ' "${choices[@]}")"
# 15 rows: 2 set policies (MAXBALANCE, CONTIGUOUS) and 1 (-N3) whose tier
# would hold all 4 candidates are decided over all nodes, 12 in the tier
taken=$(($(tier_taken) - taken0))
check_eq "cons_tres was offered the ranked tier alone in the 12 sort-policy rows of 1 and 2 nodes and took it (got $taken)" \
  1 "$([ "$taken" -ge 12 ] && echo 1 || echo 0)" "$(grep 'ranked tier' "$ctld_log" | tail -n 15)"
check_eq "... and never had to fall back" 0 "$(($(tier_missed) - missed0))"
# A GPU job (MINRESOURCE's tier would be n1, n4): a GRES job is never
# offered the tier (issue 30, finding 3: cons_tres's second pass allows
# non-local GRES), the decision is over all nodes from the start and the
# job gets what the full decision gave it.
taken0=$(tier_taken) missed0=$(tier_missed)
check_eq "MINRESOURCE --gres=gpu:1 with RankedTier=1: $gpu_full, decided over all nodes without the tier" \
  "$gpu_full 0 0" "$(plugin_nodes 1 --psi-alloc-policy=minresource --gres=gpu:1) $(($(tier_taken) - taken0)) $(($(tier_missed) - missed0))"
# Will-run (sbatch --test-only): FIRSTAVAILABLE's tier (n1, n2) has no job,
# so it is offered; the answer is the real start's.
taken0=$(tier_taken)
wr=$(timeout 60 sbatch --test-only -x n5 -N1 --psi-alloc-policy=firstavailable --wrap true 2>&1)
real=$(plugin_nodes 1 --psi-alloc-policy=firstavailable)
check_match "will-run with RankedTier=1 answers the node a real start gets ($real)" "on nodes $real " "$wr"
check_eq "... after offering the tier" 1 "$([ "$(tier_taken)" -gt "$taken0" ] && echo 1 || echo 0)"
# Required nodes (-w) are never decided in the tier: no tier line for them.
taken0=$(tier_taken) missed0=$(tier_missed)
check_eq "-w n1 with FASTEST and RankedTier=1: n1, decided over all nodes" "n1 0" \
  "$(plugin_nodes 1 -w n1 --psi-alloc-policy=fastest) $(($(tier_taken) + $(tier_missed) - taken0 - missed0))"
# Only the tier's weights were written (on 23.11+ in will-run its nodes'
# Weight too): every one is back to slurm.conf's.
check_eq "after the tier decisions every node's Weight is slurm.conf's" "1 1 1 1 1" \
  "$(scontrol -o show node | sed -n 's/.* Weight=\([0-9]*\) .*/\1/p' | paste -sd' ')"
scontrol setdebugflags -SelectType

touch "$release"; poll 60 job_done "$holder"
SETTLE_KEEP=

# --- binding -----------------------------------------------------------------
# NODE|NTASKS|srun's own options|--psi-* options|variables: steps that get
# the whole node (tasks x CPUs per task = the node's CPUs), so that the
# command's default (the whole node) is the step's; "rank cpus" per task.
binds=()
while IFS='|' read -r node n sopts opts envs; do
  [ -n "$node" ] || continue
  eval "sargs=($sopts)"; eval "oargs=($opts)"; eval "eargs=($envs)"
  settle
  plugin=$(env "${eargs[@]}" timeout 60 srun -w "$node" -n "$n" --exclusive "${sargs[@]}" "${oargs[@]}" --psi-dry-run true </dev/null 2>&1 |
    report | tr ';' '\n' | awk '{print $1, $3}' | paste -sd';')
  cli_out=$(env "${eargs[@]}" "$cli" map --topology "$topo/$node.xml" -n "$n" --env "${oargs[@]}" </dev/null 2>&1 |
    awk '{print $1, $3}' | paste -sd';')
  check_eq "$node -n$n $sopts $opts $envs: the plugin's binding is psiplace map's" "$cli_out" "$plugin"
  check_match "... and the step reported every task" "^0 [0-9].*;$((n - 1)) [0-9]" "$plugin"
  binds+=("$node $plugin")
done <<'TABLE'
n2|8||--psi-map-by socket --psi-bind-to core|
n2|8||--psi-map-by core --psi-bind-to socket|
n3|4|-c4|--psi-lama-map=csbnh --psi-lama-bind=2c|
n3|4|-c4|--psi-lama-map=scbnh --psi-lama-order=s|
n4|6|-c2|--psi-lama-map=scbnh --psi-lama-mppr=1:c|
n3|8||--psi-tpp=2|
n4|3||--psi-tpp=4|
n2|4|||PSI_TPP=2
n4|4|-c3||OMPI_MCA_rmaps_lama_map=scbnh OMPI_MCA_rmaps_lama_bind=2c
TABLE
distinct=$(printf '%s\n' "${binds[@]}" | sort -u | wc -l)
check_eq "the binding rows have ${#binds[@]} different answers (got $distinct)" "${#binds[@]}" "$distinct"

tb_finish
