/* psiplace.conf: per-node Speed, Priority, ChargeRate, PriorityFunction
 * and the metrics file's path. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "psiplace/error.h"
#include "psiplace/hostlist.h"
#include "psiplace/policy.h"
#include "psiplace/psiplace_conf.h"
#include "psiplace/readfile.h"
#include "psiplace/resize_decision.h"
#include "psiplace/textparse.h"

#define MAXWORDS 64

enum { A_SPEED, A_PRIORITY, A_RATE, A_FUNCTION, NATTR };
static const char *const attr_names[NATTR] = { "Speed", "Priority", "ChargeRate",
					       "PriorityFunction" };
static const char accepted[] = "MetricsFile, NodeName (with Speed, Priority, ChargeRate, "
			       "PriorityFunction), PartitionName (with NodeAllocationPolicy, "
			       "PriorityFunction), MalleableMinInterval, MalleableMaxGrow, "
			       "MalleableShrink, MalleableInterval, MalleableAckTimeout, "
			       "MalleableHoldTime";

/* The resize decision's parameters, one key a line. */
enum { M_INTERVAL, M_MAX_GROW, M_SHRINK, M_CYCLE, M_ACK, M_HOLD, NMALL };
static const char *const mall_keys[NMALL] = { "MalleableMinInterval", "MalleableMaxGrow",
					      "MalleableShrink", "MalleableInterval",
					      "MalleableAckTimeout", "MalleableHoldTime" };

/* One NodeName line's attributes before they are spread over its nodes. */
struct line_attrs {
	bool has[NATTR];
	double v[3];
	size_t function; /* index into c->functions */
	int line;
};

struct parse {
	const char *file;
	int line;
	psiplace_error_t *err;
	struct psiplace_psiconf *c;
	size_t cap;
};

void psiplace_psiconf_init(struct psiplace_psiconf *c)
{
	memset(c, 0, sizeof(*c));
	psiplace_rdec_params_init(&c->malleable);
	c->mall_interval = PSIPLACE_PSICONF_MALL_INTERVAL_DEFAULT;
	c->mall_ack_timeout = PSIPLACE_PSICONF_MALL_ACK_DEFAULT;
	c->mall_hold_time = PSIPLACE_PSICONF_MALL_HOLD_DEFAULT;
}

void psiplace_psiconf_free(struct psiplace_psiconf *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->nodes[i].name);
	for (i = 0; i < c->nfunctions; i++) {
		psiplace_priorityf_free(c->functions[i]);
		free(c->function_texts[i]);
	}
	for (i = 0; i < c->nparts; i++)
		free(c->parts[i].name);
	free(c->parts);
	free(c->functions);
	free(c->function_texts);
	free(c->nodes);
	free(c->metrics_file);
	psiplace_psiconf_init(c);
}

static int lerr(struct parse *p, const char *msg, const char *word)
{
	return psiplace_seterr_line(p->err, p->file, p->line, msg, word);
}

static int key_is(const char *word, const char *key, const char **value)
{
	size_t n = strlen(key);

	if (strncasecmp(word, key, n) || word[n] != '=')
		return 0;
	*value = word + n + 1;
	return 1;
}

static int add_function(struct parse *p, const char *text, struct line_attrs *a)
{
	struct psiplace_psiconf *c = p->c;
	struct psiplace_priorityf *f, **nf;
	char what[96], **nt;

	snprintf(what, sizeof(what), "%s:%d: PriorityFunction", p->file, p->line);
	if (psiplace_priorityf_compile(text, what, &f, p->err) < 0)
		return -1;
	nf = realloc(c->functions, (c->nfunctions + 1) * sizeof(*nf));
	if (nf)
		c->functions = nf;
	nt = realloc(c->function_texts, (c->nfunctions + 1) * sizeof(*nt));
	if (nt)
		c->function_texts = nt;
	if (!nf || !nt || !(c->function_texts[c->nfunctions] = strdup(text))) {
		psiplace_priorityf_free(f);
		return lerr(p, "out of memory", NULL);
	}
	c->functions[c->nfunctions] = f;
	a->function = c->nfunctions++;
	return 0;
}

