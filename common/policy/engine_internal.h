/* Shared by the engine's files (common/policy*.c); not a public header. */
#ifndef PSIPLACE_ENGINE_INTERNAL_H
#define PSIPLACE_ENGINE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "psiplace/policy.h"
#include "psiplace/error.h"

/* One eligible node's keys: k[0] the weight tier, k[1..3] the policy's
 * keys, idx the tie-break (index, or ~index for descending); pos is the
 * position in the caller's array and makes the order total. */
struct psiplace_rated {
	uint64_t k[4];
	uint32_t idx;
	uint32_t pos;
};

static inline int psiplace_rated_cmp(const struct psiplace_rated *a,
				     const struct psiplace_rated *b)
{
	int i;

	for (i = 0; i < 4; i++)
		if (a->k[i] != b->k[i])
			return a->k[i] < b->k[i] ? -1 : 1;
	if (a->idx != b->idx)
		return a->idx < b->idx ? -1 : 1;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

uint64_t psiplace_dkey(double d);

/* Sort n rated nodes; or put the k smallest first (unordered). */
void psiplace_rated_sort(struct psiplace_rated *a, size_t n);
void psiplace_rated_select(struct psiplace_rated *a, size_t n, size_t k);

double psiplace_priority_value(const struct psiplace_rank_opts *o,
			       const struct psiplace_node *n);

int psiplace_rate_eligible(const struct psiplace_rank_opts *o,
			   const struct psiplace_node *nodes, size_t n,
			   struct psiplace_rated **r, size_t *m, psiplace_error_t *err);

/* MAXBALANCE or CONTIGUOUS over the m rated eligible nodes (reordered):
 * out[0..k-1] in ascending node index.  Returns k or -1 (err). */
int psiplace_choose_set(const struct psiplace_rank_opts *o,
			const struct psiplace_node *nodes,
			struct psiplace_rated *r, size_t m, size_t k,
			uint32_t *out, psiplace_error_t *err);

#endif
