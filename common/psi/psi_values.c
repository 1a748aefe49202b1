/* ParaStation PSI_* values: total, bounded parsers with one-line errors. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "psiplace/readfile.h"
#include "psiplace/textparse.h"
#include "psiplace/error.h"
#include "psiplace/psi_values.h"

#define NODES_ACCEPTED "a comma list of node ids N or ranges A-B, decimal or 0x hex (e.g. 0,2-5,0x10)"
#define CPUMAP_ACCEPTED "a comma list of CPU numbers N or ranges A-B, descending allowed (e.g. 0,2,7-4)"
#define SORT_ACCEPTED "PROC, LOAD (LOAD1, LOAD_1), LOAD_5 (LOAD5), LOAD_15 (LOAD15), PROC+LOAD, NONE (case-insensitive)"

static int bad_value(const char *what, const char *s, const char *is, const char *accepted,
		     psiplace_error_t *err)
{
	char q[160];

	psiplace_quote(q, sizeof(q), s, 120);
	return psiplace_seterr(err, "%s: '%s' %s; accepted: %s", what, q, is, accepted);
}

static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* One number: decimal, or hex after 0x/0X.  Bounded by max. */
static int parse_num(const char **pp, unsigned long max, unsigned long *v)
{
	const char *p = *pp;
	int base = 10, digits = 0;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	*v = 0;
	for (;; p++, digits++) {
		int d;

		if (isdigit((unsigned char)*p))
			d = *p - '0';
		else if (base == 16 && isxdigit((unsigned char)*p))
			d = tolower((unsigned char)*p) - 'a' + 10;
		else
			break;
		if (*v > (max - (unsigned long)d) / (unsigned long)base)
			return -2;
		*v = *v * (unsigned long)base + (unsigned long)d;
	}
	*pp = p;
	return digits ? 0 : -1;
}

/* A comma list of A[-B] items.  emit() is called for each value in order;
 * descending ranges only when allowed. */
struct range_list {
	const char *what, *accepted;
	unsigned long max;
	size_t max_count;
	bool descending_ok;
	bool hex_ok;
};