static int parse_attr(struct parse *p, const char *word, struct line_attrs *a)
{
	const char *v;
	int i;

	for (i = 0; i < NATTR; i++) {
		if (!key_is(word, attr_names[i], &v))
			continue;
		if (a->has[i])
			return lerr(p, "attribute given twice on one line:", word);
		a->has[i] = true;
		if (i == A_FUNCTION)
			return add_function(p, v, a);
		if (!psiplace_parse_double(v, strlen(v), &a->v[i]))
			return lerr(p, "not a number:", word);
		if (i == A_SPEED && !(a->v[i] > 0.0))
			return lerr(p, "Speed must be positive:", word);
		if (i == A_RATE && a->v[i] < 0.0)
			return lerr(p, "ChargeRate must not be negative:", word);
		return 0;
	}
	return lerr(p, "unknown NodeName attribute (accepted: Speed, Priority, ChargeRate, "
		       "PriorityFunction):", word);
}

static int add_nodes(struct parse *p, const char *expr, const struct line_attrs *a)
{
	struct psiplace_psiconf *c = p->c;
	struct psiplace_hostlist h;
	char what[96];
	size_t i;

	snprintf(what, sizeof(what), "%s:%d: NodeName", p->file, p->line);
	if (psiplace_hostlist_expand(expr, what, &h, p->err) < 0)
		return -1;
	if (c->n + h.n > PSIPLACE_PSICONF_MAXNODES) {
		psiplace_hostlist_free(&h);
		return lerr(p, "more than 1048576 node entries", NULL);
	}
	if (c->n + h.n > p->cap) {
		size_t ncap = (c->n + h.n) * 2;
		struct psiplace_nodeconf *nn = realloc(c->nodes, ncap * sizeof(*nn));

		if (!nn) {
			psiplace_hostlist_free(&h);
			return lerr(p, "out of memory", NULL);
		}
		c->nodes = nn;
		p->cap = ncap;
	}
	for (i = 0; i < h.n; i++) {
		struct psiplace_nodeconf *nc = &c->nodes[c->n++];

		memset(nc, 0, sizeof(*nc));
		if (!(nc->name = strdup(h.host[i]))) {
			c->n--;
			psiplace_hostlist_free(&h);
			return lerr(p, "out of memory", NULL);
		}
		nc->has_speed = a->has[A_SPEED];
		nc->speed = a->has[A_SPEED] ? a->v[A_SPEED] : 1.0;
		nc->has_priority = a->has[A_PRIORITY];
		nc->priority = a->v[A_PRIORITY];
		nc->has_charge_rate = a->has[A_RATE];
		nc->charge_rate = a->v[A_RATE];
		if (a->has[A_FUNCTION]) {
			nc->priorityf = c->functions[a->function];
			nc->priority_function = c->function_texts[a->function];
		}
		for (int k = 0; k < NATTR; k++)
			nc->line[k] = a->has[k] ? a->line : 0;
		nc->decl_line = a->line;
	}
	psiplace_hostlist_free(&h);
	return 0;
}

/* NodeAllocationPolicy= and PriorityFunction= of a PartitionName line. */
static int parse_part_attr(struct parse *p, const char *word, struct psiplace_partconf *pc)
{
	struct line_attrs a = { .line = p->line };
	psiplace_error_t e;
	const char *v;
	char what[96];

	if (key_is(word, "NodeAllocationPolicy", &v)) {
		if (pc->has_policy)
			return lerr(p, "attribute given twice on one line:", word);
		pc->has_policy = true;
		if (!strcasecmp(v, "none"))
			return 0;
		snprintf(what, sizeof(what), "%s:%d: NodeAllocationPolicy", p->file, p->line);
		if (psiplace_policy_parse(v, what, &pc->policy, &e) < 0) {
			*p->err = e;
			return -1;
		}
		return 0;
	}
	if (key_is(word, "PriorityFunction", &v)) {
		if (pc->priorityf)
			return lerr(p, "attribute given twice on one line:", word);
		if (add_function(p, v, &a) < 0)
			return -1;
		pc->priorityf = p->c->functions[a.function];
		pc->priority_function = p->c->function_texts[a.function];
		return 0;
	}
	return lerr(p, "unknown PartitionName attribute (accepted: NodeAllocationPolicy, "
		       "PriorityFunction):", word);
}

