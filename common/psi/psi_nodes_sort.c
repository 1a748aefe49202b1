/* PSI_NODES_SORT in slurmctld: rate every candidate once, then one
 * total-order sort (psmgmt's getCandidateList/sortCandidates pipeline). */
#include <stdlib.h>

#include "psiplace/psi_values.h"

double psiplace_psi_rating(enum psiplace_nodes_sort mode, const struct psiplace_node *node)
{
	double threads = node->threads ? node->threads : (node->cpus ? node->cpus : 1);

	switch (mode) {
	case PSIPLACE_SORT_UNSET:
	case PSIPLACE_SORT_PROC: return node->alloc_cpus / threads;
	case PSIPLACE_SORT_LOAD1: return node->load1 / threads;
	case PSIPLACE_SORT_LOAD5: return node->load5 / threads;
	case PSIPLACE_SORT_LOAD15: return node->load15 / threads;
	case PSIPLACE_SORT_PROC_LOAD: return (node->alloc_cpus + node->load1) / threads;
	default: return 0;
	}
}

struct rated {
	double rating;
	uint64_t weight;
	uint32_t threads, index, pos, node;
};

static int cmp_rated(const void *a, const void *b)
{
	const struct rated *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight < y->weight ? -1 : 1;
	if (x->rating != y->rating)
		return x->rating < y->rating ? -1 : 1;
	if (x->threads != y->threads)
		return x->threads > y->threads ? -1 : 1;
	if (x->index != y->index)
		return x->index < y->index ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

int psiplace_psi_sort(enum psiplace_nodes_sort mode, bool policy_overrides_weight,
		      const struct psiplace_node *nodes, uint32_t *order, size_t n,
		      psiplace_error_t *err)
{
	struct rated *r;
	size_t i;

	if (n < 2)
		return 0;
	if (!(r = malloc(n * sizeof(*r))))
		return psiplace_seterr(err, "PSI node sort: out of memory for %zu nodes", n);
	for (i = 0; i < n; i++) {
		const struct psiplace_node *nd = &nodes[order[i]];

		r[i].weight = policy_overrides_weight ? 0 : nd->weight;
		r[i].pos = (uint32_t)i;
		r[i].node = order[i];
		if (mode == PSIPLACE_SORT_NONE) {
			/* List order is the key: only the weight tier and position count. */
			r[i].rating = 0;
			r[i].threads = 0;
			r[i].index = 0;
		} else {
			r[i].rating = psiplace_psi_rating(mode, nd);
			r[i].threads = nd->threads ? nd->threads : nd->cpus;
			r[i].index = nd->index;
		}
	}
	qsort(r, n, sizeof(*r), cmp_rated);
	for (i = 0; i < n; i++)
		order[i] = r[i].node;
	free(r);
	return 0;
}
