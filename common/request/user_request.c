/* Gather the validated request: option > PSI variable > OMPI variable >
 * plugstack.conf default. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/ctld_request.h"
#include "psiplace/user_request.h"
#include "psiplace/textparse.h"

void psiplace_user_request_init(struct psiplace_user_request *r)
{
	memset(r, 0, sizeof(*r));
	psiplace_names_init(&r->hosts);
	r->tpp = 1;
	r->pin = r->bindmem = true;
}

void psiplace_user_request_free(struct psiplace_user_request *r)
{
	free(r->node_ids);
	free(r->cpumap);
	psiplace_names_free(&r->hosts);
	psiplace_psets_free(&r->user_psets);
	psiplace_opts_free(&r->own);
	psiplace_user_request_init(r);
}

static void note(struct psiplace_user_request *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct psiplace_user_request *r, const char *fmt, ...)
{
	va_list ap;

	if (r->nnotes >= PSIPLACE_REQUEST_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(r->notes[r->nnotes++], PSIPLACE_ERRLEN, fmt, ap);
	va_end(ap);
}

struct gather {
	const struct psiplace_user_request_src *src;
	struct psiplace_user_request *r;
	psiplace_error_t *err;
};

/* The effective raw value of an option (option first, then its
 * variables) copied into r->own; *from names its source.  NULL: not given. */
static const char *lookup(struct gather *g, enum psiplace_opt o, const char **from)
{
	const char *const *v;
	const char *val = NULL;

	*from = NULL;
	if (g->src->opts && g->src->opts->val[o]) {
		val = g->src->opts->val[o];
		*from = psiplace_opt_table[o].dashed;
	} else {
		/* OMP_NUM_THREADS, PSI_TPP's fallback, is lenient: read apart. */
		for (v = psiplace_opt_table[o].vars; *v && !val; v++)
			if ((val = g->src->getenv ? g->src->getenv(*v, g->src->env_arg) : NULL))
				*from = *v;
	}
	if (!val)
		return NULL;
	if (g->r->own.val[o]) /* looked up before: keep earlier pointers valid */
		return g->r->own.val[o];
	if (psiplace_opts_set(&g->r->own, o, val) < 0)
		return NULL;
	return g->r->own.val[o];
}

static bool given(struct gather *g, enum psiplace_opt o)
{
	const char *from;
	return lookup(g, o, &from) != NULL;
}

/* Policy and PRIORITYF checked by the same code slurmctld runs on them. */
static int gather_policy(struct gather *g)
{
	struct psiplace_user_request *r = g->r;
	struct psiplace_ctld_request j;
	const char *pfrom, *ffrom, *p = lookup(g, PSIPLACE_OPT_ALLOC_POLICY, &pfrom);
	const char *prio = lookup(g, PSIPLACE_OPT_ALLOC_PRIORITY, &ffrom);

	psiplace_ctld_request_init(&j);
	if ((p && psiplace_ctld_request_set_policy(&j, p, pfrom, g->err) < 0) ||
	    (prio && psiplace_ctld_request_set_priority(&j, prio, ffrom, g->err) < 0) ||
	    psiplace_ctld_request_finish(&j, pfrom ? pfrom : psiplace_opt_table[PSIPLACE_OPT_ALLOC_POLICY].dashed,
				   ffrom ? ffrom : psiplace_opt_table[PSIPLACE_OPT_ALLOC_PRIORITY].dashed, g->err) < 0)
		return -1;
	r->policy = j.policy;
	r->priority = prio;
	return 0;
}

static int gather_malleable(struct gather *g)
{
	struct psiplace_user_request *r = g->r;
	struct psiplace_ctld_request j;
	const char *from, *v = lookup(g, PSIPLACE_OPT_MALLEABLE, &from);

	if (!v)
		return 0;
	psiplace_ctld_request_init(&j);
	if (psiplace_ctld_request_set_malleable(&j, v, from, g->err) < 0)
		return -1;
	r->mall_min = j.mall_min;
	r->mall_max = j.mall_max;
	r->malleable_from = from;
	return 0;
}