static int parse_partition(struct parse *p, const char *name, char **w, int n)
{
	struct psiplace_psiconf *c = p->c;
	struct psiplace_partconf pc = { .line = p->line }, *np;
	const char *s;
	int i;

	if (!*name || strlen(name) > 64)
		return lerr(p, "PartitionName: not a partition name (1..64 characters):", name);
	for (s = name; *s; s++)
		if (*s == ',' || *s == '[' || *s == '=')
			return lerr(p, "PartitionName: one partition per line, not:", name);
	for (i = 0; i < (int)c->nparts; i++)
		if (!strcmp(c->parts[i].name, name))
			return psiplace_seterr_linef(p->err, p->file, p->line,
						     "partition %s: already set at line %d", name,
						     c->parts[i].line);
	if (c->nparts >= PSIPLACE_PSICONF_MAXPARTS)
		return lerr(p, "more than 65536 PartitionName lines", NULL);
	if (n < 2)
		return lerr(p, "PartitionName sets nothing (accepted: NodeAllocationPolicy, "
			       "PriorityFunction):", name);
	for (i = 1; i < n; i++)
		if (parse_part_attr(p, w[i], &pc) < 0)
			return -1;
	if (!(np = realloc(c->parts, (c->nparts + 1) * sizeof(*np))))
		return lerr(p, "out of memory", NULL);
	c->parts = np;
	if (!(pc.name = strdup(name)))
		return lerr(p, "out of memory", NULL);
	c->parts[c->nparts++] = pc;
	return 0;
}

static int parse_malleable_value(struct parse *p, int k, const char *v)
{
	struct psiplace_rdec_params *m = &p->c->malleable;
	uint64_t u;

	switch (k) {
	case M_INTERVAL:
		if (!psiplace_parse_u64(v, strlen(v), PSIPLACE_PSICONF_MAX_INTERVAL, &u))
			return lerr(p, "MalleableMinInterval: not whole seconds from 0 to 604800:", v);
		m->min_interval = (int64_t)u;
		return 0;
	case M_MAX_GROW:
		if (!psiplace_parse_u64(v, strlen(v), PSIPLACE_PSICONF_MAX_GROW, &u))
			return lerr(p, "MalleableMaxGrow: not a node count from 0 (up to the job's MAX) "
				       "to 1048576:", v);
		m->max_grow = (uint32_t)u;
		return 0;
	case M_CYCLE:
		if (!psiplace_parse_u64(v, strlen(v), PSIPLACE_PSICONF_MAX_CYCLE, &u) || !u)
			return lerr(p, "MalleableInterval: not whole seconds from 1 to 3600:", v);
		p->c->mall_interval = (int64_t)u;
		return 0;
	case M_ACK:
		if (!psiplace_parse_u64(v, strlen(v), PSIPLACE_PSICONF_MAX_INTERVAL, &u) || !u)
			return lerr(p, "MalleableAckTimeout: not whole seconds from 1 to 604800:", v);
		p->c->mall_ack_timeout = (int64_t)u;
		return 0;
	case M_HOLD:
		if (!psiplace_parse_u64(v, strlen(v), PSIPLACE_PSICONF_MAX_INTERVAL, &u))
			return lerr(p, "MalleableHoldTime: not whole seconds from 0 (no hold) to 604800:",
				    v);
		p->c->mall_hold_time = (int64_t)u;
		return 0;
	default:
		if (!strcasecmp(v, "yes") || !strcasecmp(v, "no")) {
			m->allow_shrink = !strcasecmp(v, "yes");
			return 0;
		}
		return lerr(p, "MalleableShrink: not yes or no:", v);
	}
}

