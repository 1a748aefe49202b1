/* The engine asked for a job's nodes: psiplace_choose(), the call the
 * select plugin makes, with the set policies' fallback. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/sim.h"
#include "sim_replay.h"

bool sim_choose(struct sim *s, const struct sjob *j, const struct psiplace_node *view, size_t n,
	    int64_t start_in, uint32_t *out)
{
	struct psiplace_rank_opts o = s->opts->rank;
	struct psiplace_job pj = {
		.nodes = j->k, .cpus = j->ppn, .mem = j->mem, .duration = j->limit,
		.start = start_in, .future = start_in > 0,
		.seed = s->opts->seed ^ (j->id * 0x9e3779b97f4a7c15ull),
	};

	o.job = &pj;
	s->engine_calls++;
	if (psiplace_choose(&o, view, n, j->k, out, NULL) == (int)j->k)
		return true;
	/* A set policy without a set (CONTIGUOUS: no run of k): the select
	 * plugin ranks all candidates then, and so does the model.  That
	 * ranking (psiplace_rank_partial) puts the candidates first in index
	 * order, weights aside, as FIRSTAVAILABLE with the weight overridden
	 * chooses them, without sorting all nodes. */
	if (!psiplace_policy_is_set(o.policy))
		return false;
	o.policy = PSIPLACE_POLICY_FIRSTAVAILABLE;
	o.policy_overrides_weight = true;
	if (psiplace_choose(&o, view, n, j->k, out, NULL) != (int)j->k)
		return false;
	for (uint32_t i = 0; i < j->k; i++)
		if (!psiplace_node_eligible(&view[out[i]], &pj))
			return false;
	return true;
}
