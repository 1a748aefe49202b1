/* Ranking over the columnar node table: for the policies whose order is
 * (weight tier, one value descending, index), a blocked pass computes the
 * value and eligibility column by column, and only the best k are
 * selected and sorted.  Other policies, and tables whose columns do not
 * fit the options, go the per-node way (engine.c): same order either way. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "psiplace/error.h"
#include "psiplace/policy.h"
#include "psiplace/priorityf.h"

#define BLOCK 512

static bool has(const struct psiplace_nodecols *c, int col)
{
	return c->filled & (1u << col);
}

/* The function PRIORITY uses on every node (NULL: the PRIORITY field);
 * false when it differs between nodes or its columns were not built. */
static bool uniform_function(const struct psiplace_rank_opts *o,
			     const struct psiplace_nodecols *c,
			     const struct psiplace_priorityf **f)
{
	uint32_t need;

	if (o->job && o->job->priorityf)
		*f = o->job->priorityf;
	else if (c->mixed_functions)
		return false;
	else
		*f = o->cluster_priorityf;
	need = *f ? psiplace_priorityf_columns(*f) : 1u << PSIPLACE_COL_PRIORITY;
	return (c->filled & need) == need;
}

static bool fast(const struct psiplace_rank_opts *o, const struct psiplace_nodecols *c,
		 const struct psiplace_priorityf **f)
{
	*f = NULL;
	switch (o->policy) {
	case PSIPLACE_POLICY_NONE:
	case PSIPLACE_POLICY_FIRSTAVAILABLE:
		return true;
	case PSIPLACE_POLICY_FASTEST:
		return has(c, PSIPLACE_COL_SPEED);
	case PSIPLACE_POLICY_CPULOAD:
		return !(o->job && (o->job->future || o->job->start > 0)) && has(c, PSIPLACE_COL_CPUFREE);
	case PSIPLACE_POLICY_PRIORITY:
		return uniform_function(o, c, f);
	default:
		return false;
	}
}

/* psiplace_dkey(-d), NaN last, inlined for the key pass. */
static inline uint64_t desc(double d)
{
	uint64_t u;

	d = d != d ? INFINITY : -d;
	if (d == 0.0)
		d = 0.0;
	memcpy(&u, &d, sizeof(u));
	return (u >> 63) ? ~u : u | (1ULL << 63);
}

static void copy_column(const struct psiplace_nodecols *c, int col, size_t lo, size_t w,
			double *s)
{
	size_t i;

	if (c->icol[col])
		for (i = 0; i < w; i++)
			s[i] = (double)c->icol[col][lo + i];
	else if (c->fcol[col])
		for (i = 0; i < w; i++)
			s[i] = (double)c->fcol[col][lo + i];
	else
		memcpy(s, c->col[col] + lo, w * sizeof(*s));
}

static void values(const struct psiplace_rank_opts *o, const struct psiplace_nodecols *c,
		   const struct psiplace_priorityf *f, size_t lo, size_t hi, double *s)
{
	switch (o->policy) {
	case PSIPLACE_POLICY_FASTEST:
		copy_column(c, PSIPLACE_COL_SPEED, lo, hi - lo, s);
		break;
	case PSIPLACE_POLICY_CPULOAD:
		copy_column(c, PSIPLACE_COL_CPUFREE, lo, hi - lo, s);
		break;
	case PSIPLACE_POLICY_PRIORITY:
		if (f)
			psiplace_priorityf_eval_block(f, c, lo, hi, o->job ? o->job->seed : 0, s);
		else
			copy_column(c, PSIPLACE_COL_PRIORITY, lo, hi - lo, s);
		break;
	default:
		memset(s, 0, (hi - lo) * sizeof(*s));
		break;
	}
}

/* Rows clo..clo+w-1 of c: k1[i] = the policy's key, elig[i] = a
 * candidate (i < w); returns the candidates. */
