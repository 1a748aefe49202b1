/* Benchmarks of the ranking engine (SPEC §5): PRIORITYF evaluations per
 * second, and the time to choose the best 1,000 of 1k/10k/100k nodes.
 * Prints `bench: NAME VALUE UNIT` lines; asserts nothing about time. */
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

/* Median wall time of `reps` runs of choose(k) over n nodes, in ms. */
static double time_choose(const struct psiplace_rank_opts *o, const struct psiplace_node *v,
			  size_t n, size_t k, uint32_t *out, int reps)
{
	double t[64];
	psiplace_error_t err;
	int r;

	for (r = 0; r < reps; r++) {
		double t0 = now();

		if (psiplace_choose(o, v, n, k, out, &err) != (int)k) {
			fprintf(stderr, "bench_rank: %s\n", err.text);
			exit(1);
		}
		t[r] = (now() - t0) * 1e3;
	}
	qsort(t, (size_t)reps, sizeof(t[0]), cmp_double);
	return t[reps / 2];
}

/* Evaluations per second over n nodes (n * reps evaluations in all). */
static void bench_eval(const struct psiplace_priorityf *f, const struct psiplace_node *v,
		       size_t n, int reps)
{
	double *out = malloc(n * sizeof(*out)), t0, t, sum = 0;
	int r;

	psiplace_priorityf_eval_many(f, v, n, 1, out); /* warm up */
	t0 = now();
	for (r = 0; r < reps; r++) {
		psiplace_priorityf_eval_many(f, v, n, (uint64_t)r, out);
		sum += out[r];
	}
	t = now() - t0;
	printf("bench: priorityf_10term_evals_%zuk %.1f M/s\n", n / 1000, (double)n * reps / t / 1e6);
	if (sum == 12345.678)
		puts("");
	free(out);
}

int main(void)
{
	static const size_t sizes[] = { 1000, 10000, 100000 };
	struct psiplace_priorityf *f;
	struct psiplace_node *v = make_nodes(100000);
	uint32_t *out = malloc(100000 * sizeof(*out));
	struct psiplace_job job = { .seed = 1 };
	struct psiplace_rank_opts o = { .policy = PSIPLACE_POLICY_PRIORITY, .job = &job };
	psiplace_error_t err;
	size_t i;

	if (!v || !out || psiplace_priorityf_compile(TEN_TERMS, "bench", &f, &err) < 0) {
		fprintf(stderr, "bench_rank: setup failed: %s\n", err.text);
		return 1;
	}
	job.priorityf = f;
	bench_eval(f, v, 10000, 500);  /* in cache: the evaluator's own rate */
	bench_eval(f, v, 100000, 50); /* 21 MB of node records: memory-bound */
	for (i = 0; i < 3; i++) {
		size_t n = sizes[i], k = n < 1000 ? n : 1000;

		printf("bench: rank_%zuk_top1000_priorityf %.3f ms\n", n / 1000,
		       time_choose(&o, v, n, k, out, 21));
	}
	o.policy = PSIPLACE_POLICY_CPULOAD;
	printf("bench: rank_100k_top1000_cpuload %.3f ms\n", time_choose(&o, v, 100000, 1000, out, 21));
	o.policy = PSIPLACE_POLICY_MAXBALANCE;
	printf("bench: choose_100k_1000_maxbalance %.3f ms\n",
	       time_choose(&o, v, 100000, 1000, out, 11));
	o.policy = PSIPLACE_POLICY_PRIORITY;
	{
		double t0 = now();

		psiplace_rank(&o, v, 100000, out, &err);
		printf("bench: rank_100k_full_sort_priorityf %.3f ms\n", (now() - t0) * 1e3);
	}
	{
		double t0 = now();

		psiplace_rank_partial(&o, v, 100000, 32, out, &err);
		printf("bench: rank_100k_partial32_priorityf %.3f ms\n", (now() - t0) * 1e3);
	}
	psiplace_priorityf_free(f);
	free(v);
	free(out);
	return 0;
}
