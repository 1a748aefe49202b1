/* psiplace SPANK plugin: PMIx process sets, published from slurmstepd in
 * slurm_spank_user_init, after Slurm's PMIx server registered the step's
 * namespace and before any task forks (doc/psets.md).
 *
 * psiplace.so never links libpmix: srun, sbatch and salloc load it without
 * PMIx, and in slurmstepd the functions are looked up in the process
 * (mpi/pmix dlopens libpmix with RTLD_GLOBAL); without them (--mpi=none,
 * pmi2) nothing happens.  Only PMIx's header types are used here.
 *
 *   1. PMIX_PSET_NAMES and PMIX_PSET_NAME of every rank, stored with
 *      PMIx_Store_internal: every client's PMIx_Get finds them locally.
 *   2. A query upcall in the server module (NUM_PSETS, PSET_NAMES,
 *      PSET_MEMBERSHIP), chained to one already there and restored at
 *      exit; answered synchronously from immutable data, never blocking.
 *      PsetQuery=no on the plugstack line leaves the module alone.
 *   3. PMIx_server_define_process_set for every set (events). */
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/spank.h>

#include "psiplace/hostlist.h"
#include "psiplace/psets.h"
#include "spank_ctx.h"
#include "spank_psets.h"

#define ctx psiplace_spank

#ifdef PSIPLACE_HAVE_PMIX
#include <pmix_server.h>

typedef pmix_status_t (*store_fn)(const pmix_proc_t *, const char *, pmix_value_t *);
typedef pmix_status_t (*define_fn)(const pmix_proc_t *, size_t, const char *);

static struct {
	struct psiplace_psets sets;      /* everything this node defines */
	char nspace[PMIX_MAX_NSLEN + 1];
#ifdef PSIPLACE_PMIX_QUERY_UPCALL
	pmix_server_module_t *module;    /* libpmix's copy of Slurm's module */
	pmix_server_query_fn_t previous; /* the upcall we chain to */
	bool installed;
#endif
} ps;

#ifdef PSIPLACE_PMIX_QUERY_UPCALL
static void set_key(pmix_info_t *info, const char *key)
{
	memset(info, 0, sizeof(*info));
	snprintf(info->key, sizeof(info->key), "%s", key);
}

static void release(void *cbdata)
{
	pmix_info_t *info = cbdata;
	size_t i;

	for (i = 0; info && info[i].key[0]; i++) {
		if (info[i].value.type == PMIX_STRING)
			free(info[i].value.data.string);
		else if (info[i].value.type == PMIX_DATA_ARRAY && info[i].value.data.darray) {
			free(info[i].value.data.darray->array);
			free(info[i].value.data.darray);
		}
	}
	free(info);
}

static const char *qualifier(const pmix_query_t *q, const char *key)
{
	size_t i;

	for (i = 0; i < q->nqual; i++)
		if (!strcmp(q->qualifiers[i].key, key) && q->qualifiers[i].value.type == PMIX_STRING)
			return q->qualifiers[i].value.data.string;
	return NULL;
}

static bool ours(const char *key)
{
	return !strcmp(key, PMIX_QUERY_NUM_PSETS) || !strcmp(key, PMIX_QUERY_PSET_NAMES) ||
	       !strcmp(key, PMIX_QUERY_PSET_MEMBERSHIP);
}

