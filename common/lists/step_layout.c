/* The step layout strings Slurm exports to every task. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/step_layout.h"

static int num(const char **p, unsigned long max, unsigned long *v)
{
	const char *s = *p;

	*v = 0;
	while (isdigit((unsigned char)**p)) {
		*v = *v * 10 + (unsigned long)(*(*p)++ - '0');
		if (*v > max)
			return -1;
	}
	return *p > s ? 0 : -1;
}

int psiplace_tasks_per_node_parse(const char *s, uint32_t **counts, uint32_t *n, psiplace_error_t *err)
{
	const char *p = s;
	uint32_t *c = NULL, k = 0;
	char q[160];

	*counts = NULL;
	*n = 0;
	while (*p) {
		unsigned long v, rep = 1;

		if (num(&p, UINT32_MAX, &v) < 0)
			goto bad;
		if (*p == '(') {
			if (p[1] != 'x')
				goto bad;
			p += 2;
			if (num(&p, PSIPLACE_STEP_MAX_NODES, &rep) < 0 || *p++ != ')' || !rep)
				goto bad;
		}
		if (rep > PSIPLACE_STEP_MAX_NODES - k)
			goto bad;
		{
			uint32_t *nc = realloc(c, (k + rep) * sizeof(*c));
			if (!nc)
				goto bad;
			c = nc;
		}
		while (rep--)
			c[k++] = (uint32_t)v;
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			goto bad;
	}
	if (!k)
		goto bad;
	*counts = c;
	*n = k;
	return 0;
bad:
	free(c);
	psiplace_quote(q, sizeof(q), s, 120);
	return psiplace_seterr(err,
			       "SLURM_STEP_TASKS_PER_NODE: '%s' is not a task count list such as 2(x3),1", q);
}

void psiplace_step_free(struct psiplace_step *s)
{
	free(s->tasks_per_node);
	free(s->gtids);
	memset(s, 0, sizeof(*s));
}
