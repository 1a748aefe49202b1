/* A sacct export as a trace:
 *   sacct -a -X -P -o JobIDRaw,Submit,Eligible,Start,End,Timelimit,NNodes,NCPUS,\
 *         ReqMem,ReqTRES,Partition,NodeList,State,Priority[,Comment,AdminComment]
 *         -S ... -E ...
 * (Comment or AdminComment `psiplace-malleable=MIN-MAX` or `psi-malleable=MIN-MAX`: the job was malleable,
 * for simulate --malleable trace.)
 * Fields are found by their header name, in any order; other columns are
 * counted and ignored.  Steps are skipped, jobs that never started or had
 * not ended are counted, not replayed.
 * A resized job (sacct -D: a record per size, each ended by a resize
 * State RESIZING, the next one submitted and started at the resize) is
 * folded into one job: the first record's submission, start, size, limit
 * and nodes, and the run time its node-seconds over all records take at
 * that size (work conserved, as simulate --malleable models a resize).  A
 * job whose last record is RESIZING (a helper allocation merged into
 * another job: its final record has 0 nodes and no end; or a job still
 * running) is counted, not replayed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/sim.h"
#include "psiplace/textparse.h"
#include "sim_readers.h"
#include "sim_rows.h"

enum col { C_IDRAW, C_ID, C_SUBMIT, C_ELIGIBLE, C_START, C_END, C_LIMIT, C_NNODES, C_NCPUS,
	   C_REQMEM, C_REQTRES, C_PARTITION, C_NODELIST, C_STATE, C_PRIORITY, C_COMMENT,
	   C_ADMINCOMMENT, C_COUNT };

static const char *const col_names[C_COUNT] = {
	"JobIDRaw", "JobID", "Submit", "Eligible", "Start", "End", "Timelimit", "NNodes",
	"NCPUS", "ReqMem", "ReqTRES", "Partition", "NodeList", "State", "Priority", "Comment",
	"AdminComment",
};

#define MAXFIELDS 256

struct sacct {
	int pos[C_COUNT]; /* field index of each column, -1: absent */
	int nfields;      /* of the header */
};

/* Split line (n bytes, copied into buf) at '|'; the count, or -1 over
 * MAXFIELDS. */
static int split(const char *line, size_t n, char *buf, const char **f, size_t *fl)
{
	int k = 0;
	size_t i = 0;

	memcpy(buf, line, n);
	buf[n] = '\0';
	if (n && buf[n - 1] == '\r')
		buf[--n] = '\0';
	for (;;) {
		size_t j = i;

		while (j < n && buf[j] != '|')
			j++;
		if (k == MAXFIELDS)
			return -1;
		f[k] = buf + i;
		fl[k++] = j - i;
		if (j == n)
			return k;
		i = j + 1;
	}
}

static bool is(const char *s, size_t n, const char *w)
{
	return strlen(w) == n && !strncmp(s, w, n);
}

static int header(struct sacct *h, const char *const *f, const size_t *fl, int k,
		  struct psiplace_sim_trace *t, const char *file, int line, psiplace_error_t *err)
{
	static const enum col required[] = { C_SUBMIT, C_START, C_END, C_NNODES, C_NCPUS };
	size_t i;
	int c, j;

	for (c = 0; c < C_COUNT; c++)
		h->pos[c] = -1;
	h->nfields = k;
	for (j = 0; j < k; j++) {
		for (c = 0; c < C_COUNT; c++)
			if (fl[j] == strlen(col_names[c]) && !strncasecmp(f[j], col_names[c], fl[j]))
				break;
		if (c == C_COUNT)
			t->counts.unknown_fields++;
		else if (h->pos[c] >= 0)
			return psiplace_seterr_linef(err, file, line, "header names %s twice",
						     col_names[c]);
		else
			h->pos[c] = j;
	}
	if (h->pos[C_IDRAW] < 0 && h->pos[C_ID] < 0)
		return psiplace_seterr_linef(err, file, line, "header names neither JobIDRaw nor "
					     "JobID; export with sacct -P -o JobIDRaw,Submit,...");
	for (i = 0; i < sizeof(required) / sizeof(required[0]); i++)
		if (h->pos[required[i]] < 0)
			return psiplace_seterr_linef(err, file, line, "header lacks %s; needed: "
						     "JobIDRaw, Submit, Start, End, NNodes, NCPUS",
						     col_names[required[i]]);
	return 0;
}

