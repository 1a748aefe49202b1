#!/usr/bin/env bash
# Resizes the resource manager orders, timed on the testbed: from the
# decision (the order written into the job's AdminComment as root, which is
# what psiplace-malleabled does for a decision) to the job running at its
# new size (its acknowledgement psiplace-ack=ID;done;SIZE in Comment, and
# Slurm's NodeList holding SIZE nodes).  psiplace-resize-demo --malleable,
# one process per node:
#   MPICH ch3 (the cached prefix of contrib/testbed/mpich.sh): per run one
#     job --psi-malleable=1-4 on 1 node: grow 1->2, shrink 2->1 (not a
#     figure: it brings the job back to 1 node), grow 1->4, shrink 4->2;
#   Open MPI 4.1 (mpirun --enable-recovery): no figure (see run_ompi: it
#     cannot grow, and so cannot shrink); checked once that a grow order is
#     acknowledged failed.
# BENCH_REPEATS runs (5) per series, median and spread (max - min):
#   bench_mall_rm: mpich_grow_1to2: median 21.4 s, min ..., max ... (5 runs), load average ...
#   bench: mall_rm_mpich_grow_1to2_slurm22.05 21.4 s
#   bench: mall_rm_mpich_grow_1to2_slurm22.05_spread 3.1 s
# Only correctness is asserted (each ack done at the ordered size, Slurm's
# NodeList agreeing, a shrink releasing exactly the ordered nodes), never a
# time.  Environment: BENCH_REPEATS (5), BENCH_INSTANCE (testbed instance,
# 17), BENCH_MPI ("mpich ompi"), PSIPLACE_BUILD_DIR, PSIPLACE_SLURM.
set -uo pipefail
src=${PSIPLACE_SRC_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
export PSIPLACE_TEST_INSTANCE=${BENCH_INSTANCE:-17}
source "$src/tests/integration/lib.sh"
source "$src/tests/bench/bench_lib.sh"
repeats=${BENCH_REPEATS:-5}
case $repeats in
  '' | *[!0-9]* | 0) echo "bench_mall_rm: BENCH_REPEATS: '$repeats' is not a positive number" >&2; exit 2 ;;
esac
mpis=${BENCH_MPI:-mpich ompi}
for m in $mpis; do
  case $m in mpich | ompi) ;; *) echo "bench_mall_rm: BENCH_MPI: '$m' is not mpich or ompi" >&2; exit 2 ;; esac
done
rel=_slurm$PSIPLACE_SLURM
odemo=$PSIPLACE_BUILD_DIR/cli/psiplace-resize-demo
mprefix=$("$src/contrib/testbed/mpich.sh" path 2>/dev/null) || mprefix=""
export PSIPLACE_SCHED_PARAMS=permit_job_expansion PSIPLACE_JOBCOMP=1
# With slurmdbd when the testbed has it (as a site runs): without it 22.05
# answers the updates right after a merge "the DB index is being set, try
# again" for a minute or more, and the job side retries (that wait is
# then most of a grow's figure; the header line says which it was).
acct=none
if "$src/contrib/testbed/cluster.sh" accounting-support >/dev/null 2>&1; then export PSIPLACE_ACCOUNTING=dbd; acct=slurmdbd; fi
work=$(mktemp -d)
tb_start
trap '"$cluster" stop >/dev/null 2>&1; rm -rf "$work"' EXIT
iface=$(ip -o route show default 2>/dev/null | awk '{print $5; exit}')
iface=${iface:-eth0}

mdemo=""
if [[ " $mpis " = *" mpich "* ]] && [ -n "$mprefix" ]; then
  mdemo=$("$src/contrib/testbed/mpich.sh" demo "$PSIPLACE_BUILD_DIR/mpich" 2>"$work/mpich-demo.log") || {
    echo "bench_mall_rm: the demo does not build with MPICH's mpicc:" >&2
    tail -n 5 "$work/mpich-demo.log" >&2
    exit 1
  }
fi
# the batch scripts (as tests/integration/mall_lib.sh explains: Hydra with
# the user resource kernel, the spawns' steps unbound and overlapping)
cat >"$work/mpich.sh" <<EOF
#!/bin/bash
export HYDRA_LAUNCHER_EXTRA_ARGS="--overlap --cpu-bind=none" PSIPLACE_MALL_POLL_INTERVAL=1 PSIPLACE_MALL_GROW_WAIT=90
exec timeout -k 10 900 env -u SLURMD_NODENAME $mprefix/bin/mpiexec -launcher slurm -rmk user \\
  -hosts "\$SLURMD_NODENAME" -iface $iface -n 1 $mdemo --malleable --run 900
