#!/usr/bin/env bash
# Dynamic nodes (issue 20, item 7; Slurm 23.02+): a node that registers at
# run time (slurmd -Z) is ranked by the policy with its psiplace.conf values
# by name, and the node cache follows its deletion and re-creation.
# psiplace.conf gives d1 Speed=9.0 (n3, the fastest static node, has 3.0).
source "$(dirname "$0")/lib.sh"

if [ "$PSIPLACE_SLURM" = 22.05 ]; then
  echo "1..0 # SKIP dynamic nodes (slurmd -Z, scontrol create/delete node) need Slurm 23.02+, not $PSIPLACE_SLURM"
  exit 0
fi

export PSIPLACE_POLICY=LASTAVAILABLE PSIPLACE_MAX_NODE_COUNT=8
export PSIPLACE_PSICONF_EXTRA="NodeName=d1 Speed=9.0"
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
tb_finish