/* Memory as sacct prints it: NUMBER[K|M|G|T][n|c], in MB per node or (c)
 * per CPU; *per_cpu says which. */
#define SIM_MEM_MAX_MB 1e15

static bool parse_mem(const char *s, size_t n, double *mb, bool *per_cpu)
{
	double scale = 1.0;

	*per_cpu = false;
	if (n && (s[n - 1] == 'n' || s[n - 1] == 'c'))
		*per_cpu = s[--n] == 'c';
	if (n) {
		switch (s[n - 1]) {
		case 'K': scale = 1.0 / 1024; n--; break;
		case 'M': n--; break;
		case 'G': scale = 1024; n--; break;
		case 'T': scale = 1024.0 * 1024; n--; break;
		default: break;
		}
	}
	/* bounded after the unit (1e15 MB, about 1 EB): 999999999999999T would
	 * overflow the conversion to an integer of MB */
	if (!psiplace_parse_double(s, n, mb) || !(*mb >= 0))
		return false;
	*mb *= scale;
	return *mb <= SIM_MEM_MAX_MB;
}

/* mem=SIZE of ReqTRES (the job's total), or false. */
static bool tres_mem(const char *s, size_t n, double *mb)
{
	size_t i = 0;
	bool per_cpu;

	while (i < n) {
		size_t j = i;

		while (j < n && s[j] != ',')
			j++;
		if (j - i > 4 && !strncmp(s + i, "mem=", 4))
			return parse_mem(s + i + 4, j - i - 4, mb, &per_cpu) && !per_cpu;
		i = j + 1;
	}
	return false;
}

#define F(c) (h->pos[c] >= 0 ? f[h->pos[c]] : "")
#define FL(c) (h->pos[c] >= 0 ? fl[h->pos[c]] : 0)

static bool unknown_time(const char *s, size_t n)
{
	return n == 0 || is(s, n, "Unknown") || is(s, n, "None");
}

