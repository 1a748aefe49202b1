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
	bool pinned; /* the upcall was installed: ps.sets live until exit */
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

/* A query some of whose keys are not ours: our answers wait here for the
 * previous upcall's, then go back in one callback. */
struct mixed {
	pmix_info_t *ours;                /* n_ours answers, zeroed end marker */
	size_t n_ours;                    /* answered here */
	pmix_status_t first_error;        /* of our keys that got no answer */
	pmix_info_cbfunc_t cbfunc;        /* the server's */
	void *cbdata;
	pmix_query_t *foreign;            /* what the previous upcall was asked */
	size_t nforeign;
	pmix_info_t *merged;              /* ours, then shallow copies of theirs */
	pmix_release_cbfunc_t their_release;
	void *their_cbdata;
};

static void foreign_free(pmix_query_t *f, size_t n)
{
	size_t i;

	for (i = 0; f && i < n; i++)
		free(f[i].keys);
	free(f);
}

/* n answers in all.  A partly answered query is PMIX_SUCCESS with the
 * answers it has (a key without one is absent from the results):
 * libpmix 4.2.2's client drops every result of a query whose status is
 * not PMIX_SUCCESS, PMIX_QUERY_PARTIAL_SUCCESS and PMIX_ERR_PARTIAL_SUCCESS
 * alike (verified under srun --mpi=pmix_v4), and MPI Sessions look for
 * their key in the results. */
static pmix_status_t status_of(size_t n, pmix_status_t error)
{
	if (n)
		return PMIX_SUCCESS;
	return error != PMIX_SUCCESS ? error : PMIX_ERR_NOT_FOUND;
}

static void mixed_release(void *cbdata)
{
	struct mixed *m = cbdata;

	release(m->ours);
	if (m->their_release)
		m->their_release(m->their_cbdata);
	foreign_free(m->foreign, m->nforeign);
	free(m->merged);
	free(m);
}

/* Our answers, then the previous upcall's (its values stay its own:
 * shallow copies, released by its release function). */
static void mixed_done(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
		       pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
	struct mixed *m = cbdata;
	bool theirs_ok = status == PMIX_SUCCESS || status == PMIX_QUERY_PARTIAL_SUCCESS ||
			 status == PMIX_ERR_PARTIAL_SUCCESS;
	size_t n = m->n_ours;

	m->their_release = release_fn;
	m->their_cbdata = release_cbdata;
	if (!theirs_ok || !info)
		ninfo = 0;
	if (ninfo && (m->merged = calloc(m->n_ours + ninfo + 1, sizeof(*m->merged)))) {
		memcpy(m->merged, m->ours, m->n_ours * sizeof(*m->merged));
		memcpy(m->merged + n, info, ninfo * sizeof(*m->merged));
		n += ninfo;
	}
	m->cbfunc(status_of(n, m->first_error != PMIX_SUCCESS ? m->first_error : status),
		  n ? (m->merged ? m->merged : m->ours) : NULL, n, m->cbdata, mixed_release, m);
}

static size_t count_keys(const pmix_query_t *queries, size_t nqueries, bool mine)
{
	size_t i, k, n = 0;

	for (i = 0; i < nqueries; i++)
		for (k = 0; queries[i].keys && queries[i].keys[k]; k++)
			n += ours(queries[i].keys[k]) == mine;
	return n;
}

/* The queries with only the keys not ours (nkeys arrays point into
 * queries' own strings; qualifiers shared). */
static pmix_query_t *foreign_queries(const pmix_query_t *queries, size_t nqueries, size_t *nout)
{
	pmix_query_t *f = calloc(nqueries ? nqueries : 1, sizeof(*f));
	size_t i, k, j;

	*nout = 0;
	for (i = 0; f && i < nqueries; i++) {
		size_t nk = 0;

		for (k = 0; queries[i].keys && queries[i].keys[k]; k++)
			nk += !ours(queries[i].keys[k]);
		if (!nk)
			continue;
		if (!(f[*nout].keys = calloc(nk + 1, sizeof(char *))))
			goto fail;
		for (k = 0, j = 0; queries[i].keys[k]; k++)
			if (!ours(queries[i].keys[k]))
				f[*nout].keys[j++] = queries[i].keys[k];
		f[*nout].qualifiers = queries[i].qualifiers;
		f[*nout].nqual = queries[i].nqual;
		(*nout)++;
	}
	return f;
fail:
	for (i = 0; i < *nout; i++)
		free(f[i].keys);
	free(f);
	return NULL;
}

