/* Parallel expansion (paper 4.1-4.5): spawn by the plan, synchronise the
 * groups (upside, downside), connect them along the spawn tree in as many
 * levels as the plan has steps, reorder by the plan.
 *
 * The paper synchronises with tokens; here the token is a table with one
 * slot per group (why it failed, or empty), merged bytewise on the way up
 * and complete on the way down, so a failure anywhere is known everywhere
 * before anyone connects.  The paper then connects the groups pairwise
 * with MPI_Comm_connect/accept over published ports; under Open MPI 4.1.4
 * here those connects never completed between two spawned groups (the
 * deadline ended them), so the groups are joined where they already share
 * an intercommunicator: each group merges with its spawner
 * (MPI_Intercomm_merge) and joins the spawner's group
 * (MPI_Intercomm_create over that pair), children in id order, bottom up.
 * Subtrees join concurrently, so it takes one level per spawn step: the
 * same log count of steps as the binary connection, and no ports (under
 * MPICH the pair's leaders connect over a port instead, see intercomm()). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mall_internal.h"

#define SLOT MALL_ERRLEN
#define MALL_TAG_JOIN 7400

struct expand {
	psiplace_mall_t *m;
	const struct mall_spawn_state *st;
	const struct psiplace_spawn_plan *plan;
	struct mall_watchdog *w;
	int group, lrank;    /* who I am in the plan */
	MPI_Comm world;      /* my group's communicator (the sources': the job) */
	MPI_Comm parent;     /* to my spawner (groups only) */
	MPI_Comm *kids;      /* to the groups I spawned */
	int *kid_group;      /* their ids */
	int nkids;
	unsigned char *table;/* ngroups + 1 slots, the last one the sources' */
	size_t tlen;
};

static char *slot_err(struct expand *x, int g)
{
	return (char *)x->table + (size_t)(g < 0 ? (int)x->plan->ngroups : g) * SLOT;
}

/* The first failure of group g (-1: the sources) is the one reported. */
static void slot_fail(struct expand *x, int g, const char *msg)
{
	char *e = slot_err(x, g);

	if (!*e)
		snprintf(e, MALL_ERRLEN, "%.*s", MALL_ERRLEN - 1, msg);
}

/* A spawned group checks that it is what the plan says. */
static void check_group(struct expand *x)
{
	const struct psiplace_spawn_group *g = &x->plan->groups[x->group];
	int size, bad = x->m->node != (int)g->node, any = 0;
	char msg[MALL_ERRLEN];

	MPI_Comm_size(x->world, &size);
	MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, x->world);
	if (x->lrank != 0)
		return;
	if (size != g->size)
		snprintf(msg, sizeof(msg), "group %d has %d processes, the plan says %d", g->id,
			 size, g->size);
	else if (any)
		snprintf(msg, sizeof(msg), "a process of group %d does not run on %s, where the "
			 "plan puts the group", g->id, x->m->hosts[g->node]);
	else
		return;
	slot_fail(x, x->group, msg);
}

