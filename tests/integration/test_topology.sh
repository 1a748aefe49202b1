#!/usr/bin/env bash
# Network topology (issue 20, item 1): topology/tree (every release) and
# topology/block (23.11+: the 24.11 and 26.05 testbeds).  Leaves: s1 or b1
# (n1, n2) and s2 or b2 (n3, n4).  Slurm chooses the leaf switch or block
# with its own best fit and --switches; the policy chooses the nodes on it
# and which of equally good leaves (doc/cluster-features.md, "Network
# topology").  Speeds (testbed psiplace.conf): n1 1.0, n2 2.0, n3 3.0, n4 0.5.
# Per-partition topologies (topology.yaml, 25.05+; the 26.05 testbed): the
# tree is the cluster default (partition debug), and partition blkp takes
# the block topology blk, whose blocks group the nodes the other way
# (b1: n1, n3; b2: n2, n4): each partition's jobs get its own leaves.
source "$(dirname "$0")/lib.sh"

export PSIPLACE_POLICY=LASTAVAILABLE

# An idle tree of two leaves (s1: n1, n2; s2: n3, n4), -N1 and -N2: the
# answers with topology.conf and with topology.yaml's default tree.
idle_two_leaves="FIRSTAVAILABLE -N1: n1
FIRSTAVAILABLE -N2: n1,n2
LASTAVAILABLE -N1: n4
LASTAVAILABLE -N2: n3,n4
FASTEST -N1: n3
FASTEST -N2: n3,n4
PRIORITYF -N1: n4
PRIORITYF -N2: n3,n4"

# The nodes of a -N N job, sorted, comma-separated.
nodes() {
  local n=$1; shift; settle
  timeout 60 srun -N"$n" -n"$n" "$@" printenv SLURMD_NODENAME 2>&1 | sort -u | paste -sd,
}
policy_args() {
  case $1 in
    PRIORITYF) echo "--psi-alloc-policy=priority --psi-alloc-priority=-SPEED" ;;
    *) echo "--psi-alloc-policy=${1,,}" ;;
  esac
}
# "POLICY -N N: NODES" for each policy and node count.
table() {
  local pol n
  for pol in FIRSTAVAILABLE LASTAVAILABLE FASTEST PRIORITYF; do
    for n in 1 2 3; do
      # shellcheck disable=SC2046
      echo "$pol -N$n: $(nodes "$n" $(policy_args "$pol"))"
    done
  done
}
hold() { # NODE: a job holding all of it; prints its id
  local id
  id=$(sbatch --parsable -w "$1" -N1 --exclusive -o /dev/null --wrap 'sleep 600') || return 1
  poll 60 job_running "$id" || { echo "# job $id on $1 not running: $(job_state "$id")" >&2; }
  echo "$id"
}

run() { # tree | block
  local kind=$1 l1 l2 want got tier0 tierall id
  case $kind in tree) l1=s1 l2=s2 ;; block) l1=b1 l2=b2 ;; esac
  "$cluster" stop >/dev/null 2>&1
  export PSIPLACE_TOPOLOGY=$kind
  tb_start
  check_match "$kind: slurmctld reads the testbed's topology.conf ($l1: n[1-2], $l2: n[3-4])" \
    "${l1}.*Nodes=n\[1-2\]" "$(scontrol show topology 2>&1 | grep -E "^(SwitchName|BlockName)=$l1 ")"

  # Idle: both leaves are equally good for -N1 and -N2, so the policy's
  # first node picks the leaf, and its order the nodes on it.  Without
  # the topology pass FASTEST -N2 got n[2-3] and -SPEED n[1,4]: two leaves.
  # -N3 needs both leaves: the policy chooses three of their four nodes.
  want="$idle_two_leaves
FIRSTAVAILABLE -N3: n1,n2,n3
LASTAVAILABLE -N3: n2,n3,n4
FASTEST -N3: n1,n2,n3
PRIORITYF -N3: n1,n2,n4"
  got=$(table)
  while IFS= read -r line; do
    check_eq "$kind, idle: ${line%%:*} (the policy's leaves and nodes)" "$line" \
      "$(grep -F "${line%%:*}:" <<<"$got")"
  done <<<"$want"

  if [ "$kind" = tree ]; then
    # FASTEST's first two nodes (n3, n2) are on two switches: before the
    # topology pass cons_tres's answer crossed them and --switches=1 waited.
    check_eq "tree, idle: FASTEST -N2 --switches=1 within one switch (s2)" n3,n4 \
      "$(nodes 2 --psi-alloc-policy=fastest --switches=1)"
  fi

  # Will-run (sbatch --test-only, as backfill plans) takes the same path.
  settle
  check_eq "$kind, idle: will-run FASTEST -N2 names the policy's leaf (n[3-4])" "n[3-4]" \
    "$(timeout 60 sbatch --test-only -N2 -n2 --psi-alloc-policy=fastest --wrap true 2>&1 |
       sed -n 's/.* on nodes \([^ ]*\) .*/\1/p')"

  # The ranked tier against the full decision: the same table.
  "$cluster" plugstack NodeAllocationPolicy=LASTAVAILABLE RankedTier=0 >/dev/null
  tier0=$(table)
  "$cluster" plugstack NodeAllocationPolicy=LASTAVAILABLE RankedTier=1000000 >/dev/null
  tierall=$(table)
  check_eq "$kind: RankedTier=0 and RankedTier=1000000 give the same nodes" "$tierall" "$tier0"
  check_eq "$kind: ... and the nodes of the default tier" "$got" "$tierall"

  # n1 held: s1 has one usable node, s2 two.  Slurm's best fit puts a
  # one-node job on the tighter leaf (n2) whatever the policy; a two-node
  # job fits only on the other.
  id=$(hold n1)
  SETTLE_KEEP=$id
  for pol in FIRSTAVAILABLE LASTAVAILABLE FASTEST PRIORITYF; do
    # shellcheck disable=SC2046
    check_eq "$kind, n1 held: $pol -N1 takes the best-fit leaf $l1 (n2)" n2 "$(nodes 1 $(policy_args $pol))"
    # shellcheck disable=SC2046
    check_eq "$kind, n1 held: $pol -N2 on the one leaf with room ($l2)" n3,n4 "$(nodes 2 $(policy_args $pol))"
  done
  if [ "$kind" = tree ]; then
    check_eq "tree, n1 held: FIRSTAVAILABLE -N2 --switches=1 within one switch (s2)" n3,n4 \
      "$(nodes 2 --psi-alloc-policy=firstavailable --switches=1)"
  fi
  scancel "$id"; SETTLE_KEEP=
  "$cluster" stop >/dev/null 2>&1
}

