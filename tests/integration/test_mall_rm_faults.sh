#!/usr/bin/env bash
# Faults during resizes psiplace-malleabled orders, each with nothing lost
# (PSIPLACE_MALLEABLED=1, decisions every second, MalleableMinInterval=0,
# slurmdbd where the release has it).  The job's side is mall_agent (no
# MPI): the library calls rank 0 of libpsiplace_mpi makes (helper
# allocation and merge, release, acknowledgement in Comment; the grow in
# steps: salloc in the background, checked at each poll, merged once granted).  Its --hold
# file keeps a new order waiting, so the test fills the free nodes first
# and the helper pends.
#  1. grow: the helper pends (no free node); a hand-made psiplace-grow-*
#     job no order stands for is cancelled by the daemon's sweep; the
#     daemon SIGKILLed and started again resumes at the next id; slurmctld
#     restarted; the nodes freed: the job merges (on 22.05 after a new
#     helper: slurmctld keeps the first one's expand link in memory only)
#     and acknowledges done at 4;
#  2. shrink: the daemon SIGKILLed after the order, the job releases the
#     named nodes and acknowledges while the daemon is down; started
#     again, the daemon reads the acknowledgement and clears the order,
#     the rigid job runs on exactly the released nodes;
#  3. a helper that cannot start: the job's side gives up after
#     PSIPLACE_MALL_GROW_WAIT, cancels it and acknowledges failed;
#  4. the job cancelled while its helper pends: the helper goes, the
#     daemon drops the order;
#  5. a shrink the job refuses (acknowledged failed): no shrink order for
#     the back-off's 10 s (MalleableMinInterval=0 would allow one a second
#     later), then one the job carries out: its released nodes are held
#     for the rigid job it was made for, and no grow order is given until
#     that job has started on them.
# After each: no helper pending or running, no salloc of the job left, no node in two jobs, the job
# on the size it acknowledged, AdminComment back to the range.
# The rigid jobs are --exclusive, the malleable ones are not: 22.05
# refuses to merge into an --exclusive job (doc/malleability.md).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

agent=${1:-$PSIPLACE_BUILD_DIR/tests/integration/mall_agent}
[ -x "$agent" ] || { echo "Bail out! no mall_agent at $agent"; exit 1; }
export PSIPLACE_MALLEABLED=1 PSIPLACE_MALLEABLED_ARGS="--interval 1" PSIPLACE_POLICY=FIRSTAVAILABLE
export PSIPLACE_PSICONF_EXTRA=$'MalleableMinInterval=0\nMalleableAckTimeout=90' PSIPLACE_JOBCOMP=1
mall_start
mdlog=$PSIPLACE_TESTBED_DIR/log/malleabled.out

field() { scontrol show job "$1" 2>/dev/null | sed -n "s/^ *$2=\\(.*[^ ]\\) *\$/\\1/p"; }
order_of() { field "$1" AdminComment; }
has_order() { [[ $(order_of "$1") =~ ^psiplace-resize=[0-9]+\;$2 ]]; }
order_id() { order_of "$1" | sed -n 's/^psiplace-resize=\([0-9]*\);.*/\1/p'; }
comment() { field "$1" Comment; }
ack_is() { [[ $(comment "$1") =~ ^psiplace-ack=$2\;$3$ ]]; }
size_of() { scontrol show hostnames "$(node_of "$1")" 2>/dev/null | wc -l; }
holds() { [ "$(size_of "$1")" = "$2" ]; }
# helpers of job J pending or running ("ID:STATE ...")
helpers() { squeue -h -t PD,R,CF -o '%i:%T:%j' | grep ":psiplace-grow-$1-" | cut -d: -f1,2 | paste -sd' '; }
no_helpers() { [ -z "$(helpers "$1")" ]; }
helper_pends() { [[ $(helpers "$1") =~ :PENDING ]]; }
# nodes listed by more than one running job
shared_nodes() {
  local id nl
  squeue -h -t R -o '%i %N' | while read -r id nl; do scontrol show hostnames "$nl"; done | sort | uniq -d | paste -sd,
}
logged() { grep -qE "$1" "$mdlog"; }
md_pid() { cat "$PSIPLACE_TESTBED_DIR/pids/malleabled" 2>/dev/null; }
md_dead() { ! kill -0 "$1" 2>/dev/null; }
submit() { # OUT HOLD STOP [REFUSE]: a malleable job of the agent, its id
  local id
  id=$(timeout 20 sbatch --parsable -N1 -n1 -t 10 --psi-malleable=1-4 -o "$1" \
    --wrap "exec $agent --run 400 --hold $2 --stop $3${4:+ --refuse $4}") && [[ $id =~ ^[0-9]+$ ]] ||
    { echo "Bail out! sbatch of the malleable job failed: $id"; exit 1; }
  echo "$id"
}
rigid() { # NODES: an exclusive rigid job, its id
  local id
  id=$(timeout 20 sbatch --parsable -N"$1" --exclusive -t 10 -o /dev/null --wrap "sleep 300") ||
    { echo "Bail out! sbatch of a rigid job failed"; exit 1; }
  poll 60 job_running "$id" || not_ok "rigid job $id runs within 60 s" "$(squeue -h -o '%i:%T:%r:%N' | paste -sd' ')"
  echo "$id"
}
nothing_lost() { # LABEL JOB SIZE
  poll 15 no_helpers "$2"
  check_eq "$1: no helper of job $2 pending or running" "" "$(helpers "$2")"
  poll 10 no_sallocs "$2"
  check_eq "$1: no salloc of job $2 left running" "" "$(job_sallocs "$2")"
  check_eq "$1: no node held by two jobs" "" "$(shared_nodes)" "$(squeue -h -o '%i:%T:%N' | paste -sd' ')"
  check_eq "$1: job $2 runs on $3 nodes" "RUNNING $3" "$(job_state "$2") $(size_of "$2")"
  poll 15 is_range "$2"
  check_eq "$1: job $2's AdminComment is its range again" "psiplace-malleable=1-4" "$(order_of "$2")"
}
is_range() { [ "$(order_of "$1")" = psiplace-malleable=1-4 ]; }