static int spawn_steps(struct expand *x, psiplace_error_t *err)
{
	const struct psiplace_spawn_plan *p = x->plan;
	int k = x->group < 0 ? 1 : p->groups[x->group].step + 1, rc;
	char label[96];

	x->kids = calloc(p->nsteps, sizeof(MPI_Comm));
	x->kid_group = calloc(p->nsteps, sizeof(int));
	if (!x->kids || !x->kid_group)
		return psiplace_seterr(err, "malleable: out of memory");
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
	for (; k < (int)p->nsteps; k++) {
		const struct psiplace_spawn_group *g = psiplace_spawn_child(p, x->group, x->lrank, k);
		struct mall_spawn_state cs = *x->st;
		char *state, **argv, msg[MPI_MAX_ERROR_STRING];
		MPI_Info info;
		MPI_Comm ic = MPI_COMM_NULL;
		int len;

		if (!g)
			continue;
		cs.group = g->id;
		state = mall_state_format(x->m, &cs);
		argv = state ? mall_child_argv(x->m, state) : NULL;
		free(state);
		if (!argv)
			return psiplace_seterr(err, "malleable: out of memory");
		snprintf(label, sizeof(label), "spawning group %d on %s", g->id, x->m->hosts[g->node]);
		mall_watchdog_phase(x->w, label);
		info = mall_host_info(x->m->hosts[g->node], g->size);
		rc = MPI_Comm_spawn(x->m->cmd, argv, g->size, info, 0, MPI_COMM_SELF, &ic,
				    MPI_ERRCODES_IGNORE);
		MPI_Info_free(&info);
		mall_free_argv(argv);
		if (rc != MPI_SUCCESS) {
			char line[MALL_ERRLEN];

			MPI_Error_string(rc, msg, &len);
			snprintf(line, sizeof(line), "spawning group %d (%d processes on %s) failed: "
				 "%.150s", g->id, g->size, x->m->hosts[g->node], msg);
			slot_fail(x, g->id, line);
			continue;
		}
		x->kid_group[x->nkids] = g->id;
		x->kids[x->nkids++] = ic;
	}
	return 0;
}

static void merge_table(unsigned char *dst, const unsigned char *src, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (src[i] > dst[i])
			dst[i] = src[i];
}

/* The first failed MPI call's code in *rc (MPI_ERRORS_RETURN). */
static void keep_rc(int *rc, int r)
{
	if (*rc == MPI_SUCCESS && r != MPI_SUCCESS)
		*rc = r;
}

/* A failed call on the way up goes into my group's slot, so that it
 * travels up and down with the table and every process fails alike. */
static void up_fail(struct expand *x, int rc, const char *call)
{
	char msg[MPI_MAX_ERROR_STRING], line[MALL_ERRLEN];
	int len = 0;

	if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
		snprintf(msg, sizeof(msg), "MPI error %d", rc);
	snprintf(line, sizeof(line), "synchronising on %s: %s: %.120s", x->m->hosts[x->m->node],
		 call, msg);
	slot_fail(x, x->group, line);
}

/* Paper 4.3.  sub: my group's root and its spawners.  Every process goes
 * through every step even after a failed call, so that no peer waits for
 * it (the watchdog bounds each phase).  A failure on the way up is carried
 * by the table (up_fail); the received tables are merged only when every
 * receive completed; a failure on the way down is reported at the end. */