static int parse_ranges(const struct range_list *rl, const char *s, unsigned long **out,
			size_t *n, psiplace_error_t *err)
{
	const char *p = s;
	unsigned long *v = NULL, a, b;
	size_t cnt = 0, cap = 0;
	char why[96];
	int rc;

	*out = NULL;
	*n = 0;
	if (strnlen(s, PSIPLACE_PSI_VALUE_MAX + 1) > PSIPLACE_PSI_VALUE_MAX)
		return psiplace_seterr(err, "%s: value longer than %d bytes", rl->what,
				       PSIPLACE_PSI_VALUE_MAX);
	if (!*skip_blanks(s))
		return bad_value(rl->what, s, "is empty", rl->accepted, err);
	for (;;) {
		p = skip_blanks(p);
		if (!rl->hex_ok && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
			rc = -1;
		else
			rc = parse_num(&p, rl->max, &a);
		b = a;
		if (rc == 0 && *skip_blanks(p) == '-') {
			p = skip_blanks(skip_blanks(p) + 1);
			rc = (!rl->hex_ok && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) ? -1
											 : parse_num(&p, rl->max, &b);
		}
		if (rc == -2) {
			snprintf(why, sizeof(why), "has a number above %lu", rl->max);
			goto fail;
		}
		if (rc < 0 || (*skip_blanks(p) && *skip_blanks(p) != ',')) {
			snprintf(why, sizeof(why), "is not %s", rl->descending_ok ? "a CPU map" : "a node id list");
			goto fail;
		}
		if (b < a && !rl->descending_ok) {
			snprintf(why, sizeof(why), "has a descending range");
			goto fail;
		}
		if ((b >= a ? b - a : a - b) >= rl->max_count - cnt) {
			snprintf(why, sizeof(why), "has more than %zu entries", rl->max_count);
			goto fail;
		}
		for (unsigned long x = a;; x = b >= a ? x + 1 : x - 1) {
			if (cnt == cap) {
				unsigned long *nv;
				cap = cap ? cap * 2 : 16;
				if (!(nv = realloc(v, cap * sizeof(*v)))) {
					free(v);
					return psiplace_seterr(err, "%s: out of memory", rl->what);
				}
				v = nv;
			}
			v[cnt++] = x;
			if (x == b)
				break;
		}
		p = skip_blanks(p);
		if (!*p)
			break;
		p++; /* ',' */
		if (!*skip_blanks(p)) {
			snprintf(why, sizeof(why), "ends with ','");
			goto fail;
		}
	}
	*out = v;
	*n = cnt;
	return 0;
fail:
	free(v);
	return bad_value(rl->what, s, why, rl->accepted, err);
}

_Static_assert(sizeof(unsigned) == sizeof(uint32_t), "a CPU map entry is a uint32_t");

/* parse_ranges into 32-bit values (each is at most rl->max). */
static int parse_u32_list(const struct range_list *rl, const char *s, uint32_t **out, size_t *n,
			  psiplace_error_t *err)
{
	unsigned long *v;
	size_t i;

	*out = NULL;
	*n = 0;
	if (parse_ranges(rl, s, &v, n, err) < 0)
		return -1;
	*out = malloc(*n * sizeof(**out));
	if (!*out) {
		free(v);
		*n = 0;
		return psiplace_seterr(err, "%s: out of memory", rl->what);
	}
	for (i = 0; i < *n; i++)
		(*out)[i] = (uint32_t)v[i];
	free(v);
	return 0;
}

int psiplace_psi_nodes_parse(const char *s, const char *what, uint32_t **ids, size_t *n,
			     psiplace_error_t *err)
{
	const struct range_list rl = { what, NODES_ACCEPTED, PSIPLACE_PSI_NODE_ID_MAX,
				       PSIPLACE_PSI_NODES_MAX, false, true };

	return parse_u32_list(&rl, s, ids, n, err);
}

int psiplace_cpumap_parse(const char *s, const char *what, unsigned **map, size_t *n,
			  psiplace_error_t *err)
{
	const struct range_list rl = { what, CPUMAP_ACCEPTED, PSIPLACE_CPUMAP_CPU_MAX,
				       PSIPLACE_CPUMAP_MAX, true, false };

	return parse_u32_list(&rl, s, (uint32_t **)map, n, err);
}

int psiplace_psi_hosts_parse(const char *s, const char *what, struct psiplace_names *hl,
			     psiplace_error_t *err)
{
	if (strnlen(s, PSIPLACE_PSI_VALUE_MAX + 1) > PSIPLACE_PSI_VALUE_MAX)
		return psiplace_seterr(err, "%s: value longer than %d bytes", what,
				       PSIPLACE_PSI_VALUE_MAX);
	return psiplace_names_add_hostlist(hl, s, what, err);
}

/* One hostfile line (after comment and blank removal) into names. */
static int hostfile_line(const char *line, size_t len, const char *what, int lineno,
			 struct psiplace_names *hl, psiplace_error_t *err)
{
	char lw[200], *copy;
	size_t k;
	int rc;

	snprintf(lw, sizeof(lw), "%s line %d", what, lineno);
	for (k = 0; k < len; k++)
		if (isspace((unsigned char)line[k]) || line[k] == ',') {
			char q[160], v[200];
			snprintf(v, sizeof(v), "%.*s", (int)(len > 150 ? 150 : len), line);
			psiplace_quote(q, sizeof(q), v, 120);
			return psiplace_seterr(err,
					       "%s: '%s' has more than one word; accepted: one host name per line, '#' comments",
					       lw, q);
		}
	if (!(copy = strndup(line, len)))
		return psiplace_seterr(err, "%s: out of memory", lw);
	rc = psiplace_names_add_hostlist(hl, copy, lw, err);
	free(copy);
	return rc;
}

int psiplace_psi_hostfile_parse(const char *text, size_t len, const char *what,
				struct psiplace_names *hl, psiplace_error_t *err)
{
	size_t before = hl->n, l;
	struct psiplace_lines it;
	const char *line;

	psiplace_lines_init(&it, text, len);
	while (psiplace_lines_next(&it, &line, &l, NULL)) {
		const char *hash = memchr(line, '#', l);
		size_t a = 0, b;

		if (hash)
			l = (size_t)(hash - line);
		if (memchr(line, '\0', l))
			l = strnlen(line, l);
		while (a < l && isspace((unsigned char)line[a]))
			a++;
		b = l;
		while (b > a && isspace((unsigned char)line[b - 1]))
			b--;
		if (a == b)
			continue;
		if (hostfile_line(line + a, b - a, what, it.lineno, hl, err) < 0) {
			while (hl->n > before)
				free(hl->name[--hl->n]);
			return -1;
		}
	}
	if (hl->n == before)
		return psiplace_seterr(err,
				       "%s: names no host; accepted: one host name per line, '#' comments",
				       what);
	return 0;
}

int psiplace_psi_hostfile_read(const char *path, const char *what, struct psiplace_names *hl,
			       psiplace_error_t *err)
{
	char q[160], label[200], *buf;
	psiplace_error_t rerr;
	size_t len;
	int e = 0, rc;

	psiplace_quote(q, sizeof(q), path, 120);
	if (!*path)
		return psiplace_seterr(err, "%s: '' is empty; accepted: the path of a host file", what);
	/* the one bounded reader: regular files only, a FIFO never hangs the
	 * client */
	if (psiplace_read_file(path, PSIPLACE_HOSTFILE_MAX, PSIPLACE_READ_REGULAR, &buf, &len, &e,
			       &rerr) < 0) {
		if (e == EINVAL || e == EFBIG)
			return psiplace_seterr(err, "%s: '%s' is not a regular file of at most %d bytes",
					       what, q, PSIPLACE_HOSTFILE_MAX);
		if (e == ENOMEM || !e)
			return psiplace_seterr(err, "%s: %s", what, rerr.text);
		return psiplace_seterr(err, "%s: cannot open '%s': %s", what, q, strerror(e));
	}
	snprintf(label, sizeof(label), "%s %s", what, q);
	rc = psiplace_psi_hostfile_parse(buf, len, label, hl, err);
	free(buf);
	return rc;
}

static const struct {
	const char *name;
	enum psiplace_nodes_sort mode;
} sort_names[] = {
	{ "PROC", PSIPLACE_SORT_PROC },       { "LOAD", PSIPLACE_SORT_LOAD1 },
	{ "LOAD1", PSIPLACE_SORT_LOAD1 },     { "LOAD_1", PSIPLACE_SORT_LOAD1 },
	{ "LOAD_5", PSIPLACE_SORT_LOAD5 },    { "LOAD5", PSIPLACE_SORT_LOAD5 },
	{ "LOAD_15", PSIPLACE_SORT_LOAD15 },  { "LOAD15", PSIPLACE_SORT_LOAD15 },
	{ "PROC+LOAD", PSIPLACE_SORT_PROC_LOAD }, { "NONE", PSIPLACE_SORT_NONE },
};

int psiplace_nodes_sort_parse(const char *s, const char *what, enum psiplace_nodes_sort *out,
			      psiplace_error_t *err)
{
	size_t i;

	for (i = 0; i < sizeof(sort_names) / sizeof(sort_names[0]); i++)
		if (!strcasecmp(s, sort_names[i].name)) {
			*out = sort_names[i].mode;
			return 0;
		}
	return bad_value(what, s, "is not a sort mode", SORT_ACCEPTED, err);
}

const char *psiplace_nodes_sort_name(enum psiplace_nodes_sort m)
{
	switch (m) {
	case PSIPLACE_SORT_PROC: return "PROC";
	case PSIPLACE_SORT_LOAD1: return "LOAD_1";
	case PSIPLACE_SORT_LOAD5: return "LOAD_5";
	case PSIPLACE_SORT_LOAD15: return "LOAD_15";
	case PSIPLACE_SORT_PROC_LOAD: return "PROC+LOAD";
	case PSIPLACE_SORT_NONE: return "NONE";
	default: return "UNSET";
	}
}

/* Digits only, value in [1, max]; 0 ok, -1 not a positive integer, -2 too large. */
static int positive(const char *s, unsigned long max, unsigned long *v)
{
	size_t n = strlen(s);
	uint64_t u;

	*v = 0;
	if (!n || strspn(s, "0123456789") != n)
		return -1;
	if (!psiplace_parse_u64(s, n, max, &u))
		return -2;
	*v = (unsigned long)u;
	return u ? 0 : -1;
}

int psiplace_tpp_parse(const char *s, const char *what, unsigned *tpp, psiplace_error_t *err)
{
	char q[160];
	unsigned long v;
	int rc = positive(s, PSIPLACE_PSI_TPP_MAX, &v);

	psiplace_quote(q, sizeof(q), s, 120);
	if (rc == -2)
		return psiplace_seterr(err, "%s: '%s' is too large; accepted: 1 to %d",
				       what, q, PSIPLACE_PSI_TPP_MAX);
	if (rc < 0)
		return psiplace_seterr(err, "%s: '%s' is not a positive integer", what, q);
	*tpp = (unsigned)v;
	return 0;
}

int psiplace_omp_threads_tpp(const char *s, unsigned *tpp, psiplace_error_t *err)
{
	char q[160];
	unsigned long v;

	if (positive(s, PSIPLACE_PSI_TPP_MAX, &v) == 0) {
		*tpp = (unsigned)v;
		return 0;
	}
	psiplace_quote(q, sizeof(q), s, 120);
	*tpp = 1;
	return psiplace_seterr(err,
			       "OMP_NUM_THREADS: '%s' is not a positive integer up to %d; using 1 CPU slot per task (set PSI_TPP or --psi-tpp to choose)",
			       q, PSIPLACE_PSI_TPP_MAX);
}

/* The one id-list writer: runs of consecutive ids as A-B, ascending, and
 * with descending also descending ones (B-A as a CPU map allows).  cut: a
 * list that does not fit ends with ",..." after the items that do. */
static long format_runs(const uint32_t *ids, size_t n, bool descending, bool cut, char *buf,
			size_t buflen)
{
	size_t i = 0, pos = 0;

	if (!buflen)
		return -1;
	buf[0] = '\0';
	while (i < n) {
		size_t j = i;
		int k;

		while (j + 1 < n && ids[j + 1] == ids[j] + 1)
			j++;
		if (j == i && descending)
			while (j + 1 < n && ids[j] > 0 && ids[j + 1] == ids[j] - 1)
				j++;
		if (j == i)
			k = snprintf(buf + pos, buflen - pos, "%s%u", i ? "," : "", ids[i]);
		else
			k = snprintf(buf + pos, buflen - pos, "%s%u-%u", i ? "," : "", ids[i], ids[j]);
		/* with cut, room for this item and a final ",..." */
		if (k < 0 || pos + (size_t)k + (cut && j + 1 < n ? 4 : 0) >= buflen) {
			if (cut) {
				buf[pos] = '\0';
				if (pos + 4 < buflen)
					snprintf(buf + pos, buflen - pos, ",...");
			}
			return -1;
		}
		pos += (size_t)k;
		i = j + 1;
	}
	return (long)pos;
}

long psiplace_idlist_format(const uint32_t *ids, size_t n, char *buf, size_t buflen)
{
	return format_runs(ids, n, false, false, buf, buflen);
}

long psiplace_idlist_format_cut(const uint32_t *ids, size_t n, char *buf, size_t buflen)
{
	return format_runs(ids, n, false, true, buf, buflen);
}

long psiplace_cpumap_format(const unsigned *map, size_t n, char *buf, size_t buflen)
{
	return format_runs((const uint32_t *)map, n, true, false, buf, buflen);
}
