/* The trace readers (sim_sacct.c, sim_swf.c), which the dispatcher
 * (sim_trace.c) calls; they use sim_rows.h below them. */
#ifndef PSIPLACE_SIM_READERS_H
#define PSIPLACE_SIM_READERS_H

#include <stdbool.h>
#include <stddef.h>

#include "psiplace/sim.h"

int sim_sacct_parse(const char *text, size_t len, const char *file, bool lenient,
		    struct psiplace_sim_trace *t, psiplace_error_t *err);
int sim_swf_parse(const char *text, size_t len, const char *file, bool lenient,
		  struct psiplace_sim_trace *t, psiplace_error_t *err);

#endif
