#!/usr/bin/env bash
# Dynamic nodes (issue 20, item 7; Slurm 23.02+): a node that registers at
# run time (slurmd -Z) is ranked by the policy with its psiplace.conf values
# by name, and the node cache follows its deletion and re-creation.
# psiplace.conf gives d1 Speed=9.0 (n3, the fastest static node, has 3.0).
# The same for a node made with `scontrol create NodeName=d2 ... State=FUTURE`
# and brought up by `slurmd -Z -N d2 --conf` (a plain `slurmd -N d2` finds
# no d2 in slurm.conf and exits: "Unable to find node record"); d2 has
# Speed=9.0 too, d3, created after d2 is deleted (it may take d2's place in
# the node table), has no line and gets the defaults (Speed 1.0).  These
# checks read the policy's choice from the allocation (salloc --no-shell):
# on 24.11 slurmctld and srun reach a node made by `scontrol create` at
# slurm.conf's SlurmdPort, not at its own Port (the batch script and the
# step of a job on d2 ran in n1's slurmd, whose port that is), so nothing
# may be launched there.
source "$(dirname "$0")/lib.sh"

if [ "$PSIPLACE_SLURM" = 22.05 ]; then
  echo "1..0 # SKIP dynamic nodes (slurmd -Z, scontrol create/delete node) need Slurm 23.02+, not $PSIPLACE_SLURM"
  exit 0
fi

export PSIPLACE_POLICY=LASTAVAILABLE PSIPLACE_MAX_NODE_COUNT=8
export PSIPLACE_PSICONF_EXTRA="NodeName=d1 Speed=9.0
NodeName=d2 Speed=9.0"
tb_start
fastest=--psi-alloc-policy=fastest
port=$((17000 + 20 * PSIPLACE_INSTANCE + 6))

node_state() { scontrol show node "$1" 2>/dev/null | sed -n 's/.* State=\([A-Z_+]*\).*/\1/p'; }
d1_idle() { case $(node_state d1) in IDLE|IDLE+DYNAMIC_NORM) return 0 ;; *) return 1 ;; esac; }
d1_gone() { ! scontrol show node d1 >/dev/null 2>&1; }
# slurmd -Z registers d1 itself; its PID goes where `cluster.sh stop` finds it.
start_d1() {
  mkdir -p "$PSIPLACE_TESTBED_DIR/spool/d1" "$PSIPLACE_TESTBED_DIR/tmp/d1" "$PSIPLACE_TESTBED_DIR/pids"
  setsid bash -c 'echo $$ >"$0"; exec "$@"' "$PSIPLACE_TESTBED_DIR/pids/slurmd-d1" \
    slurmd -D -Z -N d1 -f "$SLURM_CONF" \
    --conf "CPUs=8 RealMemory=1000 Port=$port NodeAddr=127.0.0.1 NodeHostname=$(hostname -s) Features=dyn" \
    </dev/null >>"$PSIPLACE_TESTBED_DIR/log/slurmd-d1.out" 2>&1 &
  poll 60 d1_idle || not_ok "d1 registers and is idle" "$(node_state d1)"
  scontrol update PartitionName=debug Nodes=n1,n2,n3,n4,d1
}
stop_d1() {
  local f=$PSIPLACE_TESTBED_DIR/pids/slurmd-d1 p
  p=$(cat "$f" 2>/dev/null) && [ -n "$p" ] && kill -TERM "$p" 2>/dev/null
  poll 30 bash -c "! kill -0 $p 2>/dev/null"
  rm -f "$f"
}

check_eq "before d1 exists, FASTEST: n3" n3 "$(srun_node "$fastest")"
start_d1
check_eq "d1 registered with slurmd -Z: a dynamic node, idle" IDLE+DYNAMIC_NORM "$(node_state d1)"
check_eq "FASTEST ranks d1 by its psiplace.conf line (Speed=9.0): d1" d1 "$(srun_node "$fastest")"
check_eq "FIRSTAVAILABLE is unchanged: n1" n1 "$(srun_node --psi-alloc-policy=firstavailable)"
stop_d1
scontrol update PartitionName=debug Nodes=n1,n2,n3,n4
out=$(scontrol delete NodeName=d1 2>&1)
check_eq "scontrol delete NodeName=d1 succeeds" "" "$out"
poll 30 d1_gone
check_eq "after d1 is deleted, FASTEST: n3 (the node cache followed)" n3 "$(srun_node "$fastest")"
check_match "slurmctld is up" 'UP' "$(scontrol ping)"
start_d1
check_eq "d1 registered again: FASTEST gives d1" d1 "$(srun_node "$fastest")"
stop_d1

