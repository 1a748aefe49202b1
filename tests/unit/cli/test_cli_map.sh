#!/usr/bin/env bash
# Golden outputs of `psiplace map`: every line of cases.txt is
# NAME<TAB>ARGUMENTS (shell-quoted); stdout and stderr, then "exit N", must
# equal NAME.out.  The .out files are expectations written and checked by
# hand (a new case's output is read against the topology before it is
# kept), never regenerated from the command.
# Cases run in the data directory. Every case runs with OMPI_MCA_rmaps_lama_map=snbch and
# OMPI_MCA_rmaps_lama_ordering=n set (they count only with --env).
set -u
cli=$1
dir=$2
fail=0
# cases name files relative to the data directory (../topologies/...)
cd "$dir" || exit 1
dir=.
while IFS=$'\t' read -r name args; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  got=$(eval "env -u OMPI_MCA_rmaps_lama_bind -u OMPI_MCA_rmaps_lama_mppr \
    OMPI_MCA_rmaps_lama_map=snbch OMPI_MCA_rmaps_lama_ordering=n \"$cli\" map $args" 2>&1
    echo "exit $?")
  if ! diff -u "$dir/$name.out" <(printf '%s\n' "$got") > /tmp/psiplace-cli-map.$$.diff; then
    echo "FAIL $name: psiplace map $args"
    cat /tmp/psiplace-cli-map.$$.diff
    fail=1
  fi
done < "$dir/cases.txt"
rm -f /tmp/psiplace-cli-map.$$.diff
exit $fail
