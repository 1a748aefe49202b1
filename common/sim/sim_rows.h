/* The rows of a trace (sim_rows.c): the helpers both readers use,
 * below them (common/sim/). */
#ifndef PSIPLACE_SIM_ROWS_H
#define PSIPLACE_SIM_ROWS_H

#include "psiplace/sim.h"

/* Append a job (grows t->jobs); -1 when out of memory or over the
 * maximum. */
int sim_trace_add(struct psiplace_sim_trace *t, const struct psiplace_sim_job *j,
		  psiplace_error_t *err);

/* Keep a NodeList text of n bytes in t->nodelists: its offset, 0 for an
 * empty one, SIZE_MAX when out of memory. */
size_t sim_trace_nodelist(struct psiplace_sim_trace *t, const char *s, size_t n);

/* "YYYY-MM-DDTHH:MM:SS" as seconds since the epoch, the time taken as
 * UTC (only differences matter).  false for anything else. */
bool sim_parse_time(const char *s, size_t n, int64_t *out);

/* A malformed line: the error, or with lenient a count and 0. */
int sim_malformed(struct psiplace_sim_trace *t, bool lenient, psiplace_error_t *err,
		  const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

#endif