/* The job of one data line, or a count (*skip).  -1: malformed (msg). */
static int job_line(const struct sacct *h, const char *const *f, const size_t *fl,
		    struct psiplace_sim_trace *t, struct psiplace_sim_job *j, bool *skip,
		    bool *resizing, const char **msg)
{
	const char *id = h->pos[C_IDRAW] >= 0 ? F(C_IDRAW) : F(C_ID);
	size_t idl = h->pos[C_IDRAW] >= 0 ? FL(C_IDRAW) : FL(C_ID), k = 0;
	uint64_t v;
	int64_t lim;
	double d;

	*skip = true;
	if (memchr(id, '.', idl) || (h->pos[C_ID] >= 0 && memchr(F(C_ID), '.', FL(C_ID)))) {
		t->counts.steps++;
		return 0;
	}
	while (k < idl && id[k] >= '0' && id[k] <= '9')
		k++;
	if (!k || !psiplace_parse_u64(id, k, UINT64_MAX, &j->id) ||
	    (k < idl && id[k] != '_' && id[k] != '+'))
		return *msg = "job ID is not a number", -1;
	if (memchr(id, '_', idl) || (h->pos[C_ID] >= 0 && memchr(F(C_ID), '_', FL(C_ID)))) {
		if (memchr(id, '[', idl) || (h->pos[C_ID] >= 0 && memchr(F(C_ID), '[', FL(C_ID)))) {
			t->counts.never_ran++; /* a pending array's record */
			return 0;
		}
		t->counts.array_tasks++;
	}
	if (!sim_parse_time(F(C_SUBMIT), FL(C_SUBMIT), &j->submit))
		return *msg = "Submit is not YYYY-MM-DDTHH:MM:SS", -1;
	if ((FL(C_STATE) >= 7 && !strncmp(F(C_STATE), "PENDING", 7)) ||
	    unknown_time(F(C_START), FL(C_START))) {
		t->counts.never_ran++;
		return 0;
	}
	if (!sim_parse_time(F(C_START), FL(C_START), &j->eligible))
		return *msg = "Start is not YYYY-MM-DDTHH:MM:SS, Unknown or None", -1;
	if (unknown_time(F(C_END), FL(C_END))) {
		t->counts.running++;
		return 0;
	}
	if (!sim_parse_time(F(C_END), FL(C_END), &j->runtime))
		return *msg = "End is not YYYY-MM-DDTHH:MM:SS, Unknown or None", -1;
	if (j->runtime < j->eligible)
		return *msg = "End is before Start", -1;
	j->runtime -= j->eligible; /* eligible held Start */
	j->start = j->eligible;
	j->eligible = j->submit;
	if (h->pos[C_ELIGIBLE] >= 0 && !unknown_time(F(C_ELIGIBLE), FL(C_ELIGIBLE))) {
		if (!sim_parse_time(F(C_ELIGIBLE), FL(C_ELIGIBLE), &j->eligible))
			return *msg = "Eligible is not YYYY-MM-DDTHH:MM:SS, Unknown or None", -1;
		if (j->eligible < j->submit)
			j->eligible = j->submit;
	}
	if (!psiplace_parse_u64(F(C_NNODES), FL(C_NNODES), 1000000, &v) || !v)
		return *msg = "NNodes is not a positive integer", -1;
	j->nodes = (uint32_t)v;
	if (!psiplace_parse_u64(F(C_NCPUS), FL(C_NCPUS), 100000000, &v) || v < j->nodes)
		return *msg = "NCPUS is not an integer of at least NNodes", -1;
	j->cpus = (uint32_t)v;
	if (!psiplace_sim_parse_limit(F(C_LIMIT), FL(C_LIMIT), &lim))
		return *msg = "Timelimit is not [D-]HH:MM:SS, MM:SS, MM, UNLIMITED or Partition_Limit", -1;
	if (lim <= 0) {
		t->counts.no_limit++;
		lim = j->runtime;
	}
	j->limit = lim;
	if (FL(C_REQTRES) && tres_mem(F(C_REQTRES), FL(C_REQTRES), &d)) {
		j->mem = (uint64_t)(d / j->nodes + 0.5);
	} else if (FL(C_REQMEM)) {
		bool per_cpu;

		if (!parse_mem(F(C_REQMEM), FL(C_REQMEM), &d, &per_cpu))
			return *msg = "ReqMem is not a size up to 1e15 MB (4000M, 4Gn, 2Gc)", -1;
		if (per_cpu)
			d *= (j->cpus + j->nodes - 1) / j->nodes;
		if (d > SIM_MEM_MAX_MB)
			return *msg = "ReqMem per node is above 1e15 MB", -1;
		j->mem = (uint64_t)(d + 0.5);
	}
	if (FL(C_PRIORITY)) {
		if (!psiplace_parse_double(F(C_PRIORITY), FL(C_PRIORITY), &j->priority))
			return *msg = "Priority is not a number", -1;
		t->has_priority = true;
	}
	if (h->pos[C_NODELIST] >= 0 && FL(C_NODELIST) && F(C_NODELIST)[0] != '(' &&
	    strncmp(F(C_NODELIST), "None", 4) &&
	    (j->nodelist = sim_trace_nodelist(t, F(C_NODELIST), FL(C_NODELIST))) == SIZE_MAX)
		return *msg = "out of memory for its NodeList", -1;
	for (int c = C_COMMENT; c <= C_ADMINCOMMENT && !j->mall_max; c++)
		if (FL(c) && psiplace_sim_malleable_tag(F(c), FL(c), &j->mall_min, &j->mall_max) < 0)
			return *msg = c == C_COMMENT ? "Comment: psi-malleable= is not MIN-MAX (1 <= MIN <= MAX)"
						     : "AdminComment: psi-malleable= is not MIN-MAX (1 <= MIN <= MAX)",
			       -1;
	*resizing = FL(C_STATE) >= 8 && !strncmp(F(C_STATE), "RESIZING", 8);
	*skip = false;
	return 0;
}

/* Records of one job: by id, then start, then line. */
static const struct psiplace_sim_job *sort_jobs;

