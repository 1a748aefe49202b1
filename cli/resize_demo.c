/* psiplace-resize-demo: a malleable MPI job that expands and shrinks over
 * its Slurm allocation (libpsiplace_mpi) and gives released nodes back
 * (psiplace_release_nodes).  Started with one process:
 *   salloc -N4 mpirun --oversubscribe --enable-recovery -np 1 psiplace-resize-demo \
 *       --strategy diffusive --expand-to 4 --shrink-to 2 --hold 30
 * After each resize every process prints
 *   resize K rank R of T group G node NODE
 * and after a shrink rank 0 prints "released NODELIST" once Slurm has the
 * nodes back (idle).  Spawned processes get the same arguments and continue
 * the sequence after the resize that created them.  Nodes given back leave
 * the allocation: after --shrink-to, NODES count the nodes the job still has
 * (salloc -N4: --expand-to 3 --shrink-to 2 --expand-to 3 ends on n1,n2,n4). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "psiplace/malleable.h"
#include "psiplace/resize.h"

#include "resize_demo_faults.h"

#define MAXACT 16


struct demo {
	enum psiplace_mall_strategy strategy;
	enum psiplace_spawn_method method;
	enum psiplace_mall_shrink_method shrink;
	int timing;
	int nact;
	int act[MAXACT];   /* > 0: expand to; < 0: shrink to -N nodes */
	int hold, timeout;
	int malleable;     /* --malleable: resize when the resource manager orders */
	int run_s;         /* --run SECONDS */
	long work;         /* --work UNITS */
};

static const char usage_text[] =
	"usage: psiplace-resize-demo [--strategy hypercube|diffusive|merge|sequential] [--method merge|baseline]\n"
	"         [--shrink-method ts|baseline|zombie] (--expand-to NODES | --shrink-to NODES)...\n"
	"         [--hold SECONDS] [--timeout SECONDS] [--timing] [--fault NAME]\n"
	"       psiplace-resize-demo --malleable (--run SECONDS | --work UNITS) [--strategy S] [--timeout SECONDS]\n"
	"--malleable: iterations of a small kernel, one unit per process each, with a checkpoint between\n"
	"          them that polls the resource manager's order and acts on it (grow: \"granted NODELIST\",\n"
	"          shrink: \"released NODELIST\"), until --run SECONDS have passed or --work UNITS are done.\n"
	"--timing: rank 0 prints \"timing K expand|shrink FROM TO HOW SECONDS\" per resize (MPI_Wtime)\n"
	"          and \"timing K release NODELIST SECONDS\" for giving nodes back.\n"
	"--fault (test-only): ts-after-zombie (the first shrink ZS, the later ones TS), zombie-dies\n"
	"          (a zombie is killed), zombie-leaves (a zombie finalizes and exits 0 at once\n"
	"          instead of waiting for the job's end), spawned-exit (the spawned processes exit before the\n"
	"          expansion's synchronisation), sync-error (the sources' rank 0 gets an MPI error\n"
	"          receiving the synchronisation).\n"
	"Start it with mpirun -np 1 inside a Slurm allocation; NODES count the allocation's nodes in order.\n";

static int count(const char *opt, const char *s, int lo, int hi, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < lo || v > hi) {
		fprintf(stderr, "psiplace: error: %s: '%s' is not accepted; accepted: %d..%d\n", opt, s,
			lo, hi);
		return -1;
	}
	*out = (int)v;
	return 0;
}