static size_t key_block(const struct psiplace_rank_opts *o, const struct psiplace_nodecols *c,
			const struct psiplace_priorityf *f, size_t clo, size_t w, uint64_t *k1,
			unsigned char *elig)
{
	const struct psiplace_job *job = o->job;
	bool keyed = o->policy != PSIPLACE_POLICY_NONE &&
		     o->policy != PSIPLACE_POLICY_FIRSTAVAILABLE;
	double s[BLOCK];
	size_t i, m = 0;

	if (keyed)
		values(o, c, f, clo, clo + w, s);
	for (i = 0; i < w; i++) {
		size_t r = clo + i;

		k1[i] = keyed ? desc(s[i]) : 0;
		elig[i] = !job || ((c->power[r] || o->ignore_power) && c->free_cpus[r] && c->free_cpus[r] >= job->cpus &&
				   c->free_mem[r] >= job->mem);
		m += elig[i];
	}
	return m;
}

/* One pass over the nodes: from the columns (c) or from the records, a
 * block of columns at a time (nothing the size of the table is written
 * but one eligibility byte per node). */
struct pass {
	const struct psiplace_rank_opts *o;
	const struct psiplace_priorityf *f;
	const struct psiplace_nodecols *c;
	const struct psiplace_node *nodes;
	size_t n;
	struct psiplace_nodecols blk;
	unsigned char *elig; /* per node */
	size_t m;            /* candidates */
	struct psiplace_rated *buf; /* the kept candidates */
	size_t nbuf, cap;
};

/* The columns holding nodes lo..lo+w-1, from row *clo on. */
static const struct psiplace_nodecols *rows(struct pass *p, size_t lo, size_t w, size_t *clo)
{
	if (p->c) {
		*clo = lo;
		return p->c;
	}
	psiplace_cols_fill(&p->blk, p->nodes + lo, w, 0);
	p->blk.nodes = p->nodes + lo;
	p->blk.n = w;
	*clo = 0;
	return &p->blk;
}

static void rate_row(struct psiplace_rated *r, const struct psiplace_rank_opts *o,
		     const struct psiplace_nodecols *b, size_t row, uint64_t k1, size_t pos)
{
	r->k[0] = o->policy_overrides_weight ? 0 : b->weight[row];
	r->k[1] = k1;
	r->k[2] = r->k[3] = 0;
	r->idx = b->index[row];
	r->pos = (uint32_t)pos;
}

/* Keep the candidates among nodes lo..lo+w-1 (at or below t if given).
 * The comparison with t has no branches on the keys; the one branch is
 * "keep", rarely taken. */
static int scan_block(struct pass *p, size_t lo, size_t w, const struct psiplace_rated *t)
{
	uint64_t k1[BLOCK];
	size_t clo, i, nb;
	const struct psiplace_nodecols *b = rows(p, lo, w, &clo);
	const uint64_t *w0 = p->o->policy_overrides_weight ? NULL : b->weight + clo;
	const uint32_t *ix = b->index + clo;
	const unsigned char *el = p->elig + lo;
	struct psiplace_rated *buf;

	if (p->cap - p->nbuf < w) {
		size_t cap = 2 * p->cap + w;
		struct psiplace_rated *nbuf = realloc(p->buf, cap * sizeof(*nbuf));

		if (!nbuf)
			return -1;
		p->buf = nbuf;
		p->cap = cap;
	}
	p->m += key_block(p->o, b, p->f, clo, w, k1, p->elig + lo);
	buf = p->buf;
	nb = p->nbuf;
	for (i = 0; i < w; i++) {
		uint64_t a = w0 ? w0[i] : 0;
		int keep = el[i];

		if (t) {
			int tie = (ix[i] < t->idx) | ((ix[i] == t->idx) & (lo + i <= t->pos));

			keep &= (a < t->k[0]) |
				((a == t->k[0]) & ((k1[i] < t->k[1]) | ((k1[i] == t->k[1]) & tie)));
		}
		if (keep)
			rate_row(&buf[nb++], p->o, b, clo + i, k1[i], lo + i);
	}
	p->nbuf = nb;
	return 0;
}

