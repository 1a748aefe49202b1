/* psiplace map: the placement backends (LAMA, ParaStation).  Both take
 * the request psiplace_user_request_gather built, as slurmstepd does. */
#ifndef PSIPLACE_CLI_MAP_BACKEND_H
#define PSIPLACE_CLI_MAP_BACKEND_H

#include <stddef.h>

#include "map_result.h"
#include "psiplace/error.h"
#include "psiplace/lama.h"
#include "psiplace/user_request.h"

/* tasks_per_node NULL: the backend decides the counts.  0, or -1 with err. */
int map_psi_place(const struct psiplace_user_request *r, unsigned nnodes,
		  const struct psiplace_topo *const *topo, size_t ntasks,
		  const unsigned *tasks_per_node, struct map_result *out, psiplace_error_t *err);
/* o: psiplace_lama_opts_of_request of the request. */
int map_lama_place(const struct psiplace_lama_opts *o, unsigned nnodes,
		   const struct psiplace_topo *const *topo, size_t ntasks,
		   const unsigned *tasks_per_node, struct map_result *out, psiplace_error_t *err);

#endif
