#!/usr/bin/env bash
# Malleable jobs that lose a part: none may hang.  psiplace-resize-demo
# under MPICH ch3 (mpiexec -launcher slurm, as test_malleable.sh), each case
# made by the demo's test-only --fault switch, in an allocation of 4 nodes,
# expanded 1 -> 4 (hypercube) with an operation timeout of T seconds:
#  - ts-after-zombie: a zombie shrink 4 -> 3, then a TS shrink 3 -> 2: the
#    TS shrink is refused by every process with one error line (its leavers
#    would wait at the end for the survivors on a node given back), exit 1;
#  - zombie-leaves: the zombie of a shrink 4 -> 3 finalizes and exits 0 at
#    once, without waiting for the job's end: the others leave the zombies'
#    barrier at the end after T s with one warning line, exit 0;
#  - zombie-dies: the zombie is killed (as when its node goes back to
#    Slurm): Hydra ends the whole job (BAD TERMINATION), nothing hangs;
#  - spawned-exit: the processes spawned by the expansion exit (status 3)
#    before its synchronisation: MPICH reports nothing to the source
#    waiting for them, and the watchdog ends it after T s with one line,
#    exit 70;
#  - sync-error: the sources' rank 0 gets an MPI error from the
#    synchronisation's receive: every process fails the expansion with the
#    same one error line (the failure travels with the synchronisation's
#    table), exit 1.
# Every case: the job ends within a deadline, with the exit code and the
# one error or warning line expected, and no process of the job is left on
# any node.  Open MPI 4.1 (mpirun, when the demo is built with it): the two
# cases where every process stays alive, ts-after-zombie and sync-error
# (mpirun ends the whole job when a process is killed or exits non-zero,
# so the other two are the launcher's, not the library's).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

mpich_prefix=$("$src_dir/contrib/testbed/mpich.sh" path 2>/dev/null) || mpich_prefix=""
if [ -n "$mpich_prefix" ] || [ "${PSIPLACE_REQUIRE_MPI:-0}" = 1 ]; then
  source "$(dirname "${BASH_SOURCE[0]}")/mall_lib.sh"
fi
odemo=$PSIPLACE_BUILD_DIR/cli/psiplace-resize-demo
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader,tcp

T=15        # the demo's --timeout: every operation's deadline
within=120  # a case's deadline from its start, seconds
tb_start
work=$(mktemp -d)
trap '"$cluster" stop >/dev/null 2>&1; rm -rf "$work"' EXIT

# zrun MPI NAME DEMO_ARGS...: one allocation of 4 nodes, MPICH's mpiexec -n 1
# or Open MPI's mpirun -np 1 in the background (the outer timeouts only end
# a hang the checks then report); its output in $work/NAME, its rc in
# $work/NAME.rc, its wall time in $work/NAME.secs, or "hang" there when it
# outlived the deadline.
zrun() {
  local mpi=$1 out=$work/$2 pid t0; shift 2
  settle
  t0=$SECONDS
  if [ "$mpi" = mpich ]; then
    HYDRA_LAUNCHER_EXTRA_ARGS=--overlap timeout -k 10 $((within + 60)) salloc -N4 -n4 bash -c '
      echo "job $SLURM_JOB_ID $SLURM_JOB_NODELIST"
      exec timeout -k 10 '$((within + 30))' env -u SLURMD_NODENAME "$0" -launcher slurm -iface "$1" -n 1 "${@:2}"' \
      "$mpich_prefix/bin/mpiexec" "$iface" "$mdemo" --strategy hypercube --expand-to 4 --timeout $T "$@" \
      >"$out" 2>&1 &
  else
    timeout -k 10 $((within + 60)) salloc -N4 -n4 bash -c '
      echo "job $SLURM_JOB_ID $SLURM_JOB_NODELIST"
      exec timeout -k 10 '$((within + 30))' mpirun --oversubscribe -np 1 "$@"' \
      demo "$odemo" --strategy hypercube --expand-to 4 --timeout $T "$@" >"$out" 2>&1 &
  fi
  pid=$!
  ended() { ! kill -0 "$pid" 2>/dev/null; }
  if poll "$within" ended; then
    wait "$pid"; echo $? >"$out.rc"; echo $((SECONDS - t0)) >"$out.secs"
  else
    echo hang >"$out.secs"; wait "$pid"; echo $? >"$out.rc"
  fi
  job=$(sed -n 's/^job \([0-9]*\) .*/\1/p' "$out")
}
# The distinct error and warning lines of a run (one line each expected).
said() { grep -E '^psiplace: (error|warning): ' "$work/$1" | sort -u; }
no_leftovers() { [ -z "$(job_procs "$1")" ]; }
# Nothing of job $2 may outlive it (polled: processes end a moment after
# salloc returns); what is left is reported and ended by PID.
check_no_leftovers() { # NAME JOB
  local left="" p
  poll 30 no_leftovers "$2" || left=$(job_procs "$2")
  check_eq "$1" "" "$left"
  for p in $left; do kill -9 "${p%@*}" 2>/dev/null; done
}
ended_in_time() { # NAME RUN
  local s; s=$(cat "$work/$2.secs")
  check_match "$1: the job ends within $within s (took ${s} s)" '^[0-9]+$' "$s" "$(cat "$work/$2")"
}