static int synchronise(struct expand *x, psiplace_error_t *err)
{
	unsigned char *in = calloc((size_t)(x->nkids ? x->nkids : 1), x->tlen);
	MPI_Request *req = calloc((size_t)x->nkids + 1, sizeof(*req));
	MPI_Comm sub = MPI_COMM_NULL;
	int i, r, rc = MPI_SUCCESS, in_sub = x->lrank == 0 || x->nkids > 0;

	if (!in || !req) {
		free(in);
		free(req);
		return psiplace_seterr(err, "malleable: out of memory");
	}
	mall_watchdog_phase(x->w, "the upside synchronisation");
	if ((r = MPI_Comm_split(x->world, in_sub ? 0 : MPI_UNDEFINED, x->lrank, &sub)))
		up_fail(x, r, "splitting the group");
	for (i = 0, r = MPI_SUCCESS; i < x->nkids && r == MPI_SUCCESS; i++)
		if ((r = MPI_Irecv(in + (size_t)i * x->tlen, (int)x->tlen, MPI_UNSIGNED_CHAR, 0,
				   MALL_TAG_UP, x->kids[i], &req[i])) != MPI_SUCCESS)
			req[i] = MPI_REQUEST_NULL;
	/* the receives posted complete in any case (a failed one is null) */
	keep_rc(&r, MPI_Waitall(i, req, MPI_STATUSES_IGNORE));
	if (r != MPI_SUCCESS)
		up_fail(x, r, "receiving the outcome of the groups it spawned");
	else
		for (i = 0; i < x->nkids; i++)
			merge_table(x->table, in + (size_t)i * x->tlen, x->tlen);
	if (sub != MPI_COMM_NULL &&
	    (r = MPI_Allreduce(MPI_IN_PLACE, x->table, (int)x->tlen, MPI_UNSIGNED_CHAR, MPI_MAX,
			       sub)) != MPI_SUCCESS)
		up_fail(x, r, "combining the group's outcome");
	if (x->group >= 0 && x->lrank == 0)
		keep_rc(&rc, MPI_Send(x->table, (int)x->tlen, MPI_UNSIGNED_CHAR, 0, MALL_TAG_UP,
				      x->parent));

	mall_watchdog_phase(x->w, "the downside synchronisation");
	if (x->group >= 0 && x->lrank == 0)
		keep_rc(&rc, MPI_Recv(x->table, (int)x->tlen, MPI_UNSIGNED_CHAR, 0, MALL_TAG_DOWN,
				      x->parent, MPI_STATUS_IGNORE));
	if (x->group >= 0 && sub != MPI_COMM_NULL)
		keep_rc(&rc, MPI_Bcast(x->table, (int)x->tlen, MPI_UNSIGNED_CHAR, 0, sub));
	for (i = 0; i < x->nkids; i++) {
		req[i] = MPI_REQUEST_NULL;
		keep_rc(&rc, MPI_Isend(x->table, (int)x->tlen, MPI_UNSIGNED_CHAR, 0, MALL_TAG_DOWN,
				       x->kids[i], &req[i]));
	}
	keep_rc(&rc, MPI_Waitall(x->nkids, req, MPI_STATUSES_IGNORE));
	mall_release_comm(&sub);
	free(in);
	free(req);
	/* Everyone (not only the root and the spawners) learns the outcome. */
	keep_rc(&rc, MPI_Bcast(x->table, (int)x->tlen, MPI_UNSIGNED_CHAR, 0, x->world));
	/* a slot merged byte by byte from garbled input still ends */
	for (i = -1; i < (int)x->plan->ngroups; i++)
		slot_err(x, i)[SLOT - 1] = 0;
	for (i = -1; i < (int)x->plan->ngroups; i++)
		if (*slot_err(x, i))
			return psiplace_seterr(err, "malleable: expand to %zu nodes: %s", x->st->nnodes,
					       slot_err(x, i));
	if (rc != MPI_SUCCESS)
		return mall_mpi_err(err, rc, "malleable: expand to %zu nodes: synchronising the outcome",
				    x->st->nnodes);
	return 0;
}

static MPI_Comm kid_of(struct expand *x, int group)
{
	int i;

	for (i = 0; i < x->nkids; i++)
		if (x->kid_group[i] == group)
			return x->kids[i];
	return MPI_COMM_NULL;
}

#ifdef MPICH_VERSION
/* MPICH (ch3): MPI_Intercomm_create needs each leader to know the process
 * group of every process on the other side ("Unknown gpid" otherwise), and
 * a leader knows only the groups it spawned or was spawned by.  Connect and
 * accept exchange them (and hand them to every local process), so under
 * MPICH the two subtrees connect over a port that the accepting leader
 * opens and sends to the other over the pair's comm. */
static int intercomm(MPI_Comm c, int leader, MPI_Comm pair, int remote, int tag, int accept,
		     MPI_Comm *inter)
{
	char port[MPI_MAX_PORT_NAME] = "";
	int rank, rc = MPI_SUCCESS;

	MPI_Comm_rank(c, &rank);
	if (rank == leader) {
		if (accept && (rc = MPI_Open_port(MPI_INFO_NULL, port)) == MPI_SUCCESS)
			rc = MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, remote, tag, pair);
		else if (!accept)
			rc = MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, remote, tag, pair,
				      MPI_STATUS_IGNORE);
		if (rc != MPI_SUCCESS)
			return rc; /* the other processes wait: the watchdog ends them */
	}
	rc = accept ? MPI_Comm_accept(port, MPI_INFO_NULL, leader, c, inter)
		    : MPI_Comm_connect(port, MPI_INFO_NULL, leader, c, inter);
	if (accept && rank == leader)
		MPI_Close_port(port);
	return rc;
}
#else
static int intercomm(MPI_Comm c, int leader, MPI_Comm pair, int remote, int tag, int accept,
		     MPI_Comm *inter)
{
	(void)accept;
	return MPI_Intercomm_create(c, leader, pair, remote, tag, inter);
}
#endif