/* One answer; 0, or a PMIx status for the whole query. */
static pmix_status_t answer(const pmix_query_t *q, const char *key, pmix_info_t *out)
{
	size_t i, len = 0, o = 0;

	set_key(out, key);
	if (!strcmp(key, PMIX_QUERY_NUM_PSETS)) {
		out->value.type = PMIX_SIZE;
		out->value.data.size = ps.sets.n;
		return PMIX_SUCCESS;
	}
	if (!strcmp(key, PMIX_QUERY_PSET_NAMES)) {
		char *s;

		for (i = 0; i < ps.sets.n; i++)
			len += strlen(ps.sets.set[i].name) + 1;
		if (!(s = malloc(len + 1)))
			return PMIX_ERR_NOMEM;
		s[0] = '\0';
		for (i = 0; i < ps.sets.n; i++)
			o += (size_t)sprintf(s + o, "%s%s", i ? "," : "", ps.sets.set[i].name);
		out->value.type = PMIX_STRING;
		out->value.data.string = s;
		return PMIX_SUCCESS;
	} else {
		const char *name = qualifier(q, PMIX_PSET_NAME);
		const struct psiplace_pset *set = name ? psiplace_psets_find(&ps.sets, name) : NULL;
		pmix_data_array_t *d;
		pmix_proc_t *p;

		if (!set)
			return name ? PMIX_ERR_NOT_FOUND : PMIX_ERR_BAD_PARAM;
		d = calloc(1, sizeof(*d));
		p = calloc(set->n ? set->n : 1, sizeof(*p));
		if (!d || !p) {
			free(d);
			free(p);
			return PMIX_ERR_NOMEM;
		}
		for (i = 0; i < set->n; i++) {
			memcpy(p[i].nspace, ps.nspace, sizeof(p[i].nspace));
			p[i].rank = set->ranks[i];
		}
		d->type = PMIX_PROC;
		d->size = set->n;
		d->array = p;
		out->value.type = PMIX_DATA_ARRAY;
		out->value.data.darray = d;
		return PMIX_SUCCESS;
	}
}

/* Runs in the PMIx server's progress thread: only reads ps.sets, calls
 * back at once, never waits. */
static pmix_status_t query_upcall(pmix_proc_t *proct, pmix_query_t *queries, size_t nqueries,
				  pmix_info_cbfunc_t cbfunc, void *cbdata)
{
	pmix_info_t *info;
	pmix_status_t rc = PMIX_SUCCESS;
	size_t i, k, n = 0;

	for (i = 0; i < nqueries; i++)
		for (k = 0; queries[i].keys && queries[i].keys[k]; k++, n++)
			if (!ours(queries[i].keys[k]))
				return ps.previous ? ps.previous(proct, queries, nqueries, cbfunc, cbdata)
						   : PMIX_ERR_NOT_SUPPORTED;
	/* n answers and a zeroed end marker for release() */
	if (!(info = calloc(n + 1, sizeof(*info))))
		return PMIX_ERR_NOMEM;
	for (i = 0, n = 0; i < nqueries && rc == PMIX_SUCCESS; i++)
		for (k = 0; queries[i].keys[k] && rc == PMIX_SUCCESS; k++)
			if ((rc = answer(&queries[i], queries[i].keys[k], &info[n])) == PMIX_SUCCESS)
				n++;
	if (rc != PMIX_SUCCESS) {
		info[n].key[0] = '\0';
		release(info);
		if (cbfunc)
			cbfunc(rc, NULL, 0, cbdata, NULL, NULL);
		return PMIX_SUCCESS;
	}
	if (cbfunc)
		cbfunc(PMIX_SUCCESS, info, n, cbdata, release, info);
	else
		release(info);
	return PMIX_SUCCESS;
}

static void install_upcall(void)
{
	if (!ctx.site.pset_query) {
		slurm_info("psiplace: PsetQuery=no: process sets are not answered to queries");
		return;
	}
	ps.module = dlsym(RTLD_DEFAULT, "pmix_host_server");
	if (!ps.module) {
		slurm_info("psiplace: libpmix exports no pmix_host_server: process sets are not answered to queries");
		return;
	}
	ps.previous = ps.module->query;
	ps.module->query = query_upcall;
	ps.installed = true;
}

static void remove_upcall(void)
{
	if (ps.installed && ps.module->query == query_upcall)
		ps.module->query = ps.previous;
	ps.installed = false;
}
#else
static void install_upcall(void)
{
	slurm_info("psiplace: built without PMIx's query upcall in its headers: process sets are not answered to queries");
}

static void remove_upcall(void)
{
}
#endif