EOF
cat >"$work/ompi.sh" <<EOF
#!/bin/bash
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader,tcp
export PSIPLACE_MALL_POLL_INTERVAL=1 PSIPLACE_MALL_GROW_WAIT=30
exec timeout -k 10 300 mpirun --oversubscribe --enable-recovery --map-by node -np \$SLURM_JOB_NUM_NODES $odemo --malleable --run 300
EOF
chmod +x "$work/mpich.sh" "$work/ompi.sh"

failed=0
fail() { echo "bench_mall_rm: $*" >&2; failed=1; }
comment() { scontrol -o show job "$1" 2>/dev/null | sed -n 's/.* Comment=\([^ ]*\).*/\1/p'; }
count() { scontrol show hostnames "$(node_of "$1")" 2>/dev/null | wc -l; }
hosts() { scontrol show hostnames "$1" | paste -sd,; }
# order JOB TEXT ID SIZE: write the order, wait (deadline 180 s) for the ack
# of ID and for Slurm's NodeList to hold SIZE nodes; prints the seconds from
# the write to both, or "failed: COMMENT" / "timeout: COMMENT".
order() {
  local j=$1 t0 c end=$((SECONDS + 180))
  t0=$(now)
  scontrol update JobId="$j" AdminComment="$2" || { echo "failed: scontrol update AdminComment"; return; }
  while [ $SECONDS -lt $end ]; do
    c=$(comment "$j")
    case $c in
      "psiplace-ack=$3;done;$4")
        if [ "$(count "$j")" = "$4" ]; then awk -v a="$t0" -v b="$(now)" 'BEGIN {printf "%.2f\n", b - a}'; return; fi ;;
      "psiplace-ack=$3;"*) echo "failed: $c"; return ;;
    esac
    sleep 0.2
  done
  echo "timeout: $(comment "$j") NodeList=$(node_of "$j")"
}
dl() { echo $(($(date +%s) + 150)); }
start_job() { # MPI NODES RANGE OUT
  local j
  settle
  j=$(sbatch --parsable -N"$2" -n"$2" -t 20 --psi-malleable="$3" -o "$4" "$work/$1.sh") || return 1
  poll 60 job_running "$j" || { scancel "$j"; return 1; }
  echo "$j"
}
end_job() { scancel "$1" 2>/dev/null; poll 60 job_done "$1"; settle; }

# the series of one run are kept as lists of figures
declare -A vals
add() { vals[$1]="${vals[$1]:-} $2"; }
num() { [[ $1 =~ ^[0-9]+(\.[0-9]+)?$ ]]; }

run_mpich() { # I
  local out=$work/mpich.$1 a b v s id=0 keep relnodes
  a=$(start_job mpich 1 1-4 "$out") || { fail "mpich run $1: job A did not start"; return; }
  b=$(node_of "$a")
  id=$((id + 1)); v=$(order "$a" "psiplace-resize=$id;grow;1;$(dl)" $id 2)
  num "$v" && add mpich_grow_1to2 "$v" || fail "mpich run $1: grow 1->2: $v"
  s=$(hosts "$(node_of "$a")" | tr , '\n' | grep -vx "$b" | paste -sd,)
  id=$((id + 1)); v=$(order "$a" "psiplace-resize=$id;shrink;1;$(dl);$s;1" $id 1)
  num "$v" || fail "mpich run $1: shrink 2->1: $v"
  id=$((id + 1)); v=$(order "$a" "psiplace-resize=$id;grow;3;$(dl)" $id 4)
  num "$v" && add mpich_grow_1to4 "$v" || fail "mpich run $1: grow 1->4: $v"
  relnodes=$(hosts "$(node_of "$a")" | tr , '\n' | grep -vx "$b" | head -n 2 | paste -sd,)
  keep=$(hosts "$(node_of "$a")" | tr , '\n' | grep -vxF -f <(tr , '\n' <<<"$relnodes") | paste -sd,)
  id=$((id + 1)); v=$(order "$a" "psiplace-resize=$id;shrink;2;$(dl);$(scontrol show hostlist "$relnodes");1" $id 2)
  if num "$v" && [ "$(hosts "$(node_of "$a")")" = "$keep" ] && grep -qxF "released $(scontrol show hostlist "$relnodes")" "$out"; then
    add mpich_shrink_4to2 "$v"
  elif num "$v"; then
    fail "mpich run $1: shrink 4->2 kept $(node_of "$a") (not $keep), released $(grep '^released' "$out" | tail -n 1)"
  else
    fail "mpich run $1: shrink 4->2: $v"
  fi
  [ "$failed" = 0 ] || sed 's/^/#   /' "$out" >&2
  end_job "$a"
}

