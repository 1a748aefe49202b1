/* The metrics file: live per-node values written by a site's monitoring.
 * Hostile-ish input (a partial write, a broken script): every line stands
 * alone and a bad one is skipped with a message. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/metrics_file.h"
#include "psiplace/readfile.h"
#include "psiplace/textparse.h"

#define MAX_UNKNOWN_LOGGED 32

static const struct {
	const char *key;
	unsigned bit;
	size_t off;
	double max;
} keys[] = {
	{ "load1", PSIPLACE_METRIC_LOAD1, offsetof(struct psiplace_metrics_node, load1), 1e9 },
	{ "load5", PSIPLACE_METRIC_LOAD5, offsetof(struct psiplace_metrics_node, load5), 1e9 },
	{ "load15", PSIPLACE_METRIC_LOAD15, offsetof(struct psiplace_metrics_node, load15), 1e9 },
	{ "mtbf", PSIPLACE_METRIC_MTBF, offsetof(struct psiplace_metrics_node, mtbf), 1e15 },
	{ "usage", PSIPLACE_METRIC_USAGE, offsetof(struct psiplace_metrics_node, usage), 1.0 },
};

#define NKEYS (sizeof(keys) / sizeof(keys[0]))

struct mparse {
	const char *file;
	int line;
	psiplace_log_fn log;
	void *log_arg;
	struct psiplace_metrics *m;
	size_t cap;
	char unknown[MAX_UNKNOWN_LOGGED][24];
	size_t nunknown;
};

void psiplace_metrics_init(struct psiplace_metrics *m)
{
	memset(m, 0, sizeof(*m));
}

static void node_free(struct psiplace_metrics_node *n)
{
	size_t i;

	for (i = 0; i < n->ngmetrics; i++)
		free((char *)n->gmetrics[i].name);
	free(n->gmetrics);
	free(n->name);
}

void psiplace_metrics_free(struct psiplace_metrics *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		node_free(&m->nodes[i]);
	free(m->nodes);
	psiplace_metrics_init(m);
}

static void say(struct mparse *p, const char *msg, const char *word)
{
	psiplace_error_t line;

	if (!p->log)
		return;
	psiplace_seterr_line(&line, p->file, p->line, msg, word);
	p->log(p->log_arg, line.text);
}

static bool valid_name(const char *s)
{
	size_t n = strlen(s);

	return n && n <= 255 && !strchr(s, '=');
}

static bool valid_gmetric_name(const char *s)
{
	size_t i, n = strlen(s);

	if (!n || n > PSIPLACE_GMETRIC_NAMEMAX)
		return false;
	for (i = 0; i < n; i++)
		if (s[i] <= 0x20 || s[i] >= 0x7f || s[i] == '[' || s[i] == ']')
			return false;
	return true;
}

/* Set one gmetric, replacing an earlier value of the same name. */
static int set_gmetric(struct psiplace_metrics_node *n, const char *name, double v)
{
	struct psiplace_gmetric *g;
	size_t i;

	for (i = 0; i < n->ngmetrics; i++) {
		if (!strcmp(n->gmetrics[i].name, name)) {
			n->gmetrics[i].value = v;
			return 0;
		}
	}
	if (n->ngmetrics >= PSIPLACE_METRICS_MAXGMETRICS)
		return 1;
	if (!(g = realloc(n->gmetrics, (n->ngmetrics + 1) * sizeof(*g))))
		return -1;
	n->gmetrics = g;
	if (!(g[n->ngmetrics].name = strdup(name)))
		return -1;
	g[n->ngmetrics++].value = v;
	return 0;
}

static void unknown_key(struct mparse *p, const char *key)
{
	size_t i;

	for (i = 0; i < p->nunknown; i++)
		if (!strncmp(p->unknown[i], key, sizeof(p->unknown[i]) - 1))
			return;
	if (p->nunknown < MAX_UNKNOWN_LOGGED)
		snprintf(p->unknown[p->nunknown++], sizeof(p->unknown[0]), "%s", key);
	say(p, "unknown key skipped (accepted: load1 load5 load15 mtbf usage gmetric.NAME):",
	    key);
}