/* One join: the comm c of parent group G's subtree so far (G's own
 * processes first) and the subtree of its child group h (h's root first)
 * become one, G's side first.  Only h's spawner and h's own processes
 * take part in the merge of their intercommunicator, the pair's comm over
 * which the two subtrees' leaders find each other. */
static int join(struct expand *x, MPI_Comm *c, int h, int g_side, psiplace_error_t *err)
{
	const struct psiplace_spawn_group *hg = &x->plan->groups[h];
	MPI_Comm pair = MPI_COMM_NULL, inter, merged;
	int leader = g_side ? hg->parent_rank : 0, remote = g_side ? 1 : 0, rc;

	if (g_side && x->group == hg->parent && x->lrank == hg->parent_rank)
		MPI_Intercomm_merge(kid_of(x, h), 0, &pair);
	else if (!g_side && x->group == h)
		MPI_Intercomm_merge(x->parent, 1, &pair);
	rc = intercomm(*c, leader, pair, remote, MALL_TAG_JOIN + h, g_side, &inter);
	mall_release_comm(&pair);
	if (rc != MPI_SUCCESS)
		return mall_mpi_err(err, rc, "malleable: expand: joining group %d", h);
	MPI_Intercomm_merge(inter, !g_side, &merged);
	mall_release_comm(&inter);
	mall_release_comm(c);
	*c = merged;
	return 0;
}

/* Bottom up along the spawn tree: at each level (my group, its parent,
 * ...) join the level's remaining children in id order, then join the
 * level's parent.  Ends at the sources with everyone in one comm. */
static int tree_connect(struct expand *x, MPI_Comm *out, psiplace_error_t *err)
{
	const struct psiplace_spawn_plan *p = x->plan;
	int level = x->group, after = -1, h;
	MPI_Comm c;

	mall_watchdog_phase(x->w, "the connection of the groups");
	MPI_Comm_dup(x->world, &c);
	for (;;) {
		for (h = after + 1; h < (int)p->ngroups; h++)
			if (p->groups[h].parent == level && join(x, &c, h, 1, err) < 0)
				goto fail;
		if (level < 0)
			break;
		if (join(x, &c, level, 0, err) < 0)
			goto fail;
		after = level;
		level = p->groups[level].parent;
	}
	*out = c;
	return 0;
fail:
	mall_release_comm(&c);
	return -1;
}

/* Spawn tree intercommunicators: parent first, then children by step, an
 * order no two processes can disagree on. */
static void disconnect_all(struct expand *x)
{
	int i;

	mall_watchdog_phase(x->w, "disconnecting the spawn tree");
	mall_disconnect(&x->parent);
	for (i = 0; i < x->nkids; i++)
		mall_disconnect(&x->kids[i]);
}

static int parallel(struct expand *x, psiplace_error_t *err)
{
	MPI_Comm all = MPI_COMM_NULL;
	int rc = -1, key = psiplace_spawn_merged_rank(x->plan, x->group, x->lrank);

	x->tlen = (x->plan->ngroups + 1) * SLOT;
	if (!(x->table = calloc(1, x->tlen)))
		return psiplace_seterr(err, "malleable: out of memory");
	if (x->group >= 0)
		check_group(x);
	if (spawn_steps(x, err) < 0) {
		psiplace_error_t e2;

		/* still synchronise: the others wait for us */
		slot_fail(x, x->group, err->text);
		synchronise(x, &e2);
		goto out;
	}
	if (synchronise(x, err) < 0 || tree_connect(x, &all, err) < 0)
		goto out;
	disconnect_all(x);
	/* Paper 4.5: the plan's merged rank as the key. */
	rc = mall_adopt(x->m, all, key, x->m->world, err);
	/* under MPICH the last communicator over the connections to the
	 * sources a Baseline expansion replaces: disconnected, so that they
	 * close and the sources' MPI_Finalize returns now */
	mall_release_comm(&all);
out:
	if (rc < 0)
		disconnect_all(x);
	free(x->kids);
	free(x->kid_group);
	free(x->table);
	return rc;
}