# scontrol create: FUTURE nodes are hidden from `scontrol show node` (-F shows them).
future_state() { scontrol show node -F "$1" 2>/dev/null | sed -n 's/.* State=\([A-Z_+]*\).*/\1/p'; }
node_idle() { case $(future_state "$1") in IDLE|IDLE+DYNAMIC_NORM) return 0 ;; *) return 1 ;; esac; }
node_gone() { ! scontrol show node -F "$1" >/dev/null 2>&1; }
cport=$((port + 1))
# The node a one-node allocation gets (the policy's choice), then released.
alloc_node() {
  local out id
  settle
  out=$(timeout 60 salloc --no-shell -N1 -n1 "$@" 2>&1)
  id=$(sed -n 's/.*Granted job allocation \([0-9]*\).*/\1/p' <<<"$out")
  [ -n "$id" ] || { echo "$out"; return; }
  squeue -h -j "$id" -o %N
  scancel "$id"
}
conf_line="CPUs=8 RealMemory=1000 Port=$cport NodeAddr=127.0.0.1 NodeHostname=$(hostname -s) Features=dyn"
create_up() {
  local n=$1 out
  # shellcheck disable=SC2086 # the node's attributes, word by word
  out=$(scontrol create NodeName="$n" $conf_line State=FUTURE 2>&1)
  check_eq "scontrol create NodeName=$n ... State=FUTURE succeeds" "" "$out"
  check_match "$n exists as a FUTURE node" 'FUTURE' "$(future_state "$n")"
  mkdir -p "$PSIPLACE_TESTBED_DIR/spool/$n" "$PSIPLACE_TESTBED_DIR/tmp/$n"
  setsid bash -c 'echo $$ >"$0"; exec "$@"' "$PSIPLACE_TESTBED_DIR/pids/slurmd-$n" \
    slurmd -D -Z -N "$n" -f "$SLURM_CONF" --conf "$conf_line" \
    </dev/null >>"$PSIPLACE_TESTBED_DIR/log/slurmd-$n.out" 2>&1 &
  poll 60 node_idle "$n" || not_ok "$n comes up (slurmd -Z -N $n)" "$(future_state "$n")"
  scontrol update PartitionName=debug Nodes="n1,n2,n3,n4,$n"
}
stop_delete() {
  local n=$1 f=$PSIPLACE_TESTBED_DIR/pids/slurmd-$1 p out
  settle # the last allocation's epilog first: a completing node cannot be deleted
  p=$(cat "$f" 2>/dev/null) && [ -n "$p" ] && kill -TERM "$p" 2>/dev/null
  poll 30 bash -c "! kill -0 $p 2>/dev/null"
  rm -f "$f"
  scontrol update PartitionName=debug Nodes=n1,n2,n3,n4
  out=$(scontrol delete NodeName="$n" 2>&1)
  check_eq "scontrol delete NodeName=$n succeeds" "" "$out"
  poll 30 node_gone "$n" || not_ok "$n is gone after scontrol delete" "$(future_state "$n")"
}

create_up d2
check_eq "d2 (scontrol create, then slurmd -Z): idle, dynamic" IDLE+DYNAMIC_NORM "$(future_state d2)"
check_eq "FASTEST ranks d2 by its psiplace.conf line (Speed=9.0): d2" d2 "$(alloc_node "$fastest")"
stop_delete d2
check_eq "after d2 is deleted, FASTEST: n3 (the node cache followed)" n3 "$(alloc_node "$fastest")"
create_up d3
check_eq "d3 (scontrol create, no psiplace.conf line): idle, dynamic" IDLE+DYNAMIC_NORM "$(future_state d3)"
check_eq "FASTEST ranks d3 with the defaults (Speed 1.0, not d2's 9.0): n3" n3 "$(alloc_node "$fastest")"
check_eq "d3 is a candidate: a job that only d3 can take (-w d3) is allocated there" d3 \
  "$(alloc_node -w d3 "$fastest")"
check_eq "FASTEST without n3: n2 (Speed 2.0) before d3 (default 1.0)" n2 "$(alloc_node -x n3 "$fastest")"
stop_delete d3
tb_finish