#define CHUNKS 128
#define CHUNK 16

/* A key that, judged by a sample (CHUNKS short runs of nodes spread over
 * the table), a few more than k candidates reach; false when filtering
 * would not pay.  The sample's keys are computed, not stored: the main
 * pass computes them again. */
static bool threshold(struct pass *p, size_t k, struct psiplace_rated *thr)
{
	struct psiplace_rated *s;
	unsigned char *elig = p->elig;
	size_t j, i, seen = 0, ns, m_est;
	double want, r;

	if (p->n < 16 * CHUNKS * CHUNK || !(s = malloc(CHUNKS * CHUNK * sizeof(*s))))
		return false;
	for (j = 0; j < CHUNKS; j++) {
		size_t lo = (p->n - CHUNK) / (CHUNKS - 1) * j, clo;
		const struct psiplace_nodecols *b = rows(p, lo, CHUNK, &clo);
		uint64_t k1[CHUNK];

		key_block(p->o, b, p->f, clo, CHUNK, k1, elig + lo);
		for (i = 0; i < CHUNK; i++)
			if (elig[lo + i])
				rate_row(&s[seen++], p->o, b, clo + i, k1[i], lo + i);
	}
	ns = seen;
	m_est = (size_t)((double)p->n * (double)ns / (CHUNKS * CHUNK));
	want = (double)k / (double)(m_est ? m_est : 1) * (double)ns;
	r = want + 4.0 * sqrt(want) + 4.0;
	if (ns < 256 || m_est < 4096 || k > m_est / 8 || r >= (double)ns) {
		free(s);
		return false;
	}
	psiplace_rated_select(s, ns, (size_t)r + 1);
	psiplace_rated_sort(s, (size_t)r + 1);
	*thr = s[(size_t)r];
	free(s);
	return true;
}

static void pass_free(struct pass *p)
{
	psiplace_cols_release(&p->blk);
	free(p->elig);
	free(p->buf);
}

/* The best k candidates into pos[] in order: 1 done, 0 the policy needs
 * the records, -1 out of memory.  p->elig and p->m describe all nodes. */
static int best(struct pass *p, size_t k, uint32_t *pos)
{
	struct psiplace_rated thr;
	bool filter;
	size_t lo, i;

	if (!p->c && psiplace_cols_alloc(&p->blk, psiplace_cols_wanted(p->o, p->nodes, p->n, &p->blk),
					 BLOCK) < 0)
		return -1;
	if (!fast(p->o, p->c ? p->c : &p->blk, &p->f))
		return 0;
	if (!(p->elig = malloc(p->n ? p->n : 1)))
		return -1;
	filter = threshold(p, k, &thr);
	for (;;) {
		p->m = p->nbuf = 0;
		for (lo = 0; lo < p->n; lo += BLOCK)
			if (scan_block(p, lo, lo + BLOCK < p->n ? BLOCK : p->n - lo,
				       filter ? &thr : NULL) < 0)
				return -1;
		if (!filter || p->nbuf >= k || p->nbuf == p->m)
			break;
		filter = false; /* the sample misled us: keep every candidate */
	}
	k = k < p->nbuf ? k : p->nbuf;
	psiplace_rated_select(p->buf, p->nbuf, k);
	psiplace_rated_sort(p->buf, k);
	for (i = 0; i < k; i++)
		pos[i] = p->buf[i].pos;
	return 1;
}

/* What both entry points refuse before ranking. */
static int check_input(const struct psiplace_rank_opts *opts, size_t n, psiplace_error_t *err)
{
	if (!psiplace_policy_valid(opts->policy))
		return psiplace_seterr(err, "policy %d is not a policy", (int)opts->policy);
	if (n > INT32_MAX)
		return psiplace_seterr(err, "%zu nodes: at most %d", n, INT32_MAX);
	return 0;
}

