#!/bin/bash
# Golden-output tests of `psiplace rank`: for every data/rank/CASE.args
# (the arguments, one line, relative to data/rank), run the command and
# compare stdout, stderr and the exit status with CASE.out.
set -u
psiplace=$1
dir=$2
cd "$dir" || exit 1
fail=0
n=0
for args in *.args; do
	case=${args%.args}
	n=$((n + 1))
	read -r line <"$args"
	eval "set -- $line"
	got=$("$psiplace" rank "$@" 2>&1; echo "exit $?")
	if ! diff -u "$case.out" <(printf '%s\n' "$got") >/dev/null; then
		echo "FAIL $case"
		diff -u "$case.out" <(printf '%s\n' "$got")
		fail=1
	fi
done
echo "$n cases"
[ "$n" -gt 0 ] || exit 1
exit $fail
