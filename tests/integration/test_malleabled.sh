#!/usr/bin/env bash
# psiplace-malleabled on the testbed (PSIPLACE_MALLEABLED=1: job_submit/psiplace,
# permit_job_expansion, the daemon every second, MalleableMinInterval=0,
# MalleableAckTimeout=15): the range job_submit/psiplace writes into
# AdminComment at submission; a job with --psi-malleable=1-4 on an idle
# cluster gets a grow order in its AdminComment; a second local user cannot
# write the first user's Comment or AdminComment (nor the first its own
# AdminComment); an acknowledgement by the job's user in Comment clears the
# order; an order not acknowledged is withdrawn at its deadline and the
# pending grow helper psiplace-grow-J-ID cancelled; the daemon SIGKILLed and
# started again resumes without giving an id twice; a rigid job that cannot
# start makes a shrink order naming exactly the nodes its policy (its
# partition's LASTAVAILABLE from psiplace.conf, over the plugstack line's
# FIRSTAVAILABLE) takes from the malleable job holding them; --once with a
# fresh state file adopts that order; a waiting job with its own
# --psi-alloc-policy=FASTEST (in its AdminComment, written by
# job_submit/psiplace) makes a shrink order naming the node FASTEST picks
# (n3, not the partition's n4) and starts there once it is released;
# with slurmctld stopped the daemon logs and goes on, and serves the next
# job once slurmctld is back, growing it by its own FIRSTAVAILABLE (n2) with
# its policy part kept in the order; SIGTERM ends it cleanly.
# The jobs run as two local users the test creates (useradd) and removes.
# 24.11/26.05's clients live under root's home (~/.cache/psiplace): while the
# test runs, that home is made traversable (o+x, no listing) for the users
# and its mode restored at the end.
source "$(dirname "$0")/lib.sh"

# The cluster's policy (plugstack line) is FIRSTAVAILABLE, the partition's
# (psiplace.conf's PartitionName=debug, every job's here) LASTAVAILABLE: the
# select plugin and the daemon both take the partition's.
export PSIPLACE_MALLEABLED=1 PSIPLACE_MALLEABLED_ARGS="--interval 1" PSIPLACE_POLICY=FIRSTAVAILABLE
export PSIPLACE_PSICONF_EXTRA=$'MalleableMinInterval=0\nMalleableAckTimeout=15\nPartitionName=debug NodeAllocationPolicy=LASTAVAILABLE'
u1=psimd1$PSIPLACE_INSTANCE u2=psimd2$PSIPLACE_INSTANCE
cleanup() {
  scancel -u "$u1" 2>/dev/null; scancel -u "$u2" 2>/dev/null
  "$cluster" stop >/dev/null 2>&1
  userdel "$u1" 2>/dev/null; userdel "$u2" 2>/dev/null
  restore_opened
}
for u in "$u1" "$u2"; do
  id "$u" >/dev/null 2>&1 || useradd -M -s /bin/bash "$u" || { echo "Bail out! useradd $u failed"; exit 1; }
done
"$cluster" start || { echo "Bail out! testbed did not start"; cleanup; exit 1; }
trap cleanup EXIT
open_for_users
mdlog=$PSIPLACE_TESTBED_DIR/log/malleabled.out
as() { local u=$1; shift; timeout 30 runuser -u "$u" -- env PATH="$PATH" SLURM_CONF="$SLURM_CONF" "$@"; }
# submit USER ARGS...: the job id, or the suite bails out (every later check needs it)
submit() {
  local u=$1 id; shift
  id=$(as "$u" sbatch --parsable "$@" 2>&1) && [[ $id =~ ^[0-9]+$ ]] && { echo "$id"; return; }
  echo "Bail out! sbatch as $u failed: $id" >&2; kill -TERM $$
}
field() { scontrol show job "$1" 2>/dev/null | sed -n "s/^ *$2=\\(.*[^ ]\\) *\$/\\1/p"; }
order_of() { field "$1" AdminComment; }
has_order() { [[ $(order_of "$1") =~ ^psiplace-resize=([0-9]+)\;$2 ]]; }
order_id() { order_of "$1" | sed -n 's/^psiplace-resize=\([0-9]*\);.*/\1/p'; }
is_range() { [ "$(order_of "$1")" = "psiplace-malleable=$2" ]; }
ids_logged() { grep -o 'decision [0-9]*$' "$mdlog" | awk '{print $2}'; }

