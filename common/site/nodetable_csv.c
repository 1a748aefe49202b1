/* CSV node tables for `psiplace rank` (and tests, benchmarks). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "psiplace/error.h"
#include "psiplace/nodetable.h"
#include "psiplace/textparse.h"

enum ctype { T_NAME, T_U32, T_U64, T_DBL, T_STR, T_FEATURES, T_POWER, T_STATE, T_RESV, T_GMETRIC };

static const struct column {
	const char *name;
	enum ctype type;
	size_t off;
} columns[] = {
#define COL(n, t, f) { n, t, offsetof(struct psiplace_node, f) }
	COL("name", T_NAME, name),
	COL("cpus", T_U32, cpus),
	COL("alloc_cpus", T_U32, alloc_cpus),
	COL("threads", T_U32, threads),
	COL("load1", T_DBL, load1),
	COL("load5", T_DBL, load5),
	COL("load15", T_DBL, load15),
	COL("real_memory", T_U64, real_memory),
	COL("alloc_memory", T_U64, alloc_memory),
	COL("tmp_disk", T_U64, tmp_disk),
	COL("speed", T_DBL, speed),
	COL("priority", T_DBL, priority),
	COL("cost", T_DBL, cost),
	COL("features", T_FEATURES, features),
	COL("jobs", T_U32, jobs),
	COL("suspended_jobs", T_U32, suspended_jobs),
	COL("arch", T_STR, arch),
	COL("os", T_STR, os),
	COL("power", T_POWER, power),
	COL("state", T_STATE, power_state),
	COL("usage", T_DBL, usage),
	COL("mtbf", T_DBL, mtbf),
	COL("next_resv", T_RESV, next_resv),
	COL("weight", T_U64, weight),
	COL("paraprocs", T_DBL, para_procs),
	COL("rsvaffinity", T_DBL, rsv_affinity),
#undef COL
};

#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))
#define GMETRIC_COL ((const struct column *)&gmetric_column)

static const struct column gmetric_column = { "gmetric.", T_GMETRIC, 0 };

struct tparse {
	const char *file;
	int line;
	psiplace_error_t *err;
};

static int terr(struct tparse *p, const char *msg, const char *cell)
{
	return psiplace_seterr_line(p->err, p->file, p->line, msg, cell);
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/* Split a line at commas in place; returns the number of cells. */
static int split_cells(char *line, char **cells, int max)
{
	int n = 0;
	char *c;

	for (;;) {
		if (n >= max)
			return -1;
		c = strchr(line, ',');
		if (c)
			*c = '\0';
		cells[n++] = trim(line);
		if (!c)
			return n;
		line = c + 1;
	}
}

/* Slurm's node state as `scontrol show node -o` prints it (State=IDLE+
 * CLOUD+POWERED_DOWN: the base state, then flags, joined by '+') or
 * sinfo's short form (idle~ powered down, mix# powering up).  Only the
 * power flags and whether jobs hold the node (ALLOCATED, MIXED) count;
 * other words are Slurm's many other flags and are accepted. */
