/* LAMA option strings: expert map, bind, MPPR and order strings, the
 * simple levels, and gathering them from options and OMPI_MCA_ variables. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "psiplace/error.h"
#include "psiplace/lama.h"

#define LEVELS_ACCEPTED "h c s L1 L2 L3 N b n"
#define SIMPLE_ACCEPTED "slot hwthread core l1cache l2cache l3cache socket numa board node"

/* Read one level token at s[*i]; advances *i.  Returns 0, or -1 with err
 * saying what is wrong at 1-based position *i + 1. */
static int parse_level(const char *s, size_t *i, const char *what, const char *q,
		       enum psiplace_level *l, psiplace_error_t *err)
{
	size_t p = *i;
	char c = s[p];

	switch (c) {
	case 'n': *l = PSIPLACE_LEVEL_NODE; break;
	case 'b': *l = PSIPLACE_LEVEL_BOARD; break;
	case 's': *l = PSIPLACE_LEVEL_SOCKET; break;
	case 'N': *l = PSIPLACE_LEVEL_NUMA; break;
	case 'c': *l = PSIPLACE_LEVEL_CORE; break;
	case 'h': *l = PSIPLACE_LEVEL_HWTHREAD; break;
	case 'L':
		if (s[p + 1] == '1' || s[p + 1] == '2' || s[p + 1] == '3') {
			*l = s[p + 1] == '1' ? PSIPLACE_LEVEL_L1
			   : s[p + 1] == '2' ? PSIPLACE_LEVEL_L2 : PSIPLACE_LEVEL_L3;
			*i = p + 2;
			return 0;
		}
		return psiplace_seterr(err,
				       "%s: '%s' position %zu: 'L' must be followed by 1, 2 or 3 (cache level)",
				       what, q, p + 2);
	case '\0':
		return psiplace_seterr(err,
				       "%s: '%s' position %zu: a level is missing; accepted: " LEVELS_ACCEPTED,
				       what, q, p + 1);
	default: {
		char b[8];
		char one[2] = { c, 0 };

		psiplace_quote(b, sizeof(b), one, 1);
		return psiplace_seterr(err,
				       "%s: '%s' position %zu: unknown level '%s'; accepted: " LEVELS_ACCEPTED,
				       what, q, p + 1, b);
	}
	}
	*i = p + 1;
	return 0;
}

/* Length check shared by all strings; quotes s into q. */
static int check_len(const char *s, const char *what, char *q, size_t qlen, psiplace_error_t *err)
{
	psiplace_quote(q, qlen, s ? s : "", 64);
	if (!s || !*s)
		return psiplace_seterr(err, "%s: the value is empty", what);
	if (strnlen(s, PSIPLACE_LAMA_MAXSTR + 1) > PSIPLACE_LAMA_MAXSTR)
		return psiplace_seterr(err, "%s: '%s' is longer than %d characters", what,
				       q, PSIPLACE_LAMA_MAXSTR);
	return 0;
}

int psiplace_lama_parse_map(const char *s, const char *what, enum psiplace_level *levels,
			    unsigned *n, psiplace_error_t *err)
{
	size_t pos[PSIPLACE_LEVEL_COUNT];
	int seen[PSIPLACE_LEVEL_COUNT] = { 0 };
	char q[300];
	size_t i = 0;
	unsigned k = 0;

	if (check_len(s, what, q, sizeof(q), err) < 0)
		return -1;
	while (s[i]) {
		size_t at = i;
		enum psiplace_level l = PSIPLACE_LEVEL_NODE;

		if (parse_level(s, &i, what, q, &l, err) < 0)
			return -1;
		if (seen[l])
			return psiplace_seterr(err,
					       "%s: '%s' position %zu: level '%s' given twice (first at position %zu); each level at most once",
					       what, q, at + 1, psiplace_level_letter(l), pos[l] + 1);
		seen[l] = 1;
		pos[l] = at;
		levels[k++] = l;
	}
	if (!seen[PSIPLACE_LEVEL_NODE] || !seen[PSIPLACE_LEVEL_HWTHREAD])
		return psiplace_seterr(err,
				       "%s: '%s' lacks '%s'; a map must contain n (node) and h (hardware thread)",
				       what, q, seen[PSIPLACE_LEVEL_NODE] ? "h" : "n");
	*n = k;
	return 0;
}

