/* The rows of a trace, below both readers (sacct, SWF): appending a job,
 * keeping a NodeList text, times and limits as Slurm prints them, and a
 * malformed line counted or reported. */
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/sim.h"
#include "psiplace/textparse.h"
#include "sim_rows.h"

int sim_trace_add(struct psiplace_sim_trace *t, const struct psiplace_sim_job *j,
		  psiplace_error_t *err)
{
	/* The capacity is 64, then the next power of two: it need not be kept. */
	if (t->n >= PSIPLACE_SIM_MAXJOBS)
		return psiplace_seterr(err, "trace: more than %d jobs", PSIPLACE_SIM_MAXJOBS);
	if (t->n == 0 || (t->n >= 64 && (t->n & (t->n - 1)) == 0)) {
		size_t ncap = t->n == 0 ? 64 : t->n * 2;
		struct psiplace_sim_job *p = realloc(t->jobs, ncap * sizeof(*p));

		if (!p)
			return psiplace_seterr(err, "trace: out of memory at %zu jobs", t->n);
		t->jobs = p;
	}
	t->jobs[t->n++] = *j;
	return 0;
}

size_t sim_trace_nodelist(struct psiplace_sim_trace *t, const char *s, size_t n)
{
	size_t need;

	if (!n)
		return 0;
	if (!t->nodelists_len)
		t->nodelists_len = 1; /* [0]: none */
	need = t->nodelists_len + n + 1;
	if (need > t->nodelists_cap) {
		size_t cap = t->nodelists_cap ? t->nodelists_cap : 4096;
		char *p;

		while (cap < need)
			cap *= 2;
		if (!(p = realloc(t->nodelists, cap)))
			return SIZE_MAX;
		if (!t->nodelists_cap)
			p[0] = '\0';
		t->nodelists = p;
		t->nodelists_cap = cap;
	}
	memcpy(t->nodelists + t->nodelists_len, s, n);
	t->nodelists[t->nodelists_len + n] = '\0';
	t->nodelists_len += n + 1;
	return t->nodelists_len - n - 1;
}

static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static bool digits(const char *s, size_t n, uint64_t max, uint64_t *v)
{
	return psiplace_parse_u64(s, n, max, v);
}

bool sim_parse_time(const char *s, size_t n, int64_t *out)
{
	uint64_t y, mo, d, h, mi, se;

	if (n != 19 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' ||
	    s[16] != ':')
		return false;
	if (!digits(s, 4, 9999, &y) || !digits(s + 5, 2, 12, &mo) || !digits(s + 8, 2, 31, &d) ||
	    !digits(s + 11, 2, 23, &h) || !digits(s + 14, 2, 59, &mi) ||
	    !digits(s + 17, 2, 60, &se) || mo < 1 || d < 1)
		return false;
	*out = days_from_civil((int64_t)y, (unsigned)mo, (unsigned)d) * 86400 +
	       (int64_t)(h * 3600 + mi * 60 + se);
	return true;
}

/* "N" or "A:B" or "A:B:C": up to three ':'-separated numbers. */
static int colon_parts(const char *s, size_t n, uint64_t v[3])
{
	int k = 0;
	size_t i = 0;

	while (k < 3) {
		size_t j = i;

		while (j < n && s[j] != ':')
			j++;
		if (!digits(s + i, j - i, 100000000, &v[k++]))
			return -1;
		if (j == n)
			return k;
		i = j + 1;
	}
	return -1;
}

bool psiplace_sim_parse_limit(const char *s, size_t n, int64_t *secs)
{
	static const char *const none[] = { "", "UNLIMITED", "Partition_Limit", "INVALID", "NONE" };
	const char *dash = memchr(s, '-', n);
	uint64_t days = 0, v[3];
	size_t i;
	int k;

	for (i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		if (strlen(none[i]) == n && !strncmp(s, none[i], n)) {
			*secs = 0;
			return true;
		}
	if (dash) {
		if (!digits(s, (size_t)(dash - s), 100000, &days))
			return false;
		n -= (size_t)(dash - s) + 1;
		s = dash + 1;
	}
	if ((k = colon_parts(s, n, v)) < 0)
		return false;
	if (dash) /* D-HH, D-HH:MM, D-HH:MM:SS */
		*secs = (int64_t)(days * 86400 + v[0] * 3600 + (k > 1 ? v[1] * 60 : 0) +
				  (k > 2 ? v[2] : 0));
	else if (k == 1) /* MM */
		*secs = (int64_t)(v[0] * 60);
	else if (k == 2) /* MM:SS */
		*secs = (int64_t)(v[0] * 60 + v[1]);
	else
		*secs = (int64_t)(v[0] * 3600 + v[1] * 60 + v[2]);
	return true;
}

int sim_malformed(struct psiplace_sim_trace *t, bool lenient, psiplace_error_t *err,
		  const char *file, int line, const char *fmt, ...)
{
	char msg[PSIPLACE_ERRLEN];
	va_list ap;

	if (lenient) {
		t->counts.malformed++;
		return 0;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return psiplace_seterr_linef(err, file, line, "%s", msg);
}
