#!/usr/bin/env bash
# The parallel-spawning paper's measurements (seed 002, section 5) on the
# testbed: psiplace-resize-demo --timing, one process per node, the wall
# time of each resize measured inside the program (MPI_Wtime around the
# library call, printed by the rank 0 the resize started with).
#   expand 1->2, 1->4, 2->4 nodes: Merge (one spawn of all new processes),
#     Merge+Hypercube, Merge+Diffusive, Baseline+Hypercube, Baseline+Diffusive
#   shrink 4->2, 4->1 after a Hypercube expansion 1->4: TS (terminate the
#     released nodes' groups; the nodes go back to Slurm), Baseline respawn
#     (Hypercube, the kept nodes' shape spawned anew, the old processes
#     leave; nodes go back) and ZS (zombies: idle processes stay, nodes not
#     returned)
# Each series: BENCH_REPEATS runs (5), one allocation and one launcher each,
# printed as the median and the spread (max - min):
#   bench_malleable: release ..., build ..., Open MPI 4.1.4, load average ...
#   bench_malleable: ompi_expand_1to4_merge_hypercube: median 1.244 s, min 1.201 s, max 1.320 s (5 runs, 0 ended by the benchmark), load average 2.10 at start, 2.51 at end
#   bench: malleable_ompi_expand_1to4_merge_hypercube_slurm22.05 1.244 s
#   bench: malleable_ompi_expand_1to4_merge_hypercube_slurm22.05_spread 0.119 s
# A shrink that gives nodes back (TS, Baseline respawn) also has the time
# of giving them back, measured by the demo around psiplace_release_nodes()
# and the wait until Slurm shows them idle: NAME_release lines.
# MPICH (ch3, built by contrib/testbed/mpich.sh into the cache) is measured
# the same way when its prefix is complete; otherwise one line says it was
# skipped.  Environment: BENCH_REPEATS (5), BENCH_CASES (series names or
# shell patterns, blank-separated; default all), BENCH_INSTANCE (testbed
# instance, 26), BENCH_TESTBED=running (use the caller's testbed, the
# PSIPLACE_TEST_INSTANCE one, and leave it running), BENCH_MPICH=0 (skip
# MPICH), BENCH_MPICH_DEMO (a psiplace-resize-demo built against that
# MPICH, instead of `mpich.sh demo`), PSIPLACE_BUILD_DIR, PSIPLACE_SLURM.
# A series line also says how many of its runs the benchmark had to end.
# Under Open MPI 4.1 a run that gave nodes back does not end by itself
# (its survivors' MPI_Finalize does not return, doc/malleability.md): the
# run is ended by its PID once the nodes are released, after its figure.
set -uo pipefail
src=${PSIPLACE_SRC_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
[ "${BENCH_TESTBED:-}" = running ] || export PSIPLACE_TEST_INSTANCE=${BENCH_INSTANCE:-26}
source "$src/tests/integration/lib.sh"
source "$src/tests/bench/bench_lib.sh"
repeats=${BENCH_REPEATS:-5}
case $repeats in
  '' | *[!0-9]* | 0) echo "bench_malleable: BENCH_REPEATS: '$repeats' is not a positive number" >&2; exit 2 ;;
esac
cases=${BENCH_CASES:-*}
demo=$PSIPLACE_BUILD_DIR/cli/psiplace-resize-demo
rel=_slurm$PSIPLACE_SLURM
if [ ! -x "$demo" ] || ! command -v mpirun >/dev/null; then
  echo "bench: malleable skipped: psiplace-resize-demo not built (no MPI; meson -Dmpi)"
  exit 0
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader,tcp
work=$(mktemp -d)
if [ "${BENCH_TESTBED:-}" = running ]; then
  # the caller's testbed (the malleable suite's smoke run): left running
  trap 'rm -rf "$work"' EXIT
else
  tb_start
  trap '"$cluster" stop >/dev/null 2>&1; rm -rf "$work"' EXIT
fi

