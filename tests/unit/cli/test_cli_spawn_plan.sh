#!/bin/bash
# psiplace spawn-plan: golden outputs of the three forms and the exact
# error line and exit status of every CLI-level error.
# usage: test_spawn_plan_cli.sh PSIPLACE_BINARY DATA_DIR
set -u
psiplace=$1
data=$2
failures=0
unset SLURM_JOB_NODELIST SLURM_NODELIST SLURM_JOB_CPUS_PER_NODE

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

# golden FILE ARGS...: stdout equals FILE, exit 0, nothing on stderr
golden() {
	local file=$1 out err rc
	shift
	out=$("$psiplace" spawn-plan "$@" 2>/tmp/spawn_cli_err.$$)
	rc=$?
	err=$(cat /tmp/spawn_cli_err.$$)
	[ "$rc" = 0 ] || fail "$*: exit $rc ($err)"
	[ -z "$err" ] || fail "$*: stderr: $err"
	diff -u "$data/$file" <(printf '%s\n' "$out") || fail "$*: differs from $file"
}

# expect OUTPUT ARGS...: stdout equals OUTPUT (lines separated by ';')
expect() {
	local want=$1 out
	shift
	out=$("$psiplace" spawn-plan "$@" 2>&1 | tr '\n' ';')
	[ "$out" = "$want" ] || fail "$*: got '$out', want '$want'"
}

# error STATUS MESSAGE ARGS...: exit STATUS, stderr is exactly the one line
# "psiplace: error: MESSAGE", nothing on stdout
error() {
	local status=$1 msg=$2 out err rc
	shift 2
	out=$("$psiplace" spawn-plan "$@" 2>/tmp/spawn_cli_err.$$)
	rc=$?
	err=$(cat /tmp/spawn_cli_err.$$)
	[ "$rc" = "$status" ] || fail "$*: exit $rc, want $status"
	[ "$err" = "psiplace: error: $msg" ] || fail "$*: stderr '$err', want 'psiplace: error: $msg'"
	[ -z "$out" ] || fail "$*: stdout '$out'"
}

A=4,2,8,12,3,3,4,4,6,3
R=2,0,0,0,0,0,0,0,0,0

# The paper's worked example (Table 2), plain and JSON.
golden spawn_plan_table2.txt --strategy diffusive --cores $A --running $R
golden spawn_plan_table2.txt --cores '4,2,8,12,3(x2),4(x2),6,3' --running '2,0(x9)'
golden spawn_plan_table2.json --strategy diffusive --cores $A --running $R --nodelist 'n[01-10]' --format json
golden spawn_plan_table2.txt --strategy=diffusive --cores=$A --running=$R --format=plain

# Hypercube form: 1 -> 5 -> 25 nodes of 4 cores.
expect '0 4 - 1 -;1 20 16 5 4;2 100 80 25 20;' --strategy hypercube --cores-per-node 4 --sources 4 --targets 100
expect '0 4 - 1 -;1 20 16 5 4;2 100 80 25 20;' --cores-per-node 4 --sources 4 --targets 100
expect '0 4 - 1 -;1 20 16 4 3;2 100 80 24 20;3 104 4 25 1;' --strategy hypercube --cores-per-node 4 --sources 4 --targets 100 --method baseline
expect '0 1 - 1 -;1 2 1 2 1;2 4 2 4 2;3 8 4 8 4;' --strategy hypercube --cores-per-node 1 --sources 1 --targets 8
# the same counts with diffusive may leave partial nodes
expect '0 6 - 2 -;1 10 4 3 1;' --strategy diffusive --cores-per-node 4 --sources 6 --targets 10

# --from-slurm: the job's node list and CPUs per node.
export SLURM_JOB_NODELIST='n[1-3,5],x7' SLURM_JOB_CPUS_PER_NODE='4(x2),8,12,3'
expect '0 4 - 1 -;1 31 27 5 4;' --strategy diffusive --from-slurm --running 4,0,0,0,0
out=$("$psiplace" spawn-plan --from-slurm --running 4,0,0,0,0 --format json | grep -c '"host": "x7"')
[ "$out" = 3 ] || fail "--from-slurm json: host x7 appears $out times, want 3 (node, group, spawner)"
error 1 'spawn plan: hypercube needs the same number of cores on every node, but node 0 has 4 and node 2 has 8; use the diffusive strategy' \
	--strategy hypercube --from-slurm --running 4,0,0,0,0
error 2 '--running has 3 entries but the job'"'"'s node count is 5; give one entry per node' \
	--from-slurm --running 4,0,0
SLURM_JOB_CPUS_PER_NODE='4(x3)' error 1 'SLURM_JOB_CPUS_PER_NODE has 3 entries but SLURM_JOB_NODELIST names 5 nodes' \
	--from-slurm --running 4,0,0,0,0
SLURM_JOB_NODELIST='n[1-' error 1 "SLURM_JOB_NODELIST: 'n[1-': unclosed '[' at character 2; accepted: host names and Slurm hostlist expressions like n[1-3,5],x7" \
	--from-slurm --running 4,0,0,0,0
