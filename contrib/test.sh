#!/usr/bin/env bash
# Every test suite of psiplace: build (warnings are errors), unit tests,
# unit tests under AddressSanitizer/UBSan, every fuzz target briefly, the
# integration suites and the fault suite against a real local Slurm 22.05
# (munged, slurmctld, 4 slurmd; integration_qos adds a private MariaDB and
# slurmdbd, packages mariadb-server and slurmdbd from cluster.sh deps), a
# subset of Slurm's own test suite run with select/cons_tres and with
# psiplace and compared per test, the plugins compiled against all eight
# supported Slurm releases, the Debian packages built, installed with dpkg -i,
# run, upgraded and removed (and built for trixie's 24.11 tree and inspected),
# the malleable suite with MPICH (ch3:nemesis, built from Debian's source in
# the background; cached), and the integration suites again on real Slurm
# 24.11 and 26.05 daemons (integration_qos with each release's own slurmdbd
# and accounting_storage/mysql; without it the suite fails here instead of
# skipping).  Exit status is non-zero when anything fails.
#
# How the run is laid out (it must fit CI's 90 minutes on 2 cores).  After
# the build, the stages run in lanes side by side; inside a lane one after
# another.  Most of a testbed stage's time is spent waiting (for slurmctld's
# scheduling passes, job ends, daemons starting), so testbeds of different
# instances (PSIPLACE_TEST_INSTANCE: their own ports, state, logs and
# daemons, stopped by recorded PID) run beside each other and beside the
# CPU-bound stages:
#   cpu      unit, unit-sanitizers, fuzz, compile-releases, packages-built
#            (the .debs for 24.11's tree and the RPM, after packages)
#   t22      packages (build, dpkg -i, run on instance 8, upgrade, remove),
#            then integration-22.05 (instance 1)
#   t22x     faults, slurm-testsuite, malleable-mpich (instance 4; starts
#            when the packages stage has ended: dpkg -i puts the plugins into
#            Slurm's plugin directory, which every 22.05 testbed also reads,
#            so no other 22.05 testbed may run meanwhile)
#   t22long  integration-22.05-long (the simulator's fidelity replay and
#            the benchmarks' smoke runs, on their own instances 1x/4x/5x;
#            after the packages stage too)
#   t24/t26  build-24.11, integration-24.11 (instance 2), then build-26.05,
#            integration-26.05 (instance 3, with MPICH), one after the other,
#            then upgrade-24.11-26.05 (instance 3: the 24.11 testbed with
#            psiplace, slurmdbd and jobs, upgraded in place to 26.05, slurmdbd
#            first, then all daemons at once and rolling; about 190 s for both)
# Each stage's output goes to build/ci/NAME.log and is printed whole, in the
# fixed order above, once every lane has ended; a failing stage never stops
# another lane (a stage whose build failed is reported skipped).  At the end a
# table: `stage NAME wall S cpu S result R` per stage (cpu: user+sys of the
# stage's whole process tree, daemons included, from a cgroup of its own when
# the machine lets us make one, else of the processes it waited for), the
# total wall time and the margin to 90 minutes, and a warning for a stage
# whose wall time grew by more than 25 % over the previous run recorded in
# build/ci-times.txt.
#
# Which suites run on which release.  Release-dependent (they exercise what
# changes between 22.05 and 26.05: the select interface and cons_tres, the
# SPANK and step environment, topology plugins, PMIx, QOS/slurmdbd, dynamic
# nodes, resizing jobs): the integration suite (select, policies, psi, lama,
# stepenv, cli_plugin -- the command against the plugins' real answers --,
# partitions, topology, clusterconf, dynamic, power, qos, psets, malleable)
# runs on 22.05, 24.11 and 26.05.  Release-independent: the unit, sanitizer
# and fuzz suites (the pure library), the simulator's fidelity replay and the
# benchmarks' smoke runs (suite long: the model is release-independent, and
# the replay compares it with one real backfill), the testbed scripts' own
# behaviour (suite once: how a script ended by a signal stops its daemons),
# the packages (Debian 12's Slurm) and Slurm's own test suite comparison: on
# 22.05 only.  The faults
# suite runs on 22.05.
#
#   FUZZ_SECONDS=N           seconds per fuzz target (default 20)
#   PSIPLACE_RELEASES="..."  testbed releases besides 22.05 (default "24.11 26.05"; "" for none)
#   PSIPLACE_MPICH_WAIT=N    seconds a stage waits for the background MPICH build (default 1800)
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
fuzz_seconds=${FUZZ_SECONDS:-20}
# The malleable suite needs psiplace-resize-demo (Open MPI, installed by
# cluster.sh deps): here a missing MPI fails the suite instead of skipping it.
export PSIPLACE_REQUIRE_MPI=${PSIPLACE_REQUIRE_MPI:-1}
# integration_qos needs accounting_storage/mysql (slurmdbd with MariaDB) on
# every testbed release: here a release without it fails the suite.
export PSIPLACE_REQUIRE_ACCOUNTING=${PSIPLACE_REQUIRE_ACCOUNTING:-1}
limit=5400   # CI's hard limit, seconds
run_start=$(date +%s.%N)