check_eq "psiplace-malleabled runs (pids/malleabled)" yes \
  "$(kill -0 "$(cat "$PSIPLACE_TESTBED_DIR/pids/malleabled")" 2>/dev/null && echo yes)"
check_match "slurmctld runs job_submit/psiplace with permit_job_expansion" \
  "JobSubmitPlugins *= psiplace.*SchedulerParameters *= permit_job_expansion" \
  "$(scontrol show config | grep -E '^(JobSubmitPlugins|SchedulerParameters) ' | paste -sd' ')"

# ------------------------------------------------------------ the range at submission
h=$(submit "$u1" --hold -N1 --psi-malleable=1-4 -o /dev/null --wrap true)
check_eq "job_submit/psiplace: the range in AdminComment of a held job" "psiplace-malleable=1-4" \
  "$(order_of "$h")"
out=$(as "$u1" scontrol update JobId="$h" AdminComment=psiplace-malleable=1-64 2>&1)
check_eq "the job's user cannot change its range (AdminComment)" "psiplace-malleable=1-4" \
  "$(order_of "$h")" "$out"
if sbatch --help 2>&1 | grep -q -- --admin-comment; then
  out=$(as "$u1" sbatch --parsable --hold -N1 --admin-comment=psiplace-malleable=1-64 -o /dev/null --wrap true 2>&1)
  check_match "a user cannot submit with an AdminComment" "denied|Access" "$out"
else
  skip "a user cannot submit with an AdminComment" "sbatch $PSIPLACE_SLURM has no --admin-comment"
fi
scancel "$h"
r=$(submit "$u1" --hold -N1 -o /dev/null --wrap true)
check_eq "a job without --psi-malleable has no AdminComment" "" "$(order_of "$r")"
scancel "$r"

# ------------------------------------------------------------ grow on an idle cluster
a=$(submit "$u1" -N1 --exclusive --psi-malleable=1-4 -o /dev/null --wrap "sleep 600")
if poll 60 has_order "$a" 'grow;3;[0-9]+$'; then ok "idle cluster: job $a gets a grow 3 order in its AdminComment"
else not_ok "idle cluster: job $a gets a grow 3 order in its AdminComment" "$(order_of "$a")" "$(tail -5 "$mdlog")"; fi
id1=$(order_id "$a")
check_match "the daemon logged the decision with the nodes it chose" \
  "job $a: grow 3 \\([^)]*\\), decision $id1\$" "$(grep "job $a: grow" "$mdlog")"

# ------------------------------------------------------------ another user
comment_before=$(field "$a" Comment)
out=$(as "$u2" scontrol update JobId="$a" Comment="psiplace-ack=$id1;done;4" 2>&1)
check_eq "user $u2 cannot write $u1's Comment (no forged acknowledgement)" "$comment_before" \
  "$(field "$a" Comment)" "$out"
out=$(as "$u2" scontrol update JobId="$a" AdminComment="psiplace-resize=999;shrink;1;1;n1;1" 2>&1)
check_eq "user $u2 cannot write $u1's AdminComment (no forged order)" "$id1" "$(order_id "$a")" "$out"
out=$(as "$u1" scontrol update JobId="$a" AdminComment="psiplace-resize=999;grow;1;1" 2>&1)
check_eq "user $u1 cannot write its own job's AdminComment" "$id1" "$(order_id "$a")" "$out"

# ------------------------------------------------------------ acknowledgement
out=$(as "$u1" scontrol update JobId="$a" Comment="psiplace-ack=$id1;failed;1;no helper in this test" 2>&1)
acked() { is_range "$1" 1-4 || { [ -n "$(order_id "$1")" ] && [ "$(order_id "$1")" != "$2" ]; }; }
if poll 20 acked "$a" "$id1"; then ok "the user's acknowledgement clears decision $id1"
else not_ok "the user's acknowledgement clears decision $id1" "$(order_of "$a")" "$out"; fi
check_match "the daemon logged the acknowledgement" \
  "job $a: decision $id1 acknowledged failed, size 1 \\(Slurm: 1 nodes\\): no helper in this test" \
  "$(cat "$mdlog")"