static int set_state(struct tparse *p, char *v, struct psiplace_node *nd)
{
	size_t n = strlen(v);
	bool held, down = false, up = false;
	char *w, *sp = NULL;

	if (strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_+~#%*$@!^-") != n)
		return terr(p, "state is not a Slurm node state (e.g. IDLE+POWERED_DOWN):", v);
	if (n && (v[n - 1] == '~' || v[n - 1] == '#')) {
		down = v[n - 1] == '~';
		up = v[n - 1] == '#';
	}
	held = !strncasecmp(v, "ALLOC", 5) || !strncasecmp(v, "MIX", 3);
	for (w = strtok_r(v, "+", &sp); w; w = strtok_r(NULL, "+", &sp)) {
		down |= !strcasecmp(w, "POWERED_DOWN");
		up |= !strcasecmp(w, "POWERING_UP");
	}
	nd->power_state = down ? PSIPLACE_POWERED_DOWN : up ? PSIPLACE_POWERING_UP
							      : PSIPLACE_POWER_UP;
	/* as the select plugin counts it: a job on a powered-down node means
	 * its resume is on its way */
	nd->power = !down || held;
	return 0;
}

static int set_cell(struct tparse *p, const struct column *col, char *v, struct psiplace_node *nd,
		    struct psiplace_gmetric *gm)
{
	char *b = (char *)nd + col->off;
	uint64_t u;
	double d;

	if (!*v && col->type != T_NAME)
		return 0; /* the default stands */
	switch (col->type) {
	case T_NAME:
		if (!*v)
			return terr(p, "empty node name", NULL);
		nd->name = v;
		return 0;
	case T_U32:
		if (!psiplace_parse_u64(v, strlen(v), UINT32_MAX, &u))
			return terr(p, "not a count:", v);
		*(uint32_t *)(void *)b = (uint32_t)u;
		return 0;
	case T_U64:
		if (!psiplace_parse_u64(v, strlen(v), UINT64_MAX, &u))
			return terr(p, "not a count:", v);
		*(uint64_t *)(void *)b = u;
		return 0;
	case T_DBL:
	case T_GMETRIC:
		if (!psiplace_parse_double(v, strlen(v), &d))
			return terr(p, "not a number:", v);
		if (col->type == T_GMETRIC)
			gm->value = d;
		else
			*(double *)(void *)b = d;
		return 0;
	case T_STR:
		*(const char **)(void *)b = v;
		return 0;
	case T_FEATURES:
		for (char *s = v; *s; s++)
			if (*s == ';')
				*s = ',';
		nd->features = v;
		return 0;
	case T_POWER:
		if (!strcmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "true"))
			nd->power = true;
		else if (!strcmp(v, "0") || !strcasecmp(v, "no") || !strcasecmp(v, "false"))
			nd->power = false;
		else
			return terr(p, "power is not 0 or 1:", v);
		nd->power_state = nd->power ? PSIPLACE_POWER_UP : PSIPLACE_POWERED_DOWN;
		return 0;
	case T_STATE:
		return set_state(p, v, nd);
	case T_RESV:
		if (!strcasecmp(v, "none")) {
			nd->next_resv = -1;
			return 0;
		}
		if (!psiplace_parse_u64(v, strlen(v), INT64_MAX, &u))
			return terr(p, "next_resv is not seconds or none:", v);
		nd->next_resv = (int64_t)u;
		return 0;
	}
	return 0;
}

static int parse_header(struct tparse *p, char **cells, int nc, const struct column **map,
			size_t *ngm)
{
	int i, j;

	*ngm = 0;
	for (i = 0; i < nc; i++) {
		map[i] = NULL;
		if (!strncmp(cells[i], "gmetric.", 8) && cells[i][8]) {
			map[i] = GMETRIC_COL;
			(*ngm)++;
		}
		for (size_t c = 0; c < NCOLUMNS && !map[i]; c++)
			if (!strcmp(cells[i], columns[c].name))
				map[i] = &columns[c];
		if (!map[i])
			return terr(p, "unknown column (see psiplace(8) for the columns):", cells[i]);
		for (j = 0; j < i; j++)
			if (!strcmp(cells[j], cells[i]))
				return terr(p, "column given twice:", cells[i]);
	}
	for (i = 0; i < nc; i++)
		for (j = 0; j < nc; j++)
			if (map[i] && map[j] && map[i]->type == T_POWER && map[j]->type == T_STATE)
				return terr(p, "give power or state, not both:", cells[i]);
	for (i = 0; i < nc; i++)
		if (map[i] == &columns[0])
			return 0;
	return terr(p, "the header has no name column", NULL);
}

static void defaults(struct psiplace_node *nd, uint32_t index)
{
	memset(nd, 0, sizeof(*nd));
	nd->index = index;
	nd->speed = 1.0;
	nd->power = true;
	nd->next_resv = -1;
	nd->threads = UINT32_MAX; /* = cpus unless given */
}

/* Lines: returns the start of the next non-blank, non-comment line. */
static char *next_line(struct psiplace_lines *it, struct tparse *p)
{
	const char *l;
	size_t n;

	/* the table's own copy, NUL-terminated after its last byte: lines
	 * are cut in place */
	while (psiplace_lines_next(it, &l, &n, NULL)) {
		char *t;

		((char *)l)[n] = '\0';
		p->line = it->lineno;
		t = trim((char *)l);
		if (*t && *t != '#')
			return t;
	}
	return NULL;
}

