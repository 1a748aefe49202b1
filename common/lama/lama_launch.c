/* LAMA at step launch: each node maps its own tasks from its own
 * topology, after checking that Slurm's layout gives it the tasks LAMA's
 * node order would (ranks are Slurm's global task ids). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/intvec.h"
#include "psiplace/lama_launch.h"

static size_t step_sum(const struct psiplace_step *s)
{
	size_t n = 0;
	uint32_t k;

	for (k = 0; k < s->nnodes; k++)
		n += s->tasks_per_node[k];
	return n;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* This node's global task ids, ascending (malloc'd). */
static uint32_t *sorted_gtids(const struct psiplace_step *s)
{
	uint32_t *g = malloc((s->nlocal ? s->nlocal : 1) * sizeof(*g));

	if (g && s->nlocal) {
		memcpy(g, s->gtids, s->nlocal * sizeof(*g));
		qsort(g, s->nlocal, sizeof(*g), cmp_u32);
	}
	return g;
}

/* Are the ranks seq[] puts on this node exactly its global task ids
 * (gtids ascending)? */
static int node_gets(const unsigned *seq, size_t n, const struct psiplace_step *s,
		     const uint32_t *gtids)
{
	size_t r, k = 0;

	for (r = 0; r < n; r++)
		if (seq[r] == s->node && (k >= s->nlocal || gtids[k++] != r))
			return 0;
	return k == s->nlocal;
}

int psiplace_lama_step_dists(const struct psiplace_step *s)
{
	const enum psiplace_lama_dist d[2] = { PSIPLACE_LAMA_DIST_BLOCK, PSIPLACE_LAMA_DIST_CYCLIC };
	size_t n;
	unsigned *seq;
	uint32_t *g;
	int mask = 0, i;

	if (!s->tasks_per_node || s->node >= s->nnodes || (n = step_sum(s)) != s->ntasks ||
	    s->tasks_per_node[s->node] != s->nlocal)
		return -1;
	seq = malloc((n ? n : 1) * sizeof(*seq));
	g = sorted_gtids(s);
	if (!seq || !g)
		mask = -1;
	for (i = 0; i < 2 && mask >= 0; i++) {
		psiplace_lama_slurm_layout(d[i], (const unsigned *)s->tasks_per_node, s->nnodes, seq);
		if (node_gets(seq, n, s, g))
			mask |= 1 << d[i];
	}
	free(seq);
	free(g);
	return mask;
}

/* LAMA's node of every rank for the step's counts, all nodes shaped like
 * t (exact for identical nodes; what one node can know alone). */
static unsigned *lama_seq(const struct psiplace_lama_opts *o, const struct psiplace_topo *t,
			  const struct psiplace_step *s, psiplace_error_t *err)
{
	const struct psiplace_topo **same = malloc(s->nnodes * sizeof(*same));
	struct psiplace_lama_map m;
	unsigned *seq = NULL;
	size_t r;
	uint32_t k;

	if (!same)
		return NULL;
	for (k = 0; k < s->nnodes; k++)
		same[k] = t;
	if (psiplace_lama_map_counts(o, s->nnodes, same, (const unsigned *)s->tasks_per_node, &m,
				     err) == 0) {
		if ((seq = malloc((m.ntasks ? m.ntasks : 1) * sizeof(*seq))))
			for (r = 0; r < m.ntasks; r++)
				seq[r] = m.task[r].node;
		psiplace_lama_map_free(&m);
	}
	free(same);
	return seq;
}

