/* The paper's baselines: the plain Merge method (one collective spawn of
 * all new processes, one MPI_COMM_WORLD over all new nodes, which a later
 * shrink cannot return partly) and the sequential strategy (one spawner:
 * the job spawns one group per node after the other, each spawn
 * collective over everything created so far). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mall_internal.h"

/* The group a process of the plain Merge method's one world belongs to. */
static int group_of(const struct psiplace_spawn_plan *p, int wrank, int *lrank)
{
	int g, base, first = psiplace_spawn_rank(p, 0, 0);

	for (g = 0; g < (int)p->ngroups; g++) {
		base = psiplace_spawn_rank(p, g, 0) - first;
		if (wrank >= base && wrank < base + p->groups[g].size) {
			*lrank = wrank - base;
			return g;
		}
	}
	return -1;
}

/* After the new processes are in: the same verdict on every process. */
static int check_nodes(psiplace_mall_t *m, const struct psiplace_spawn_plan *p, MPI_Comm c,
		       size_t nnodes, psiplace_error_t *err)
{
	int bad = m->group >= 0 && m->node != (int)p->groups[m->group].node ? m->group + 1 : 0;
	int any = 0;

	MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, c);
	if (any)
		return psiplace_seterr(err, "malleable: expand to %zu nodes: a process of group %d "
				       "does not run on %s, where the plan puts the group", nnodes,
				       any - 1, m->hosts[p->groups[any - 1].node]);
	return 0;
}

static int spawn_failed(int rc, MPI_Comm c, const char *what, size_t nnodes, psiplace_error_t *err)
{
	char msg[MPI_MAX_ERROR_STRING] = "";
	int failed = rc != MPI_SUCCESS, any = 0, len;

	MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, c);
	if (!any)
		return 0;
	if (failed)
		MPI_Error_string(rc, msg, &len);
	return psiplace_seterr(err, "malleable: expand to %zu nodes: spawning %s failed%s%s", nnodes,
			       what, *msg ? ": " : "", msg);
}

static char **argv_for(psiplace_mall_t *m, const struct mall_spawn_state *st, int group)
{
	struct mall_spawn_state cs = *st;
	char *state, **argv;

	cs.group = group;
	if (!(state = mall_state_format(m, &cs)))
		return NULL;
	argv = mall_child_argv(m, state);
	free(state);
	return argv;
}

int mall_expand_merge(psiplace_mall_t *m, const struct mall_spawn_state *st,
		      const struct psiplace_spawn_plan *p, MPI_Comm parent,
		      struct mall_watchdog *w, psiplace_error_t *err)
{
	MPI_Comm ic = parent, merged;
	int key, rank, lrank = 0, rc = MPI_SUCCESS;
	size_t g, len = 1, off = 0;

	if (parent != MPI_COMM_NULL) {
		MPI_Comm_rank(MPI_COMM_WORLD, &rank);
		m->group = group_of(p, rank, &lrank);
		key = psiplace_spawn_merged_rank(p, m->group, lrank);
	} else {
		char *hosts, **argv;
		MPI_Info info;
		int total = 0;

		MPI_Comm_rank(m->comm, &rank);
		key = psiplace_spawn_merged_rank(p, -1, rank);
		for (g = 0; g < p->ngroups; g++) {
			len += strlen(m->hosts[p->groups[g].node]) + 16;
			total += p->groups[g].size;
		}
		hosts = malloc(len);
		argv = argv_for(m, st, -1);
		if (!hosts || !argv) {
			free(hosts);
			mall_free_argv(argv);
			return psiplace_seterr(err, "malleable: out of memory");
		}
		for (g = 0; g < p->ngroups; g++)
			off += (size_t)snprintf(hosts + off, len - off, "%s%s:%d", g ? "," : "",
						m->hosts[p->groups[g].node], p->groups[g].size);
		MPI_Info_create(&info);
		MPI_Info_set(info, "host", hosts);
		mall_watchdog_phase(w, "the one spawn of all new processes");
		MPI_Comm_set_errhandler(m->comm, MPI_ERRORS_RETURN);
		rc = MPI_Comm_spawn(m->cmd, argv, total, info, 0, m->comm, &ic, MPI_ERRCODES_IGNORE);
		MPI_Info_free(&info);
		mall_free_argv(argv);
		rc = spawn_failed(rc, m->comm, hosts, st->nnodes, err);
		free(hosts);
		if (rc < 0)
			return -1;
	}
	mall_watchdog_phase(w, "merging the new processes");
	MPI_Intercomm_merge(ic, parent != MPI_COMM_NULL, &merged);
	mall_disconnect(&ic);
	if (check_nodes(m, p, merged, st->nnodes, err) < 0) {
		mall_release_comm(&merged);
		return -1;
	}
	rc = mall_adopt(m, merged, key, parent != MPI_COMM_NULL ? st->resize * 65536 + 1 : m->world,
			err);
	mall_release_comm(&merged);
	return rc;
}

int mall_expand_sequential(psiplace_mall_t *m, const struct mall_spawn_state *st,
			   const struct psiplace_spawn_plan *p, MPI_Comm parent,
			   struct mall_watchdog *w, psiplace_error_t *err)
{
	MPI_Comm cur, ic, next;
	int g, key, rank, rc;
	char what[128];

	if (parent != MPI_COMM_NULL) {
		MPI_Comm_rank(MPI_COMM_WORLD, &rank);
		key = psiplace_spawn_merged_rank(p, m->group, rank);
		MPI_Intercomm_merge(parent, 1, &cur);
		mall_disconnect(&parent);
	} else {
		MPI_Comm_rank(m->comm, &rank);
		key = psiplace_spawn_merged_rank(p, -1, rank);
		MPI_Comm_dup(m->comm, &cur);
	}
	MPI_Comm_set_errhandler(cur, MPI_ERRORS_RETURN);
	for (g = m->group + 1; g < (int)p->ngroups; g++) {
		const struct psiplace_spawn_group *sg = &p->groups[g];
		MPI_Info info = mall_host_info(m->hosts[sg->node], sg->size);
		char **argv = argv_for(m, st, g);

		if (!argv) {
			MPI_Info_free(&info);
			mall_release_comm(&cur);
			return psiplace_seterr(err, "malleable: out of memory");
		}
		snprintf(what, sizeof(what), "group %d (%d processes on %s)", g, sg->size,
			 m->hosts[sg->node]);
		mall_watchdog_phase(w, what);
		rc = MPI_Comm_spawn(m->cmd, argv, sg->size, info, 0, cur, &ic, MPI_ERRCODES_IGNORE);
		MPI_Info_free(&info);
		mall_free_argv(argv);
		if (spawn_failed(rc, cur, what, st->nnodes, err) < 0) {
			mall_release_comm(&cur);
			return -1;
		}
		MPI_Intercomm_merge(ic, 0, &next);
		mall_disconnect(&ic);
		mall_release_comm(&cur);
		cur = next;
		MPI_Comm_set_errhandler(cur, MPI_ERRORS_RETURN);
	}
	if (check_nodes(m, p, cur, st->nnodes, err) < 0) {
		mall_release_comm(&cur);
		return -1;
	}
	rc = mall_adopt(m, cur, key, m->world, err);
	mall_release_comm(&cur);
	return rc;
}
