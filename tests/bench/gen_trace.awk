# A synthetic SWF 2.2 trace for psiplace simulate (deterministic):
#   awk -v jobs=100000 -v nodes=1000 -v cpus=32 -v load=0.9 -f gen_trace.awk > trace.swf
# Sizes 1..16 nodes' worth of CPUs (powers of two), run times 1 min..4 h
# (log-uniform), limits 1.2-3x the run time, arrivals spaced for the load.
# With -v bigmem=F (0 < F < 1): a share F of the jobs asks 6 GB per CPU
# (field 10), the others 1 GB; without it, memory is unknown (-1) and
# the sequence is the same as before.
function rnd() { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648 }
BEGIN {
	if (!jobs) jobs = 1000; if (!nodes) nodes = 100; if (!cpus) cpus = 32; if (!load) load = 0.9
	seed = 42; t = 0
	print "; Version: 2.2"
	print "; Computer: psiplace synthetic"
	printf "; MaxNodes: %d\n; MaxProcs: %d\n", nodes, nodes * cpus
	for (i = 1; i <= jobs; i++) {
		p = 2 ^ int(rnd() * 10)            # 1 .. 512 CPUs
		run = int(60 * exp(rnd() * log(240)))
		lim = int(run * (1.2 + 1.8 * rnd()))
		mem = -1
		if (bigmem > 0) mem = rnd() < bigmem ? 6000000 : 1000000
		printf "%d %d -1 %d %d -1 -1 %d %d %d 1 1 1 -1 1 -1 -1 -1\n", i, int(t), run, p, p, lim, mem
		t += 2 * rnd() * p * run / (load * nodes * cpus) # mean spacing: the job's share
	}
}