# The launcher line of an MPI: "ompi" (Open MPI's mpirun) or "mpich"
# (Hydra's mpiexec over Slurm, ../shared/MALLEABLE.md).  NP processes,
# one per node; RECOVERY=1: mpirun must outlive its daemons on released nodes.
launcher() { # MPI NP RECOVERY
  case $1 in
    ompi) echo "mpirun --oversubscribe --map-by node $([ "$3" = 1 ] && echo --enable-recovery) -np $2" ;;
    mpich) echo "$mpich_prefix/bin/mpiexec -launcher slurm -iface eth0 -ppn 1 -n $2" ;;
  esac
}

# one_run OUT MPI NODES NP RECOVERY K DEMO_ARGS...: the time of resize K in
# one allocation of NODES nodes and, after a shrink that gave nodes back,
# the time of giving them back (scontrol update until idle); nothing when
# the run printed no figure (the output stays in OUT).
one_run() {
  local out=$1 mpi=$2 nodes=$3 np=$4 rec=$5 k=$6 pid ended=0 demo_bin=$demo
  shift 6
  [ "$mpi" = mpich ] && demo_bin=$mpich_demo
  settle
  : >"$out"
  HYDRA_LAUNCHER_EXTRA_ARGS=--overlap timeout -k 10 150 salloc -N"$nodes" -n"$nodes" \
    bash -c 'echo "job $SLURM_JOB_ID"; echo $$ >"$0"; exec timeout -k 5 120 '"$(launcher "$mpi" "$np" "$rec")"' "$@"' \
    "$out.launcher" "$demo_bin" "$@" --timing --timeout 90 >"$out" 2>&1 &
  pid=$!
  # A run that released nodes may not end (Open MPI 4.1): its figure is
  # printed before the release, "released" after it.  It is ended from the
  # launcher down (TERM to the launcher's timeout, which passes it on and
  # kills 5 s later), then the allocation.
  gone() { ! kill -0 "$pid" 2>/dev/null; }
  done_or_released() { gone || grep -q '^released ' "$out"; }
  poll 140 done_or_released
  if ! poll 5 gone; then
    echo "ended by the benchmark" >>"$out.ended"
    [ -s "$out.launcher" ] && kill "$(cat "$out.launcher")" 2>/dev/null
    poll 15 gone || kill "$pid" 2>/dev/null
  fi
  wait "$pid" 2>/dev/null
  echo "$(sed -n "s/^timing $k [a-z]* [0-9]* [0-9]* [a-z\/]* \([0-9.]*\)$/\1/p" "$out" | head -n 1)" \
    "$(sed -n "s/^timing $k release [^ ]* \([0-9.]*\)$/\1/p" "$out" | head -n 1)"
}

# series NAME MPI NODES NP RECOVERY K DEMO_ARGS...: BENCH_REPEATS runs,
# the median and spread; a run without a figure fails the series.
failed=0
series() {
  local name=$1 mpi=$2 c v r l0 vals=() rels=() i out ended=0
  local match=0
  set -f # the patterns are not file names
  for c in $cases; do
    # shellcheck disable=SC2254
    case $name in $c) match=1 ;; esac
  done
  set +f
  [ "$match" = 1 ] || return 0
  shift 2
  l0=$(load1)
  for ((i = 1; i <= repeats; i++)); do
    out=$work/$name.$i
    read -r v r < <(one_run "$out" "$mpi" "$@")
    if [ -z "$v" ]; then
      echo "bench_malleable: $name: run $i gave no timing line; its output:" >&2
      sed 's/^/#   /' "$out" >&2
      failed=1
      return 0
    fi
    vals+=("$v")
    [ -z "$r" ] || rels+=("$r")
    [ ! -f "$out.ended" ] || ended=$((ended + 1))
  done
  read -r med _ < <(stats "${vals[@]}")
  printf 'bench_malleable: %s: median %.3f s, min %.3f s, max %.3f s (%d runs, %d ended by the benchmark), load average %s at start, %s at end\n' \
    "$name" "$med" "$(printf '%s\n' "${vals[@]}" | sort -g | head -n 1)" \
    "$(printf '%s\n' "${vals[@]}" | sort -g | tail -n 1)" "$repeats" "$ended" "$l0" "$(load1)"
  figure "malleable_$name$rel" %.3f s "${vals[@]}"
  if [ "${#rels[@]}" -gt 0 ]; then
    read -r med _ < <(stats "${rels[@]}")
    printf 'bench_malleable: %s: giving the nodes back (scontrol update until idle): median %.3f s, min %.3f s, max %.3f s (%d runs)\n' \
      "$name" "$med" "$(printf '%s\n' "${rels[@]}" | sort -g | head -n 1)" \
      "$(printf '%s\n' "${rels[@]}" | sort -g | tail -n 1)" "${#rels[@]}"
    figure "malleable_${name}_release$rel" %.3f s "${rels[@]}"
  fi
}