static int by_id_start(const void *a, const void *b)
{
	const struct psiplace_sim_job *x = &sort_jobs[*(const size_t *)a],
				      *y = &sort_jobs[*(const size_t *)b];

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Fold the records of each job id of which one is RESIZING (resizing[i]
 * for t->jobs[i]) into its earliest record; the others are removed, file
 * order kept.  0, or -1 out of memory. */
static int fold_resized(struct psiplace_sim_trace *t, const bool *resizing, const char *file,
			psiplace_error_t *err)
{
	size_t *ix = malloc(t->n * sizeof(*ix)), g, e, i, k;
	bool *gone = calloc(t->n, sizeof(*gone));

	if (!ix || !gone) {
		free(ix);
		free(gone);
		return psiplace_seterr(err, "%s: out of memory", file);
	}
	for (i = 0; i < t->n; i++)
		ix[i] = i;
	sort_jobs = t->jobs;
	qsort(ix, t->n, sizeof(*ix), by_id_start);
	for (g = 0; g < t->n; g = e) {
		struct psiplace_sim_job *first = &t->jobs[ix[g]];
		bool any = false;
		double work = 0;

		for (e = g; e < t->n && t->jobs[ix[e]].id == first->id; e++)
			any |= resizing[ix[e]];
		if (!any)
			continue;
		if (resizing[ix[e - 1]]) {
			/* no ended record after the last resize: a helper merged
			 * into another job (its last record, 0 nodes, has no
			 * end), or a job still running */
			for (k = g; k < e; k++)
				gone[ix[k]] = true;
			t->counts.resized_unended++;
			continue;
		}
		for (k = g; k < e; k++) {
			const struct psiplace_sim_job *r = &t->jobs[ix[k]];

			work += (double)r->nodes * (double)r->runtime;
			if (r->submit < first->submit)
				first->submit = r->submit;
			if (!first->mall_max && r->mall_max) {
				first->mall_min = r->mall_min;
				first->mall_max = r->mall_max;
			}
			if (k > g)
				gone[ix[k]] = true;
		}
		first->runtime = (int64_t)(work / first->nodes + 0.5);
		if (first->eligible < first->submit)
			first->eligible = first->submit;
		t->counts.resized_jobs++;
		t->counts.resize_records += e - g - 1;
	}
	for (i = k = 0; i < t->n; i++)
		if (!gone[i])
			t->jobs[k++] = t->jobs[i];
	t->n = k;
	free(ix);
	free(gone);
	return 0;
}

int sim_sacct_parse(const char *text, size_t len, const char *file, bool lenient,
		    struct psiplace_sim_trace *t, psiplace_error_t *err)
{
	struct psiplace_lines it;
	struct sacct h = { .nfields = 0 };
	const char *line, *f[MAXFIELDS];
	size_t n, fl[MAXFIELDS], cap = 0;
	char *buf = NULL;
	bool *resizing = NULL, any_resizing = false;
	size_t resizing_cap = 0;
	int rc = 0;

	psiplace_lines_init(&it, text, len);
	while (rc == 0 && psiplace_lines_next(&it, &line, &n, NULL)) {
		struct psiplace_sim_job j = { .line = it.lineno };
		const char *msg = NULL;
		bool skip;
		int k;

		if (n + 1 > cap) {
			char *p = realloc(buf, n + 1);

			if (!p) {
				rc = psiplace_seterr(err, "%s: out of memory", file);
				break;
			}
			buf = p;
			cap = n + 1;
		}
		k = split(line, n, buf, f, fl);
		if (k == 1 && fl[0] == 0)
			continue; /* blank */
		if (!h.nfields) {
			if (k < 0)
				rc = psiplace_seterr_linef(err, file, it.lineno, "header: more than %d fields",
							   MAXFIELDS);
			else
				rc = header(&h, f, fl, k, t, file, it.lineno, err);
			continue;
		}
		t->counts.lines++;
		if (k != h.nfields) {
			rc = sim_malformed(t, lenient, err, file, it.lineno,
					   "%s%d fields, the header has %d (sacct -P separates by '|')",
					   k < 0 ? "over " : "", k < 0 ? MAXFIELDS : k, h.nfields);
			continue;
		}
		bool res = false;

		if (job_line(&h, f, fl, t, &j, &skip, &res, &msg) < 0) {
			rc = sim_malformed(t, lenient, err, file, it.lineno, "%s", msg);
			continue;
		}
		if (skip || (rc = sim_trace_add(t, &j, err)) != 0)
			continue;
		/* which records are RESIZING, by the job's index */
		if (t->n > resizing_cap) {
			size_t c = resizing_cap ? 2 * resizing_cap : 1024;
			bool *p = realloc(resizing, c * sizeof(*p));

			if (!p) {
				rc = psiplace_seterr(err, "%s: out of memory", file);
				break;
			}
			memset(p + resizing_cap, 0, (c - resizing_cap) * sizeof(*p));
			resizing = p;
			resizing_cap = c;
		}
		resizing[t->n - 1] = res;
		any_resizing |= res;
	}
	free(buf);
	if (rc == 0 && !h.nfields)
		rc = psiplace_seterr(err, "%s: no header line (sacct -P -o JobIDRaw,Submit,...)", file);
	if (rc == 0 && any_resizing)
		rc = fold_resized(t, resizing, file, err);
	free(resizing);
	return rc;
}