/* PMIX_PSET_NAMES (every set of the rank) and PMIX_PSET_NAME (its first). */
static int store_rank(store_fn store, uint32_t rank, psiplace_error_t *err)
{
	const char **names;
	size_t n;
	pmix_proc_t proc;
	pmix_value_t v;
	pmix_data_array_t d;
	pmix_status_t rc;

	if (psiplace_psets_of_rank(&ps.sets, rank, &names, &n, err) < 0)
		return -1;
	memset(&proc, 0, sizeof(proc));
	memcpy(proc.nspace, ps.nspace, sizeof(proc.nspace));
	proc.rank = rank;
	memset(&v, 0, sizeof(v));
	d.type = PMIX_STRING;
	d.size = n;
	d.array = (void *)names;
	v.type = PMIX_DATA_ARRAY;
	v.data.darray = &d;
	rc = store(&proc, PMIX_PSET_NAMES, &v);
	if (rc == PMIX_SUCCESS && n) {
		memset(&v, 0, sizeof(v));
		v.type = PMIX_STRING;
		v.data.string = (char *)names[0];
		rc = store(&proc, PMIX_PSET_NAME, &v);
	}
	free(names);
	if (rc != PMIX_SUCCESS)
		return psiplace_seterr(err, "PMIx_Store_internal of rank %u's sets failed (%d)", rank, rc);
	return 0;
}

int spank_psets_publish(spank_t sp, char **env, const struct psiplace_user_request *r,
			const struct spank_psets_layout *l, psiplace_error_t *err)
{
	store_fn store = (store_fn)dlsym(RTLD_DEFAULT, "PMIx_Store_internal");
	define_fn define = (define_fn)dlsym(RTLD_DEFAULT, "PMIx_server_define_process_set");
	uint32_t jobid = 0, stepid = 0, rank;
	size_t i;

	(void)env;
	psiplace_psets_init(&ps.sets);
	if (!r->psets)
		return 0;
	if (!store || !define) {
		snprintf(ctx.pset_note, sizeof(ctx.pset_note),
			 "no PMIx server in this step (srun --mpi=pmix): no process sets");
		return 0;
	}
	if (psiplace_psets_step(&r->user_psets, l->ntasks, l->node_of ? l->nnodes : 0,
				(const char *const *)l->node_names, l->node_of, &ps.sets, err) < 0)
		return -1;
	if (l->obj[PSIPLACE_PSET_NLEVELS - 1] || l->obj[1] || l->obj[2] || l->obj[3])
		if (psiplace_psets_node_levels(l->node, r->pset_levels, l->nlocal, l->gtids,
					       (const int *const *)l->obj, &ps.sets, err) < 0)
			return -1;
	if (spank_get_item(sp, S_JOB_ID, &jobid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_STEPID, &stepid) != ESPANK_SUCCESS)
		return psiplace_seterr(err, "Slurm does not tell the step's ids");
	/* Slurm's namespace of the step (mpi/pmix, 22.05 to 26.05). */
	snprintf(ps.nspace, sizeof(ps.nspace), "slurm.pmix.%u.%u", jobid, stepid);
	for (rank = 0; rank < l->ntasks; rank++)
		if (store_rank(store, rank, err) < 0)
			return -1;
	install_upcall();
	for (i = 0; i < ps.sets.n; i++) {
		const struct psiplace_pset *s = &ps.sets.set[i];
		pmix_proc_t *m = calloc(s->n ? s->n : 1, sizeof(*m));
		size_t k;

		if (!m)
			return psiplace_seterr(err, "out of memory");
		for (k = 0; k < s->n; k++) {
			memcpy(m[k].nspace, ps.nspace, sizeof(m[k].nspace));
			m[k].rank = s->ranks[k];
		}
		define(m, s->n, s->name); /* events only: the stores above are what counts */
		free(m);
	}
	snprintf(ctx.pset_note, sizeof(ctx.pset_note), "%zu process set%s in %s", ps.sets.n,
		 ps.sets.n == 1 ? "" : "s", ps.nspace);
	return 0;
}

const struct psiplace_psets *spank_psets(void)
{
	return &ps.sets;
}

void spank_psets_exit(void)
{
	remove_upcall();
	psiplace_psets_free(&ps.sets);
}

#else /* no PMIx headers at build time */

static struct psiplace_psets none;

int spank_psets_publish(spank_t sp, char **env, const struct psiplace_user_request *r,
			const struct spank_psets_layout *l, psiplace_error_t *err)
{
	(void)sp;
	(void)env;
	(void)l;
	(void)err;
	if (r->psets)
		snprintf(ctx.pset_note, sizeof(ctx.pset_note),
			 "psiplace was built without PMIx headers: no process sets");
	return 0;
}

const struct psiplace_psets *spank_psets(void)
{
	return &none;
}

void spank_psets_exit(void)
{
}
#endif