# every series of one MPI
measure() { # MPI
  local mpi=$1 ft from to sm s m
  for ft in 1:2 1:4 2:4; do
    from=${ft%:*} to=${ft#*:}
    for sm in merge:merge hypercube:merge diffusive:merge hypercube:baseline diffusive:baseline; do
      s=${sm%:*} m=${sm#*:}
      name=${mpi}_expand_${from}to${to}_${m}
      [ "$s" = merge ] || name+=_$s
      series "$name" "$mpi" "$to" "$from" 0 1 --strategy "$s" --method "$m" --expand-to "$to"
    done
  done
  for to in 2 1; do
    for m in ts baseline zombie; do
      name=${mpi}_shrink_4to${to}_$m
      [ "$m" = baseline ] && name+=_hypercube
      series "$name" "$mpi" 4 1 "$([ "$m" = zombie ] && echo 0 || echo 1)" 2 \
        --strategy hypercube --expand-to 4 --shrink-to "$to" --shrink-method "$m"
    done
  done
}

ompi_version=$(mpirun --version 2>/dev/null | sed -n 's/^mpirun (Open MPI) //p' | head -n 1)
slurm_version=$(sinfo -V | awk '{print $2}')
echo "bench_malleable: release $(git -C "$src" describe --always --dirty 2>/dev/null || echo unknown)," \
  "build $(build_type "$PSIPLACE_BUILD_DIR"), Slurm $slurm_version, Open MPI ${ompi_version:-unknown}," \
  "1 process per node on $(nproc) cores, $repeats runs per series," \
  "load average $(cut -d' ' -f1-3 /proc/loadavg) at start"
measure ompi

# MPICH: only a complete cached prefix (its marker is written last) and the
# demo built against it; this benchmark never builds MPICH.
mpich_prefix='' mpich_demo=''
for d in "${PSIPLACE_CACHE:-$HOME/.cache/psiplace}"/mpich/*/; do
  [ -f "$d.installed" ] && [ -x "$d/prefix/bin/mpiexec" ] && mpich_prefix=${d%/}/prefix
done
if [ "${BENCH_MPICH:-1}" = 0 ]; then
  echo "bench: malleable mpich skipped: BENCH_MPICH=0"
elif [ -z "$mpich_prefix" ]; then
  echo "bench: malleable mpich skipped: not built (no complete prefix in ${PSIPLACE_CACHE:-$HOME/.cache/psiplace}/mpich; contrib/testbed/mpich.sh prefix)"
elif [ -n "${BENCH_MPICH_DEMO:-}" ]; then
  mpich_demo=$BENCH_MPICH_DEMO
fi
if [ -z "$mpich_prefix" ] || [ "${BENCH_MPICH:-1}" = 0 ]; then
  :
elif [ -z "$mpich_demo" ] && { [ ! -x "$src/contrib/testbed/mpich.sh" ] ||
     ! mpich_demo=$("$src/contrib/testbed/mpich.sh" demo "$work/build-mpich" 2>"$work/mpich-demo.log"); }; then
  echo "bench: malleable mpich skipped: the demo could not be built against $mpich_prefix"
  sed 's/^/#   /' "$work/mpich-demo.log" >&2 2>/dev/null
else
  echo "bench_malleable: MPICH $("$mpich_prefix/bin/mpichversion" 2>/dev/null | sed -n 's/^MPICH Version:[[:space:]]*//p'), $mpich_prefix"
  measure mpich
fi
echo "bench_malleable: load average $(cut -d' ' -f1-3 /proc/loadavg) at end"
# the last run's job ends before the testbed stops: a slurmstepd still
# killing its processes would outlive the testbed
settle
exit "$failed"