/* 1 to `max` decimal digits at s[*i] into *v. */
static int parse_digits(const char *s, size_t *i, unsigned max, unsigned long *v)
{
	unsigned d = 0;

	*v = 0;
	while (isdigit((unsigned char)s[*i]) && d <= max) {
		*v = *v * 10 + (unsigned long)(s[*i] - '0');
		(*i)++;
		d++;
	}
	return d;
}

int psiplace_lama_parse_bind(const char *s, const char *what, unsigned *width,
			     enum psiplace_level *level, psiplace_error_t *err)
{
	char q[300];
	size_t i = 0;
	unsigned long v;
	int d;

	if (check_len(s, what, q, sizeof(q), err) < 0)
		return -1;
	d = parse_digits(s, &i, 3, &v);
	if (d == 0)
		return psiplace_seterr(err,
				       "%s: '%s' position 1: expected the width (1 to 3 digits) before the level, e.g. 1c or 2s",
				       what, q);
	if (d > 3)
		return psiplace_seterr(err,
				       "%s: '%s' position 4: the width has more than 3 digits", what, q);
	if (v == 0)
		return psiplace_seterr(err, "%s: '%s' position 1: the width must be 1 to %d",
				       what, q, PSIPLACE_LAMA_MAXWIDTH);
	if (parse_level(s, &i, what, q, level, err) < 0)
		return -1;
	if (s[i])
		return psiplace_seterr(err,
				       "%s: '%s' position %zu: unexpected text after the level; bind takes one width and one level",
				       what, q, i + 1);
	*width = (unsigned)v;
	return 0;
}

/* One MPPR item "N:level" or "Nlevel" at s[*i]. */
static int parse_mppr_item(const char *s, size_t *i, const char *what, const char *q,
			   struct psiplace_lama_mppr *m, psiplace_error_t *err)
{
	size_t start = *i;
	unsigned long v;
	int d;

	if (s[*i] == ',' || s[*i] == '\0')
		return psiplace_seterr(err, "%s: '%s' position %zu: empty item; expected N:level",
				       what, q, start + 1);
	d = parse_digits(s, i, 10, &v);
	if (d == 0)
		return psiplace_seterr(err,
				       "%s: '%s' position %zu: expected a number of processes, as in 1:c",
				       what, q, start + 1);
	if (d > 10 || v > PSIPLACE_LAMA_MAXLIMIT)
		return psiplace_seterr(err, "%s: '%s' position %zu: limit above %u", what, q,
				       start + 1, PSIPLACE_LAMA_MAXLIMIT);
	if (v == 0)
		return psiplace_seterr(err,
				       "%s: '%s' position %zu: limit 0; at least 1 process per level",
				       what, q, start + 1);
	if (s[*i] == ':')
		(*i)++;
	if (parse_level(s, i, what, q, &m->level, err) < 0)
		return -1;
	if (s[*i] != ',' && s[*i] != '\0')
		return psiplace_seterr(err,
				       "%s: '%s' position %zu: expected ',' or the end after the level",
				       what, q, *i + 1);
	m->limit = (unsigned)v;
	return 0;
}

