/* A gathered request turned into the placement backends' options
 * (psiplace/request_launch.h). */
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/options.h"
#include "psiplace/request_launch.h"

int psiplace_lama_opts_of_request(const struct psiplace_user_request *r, struct psiplace_lama_opts *o,
				  psiplace_error_t *err)
{
	const struct psiplace_lama_strings *l = &r->lama_strings;
	const char *from[] = { l->map_by_from, l->map_from, l->bind_to_from, l->bind_from,
			       l->mppr_from, l->order_from };
	const char *val[] = { l->map_by, l->map, l->bind_to, l->bind, l->mppr, l->order };
	unsigned i, pass;

	psiplace_lama_opts_init(o);
	/* Options ("--psi-...") first: a variable then never replaces them. */
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < sizeof(val) / sizeof(val[0]); i++)
			if (val[i] && from[i] && (from[i][0] == '-') == (pass == 0) &&
			    psiplace_lama_apply(o, from[i], val[i], err) < 0)
				return -1;
	if (l->oversubscribe &&
	    psiplace_lama_apply(o, psiplace_opt_table[PSIPLACE_OPT_OVERSUBSCRIBE].dashed, NULL, err) < 0)
		return -1;
	return psiplace_lama_finish(o, err);
}

int psiplace_lama_request_dist(const struct psiplace_user_request *r, enum psiplace_lama_dist *dist,
			       psiplace_error_t *err)
{
	struct psiplace_lama_opts o;

	if (psiplace_lama_opts_of_request(r, &o, err) < 0)
		return -1;
	return psiplace_lama_choose_dist(&o, 0, NULL, NULL, dist, NULL, err);
}

void psiplace_psi_opts_of_request(const struct psiplace_user_request *r, struct psiplace_psi_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->tpp = r->tpp ? r->tpp : 1;
	o->cpumap = r->cpumap;
	o->ncpumap = r->ncpumap;
	o->cpumap_from = r->cpumap_from;
	o->overbook = r->overbook;
	o->loop_nodes_first = r->loop_nodes_first;
	o->pin = r->pin;
	o->bindmem = r->bindmem;
}