# ------------------------------------------------------------ withdrawal at the deadline
# MalleableMinInterval=0: the next grow order follows; it is not acknowledged
new_order() { has_order "$1" 'grow' && [ "$(order_id "$1")" -gt "$2" ]; }
poll 20 new_order "$a" "$id1" || echo "Bail out! no second order for job $a"
id2=$(order_id "$a")
deadline=$(order_of "$a" | awk -F';' '{print $4}')
helper=$(submit "$u1" --hold -N1 -J "psiplace-grow-$a-$id2" -o /dev/null --wrap true)
withdrawn() { grep -q "job $a: decision $id2 withdrawn (not acknowledged by its deadline)" "$mdlog"; }
if poll 40 withdrawn; then ok "decision $id2 withdrawn after its deadline"
else not_ok "decision $id2 withdrawn after its deadline" "$(order_of "$a")" "$(tail -5 "$mdlog")"; fi
# the withdrawal's log line is stamped to the second: strictly after DEADLINE
wtime=$(date -ud "$(grep "job $a: decision $id2 withdrawn" "$mdlog" | awk '{print $1}')" +%s 2>/dev/null)
check_eq "withdrawn after its deadline $deadline, not before (at $wtime)" yes \
  "$( [ -n "$wtime" ] && [ "$wtime" -gt "$deadline" ] && echo yes)"
poll 10 job_done "$helper"
check_eq "the pending helper psiplace-grow-$a-$id2 is cancelled" CANCELLED "$(job_state "$helper")"
check_match "the daemon logged the cancellation" "cancelling its grow helper $helper \\(psiplace-grow-$a-$id2\\)" \
  "$(cat "$mdlog")"

# ------------------------------------------------------------ SIGKILL and restart
poll 20 new_order "$a" "$id2"
id3=$(order_id "$a")
"$cluster" restart-malleabled KILL
resumed() { grep -q "resumed from .*: next decision id $((id3 + 1))," "$mdlog"; }
if poll 20 resumed; then ok "after SIGKILL the daemon resumes from its state file (next id $((id3 + 1)))"
else not_ok "after SIGKILL the daemon resumes from its state file (next id $((id3 + 1)))" "$(tail -5 "$mdlog")"; fi
check_eq "the outstanding decision $id3 is kept" "$id3" "$(order_id "$a")"
as "$u1" scontrol update JobId="$a" Comment="psiplace-ack=$id3;failed;1;restart test" >/dev/null 2>&1
poll 20 new_order "$a" "$id3"
id4=$(order_id "$a")
check_eq "the next decision has a new id" yes "$( [ -n "$id4" ] && [ "$id4" -gt "$id3" ] && echo yes)"
check_eq "no decision id was given twice" "" "$(ids_logged | sort | uniq -d | paste -sd' ')"
scancel "$a"

# ------------------------------------------------------------ shrink for a rigid job
settle
b=$(submit "$u1" -N4 --exclusive --psi-malleable=1-4 -o /dev/null --wrap "sleep 600")
poll 30 job_running "$b"
check_eq "job $b holds every node" "n[1-4]" "$(node_of "$b")"
c=$(submit "$u2" -N2 --exclusive -o /dev/null --wrap "sleep 5")
if poll 30 has_order "$b" 'shrink'; then ok "a rigid job that cannot start makes a shrink order for job $b"
else not_ok "a rigid job that cannot start makes a shrink order for job $b" "$(order_of "$b")" "$(tail -5 "$mdlog")"; fi
# debug's LASTAVAILABLE takes the last nodes (the plugstack line's FIRSTAVAILABLE
# would take n2,n3); n1, the batch host, is never released
check_match "the order names exactly n3,n4, for job $c" "^psiplace-resize=[0-9]+;shrink;2;[0-9]+;n3,n4;$c\$" \
  "$(order_of "$b")"
check_eq "job $c still waits (the order is the job's to carry out)" PENDING "$(job_state "$c")"
# --once with a state file of its own (a daemon that lost its state): finds the order in
# AdminComment and adopts it; the range is not known without the state file, so the job gets
# no new decision; nothing is written
sid=$(order_id "$b")
once=$(timeout 60 "$PSIPLACE_BUILD_DIR/cli/malleabled/psiplace-malleabled" --once \
  --state "$PSIPLACE_TESTBED_DIR/tmp/once.state" 2>&1)
check_match "--once without state adopts decision $sid" \
  "job $b: adopting decision $sid found in its AdminComment" "$once"
check_eq "--once without state gives job $b no new decision" "" \
  "$(grep -E "job $b: (grow|shrink)" <<<"$once")"
check_eq "--once saved the adopted order and an id counter past it" \
  "next_id $((sid + 1))|job $b 0 0 0 $(order_of "$b")" \
  "$(sed -n '2p;/^job /p' "$PSIPLACE_TESTBED_DIR/tmp/once.state" | paste -sd'|')"
