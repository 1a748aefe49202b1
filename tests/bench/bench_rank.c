/* Benchmarks of the ranking engine: PRIORITYF evaluations per second over
 * the columnar table and over the node records, and the time to choose
 * the best 1,000 of 1k/10k/100k nodes.  Prints a header line (build type,
 * load average) and `bench: NAME VALUE UNIT` lines, each figure the median
 * of three runs followed by its spread; asserts nothing about time. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "psiplace/error.h"
#include "psiplace/policy.h"
#include "psiplace/priorityf.h"

#define TEN_TERMS                                                                        \
	"SPEED + 0.01*AMEM - 10*JOBCOUNT - LOAD + 2*CPROCS + PRIORITY - COST + 0.5*APROCS " \
	"- 5*USAGE + 0.001*MTBF"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rng = 88172645463325252ULL;

static uint32_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

static struct psiplace_node *make_nodes(size_t n)
{
	struct psiplace_node *v = calloc(n, sizeof(*v));
	size_t i;

	for (i = 0; v && i < n; i++) {
		v[i].index = (uint32_t)i;
		v[i].weight = next() % 3;
		v[i].cpus = 32 + 32 * (next() % 4);
		v[i].alloc_cpus = next() % v[i].cpus;
		v[i].threads = v[i].cpus * 2;
		v[i].load1 = (next() % 6400) / 100.0;
		v[i].real_memory = 65536 + 65536 * (next() % 8);
		v[i].alloc_memory = next() % v[i].real_memory;
		v[i].tmp_disk = 100000;
		v[i].speed = 1.0 + (next() % 16) / 8.0;
		v[i].priority = next() % 100;
		v[i].cost = (next() % 10) / 4.0;
		v[i].usage = (next() % 100) / 100.0;
		v[i].mtbf = next() % 1000000;
		v[i].jobs = next() % 8;
		v[i].next_resv = (next() % 4) ? -1 : (int64_t)(next() % 86400);
		v[i].power = true;
	}
	return v;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *t, int n)
{
	qsort(t, (size_t)n, sizeof(t[0]), cmp_double);
	return t[n / 2];
}

/* What one figure measures: fn(ctx) once, timed. */
struct fig {
	const struct psiplace_rank_opts *o;
	const struct psiplace_node *v;
	const struct psiplace_nodecols *c;
	const struct psiplace_priorityf *f;
	size_t n, k;
	uint32_t *out;
	double *score;
};

static void die(const char *what, const psiplace_error_t *err)
{
	fprintf(stderr, "bench_rank: %s: %s\n", what, err->text);
	exit(1);
}

static void run_choose(const struct fig *x)
{
	psiplace_error_t err;

	if (psiplace_choose(x->o, x->v, x->n, x->k, x->out, &err) != (int)x->k)
		die("choose", &err);
}

static void run_choose_cols(const struct fig *x)
{
	psiplace_error_t err;

	if (psiplace_choose_cols(x->o, x->c, x->k, x->out, &err) != (int)x->k)
		die("choose_cols", &err);
}

static void run_rank_full(const struct fig *x)
{
	psiplace_error_t err;

	if (psiplace_rank(x->o, x->v, x->n, x->out, &err) < 0)
		die("rank", &err);
}

static void run_partial(const struct fig *x)
{
	psiplace_error_t err;

	if (psiplace_rank_partial(x->o, x->v, x->n, x->k, x->out, &err) < 0)
		die("rank_partial", &err);
}

static void run_build(const struct fig *x)
{
	struct psiplace_nodecols *c;
	psiplace_error_t err;

	if (psiplace_nodecols_build(x->o, x->v, x->n, &c, &err) < 0)
		die("nodecols_build", &err);
	psiplace_nodecols_free(c);
}

static void run_eval_nodes(const struct fig *x)
{
	psiplace_priorityf_eval_many(x->f, x->v, x->n, 1, x->score);
}

static void run_eval_cols(const struct fig *x)
{
	psiplace_priorityf_eval_cols(x->f, x->c, 1, x->score);
}

/* Three runs, each the median of reps calls: the median run and the
 * spread (slowest - fastest), in ms per call. */