/* 0 ok, 1 help, -1 usage error (reported). */
static int parse(int argc, char **argv, struct demo *d)
{
	psiplace_error_t err;
	int i, n;

	memset(d, 0, sizeof(*d));
	d->strategy = PSIPLACE_MALL_DIFFUSIVE;
	for (i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
			fputs(usage_text, stdout);
			return 1;
		}
		if (!strcmp(o, "--timing")) {
			d->timing = 1;
			continue;
		}
		if (!strcmp(o, "--malleable")) {
			d->malleable = 1;
			continue;
		}
		if (!v) {
			fprintf(stderr, "psiplace: error: option '%s' needs a value or is unknown; see --help\n", o);
			return -1;
		}
		i++;
		if (!strcmp(o, "--strategy")) {
			if (psiplace_mall_strategy_parse(v, "--strategy", &d->strategy, &err) < 0)
				goto bad;
		} else if (!strcmp(o, "--shrink-method")) {
			if (psiplace_mall_shrink_method_parse(v, "--shrink-method", &d->shrink, &err) < 0)
				goto bad;
		} else if (!strcmp(o, "--method")) {
			if (psiplace_spawn_method_parse(v, "--method", &d->method, &err) < 0)
				goto bad;
		} else if (!strcmp(o, "--expand-to") || !strcmp(o, "--shrink-to")) {
			if (d->nact == MAXACT) {
				fprintf(stderr, "psiplace: error: %s: at most %d resizes\n", o, MAXACT);
				return -1;
			}
			if (count(o, v, 1, 1 << 20, &n) < 0)
				return -1;
			d->act[d->nact++] = o[2] == 'e' ? n : -n;
		} else if (!strcmp(o, "--hold")) {
			if (count(o, v, 0, 86400, &d->hold) < 0)
				return -1;
		} else if (!strcmp(o, "--run")) {
			if (count(o, v, 1, 86400, &d->run_s) < 0)
				return -1;
		} else if (!strcmp(o, "--work")) {
			if (count(o, v, 1, 1 << 30, &n) < 0)
				return -1;
			d->work = n;
		} else if (!strcmp(o, "--fault")) {
			for (n = 1; n < (int)DEMO_NFAULTS; n++)
				if (!strcmp(v, fault_names[n]))
					break;
			if (n == (int)DEMO_NFAULTS) {
				fprintf(stderr, "psiplace: error: --fault: '%s' is not accepted; accepted: "
					"ts-after-zombie, zombie-dies, zombie-leaves, spawned-exit, "
					"sync-error (test-only)\n",
					v);
				return -1;
			}
		} else if (!strcmp(o, "--timeout")) {
			if (count(o, v, 1, 86400, &d->timeout) < 0)
				return -1;
		} else {
			fprintf(stderr, "psiplace: error: unknown option '%s'; see --help\n", o);
			return -1;
		}
	}
	if (d->malleable) {
		if (d->nact || !(d->run_s || d->work) || (d->run_s && d->work)) {
			fprintf(stderr, "psiplace: error: --malleable: give --run SECONDS or --work "
				"UNITS (one of them) and no --expand-to/--shrink-to\n");
			return -1;
		}
		return 0;
	}
	if (d->run_s || d->work) {
		fprintf(stderr, "psiplace: error: --run and --work need --malleable\n");
		return -1;
	}
	if (!d->nact) {
		fprintf(stderr, "psiplace: error: give at least one --expand-to or --shrink-to\n");
		return -1;
	}
	return 0;
bad:
	fprintf(stderr, "psiplace: error: %s\n", err.text);
	return -1;
}

static void report(psiplace_mall_t *m)
{
	int rank, size;

	MPI_Comm_rank(psiplace_mall_comm(m), &rank);
	MPI_Comm_size(psiplace_mall_comm(m), &size);
	printf("resize %d rank %d of %d group %d node %s\n", psiplace_mall_resizes(m), rank, size,
	       psiplace_mall_group(m), psiplace_mall_node(m));
	fflush(stdout);
}

/* MPI progress while this process waits outside MPI: MPICH's ch3 closes
 * its connections at MPI_Finalize with a handshake, so processes that left
 * the job finish only while the survivors they talked to make progress. */
static void progress(void *comm)
{
	int flag;

	if (*(MPI_Comm *)comm == MPI_COMM_NULL) /* a process that left (Baseline) */
		return;
	MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, *(MPI_Comm *)comm, &flag, MPI_STATUS_IGNORE);
}

/* Wait seconds, driving MPI progress every 100 ms. */
static void hold(MPI_Comm comm, int seconds)
{
	struct timespec nap = { 0, 100 * 1000 * 1000 };
	int i;

	for (i = 0; i < seconds * 10; i++) {
		progress(&comm);
		nanosleep(&nap, NULL);
	}
}

/* The process me gives the nodes from..to-1 of the allocation back to Slurm. */
static int release(psiplace_mall_t *m, int me, size_t from, size_t to, int timing,
		   psiplace_error_t *err)
{
	/* MPICH: the steps of the groups that just left end a moment later,
	 * once they have finished MPI_Finalize (with our progress). */
	MPI_Comm comm = psiplace_mall_comm(m);
	struct psiplace_release_opts o = { .allow_step = getenv("SLURM_STEP_ID"), .wait_steps = 60,
					   .waiting = progress, .waiting_arg = &comm };
	char list[4096] = "", kept[4096];
	size_t i, off = 0;
	double t0;

	if (!me)
		return 0;
	for (i = from; i < to && off < sizeof(list) - 300; i++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s", i > from ? "," : "",
					psiplace_mall_host(m, i));
	t0 = MPI_Wtime();
	if (psiplace_release_nodes(list, &o, kept, sizeof(kept), NULL, 0, err) < 0 ||
	    psiplace_release_wait_idle(list, 60, NULL, err) < 0)
		return -1;
	if (timing) /* giving the nodes back: scontrol update until they are idle */
		printf("timing %d release %s %.6f\n", psiplace_mall_resizes(m), list, MPI_Wtime() - t0);
	printf("released %s\n", list);
	fflush(stdout);
	return 0;
}