/* Runs in the PMIx server's progress thread: only reads ps.sets, never
 * waits.  The pset keys are answered here; any other keys of the same
 * call go to the previous upcall (if there is one) and its answers are
 * merged with ours into one callback.  Keys nobody answers are absent
 * from the results (status_of). */
static pmix_status_t query_upcall(pmix_proc_t *proct, pmix_query_t *queries, size_t nqueries,
				  pmix_info_cbfunc_t cbfunc, void *cbdata)
{
	size_t n_mine = count_keys(queries, nqueries, true);
	size_t n_other = count_keys(queries, nqueries, false);
	pmix_query_t *f = NULL;
	size_t nf = 0, i, k;
	pmix_status_t rc;
	struct mixed *m;

	if (!n_mine)
		return ps.previous ? ps.previous(proct, queries, nqueries, cbfunc, cbdata)
				   : PMIX_ERR_NOT_SUPPORTED;
	if (!cbfunc)
		return PMIX_ERR_BAD_PARAM;
	if (!(m = calloc(1, sizeof(*m))) || !(m->ours = calloc(n_mine + 1, sizeof(*m->ours)))) {
		free(m);
		return PMIX_ERR_NOMEM;
	}
	m->cbfunc = cbfunc;
	m->cbdata = cbdata;
	for (i = 0; i < nqueries; i++)
		for (k = 0; queries[i].keys && queries[i].keys[k]; k++) {
			if (!ours(queries[i].keys[k]))
				continue;
			rc = answer(&queries[i], queries[i].keys[k], &m->ours[m->n_ours]);
			if (rc == PMIX_SUCCESS)
				m->n_ours++;
			else {
				memset(&m->ours[m->n_ours], 0, sizeof(m->ours[0]));
				if (m->first_error == PMIX_SUCCESS)
					m->first_error = rc;
			}
		}
	if (n_other && ps.previous && (f = foreign_queries(queries, nqueries, &nf)) && nf) {
		/* kept until mixed_release: the previous upcall may answer later */
		m->foreign = f;
		m->nforeign = nf;
		if (ps.previous(proct, f, nf, mixed_done, m) == PMIX_SUCCESS)
			return PMIX_SUCCESS; /* mixed_done answers */
	} else {
		foreign_free(f, nf);
	}
	/* nobody else answers: ours alone */
	rc = status_of(m->n_ours, m->first_error);
	cbfunc(rc, m->n_ours ? m->ours : NULL, m->n_ours, cbdata, mixed_release, m);
	return PMIX_SUCCESS;
}

/* Slurm unloads psiplace.so in spank_fini, but libpmix's progress thread
 * runs until mpi_fini, later: a query in flight then would jump into
 * unmapped code.  RTLD_NODELETE on our own handle keeps the plugin
 * mapped until the process ends. */
static bool pin_plugin(void)
{
	Dl_info info;
	void *self;

	if (!dladdr((void *)query_upcall, &info) || !info.dli_fname)
		return false;
	self = dlopen(info.dli_fname, RTLD_NODELETE | RTLD_NOLOAD | RTLD_LAZY);
	if (!self)
		return false;
	dlclose(self); /* the flag stays with the object */
	return true;
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
	if (!pin_plugin()) {
		slurm_info("psiplace: cannot keep psiplace.so loaded until the PMIx server ends (%s): process sets are not answered to queries",
			   dlerror() ? "dlopen failed" : "dladdr failed");
		return;
	}
	ps.previous = ps.module->query;
	__atomic_store_n(&ps.module->query, query_upcall, __ATOMIC_RELEASE);
	ps.installed = true;
	ps.pinned = true;
}

/* The upcall may still be running in the progress thread (or be called
 * by a query already read from a socket): what it reads, ps.sets and
 * ps.previous, stays until the process ends (spank_psets_exit). */
static void remove_upcall(void)
{
	if (ps.installed && ps.module->query == query_upcall)
		__atomic_store_n(&ps.module->query, ps.previous, __ATOMIC_RELEASE);
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
	if (ps.pinned) {
		/* the step's PMIx server still runs (mpi_fini comes after
		 * spank_fini): the sets stay for a query in flight, freed by
		 * the process's exit */
		slurm_info("psiplace: step exit: query upcall removed, process sets and psiplace.so kept until the PMIx server ends");
		return;
	}
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
