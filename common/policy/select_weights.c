/* How select/psiplace_cons_tres hands a policy's order to cons_tres: the
 * node weights it injects (see policy.h).  Here so that `psiplace rank
 * --as-select` shows exactly what the plugin writes. */
#include "psiplace/policy.h"

uint32_t psiplace_select_distinct(uint32_t need, uint32_t margin, uint32_t candidates)
{
	uint64_t d = (uint64_t)need + margin;

	return d > candidates ? candidates : (uint32_t)d;
}

uint64_t psiplace_select_sched_weight(uint64_t orig, uint32_t rank, bool overrides)
{
	uint64_t flags = (orig >> 40) & 0x3;
	uint64_t weight = (orig >> 8) & 0xffffffffULL;

	if (rank > PSIPLACE_SELECT_RANK_MAX)
		rank = PSIPLACE_SELECT_RANK_MAX;
	return (flags << 62) | (overrides ? 0 : weight << 30) | ((uint64_t)rank << 8) |
	       (orig & 0xff);
}