/* One line per resize from the rank 0 it started with: the wall time of
 * the library call, measured here (MPI_Wtime). */
static void timing(const struct demo *d, int i, size_t before, double secs)
{
	static const char *const shrinks[] = { "ts", "baseline", "zombie" };
	char how[64];

	if (d->act[i] > 0)
		snprintf(how, sizeof(how), "%s/%s", psiplace_mall_strategy_name(d->strategy),
			 d->method == PSIPLACE_SPAWN_BASELINE ? "baseline" : "merge");
	else if (d->shrink == PSIPLACE_MALL_SHRINK_BASELINE)
		snprintf(how, sizeof(how), "baseline/%s", psiplace_mall_strategy_name(d->strategy));
	else
		snprintf(how, sizeof(how), "%s", shrinks[d->shrink]);
	printf("timing %d %s %zu %d %s %.6f\n", i + 1, d->act[i] > 0 ? "expand" : "shrink", before,
	       d->act[i] > 0 ? d->act[i] : -d->act[i], how, secs);
	fflush(stdout);
}

/* The shrink method of resize i: --shrink-method, or with the fault
 * ts-after-zombie ZS for the first shrink and TS for the later ones. */
static enum psiplace_mall_shrink_method shrink_method(const struct demo *d, int i)
{
	int k;

	if (fault != FAULT_TS_AFTER_ZOMBIE)
		return d->shrink;
	for (k = 0; k < i && d->act[k] > 0; k++)
		;
	return k == i ? PSIPLACE_MALL_SHRINK_ZOMBIE : PSIPLACE_MALL_SHRINK_TS;
}

static int run(psiplace_mall_t *m, const struct demo *d)
{
	psiplace_error_t err;
	int i, rc;

	if (d->timeout)
		psiplace_mall_set_timeout(m, d->timeout);
	if (psiplace_mall_resizes(m) > 0)
		report(m); /* spawned: the resize that created me is done */
	for (i = psiplace_mall_resizes(m); i < d->nact; i++) {
		size_t before = psiplace_mall_nnodes(m);
		int rank, shrink = d->act[i] < 0;
		double t0;

		MPI_Comm_rank(psiplace_mall_comm(m), &rank);
		if (d->timing)
			MPI_Barrier(psiplace_mall_comm(m)); /* everyone starts together */
		t0 = MPI_Wtime();
		if (!shrink)
			rc = psiplace_mall_expand(m, (size_t)d->act[i], d->strategy, d->method, NULL, &err);
		else
			rc = psiplace_mall_shrink_by(m, (size_t)-d->act[i], shrink_method(d, i),
						     d->strategy, &err);
		if (rc < 0)
			goto fail;
		if (d->timing && rank == 0)
			timing(d, i, before, MPI_Wtime() - t0);
		if (psiplace_mall_leaving(m)) {
			/* under a Baseline respawn the old rank 0 gives the nodes back */
			if (shrink && d->shrink == PSIPLACE_MALL_SHRINK_BASELINE &&
			    release(m, rank == 0, (size_t)-d->act[i], before, d->timing, &err) < 0)
				goto fail;
			return 0;
		}
		if (psiplace_mall_zombie(m)) {
			if (fault == FAULT_ZOMBIE_DIES) /* as when its node is given back */
				raise(SIGKILL);
			if (fault == FAULT_ZOMBIE_LEAVES) { /* ends without meeting the others */
				MPI_Finalize();
				_exit(0);
			}
			return 0; /* idle until the job ends; its node stays taken */
		}
		report(m);
		if (shrink && shrink_method(d, i) == PSIPLACE_MALL_SHRINK_TS) {
			/* The nodes given back leave the allocation: a later
			 * --expand-to counts the nodes the job still has. */
			MPI_Comm_rank(psiplace_mall_comm(m), &rank);
			if (release(m, rank == 0, (size_t)-d->act[i], before, d->timing, &err) < 0 ||
			    psiplace_mall_drop_nodes(m, (size_t)-d->act[i], before, &err) < 0)
				goto fail;
		}
	}
	if (d->hold)
		hold(psiplace_mall_comm(m), d->hold);
	MPI_Barrier(psiplace_mall_comm(m));
	return 0;
fail:
	fprintf(stderr, "psiplace: error: %s\n", err.text);
	return 1;
}

/* What rank 0 tells everyone at the top of each iteration. */
struct progress_state {
	long iter, done; /* iterations and units done so far */
	double start;    /* MPI_Wtime of rank 0 at the start */
	int stop;
};

/* MPI_Allreduce (sum of longs) that sleeps while it waits. */
static int sleepy_sum(long *in, long *out, MPI_Comm comm)
{
	struct timespec nap = { 0, 5 * 1000 * 1000 };
	MPI_Request req;
	int done = 0, rc = MPI_Iallreduce(in, out, 1, MPI_LONG, MPI_SUM, comm, &req);

	while (rc == MPI_SUCCESS && !done) {
		rc = MPI_Test(&req, &done, MPI_STATUS_IGNORE);
		if (!done)
			nanosleep(&nap, NULL);
	}
	return rc;
}