/* "0 1 0 1 ..." (at most 32 entries). */
static void show(char *buf, size_t len, const unsigned *seq, size_t n)
{
	size_t i, k = 0;

	buf[0] = '\0';
	for (i = 0; i < n && i < 32 && k + 16 < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s%u", i ? " " : "", seq[i]);
	if (i < n)
		snprintf(buf + k, len - k, " ...");
}

/* This node's tasks under seq: "0 2 4" (at most 32). */
static void show_node(char *buf, size_t len, const unsigned *seq, size_t n,
		      const struct psiplace_step *s)
{
	size_t r, k = 0, c = 0;

	buf[0] = '\0';
	for (r = 0; r < n && k + 16 < len; r++)
		if (seq[r] == s->node && c++ < 32)
			k += (size_t)snprintf(buf + k, len - k, "%s%zu", c > 1 ? " " : "", r);
	if (c > 32)
		snprintf(buf + k, len - k, " ...");
}

/* The failure line: the reason, then Slurm's layout and LAMA's. */
static int explain(const struct psiplace_lama_opts *o, const struct psiplace_topo *t,
		   const struct psiplace_step *s, int mask, const char *why, psiplace_error_t *err)
{
	enum psiplace_lama_dist d = (mask & (1 << PSIPLACE_LAMA_DIST_BLOCK)) ? PSIPLACE_LAMA_DIST_BLOCK
				    : PSIPLACE_LAMA_DIST_CYCLIC;
	char a[200], b[200];
	psiplace_error_t e;
	unsigned *lama = lama_seq(o, t, s, &e), *slurm = NULL;
	uint32_t i, *g = sorted_gtids(s);
	size_t n = s->ntasks, k = 0;

	if (!lama || !g) {
		free(lama);
		free(g);
		return psiplace_seterr(err, "%s", why);
	}
	if (mask > 0 && (slurm = malloc((n ? n : 1) * sizeof(*slurm)))) {
		psiplace_lama_slurm_layout(d, (const unsigned *)s->tasks_per_node, s->nnodes, slurm);
		show(a, sizeof(a), slurm, n);
		show(b, sizeof(b), lama, n);
		psiplace_seterr(err, "%s; nodes of tasks 0..: Slurm (%s) %s; LAMA (map %s) %s",
				why, psiplace_lama_dist_name(d), a, o->map_str, b);
	} else {
		a[0] = '\0';
		for (i = 0; i < s->nlocal && i < 32 && k + 16 < sizeof(a); i++)
			k += (size_t)snprintf(a + k, sizeof(a) - k, "%s%u", i ? " " : "", g[i]);
		show_node(b, sizeof(b), lama, n, s);
		psiplace_seterr(err, "%s; this node's tasks: Slurm %s; LAMA (map %s) %s", why, a,
				o->map_str, b);
	}
	free(slurm);
	free(lama);
	free(g);
	return -1;
}

/* A layout that is neither block nor cyclic, against LAMA's order for
 * nodes like this one.  0 equal, -1 with why. */
static int check_other(const struct psiplace_lama_opts *o, const struct psiplace_topo *t,
		       const struct psiplace_step *s, psiplace_error_t *why)
{
	unsigned *lama = lama_seq(o, t, s, why);
	uint32_t *g = sorted_gtids(s);
	int rc = 0;

	if (!lama || !g)
		rc = lama ? psiplace_seterr(why, "LAMA: out of memory") : -1;
	else if (!node_gets(lama, s->ntasks, s, g))
		rc = psiplace_seterr(why,
				     "task layout: Slurm's layout (neither block nor cyclic) gives this node other tasks than LAMA's node order for nodes shaped like this one");
	free(lama);
	free(g);
	return rc;
}

/* A layout that is neither block nor cyclic, against the one psiplace
 * asked Slurm for at submission (from every node's topology). */
static int check_asked(const struct psiplace_lama_opts *o, const struct psiplace_step *s,
		       psiplace_error_t *err)
{
	uint32_t *seq = NULL, n = 0, *g = sorted_gtids(s), i;
	char a[200], b[200], q[80];
	size_t k = 0;
	int rc = 0;

	if (!g)
		return psiplace_seterr(err, "LAMA: out of memory");
	if (psiplace_tasks_per_node_parse(s->lama_layout, "PSIPLACE_LAMA_LAYOUT", &seq, &n, err) < 0 ||
	    n != s->ntasks) {
		psiplace_quote(q, sizeof(q), s->lama_layout, 60);
		rc = psiplace_seterr(err,
				     "PSIPLACE_LAMA_LAYOUT: '%s' is not the node of each of the step's %u tasks",
				     q, s->ntasks);
	} else if (!node_gets(seq, n, s, g)) {
		a[0] = '\0';
		for (i = 0; i < s->nlocal && i < 32 && k + 16 < sizeof(a); i++)
			k += (size_t)snprintf(a + k, sizeof(a) - k, "%s%u", i ? " " : "", g[i]);
		show_node(b, sizeof(b), seq, n, s);
		rc = psiplace_seterr(err,
				     "task layout: Slurm did not follow the layout psiplace asked for at submission (SLURM_HOSTFILE); this node's tasks: Slurm %s; LAMA (map %s) %s",
				     a, o->map_str, b);
	}
	free(seq);
	free(g);
	return rc;
}

int psiplace_lama_check_step(const struct psiplace_lama_opts *o, const struct psiplace_topo *t,
			     const struct psiplace_step *s, psiplace_error_t *err)
{
	psiplace_error_t why = { "" }, other;
	int mask, i, rc;
	bool ok;

	if (s->nnodes <= 1)
		return 0; /* one node: every layout is LAMA's */
	if ((mask = psiplace_lama_step_dists(s)) < 0)
		return psiplace_seterr(err,
				       "the step's layout (SLURM_STEP_TASKS_PER_NODE) does not add up to its %u tasks with %u on this node",
				       s->ntasks, s->nlocal);
	for (i = PSIPLACE_LAMA_DIST_BLOCK; i <= PSIPLACE_LAMA_DIST_CYCLIC; i++) {
		/* Both fit this node's ids: either passing is enough (the
		 * other nodes tell them apart); the first reason is kept. */
		psiplace_error_t *r = why.text[0] ? &other : &why;

		if (!(mask & (1 << i)))
			continue;
		if (psiplace_lama_verify_local(o, t, s->nlocal, (enum psiplace_lama_dist)i, &ok, r) < 0)
			return psiplace_seterr(err, "%s", r->text);
		if (ok)
			return 0;
	}
	if (!mask) {
		/* An arbitrary layout: sequential order refuses it on any node;
		 * otherwise only the whole layout can tell. */
		if (o->sequential) {
			if (psiplace_lama_verify_local(o, t, s->nlocal, PSIPLACE_LAMA_DIST_ARBITRARY,
						       &ok, &why) < 0)
				return psiplace_seterr(err, "%s", why.text);
		} else if (s->lama_layout) {
			return check_asked(o, s, err);
		} else if ((rc = check_other(o, t, s, &why)) == 0) {
			return 0;
		}
	}
	return explain(o, t, s, mask, why.text, err);
}

/* "map sbnch bind 1c mppr none order natural, Slurm layout cyclic" */
static void lama_summary(const struct psiplace_lama_opts *o, const struct psiplace_step *s,
			 char *buf, size_t len)
{
	char b[16], m[128];
	int mask = s->nnodes > 1 ? psiplace_lama_step_dists(s) : 0;

	psiplace_lama_bind_string(o, b, sizeof(b));
	psiplace_lama_mppr_string(o, m, sizeof(m));
	snprintf(buf, len, "LAMA map %s bind %s mppr %s order %s%s, Slurm layout %s", o->map_str, b, m,
		 o->sequential ? "sequential" : "natural", o->oversubscribe ? " oversubscribe" : "",
		 s->nnodes <= 1 ? "one node" : mask == 3 ? "block or cyclic" : mask == 1 ? "block"
		 : mask == 2 ? "cyclic" : s->lama_layout ? "arbitrary, as psiplace asked" : "arbitrary");
}

int psiplace_lama_place_node(const struct psiplace_lama_opts *o, bool pin, bool bindmem,
			     const struct psiplace_topo *t, const struct psiplace_step *s,
			     struct psiplace_binding *out, char *summary, size_t sumlen,
			     psiplace_error_t *err)
{
	hwloc_bitmap_t *cpus = NULL, *mems = NULL;
	uint32_t *g = NULL, i, k;
	int rc = -1;

	if (psiplace_lama_check_step(o, t, s, err) < 0)
		return -1;
	if (summary && sumlen)
		lama_summary(o, s, summary, sumlen);
	cpus = calloc(s->nlocal ? s->nlocal : 1, sizeof(*cpus));
	mems = calloc(s->nlocal ? s->nlocal : 1, sizeof(*mems));
	if (!cpus || !mems || !(g = sorted_gtids(s))) {
		psiplace_seterr(err, "LAMA: out of memory");
		goto out;
	}
	/* map_local's k-th set is for the k-th lowest global id here. */
	for (i = 0; i < s->nlocal; i++) {
		k = (uint32_t)((uint32_t *)bsearch(&s->gtids[i], g, s->nlocal, sizeof(*g), cmp_u32) - g);
		cpus[k] = out[i].cpus;
		mems[k] = out[i].mems;
	}
	if (psiplace_lama_map_local(o, t, s->nlocal, cpus, mems, err) < 0) {
		/* 22.05 gives a step outside an allocation only its tasks' CPUs: say how many. */
		psiplace_error_append(err, " (Slurm gave the step %u CPUs on this node)", t->npus);
		goto out;
	}
	for (i = 0; i < s->nlocal; i++) {
		if (!pin)
			hwloc_bitmap_zero(out[i].cpus);
		if (!bindmem || !pin)
			hwloc_bitmap_zero(out[i].mems);
	}
	rc = 0;
out:
	free(cpus);
	free(mems);
	free(g);
	return rc;
}

int psiplace_lama_alloc_layout(const struct psiplace_lama_opts *o, unsigned nnodes,
			       const struct psiplace_topo *const *topo, const unsigned *cpus,
			       size_t ntasks, bool *fits, enum psiplace_lama_dist *dist,
			       unsigned *node_of_rank, psiplace_error_t *err)
{
	struct psiplace_lama_map m;
	unsigned *seq, *count;
	size_t r;
	unsigned k;
	int rc = 0;

	*fits = false;
	if (psiplace_lama_map(o, nnodes, topo, ntasks, &m, err) < 0)
		return -1;
	seq = malloc((ntasks ? ntasks : 1) * sizeof(*seq));
	count = calloc(nnodes ? nnodes : 1, sizeof(*count));
	if (!seq || !count)
		rc = psiplace_seterr(err, "LAMA: out of memory");
	for (r = 0; r < ntasks && rc == 0; r++)
		count[seq[r] = m.task[r].node]++;
	*fits = rc == 0;
	for (k = 0; k < nnodes && rc == 0; k++)
		if (count[k] > cpus[k])
			*fits = false;
	if (*fits) {
		*dist = psiplace_lama_classify(seq, ntasks, nnodes);
		if (*dist == PSIPLACE_LAMA_DIST_ARBITRARY && node_of_rank)
			memcpy(node_of_rank, seq, ntasks * sizeof(*seq));
	}
	psiplace_lama_map_free(&m);
	free(seq);
	free(count);
	return rc;
}

char *psiplace_lama_layout_format(const unsigned *node_of_rank, size_t n, unsigned nnodes)
{
	unsigned *pos = calloc(nnodes ? nnodes : 1, sizeof(*pos)), k, next = 0;
	int *seq = malloc((n ? n : 1) * sizeof(*seq));
	size_t r, cap = 32 + n * 24;
	char *buf = n <= PSIPLACE_STEP_MAX_NODES ? malloc(cap) : NULL;

	if (!pos || !seq || !buf) {
		free(pos);
		free(seq);
		free(buf);
		return NULL;
	}
	/* The step's node list is the used nodes in node order. */
	for (r = 0; r < n; r++)
		pos[node_of_rank[r]] = 1;
	for (k = 0; k < nnodes; k++)
		pos[k] = pos[k] ? next++ : 0;
	for (r = 0; r < n; r++)
		seq[r] = (int)pos[node_of_rank[r]];
	if (psiplace_intvec_format(seq, n, buf, cap) < 0)
		buf[0] = '\0';
	free(pos);
	free(seq);
	return buf;
}
