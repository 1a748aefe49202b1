/* The entry points psiplace_rank_partial() and psiplace_choose(): the
 * columnar path (rank_columns.c) for the policies it orders, rating node
 * by node (engine.c) for the others.  Above both, so that neither calls
 * back into the other. */
#include "engine_internal.h"
#include "psiplace/error.h"
#include "psiplace/policy.h"

int psiplace_rank_partial(const struct psiplace_rank_opts *opts,
			  const struct psiplace_node *nodes, size_t n, size_t k, uint32_t *order,
			  psiplace_error_t *err)
{
	if (!psiplace_policy_columnar(opts))
		return psiplace_rank_partial_nodes(opts, nodes, n, k, order, err);
	return psiplace_rank_partial_records(opts, nodes, n, k, order, err);
}

int psiplace_choose(const struct psiplace_rank_opts *opts, const struct psiplace_node *nodes,
		    size_t n, size_t k, uint32_t *out, psiplace_error_t *err)
{
	if (!psiplace_policy_columnar(opts))
		return psiplace_choose_nodes(opts, nodes, n, k, out, err);
	return psiplace_choose_records(opts, nodes, n, k, out, err);
}
