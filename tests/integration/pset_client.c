/* pset_client: a PMIx client that reports the process sets it sees, as an
 * MPI Sessions library asks for them (Open MPI 5: queries with and without
 * PMIX_QUERY_REFRESH_CACHE, PMIx_Get of PMIX_PSET_NAMES).  Run under
 * srun --mpi=pmix_v4; every rank prints lines "RANK KEY VALUE":
 *
 *   R num N              PMIX_QUERY_NUM_PSETS
 *   R num-refresh N      the same with PMIX_QUERY_REFRESH_CACHE
 *   R names A,B,...      PMIX_QUERY_PSET_NAMES (sorted)
 *   R members NAME 0,1   PMIX_QUERY_PSET_MEMBERSHIP of every set (ranks sorted)
 *   R get-own A,B        PMIx_Get(own rank, PMIX_PSET_NAMES) (sorted)
 *   R get-remote P A,B   the same for rank P = (R + 1) % size
 *   R unknown STATUS     PMIX_QUERY_PSET_MEMBERSHIP of "no-such-set"
 *   R node NAME          SLURMD_NODENAME (where the rank really runs)
 *   R nspace-ok 0|1      every member's nspace was the client's own
 *
 * A failing call prints its PMIx status name instead of the value.
 *
 * PSET_CLIENT_MODE selects another test instead:
 *   mixed  one PMIx_Query_info call with a pset key and a key that is no
 *          pset key (PMIX_QUERY_NAMESPACES): "R mixed STATUS num N|none"
 *   storm  PSET_CLIENT_QUERIES (200) non-blocking pset queries at once;
 *          the process ends (without PMIx_Finalize) when all are answered
 *          (at most 60 s): "R storm N-answered".  Not before: a query
 *          still unanswered when slurmstepd finalizes its PMIx server can
 *          deadlock libpmix 4.2.2 (doc/psets.md, Limits)
 *   hold   rank 0 queries once and exits; the others query in a loop until
 *          the file PSET_CLIENT_RELEASE exists (at most 120 s):
 *          "R hold N-queries-ok|FAILED-AFTER-N STATUS" */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

static pmix_proc_t me;
static int foreign; /* a member in another nspace than the client's */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_rank(const void *a, const void *b)
{
	pmix_rank_t x = *(const pmix_rank_t *)a, y = *(const pmix_rank_t *)b;

	return x < y ? -1 : x > y;
}

/* Sort a comma-separated list in place (into out). */
static void sorted_csv(const char *csv, char *out, size_t len)
{
	char *copy = strdup(csv ? csv : ""), *sp = NULL, *w, *v[1024];
	size_t n = 0, i, o = 0;

	for (w = strtok_r(copy, ",", &sp); w && n < 1024; w = strtok_r(NULL, ",", &sp))
		v[n++] = w;
	qsort(v, n, sizeof(*v), cmp_str);
	out[0] = '\0';
	for (i = 0; i < n; i++)
		o += (size_t)snprintf(out + o, o < len ? len - o : 0, "%s%s", i ? "," : "", v[i]);
	free(copy);
}

/* Names from a data array of strings (PMIx_Get of PMIX_PSET_NAMES). */
static void names_of_value(const pmix_value_t *val, char *out, size_t len)
{
	char csv[8192] = "";
	size_t i, o = 0;

	if (val->type == PMIX_DATA_ARRAY && val->data.darray && val->data.darray->type == PMIX_STRING) {
		char **s = (char **)val->data.darray->array;

		for (i = 0; i < val->data.darray->size; i++)
			o += (size_t)snprintf(csv + o, o < sizeof(csv) ? sizeof(csv) - o : 0, "%s%s",
					      i ? "," : "", s[i]);
	} else if (val->type == PMIX_STRING) {
		snprintf(csv, sizeof(csv), "%s", val->data.string);
	} else {
		snprintf(csv, sizeof(csv), "type-%d", (int)val->type);
	}
	sorted_csv(csv, out, len);
}

/* One query with an optional qualifier; returns the status. */
static pmix_status_t query(const char *key, const char *qkey, const char *qstr, bool refresh,
			   pmix_info_t **results, size_t *nresults)
{
	pmix_query_t q;
	size_t nq = 0;

	PMIX_QUERY_CONSTRUCT(&q);
	{
		pmix_status_t arc;

		PMIX_ARGV_APPEND(arc, q.keys, key);
		(void)arc;
	}
	if (qkey)
		nq++;
	if (refresh)
		nq++;
	if (nq) {
		size_t k = 0;

		PMIX_INFO_CREATE(q.qualifiers, nq);
		q.nqual = nq;
		if (qkey)
			PMIX_INFO_LOAD(&q.qualifiers[k++], qkey, qstr, PMIX_STRING);
		if (refresh) {
			bool t = true;

			PMIX_INFO_LOAD(&q.qualifiers[k++], PMIX_QUERY_REFRESH_CACHE, &t, PMIX_BOOL);
		}
	}
	return PMIx_Query_info(&q, 1, results, nresults);
}

