# Shared by the tests of ordered resizes (test_mall_rm.sh, test_mall_scenario.sh):
# MPICH's prefix and the demo built with it (skip when MPICH is not built),
# the batch script of the malleable job, and helpers reading its acks,
# steps and processes.  Sourced after lib.sh.
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

# The batch script: Hydra with the "user" resource kernel (with Slurm's,
# Hydra leaves --nodelist out of a spawn's srun when the spawn has as many
# nodes as the job had at its start, and srun then picks the batch host)
# and without SLURMD_NODENAME (mpiexec passes its environment to every
# process it starts, and the batch host's name would hide the node a
# spawned process runs on).  --cpu-bind=none for the spawns' steps, as
# doc/malleability.md's user script has it (for merges without psiplace's
# select plugin, whose cores cons_tres gets wrong: "22.05's merge and the
# cores of the grown job"); test_mall_scenario.sh checks bound steps.
mall_script() { # FILE GROW_WAIT: the batch script, its argument the --run seconds
cat >"$1" <<EOF
#!/bin/bash
export HYDRA_LAUNCHER_EXTRA_ARGS="--overlap --cpu-bind=none" PSIPLACE_MALL_POLL_INTERVAL=1 PSIPLACE_MALL_GROW_WAIT=$2
exec timeout -k 10 400 env -u SLURMD_NODENAME $mpich_prefix/bin/mpiexec -launcher slurm -rmk user \\
  -hosts "\$SLURMD_NODENAME" -iface $iface -n 1 $mdemo --malleable --run "\$1"
EOF
chmod +x "$1"
}

comment() { scontrol -o show job "$1" 2>/dev/null | sed -n 's/.* Comment=\([^ ]*\).*/\1/p'; }
acked() { case $(comment "$1") in "psiplace-ack=$2;"*) return 0 ;; *) return 1 ;; esac; }
order() { # JOB TEXT
  scontrol update JobId="$1" AdminComment="$2" || not_ok "scontrol update AdminComment=$2"
}
deadline() { echo $(($(date +%s) + 120)); }
expand_nodes() { scontrol show hostnames "$1" | paste -sd,; }
# Steps of job J on node N (the spawned groups' hydra proxies).
steps_on() { scontrol -o show step "$1" 2>/dev/null | grep -E "NodeList=$2( |\$)" | sed -n 's/^StepId=\([^ ]*\).*/\1/p'; }
procs_on() { job_procs "$1" | grep -E "@($2)\$"; }
no_procs_on() { [ -z "$(procs_on "$1" "$2")" ]; }
lines() { grep -c -E "$2" "$1" 2>/dev/null; }
has_lines() { [ "$(lines "$1" "$2")" -ge "$3" ]; }

