/* The step layout strings Slurm exports to every task. */
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/intvec.h"
#include "psiplace/step_layout.h"

int psiplace_tasks_per_node_parse(const char *s, const char *what, uint32_t **counts, uint32_t *n,
				  psiplace_error_t *err)
{
	struct psiplace_intvec v;
	size_t i;

	*counts = NULL;
	*n = 0;
	if (psiplace_intvec_parse(s, what, &v, err) < 0)
		return -1;
	if (!(*counts = malloc(v.n * sizeof(**counts)))) {
		psiplace_intvec_free(&v);
		return psiplace_seterr(err, "%s: out of memory for %zu entries", what, v.n);
	}
	for (i = 0; i < v.n; i++)
		(*counts)[i] = (uint32_t)v.v[i];
	*n = (uint32_t)v.n;
	psiplace_intvec_free(&v);
	return 0;
}

uint64_t psiplace_counts_sum(const uint32_t *counts, uint32_t n)
{
	uint64_t sum = 0;
	uint32_t i;

	for (i = 0; i < n; i++)
		sum += counts[i];
	return sum;
}

int psiplace_step_tasks_per_node(const char *value, const char *what, uint32_t nnodes,
				 uint32_t ntasks, uint32_t node, uint32_t nlocal, uint32_t **counts,
				 psiplace_error_t *err)
{
	uint32_t *c, n;
	uint64_t sum;
	char q[80];

	*counts = NULL;
	if (psiplace_tasks_per_node_parse(value, what, &c, &n, err) < 0)
		return -1;
	sum = psiplace_counts_sum(c, n);
	if (n == nnodes && sum == ntasks && node < n && c[node] == nlocal) {
		*counts = c;
		return 0;
	}
	psiplace_quote(q, sizeof(q), value, 60);
	psiplace_seterr(err,
			"%s: '%s' gives %u node%s and %llu tasks (%u on node %u); Slurm's step has %u node%s, %u tasks, %u on node %u; accepted: one count per node of the step, adding up to its tasks",
			what, q, n, n == 1 ? "" : "s", (unsigned long long)sum,
			node < n ? c[node] : 0, node, nnodes, nnodes == 1 ? "" : "s", ntasks, nlocal,
			node);
	free(c);
	return -1;
}

void psiplace_step_free(struct psiplace_step *s)
{
	free(s->tasks_per_node);
	free(s->gtids);
	memset(s, 0, sizeof(*s));
}