static int parse_nodeset(struct gather *g, enum psiplace_opt o, const char *val, const char *from)
{
	struct psiplace_user_request *r = g->r;

	r->nodeset_from = from;
	r->nodeset = o == PSIPLACE_OPT_NODES ? PSIPLACE_NODESET_IDS
		     : o == PSIPLACE_OPT_HOSTS ? PSIPLACE_NODESET_HOSTS
					       : PSIPLACE_NODESET_HOSTFILE;
	if (!g->src->node_choice)
		return 0;
	if (o == PSIPLACE_OPT_NODES)
		return psiplace_psi_nodes_parse(val, from, &r->node_ids, &r->nnode_ids, g->err);
	if (o == PSIPLACE_OPT_HOSTS)
		return psiplace_psi_hosts_parse(val, from, &r->hosts, g->err);
	return psiplace_psi_hostfile_read(val, from, &r->hosts, g->err);
}

/* PSI_NODES, PSI_HOSTS, PSI_HOSTFILE: one option, else the first defined
 * variable; the rest is ignored (a verbose note). */
static int gather_nodeset(struct gather *g)
{
	static const enum psiplace_opt set[3] = { PSIPLACE_OPT_NODES, PSIPLACE_OPT_HOSTS,
						   PSIPLACE_OPT_HOSTFILE };
	const struct psiplace_opts *opts = g->src->opts;
	int i, chosen = -1;
	const char *val = NULL, *from = NULL, *v;

	for (i = 0; i < 3 && opts; i++) {
		if (!opts->val[set[i]])
			continue;
		if (chosen >= 0)
			return psiplace_seterr(g->err,
					       "%s and %s cannot be combined; give one of --psi-nodes, --psi-hosts, --psi-hostfile",
					       psiplace_opt_table[set[chosen]].dashed, psiplace_opt_table[set[i]].dashed);
		chosen = i;
	}
	if (chosen >= 0)
		val = lookup(g, set[chosen], &from);
	for (i = 0; i < 3; i++) {
		const char *var = psiplace_opt_table[set[i]].vars[0];

		if (!g->src->getenv || !(v = g->src->getenv(var, g->src->env_arg)))
			continue;
		if (chosen < 0) {
			chosen = i;
			val = lookup(g, set[i], &from);
		} else {
			note(g->r, "%s ignored: %s is given", var, from);
		}
	}
	if (chosen < 0)
		return 0;
	if (!val)
		return psiplace_seterr(g->err, "%s: out of memory", from);
	return parse_nodeset(g, set[chosen], val, from);
}

static int gather_node_choice(struct gather *g)
{
	struct psiplace_user_request *r = g->r;
	const char *from, *v;

	if (gather_policy(g) < 0 || gather_malleable(g) < 0 || gather_nodeset(g) < 0)
		return -1;
	if ((v = lookup(g, PSIPLACE_OPT_NODES_SORT, &from))) {
		r->sort_from = from;
		if (psiplace_nodes_sort_parse(v, from, &r->sort, g->err) < 0)
			return -1;
	}
	r->overbook = given(g, PSIPLACE_OPT_OVERBOOK);
	r->exclusive = r->overbook || given(g, PSIPLACE_OPT_EXCLUSIVE);
	r->wait = given(g, PSIPLACE_OPT_WAIT);
	r->psi_node_choice = r->nodeset != PSIPLACE_NODESET_NONE || r->sort_from || r->exclusive ||
			     r->wait;
	return 0;
}

