#!/usr/bin/env bash
# Every test suite of psiplace: build (warnings are errors), unit tests,
# unit tests under AddressSanitizer/UBSan, every fuzz target briefly, and the
# integration suite against a real local Slurm (munged, slurmctld, 4 slurmd).
# Exit status is non-zero when anything fails.
#   FUZZ_SECONDS=N   seconds per fuzz target (default 20)
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
fuzz_seconds=${FUZZ_SECONDS:-20}
failed=()
stage() { echo; echo "=== $* ==="; }

stage "install and build"
contrib/build.sh || { echo "BUILD FAILED"; exit 1; }

stage "unit tests"
meson test -C build --suite unit --print-errorlogs 2>&1 | tail -n 12
[ "${PIPESTATUS[0]}" -eq 0 ] || failed+=(unit)

stage "unit tests under address and undefined-behaviour sanitizers"
if [ ! -f build-asan/build.ninja ]; then
  meson setup build-asan --werror -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
fi
if ninja -C build-asan >/dev/null; then
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    meson test -C build-asan --suite unit --print-errorlogs 2>&1 | tail -n 12
  [ "${PIPESTATUS[0]}" -eq 0 ] || failed+=(unit-sanitizers)
else
  failed+=(sanitizer-build)
fi

stage "fuzz targets (libFuzzer, ${fuzz_seconds}s each)"
if [ ! -f build-fuzz/build.ninja ]; then
  CC=clang meson setup build-fuzz -Dfuzz=true -Dtests=disabled \
    -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
fi
if ninja -C build-fuzz >/dev/null; then
  for exe in build-fuzz/tests/fuzz/fuzz_*; do
    [ -x "$exe" ] && [ -f "$exe" ] || continue
    name=${exe##*/fuzz_}
    work=$(mktemp -d)
    cp -r "tests/fuzz/corpus/$name/." "$work/" 2>/dev/null || true
    if out=$("$exe" -max_total_time="$fuzz_seconds" -rss_limit_mb=2048 \
               -artifact_prefix="$work/" "$work" 2>&1); then
      echo "fuzz $name: $(printf '%s\n' "$out" | grep -o 'Done [0-9]* runs.*' | tail -1)"
    else
      printf '%s\n' "$out" | tail -n 30
      echo "fuzz $name: FAILED (artifacts in $work)"
      failed+=("fuzz-$name")
      continue
    fi
    rm -rf "$work"
  done
else
  failed+=(fuzz-build)
fi

stage "integration tests (real Slurm testbed)"
meson test -C build --suite integration --print-errorlogs 2>&1 | tail -n 12
[ "${PIPESTATUS[0]}" -eq 0 ] || failed+=(integration)
grep -hE '^# [0-9]+ passed' build/meson-logs/testlog.txt || true

echo
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "ALL TESTS PASSED"
