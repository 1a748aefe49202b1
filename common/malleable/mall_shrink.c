/* Shrink by terminating whole per-node groups (TS, paper 4.7): the
 * processes on the released nodes leave, the survivors keep their order.
 * An MPI_COMM_WORLD cannot be returned partly (paper 4.6): a shrink that
 * would split one is refused. */
#include <stdio.h>
#include <stdlib.h>

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

/* TS: the processes on released nodes leave; ZS: they stay as zombies. */
static int shrink_split(psiplace_mall_t *m, size_t nnodes, int zombie, const char *what,
			psiplace_error_t *err)
{
	struct mall_watchdog *w = mall_watchdog_arm(what, m->timeout);
	MPI_Comm next = MPI_COMM_NULL;
	int rank, leave = (size_t)m->node >= nnodes, rc;

	MPI_Comm_rank(m->comm, &rank);
	mall_watchdog_phase(w, "splitting the job");
	rc = mall_split(m->comm, !leave, rank, &next);
	if (rc != MPI_SUCCESS) {
		mall_watchdog_disarm(w);
		return mall_mpi_err(err, rc, "%s: splitting the job", what);
	}
	if (zombie) {
		/* kept until the job ends: the zombies wait on it */
		m->zombies = m->comm;
	} else {
		/* Collective over the whole job: afterwards nothing connects
		 * the leaving groups to the survivors. */
		mall_watchdog_phase(w, "disconnecting the leaving groups");
		mall_drop_comm(&m->comm);
	}
	m->comm = next;
	m->resizes++;
	if (leave) {
		if (zombie)
			m->zombie = 1;
		else
			m->leaving = 1;
		mall_watchdog_disarm(w);
		return 0;
	}
	rc = mall_layout(m, err);
	mall_watchdog_disarm(w);
	return rc;
}

/* SS: the processes on the kept nodes respawn the kept nodes' shape with
 * the Baseline method; everyone old leaves. */
static int shrink_respawn(psiplace_mall_t *m, size_t nnodes, enum psiplace_mall_strategy strategy,
			  const char *what, psiplace_error_t *err)
{
	struct mall_watchdog *w;
	MPI_Comm keep = MPI_COMM_NULL;
	int rank, leave = (size_t)m->node >= nnodes, rc;

	if (strategy == PSIPLACE_MALL_MERGE)
		return psiplace_seterr(err, "%s: a Baseline respawn needs the hypercube, diffusive or "
				       "sequential strategy, not merge", what);
	w = mall_watchdog_arm(what, m->timeout);
	MPI_Comm_rank(m->comm, &rank);
	mall_watchdog_phase(w, "splitting the job");
	rc = mall_split(m->comm, !leave, rank, &keep);
	if (rc != MPI_SUCCESS) {
		mall_watchdog_disarm(w);
		return mall_mpi_err(err, rc, "%s: splitting the job", what);
	}
	mall_watchdog_phase(w, "disconnecting the released nodes");
	mall_drop_comm(&m->comm);
	mall_watchdog_disarm(w);
	m->comm = keep;
	if (leave) {
		m->resizes++;
		m->leaving = 1;
		return 0;
	}
	if (mall_layout(m, err) < 0)
		return -1;
	/* the kept processes are the sources; Baseline replaces them all */
	return psiplace_mall_expand(m, nnodes, strategy, PSIPLACE_SPAWN_BASELINE, NULL, err);
}

int psiplace_mall_shrink_by(psiplace_mall_t *m, size_t nnodes, enum psiplace_mall_shrink_method how,
			    enum psiplace_mall_strategy strategy, psiplace_error_t *err)
{
	size_t cur;
	char what[96];

	if (m->comm == MPI_COMM_NULL)
		return psiplace_seterr(err, "malleable: shrink: this process has left the job");
	cur = psiplace_mall_nnodes(m);
	if (nnodes < 1 || nnodes >= cur)
		return psiplace_seterr(err, "malleable: shrink to %zu nodes: the job runs on %zu "
				       "nodes (1..%zu accepted)", nnodes, cur, cur - 1);
	snprintf(what, sizeof(what), "malleable: shrink to %zu nodes", nnodes);
	/* The zombies wait, idle, for every other process of the job at its end
	 * (mall_zombies_meet): a process that leaves by a later shrink would
	 * wait there for the survivors, on a node given back.  Every process of
	 * the job has the zombies' communicator, so all refuse alike. */
	if (m->zombies != MPI_COMM_NULL)
		return psiplace_seterr(err, "%s: the job has zombies from a zombie shrink, which wait "
				       "for the whole job at its end; it shrinks no further", what);
	switch (how) {
	case PSIPLACE_MALL_SHRINK_TS:
		if (split_world(m, nnodes, err) < 0)
			return -1;
		return shrink_split(m, nnodes, 0, what, err);
	case PSIPLACE_MALL_SHRINK_ZOMBIE:
		return shrink_split(m, nnodes, 1, what, err);
	case PSIPLACE_MALL_SHRINK_BASELINE:
		return shrink_respawn(m, nnodes, strategy, what, err);
	}
	return psiplace_seterr(err, "%s: unknown shrink method %d", what, (int)how);
}

int psiplace_mall_shrink(psiplace_mall_t *m, size_t nnodes, psiplace_error_t *err)
{
	return psiplace_mall_shrink_by(m, nnodes, PSIPLACE_MALL_SHRINK_TS, PSIPLACE_MALL_DIFFUSIVE, err);
}
