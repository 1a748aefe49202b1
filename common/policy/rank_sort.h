/* The engine's rated nodes and their order (rank_sort.c): the bottom of
 * common/policy/, used by every file above it; not a public header. */
#ifndef PSIPLACE_RANK_SORT_H
#define PSIPLACE_RANK_SORT_H

#include <stddef.h>
#include <stdint.h>

/* One eligible node's keys: k[0] the weight tier, k[1..3] the policy's
 * keys, idx the tie-break (index, or ~index for descending); pos is the
 * position in the caller's array and makes the order total. */
struct psiplace_rated {
	uint64_t k[4];
	uint32_t idx;
	uint32_t pos;
};

static inline int psiplace_rated_cmp(const struct psiplace_rated *a, const struct psiplace_rated *b)
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

#endif