settle
# ------------------------------------------------------------ 1. grow: daemon killed, slurmctld restarted
# A's side waits for its helper up to 80 s (within the order's 90 s less 5)
export PSIPLACE_MALL_GROW_WAIT=80
touch "$work/hold"
a=$(submit "$work/a.out" "$work/hold" "$work/a.stop")
poll 60 job_running "$a" || not_ok "job A runs within 60 s"
poll 30 has_order "$a" 'grow;3;' || not_ok "idle cluster: job A gets a grow 3 order" "$(order_of "$a")" "$(tail -n 5 "$mdlog")"
g1=$(order_id "$a")
x=$(rigid 3)
rm -f "$work/hold"
if poll 30 helper_pends "$a"; then ok "grow $g1: A's helper pends (the other nodes are taken)"
else not_ok "grow $g1: A's helper pends (the other nodes are taken)" "$(helpers "$a")" "$(cat "$work/a.out")"; fi
orphan=$(timeout 20 sbatch --parsable --hold -N1 -J "psiplace-grow-$a-$((g1 + 100))" -o /dev/null --wrap true)
poll 15 job_done "$orphan"
check_eq "the sweep cancels a psiplace-grow-* job no order stands for" CANCELLED "$(job_state "$orphan")"
check_match "the daemon logged it" "cancelling grow helper $orphan \\(psiplace-grow-$a-$((g1 + 100))\\): no outstanding" \
  "$(cat "$mdlog")"
check_eq "the helper of decision $g1 still pends" yes "$(helper_pends "$a" && echo yes)"
"$cluster" restart-malleabled KILL
resumed() { grep -q "resumed from .*: next decision id $1," "$mdlog"; }
if poll 20 resumed $((g1 + 1)); then ok "daemon SIGKILLed during the grow: it resumes at id $((g1 + 1))"
else not_ok "daemon SIGKILLed during the grow: it resumes at id $((g1 + 1))" "$(tail -n 5 "$mdlog")"; fi
"$cluster" restart-ctld >/dev/null 2>&1 || not_ok "slurmctld restarts"
check_eq "after the restarts the helper of decision $g1 still pends and the order stands" "yes $g1" \
  "$(helper_pends "$a" && echo yes) $(order_id "$a")"
scancel "$x"
if poll 80 ack_is "$a" "$g1" 'done;4'; then ok "slurmctld restarted during the grow: A merges and acknowledges done at 4"
else not_ok "slurmctld restarted during the grow: A merges and acknowledges done at 4" "$(comment "$a")" "$(cat "$work/a.out")"; fi
check_match "the job's side names the 3 granted nodes" '^granted n2,n3,n4 ' "$(cat "$work/a.out")"
poll 15 logged "job $a: decision $g1 acknowledged done, size 4"
check_match "the daemon read the acknowledgement" "job $a: decision $g1 acknowledged done, size 4 \\(Slurm: 4 nodes\\)" \
  "$(cat "$mdlog")"
nothing_lost "after the grow" "$a" 4
# (22.05: the first helper is refused and cancelled, the second merged)
echo "# merges slurmctld refused with 'Node count specification invalid': $(grep -c 'Node count specification invalid' "$PSIPLACE_TESTBED_DIR/log/slurmctld.log")"
if [ "$acct" = 1 ]; then
  echo "# helpers of decision $g1 (sacct): $(sacct -n -X -a --name "psiplace-grow-$a-$g1" -o JobID,State -P 2>/dev/null | paste -sd' ')"