# ------------------------------------------------------------ timing
# CPU of a stage's process tree: a cgroup per stage (cgroup v1 cpuacct or
# v2), so that the testbed's daemons, which detach from the stage, count too.
cg_base="" cg_kind=""
if [ -f /sys/fs/cgroup/cpuacct/cpuacct.usage ] && mkdir -p /sys/fs/cgroup/cpuacct/psiplace-ci-$$ 2>/dev/null; then
  cg_base=/sys/fs/cgroup/cpuacct/psiplace-ci-$$ cg_kind=v1
elif [ "$(stat -fc %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ] && mkdir -p /sys/fs/cgroup/psiplace-ci-$$ 2>/dev/null; then
  cg_base=/sys/fs/cgroup/psiplace-ci-$$ cg_kind=v2
fi
cg_usage() { # DIR -> CPU seconds
  case $cg_kind in
    v1) awk '{printf "%.1f", $1 / 1e9}' "$1/cpuacct.usage" ;;
    v2) awk '$1 == "usage_usec" {printf "%.1f", $2 / 1e6}' "$1/cpu.stat" ;;
  esac
}
# bash's `times`: the second line is the children's user and system time.
times_cpu() { sed -n 2p "$1" | sed 's/[ms]/ /g' | awk '{printf "%.1f", $1 * 60 + $2 + $3 * 60 + $4}'; }

ci=$repo/build/ci
stages=()   # in the order the output is printed
# run_stage NAME CMD...: CMD's output into build/ci/NAME.log, its result
# into build/ci/NAME.result ("WALL CPU RESULT").
run_stage() {
  local name=$1 t0 t1 rc cg="" cpu result
  shift
  t0=$(date +%s.%N)
  if [ -n "$cg_base" ] && mkdir -p "$cg_base/$name" 2>/dev/null; then cg=$cg_base/$name; fi
  rm -f "$ci/$name.digest" "$ci/$name.flaky"
  (
    export PSIPLACE_CI_STAGE=$name
    [ -z "$cg" ] || echo "$BASHPID" >"$cg/cgroup.procs" 2>/dev/null || touch "$ci/$name.nocg"
    "$@"; rc=$?
    times >"$ci/$name.times"
    exit $rc
  ) >"$ci/$name.log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  if [ -n "$cg" ] && [ ! -e "$ci/$name.nocg" ]; then cpu=$(cg_usage "$cg"); else cpu=$(times_cpu "$ci/$name.times"); fi
  case $rc in 0) result=pass ;; 77) result=skip ;; *) result=FAIL ;; esac
  if [ "$result" = pass ] && [ -s "$ci/$name.flaky" ]; then result="pass(flaky:$(tr ' ' ',' <"$ci/$name.flaky"))"; fi
  echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.0f", b - a}') ${cpu:-0} $result" >"$ci/$name.result"
  [ "$rc" -eq 0 ] || [ "$rc" -eq 77 ]
}
# A stage that cannot run (what it needs failed): reported, not run.
skip_stage() { # NAME REASON
  echo "not run: $2" >"$ci/$1.log"
  echo "0 0 skip($2)" >"$ci/$1.result"
}
# Wait until stage NAME has a result (another lane runs it).
await_stage() { # NAME DEADLINE_S
  local deadline=$((SECONDS + $2))
  until [ -f "$ci/$1.result" ]; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 2  # polls another lane's result file; the deadline bounds it
  done
}

