/* The node-ranking engine: one rating pass, one total-order sort. */
#include <stdlib.h>

#include "psiplace/error.h"
#include "psiplace/policy.h"

struct rated {
	uint64_t tier;  /* major key: the site weight (0 when overridden) */
	double score;   /* policy key, lower first */
	uint32_t index; /* node index, the tie-break */
	uint32_t pos;   /* position in the caller's array */
	int tie_dir;    /* +1 ascending index, -1 descending */
};

bool psiplace_policy_supported(enum psiplace_policy p)
{
	return p == PSIPLACE_POLICY_NONE || p == PSIPLACE_POLICY_FIRSTAVAILABLE ||
	       p == PSIPLACE_POLICY_LASTAVAILABLE;
}

static int cmp_rated(const void *a, const void *b)
{
	const struct rated *x = a, *y = b;

	if (x->tier != y->tier)
		return x->tier < y->tier ? -1 : 1;
	if (x->score != y->score)
		return x->score < y->score ? -1 : 1;
	if (x->index != y->index)
		return (x->index < y->index ? -1 : 1) * x->tie_dir;
	return 0;
}

static double rate(enum psiplace_policy p, const struct psiplace_node *n)
{
	(void)n;
	switch (p) {
	case PSIPLACE_POLICY_FIRSTAVAILABLE:
	case PSIPLACE_POLICY_LASTAVAILABLE:
	default:
		return 0.0; /* order by index alone */
	}
}

int psiplace_rank(const struct psiplace_rank_opts *opts,
		  const struct psiplace_node *nodes, size_t n, uint32_t *order,
		  char *err, size_t errlen)
{
	struct rated *r;
	size_t i;
	int dir = opts->policy == PSIPLACE_POLICY_LASTAVAILABLE ? -1 : 1;

	if (!psiplace_policy_supported(opts->policy))
		return psiplace_seterr(err, errlen,
				       "policy %s is not yet supported by this psiplace build",
				       psiplace_policy_name(opts->policy));
	if (n == 0)
		return 0;
	r = malloc(n * sizeof(*r));
	if (!r)
		return psiplace_seterr(err, errlen, "out of memory ranking %zu nodes", n);
	for (i = 0; i < n; i++) {
		r[i].tier = opts->policy_overrides_weight ? 0 : nodes[i].weight;
		r[i].score = rate(opts->policy, &nodes[i]);
		r[i].index = nodes[i].index;
		r[i].pos = (uint32_t)i;
		r[i].tie_dir = dir;
	}
	qsort(r, n, sizeof(*r), cmp_rated);
	for (i = 0; i < n; i++)
		order[i] = r[i].pos;
	free(r);
	return 0;
}