# "POLICY -N N: NODES" in partition PART for -N1 and -N2.
table_part() {
  local part=$1 pol n
  for pol in FIRSTAVAILABLE LASTAVAILABLE FASTEST PRIORITYF; do
    for n in 1 2; do
      # shellcheck disable=SC2046
      echo "$pol -N$n: $(nodes "$n" -p "$part" $(policy_args "$pol"))"
    done
  done
}
check_table() { # LABEL WANT GOT
  local line
  while IFS= read -r line; do
    check_eq "$1: ${line%%:*}" "$line" "$(grep -F "${line%%:*}:" <<<"$3")"
  done <<<"$2"
}

run_yaml() {
  local id
  "$cluster" stop >/dev/null 2>&1
  export PSIPLACE_TOPOLOGY=yaml PSIPLACE_PARTITIONS=blkp PSIPLACE_PARTITION_ARGS_blkp=Topology=blk
  tb_start
  check_match "yaml: partition blkp names its topology (Topology=blk)" 'Topology=blk' \
    "$(scontrol show partition blkp)"
  check_match "yaml: the cluster default tree (s1: n[1-2])" 's1.*Nodes=n\[1-2\]' \
    "$(scontrol show topology 2>&1 | grep -E '^SwitchName=s1 ')"
  # debug: the cluster default tree, the same answers as with topology.conf
  check_table "yaml, debug (tree), idle" "$idle_two_leaves" "$(table_part debug)"
  # blkp: a two-node job stays in one block, b1 (n1, n3) or b2 (n2, n4):
  # the block of the policy's first node
  check_table "yaml, blkp (blocks), idle" "FIRSTAVAILABLE -N1: n1
FIRSTAVAILABLE -N2: n1,n3
LASTAVAILABLE -N1: n4
LASTAVAILABLE -N2: n2,n4
FASTEST -N1: n3
FASTEST -N2: n1,n3
PRIORITYF -N1: n4
PRIORITYF -N2: n2,n4" "$(table_part blkp)"
  settle
  check_eq "yaml, blkp, idle: will-run FASTEST -N2 names the policy's block (n[1,3])" "n[1,3]" \
    "$(timeout 60 sbatch --test-only -p blkp -N2 -n2 --psi-alloc-policy=fastest --wrap true 2>&1 |
       sed -n 's/.* on nodes \([^ ]*\) .*/\1/p')"
  # n1 held: in blk, b1 has one usable node (n3) and b2 two; in the tree s1
  # has one (n2).  Each partition's fit is its own topology's: the tree's
  # best fit puts -N1 on s1 (n2); 26.05's block fit puts it on the whole
  # free block b2, where the policy chooses (n2 or n4), never n3.
  id=$(hold n1)
  SETTLE_KEEP=$id
  for pol in FIRSTAVAILABLE:n2 LASTAVAILABLE:n4 FASTEST:n2 PRIORITYF:n4; do
    # shellcheck disable=SC2046
    check_eq "yaml, n1 held: blkp ${pol%%:*} -N1 in Slurm's block b2, the policy's node (${pol#*:})" \
      "${pol#*:}" "$(nodes 1 -p blkp $(policy_args ${pol%%:*}))"
    pol=${pol%%:*}
    # shellcheck disable=SC2046
    check_eq "yaml, n1 held: blkp $pol -N2 on the one block with room (b2)" n2,n4 \
      "$(nodes 2 -p blkp $(policy_args $pol))"
    # shellcheck disable=SC2046
    check_eq "yaml, n1 held: debug $pol -N1 takes the best-fit switch s1 (n2)" n2 \
      "$(nodes 1 -p debug $(policy_args $pol))"
  done
  scancel "$id"; SETTLE_KEEP=
  "$cluster" stop >/dev/null 2>&1
  unset PSIPLACE_TOPOLOGY PSIPLACE_PARTITIONS PSIPLACE_PARTITION_ARGS_blkp
}

run tree
if [ "$PSIPLACE_SLURM" = 22.05 ]; then
  skip "topology/block" "Slurm 22.05 has no topology/block (23.11+): checked on the 24.11 and 26.05 testbeds"
else
  run block
fi
if [ "$PSIPLACE_SLURM" = 26.05 ]; then
  run_yaml
else
  skip "topology.yaml (per-partition topologies)" \
    "Slurm $PSIPLACE_SLURM has no topology.yaml (25.05+): checked on the 26.05 testbed"
fi
tb_finish