static int gather_lama(struct gather *g)
{
	struct psiplace_lama_strings *l = &g->r->lama_strings;

	l->map_by = lookup(g, PSIPLACE_OPT_MAP_BY, &l->map_by_from);
	l->bind_to = lookup(g, PSIPLACE_OPT_BIND_TO, &l->bind_to_from);
	l->map = lookup(g, PSIPLACE_OPT_LAMA_MAP, &l->map_from);
	l->bind = lookup(g, PSIPLACE_OPT_LAMA_BIND, &l->bind_from);
	l->mppr = lookup(g, PSIPLACE_OPT_LAMA_MPPR, &l->mppr_from);
	l->order = lookup(g, PSIPLACE_OPT_LAMA_ORDER, &l->order_from);
	l->oversubscribe = given(g, PSIPLACE_OPT_OVERSUBSCRIBE);
	g->r->lama = l->map_by || l->bind_to || l->map || l->bind || l->mppr || l->order ||
		     l->oversubscribe;
	/* Options win over OMPI_MCA_rmaps_lama_* variables, also across the
	 * simple and the expert form. */
	if (l->map_by && l->map && l->map_from[0] != '-') {
		note(g->r, "%s ignored: %s is given", l->map_from, l->map_by_from);
		l->map = l->map_from = NULL;
	}
	if (l->bind_to && l->bind && l->bind_from[0] != '-') {
		note(g->r, "%s ignored: %s is given", l->bind_from, l->bind_to_from);
		l->bind = l->bind_from = NULL;
	}
	if (l->map_by && l->map)
		return psiplace_seterr(g->err,
				       "--psi-map-by and %s cannot be combined; give a simple level or an expert map string",
				       l->map_from);
	return 0;
}

static int gather_cpumap(struct gather *g, bool allowed)
{
	struct psiplace_user_request *r = g->r;
	const char *from, *v = lookup(g, PSIPLACE_OPT_CPUMAP, &from);

	if (!v)
		return 0;
	if (!allowed) {
		if (from == psiplace_opt_table[PSIPLACE_OPT_CPUMAP].dashed)
			return psiplace_seterr(g->err,
					       "--psi-cpumap: not allowed on this cluster (plugstack.conf AllowUserCpumap=no)");
		note(r, "%s ignored: this cluster does not allow user CPU maps (AllowUserCpumap=no)", from);
		return 0;
	}
	r->cpumap_from = from;
	return psiplace_cpumap_parse(v, from, &r->cpumap, &r->ncpumap, g->err);
}

/* The PSI task placement inputs that exclude LAMA, for the error line. */
static const char *psi_placement_input(const struct psiplace_user_request *r, struct gather *g)
{
	const char *from;

	if (r->tpp_from && strcmp(r->tpp_from, "OMP_NUM_THREADS"))
		return r->tpp_from;
	if (r->cpumap_from)
		return r->cpumap_from;
	if (r->loop_nodes_first)
		return lookup(g, PSIPLACE_OPT_LOOP_NODES_FIRST, &from) ? from : "PSI_LOOP_NODES_FIRST";
	if (r->overbook)
		return lookup(g, PSIPLACE_OPT_OVERBOOK, &from) ? from : "PSI_OVERBOOK";
	return NULL;
}

static const char *lama_input(const struct psiplace_lama_strings *l)
{
	return l->map_by ? l->map_by_from : l->map ? l->map_from : l->bind_to ? l->bind_to_from
		: l->bind ? l->bind_from : l->mppr ? l->mppr_from : l->order ? l->order_from
		: psiplace_opt_table[PSIPLACE_OPT_OVERSUBSCRIBE].dashed;
}