stage_passed() { case $(cut -d' ' -f3 "$ci/$1.result" 2>/dev/null) in pass*) return 0 ;; *) return 1 ;; esac; }

# meson_failures JSON names|digest: the tests of a meson JSON log that did
# not pass, from one reader: `names` prints their names (for the re-run),
# `digest` each with its failed checks, or the end of its output when it
# failed without one (a timeout, a crash, a bail-out).
meson_failures() {
  python3 - "$1" "$2" <<'PY'
import json, sys
try:
    lines = open(sys.argv[1]).read().splitlines()
except OSError:
    sys.exit(0)
for l in lines:
    t = json.loads(l)
    if t.get("result") in ("OK", "SKIP", "EXPECTEDFAIL"):
        continue
    if sys.argv[2] == "names":
        print(t["name"].split(" / ")[-1])
        continue
    out = ((t.get("stdout") or "") + (t.get("stderr") or "")).splitlines()
    print("--- %s: %s (exit %s, %.0f s)" % (t["name"], t["result"], t.get("returncode"), t.get("duration", 0)))
    bad = [i for i, o in enumerate(out) if o.startswith("not ok")]
    if bad:
        for i in bad[:6]:
            print("\n".join(out[i:i + 4]))
    else:
        print("\n".join(out[-12:]))
PY
}
# After a meson test run: show the pass count and every failed TAP check
# with its details, from the run's own log (--logbase NAME).
meson_summary() { # BUILD_DIR NAME
  local log=$1/meson-logs/$2.txt
  [ -f "$log" ] || return 0
  grep -hE '^# [0-9]+ passed' "$log" || true
  if grep -q '^not ok' "$log"; then
    echo "--- failed checks ($log):"
    grep -A6 '^not ok' "$log" | grep -v '^ok ' | head -n 60
  fi
  # The digest printed after the table: every test that did not pass, with
  # its failed checks, or the end of its output when it failed without one
  # (a timeout, a crash, a bail-out), so that a red run says why at its end.
  [ -n "${PSIPLACE_CI_STAGE:-}" ] || return 0
  meson_failures "$1/meson-logs/$2.json" digest >>"$ci/$PSIPLACE_CI_STAGE.digest" || true
}
# mtest BUILD_DIR NAME ARGS...: meson test with its own log, no rebuild
# (lanes share build directories; the build stage built everything).
# With MTEST_RETRY=1 (the stages on testbeds: real daemons and MPI on 2
# shared cores) a test that failed runs once more, alone; if it passes then,
# the stage passes but is marked flaky in the table, and its first failure
# is printed at the end with the other digests: a flake is seen, and fixed,
# without a lost run.
mtest() {
  local b=$1 name=$2 rc failed
  shift 2
  meson test -C "$b" --no-rebuild --logbase "$name" --print-errorlogs "$@" 2>&1 | tail -n 12
  rc=${PIPESTATUS[0]}
  meson_summary "$b" "$name"
  [ "$rc" -ne 0 ] && [ "${MTEST_RETRY:-0}" = 1 ] && [ -n "${PSIPLACE_CI_STAGE:-}" ] || return "$rc"
  failed=$(meson_failures "$b/meson-logs/$name.json" names | sort -u | paste -sd' ')
  [ -n "$failed" ] || return "$rc"
  echo "=== re-running what failed, once: $failed"
  # shellcheck disable=SC2086 # test names, one word each
  meson test -C "$b" --no-rebuild --logbase "$name-retry" --print-errorlogs $failed 2>&1 | tail -n 12
  rc=${PIPESTATUS[0]}
  grep -hE '^# [0-9]+ passed' "$b/meson-logs/$name-retry.txt" 2>/dev/null || true
  if [ "$rc" -eq 0 ]; then
    echo "$failed" >"$ci/$PSIPLACE_CI_STAGE.flaky"
    echo "FLAKY: $failed failed, then passed on the re-run"
  else
    echo "--- the re-run failed too" >>"$ci/$PSIPLACE_CI_STAGE.digest"
  fi
  return "$rc"
}

