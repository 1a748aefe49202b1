/* The node table kept between decisions: when its rows are stale. */
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/nodecache.h"
#include "psiplace/policy.h"

static bool same_sources(const struct psiplace_nodecache_stamp *a,
			 const struct psiplace_nodecache_stamp *b)
{
	return a->nodes == b->nodes && a->table == b->table && a->conf == b->conf &&
	       a->metrics == b->metrics;
}

bool psiplace_nodecache_stale(const struct psiplace_nodecache *c,
			      const struct psiplace_nodecache_stamp *want)
{
	return !c->valid || !same_sources(&c->stamp, want) ||
	       (want->fields & ~c->stamp.fields) != 0;
}

int psiplace_nodecache_rebuild(struct psiplace_nodecache *c,
			       const struct psiplace_nodecache_stamp *want,
			       psiplace_error_t *err)
{
	static const struct psiplace_node unknown = { .speed = 1.0, .next_resv = -1 };
	unsigned keep = c->valid && same_sources(&c->stamp, want) ? c->stamp.fields : 0;
	size_t n = (size_t)want->nodes, i;

	c->valid = false;
	if (want->nodes > SIZE_MAX / sizeof(*c->rows) || want->nodes > UINT32_MAX)
		return psiplace_seterr(err, "node cache: %llu nodes: too many",
				       (unsigned long long)want->nodes);
	if (n > c->cap) {
		struct psiplace_node *rows = realloc(c->rows, n * sizeof(*rows));

		if (!rows)
			return psiplace_seterr(err, "node cache: out of memory for %zu nodes", n);
		c->rows = rows;
		c->cap = n;
	}
	for (i = 0; i < n; i++) {
		c->rows[i] = unknown;
		c->rows[i].index = (uint32_t)i;
	}
	c->stamp = *want;
	c->stamp.fields |= keep;
	c->valid = true;
	c->builds++;
	return (int)c->stamp.fields;
}

void psiplace_nodecache_invalidate(struct psiplace_nodecache *c)
{
	c->valid = false;
}

void psiplace_nodecache_free(struct psiplace_nodecache *c)
{
	free(c->rows);
	memset(c, 0, sizeof(*c));
}
