/* The Standard Workload Format 2.2 of the Parallel Workloads Archive as a
 * trace: ';' lines are the header comments, every other line 18 numbers
 * (-1: unknown).  Read: 1 job number, 2 submit time, 4 run time,
 * 5 allocated processors (else 8 requested), 9 requested time (the
 * limit), 10 requested memory (KB per processor; else 7 used), 11 status
 * (5: cancelled).  SWF has no nodes: psiplace_sim_run() derives them. */
#include <string.h>

#include "psiplace/sim.h"
#include "psiplace/textparse.h"
#include "sim_readers.h"
#include "sim_rows.h"

#define SWF_FIELDS 18

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* The 18 numbers of a line, or the count found when it is not 18 (over:
 * 19); *bad is the 1-based field that is not a number (0: none). */
static int fields(const char *line, size_t n, double v[SWF_FIELDS], int *bad)
{
	size_t i = 0;
	int k = 0;

	*bad = 0;
	for (;;) {
		size_t j;

		while (i < n && blank(line[i]))
			i++;
		if (i == n)
			return k;
		if (k == SWF_FIELDS)
			return k + 1;
		for (j = i; j < n && !blank(line[j]); j++)
			;
		if (!psiplace_parse_double(line + i, j - i, &v[k]) && !*bad)
			*bad = k + 1;
		k++;
		i = j;
	}
}

static bool whole(double d, double max)
{
	return d >= 0 && d <= max && d == (double)(int64_t)d;
}

/* The job of one line, or a count (*skip); -1: malformed (msg). */
static int job_line(const double *v, struct psiplace_sim_trace *t, struct psiplace_sim_job *j,
		    bool *skip, const char **msg)
{
	double procs = v[4] > 0 ? v[4] : v[7], mem = v[9] > 0 ? v[9] : v[6];

	*skip = true;
	if (!whole(v[0], 1e18))
		return *msg = "field 1 (job number) is not a non-negative integer", -1;
	if (!whole(v[1], 1e15))
		return *msg = "field 2 (submit time) is not a non-negative integer", -1;
	if (v[3] < 0 || (v[10] == 5 && v[3] == 0) || procs <= 0) {
		t->counts.never_ran++;
		return 0;
	}
	if (!whole(v[3], 1e12))
		return *msg = "field 4 (run time) is not an integer", -1;
	if (!whole(procs, 1e8))
		return *msg = "fields 5/8 (processors) are not integers", -1;
	j->id = (uint64_t)v[0];
	j->submit = j->eligible = (int64_t)v[1];
	j->runtime = (int64_t)v[3];
	j->start = whole(v[2], 1e12) ? j->submit + (int64_t)v[2] : -1; /* field 3: wait */
	j->cpus = (uint32_t)procs;
	j->req_cpus = whole(v[7], 1e8) && v[7] > 0 ? (uint32_t)v[7] : 0;
	j->nodes = 0;
	if (v[8] > 0 && v[8] <= 1e12) {
		j->limit = (int64_t)v[8];
	} else {
		t->counts.no_limit++;
		j->limit = j->runtime;
	}
	if (mem > 0 && mem < 1e15)
		j->mem = (uint64_t)(mem / 1024 + 0.5); /* MB per CPU until nodes are known */
	*skip = false;
	return 0;
}

int sim_swf_parse(const char *text, size_t len, const char *file, bool lenient,
		  struct psiplace_sim_trace *t, psiplace_error_t *err)
{
	struct psiplace_lines it;
	const char *line;
	size_t n;
	int rc = 0;

	psiplace_lines_init(&it, text, len);
	while (rc == 0 && psiplace_lines_next(&it, &line, &n, NULL)) {
		struct psiplace_sim_job j = { .line = it.lineno };
		double v[SWF_FIELDS];
		const char *msg = NULL;
		size_t i = 0;
		bool skip;
		int k, bad;

		while (i < n && blank(line[i]))
			i++;
		if (i == n || line[i] == ';')
			continue;
		t->counts.lines++;
		k = fields(line, n, v, &bad);
		if (k != SWF_FIELDS)
			rc = sim_malformed(t, lenient, err, file, it.lineno, "%s%d fields; SWF has 18",
					   k > SWF_FIELDS ? "over " : "", k > SWF_FIELDS ? SWF_FIELDS : k);
		else if (bad)
			rc = sim_malformed(t, lenient, err, file, it.lineno,
					   "field %d is not a number", bad);
		else if (job_line(v, t, &j, &skip, &msg) < 0)
			rc = sim_malformed(t, lenient, err, file, it.lineno, "%s", msg);
		else if (!skip)
			rc = sim_trace_add(t, &j, err);
	}
	return rc;
}
