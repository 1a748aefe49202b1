#!/usr/bin/env bash
# Slurm's own test suite (the release's testsuite/expect and testsuite/python)
# against the testbed, once with select/cons_tres and once with
# select/psiplace_cons_tres and a cluster policy, compared per test.
#
#   slurm-testsuite.sh run LIST [OUT]   run the tests of LIST in both configurations,
#                                       re-run each difference once in both, then compare
#   slurm-testsuite.sh compare [OUT]    print the per-test table and a summary; exit 1 when a
#                                       test passes (or skips) with cons_tres and fails with
#                                       psiplace, also on the re-run, and is not an expected
#                                       difference
#   slurm-testsuite.sh candidates       print every test of test1/7/17/28/39 and the python
#                                       suite this testbed can run (the full comparison's list)
#
# LIST: one test a line, "expect/test17.63" or "python/tests/.../test_x.py"; # starts a comment.
# Tests decide "is this cons_tres?" by string equality on SelectType: a working copy
# of the suite under the instance's directory is patched so that the wrapper counts
# as cons_tres there; Slurm itself is not changed.
# Settings (environment):
#   PSIPLACE_INSTANCE        testbed instance (as for cluster.sh)
#   PSIPLACE_SUITE_TIMEOUT   seconds per test (default 120)
#   PSIPLACE_SUITE_POLICY    the psiplace run's NodeAllocationPolicy (default LASTAVAILABLE)
#   PSIPLACE_SUITE_EXPECTED  expected differences (default tests/slurmsuite/expected-differences)
#   PSIPLACE_SUITE_OUT       result directory (default <repo>/build/slurmsuite)
set -uo pipefail
# the daemons of every testbed started below end after this script, however
# it ends (contrib/testbed/cluster.sh guard)
export PSIPLACE_STOP_WITH=${PSIPLACE_STOP_WITH:-$$}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cluster=$here/cluster.sh
instance=${PSIPLACE_INSTANCE:-0}
dir=${PSIPLACE_TESTBED_ROOT:-/tmp/psiplace-testbed}-$instance
work=$dir/slurm-testsuite
per_test=${PSIPLACE_SUITE_TIMEOUT:-120}
policy=${PSIPLACE_SUITE_POLICY:-LASTAVAILABLE}
expected=${PSIPLACE_SUITE_EXPECTED:-$repo/tests/slurmsuite/expected-differences}
configs=(cons_tres psiplace)
# Debian's pytest belongs to the system interpreter (a pyenv one may come first in PATH).
py=/usr/bin/python3; [ -x "$py" ] || py=python3

log() { echo "slurm-testsuite[$instance]: $*" >&2; }
die() { log "error: $*"; exit 2; }

# Tests left out of the full comparison, by what their text shows.  Each
# pattern names why: the testbed is shared (no killing by name), has no
# slurmdbd and no second user, and its slurm.conf is not the tests' to edit.
exclusions=(
  'pkill|killall|kill_salloc|kill_srun:kills processes by name (other testbeds run on this machine)'
  'reconfigure|save_conf|restore_conf|update_conf|backup_file|restore_file:changes slurm.conf or reconfigures'
  'slurmdbd|sacctmgr|sacct|globals_accounting|check_accounting|sreport|sshare:needs slurmdbd'
  'testsuite_user|sudo|get_my_uid.*== 0:needs another user'
  'globals_federation|federation:needs a federation'
  'slurmctld -|scontrol shutdown|restart_slurm|start_slurm|stop_slurm:restarts daemons'
)

src_tree() {
  local s
  s=$(PSIPLACE_INSTANCE=$instance "$cluster" slurm-src) || die "no Slurm source tree (cluster.sh slurm-src)"
  [ -d "$s/testsuite/expect" ] || die "$s has no testsuite/expect"
  echo "$s"
}