# ---- Open MPI: the two cases where every process lives on
ompi_checks() {
  zrun openmpi ots --shrink-to 3 --shrink-to 2 --fault ts-after-zombie
  ended_in_time "Open MPI: ZS then TS" ots
  check_eq "Open MPI: ZS then TS: exit 1" 1 "$(cat "$work/ots.rc")" "$(cat "$work/ots")"
  check_eq "Open MPI: ZS then TS: one error line, the refusal" "$refusal" "$(said ots)" "$(cat "$work/ots")"
  check_no_leftovers "Open MPI: ZS then TS: nothing of the job left on any node" "$job"
  zrun openmpi osy --fault sync-error
  ended_in_time "Open MPI: MPI error in the synchronisation" osy
  check_eq "Open MPI: MPI error in the synchronisation: exit 1" 1 "$(cat "$work/osy.rc")" "$(cat "$work/osy")"
  check_sync_line "Open MPI: MPI error in the synchronisation" osy
  check_no_leftovers "Open MPI: MPI error in the synchronisation: nothing of the job left on any node" "$job"
}
refusal="psiplace: error: malleable: shrink to 2 nodes: the job has zombies from a zombie shrink, which wait for the whole job at its end; it shrinks no further"
check_sync_line() { # NAME RUN: one distinct error line, naming the call that failed
  check_eq "$1: one error line, the same on every process" 1 "$(said "$2" | wc -l)" "$(cat "$work/$2")"
  check_match "$1: ... naming the synchronisation's receive" \
    '^psiplace: error: malleable: expand to 4 nodes: synchronising on n[0-9]+: receiving the outcome of the groups it spawned: .+' \
    "$(said "$2")"
}
if [ -x "$odemo" ] && command -v mpirun >/dev/null; then
  ompi_checks
else
  skip "Open MPI: ZS then TS, MPI error in the synchronisation" "psiplace-resize-demo not built with Open MPI (meson -Dmpi)"
fi

