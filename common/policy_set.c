/* Set policies: MAXBALANCE (smallest Speed span) and CONTIGUOUS (first run
 * of consecutive node indexes).  The site weight stays the major key by
 * widening: the set is sought among the nodes of the lowest tier first,
 * then of the two lowest tiers, and so on. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy_internal.h"
#include "psiplace/error.h"

struct member {
	uint64_t speed; /* psiplace_dkey(speed) */
	double sp;      /* the speed itself, NaN as 0 */
	uint32_t index, pos;
};

static int cmp_speed(const void *a, const void *b)
{
	const struct member *x = a, *y = b;

	if (x->speed != y->speed)
		return x->speed < y->speed ? -1 : 1;
	if (x->index != y->index)
		return x->index < y->index ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int cmp_index(const void *a, const void *b)
{
	const struct member *x = a, *y = b;

	if (x->index != y->index)
		return x->index < y->index ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int cmp_tier(const void *a, const void *b)
{
	const struct psiplace_rated *x = a, *y = b;

	if (x->k[0] != y->k[0])
		return x->k[0] < y->k[0] ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* MAXBALANCE on s[0..m-1]: the window of k in speed order with the
 * smallest span, ties to the faster window; then the k lowest-index nodes
 * whose speed lies in that window's [lo, hi]. */
static size_t maxbalance(struct member *s, size_t m, size_t k, uint32_t *out)
{
	double lo = 0, hi = 0, best = INFINITY;
	size_t i, c = 0;

	qsort(s, m, sizeof(*s), cmp_speed);
	for (i = 0; i + k <= m; i++) {
		double span = s[i + k - 1].sp - s[i].sp;

		if (isnan(span))
			span = INFINITY;
		if (i == 0 || span < best || (span == best && s[i].sp > lo)) {
			best = span;
			lo = s[i].sp;
			hi = s[i + k - 1].sp;
		}
	}
	qsort(s, m, sizeof(*s), cmp_index);
	for (i = 0; i < m && c < k; i++)
		if (s[i].sp >= lo && s[i].sp <= hi)
			out[c++] = s[i].pos;
	return c;
}

/* CONTIGUOUS on s[0..m-1]: the first k of the lowest-index run of
 * consecutive indexes that holds k. */
static size_t contiguous(struct member *s, size_t m, size_t k, uint32_t *out)
{
	size_t i, u = 0, run = 0, c;

	qsort(s, m, sizeof(*s), cmp_index);
	for (i = 0; i < m; i++) /* a duplicate index neither extends nor breaks a run */
		if (!u || s[i].index != s[u - 1].index)
			s[u++] = s[i];
	for (i = 0; i < u; i++) {
		run = (i && s[i].index == s[i - 1].index + 1) ? run + 1 : 1;
		if (run == k) {
			for (c = 0; c < k; c++)
				out[c] = s[i + 1 - k + c].pos;
			return k;
		}
	}
	return 0;
}

int psiplace_choose_set(const struct psiplace_rank_opts *o, const struct psiplace_node *nodes,
			struct psiplace_rated *r, size_t m, size_t k, uint32_t *out, char *err,
			size_t errlen)
{
	struct member *s;
	size_t end = 0, i, got = 0;

	if (k == 0)
		return 0;
	if (!(s = malloc(m * sizeof(*s) + 1)))
		return psiplace_seterr(err, errlen, "out of memory choosing %zu nodes", k);
	qsort(r, m, sizeof(*r), cmp_tier);
	while (end < m && !got) {
		uint64_t tier = r[end].k[0];

		while (end < m && r[end].k[0] == tier)
			end++;
		if (end < k)
			continue;
		for (i = 0; i < end; i++) {
			const struct psiplace_node *n = &nodes[r[i].pos];

			s[i].sp = isnan(n->speed) ? 0.0 : n->speed;
			s[i].speed = psiplace_dkey(s[i].sp);
			s[i].index = n->index;
			s[i].pos = r[i].pos;
		}
		if (o->policy == PSIPLACE_POLICY_MAXBALANCE)
			got = maxbalance(s, end, k, out);
		else
			got = contiguous(s, end, k, out);
	}
	free(s);
	if (got == k)
		return (int)k;
	if (o->policy == PSIPLACE_POLICY_CONTIGUOUS)
		return psiplace_seterr(err, errlen,
				       "CONTIGUOUS: no run of %zu consecutive eligible nodes", k);
	return psiplace_seterr(err, errlen, "MAXBALANCE: fewer than %zu eligible nodes", k);
}