int psiplace_lama_parse_mppr(const char *s, const char *what, struct psiplace_lama_mppr *m,
			     unsigned *n, psiplace_error_t *err)
{
	size_t at[PSIPLACE_LEVEL_COUNT];
	char q[300];
	size_t i = 0;
	unsigned k = 0, j;

	if (check_len(s, what, q, sizeof(q), err) < 0)
		return -1;
	if (!strcasecmp(s, "none")) {
		*n = 0;
		return 0;
	}
	for (;;) {
		size_t start = i;

		if (k == PSIPLACE_LEVEL_COUNT)
			return psiplace_seterr(err,
					       "%s: '%s' position %zu: more items than levels; each level at most once",
					       what, q, i + 1);
		if (parse_mppr_item(s, &i, what, q, &m[k], err) < 0)
			return -1;
		for (j = 0; j < k; j++)
			if (m[j].level == m[k].level)
				return psiplace_seterr(err,
						       "%s: '%s' position %zu: level '%s' given twice (first at position %zu); each level at most once",
						       what, q, start + 1, psiplace_level_letter(m[k].level),
						       at[j] + 1);
		at[k++] = start;
		if (s[i] == '\0')
			break;
		i++; /* ',' */
	}
	*n = k;
	return 0;
}

int psiplace_lama_parse_order(const char *s, const char *what, int *sequential, psiplace_error_t *err)
{
	char q[300];

	if (check_len(s, what, q, sizeof(q), err) < 0)
		return -1;
	if (!strcasecmp(s, "s") || !strcasecmp(s, "sequential")) {
		*sequential = 1;
		return 0;
	}
	if (!strcasecmp(s, "n") || !strcasecmp(s, "natural")) {
		*sequential = 0;
		return 0;
	}
	return psiplace_seterr(err,
			       "%s: '%s' is not an order; accepted: s (sequential) or n (natural)", what, q);
}

static const struct {
	const char *name;
	const char *map;
	enum psiplace_level bind;
} simple_levels[] = {
	{ "slot", "csbnh", PSIPLACE_LEVEL_CORE },
	{ "hwthread", "hcsbn", PSIPLACE_LEVEL_HWTHREAD },
	{ "core", "csbnh", PSIPLACE_LEVEL_CORE },
	{ "l1cache", "L1csbnh", PSIPLACE_LEVEL_L1 },
	{ "l2cache", "L2csbnh", PSIPLACE_LEVEL_L2 },
	{ "l3cache", "L3csbnh", PSIPLACE_LEVEL_L3 },
	{ "socket", "sbnch", PSIPLACE_LEVEL_SOCKET },
	{ "numa", "Nsbnch", PSIPLACE_LEVEL_NUMA },
	{ "board", "bsnch", PSIPLACE_LEVEL_BOARD },
	{ "node", "nsbch", PSIPLACE_LEVEL_NODE },
};

#define NSIMPLE (sizeof(simple_levels) / sizeof(simple_levels[0]))

static int simple_lookup(const char *s, const char *what, int allow_none, psiplace_error_t *err)
{
	char q[300];
	size_t i;

	if (check_len(s, what, q, sizeof(q), err) < 0)
		return -1;
	for (i = 0; i < NSIMPLE; i++)
		if (!strcasecmp(s, simple_levels[i].name))
			return (int)i;
	if (allow_none && !strcasecmp(s, "none"))
		return (int)NSIMPLE;
	return psiplace_seterr(err, "%s: '%s' is not a level; accepted: %s" SIMPLE_ACCEPTED,
			       what, q, allow_none ? "none " : "");
}

int psiplace_lama_simple_map(const char *s, const char *what, const char **map, psiplace_error_t *err)
{
	int i = simple_lookup(s, what, 0, err);

	if (i < 0)
		return -1;
	*map = simple_levels[i].map;
	return 0;
}

int psiplace_lama_simple_bind(const char *s, const char *what, unsigned *width,
			      enum psiplace_level *level, psiplace_error_t *err)
{
	int i = simple_lookup(s, what, 1, err);

	if (i < 0)
		return -1;
	if (i == (int)NSIMPLE) {
		*width = 0;
		*level = PSIPLACE_LEVEL_HWTHREAD;
		return 0;
	}
	*width = 1;
	*level = simple_levels[i].bind;
	return 0;
}