static int gather_placement(struct gather *g)
{
	const struct psiplace_siteconf *site = g->src->site;
	struct psiplace_user_request *r = g->r;
	const char *from, *v, *psi;

	if ((v = lookup(g, PSIPLACE_OPT_TPP, &from))) {
		if (psiplace_tpp_parse(v, from, &r->tpp, g->err) < 0)
			return -1;
		r->tpp_from = from;
	}
	if (gather_cpumap(g, site && site->allow_user_cpumap) < 0 || gather_lama(g) < 0)
		return -1;
	r->loop_nodes_first = given(g, PSIPLACE_OPT_LOOP_NODES_FIRST);
	r->pin = !given(g, PSIPLACE_OPT_NO_PINPROC);
	r->bindmem = !given(g, PSIPLACE_OPT_NO_BINDMEM);
	r->verbose = given(g, PSIPLACE_OPT_VERBOSE) || (site && site->verbose);
	r->dry_run = given(g, PSIPLACE_OPT_DRY_RUN);

	if (r->lama && (psi = psi_placement_input(r, g)))
		return psiplace_seterr(g->err,
				       "%s and %s cannot be combined: PSI task placement (TPP, cpumap, loop-nodes-first, overbook) and LAMA mapping exclude each other",
				       psi, lama_input(&r->lama_strings));
	if (r->lama)
		r->place_why = lama_input(&r->lama_strings);
	else if (r->tpp_from)
		r->place_why = r->tpp_from;
	else if (r->cpumap_from)
		r->place_why = r->cpumap_from;
	else if (r->loop_nodes_first)
		r->place_why = "loop-nodes-first";
	else if (r->psi_node_choice)
		r->place_why = r->nodeset_from ? r->nodeset_from : r->sort_from ? r->sort_from
			       : "PSI node choice";
	else if (site && site->placement == PSIPLACE_PLACEMENT_PSI)
		r->place_why = "DefaultPlacement=psi";
	r->place = r->place_why != NULL;
	/* OpenMP's variable counts only when psiplace places PSI-style. */
	if (r->place && !r->lama && !r->tpp_from &&
	    (v = g->src->getenv ? g->src->getenv("OMP_NUM_THREADS", g->src->env_arg) : NULL)) {
		psiplace_error_t warn;

		if (psiplace_omp_threads_tpp(v, &r->tpp, &warn) == 0)
			r->tpp_from = "OMP_NUM_THREADS";
		else
			snprintf(r->warning, sizeof(r->warning), "%s", warn.text);
	}
	return 0;
}

/* Slurm hands slurmstepd the last --psi-pset only; srun put all of them,
 * joined, in PSIPLACE_PSETS.  Taken only when it ends with that last one. */
static const char *joined_psets(struct gather *g, const char *last)
{
	const char *j = g->src->getenv ? g->src->getenv(PSIPLACE_ENV_PSETS, g->src->env_arg) : NULL;
	size_t lj, ll = strlen(last);

	if (!j || (lj = strlen(j)) < ll || strcmp(j + lj - ll, last))
		return last;
	if (lj > ll && j[lj - ll - 1] != ';')
		return last;
	return j;
}

/* --psi-pset and --psi-pset-levels, validated where they are given (the
 * ranks against the step's size only at launch). */
static int gather_psets(struct gather *g)
{
	struct psiplace_user_request *r = g->r;
	const char *from, *v;

	if ((v = lookup(g, PSIPLACE_OPT_PSET, &from))) {
		if (from == psiplace_opt_table[PSIPLACE_OPT_PSET].dashed)
			v = joined_psets(g, v);
		if (psiplace_psets_parse(v, from, &r->user_psets, g->err) < 0)
			return -1;
		r->psets = true;
	}
	r->pset_levels = PSIPLACE_PSET_LEVEL_NODE;
	if ((v = lookup(g, PSIPLACE_OPT_PSET_LEVELS, &from))) {
		if (psiplace_pset_levels_parse(v, from, &r->pset_levels, g->err) < 0)
			return -1;
		r->psets = true;
	}
	return 0;
}

int psiplace_user_request_gather(const struct psiplace_user_request_src *src, struct psiplace_user_request *r,
			    psiplace_error_t *err)
{
	struct gather g = { src, r, err };

	psiplace_user_request_init(r);
	if (gather_node_choice(&g) < 0 || gather_placement(&g) < 0 || gather_psets(&g) < 0) {
		psiplace_user_request_free(r);
		return -1;
	}
	return 0;
}