/* One key=value word into n: 0 ok, 1 malformed (said), -1 out of memory. */
static int parse_word(struct mparse *p, char *w, struct psiplace_metrics_node *n)
{
	char *eq = strchr(w, '=');
	double v;
	size_t i;
	int rc;

	if (!eq || eq == w) {
		say(p, "not key=value, line skipped:", w);
		return 1;
	}
	*eq = '\0';
	if (!psiplace_parse_double(eq + 1, strlen(eq + 1), &v)) {
		*eq = '=';
		say(p, "not a number, line skipped:", w);
		return 1;
	}
	if (!strncmp(w, "gmetric.", 8)) {
		if (!valid_gmetric_name(w + 8)) {
			say(p, "bad gmetric name, line skipped:", w);
			return 1;
		}
		rc = set_gmetric(n, w + 8, v);
		if (rc > 0)
			say(p, "more than 64 gmetrics, line skipped:", w);
		return rc;
	}
	for (i = 0; i < NKEYS; i++) {
		if (strcmp(w, keys[i].key))
			continue;
		if (v < 0.0 || v > keys[i].max) {
			*eq = '=';
			say(p, "value out of range, line skipped:", w);
			return 1;
		}
		*(double *)((char *)n + keys[i].off) = v;
		n->has |= keys[i].bit;
		return 0;
	}
	unknown_key(p, w);
	return 0;
}

static int parse_line(struct mparse *p, char *line)
{
	struct psiplace_metrics_node n;
	char *cur = line, *w;
	int rc = 0;

	w = psiplace_next_word(&cur);
	if (!w || w[0] == '#')
		return 0;
	memset(&n, 0, sizeof(n));
	if (!valid_name(w)) {
		say(p, "not a node name, line skipped:", w);
		p->m->skipped++;
		return 0;
	}
	if (!(n.name = strdup(w)))
		return -1;
	n.line = p->line;
	while (rc == 0 && (w = psiplace_next_word(&cur)))
		rc = parse_word(p, w, &n);
	if (rc == 0 && p->m->n >= p->cap) {
		size_t ncap = p->cap ? p->cap * 2 : 64;
		struct psiplace_metrics_node *nn = realloc(p->m->nodes, ncap * sizeof(*nn));

		if (!nn)
			rc = -1;
		else
			p->m->nodes = nn, p->cap = ncap;
	}
	if (rc) {
		node_free(&n);
		p->m->skipped += rc > 0;
		return rc < 0 ? -1 : 0;
	}
	p->m->nodes[p->m->n++] = n;
	return 0;
}

static int cmp_name_line(const void *x, const void *y)
{
	const struct psiplace_metrics_node *a = x, *b = y;
	int c = strcmp(a->name, b->name);

	return c ? c : (a->line < b->line ? -1 : a->line > b->line);
}

/* Later lines override earlier ones per key. */
static int fold(struct psiplace_metrics_node *d, struct psiplace_metrics_node *s)
{
	size_t i;

	for (i = 0; i < NKEYS; i++) {
		if (s->has & keys[i].bit) {
			*(double *)((char *)d + keys[i].off) = *(double *)((char *)s + keys[i].off);
			d->has |= keys[i].bit;
		}
	}
	for (i = 0; i < s->ngmetrics; i++)
		if (set_gmetric(d, s->gmetrics[i].name, s->gmetrics[i].value) < 0)
			return -1;
	return 0;
}

static int dedup(struct psiplace_metrics *m)
{
	size_t i, o = 0;
	int rc = 0;

	if (m->n > 1)
		qsort(m->nodes, m->n, sizeof(*m->nodes), cmp_name_line);
	for (i = 0; i < m->n; i++) {
		if (o && !strcmp(m->nodes[o - 1].name, m->nodes[i].name)) {
			if (fold(&m->nodes[o - 1], &m->nodes[i]) < 0)
				rc = -1;
			m->nodes[o - 1].line = m->nodes[i].line;
			node_free(&m->nodes[i]);
			continue;
		}
		m->nodes[o++] = m->nodes[i];
	}
	m->n = o;
	return rc;
}