cmd_candidates() {
  local src t why pat reason
  src=$(src_tree)
  ( cd "$src/testsuite/expect" && ls ) | grep -E '^test(1|7|17|28|39)\.[0-9]+$' | sort -V | while read -r t; do
    why=""
    for e in "${exclusions[@]}"; do
      pat=${e%%:*} reason=${e#*:}
      if grep -qE "$pat" "$src/testsuite/expect/$t"; then why=$reason; break; fi
    done
    if [ -n "$why" ]; then echo "# expect/$t: $why"; else echo "expect/$t"; fi
  done
  ( cd "$src/testsuite/python" && find tests -name 'test_*.py' ) | sort | while read -r t; do
    why=""
    for e in "${exclusions[@]}" \
        'require_auto_config|set_config_parameter|require_accounting|set_node_parameter:changes slurm.conf (local-config mode skips it)'; do
      pat=${e%%:*} reason=${e#*:}
      if grep -qE "$pat" "$src/testsuite/python/$t"; then why=$reason; break; fi
    done
    if [ -n "$why" ]; then echo "# python/$t: $why"; else echo "python/$t"; fi
  done
}

# The working copy: Slurm's suite copied beside the testbed, pointed at it,
# and patched so that select/psiplace_cons_tres counts as cons_tres.
prepare_copy() {
  local src; src=$(src_tree)
  rm -rf "$work"; mkdir -p "$work"
  cp -r "$src/testsuite/expect" "$src/testsuite/python" "$work/"
  cat >"$work/testsuite.conf" <<CONF
SlurmSourceDir=$src
SlurmBuildDir=$src
SlurmInstallDir=/usr
SlurmConfigDir=$dir/etc
CONF
  cat >"$work/expect/globals.local" <<TCL
set slurm_dir "/usr"
set build_dir "$src"
set src_dir "$src"
set testsuite_colorize false
set testsuite_shared_dir "$work/shared"
TCL
  mkdir -p "$work/shared"
  # expect: check_config_select compares "select/\$type" with SelectType.
  python3 - "$work/expect/globals" "$work/python/lib/atf.py" <<'PY' || die "patching the working copy failed"
import sys
g, a = sys.argv[1], sys.argv[2]
s = open(g).read()
old = '\tif {$select_type eq "select/$type"} {\n\t\treturn true\n\t}\n'
new = old + '\t# psiplace: the wrapper of cons_tres counts as cons_tres (working copy only)\n' \
      '\tif {$type eq "cons_tres" && $select_type eq "select/psiplace_cons_tres"} {\n\t\treturn true\n\t}\n'
assert s.count(old) == 1, "check_config_select not found in globals"
open(g, 'w').write(s.replace(old, new))
s = open(a).read()
old = "    observed_value = get_config_parameter(parameter_name, live=False, source=source, quiet=True)\n"
new = old + "    # psiplace: the wrapper of cons_tres counts as cons_tres (working copy only)\n" \
      "    if parameter_name == 'SelectType' and observed_value == 'select/psiplace_cons_tres':\n" \
      "        observed_value = 'select/cons_tres'\n"
assert s.count(old) == 1, "require_config_parameter not found in atf.py"
open(a, 'w').write(s.replace(old, new))
PY
}

start_config() { # CONFIG
  PSIPLACE_INSTANCE=$instance "$cluster" stop >/dev/null 2>&1 || true
  case $1 in
    cons_tres) PSIPLACE_INSTANCE=$instance PSIPLACE_SELECT=select/cons_tres PSIPLACE_POLICY=none "$cluster" start ;;
    psiplace) PSIPLACE_INSTANCE=$instance PSIPLACE_SELECT=select/psiplace_cons_tres PSIPLACE_POLICY=$policy "$cluster" start ;;
  esac
}

# Between tests: no job of the test may stay, and every node must be idle
# again; a testbed that does not get there is started afresh.
settle() { # CONFIG
  scancel --user="$(id -un)" >/dev/null 2>&1 || true
  local deadline=$((SECONDS + 30)) busy down
  while :; do
    busy=$(squeue -h -o %i 2>/dev/null | wc -l)
    down=$(sinfo -h -N -p debug -o '%N %t' 2>/dev/null | awk '$2 != "idle"' | sort -u | wc -l)
    [ "$busy" -eq 0 ] && [ "$down" -eq 0 ] && scontrol ping 2>/dev/null | grep -q UP && return 0
    [ $SECONDS -lt $deadline ] || break
    sleep 0.5
  done
  log "testbed not idle after a test ($busy jobs, $down nodes not idle): starting it afresh"
  start_config "$1" >/dev/null 2>&1 || die "the testbed did not start again"
}