int psiplace_user_request_check_option(enum psiplace_opt o, const char *value,
				  const struct psiplace_siteconf *site, psiplace_error_t *err)
{
	struct psiplace_opts opts;
	struct psiplace_user_request_src src = { NULL, NULL, &opts, site, false };
	struct psiplace_user_request r;
	int rc;

	/* Files are read and node lists expanded in gather, not per option. */
	psiplace_opts_init(&opts);
	if (psiplace_opts_set(&opts, o, value) < 0)
		return psiplace_seterr(err, "%s: out of memory", psiplace_opt_table[o].dashed);
	if (o == PSIPLACE_OPT_NODES) {
		uint32_t *ids = NULL;
		size_t n;
		rc = psiplace_psi_nodes_parse(value ? value : "", psiplace_opt_table[o].dashed, &ids, &n, err);
		free(ids);
	} else if (o == PSIPLACE_OPT_HOSTS) {
		struct psiplace_names hl;
		psiplace_names_init(&hl);
		rc = psiplace_psi_hosts_parse(value ? value : "", psiplace_opt_table[o].dashed, &hl, err);
		psiplace_names_free(&hl);
	} else if (o == PSIPLACE_OPT_HOSTFILE && (!value || !*value)) {
		rc = psiplace_seterr(err, "--psi-hostfile: '' is empty; accepted: the path of a host file");
	} else {
		rc = psiplace_user_request_gather(&src, &r, err);
		if (rc == 0)
			psiplace_user_request_free(&r);
	}
	psiplace_opts_free(&opts);
	return rc;
}

int psiplace_user_request_check_malleable(const struct psiplace_user_request *r, bool new_job,
					  const struct psiplace_slurm_cmdline *slurm,
					  psiplace_error_t *err)
{
	const char *what = r->malleable_from;
	uint32_t lo = r->mall_min, hi = r->mall_max;

	/* A step inherits the option from its job, whose range slurmctld has. */
	if (!hi || !new_job)
		return 0;
	if (!slurm || slurm->nnodes < 0)
		return psiplace_seterr(err,
				       "%s=%u-%u needs -N/--nodes with one node count from %u to %u, "
				       "the size the job starts at",
				       what, lo, hi, lo, hi);
	if ((uint64_t)slurm->nnodes < lo || (uint64_t)slurm->nnodes > hi)
		return psiplace_seterr(err,
				       "%s=%u-%u: the job starts at -N %ld, outside the range; accepted: "
				       "-N from %u to %u",
				       what, lo, hi, slurm->nnodes, lo, hi);
	/* cons_tres's select_p_job_expand refuses to merge a job with GRES */
	if (slurm->set & PSIPLACE_SLURM_GRES)
		return psiplace_seterr(err,
				       "%s=%u-%u: %s asks for GRES, and Slurm cannot grow a job with "
				       "GRES; accepted: a malleable job without --gres/--gpus*, or a "
				       "GRES job without %s",
				       what, lo, hi, slurm->gres[0] ? slurm->gres : "the job", what);
	return 0;
}

uint32_t psiplace_partition_node_limit(const char *want, const struct psiplace_partition_size *p,
				       size_t n, const char **which)
{
	uint32_t best = 0;
	size_t i;

	*which = NULL;
	for (i = 0; i < n; i++) {
		uint32_t lim = p[i].total_nodes;

		if (!p[i].name || !(want && *want ? psiplace_word_in_list(want, p[i].name) : p[i].is_default))
			continue;
		if (p[i].max_nodes && p[i].max_nodes != UINT32_MAX && p[i].max_nodes < lim)
			lim = p[i].max_nodes;
		if (!*which || lim > best) {
			best = lim;
			*which = p[i].name;
		}
	}
	return *which ? best : 0;
}

int psiplace_user_request_check_malleable_limit(const struct psiplace_user_request *r, bool new_job,
						uint32_t limit, const char *part,
						psiplace_error_t *err)
{
	if (!r->mall_max || !new_job || !limit || r->mall_max <= limit)
		return 0;
	return psiplace_seterr(err,
			       "%s=%u-%u: MAX %u is above the %u nodes partition %s can give a job "
			       "(its MaxNodes and node count); accepted: MAX from %u to %u",
			       r->malleable_from, r->mall_min, r->mall_max, r->mall_max, limit,
			       part ? part : "(default)", r->mall_min <= limit ? r->mall_min : 1,
			       limit);
}
