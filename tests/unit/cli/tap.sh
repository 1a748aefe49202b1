# TAP helpers of the command-line tests: source it after setting psiplace.
# $d is a scratch directory removed at exit; check NAME EXPECTED ACTUAL
# counts one check; tap_end prints the plan and fails when a check failed.
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
n=0 failed=0
check() { # NAME EXPECTED ACTUAL
  n=$((n + 1))
  if [ "$2" = "$3" ]; then echo "ok $n - $1"
  else failed=$((failed + 1)); echo "not ok $n - $1"; printf '#   expected: %s\n#   got:      %s\n' "$2" "$3"; fi
}
tap_end() {
  echo "1..$n"
  [ "$n" -gt 0 ] && [ "$failed" -eq 0 ]
}