/* MalleableMinInterval=, MalleableMaxGrow=, MalleableShrink=,
 * MalleableInterval=, MalleableAckTimeout=, MalleableHoldTime=; 1: not one
 * of them. */
static int parse_malleable(struct parse *p, char **w, int n)
{
	const char *v;
	char msg[80];
	int k;

	for (k = 0; k < NMALL; k++)
		if (key_is(w[0], mall_keys[k], &v))
			break;
	if (k == NMALL)
		return 1;
	if (n > 1) {
		snprintf(msg, sizeof(msg), "%s takes no other words on its line:", mall_keys[k]);
		return lerr(p, msg, w[1]);
	}
	if (p->c->malleable_line[k])
		return psiplace_seterr_linef(p->err, p->file, p->line, "%s: already set at line %d",
					     mall_keys[k], p->c->malleable_line[k]);
	if (parse_malleable_value(p, k, v) < 0)
		return -1;
	p->c->malleable_line[k] = p->line;
	return 0;
}

static int parse_line(struct parse *p, char *line)
{
	char *w[MAXWORDS];
	const char *v, *names = NULL;
	struct line_attrs a;
	psiplace_error_t e;
	int n, i;

	if (psiplace_split_words(line, w, MAXWORDS, &n, &e) < 0)
		return lerr(p, e.text, NULL);
	if (n == 0)
		return 0;
	if (key_is(w[0], "MetricsFile", &v)) {
		if (n > 1)
			return lerr(p, "MetricsFile takes no other words on its line:", w[1]);
		if (!*v || strlen(v) > 4095)
			return lerr(p, "MetricsFile: not a path:", v);
		if (p->c->metrics_file)
			return lerr(p, "MetricsFile given twice", NULL);
		if (!(p->c->metrics_file = strdup(v)))
			return lerr(p, "out of memory", NULL);
		return 0;
	}
	if (key_is(w[0], "PartitionName", &v))
		return parse_partition(p, v, w, n);
	if ((i = parse_malleable(p, w, n)) <= 0)
		return i;
	if (!key_is(w[0], "NodeName", &names)) {
		char *eq = strchr(w[0], '=');

		if (eq)
			*eq = '\0';
		return psiplace_seterr_linef(p->err, p->file, p->line,
					     "unknown key '%.64s'; accepted: %s", w[0], accepted);
	}
	memset(&a, 0, sizeof(a));
	a.line = p->line;
	for (i = 1; i < n; i++)
		if (parse_attr(p, w[i], &a) < 0)
			return -1;
	return add_nodes(p, names, &a);
}

static int cmp_node(const void *x, const void *y)
{
	const struct psiplace_nodeconf *a = x, *b = y;
	int c = strcmp(a->name, b->name);

	if (c)
		return c;
	return a->decl_line < b->decl_line ? -1 : a->decl_line > b->decl_line;
}

static void fold(struct psiplace_nodeconf *d, const struct psiplace_nodeconf *s)
{
	if (s->has_speed)
		d->speed = s->speed, d->has_speed = true;
	if (s->has_priority)
		d->priority = s->priority, d->has_priority = true;
	if (s->has_charge_rate)
		d->charge_rate = s->charge_rate, d->has_charge_rate = true;
	if (s->priorityf)
		d->priorityf = s->priorityf, d->priority_function = s->priority_function;
	for (int k = 0; k < NATTR; k++)
		if (s->line[k])
			d->line[k] = s->line[k];
}

