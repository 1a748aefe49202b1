#!/usr/bin/env bash
# A script that started a testbed and is ended by SIGTERM (meson's timeout,
# CI's end) or SIGINT stops every daemon it started (TAP output): a child
# sources lib.sh, starts the testbed and blocks; the signal goes to the
# child's PID only; afterwards no PID the testbed recorded is alive.
source "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
child=$work/child.sh
cat >"$child" <<CHILD
source "$src_dir/tests/integration/lib.sh"
tb_start >/dev/null 2>&1
touch "$work/started"
mkfifo "$work/fifo"; exec 3<>"$work/fifo"
read -r -u 3 _   # blocks until the signal; never written
CHILD
recorded() { cat "$PSIPLACE_TESTBED_DIR"/pids/* 2>/dev/null; }
alive_of() { local p n=0; for p in $1; do kill -0 "$p" 2>/dev/null && n=$((n + 1)); done; echo "$n"; }
# job control: a background child of a script otherwise starts with SIGINT
# ignored, which it cannot trap
set -m
for sig in TERM INT; do
  rm -f "$work/started" "$work/fifo"
  bash "$child" & pid=$!
  started() { [ -e "$work/started" ] || ! kill -0 "$pid" 2>/dev/null; }
  poll 120 started
  pids=$(recorded)
  check_match "SIG$sig: the child's testbed runs (daemons recorded)" '[0-9]' "$pids"
  kill -"$sig" "$pid"
  gone() { ! kill -0 "$pid" 2>/dev/null; }
  poll 60 gone
  check_eq "SIG$sig: the child ended" 0 "$(alive_of "$pid")"
  none_alive() { [ "$(alive_of "$pids")" -eq 0 ]; }
  poll 30 none_alive
  check_eq "SIG$sig: none of its $(echo $pids | wc -w) recorded daemons is left" 0 "$(alive_of "$pids")"
  wait "$pid" 2>/dev/null
done
tb_finish
