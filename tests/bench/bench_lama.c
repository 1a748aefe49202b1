/* LAMA mapping cost: 10k, 100k and 1M processes on nodes of
 * "pack:2 l3:4 core:8 pu:2" (128 threads), one node per 128 processes
 * (1M over 8,192 nodes; target < 0.5 s).  The topology is loaded
 * once and shared by all nodes.  Prints `bench: NAME VALUE UNIT`; the
 * ns/process figures show linearity.  Best of 3 runs. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "psiplace/error.h"
#include "psiplace/lama.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int bench(const char *name, const struct psiplace_topo *t, size_t nprocs,
		 const char *const *kv)
{
	unsigned nnodes = (unsigned)((nprocs + t->npus - 1) / t->npus), i;
	const struct psiplace_topo **all = malloc(nnodes * sizeof(*all));
	struct psiplace_lama_opts o;
	struct psiplace_lama_map m;
	psiplace_error_t err;
	double best = 1e30;
	int run;

	if (!all)
		return -1;
	for (i = 0; i < nnodes; i++)
		all[i] = t;
	psiplace_lama_opts_init(&o);
	for (; kv && kv[0]; kv += 2)
		if (psiplace_lama_apply(&o, kv[0], kv[1], &err) < 0)
			goto fail;
	if (psiplace_lama_finish(&o, &err) < 0)
		goto fail;
	for (run = 0; run < 3; run++) {
		double t0 = now_ms(), dt;

		if (psiplace_lama_map(&o, nnodes, all, nprocs, &m, &err) < 0)
			goto fail;
		dt = now_ms() - t0;
		psiplace_lama_map_free(&m);
		if (dt < best)
			best = dt;
	}
	printf("bench: %s %.1f ms\n", name, best);
	printf("bench: %s_per_process %.1f ns\n", name, best * 1e6 / (double)nprocs);
	free(all);
	return 0;
fail:
	fprintf(stderr, "bench_lama: %s: %s\n", name, err.text);
	free(all);
	return -1;
}

#define KV(...) ((const char *const[]){ __VA_ARGS__, NULL })

int main(void)
{
	struct psiplace_topo t;
	psiplace_error_t err;
	int rc = 0;

	if (psiplace_topo_load("pack:2 l3:4 core:8 pu:2", NULL, &t, &err) < 0) {
		fprintf(stderr, "bench_lama: %s\n", err.text);
		return 1;
	}
	rc |= bench("lama_map_10k", &t, 10000, NULL);
	rc |= bench("lama_map_100k", &t, 100000, NULL);
	rc |= bench("lama_map_1m_8192nodes", &t, 1000000, NULL);
	rc |= bench("lama_map_1m_by_node_sequential", &t, 1000000,
		    KV("--psi-map-by", "node", "--psi-lama-order", "s"));
	rc |= bench("lama_map_1m_bind_2c_mppr_oversubscribed", &t, 1000000,
		    KV("--psi-lama-bind", "2c", "--psi-lama-mppr", "2:c", "--psi-oversubscribe", NULL));
	psiplace_topo_free(&t);
	return rc ? 1 : 0;
}