# ------------------------------------------------------------ build
echo "=== install and build ==="
t0=$(date +%s.%N)
contrib/build.sh || { echo "BUILD FAILED"; exit 1; }
mkdir -p "$ci"
rm -f "$ci"/*.result "$ci"/*.log "$ci"/*.times "$ci"/*.nocg "$ci"/*.digest "$ci"/*.flaky
times >"$ci/build.times"
echo "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.0f", b - a}') $(times_cpu "$ci/build.times") pass" >"$ci/build.result"
stages+=(build)
echo "see the table at the end" >"$ci/build.log"

# Daemons of every instance a stage may use are ended (by their recorded
# PIDs) when this script ends, however it ends; so are the lanes.
lane_pids=()
cleanup() {
  local p i
  for p in "${lane_pids[@]}"; do kill -- -"$p" 2>/dev/null; done
  # 33-35: integration_teardown's second testbed beside instances 1-3
  for i in 1 2 3 4 8 33 34 35; do
    PSIPLACE_INSTANCE=$i timeout 60 contrib/testbed/cluster.sh stop >/dev/null 2>&1
  done
  [ -z "$cg_base" ] || rmdir "$cg_base"/* "$cg_base" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 143' TERM INT

# Lanes: sessions of their own (ended as a whole), with every function
# and setting of this script.
lane() { setsid bash -c "$(declare -f); $(declare -p ci cg_base cg_kind repo fuzz_seconds); cd \"\$repo\"; $1" & lane_pids+=($!); }

# MPICH (ch3:nemesis) for the malleable suite's MPICH checks: built once into
# the cache by contrib/testbed/mpich.sh (cold: about 8 minutes beside the
# Slurm builds), in the background at nice 19 in a lane of its own; the
# stages that need it wait for build/ci/mpich-build.result with a deadline.
if contrib/testbed/mpich.sh path >/dev/null 2>&1; then
  echo "0 0 pass(cached)" >"$ci/mpich-build.result"
  echo "cached in $(contrib/testbed/mpich.sh path)" >"$ci/mpich-build.log"
else
  lane 'renice -n 19 -p $BASHPID >/dev/null; run_stage mpich-build contrib/testbed/mpich.sh prefix'
  echo "MPICH: building in the background (log $ci/mpich-build.log)"
fi
stages+=(mpich-build)
mpich_ready() {
  if ! await_stage mpich-build "${PSIPLACE_MPICH_WAIT:-1800}"; then
    echo "MPICH BUILD NOT DONE within ${PSIPLACE_MPICH_WAIT:-1800} s of waiting; log tail ($ci/mpich-build.log):"
    tail -n 30 "$ci/mpich-build.log"
    return 1
  fi
  case $(cut -d' ' -f3 "$ci/mpich-build.result") in
    pass*) echo "MPICH: $(contrib/testbed/mpich.sh path)" ;;
    *) echo "MPICH BUILD FAILED; log tail ($ci/mpich-build.log):"; tail -n 30 "$ci/mpich-build.log"; return 1 ;;
  esac
}

# ------------------------------------------------------------ stages
st_unit() { mtest build unit --suite unit; }

st_sanitizers() {
  if [ ! -f build-asan/build.ninja ]; then
    meson setup build-asan --werror -Db_sanitize=address,undefined -Db_lundef=false >/dev/null || return 1
  fi
  ninja -C build-asan >/dev/null || { echo "sanitizer build failed"; return 1; }
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 mtest build-asan unit-sanitizers --suite unit
}

st_fuzz() {
  if [ ! -f build-fuzz/build.ninja ]; then
    CC=clang meson setup build-fuzz -Dfuzz=true -Dtests=disabled \
      -Db_sanitize=address,undefined -Db_lundef=false >/dev/null || return 1
  fi
  ninja -C build-fuzz >/dev/null || { echo "fuzz build failed"; return 1; }
  local exe name work out bad=0
  for exe in build-fuzz/tests/fuzz/fuzz_*; do
    [ -x "$exe" ] && [ -f "$exe" ] || continue
    name=${exe##*/fuzz_}
    work=$(mktemp -d)
    cp -r "tests/fuzz/corpus/$name/." "$work/" 2>/dev/null || true
    # UBSan recovers by default: a finding would be printed and the run
    # go on to pass; halt_on_error makes it the fuzzer's crash
    if out=$(UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 "$exe" -max_total_time="$fuzz_seconds" -rss_limit_mb=2048 \
               -artifact_prefix="$work/" "$work" 2>&1); then
      echo "fuzz $name: $(printf '%s\n' "$out" | grep -o 'Done [0-9]* runs.*' | tail -1)"
      rm -rf "$work"
    else
      printf '%s\n' "$out" | tail -n 30
      echo "fuzz $name: FAILED (artifacts in $work)"
      bad=1
    fi
  done
  return $bad
}