static void report_num(const char *label, bool refresh)
{
	pmix_info_t *res = NULL;
	size_t nres = 0;
	pmix_status_t rc = query(PMIX_QUERY_NUM_PSETS, NULL, NULL, refresh, &res, &nres);

	if (rc != PMIX_SUCCESS || nres < 1)
		printf("%u %s %s\n", me.rank, label, PMIx_Error_string(rc));
	else
		printf("%u %s %zu\n", me.rank, label, res[0].value.data.size);
	if (res)
		PMIX_INFO_FREE(res, nres);
}

static char *report_names(void)
{
	pmix_info_t *res = NULL;
	size_t nres = 0;
	pmix_status_t rc = query(PMIX_QUERY_PSET_NAMES, NULL, NULL, false, &res, &nres);
	char out[8192];

	if (rc != PMIX_SUCCESS || nres < 1) {
		printf("%u names %s\n", me.rank, PMIx_Error_string(rc));
		return NULL;
	}
	names_of_value(&res[0].value, out, sizeof(out));
	printf("%u names %s\n", me.rank, out);
	PMIX_INFO_FREE(res, nres);
	return strdup(out);
}

static void report_members(const char *name, const char *label)
{
	pmix_info_t *res = NULL;
	size_t nres = 0, i;
	pmix_status_t rc = query(PMIX_QUERY_PSET_MEMBERSHIP, PMIX_PSET_NAME, name, false, &res, &nres);

	if (rc != PMIX_SUCCESS || nres < 1 || res[0].value.type != PMIX_DATA_ARRAY) {
		printf("%u %s %s %s\n", me.rank, label, name,
		       rc == PMIX_SUCCESS ? "bad-type" : PMIx_Error_string(rc));
	} else {
		pmix_data_array_t *d = res[0].value.data.darray;
		pmix_proc_t *p = d->array;
		pmix_rank_t *r = calloc(d->size ? d->size : 1, sizeof(*r));
		int same_ns = 1;

		for (i = 0; i < d->size; i++) {
			r[i] = p[i].rank;
			same_ns &= !strcmp(p[i].nspace, me.nspace);
		}
		qsort(r, d->size, sizeof(*r), cmp_rank);
		printf("%u %s %s ", me.rank, label, name);
		for (i = 0; i < d->size; i++)
			printf("%s%u", i ? "," : "", r[i]);
		printf("\n");
		if (!same_ns)
			foreign = 1;
		free(r);
	}
	if (res)
		PMIX_INFO_FREE(res, nres);
}

static void report_get(pmix_rank_t rank, const char *label)
{
	pmix_proc_t p;
	pmix_value_t *val = NULL;
	pmix_status_t rc;
	char out[8192];

	PMIX_LOAD_PROCID(&p, me.nspace, rank);
	rc = PMIx_Get(&p, PMIX_PSET_NAMES, NULL, 0, &val);
	if (rc != PMIX_SUCCESS)
		snprintf(out, sizeof(out), "%s", PMIx_Error_string(rc));
	else
		names_of_value(val, out, sizeof(out));
	if (rank == me.rank)
		printf("%u %s %s\n", me.rank, label, out);
	else
		printf("%u %s %u %s\n", me.rank, label, rank, out);
	if (val)
		PMIX_VALUE_RELEASE(val);
}

static void report_mixed(void)
{
	pmix_query_t q[2];
	pmix_info_t *res = NULL;
	size_t nres = 0, i;
	pmix_status_t rc, arc;
	char num[32] = "none";

	PMIX_QUERY_CONSTRUCT(&q[0]);
	PMIX_QUERY_CONSTRUCT(&q[1]);
	PMIX_ARGV_APPEND(arc, q[0].keys, PMIX_QUERY_NUM_PSETS);
	PMIX_ARGV_APPEND(arc, q[1].keys, PMIX_QUERY_NAMESPACES);
	(void)arc;
	rc = PMIx_Query_info(q, 2, &res, &nres);
	for (i = 0; i < nres; i++)
		if (!strcmp(res[i].key, PMIX_QUERY_NUM_PSETS) && res[i].value.type == PMIX_SIZE)
			snprintf(num, sizeof(num), "%zu", res[i].value.data.size);
	printf("%u mixed %s num %s\n", me.rank, PMIx_Error_string(rc), num);
	if (getenv("PSET_CLIENT_DEBUG"))
		for (i = 0; i < nres; i++)
			fprintf(stderr, "%u result %s type %d\n", me.rank, res[i].key, (int)res[i].value.type);
	if (res)
		PMIX_INFO_FREE(res, nres);
}