fi

# ------------------------------------------------------------ 2. shrink: daemon killed after the order
touch "$work/hold"
b=$(timeout 20 sbatch --parsable -N2 --exclusive -t 10 -o /dev/null --wrap "sleep 300")
if poll 30 has_order "$a" "shrink;2;"; then ok "rigid B waits: A gets a shrink 2 order"
else not_ok "rigid B waits: A gets a shrink 2 order" "$(order_of "$a")" "$(tail -n 5 "$mdlog")"; fi
s1=$(order_id "$a")
named=$(order_of "$a" | cut -d';' -f5)
pid=$(md_pid)
kill -KILL "$pid"
poll 10 md_dead "$pid" || not_ok "the daemon dies of SIGKILL"
rm -f "$work/hold"
if poll 60 ack_is "$a" "$s1" 'done;2'; then ok "daemon down: A releases $named and acknowledges done at 2"
else not_ok "daemon down: A releases $named and acknowledges done at 2" "$(comment "$a")" "$(cat "$work/a.out")"; fi
"$cluster" restart-malleabled KILL
if poll 20 resumed $((s1 + 1)); then ok "daemon SIGKILLed during the shrink: it resumes at id $((s1 + 1))"
else not_ok "daemon SIGKILLed during the shrink: it resumes at id $((s1 + 1))" "$(tail -n 5 "$mdlog")"; fi
poll 15 logged "job $a: decision $s1 acknowledged done, size 2"
check_match "the daemon reads the acknowledgement written while it was down" \
  "job $a: decision $s1 acknowledged done, size 2 \\(Slurm: 2 nodes\\)" "$(cat "$mdlog")"
poll 60 job_running "$b" || not_ok "B starts within 60 s"
check_eq "B runs on exactly the nodes A released" "$(scontrol show hostnames "$named" | paste -sd,)" \
  "$(scontrol show hostnames "$(node_of "$b")" | paste -sd,)"
nothing_lost "after the shrink" "$a" 2
touch "$work/a.stop"
# (a resize writes a RESIZING record; the last record is the end)
a_ended() { job_done "$a" && case $(jobcomp_state "$a") in ""|RESIZING|PENDING) return 1 ;; esac; }
poll 60 a_ended
check_eq "A ends COMPLETED" COMPLETED "$(jobcomp_state "$a")" "$(cat "$work/a.out")"
check_eq "A's last line: size 2" "end size 2" "$(tail -n 1 "$work/a.out")"
scancel "$b"
settle

# ------------------------------------------------------------ 3. a helper that cannot start
export PSIPLACE_MALL_GROW_WAIT=10
touch "$work/hold"
c=$(submit "$work/c.out" "$work/hold" "$work/c.stop")
poll 60 job_running "$c" || not_ok "job C runs within 60 s"
poll 30 has_order "$c" 'grow;3;' || not_ok "job C gets a grow 3 order" "$(order_of "$c")"
g2=$(order_id "$c")
y=$(rigid 3)
rm -f "$work/hold"
poll 30 helper_pends "$c" || not_ok "C's helper pends" "$(helpers "$c")"
if poll 40 ack_is "$c" "$g2" 'failed;1;.*not_granted_within_10_s.*'; then
  ok "no free node: C gives its helper up after 10 s and acknowledges failed at 1"
else not_ok "no free node: C gives its helper up after 10 s and acknowledges failed at 1" "$(comment "$c")" "$(cat "$work/c.out")"; fi
nothing_lost "after the helper that could not start" "$c" 1

# ------------------------------------------------------------ 4. C ends while its helper pends
touch "$work/hold"
scancel "$y"
new_grow() { has_order "$c" 'grow;' && [ "$(order_id "$c")" -gt "$g2" ]; }
poll 30 new_grow || not_ok "job C gets another grow order once Y is gone" "$(order_of "$c")"
g3=$(order_id "$c")
y=$(rigid 3)
rm -f "$work/hold"
poll 30 helper_pends "$c" || not_ok "C's helper of decision $g3 pends" "$(helpers "$c")"
scancel "$c"
if poll 20 no_helpers "$c"; then ok "C cancelled while its helper pends: no helper of C is left"
else not_ok "C cancelled while its helper pends: no helper of C is left" "$(helpers "$c")"; fi
poll 20 no_sallocs "$c"
check_eq "C cancelled while its helper pends: no salloc of C is left" "" "$(job_sallocs "$c")"
poll 15 logged "job $c: ended with decision $g3 outstanding"
check_match "the daemon drops decision $g3" "job $c: ended with decision $g3 outstanding" "$(cat "$mdlog")"
check_eq "the rigid job Y runs on" RUNNING "$(job_state "$y")"
check_eq "no node held by two jobs" "" "$(shared_nodes)"
scancel "$y"