# The upstream tarballs (23.02 ... 26.05) come from ../shared/slurm-src;
# 22.05 and 24.11 come from Debian's sources.  Without the tarballs only
# those two can be tested: said loudly, in the summary too.
tarballs=${PSIPLACE_SLURM_TARBALLS:-$(cd "$repo/.." && pwd)/shared/slurm-src}
releases_compiled="" releases_run=${PSIPLACE_RELEASES-24.11 26.05} skipped=""
if [ ! -d "$tarballs" ]; then
  echo "WARNING: no Slurm tarballs in $tarballs: only 22.05 and 24.11 (Debian's sources) are compiled and run"
  releases_compiled="22.05 24.11"
  releases_run=${PSIPLACE_RELEASES-24.11}
  skipped="23.02 23.11 24.05 25.05 25.11 26.05 (no tarballs in $tarballs)"
fi
st_releases() { RELEASES=$releases_compiled contrib/check-releases.sh; }

st_packages() {
  contrib/package.sh deb || { echo "PACKAGES FAILED: contrib/package.sh deb (dpkg-buildpackage or lintian)"; return 1; }
  local rc=0 log=build/meson-logs/packages.txt
  PSIPLACE_PKG_DIR=$repo/dist PSIPLACE_TEST_INSTANCE=8 mtest build packages package_installed || rc=1
  # CI must install: the test skips only to protect other Slurm daemons of
  # a shared machine, and a skip here would pass unseen.
  if grep -q '^1\.\.0 # SKIP' "$log" 2>/dev/null; then
    grep -h '^1\.\.0 # SKIP' "$log"
    echo "PACKAGES NOT TESTED: the installed-package test skipped"
    rc=1
  fi
  return $rc
}

