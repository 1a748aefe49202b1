/* Where a job may have room, without a pass over all nodes: the powered
 * nodes kept ordered by free CPUs (a counting-sort layout, updated as
 * jobs start and end), so that the nodes with at least c free CPUs are
 * one range; and the engine asked over those nodes only (a compact copy
 * of the view), which gives the answer it gives over all of them: a node
 * outside the range is not eligible, and the engine orders by keys and
 * node index, never by position, when indexes are unique. */
#include <stdlib.h>
#include <string.h>

#include "psiplace/sim.h"
#include "sim_replay.h"

static uint32_t bucket(const struct sim *s, uint32_t f)
{
	return f < s->maxcpus ? f : s->maxcpus;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Unique node indexes: positions never decide the engine's order. */
static bool unique_indexes(const struct sim *s)
{
	uint32_t *ix = malloc((s->n + 1) * sizeof(*ix));
	bool ok = ix != NULL;

	for (size_t i = 0; ok && i < s->n; i++)
		ix[i] = s->now[i].index;
	if (ok)
		qsort(ix, s->n, sizeof(*ix), cmp_u32);
	for (size_t i = 1; ok && i < s->n; i++)
		ok = ix[i] != ix[i - 1];
	free(ix);
	return ok;
}

int sim_room_setup(struct sim *s)
{
	uint32_t nb = s->maxcpus + 1, *fill;

	s->border = calloc(s->n + 1, sizeof(*s->border));
	s->bpos = calloc(s->n + 1, sizeof(*s->bpos));
	s->bstart = calloc(nb + 1, sizeof(*s->bstart));
	s->cview = calloc(s->n + 1, sizeof(*s->cview));
	s->cmap = calloc(s->n + 1, sizeof(*s->cmap));
	fill = calloc(nb + 1, sizeof(*fill));
	if (!s->border || !s->bpos || !s->bstart || !s->cview || !s->cmap || !fill) {
		free(fill);
		return -1;
	}
	for (uint32_t b = 0; b < nb; b++)
		s->bstart[b + 1] = s->bstart[b] + s->hist[b];
	s->npow = s->bstart[nb];
	memcpy(fill, s->bstart, (nb + 1) * sizeof(*fill));
	for (size_t i = 0; i < s->n; i++) {
		if (!s->now[i].power)
			continue;
		s->bpos[i] = fill[bucket(s, s->nodefree[i])]++;
		s->border[s->bpos[i]] = (uint32_t)i;
	}
	free(fill);
	s->compact = unique_indexes(s);
	return 0;
}

void sim_room_free(struct sim *s)
{
	free(s->border);
	free(s->bpos);
	free(s->bstart);
	free(s->cview);
	free(s->cmap);
}

static void swap_to(struct sim *s, uint32_t i, uint32_t p)
{
	uint32_t q = s->bpos[i], x = s->border[p];

	s->border[q] = x;
	s->bpos[x] = q;
	s->border[p] = i;
	s->bpos[i] = p;
}

void sim_room_move(struct sim *s, uint32_t i, uint32_t was, uint32_t now)
{
	uint32_t a = bucket(s, was), b = bucket(s, now);

	if (!s->border)
		return;
	for (; a < b; a++) /* up: to the end of bucket a, which then leaves it */
		swap_to(s, i, --s->bstart[a + 1]);
	for (; a > b; a--) /* down: to the front of bucket a */
		swap_to(s, i, s->bstart[a]++);
}

uint32_t sim_fit_count(const struct sim *s, uint32_t c, bool excl)
{
	if (excl)
		return s->idle_nodes;
	c = c ? c : 1;
	return c > s->maxcpus ? 0 : s->npow - s->bstart[c];
}

bool sim_choose_room(struct sim *s, const struct sjob *j, const struct psiplace_node *view,
		 int64_t start_in, const uint32_t *extra, size_t nextra, uint32_t *out)
{
	uint32_t c = j->ppn ? j->ppn : 1;
	size_t lo, m = 0;

	if (!s->compact || c > s->maxcpus)
		return sim_choose(s, j, view, s->n, start_in, out);
	lo = s->bstart[c];
	if (2 * (s->npow - lo + nextra) > s->n) /* most nodes: the copy would not pay */
		return sim_choose(s, j, view, s->n, start_in, out);
	for (size_t p = lo; p < s->npow; p++) {
		s->cmap[m] = s->border[p];
		s->cview[m++] = view[s->border[p]];
	}
	for (size_t e = 0; e < nextra; e++) /* more room in the view than now */
		if (s->now[extra[e]].power && s->nodefree[extra[e]] < c) {
			s->cmap[m] = extra[e];
			s->cview[m++] = view[extra[e]];
		}
	if (m < j->k || !sim_choose(s, j, s->cview, m, start_in, out))
		return false;
	for (uint32_t i = 0; i < j->k; i++)
		out[i] = s->cmap[out[i]];
	return true;
}