# ------------------------------------------------------------ 5. a shrink refused: the back-off
unset PSIPLACE_MALL_GROW_WAIT
settle
touch "$work/refuse"
d=$(submit "$work/d.out" "$work/hold" "$work/d.stop" "$work/refuse")
poll 60 job_running "$d" || not_ok "job D runs within 60 s"
if poll 60 ack_is "$d" '[0-9]+' 'done;4'; then ok "job D grows to 4 on the idle cluster"
else not_ok "job D grows to 4 on the idle cluster" "$(comment "$d")" "$(cat "$work/d.out")"; fi
mdlines_before_e=$(wc -l <"$mdlog")
e=$(timeout 20 sbatch --parsable -N2 --exclusive -t 10 -o /dev/null --wrap "sleep 300")
poll 30 has_order "$d" 'shrink;2;' || not_ok "rigid E waits: D gets a shrink 2 order" "$(order_of "$d")"
s2=$(order_id "$d")
if poll 30 ack_is "$d" "$s2" 'failed;4;refused_by_the_test'; then ok "D refuses shrink $s2 (acknowledged failed at 4)"
else not_ok "D refuses shrink $s2 (acknowledged failed at 4)" "$(comment "$d")" "$(cat "$work/d.out")"; fi
rm -f "$work/refuse"
poll 15 logged "job $d: shrink refused 1 time in a row: no shrink order for 10 s"
check_match "the daemon backs off" "job $d: shrink refused 1 time in a row: no shrink order for 10 s" "$(cat "$mdlog")"
again() { has_order "$d" 'shrink;2;' && [ "$(order_id "$d")" -gt "$s2" ]; }
poll 30 again || not_ok "D gets the next shrink order after the back-off" "$(order_of "$d")" "$(tail -n 5 "$mdlog")"
s3=$(order_id "$d")
stamp() { date -ud "$(grep -E "$1" "$mdlog" | tail -n 1 | awk '{print $1}')" +%s 2>/dev/null; }
t_ack=$(stamp "job $d: decision $s2 acknowledged failed")
t_next=$(stamp "job $d: shrink 2 .*, decision $(order_id "$d")\$")
# the log's stamps are whole seconds and taken after the cycle's start: 9 at the least
check_eq "no shrink order for 10 s after the refusal (ack read at $t_ack, next order at $t_next)" yes \
  "$( [ -n "$t_ack" ] && [ -n "$t_next" ] && [ $((t_next - t_ack)) -ge 9 ] && echo yes)"
poll 60 job_running "$e" || not_ok "E starts within 60 s"
# Between the shrink's acknowledgement and E's start the released nodes are
# idle and backfill's plan for E may still be D's nodes at D's end: the
# daemon holds them for E (MalleableMinInterval=0 here would otherwise let it
# order D back into them at once; doc/malleability.md, "Holds").
poll 15 logged "job $e: hold of [^ ]+ ended: " || true
since_e=$(tail -n +"$((mdlines_before_e + 1))" "$mdlog")
check_match "D's released nodes are held for E once shrink $s3 is acknowledged done" \
  "job $e: holding [^ ]+ \(released by job $d, decision $s3\) until it starts" "$since_e"
check_match "the hold ends when E starts (not at its deadline)" "job $e: hold of [^ ]+ ended: it started" "$since_e"
released=$(sed -n "s/.*job $e: holding \([^ ]*\) (released by job $d, decision $s3).*/\1/p" <<<"$since_e" | tail -n 1)
e_nodes=$(scontrol show hostnames "$(node_of "$e")" 2>/dev/null | paste -sd,)
check_eq "E runs on exactly the nodes released for it" "$(scontrol show hostnames "$released" 2>/dev/null | paste -sd,)" "$e_nodes"
check_eq "no grow order from E's submission until it started" "" \
  "$(sed -n "/job $e: hold of [^ ]* ended: it started/q; /job [0-9]*: grow [0-9]/p" <<<"$since_e")"
nothing_lost "after the shrink carried out after the back-off" "$d" 2
touch "$work/d.stop"
scancel "$e"
grow_jobs() { squeue -h -o %j | grep '^psiplace-grow-' | paste -sd' '; }
poll 30 eval '[ -z "$(grow_jobs)" ]'
check_eq "no psiplace-grow-* job left at all" "" "$(squeue -h -o %j | grep '^psiplace-grow-' | paste -sd' ')"
check_eq "no decision id was given twice" "" \
  "$(grep -o 'decision [0-9]*$' "$mdlog" | sort | uniq -d | paste -sd' ')"
tb_finish