static int oom(psiplace_error_t *err, size_t n)
{
	return psiplace_seterr(err, "out of memory ranking %zu nodes", n);
}

static int choose(const struct psiplace_rank_opts *opts, const struct psiplace_nodecols *c,
		  const struct psiplace_node *nodes, size_t n, size_t k, uint32_t *out,
		  psiplace_error_t *err)
{
	struct pass p = { .o = opts, .c = c, .nodes = nodes, .n = n };
	int rc;

	if (check_input(opts, n, err) < 0)
		return -1;
	rc = best(&p, k, out);
	if (rc == 0)
		rc = psiplace_choose_nodes(opts, nodes, n, k, out, err);
	else if (rc < 0)
		rc = oom(err, n);
	else if (p.m < k)
		rc = psiplace_seterr(err,
				     "%zu node%s wanted, only %zu of %zu eligible (powered, with a "
				     "free CPU and the job's cpus and mem free)",
				     k, k == 1 ? "" : "s", p.m, n);
	else
		rc = (int)k;
	pass_free(&p);
	return rc;
}

int psiplace_choose_cols(const struct psiplace_rank_opts *opts, const struct psiplace_nodecols *c,
			 size_t k, uint32_t *out, psiplace_error_t *err)
{
	return choose(opts, c, c->nodes, c->n, k, out, err);
}

int psiplace_choose_records(const struct psiplace_rank_opts *opts,
			    const struct psiplace_node *nodes, size_t n, size_t k, uint32_t *out,
			    psiplace_error_t *err)
{
	return choose(opts, NULL, nodes, n, k, out, err);
}

/* After the best: the other candidates by position, then the rest by
 * (index, position). */
static int append_others(const struct pass *p, size_t have, uint32_t *order)
{
	struct psiplace_rated *r;
	unsigned char *taken = calloc(p->n + 1, 1);
	size_t i, nr = 0;

	if (!taken)
		return -1;
	for (i = 0; i < have; i++)
		taken[order[i]] = 1;
	for (i = 0; i < p->n; i++)
		if (p->elig[i] && !taken[i])
			order[have++] = (uint32_t)i;
	if (!(r = malloc((p->n - have + 1) * sizeof(*r)))) {
		free(taken);
		return -1;
	}
	for (i = 0; i < p->n; i++) {
		if (p->elig[i])
			continue;
		memset(&r[nr], 0, sizeof(r[nr]));
		r[nr].idx = p->c ? p->c->index[i] : p->nodes[i].index;
		r[nr++].pos = (uint32_t)i;
	}
	psiplace_rated_sort(r, nr);
	for (i = 0; i < nr; i++)
		order[have++] = r[i].pos;
	free(r);
	free(taken);
	return 0;
}

static int partial(const struct psiplace_rank_opts *opts, const struct psiplace_nodecols *c,
		   const struct psiplace_node *nodes, size_t n, size_t k, uint32_t *order,
		   psiplace_error_t *err)
{
	struct pass p = { .o = opts, .c = c, .nodes = nodes, .n = n };
	int rc;

	if (check_input(opts, n, err) < 0)
		return -1;
	rc = best(&p, k, order);
	if (rc == 0)
		rc = psiplace_rank_partial_nodes(opts, nodes, n, k, order, err);
	else if (rc < 0 || append_others(&p, k < p.m ? k : p.m, order) < 0)
		rc = oom(err, n);
	else
		rc = 0;
	pass_free(&p);
	return rc;
}

int psiplace_rank_partial_cols(const struct psiplace_rank_opts *opts,
			       const struct psiplace_nodecols *c, size_t k, uint32_t *order,
			       psiplace_error_t *err)
{
	return partial(opts, c, c->nodes, c->n, k, order, err);
}

int psiplace_rank_partial_records(const struct psiplace_rank_opts *opts,
				  const struct psiplace_node *nodes, size_t n, size_t k,
				  uint32_t *order, psiplace_error_t *err)
{
	return partial(opts, NULL, nodes, n, k, order, err);
}
