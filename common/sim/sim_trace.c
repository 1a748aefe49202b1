/* A workload trace: the format chosen and the reader called (the
 * dispatcher, above the readers, which use sim_rows.c below them). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/sim.h"
#include "psiplace/textparse.h"
#include "sim_readers.h"

/* sacct -P: the first line that is not blank is a '|'-separated header
 * naming JobIDRaw or JobID. */
static bool looks_like_sacct(const char *text, size_t len)
{
	struct psiplace_lines it;
	const char *line;
	size_t n;

	psiplace_lines_init(&it, text, len);
	while (psiplace_lines_next(&it, &line, &n, NULL)) {
		size_t i = 0;

		while (i < n && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
			i++;
		if (i == n)
			continue;
		return memchr(line, '|', n) && (strncmp(line + i, "JobID", 5) == 0 ||
						memmem(line, n, "|JobID", 6));
	}
	return false;
}

int psiplace_sim_trace_parse(const char *text, size_t len, const char *file,
			     enum psiplace_sim_format format, bool lenient,
			     struct psiplace_sim_trace *t, psiplace_error_t *err)
{
	int rc;

	memset(t, 0, sizeof(*t));
	if (format == PSIPLACE_SIM_AUTO)
		format = looks_like_sacct(text, len) ? PSIPLACE_SIM_SACCT : PSIPLACE_SIM_SWF;
	t->format = format;
	if (format == PSIPLACE_SIM_SACCT)
		rc = sim_sacct_parse(text, len, file, lenient, t, err);
	else
		rc = sim_swf_parse(text, len, file, lenient, t, err);
	if (rc < 0)
		psiplace_sim_trace_free(t);
	return rc;
}

void psiplace_sim_trace_free(struct psiplace_sim_trace *t)
{
	if (!t)
		return;
	free(t->jobs);
	free(t->nodelists);
	t->jobs = NULL;
	t->nodelists = NULL;
	t->n = t->nodelists_len = t->nodelists_cap = 0;
}