/* Fold lines naming the same node; an attribute set twice is an error. */
static int merge(struct parse *p)
{
	struct psiplace_psiconf *c = p->c;
	size_t i, j, o = 0;

	if (c->n > 1)
		qsort(c->nodes, c->n, sizeof(*c->nodes), cmp_node);
	for (i = 0; i < c->n; i++) {
		struct psiplace_nodeconf *d = o ? &c->nodes[o - 1] : NULL, *s = &c->nodes[i];
		int k;

		if (!d || strcmp(d->name, s->name)) {
			c->nodes[o++] = *s;
			continue;
		}
		for (k = 0; k < NATTR; k++) {
			if (d->line[k] && s->line[k]) {
				psiplace_seterr_linef(p->err, p->file, s->line[k],
						      "node %s: %s already set at line %d", s->name,
						      attr_names[k], d->line[k]);
				for (j = i; j < c->n; j++)
					free(c->nodes[j].name);
				c->n = o;
				return -1;
			}
		}
		fold(d, s);
		free(s->name);
	}
	c->n = o;
	return 0;
}

int psiplace_psiconf_parse(const char *text, size_t len, const char *file,
			   struct psiplace_psiconf *c, psiplace_error_t *err)
{
	struct parse p = { .file = file ? file : "psiplace.conf", .err = err,
			   .c = c };
	struct psiplace_lines it;
	const char *line;
	size_t l;
	char *buf;

	psiplace_psiconf_init(c);
	if (len > PSIPLACE_PSICONF_MAXBYTES)
		return psiplace_seterr(err, "%s: larger than %d bytes", p.file,
				       PSIPLACE_PSICONF_MAXBYTES);
	if (!(buf = malloc(PSIPLACE_PSICONF_MAXLINE + 1)))
		return psiplace_seterr(err, "%s: out of memory", p.file);
	psiplace_lines_init(&it, text, len);
	while (psiplace_lines_next(&it, &line, &l, NULL)) {
		p.line = it.lineno;
		if (l > PSIPLACE_PSICONF_MAXLINE || memchr(line, '\0', l)) {
			lerr(&p, l > PSIPLACE_PSICONF_MAXLINE ? "line longer than 8192 bytes"
							      : "NUL byte in line",
			     NULL);
			goto fail;
		}
		memcpy(buf, line, l);
		buf[l] = '\0';
		if (parse_line(&p, buf) < 0)
			goto fail;
	}
	free(buf);
	if (merge(&p) == 0)
		return 0;
	psiplace_psiconf_free(c);
	return -1;
fail:
	free(buf);
	psiplace_psiconf_free(c);
	return -1;
}

int psiplace_psiconf_read_file(const char *path, bool optional, struct psiplace_psiconf *c,
			       psiplace_error_t *err)
{
	char *text;
	size_t n;
	int rc, e;

	psiplace_psiconf_init(c);
	if (psiplace_read_file(path, PSIPLACE_PSICONF_MAXBYTES, PSIPLACE_READ_REGULAR, &text, &n, &e, err) < 0)
		return optional && e == ENOENT ? 0 : -1;
	rc = psiplace_psiconf_parse(text, n, path, c, err);
	free(text);
	return rc;
}

static int cmp_key(const void *k, const void *e)
{
	return strcmp(k, ((const struct psiplace_nodeconf *)e)->name);
}

const struct psiplace_nodeconf *psiplace_psiconf_node(const struct psiplace_psiconf *c,
						      const char *name)
{
	if (!c->n || !name)
		return NULL;
	return bsearch(name, c->nodes, c->n, sizeof(*c->nodes), cmp_key);
}

const struct psiplace_partconf *psiplace_psiconf_partition(const struct psiplace_psiconf *c,
							   const char *name)
{
	size_t i;

	for (i = 0; name && i < c->nparts; i++)
		if (!strcmp(c->parts[i].name, name))
			return &c->parts[i];
	return NULL;
}

void psiplace_psiconf_apply(const struct psiplace_nodeconf *nc, struct psiplace_node *node)
{
	if (!nc)
		return;
	if (nc->has_speed)
		node->speed = nc->speed;
	if (nc->has_priority)
		node->priority = nc->priority;
	if (nc->has_charge_rate)
		node->cost = nc->charge_rate;
	node->priorityf = nc->priorityf;
}