# The packages this machine cannot install (.debs for trixie's 24.11 tree,
# the RPM), built and inspected: no testbed, but the source tree's debian/
# is theirs, so after the packages stage; and the 24.11 tree, which a cold
# run builds in the t24 lane meanwhile (slurm-release.sh's lock).
st_packages_built() {
  await_stage packages 3600 || { echo "the packages stage did not end"; return 1; }
  mtest build packages-built package_built_deb_24_11 package_built_rpm
}
st_integration_2205() {
  # (the malleable suite's MPICH part runs in its own stage, when MPICH is built)
  MTEST_RETRY=1 PSIPLACE_TEST_INSTANCE=1 PSIPLACE_MALLEABLE=openmpi mtest build integration-22.05 \
    --suite integration --no-suite long --no-suite mpich
}
st_integration_2205_long() {
  MTEST_RETRY=1 PSIPLACE_TEST_INSTANCE=5 mtest build integration-22.05-long --suite long
}
st_faults() {
  MTEST_RETRY=1 PSIPLACE_TEST_INSTANCE=4 mtest build faults --suite faults || return 1
  grep -hE '^# (latency|slurmctld RSS|scontrol reconfigure)' build/meson-logs/faults.txt || true
}
st_slurmsuite() {
  # tests/slurmsuite/ci.list in both configurations on one testbed instance;
  # a test that passes with cons_tres and fails with psiplace (again on a
  # re-run) fails the stage unless tests/slurmsuite/expected-differences lists it.
  PSIPLACE_INSTANCE=4 contrib/testbed/slurm-testsuite.sh run tests/slurmsuite/ci.list build/slurmsuite 2>&1 | tail -n 60
  return "${PIPESTATUS[0]}"
}
st_mpich_2205() {
  mpich_ready || return 1
  # suite mpich: the ordered resizes (psiplace-malleabled deciding, the MPICH
  # demo acting), which need MPICH too
  MTEST_RETRY=1 PSIPLACE_TEST_INSTANCE=4 PSIPLACE_MALLEABLE=mpich mtest build malleable-mpich-22.05 \
    integration_malleable integration_mall_rm integration_mall_scenario
}
st_release_build() { PSIPLACE_SLURM=$1 contrib/build.sh; }
st_release() { # REL INSTANCE
  local b part=openmpi nompich=--no-suite=mpich
  b=$(PSIPLACE_SLURM=$1 contrib/testbed/cluster.sh build-dir) || return 1
  # MPICH's part of the malleable suite and the ordered resizes (suite
  # mpich) on the newest release as well
  if [ "$1" = "${releases_run##* }" ]; then mpich_ready && part=all nompich=""; fi
  MTEST_RETRY=1 PSIPLACE_TEST_INSTANCE=$2 PSIPLACE_MALLEABLE=$part mtest "$b" "integration-$1" \
    --suite integration --no-suite long --no-suite once $nompich
}

st_upgrade_stage() {
  if stage_passed build-24.11 && stage_passed build-26.05; then run_stage upgrade-24.11-26.05 st_upgrade
  else skip_stage upgrade-24.11-26.05 'a release build failed'; fi
}
st_upgrade() {
  local b
  b=$(PSIPLACE_SLURM=26.05 contrib/testbed/cluster.sh build-dir) || return 1
  MTEST_RETRY=1 PSIPLACE_TEST_INSTANCE=3 mtest "$b" upgrade-24.11-26.05 --suite upgrade
}

# ------------------------------------------------------------ lanes
# (the lanes below see the release settings too)
lane() { setsid bash -c "$(declare -f); $(declare -p ci cg_base cg_kind repo fuzz_seconds releases_compiled releases_run tarballs); cd \"\$repo\"; $1" & lane_pids+=($!); }

# The release builds after the first are CPU work too: they run in this lane
# while the release lane tests the first release (saving their build time on
# the longest lane); the release lane waits for each before testing it.
first_rel=${releases_run%% *} more_builds=""
stages+=(unit)
for rel in $releases_run; do
  [ "$rel" = "$first_rel" ] && continue
  stages+=("build-$rel")
  more_builds+="run_stage build-$rel st_release_build $rel; "
done
stages+=(unit-sanitizers fuzz compile-releases packages-built)
lane "run_stage unit st_unit; $more_builds run_stage unit-sanitizers st_sanitizers; run_stage fuzz st_fuzz; run_stage compile-releases st_releases; run_stage packages-built st_packages_built"

stages+=(packages integration-22.05)
lane 'run_stage packages st_packages; run_stage integration-22.05 st_integration_2205'

stages+=(faults slurm-testsuite malleable-mpich-22.05)
lane 'await_stage packages 3600; run_stage faults st_faults; run_stage slurm-testsuite st_slurmsuite; run_stage malleable-mpich-22.05 st_mpich_2205'

stages+=(integration-22.05-long)
lane 'await_stage packages 3600; run_stage integration-22.05-long st_integration_2205_long'

