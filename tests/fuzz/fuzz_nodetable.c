/* libFuzzer: CSV node tables, then a rank of what parsed. */
#include <stdint.h>
#include <stdlib.h>

#include "psiplace/error.h"
#include "psiplace/nodetable.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct psiplace_nodetable t;
	struct psiplace_rank_opts o = { .policy = (enum psiplace_policy)(size % PSIPLACE_POLICY_COUNT) };
	psiplace_error_t err;
	uint32_t *order;

	if (psiplace_nodetable_parse((const char *)data, size, "fuzz", &t, &err) < 0)
		return 0;
	if ((order = calloc(t.n, sizeof(*order)))) {
		(void)psiplace_rank(&o, t.nodes, t.n, order, &err);
		(void)psiplace_choose(&o, t.nodes, t.n, t.n / 2 + 1, order, &err);
		free(order);
	}
	psiplace_nodetable_free(&t);
	return 0;
}