check_eq "--once left the order as it was" "$sid" "$(order_id "$b")"
scancel "$b" "$c"

# ------------------------------------------------------------ the waiting job's own policy
# debug's LASTAVAILABLE would have job $b give n4; a waiting job with
# --psi-alloc-policy=FASTEST gets n3 (psiplace.conf: Speed 3.0, the fastest
# node job $b may release; n1, its batch host, never).
settle
b=$(submit "$u1" -N4 --exclusive --psi-malleable=1-4 -o /dev/null --wrap "sleep 600")
poll 30 job_running "$b"
c=$(submit "$u2" -N1 --exclusive --psi-alloc-policy=FASTEST -o /dev/null --wrap "sleep 5")
check_eq "job_submit/psiplace: the waiting job's own policy in its AdminComment" \
  "psiplace-policy=FASTEST" "$(order_of "$c")"
if poll 30 has_order "$b" 'shrink'; then ok "job $c (FASTEST) waiting makes a shrink order for job $b"
else not_ok "job $c (FASTEST) waiting makes a shrink order for job $b" "$(order_of "$b")" "$(tail -5 "$mdlog")"; fi
check_match "the order names n3, the node of job $c's own policy (its partition's would be n4)" \
  "^psiplace-resize=[0-9]+;shrink;1;[0-9]+;n3;$c\$" "$(order_of "$b")"
# job $b releasing what the order names (as the job would): job $c starts on it
scontrol update JobId="$b" NodeList=n1,n2,n4 >/dev/null 2>&1
if poll 30 job_running "$c"; then ok "job $c starts once n3 is released"
else not_ok "job $c starts once n3 is released" "$(job_state "$c")" "$(node_of "$b")"; fi
check_eq "job $c runs on n3" n3 "$(node_of "$c")"
scancel "$b" "$c"

# ------------------------------------------------------------ slurmctld away, SIGTERM
"$cluster" stop-ctld
away() { grep -q "slurmctld: .*(next cycle in 1 s)" "$mdlog"; }
if poll 30 away; then ok "slurmctld stopped: the daemon logs it and goes on"
else not_ok "slurmctld stopped: the daemon logs it and goes on" "$(tail -3 "$mdlog")"; fi
check_eq "the daemon still runs without slurmctld" yes \
  "$(kill -0 "$(cat "$PSIPLACE_TESTBED_DIR/pids/malleabled")" 2>/dev/null && echo yes)"
"$cluster" start-ctld
# jobs $b and $c were cancelled just before slurmctld went away, and it
# recovers them as completing: n1 and n2 must be idle again (no +COMPLETING),
# or job $d lands on, or grows into, whichever node is (n3 on 24.11, and a
# grow into n3 on 22.05, in two CI runs where settle alone ran too early)
idle_exactly() { local n; for n in "$@"; do scontrol -o show node "$n" 2>/dev/null | grep -q ' State=IDLE ' || return 1; done; }
settle
poll 60 idle_exactly n1 n2 || echo "# n1, n2 not idle after 60 s: $(sinfo -h -N -o '%N %T' | paste -sd' ')" >&2
d=$(submit "$u1" -N1 --exclusive --psi-malleable=1-2 --psi-alloc-policy=FIRSTAVAILABLE -o /dev/null \
  --wrap "sleep 600")
if poll 60 has_order "$d" 'grow;1;'; then ok "slurmctld back: the next job gets its order"
else not_ok "slurmctld back: the next job gets its order" "$(order_of "$d")" "$(tail -3 "$mdlog")"; fi
# its own FIRSTAVAILABLE: it runs on n1 and grows into n2 (its partition's
# LASTAVAILABLE would take n4); the order keeps its policy part
check_match "job $d (FIRSTAVAILABLE) on n1 grows into n2" "^n1 .*job $d: grow 1 \\(n2\\), decision [0-9]+\$" \
  "$(node_of "$d") $(grep "job $d: grow" "$mdlog" | head -n 1)"
check_match "the order keeps the job's policy part" \
  "^psiplace-resize=[0-9]+;grow;1;[0-9]+ psiplace-policy=FIRSTAVAILABLE\$" "$(order_of "$d")"
scancel "$d"
"$cluster" restart-malleabled TERM
check_match "SIGTERM ends the daemon cleanly" "psiplace-malleabled: stopped\$" \
  "$(grep -v resumed "$mdlog" | grep -E 'stopped|started' | tail -2 | head -1)"

tb_finish