static void measure(const struct fig *x, void (*fn)(const struct fig *), int reps,
		    double *med, double *spread)
{
	double run[3], t[64];
	int i, r;

	fn(x); /* warm up */
	for (i = 0; i < 3; i++) {
		for (r = 0; r < reps; r++) {
			double t0 = now();

			fn(x);
			t[r] = (now() - t0) * 1e3;
		}
		run[i] = median(t, reps);
	}
	qsort(run, 3, sizeof(run[0]), cmp_double);
	*med = run[1];
	*spread = run[2] - run[0];
}

static void time_fig(const char *name, const struct fig *x, void (*fn)(const struct fig *),
		     int reps)
{
	double med, spread;

	measure(x, fn, reps, &med, &spread);
	printf("bench: %s %.3f ms\n", name, med);
	printf("bench: %s_spread %.3f ms\n", name, spread);
}

/* Node evaluations per second of the 10-term function over x->n nodes. */
static void rate_fig(const char *name, const struct fig *x, void (*fn)(const struct fig *),
		     int reps)
{
	double med, spread, lo, hi;

	measure(x, fn, reps, &med, &spread);
	lo = (double)x->n / ((med + spread) * 1e-3) / 1e6;
	hi = (double)x->n / (med * 1e-3) / 1e6;
	printf("bench: %s %.1f M/s\n", name, hi);
	printf("bench: %s_spread %.1f M/s\n", name, hi - lo);
}

#ifndef BENCH_BUILDTYPE
#define BENCH_BUILDTYPE "unknown"
#endif

int main(void)
{
	struct psiplace_priorityf *f = NULL;
	struct psiplace_node *v = make_nodes(100000);
	uint32_t *out = malloc(100000 * sizeof(*out));
	double *score = malloc(100000 * sizeof(*score)), load[3] = { -1, -1, -1 };
	struct psiplace_job job = { .seed = 1 };
	struct psiplace_rank_opts o = { .policy = PSIPLACE_POLICY_PRIORITY, .job = &job };
	struct psiplace_nodecols *c = NULL, *c10k = NULL;
	struct fig x = { .o = &o, .v = v, .out = out, .score = score };
	psiplace_error_t err;

	if (!v || !out || !score || psiplace_priorityf_compile(TEN_TERMS, "bench", &f, &err) < 0)
		die("setup", &err);
	job.priorityf = f;
	x.f = f;
	if (psiplace_nodecols_build(&o, v, 100000, &c, &err) < 0 ||
	    psiplace_nodecols_build(&o, v, 10000, &c10k, &err) < 0)
		die("nodecols_build", &err);
	getloadavg(load, 3);
	printf("bench_rank: build type %s, load average %.2f %.2f %.2f, "
	       "figures: median of 3 runs and spread (slowest - fastest)\n",
	       BENCH_BUILDTYPE, load[0], load[1], load[2]);

	x.n = 10000;
	x.c = c10k;
	rate_fig("priorityf_10term_evals_10k_cols", &x, run_eval_cols, 31);
	x.n = 100000;
	x.c = c;
	rate_fig("priorityf_10term_evals_100k_cols", &x, run_eval_cols, 21);
	rate_fig("priorityf_10term_evals_100k_records", &x, run_eval_nodes, 11);

	x.k = 1000;
	time_fig("rank_100k_top1000_priorityf_cols", &x, run_choose_cols, 21);
	time_fig("nodecols_build_100k_priorityf", &x, run_build, 11);
	time_fig("rank_100k_top1000_priorityf", &x, run_choose, 11);
	x.n = 10000;
	time_fig("rank_10k_top1000_priorityf", &x, run_choose, 21);
	x.n = 1000;
	time_fig("rank_1k_top1000_priorityf", &x, run_choose, 21);
	x.n = 100000;
	o.policy = PSIPLACE_POLICY_CPULOAD;
	time_fig("rank_100k_top1000_cpuload", &x, run_choose, 11);
	o.policy = PSIPLACE_POLICY_MAXBALANCE;
	time_fig("choose_100k_1000_maxbalance", &x, run_choose, 5);
	o.policy = PSIPLACE_POLICY_PRIORITY;
	time_fig("rank_100k_full_sort_priorityf", &x, run_rank_full, 5);
	x.k = 32;
	time_fig("rank_100k_partial32_priorityf", &x, run_partial, 11);

	psiplace_nodecols_free(c);
	psiplace_nodecols_free(c10k);
	psiplace_priorityf_free(f);
	free(v);
	free(out);
	free(score);
	return 0;
}