# Open MPI 4.1: no series.  A grow's spawn is refused (mpirun's daemons
# cover the nodes of its start only: "All nodes which are allocated for this
# job are already filled"), and a job started with one process per node
# cannot shrink (its launcher-started world leaves only as a whole; the job
# side asks for a parallel expansion first, which only a grow makes).
# Checked once: the grow order is acknowledged failed (the size it names
# and Slurm's NodeList are printed: the helper may have been merged before
# the spawn failed).
run_ompi() {
  local out=$work/ompi.1 a v
  a=$(start_job ompi 1 1-4 "$out") || { fail "ompi: job A did not start"; return; }
  v=$(order "$a" "psiplace-resize=1;grow;3;$(dl)" 1 4)
  case $v in
    "failed: psiplace-ack=1;failed;"*)
      echo "bench: mall_rm ompi skipped: Open MPI cannot grow; the order was acknowledged failed" \
        "(${v#failed: }; Slurm's NodeList then $(node_of "$a"))" ;;
    *) fail "ompi: a grow 1->4: expected an ack failed, got: $v"; sed 's/^/#   /' "$out" >&2 ;;
  esac
  end_job "$a"
}

series_line() { # NAME
  local v=${vals[$1]:-} med
  # shellcheck disable=SC2086
  set -- "$1" $v
  local name=$1
  shift
  [ $# -gt 0 ] || { echo "bench_mall_rm: $name: no figure"; return; }
  read -r med _ < <(stats "$@")
  printf 'bench_mall_rm: %s: median %.2f s, min %.2f s, max %.2f s (%d runs)\n' "$name" "$med" \
    "$(printf '%s\n' "$@" | sort -g | head -n 1)" "$(printf '%s\n' "$@" | sort -g | tail -n 1)" $#
  figure "mall_rm_$name$rel" %.2f s "$@"
}

slurm_version=$(sinfo -V | awk '{print $2}')
echo "bench_mall_rm: release $(git -C "$src" describe --always --dirty 2>/dev/null || echo unknown)," \
  "build $(build_type "$PSIPLACE_BUILD_DIR"), Slurm $slurm_version, accounting $acct, 1 process per node on $(nproc) cores," \
  "$repeats runs per series, load average $(cut -d' ' -f1-3 /proc/loadavg) at start"
for m in $mpis; do
  l0=$(load1)
  case $m in
    mpich)
      if [ -z "$mdemo" ]; then echo "bench: mall_rm mpich skipped: MPICH not built (contrib/testbed/mpich.sh prefix)"; continue; fi
      echo "bench_mall_rm: MPICH $("$mprefix/bin/mpichversion" 2>/dev/null | sed -n 's/^MPICH Version:[[:space:]]*//p') ($mprefix)"
      for ((i = 1; i <= repeats; i++)); do run_mpich "$i"; done
      for s in mpich_grow_1to2 mpich_grow_1to4 mpich_shrink_4to2; do series_line "$s"; done ;;
    ompi)
      if [ ! -x "$odemo" ] || ! command -v mpirun >/dev/null; then echo "bench: mall_rm ompi skipped: no Open MPI demo (meson -Dmpi)"; continue; fi
      echo "bench_mall_rm: Open MPI $(mpirun --version 2>/dev/null | sed -n 's/^mpirun (Open MPI) //p' | head -n 1)"
      run_ompi ;;
  esac
  echo "bench_mall_rm: $m: load average $l0 at its start, $(load1) at its end"
done
echo "bench_mall_rm: load average $(cut -d' ' -f1-3 /proc/loadavg) at end"
exit "$failed"