mpich_checks() {
  # ---- a TS shrink after a zombie shrink: refused by everyone alike
  zrun mpich ts --shrink-to 3 --shrink-to 2 --fault ts-after-zombie
  ended_in_time "ZS then TS" ts
  check_eq "ZS then TS: exit 1" 1 "$(cat "$work/ts.rc")" "$(cat "$work/ts")"
  check_eq "ZS then TS: one error line, the refusal" "$refusal" "$(said ts)" "$(cat "$work/ts")"
  check_eq "ZS then TS: the zombie shrink was made (3 processes report resize 2)" 3 \
    "$(grep -c '^resize 2 rank [0-2] of 3 ' "$work/ts")" "$(cat "$work/ts")"
  check_eq "ZS then TS: no node given back" "" "$(grep '^released' "$work/ts")"
  check_no_leftovers "ZS then TS: nothing of the job left on any node" "$job"

  # ---- a zombie that goes before the job's end: quietly (finalized, exit
  # 0), the library's case; killed, Hydra's (it ends the whole job)
  zrun mpich zl --shrink-to 3 --shrink-method zombie --fault zombie-leaves
  ended_in_time "zombie leaves" zl
  check_eq "zombie leaves: exit 0" 0 "$(cat "$work/zl.rc")" "$(cat "$work/zl")"
  check_eq "zombie leaves: one warning line, the others leave the zombies' barrier after $T s" \
    "psiplace: warning: malleable: the job's zombies did not all meet at its end within $T s; leaving without them" \
    "$(said zl)" "$(cat "$work/zl")"
  check_eq "zombie leaves: the survivors report resize 2 (3 processes)" 3 \
    "$(grep -c '^resize 2 rank [0-2] of 3 ' "$work/zl")" "$(cat "$work/zl")"
  check_no_leftovers "zombie leaves: nothing of the job left on any node" "$job"
  zrun mpich zd --shrink-to 3 --shrink-method zombie --fault zombie-dies
  ended_in_time "zombie killed" zd
  check_match "zombie killed: Hydra ends the job (BAD TERMINATION, exit not 0)" \
    "^[1-9][0-9]* .*BAD TERMINATION" "$(cat "$work/zd.rc") $(tr '\n' ' ' <"$work/zd")"
  check_no_leftovers "zombie killed: nothing of the job left on any node" "$job"

  # ---- the spawned processes exit before the synchronisation
  zrun mpich se --fault spawned-exit
  ended_in_time "spawned processes exit" se
  check_match "spawned processes exit: the fault happened" 'fault spawned-exit' "$(cat "$work/se")"
  check_eq "spawned processes exit: the watchdog ends the waiting source (exit 70)" 70 "$(cat "$work/se.rc")" "$(cat "$work/se")"
  check_eq "spawned processes exit: one error line" 1 "$(said se | wc -l)" "$(cat "$work/se")"
  check_match "spawned processes exit: ... the watchdog's, naming the phase" \
    "^psiplace: error: malleable: expand to 4 nodes \(hypercube\): the upside synchronisation did not finish within $T s \(node n[0-9]+, pid [0-9]+\)\$" \
    "$(said se)"
  check_eq "spawned processes exit: no process reports an expansion" "" "$(grep '^resize 1 ' "$work/se")"
  check_no_leftovers "spawned processes exit: nothing of the job left on any node" "$job"

  # ---- an MPI error inside the synchronisation
  zrun mpich sy --fault sync-error
  ended_in_time "MPI error in the synchronisation" sy
  check_match "MPI error in the synchronisation: the fault happened" 'fault sync-error' "$(cat "$work/sy")"
  check_eq "MPI error in the synchronisation: exit 1" 1 "$(cat "$work/sy.rc")" "$(cat "$work/sy")"
  check_sync_line "MPI error in the synchronisation" sy
  check_eq "MPI error in the synchronisation: no process reports the expansion" "" "$(grep '^resize 1 ' "$work/sy")"
  check_no_leftovers "MPI error in the synchronisation: nothing of the job left on any node" "$job"

  check_eq "demo --fault: a usage error names the option, the value and what is accepted" \
    "psiplace: error: --fault: 'x' is not accepted; accepted: ts-after-zombie, zombie-dies, zombie-leaves, spawned-exit, sync-error (test-only)" \
    "$(settle; timeout -k 5 90 salloc -N1 -n1 timeout 60 "$mpich_prefix/bin/mpiexec" -launcher slurm -iface "$iface" -n 1 "$mdemo" --fault x --shrink-to 1 2>&1 | grep 'psiplace: error')"
}
if [ -n "$mpich_prefix" ]; then
  mpich_checks
else
  skip "MPICH: the four faults" "MPICH (ch3:nemesis) is not built: run contrib/testbed/mpich.sh prefix"
fi
tb_finish
