#!/usr/bin/env bash
# A test that started a testbed and is ended as meson ends a test at its
# timeout -- SIGTERM (or SIGINT) to its process group, then SIGKILL to the
# group 0.5 s later while its EXIT trap still runs cluster.sh stop -- leaves
# no daemon behind (TAP output): a child sources lib.sh, starts the
# testbed, starts a batch job and blocks; afterwards no PID the testbed
# recorded is alive, and neither the job's slurmstepd nor its processes
# (cluster.sh guard: a guardian in a session of its own ends the daemons
# when the test has ended, however it ended, then the instance's jobs).
source "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
child=$work/child.sh
cat >"$child" <<CHILD
source "$src_dir/tests/integration/lib.sh"
tb_start >/dev/null 2>&1
sbatch -o /dev/null --wrap 'timeout 300 sleep 304' >/dev/null
job_up() { [ -n "\$(stepds)" ] && pgrep -fx 'sleep 304' >/dev/null; }
poll 60 job_up
touch "$work/started"
mkfifo "$work/fifo"
# blocks in a foreground command that takes 2 s to end on a signal (as srun
# cancelling its step does), so the child's EXIT trap starts too late
bash -c 'trap "sleep 2; exit 143" TERM INT; read -r -u 3 _' 3<>"$work/fifo"
CHILD
recorded() { cat "$PSIPLACE_TESTBED_DIR"/pids/* 2>/dev/null; }
# the job's processes: 'sleep 304' whose environment names this testbed
job_pids() {
  local p
  for p in $(pgrep -fx 'sleep 304'); do
    tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qxF "SLURM_CONF=$SLURM_CONF" && echo "$p"
  done
}
alive_of() { local p n=0; for p in $1; do kill -0 "$p" 2>/dev/null && n=$((n + 1)); done; echo "$n"; }
# job control: the child gets a process group of its own, as meson gives a
# test (and a background child would otherwise start with SIGINT ignored)
set -m
for sig in TERM INT; do
  rm -f "$work/started" "$work/fifo"
  bash "$child" & pid=$!
  started() { [ -e "$work/started" ] || ! kill -0 "$pid" 2>/dev/null; }
  poll 120 started
  pids=$(recorded)
  check_match "SIG$sig: the child's testbed runs (daemons recorded)" '[0-9]' "$pids"
  check_eq "SIG$sig: the child's job runs (its slurmstepd and process)" "1 1" \
    "$(stepds | wc -l) $(job_pids | wc -l)"
  kill -"$sig" -- -"$pid"
  gone() { ! kill -0 "$pid" 2>/dev/null; }
  # meson's grace: 0.5 s for the test itself to end, then SIGKILL to the group
  for _ in 1 2 3 4 5; do gone && break; sleep 0.1; done
  gone || kill -KILL -- -"$pid" 2>/dev/null
  poll 10 gone
  check_eq "SIG$sig: the child ended (killed at meson's grace)" 0 "$(alive_of "$pid")"
  none_alive() { [ "$(alive_of "$pids")" -eq 0 ]; }
  poll 30 none_alive
  check_eq "SIG$sig: none of its $(echo $pids | wc -w) recorded daemons is left" 0 "$(alive_of "$pids")"
  job_gone() { [ -z "$(stepds)$(job_pids)" ]; }
  poll 30 job_gone
  check_eq "SIG$sig: neither its job's slurmstepd nor its process is left" "" "$(stepds)$(job_pids)"
  wait "$pid" 2>/dev/null
done
tb_finish
