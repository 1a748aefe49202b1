/* psiplace — a gathered request turned into the options of the placement
 * backends (LAMA, ParaStation's slots).  The backends never read a request
 * themselves: the request part sits above them and translates. */
#ifndef PSIPLACE_REQUEST_LAUNCH_H
#define PSIPLACE_REQUEST_LAUNCH_H

#include "psiplace/error.h"
#include "psiplace/lama.h"
#include "psiplace/psi_slots.h"
#include "psiplace/user_request.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The LAMA options of a gathered request: its strings applied (options
 * before OMPI_MCA_rmaps_lama_* variables, so an option always wins and a
 * bad variable an option overrides is never parsed), then
 * psiplace_lama_finish().  -1 with one error line naming the string. */
int psiplace_lama_opts_of_request(const struct psiplace_user_request *r, struct psiplace_lama_opts *o,
				  psiplace_error_t *err);

/* The Slurm distribution (block or cyclic) that yields LAMA's node order
 * for a request, from its strings alone (psiplace_lama_choose_dist
 * without topologies).  -1 with err when the LAMA strings are bad. */
int psiplace_lama_request_dist(const struct psiplace_user_request *r, enum psiplace_lama_dist *dist,
			       psiplace_error_t *err);

/* The ParaStation placement options of a gathered request. */
void psiplace_psi_opts_of_request(const struct psiplace_user_request *r, struct psiplace_psi_opts *o);

#ifdef __cplusplus
}
#endif
#endif
