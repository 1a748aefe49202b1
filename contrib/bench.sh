#!/usr/bin/env bash
# Every benchmark (SPEC.md §5); prints the `bench: NAME VALUE UNIT` lines.
#   contrib/bench.sh [NAME...]   e.g. contrib/bench.sh lama
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
contrib/build.sh >/dev/null
meson test -C build --benchmark --num-processes 1 "$@" >/dev/null || true
grep -h '^bench: ' build/meson-logs/testlog.txt