int mall_expand_run(psiplace_mall_t *m, const struct mall_spawn_state *st, MPI_Comm parent,
		    struct mall_watchdog *w, psiplace_error_t *err)
{
	struct psiplace_spawn_plan plan;
	struct expand x = { .m = m, .st = st, .plan = &plan, .w = w, .group = -1,
			    .parent = parent };
	int rc;

	if (parent != MPI_COMM_NULL) {
		m->resizes = st->resize;
		m->group = st->group;
		m->world = st->resize * 65536 + (st->group < 0 ? 0 : st->group) + 1;
	}
	if (mall_plan(m, st, &plan, err) < 0)
		return -1;
	if (st->strategy == PSIPLACE_MALL_MERGE)
		rc = mall_expand_merge(m, st, &plan, parent, w, err);
	else if (st->strategy == PSIPLACE_MALL_SEQUENTIAL)
		rc = mall_expand_sequential(m, st, &plan, parent, w, err);
	else {
		if (parent == MPI_COMM_NULL) {
			x.world = m->comm;
			MPI_Comm_rank(m->comm, &x.lrank);
		} else {
			x.group = st->group;
			x.world = MPI_COMM_WORLD;
			MPI_Comm_rank(MPI_COMM_WORLD, &x.lrank);
		}
		rc = parallel(&x, err);
	}
	psiplace_spawn_plan_free(&plan);
	if (rc == 0 && parent == MPI_COMM_NULL)
		m->resizes = st->resize;
	return rc;
}

int psiplace_mall_expand(psiplace_mall_t *m, size_t nnodes, enum psiplace_mall_strategy strategy,
			 enum psiplace_spawn_method method, const int *oversub, psiplace_error_t *err)
{
	struct mall_spawn_state st = { .resize = m->resizes + 1, .group = -1, .strategy = strategy,
				       .method = method, .timeout = m->timeout, .nnodes = nnodes };
	struct mall_watchdog *w;
	char what[96];
	int i, rc;

	if (nnodes < 1 || nnodes > m->nalloc)
		return psiplace_seterr(err, "malleable: expand to %zu nodes: the allocation has "
				       "%zu nodes (1..%zu accepted)", nnodes, m->nalloc, m->nalloc);
	if (strategy == PSIPLACE_MALL_MERGE && method == PSIPLACE_SPAWN_BASELINE)
		return psiplace_seterr(err, "malleable: expand to %zu nodes: the plain Merge strategy "
				       "spawns only the new processes; --method baseline needs the "
				       "hypercube, diffusive or sequential strategy", nnodes);
	if (psiplace_mall_nnodes(m) > nnodes)
		return psiplace_seterr(err, "malleable: expand to %zu nodes: the job already runs on "
				       "%zu nodes; shrink instead", nnodes, psiplace_mall_nnodes(m));
	st.running = calloc(nnodes, sizeof(int));
	if (oversub && (st.oversub = malloc(nnodes * sizeof(int))))
		memcpy(st.oversub, oversub, nnodes * sizeof(int));
	if (!st.running || (oversub && !st.oversub)) {
		free(st.running);
		free(st.oversub);
		return psiplace_seterr(err, "malleable: out of memory");
	}
	for (i = 0; i < m->size; i++)
		st.running[m->rank_node[i]]++;
	snprintf(what, sizeof(what), "malleable: expand to %zu nodes (%s)", nnodes,
		 psiplace_mall_strategy_name(strategy));
	w = mall_watchdog_arm(what, m->timeout);
	rc = mall_expand_run(m, &st, MPI_COMM_NULL, w, err);
	mall_watchdog_disarm(w);
	free(st.running);
	free(st.oversub);
	return rc;
}