static int sleepy_bcast(void *buf, int len, MPI_Comm comm)
{
	struct timespec nap = { 0, 5 * 1000 * 1000 };
	MPI_Request req;
	int done = 0, rc = MPI_Ibcast(buf, len, MPI_BYTE, 0, comm, &req);

	while (rc == MPI_SUCCESS && !done) {
		rc = MPI_Test(&req, &done, MPI_STATUS_IGNORE);
		if (!done)
			nanosleep(&nap, NULL);
	}
	return rc;
}

/* One unit of work: a short sum (the demo's kernel), then a pause that
 * stands for the rest of an iteration (200 ms: processes share 2 cores
 * with others here, so the kernel itself stays tiny). */
static long unit(long iter, int rank)
{
	struct timespec nap = { 0, 200 * 1000 * 1000 };
	volatile double x = 0;
	long i;

	for (i = 1; i <= 20000; i++)
		x += 1.0 / (double)(i + iter + rank);
	nanosleep(&nap, NULL);
	return x > 0 ? 1 : 0;
}

/* --malleable: iterate; at each checkpoint poll the order and act on it. */
static int run_malleable(psiplace_mall_t *m, const struct demo *d)
{
	struct progress_state ps = { 0 };
	struct psiplace_mall_order o;
	psiplace_error_t err;
	char nodes[4096];
	int rank, size, kind, act;

	if (d->timeout)
		psiplace_mall_set_timeout(m, d->timeout);
	if (psiplace_mall_resizes(m) > 0)
		report(m); /* spawned by a grow */
	MPI_Comm_rank(psiplace_mall_comm(m), &rank);
	if (rank == 0)
		ps.start = MPI_Wtime();
	for (;;) {
		long mine, sum = 0;

		if (sleepy_bcast(&ps, (int)sizeof(ps), psiplace_mall_comm(m)) != MPI_SUCCESS)
			return 1;
		if (ps.stop)
			break;
		MPI_Comm_rank(psiplace_mall_comm(m), &rank);
		mine = unit(ps.iter, rank);
		if (sleepy_sum(&mine, &sum, psiplace_mall_comm(m)) != MPI_SUCCESS)
			return 1;
		if (rank == 0) {
			ps.iter++;
			ps.done += sum;
			ps.stop = d->work ? ps.done >= d->work : MPI_Wtime() - ps.start >= d->run_s;
		}
		/* the checkpoint */
		if ((kind = psiplace_mall_poll(m, &o, &err)) < 0) {
			/* the job's record unreadable (slurmctld restarting) or
			 * a malformed order: no resize, the job goes on */
			if (rank == 0)
				fprintf(stderr, "psiplace: warning: %s\n", err.text);
			continue;
		}
		if (kind == PSIPLACE_MALL_NONE)
			continue;
		if ((act = psiplace_mall_act(m, &o, d->strategy, nodes, sizeof(nodes), &err)) < 0) {
			/* acknowledged failed; the job goes on at its size */
			if (rank == 0)
				fprintf(stderr, "psiplace: warning: %s\n", err.text);
			continue;
		}
		if (act > 0)
			continue; /* a grow's helper pending: a later poll brings it back */
		if (psiplace_mall_leaving(m))
			return 0;
		if (rank == 0 && kind == PSIPLACE_MALL_GROW) {
			printf("granted %s\n", nodes);
			fflush(stdout);
		}
		report(m);
		if (rank == 0 && kind == PSIPLACE_MALL_SHRINK) {
			printf("released %s\n", nodes);
			fflush(stdout);
		}
	}
	MPI_Comm_size(psiplace_mall_comm(m), &size);
	if (rank == 0) {
		printf("done %ld units in %ld iterations on %d processes\n", ps.done, ps.iter, size);
		fflush(stdout);
	}
	return 0;
}

int main(int argc, char **argv)
{
	psiplace_mall_t *m;
	psiplace_error_t err;
	struct demo d;
	int rc;

	fault = demo_fault_of(argc, argv);
	MPI_Init(&argc, &argv);
	if (psiplace_mall_init(&argc, &argv, &m, &err) < 0) {
		fprintf(stderr, "psiplace: error: %s\n", err.text);
		MPI_Finalize();
		return 1;
	}
	rc = parse(argc, argv, &d);
	if (rc == 0)
		rc = d.malleable ? run_malleable(m, &d) : run(m, &d);
	else
		rc = rc > 0 ? 0 : 2;
	psiplace_mall_free(m);
	MPI_Finalize();
	return rc;
}
