/* The step layout strings Slurm exports to every task. */
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/intvec.h"
#include "psiplace/step_layout.h"

int psiplace_tasks_per_node_parse(const char *s, const char *what, uint32_t **counts, uint32_t *n,
				  psiplace_error_t *err)
{
	struct psiplace_intvec v;
	size_t i;

	*counts = NULL;
	*n = 0;
	if (psiplace_intvec_parse(s, what, &v, err) < 0)
		return -1;
	if (!(*counts = malloc(v.n * sizeof(**counts)))) {
		psiplace_intvec_free(&v);
		return psiplace_seterr(err, "%s: out of memory for %zu entries", what, v.n);
	}
	for (i = 0; i < v.n; i++)
		(*counts)[i] = (uint32_t)v.v[i];
	*n = (uint32_t)v.n;
	psiplace_intvec_free(&v);
	return 0;
}

void psiplace_step_free(struct psiplace_step *s)
{
	free(s->tasks_per_node);
	free(s->gtids);
	memset(s, 0, sizeof(*s));
}