static volatile int answered;

static void count_answer(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
			 pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
	(void)status;
	(void)info;
	(void)ninfo;
	(void)cbdata;
	if (release_fn)
		release_fn(release_cbdata);
	__atomic_add_fetch(&answered, 1, __ATOMIC_RELEASE);
}

/* A burst of queries, then the end of the process: many short steps in
 * a row end while the server is still busy with their ranks. */
static void storm(void)
{
	static const char *keys[] = { PMIX_QUERY_NUM_PSETS, PMIX_QUERY_PSET_NAMES,
				      PMIX_QUERY_PSET_MEMBERSHIP };
	const char *v = getenv("PSET_CLIENT_QUERIES");
	int i, n = v ? atoi(v) : 200;

	for (i = 0; i < n; i++) {
		pmix_query_t *q;
		pmix_status_t arc;

		PMIX_QUERY_CREATE(q, 1);
		PMIX_ARGV_APPEND(arc, q->keys, keys[i % 3]);
		(void)arc;
		PMIX_INFO_CREATE(q->qualifiers, 1);
		q->nqual = 1;
		PMIX_INFO_LOAD(&q->qualifiers[0], PMIX_PSET_NAME, "psiplace://all", PMIX_STRING);
		/* q is never freed: the process ends without releasing it */
		if (PMIx_Query_info_nb(q, 1, count_answer, NULL) != PMIX_SUCCESS)
			__atomic_add_fetch(&answered, 1, __ATOMIC_RELEASE);
	}
	{
		time_t deadline = time(NULL) + 60;
		struct timespec ms = { 0, 1000000 };

		while (__atomic_load_n(&answered, __ATOMIC_ACQUIRE) < n && time(NULL) < deadline)
			nanosleep(&ms, NULL);
	}
	printf("%u storm %d-answered\n", me.rank, __atomic_load_n(&answered, __ATOMIC_ACQUIRE));
	fflush(stdout);
	_exit(0);
}

static int hold(void)
{
	const char *release = getenv("PSET_CLIENT_RELEASE");
	time_t deadline = time(NULL) + 120;
	unsigned long n = 0;
	pmix_info_t *res = NULL;
	size_t nres = 0;
	pmix_status_t rc = PMIX_SUCCESS;

	do {
		rc = query(PMIX_QUERY_NUM_PSETS, NULL, NULL, true, &res, &nres);
		if (res)
			PMIX_INFO_FREE(res, nres);
		res = NULL;
		if (rc != PMIX_SUCCESS)
			break;
		n++;
	} while (me.rank != 0 && release && access(release, F_OK) != 0 && time(NULL) < deadline);
	if (rc == PMIX_SUCCESS)
		printf("%u hold %lu-queries-ok\n", me.rank, n);
	else
		printf("%u hold FAILED-AFTER-%lu %s\n", me.rank, n, PMIx_Error_string(rc));
	fflush(stdout);
	return rc != PMIX_SUCCESS;
}

int main(void)
{
	const char *mode = getenv("PSET_CLIENT_MODE");
	pmix_value_t *val = NULL;
	pmix_proc_t wild;
	uint32_t size = 1;
	char *names, *sp = NULL, *w;

	if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) {
		fprintf(stderr, "pset_client: PMIx_Init failed\n");
		return 1;
	}
	PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
	if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val) == PMIX_SUCCESS) {
		size = val->data.uint32;
		PMIX_VALUE_RELEASE(val);
	}
	if (mode && !strcmp(mode, "storm"))
		storm();
	if (mode && (!strcmp(mode, "mixed") || !strcmp(mode, "hold"))) {
		int rc = 0;

		if (!strcmp(mode, "mixed"))
			report_mixed();
		else
			rc = hold();
		fflush(stdout);
		PMIx_Finalize(NULL, 0);
		return rc;
	}
	report_num("num", false);
	report_num("num-refresh", true);
	names = report_names();
	for (w = names ? strtok_r(names, ",", &sp) : NULL; w; w = strtok_r(NULL, ",", &sp))
		report_members(w, "members");
	free(names);
	report_get(me.rank, "get-own");
	report_get((me.rank + 1) % size, "get-remote");
	report_members("no-such-set", "unknown");
	printf("%u nspace-ok %d\n", me.rank, !foreign);
	printf("%u node %s\n", me.rank, getenv("SLURMD_NODENAME") ? getenv("SLURMD_NODENAME") : "?");
	fflush(stdout);
	PMIx_Finalize(NULL, 0);
	return 0;
}