static int parse_rows(struct tparse *p, struct psiplace_nodetable *t, struct psiplace_lines *it,
		      const struct column **map, int nc, char **cells, char **hnames)
{
	size_t cap = 0, gi;
	char *l;

	while ((l = next_line(it, p))) {
		struct psiplace_node *nd;
		int n = split_cells(l, cells, nc + 1), i;

		if (n != nc) {
			char m[64];

			if (n < 0 || n > nc)
				snprintf(m, sizeof(m), "more cells than the header's %d", nc);
			else
				snprintf(m, sizeof(m), "%d cells, the header has %d", n, nc);
			return terr(p, m, NULL);
		}
		if (t->n >= PSIPLACE_NODETABLE_MAXROWS)
			return terr(p, "too many rows", NULL);
		if (t->n == cap) {
			size_t ncap = cap ? cap * 2 : 256;
			void *a = realloc(t->nodes, ncap * sizeof(*t->nodes));
			void *g = a && t->ngm ? realloc(t->gmetrics, ncap * t->ngm * sizeof(*t->gmetrics))
					      : t->gmetrics;

			if (a)
				t->nodes = a;
			if (!a || (t->ngm && !g))
				return terr(p, "out of memory", NULL);
			t->gmetrics = g;
			cap = ncap;
		}
		nd = &t->nodes[t->n];
		defaults(nd, (uint32_t)t->n);
		for (i = 0, gi = 0; i < nc; i++) {
			struct psiplace_gmetric *gm = NULL;

			if (map[i] == GMETRIC_COL) {
				gm = &t->gmetrics[t->n * t->ngm + gi++];
				gm->name = hnames[i];
				gm->value = 0.0;
			}
			if (set_cell(p, map[i], cells[i], nd, gm) < 0)
				return -1;
		}
		if (nd->threads == UINT32_MAX)
			nd->threads = nd->cpus;
		t->n++;
	}
	return 0;
}

int psiplace_nodetable_parse(const char *text, size_t len, const char *file,
			     struct psiplace_nodetable *t, psiplace_error_t *err)
{
	struct tparse p = { .file = file ? file : "table", .err = err };
	const struct column *map[PSIPLACE_NODETABLE_MAXCOLS + 1];
	char *cells[PSIPLACE_NODETABLE_MAXCOLS + 1], *hnames[PSIPLACE_NODETABLE_MAXCOLS + 1];
	struct psiplace_lines it;
	char *h;
	int nc, i, rc;

	memset(t, 0, sizeof(*t));
	if (len > PSIPLACE_NODETABLE_MAXBYTES)
		return psiplace_seterr(err, "%s: larger than %u bytes", p.file,
				       PSIPLACE_NODETABLE_MAXBYTES);
	if (len && memchr(text, '\0', len))
		return psiplace_seterr(err, "%s: NUL byte in the table", p.file);
	if (!(t->text = malloc(len + 1)))
		return psiplace_seterr(err, "%s: out of memory", p.file);
	if (len)
		memcpy(t->text, text, len);
	t->text[len] = '\0';
	psiplace_lines_init(&it, t->text, len);
	if (!(h = next_line(&it, &p))) {
		rc = psiplace_seterr(err, "%s: no header row", p.file);
		goto out;
	}
	nc = split_cells(h, cells, PSIPLACE_NODETABLE_MAXCOLS);
	if (nc < 0) {
		rc = terr(&p, "more than 128 columns", NULL);
		goto out;
	}
	if ((rc = parse_header(&p, cells, nc, map, &t->ngm)) < 0)
		goto out;
	for (i = 0; i < nc; i++)
		hnames[i] = cells[i] + (map[i] == GMETRIC_COL ? 8 : 0);
	rc = parse_rows(&p, t, &it, map, nc, cells, hnames);
	if (rc == 0 && t->n == 0)
		rc = psiplace_seterr(err, "%s: no node rows", p.file);
	if (rc == 0) {
		for (size_t r = 0; r < t->n && t->ngm; r++) {
			t->nodes[r].gmetrics = &t->gmetrics[r * t->ngm];
			t->nodes[r].ngmetrics = t->ngm;
		}
	}
out:
	if (rc < 0)
		psiplace_nodetable_free(t);
	return rc;
}

void psiplace_nodetable_free(struct psiplace_nodetable *t)
{
	free(t->nodes);
	free(t->gmetrics);
	free(t->text);
	memset(t, 0, sizeof(*t));
}
