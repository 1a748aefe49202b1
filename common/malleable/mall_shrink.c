/* Shrink by terminating whole per-node groups (TS, paper 4.7): the
 * processes on the released nodes leave, the survivors keep their order.
 * An MPI_COMM_WORLD cannot be returned partly (paper 4.6): a shrink that
 * would split one is refused. */
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "mall_internal.h"

static void world_name(const psiplace_mall_t *m, int world, char *buf, size_t len)
{
	(void)m;
	if (world == 0)
		snprintf(buf, len, "the processes the launcher started");
	else
		snprintf(buf, len, "group %d of resize %d", world % 65536 - 1, world / 65536);
}

/* A world with processes on both sides of the cut. */
static int split_world(const psiplace_mall_t *m, size_t nnodes, psiplace_error_t *err)
{
	int i, j;

	for (i = 0; i < m->size; i++) {
		if ((size_t)m->rank_node[i] < nnodes)
			continue;
		for (j = 0; j < m->size; j++) {
			char name[96];

			if (m->rank_world[j] != m->rank_world[i] || (size_t)m->rank_node[j] >= nnodes)
				continue;
			world_name(m, m->rank_world[i], name, sizeof(name));
			return psiplace_seterr(err, "malleable: shrink to %zu nodes: the MPI_COMM_WORLD "
					       "of %s runs on %s (kept) and %s (released) and can "
					       "leave only as a whole; expand with a parallel "
					       "strategy (hypercube, diffusive) first", nnodes, name,
					       m->hosts[m->rank_node[j]], m->hosts[m->rank_node[i]]);
		}
	}
	return 0;
}

int psiplace_mall_shrink(psiplace_mall_t *m, size_t nnodes, psiplace_error_t *err)
{
	size_t cur = psiplace_mall_nnodes(m);
	struct mall_watchdog *w;
	MPI_Comm next = MPI_COMM_NULL;
	char what[96];
	int rank, leave, rc;

	if (m->comm == MPI_COMM_NULL)
		return psiplace_seterr(err, "malleable: shrink: this process has left the job");
	if (nnodes < 1 || nnodes >= cur)
		return psiplace_seterr(err, "malleable: shrink to %zu nodes: the job runs on %zu "
				       "nodes (1..%zu accepted)", nnodes, cur, cur - 1);
	if (split_world(m, nnodes, err) < 0)
		return -1;
	snprintf(what, sizeof(what), "malleable: shrink to %zu nodes", nnodes);
	w = mall_watchdog_arm(what, m->timeout);
	MPI_Comm_rank(m->comm, &rank);
	leave = (size_t)m->node >= nnodes;
	mall_watchdog_phase(w, "splitting the job");
	rc = MPI_Comm_split(m->comm, leave ? MPI_UNDEFINED : 0, rank, &next);
	if (rc != MPI_SUCCESS) {
		mall_watchdog_disarm(w);
		return mall_mpi_err(err, rc, "%s: splitting the job", what);
	}
	/* Collective over the whole job: afterwards nothing connects the
	 * leaving groups to the survivors. */
	mall_watchdog_phase(w, "disconnecting the leaving groups");
	mall_drop_comm(&m->comm);
	m->comm = next;
	m->resizes++;
	if (leave) {
		m->leaving = 1;
		mall_watchdog_disarm(w);
		return 0;
	}
	rc = mall_layout(m, err);
	mall_watchdog_disarm(w);
	return rc;
}

static const char *const names[] = { "hypercube", "diffusive", "merge", "sequential" };

const char *psiplace_mall_strategy_name(enum psiplace_mall_strategy s)
{
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

int psiplace_mall_strategy_parse(const char *s, const char *what,
				 enum psiplace_mall_strategy *out, psiplace_error_t *err)
{
	size_t i;

	for (i = 0; s && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(s, names[i])) {
			*out = (enum psiplace_mall_strategy)i;
			return 0;
		}
	char q[64];

	psiplace_quote(q, sizeof(q), s ? s : "", 40);
	return psiplace_seterr(err, "%s: '%s' is not a strategy; accepted: hypercube, diffusive, "
			       "merge, sequential", what, q);
}