# Run one test; print "pass", "fail", "skip" or "timeout".
run_one() { # TEST LOGFILE
  local t=$1 logf=$2 rc
  case $t in
    expect/*)
      ( cd "$work/expect" && exec timeout -k 10 "$per_test" expect -f "./${t#expect/}" ) >"$logf" 2>&1 </dev/null
      rc=$?
      case $rc in 0) echo pass ;; 255) echo skip ;; 124|137) echo timeout ;; *) echo fail ;; esac ;;
    python/*)
      ( cd "$work/python" && exec timeout -k 10 "$per_test" "$py" -m pytest -p no:cacheprovider \
          -rs --junitxml="$logf.xml" "${t#python/}" ) >"$logf" 2>&1 </dev/null
      rc=$?
      if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then echo timeout
      elif [ $rc -ne 0 ]; then echo fail
      elif grep -qE '<testsuite [^>]*tests="([0-9]+)"[^>]*' "$logf.xml" && \
           python3 - "$logf.xml" <<'PY'; then echo skip; else echo pass; fi
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
s = r if r.tag == 'testsuite' else r.find('testsuite')
sys.exit(0 if int(s.get('tests', 0)) == int(s.get('skipped', 0)) else 1)
PY
      ;;
    *) echo fail; echo "unknown test kind: $t" >"$logf" ;;
  esac
}

run_list() { # CONFIG TSV TESTS...
  local config=$1 tsv=$2; shift 2
  local n=0 total=$# t res t0 start=$SECONDS
  mkdir -p "$out/logs/$config"
  start_config "$config" >"$out/logs/$config/start.log" 2>&1 \
    || { cat "$out/logs/$config/start.log" >&2; die "the $config testbed did not start"; }
  eval "$(PSIPLACE_INSTANCE=$instance "$cluster" env)"
  : >"$tsv"
  for t in "$@"; do
    n=$((n + 1)); t0=$SECONDS
    res=$(run_one "$t" "$out/logs/$config/$(echo "$t" | tr / _).log")
    printf '%s\t%s\t%s\n' "$t" "$res" "$((SECONDS - t0))" >>"$tsv"
    log "$config [$n/$total] $t: $res ($((SECONDS - t0)) s)"
    settle "$config"
  done
  echo "$((SECONDS - start))" >"$tsv.seconds"
}

read_list() { grep -vE '^[[:space:]]*(#|$)' "$1" | awk '{print $1}'; }

cmd_run() {
  local list=${1:-} tests differ=()
  [ -n "$list" ] && [ -f "$list" ] || die "run: give a list file (e.g. tests/slurmsuite/ci.list)"
  command -v expect >/dev/null || die "expect is not installed (cluster.sh deps)"
  "$py" -c 'import pytest, pexpect' 2>/dev/null || die "python3-pytest or python3-pexpect is not installed (cluster.sh deps)"
  out=${2:-${PSIPLACE_SUITE_OUT:-$repo/build/slurmsuite}}
  mkdir -p "$out"; out=$(cd "$out" && pwd)
  rm -f "$out"/*.tsv "$out"/*.seconds; rm -rf "$out/logs"
  mapfile -t tests < <(read_list "$list")
  [ ${#tests[@]} -gt 0 ] || die "$list names no test"
  prepare_copy
  trap 'PSIPLACE_INSTANCE=$instance "$cluster" stop >/dev/null 2>&1' EXIT
  for c in "${configs[@]}"; do run_list "$c" "$out/$c.tsv" "${tests[@]}"; done
  # A difference counts only when a re-run in both configurations shows it again.
  mapfile -t differ < <(join -t $'\t' <(sort "$out/cons_tres.tsv") <(sort "$out/psiplace.tsv") \
                        | awk -F'\t' '($2 == "pass" || $2 == "skip") && ($4 == "fail" || $4 == "timeout") {print $1}')
  if [ ${#differ[@]} -gt 0 ]; then
    log "re-running ${#differ[@]} differing tests in both configurations: ${differ[*]}"
    for c in "${configs[@]}"; do
      ( out=$out/rerun; mkdir -p "$out"; run_list "$c" "$out/$c.tsv" "${differ[@]}" )
    done
  fi
  PSIPLACE_INSTANCE=$instance "$cluster" stop >/dev/null 2>&1
  trap - EXIT
  cmd_compare "$out"
}

cmd_compare() {
  local o=${1:-${PSIPLACE_SUITE_OUT:-$repo/build/slurmsuite}}
  [ -f "$o/cons_tres.tsv" ] && [ -f "$o/psiplace.tsv" ] || die "no results in $o (run first)"
  local exp=/dev/null; [ -f "$expected" ] && exp=$expected
  awk -F'\t' -v expf="$exp" -v rc_file="$o/rerun/cons_tres.tsv" -v rp_file="$o/rerun/psiplace.tsv" \
      -v tc="$(cat "$o/cons_tres.tsv.seconds" 2>/dev/null)" -v tp="$(cat "$o/psiplace.tsv.seconds" 2>/dev/null)" '
    BEGIN {
      while ((getline l < expf) > 0) {
        if (l ~ /^[ \t]*(#|$)/) continue
        split(l, f, /[ \t]+/); t = f[1]; sub(/^[^ \t]+[ \t]+/, "", l); why[t] = l
      }
      while ((getline l < rc_file) > 0) { split(l, f, "\t"); rc[f[1]] = f[2] }
      while ((getline l < rp_file) > 0) { split(l, f, "\t"); rp[f[1]] = f[2] }
    }
    FNR == NR { c[$1] = $2; order[++n] = $1; next }
    { p[$1] = $2 }
    END {
      printf "%-62s %-9s %-9s %-15s %s\n", "test", "cons_tres", "psiplace", "re-run (c/p)", "verdict"
      for (i = 1; i <= n; i++) {
        t = order[i]; a = c[t]; b = (t in p) ? p[t] : "missing"; rr = ""; v = ""
        if (a == b) { v = "same"; same[a]++ }
        else if ((a == "pass" || a == "skip") && (b == "fail" || b == "timeout" || b == "missing")) {
          rr = (t in rc) ? rc[t] "/" rp[t] : "not re-run"
          if ((t in rc) && !((rc[t] == "pass" || rc[t] == "skip") && (rp[t] == "fail" || rp[t] == "timeout"))) { v = "flaky (re-run agrees)"; flaky++ }
          else if (t in why) { v = "EXPECTED: " why[t]; expd++ }
          else { v = "DIFFERENCE"; bad++; badl = badl " " t }
        }
        else if (b == "pass" && a != "skip") { v = "psiplace passes, cons_tres not"; better++ }
        else { v = "differs (skip)"; other++ }
        printf "%-62s %-9s %-9s %-15s %s\n", t, a, b, rr, v
      }
      printf "\n%d tests: same result %d (pass %d, fail %d, skip %d, timeout %d); ", \
        n, same["pass"] + same["fail"] + same["skip"] + same["timeout"], same["pass"], same["fail"], same["skip"], same["timeout"]
      printf "cons_tres passes (or skips) and psiplace fails: %d (expected %d, flaky on re-run %d); ", bad + expd + flaky, expd + 0, flaky + 0
      printf "psiplace better: %d; skip in one only: %d\n", better + 0, other + 0
      if (tc != "") printf "time: cons_tres %d s, psiplace %d s (without re-runs)\n", tc, tp
      for (t in why) if (!(t in c)) printf "note: expected difference %s is not in this run\n", t
      if (bad > 0) { printf "UNEXPECTED DIFFERENCES:%s (logs in %s/logs)\n", badl, dir; exit 1 }
      printf "no unexpected difference\n"
    }' dir="$o" "$o/cons_tres.tsv" "$o/psiplace.tsv"
}

case ${1:-} in
  run) shift; cmd_run "$@" ;;
  compare) shift; cmd_compare "$@" ;;
  candidates) cmd_candidates ;;
  *) awk 'NR > 1 && /^#/ {sub(/^# ?/, ""); print; next} NR > 1 {exit}' "$0"; exit 2 ;;
esac
