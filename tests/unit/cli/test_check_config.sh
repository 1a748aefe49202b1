#!/usr/bin/env bash
# psiplace check-config: the site's files as the plugins read them (TAP).
# usage: test_check_config.sh PSIPLACE
set -uo pipefail
psiplace=$1
source "$(dirname "$0")/tap.sh"

: >"$d/slurm.conf"
echo 'required /x/psiplace.so NodeAllocationPolicy=fastest PriorityFunction="2*SPEED - LOAD"' >"$d/plugstack.conf"
printf 'MetricsFile=%s/metrics\nNodeName=n[1-3] Speed=2\n' "$d" >"$d/psiplace.conf"
printf 'n1 load1=1\nn2 load1=oops\nn3 load5=2 gmetric.temp=40\n' >"$d/metrics"

out=$(SLURM_CONF=$d/slurm.conf "$psiplace" check-config 2>"$d/err"); rc=$?
check "files beside SLURM_CONF are found and valid" 0 "$rc"
check "the policy as the plugins read it" "NodeAllocationPolicy=FASTEST" "$(printf '%s\n' "$out" | sed -n 1p)"
check "a quoted PriorityFunction with blanks" "PriorityFunction=2*SPEED - LOAD" "$(printf '%s\n' "$out" | sed -n 2p)"
check "psiplace.conf nodes counted" "psiplace.conf=$d/psiplace.conf (3 nodes)" "$(printf '%s\n' "$out" | grep '^psiplace.conf=')"
check "metrics: nodes and skipped lines" "MetricsFile=$d/metrics (2 nodes, 1 lines skipped)" "$(printf '%s\n' "$out" | grep '^MetricsFile=')"
check "the skipped metrics line is a warning naming file and line" \
  "psiplace: warning: $d/metrics:2: not a number, line skipped: 'load1=oops'" "$(cat "$d/err")"

printf 'NodeName=n1 Speed=fast\n' >>"$d/psiplace.conf"
SLURM_CONF=$d/slurm.conf "$psiplace" check-config >/dev/null 2>"$d/err"; rc=$?
check "a bad psiplace.conf fails" 1 "$rc"
check "one error line naming file and line" 1 "$(grep -c "^psiplace: error: $d/psiplace.conf:3: " "$d/err")"

echo 'required /x/psiplace.so NodeAllocationPolicy=fastest Bogus=1' >"$d/other.conf"
"$psiplace" check-config "$d/other.conf" --psiplace-conf "$d/none.conf" >/dev/null 2>"$d/err"; rc=$?
check "a bad plugstack line fails" 1 "$rc"
check "the error names file, line and the accepted keys" \
  "psiplace: error: $d/other.conf:1: psiplace: unknown argument 'Bogus'; accepted keys: NodeAllocationPolicy, PriorityFunction, NodesSort, DefaultPlacement, PsiStrict, PolicyOverridesWeight, AllowUserCpumap, TopologyFile, PsetQuery, RankedTier, PreferPoweredUp, Verbose" \
  "$(cat "$d/err")"
echo 'required /x/psiplace.so' >"$d/plain.conf"
out=$("$psiplace" check-config "$d/plain.conf" --psiplace-conf "$d/none.conf" 2>&1); rc=$?
check "no psiplace.conf is fine (it is optional)" "0 psiplace.conf=$d/none.conf (0 nodes)" "$rc $(printf '%s\n' "$out" | grep '^psiplace.conf=')"
"$psiplace" check-config a b >/dev/null 2>"$d/err"; rc=$?
check "usage error: exit 2, one line" "2 1" "$rc $(grep -c '^psiplace: error: check-config: unexpected' "$d/err")"
"$psiplace" check-config --psiplace-conf >/dev/null 2>"$d/err"; rc=$?
check "an option without its value: exit 2, one line naming it" \
  "2 psiplace: error: check-config: option '--psiplace-conf' needs a value; see psiplace check-config --help" \
  "$rc $(cat "$d/err")"
out=$("$psiplace" check-config --help 2>&1); rc=$?
check "--help prints the usage, exit 0" "0 usage: psiplace check-config [PLUGSTACK.CONF] [--psiplace-conf FILE]" "$rc $out"

printf 'PartitionName=batch NodeAllocationPolicy=lastavailable\nPartitionName=fast PriorityFunction="SPEED"\n' >"$d/parts.conf"
out=$("$psiplace" check-config "$d/plain.conf" --psiplace-conf "$d/parts.conf" 2>&1); rc=$?
check "PartitionName lines listed as the plugin takes them" \
  "0 PartitionName=batch NodeAllocationPolicy=LASTAVAILABLE|PartitionName=fast NodeAllocationPolicy=(cluster default) PriorityFunction=\"SPEED\"" \
  "$rc $(printf '%s\n' "$out" | grep '^PartitionName=' | paste -sd'|')"
printf 'PartitionName=batch NodeAllocationPolicy=lastavailable\nPartitionName=batch NodeAllocationPolicy=fastest\n' >"$d/parts.conf"
"$psiplace" check-config "$d/plain.conf" --psiplace-conf "$d/parts.conf" >/dev/null 2>"$d/err"; rc=$?
check "a partition on two lines: one error naming file and line" \
  "1 psiplace: error: $d/parts.conf:2: partition batch: already set at line 1" "$rc $(cat "$d/err")"

tap_end