int psiplace_metrics_parse(const char *text, size_t len, const char *file,
			   struct psiplace_metrics *m, psiplace_log_fn log, void *log_arg,
			   psiplace_error_t *err)
{
	struct mparse *p;
	struct psiplace_lines it;
	const char *line;
	bool complete;
	char *buf;
	size_t l;
	int rc = 0;

	psiplace_metrics_init(m);
	file = file ? file : "metrics";
	if (len > PSIPLACE_METRICS_MAXBYTES)
		return psiplace_seterr(err, "%s: larger than %u bytes", file,
				       PSIPLACE_METRICS_MAXBYTES);
	p = calloc(1, sizeof(*p));
	buf = malloc(PSIPLACE_METRICS_MAXLINE + 1);
	if (!p || !buf) {
		free(p);
		free(buf);
		return psiplace_seterr(err, "%s: out of memory", file);
	}
	*p = (struct mparse){ .file = file, .log = log, .log_arg = log_arg, .m = m };
	psiplace_lines_init(&it, text, len);
	while (rc == 0 && psiplace_lines_next(&it, &line, &l, &complete)) {
		p->line = it.lineno;
		if (!complete) { /* being written: ignore until it is complete */
			m->partial = true;
			break;
		}
		if (l > PSIPLACE_METRICS_MAXLINE || memchr(line, '\0', l)) {
			say(p, l > PSIPLACE_METRICS_MAXLINE ? "line too long, skipped"
							    : "NUL byte, line skipped",
			    NULL);
			m->skipped++;
		} else {
			memcpy(buf, line, l);
			buf[l] = '\0';
			rc = parse_line(p, buf);
		}
	}
	free(buf);
	free(p);
	if (rc == 0)
		rc = dedup(m);
	if (rc < 0) {
		psiplace_metrics_free(m);
		return psiplace_seterr(err, "%s: out of memory", file);
	}
	return 0;
}

int psiplace_metrics_read_file(const char *path, struct psiplace_metrics *m, psiplace_log_fn log,
			       void *log_arg, psiplace_error_t *err)
{
	char *text;
	size_t n;
	int rc;

	psiplace_metrics_init(m);
	if (psiplace_read_file(path, PSIPLACE_METRICS_MAXBYTES, PSIPLACE_READ_REGULAR, &text, &n, NULL, err) < 0)
		return -1;
	rc = psiplace_metrics_parse(text, n, path, m, log, log_arg, err);
	free(text);
	return rc;
}

static int cmp_key(const void *k, const void *e)
{
	return strcmp(k, ((const struct psiplace_metrics_node *)e)->name);
}

const struct psiplace_metrics_node *psiplace_metrics_node(const struct psiplace_metrics *m,
							  const char *name)
{
	if (!m->n || !name)
		return NULL;
	return bsearch(name, m->nodes, m->n, sizeof(*m->nodes), cmp_key);
}

void psiplace_metrics_apply(const struct psiplace_metrics_node *mn, struct psiplace_node *node)
{
	if (!mn)
		return;
	if (mn->has & PSIPLACE_METRIC_LOAD1)
		node->load1 = mn->load1;
	if (mn->has & PSIPLACE_METRIC_LOAD5)
		node->load5 = mn->load5;
	if (mn->has & PSIPLACE_METRIC_LOAD15)
		node->load15 = mn->load15;
	if (mn->has & PSIPLACE_METRIC_MTBF)
		node->mtbf = mn->mtbf;
	if (mn->has & PSIPLACE_METRIC_USAGE)
		node->usage = mn->usage;
	if (mn->ngmetrics) {
		node->gmetrics = mn->gmetrics;
		node->ngmetrics = mn->ngmetrics;
	}
}