# The newer releases one after the other in one lane: three release
# testbeds at once beside the 22.05 lanes made load-sensitive checks flaky
# on 2 cores (a will-run seeing nodes still completing, a node that powers
# down late); the run stays within about 35 minutes warm.
inst=2 rel_lane=""
for rel in $releases_run; do
  if [ "$rel" = "$first_rel" ]; then
    stages+=("build-$rel" "integration-$rel")
    rel_lane+="if run_stage build-$rel st_release_build $rel; then run_stage integration-$rel st_release $rel $inst; else skip_stage integration-$rel 'build-$rel failed'; fi; "
  else
    stages+=("integration-$rel")
    rel_lane+="if await_stage build-$rel 5400 && stage_passed build-$rel; then run_stage integration-$rel st_release $rel $inst; else skip_stage integration-$rel 'build-$rel failed'; fi; "
  fi
  inst=$((inst + 1))
done
# Slurm 24.11 -> 26.05 in place under psiplace (tests/integration/test_upgrade.sh),
# when both releases are run and both built.
case " $releases_run " in
  *" 24.11 "*"26.05 "*)
    stages+=(upgrade-24.11-26.05)
    rel_lane+="st_upgrade_stage; " ;;
esac
[ -z "$rel_lane" ] || lane "$rel_lane"
echo "lanes: ${#lane_pids[@]} (PIDs ${lane_pids[*]}); logs in $ci/"
for p in "${lane_pids[@]}"; do wait "$p"; done
lane_pids=()

# ------------------------------------------------------------ report
failed=()
for s in "${stages[@]}"; do
  echo
  echo "=== $s ==="
  cat "$ci/$s.log" 2>/dev/null
  [ -f "$ci/$s.result" ] || echo "0 0 FAIL(no result)" >"$ci/$s.result"
  case $(cut -d' ' -f3 "$ci/$s.result") in pass*) ;; *) failed+=("$s") ;; esac
done

total=$(awk -v a="$run_start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.0f", b - a}')
declare -A prev=()
if [ -f build/ci-times.txt ]; then
  while read -r _ n _ w _; do prev[$n]=$w; done < <(grep '^stage ' build/ci-times.txt)
fi
{
  echo "timing (wall and cpu seconds; cpu: ${cg_kind:-waited-for processes only} accounting; $(nproc) cores)"
  for s in "${stages[@]}"; do
    read -r w c r <"$ci/$s.result"
    echo "stage $s wall $w cpu $c result $r"
  done
  echo "total wall $total s ($((total / 60)) min), margin to CI's 90 minutes $((limit - total)) s"
} >"$ci/times.txt"
echo
cat "$ci/times.txt"
if [ ${#prev[@]} -eq 0 ]; then
  echo "(no previous run recorded in build/ci-times.txt to compare with)"
else
  while read -r _ n _ w _; do
    p=${prev[$n]:-}
    [ -n "$p" ] && [ "$p" -gt 30 ] && [ $((w * 100)) -gt $((p * 125)) ] &&
      echo "WARNING: stage $n took $w s, $(((w - p) * 100 / p)) % more than the previous run's $p s"
  done < <(grep '^stage ' "$ci/times.txt")
fi
cp "$ci/times.txt" build/ci-times.txt

echo
[ -n "$skipped" ] && echo "NOT TESTED: Slurm $skipped"
for s in "${stages[@]}"; do
  [ -s "$ci/$s.flaky" ] || continue
  echo "--- flaky in $s (failed, then passed alone on a re-run: $(cat "$ci/$s.flaky")); the first failure:"
  head -n 40 "$ci/$s.digest" 2>/dev/null
done
if [ ${#failed[@]} -gt 0 ]; then
  for s in "${failed[@]}"; do
    echo "--- why $s failed:"
    if [ -s "$ci/$s.digest" ]; then head -n 40 "$ci/$s.digest"; else tail -n 8 "$ci/$s.log" 2>/dev/null; fi
  done
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "ALL TESTS PASSED"