unset SLURM_JOB_NODELIST
SLURM_NODELIST='a[1-5]' expect '0 4 - 1 -;1 31 27 5 4;' --from-slurm --running 4,0,0,0,0
error 1 '--from-slurm: SLURM_JOB_NODELIST is not set; run inside a Slurm allocation (salloc, sbatch)' \
	--from-slurm --running 4,0,0,0,0
unset SLURM_JOB_CPUS_PER_NODE

# Library errors: exit 1.
error 1 'spawn plan: running[0] = 5 exceeds the node'"'"'s capacity 4 (cores + oversubscription); merge keeps the running processes, so R must not exceed A' \
	--cores 4,4 --running 5,0
error 1 'spawn plan: no running process to spawn from (running is 0 on every node)' --cores 4,4 --running 0,0
error 1 'spawn plan: nothing to spawn (cores - running is 0 on every node)' --cores 4,4 --running 4,4
error 1 'spawn plan: hypercube needs the same number of cores on every node, but node 0 has 4 and node 1 has 2; use the diffusive strategy' \
	--strategy hypercube --cores $A --running $R
error 1 'spawn plan: oversubscribe[1] = 1 on a node without cores (cores[1] = 0)' --cores 4,0 --running 1,0 --oversubscribe 0,1
expect '0 1 - 1 -;1 5 4 1 0;2 13 8 3 2;' --cores 4,2,2 --running 1,0,0 --oversubscribe 1,2,2

# Usage errors: exit 2.
error 2 "--cores: '4,-2': negative value at character 3; accepted: non-negative integers separated by commas, N(xK) for K repeats of N" \
	--cores 4,-2 --running 1,0
error 2 "--running: empty value; accepted: non-negative integers separated by commas, N(xK) for K repeats of N" \
	--cores 4,2 --running ''
error 2 '--running has 1 entries but --cores has 2; give one entry per node' --cores 4,2 --running 1
error 2 '--oversubscribe has 3 entries but --cores has 2; give one entry per node' --cores 4,2 --running 1,0 --oversubscribe 0,0,0
error 2 '--nodelist names 3 hosts but --cores has 2 entries; give one host per node' --cores 4,2 --running 1,0 --nodelist 'n[1-3]'
error 2 "--nodelist: 'n[': unclosed '[' at character 2; accepted: host names and Slurm hostlist expressions like n[1-3,5],x7" \
	--cores 4,2 --running 1,0 --nodelist 'n['
error 2 "--strategy: 'cube' is not a spawn strategy; accepted: diffusive, hypercube" --strategy cube --cores 4 --running 1
error 2 "--method: 'zombie' is not a spawn method; accepted: merge, baseline" --method zombie --cores 4 --running 1
error 2 "--format: 'xml' is not an output format; accepted: plain, json" --format xml --cores 4 --running 1
error 2 'spawn-plan: give --cores and --running (or --cores-per-node/--sources/--targets, or --from-slurm)' --cores 4
error 2 'spawn-plan: give --cores and --running (or --cores-per-node/--sources/--targets, or --from-slurm)'
error 2 'spawn-plan: --cores/--nodelist, --cores-per-node/--sources/--targets and --from-slurm are different forms; give one' \
	--cores 4 --running 1 --cores-per-node 4
error 2 'spawn-plan: --cores/--nodelist, --cores-per-node/--sources/--targets and --from-slurm are different forms; give one' \
	--from-slurm --cores 4 --running 1
error 2 'spawn-plan: --running and --oversubscribe do not go with --cores-per-node/--sources/--targets' \
	--cores-per-node 4 --sources 4 --targets 8 --running 4
error 2 'spawn-plan: --cores-per-node, --sources and --targets go together' --cores-per-node 4 --sources 4
error 2 'spawn-plan: --from-slurm needs --running' --from-slurm
error 2 "--cores-per-node: '0' is not an integer in 1..1000000" --cores-per-node 0 --sources 4 --targets 8
error 2 "--sources: '4x' is not an integer in 1..1073741823" --cores-per-node 4 --sources 4x --targets 8
error 2 "--targets: '-8' is not an integer in 1..1073741823" --cores-per-node 4 --sources 4 --targets -8
error 2 '--targets 4 must be larger than --sources 8 with --method merge (merge only adds processes)' \
	--cores-per-node 4 --sources 8 --targets 4
error 2 '--targets 10 is not a multiple of --cores-per-node 4: hypercube spawns whole nodes; use --strategy diffusive' \
	--cores-per-node 4 --sources 4 --targets 10
error 2 '--sources 6 is not a multiple of --cores-per-node 4: hypercube spawns whole nodes; use --strategy diffusive' \
	--strategy hypercube --cores-per-node 4 --sources 6 --targets 12
error 2 "spawn-plan: unknown option '--bogus'; see psiplace spawn-plan --help" --bogus
error 2 "spawn-plan: option '--cores' needs a value; see psiplace spawn-plan --help" --cores
error 2 "spawn-plan: unexpected argument 'extra'" --cores 4 --running 1 extra
"$psiplace" spawn-plan --help | grep -q '^usage: psiplace spawn-plan' || fail "--help"

rm -f /tmp/spawn_cli_err.$$
[ "$failures" = 0 ] && echo "spawn-plan CLI: all checks passed"
exit $((failures > 0))
