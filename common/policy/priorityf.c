/* PRIORITYF: compile once into a coefficient vector, evaluate per node.
 *
 * Terms that read a plain node field are split by field type into offset
 * lists, so evaluating a node is a few tight loops of load-multiply-add;
 * only derived and string-valued components go through a switch. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine_internal.h"
#include "psiplace/error.h"
#include "psiplace/policy.h"
#include "psiplace/textparse.h"
#include "psiplace/priorityf.h"

enum comp {
	C_CPROCS, C_APROCS, C_CMEM, C_AMEM, C_CDISK, C_ADISK, C_JOBCOUNT,
	C_SUSPENDEDJCOUNT, C_LOAD, C_SPEED, C_PRIORITY, C_COST, C_NODEINDEX,
	C_FEATURE, C_GMETRIC, C_ARCH, C_OS, C_POWER, C_RANDOM, C_USAGE, C_MTBF,
	C_PARAPROCS, C_RESAFFINITY, C_FREETIME,
};

/* F_FREE32/F_FREE64: configured minus allocated (off, off2), not below 0. */
enum ftype { F_NONE, F_DBL, F_U32, F_U64, F_BOOL, F_FREE32, F_FREE64 };

static const struct comp_def {
	const char *name;
	enum comp comp;
	bool arg;      /* needs [ARG] */
	enum ftype ft; /* plain field: its type and offset(s) */
	size_t off, off2;
} comps[] = {
	{ "CPROCS", C_CPROCS, false, F_U32, offsetof(struct psiplace_node, cpus), 0 },
	{ "APROCS", C_APROCS, false, F_FREE32, offsetof(struct psiplace_node, cpus),
	  offsetof(struct psiplace_node, alloc_cpus) },
	{ "CMEM", C_CMEM, false, F_U64, offsetof(struct psiplace_node, real_memory), 0 },
	{ "AMEM", C_AMEM, false, F_FREE64, offsetof(struct psiplace_node, real_memory),
	  offsetof(struct psiplace_node, alloc_memory) },
	{ "CDISK", C_CDISK, false, F_U64, offsetof(struct psiplace_node, tmp_disk), 0 },
	/* Slurm does not account allocated tmp disk: all of it is available. */
	{ "ADISK", C_ADISK, false, F_U64, offsetof(struct psiplace_node, tmp_disk), 0 },
	{ "JOBCOUNT", C_JOBCOUNT, false, F_U32, offsetof(struct psiplace_node, jobs), 0 },
	{ "SUSPENDEDJCOUNT", C_SUSPENDEDJCOUNT, false, F_U32,
	  offsetof(struct psiplace_node, suspended_jobs), 0 },
	{ "LOAD", C_LOAD, false, F_DBL, offsetof(struct psiplace_node, load1), 0 },
	{ "SPEED", C_SPEED, false, F_DBL, offsetof(struct psiplace_node, speed), 0 },
	{ "PRIORITY", C_PRIORITY, false, F_DBL, offsetof(struct psiplace_node, priority), 0 },
	{ "COST", C_COST, false, F_DBL, offsetof(struct psiplace_node, cost), 0 },
	{ "CHARGERATE", C_COST, false, F_DBL, offsetof(struct psiplace_node, cost), 0 },
	{ "NODEINDEX", C_NODEINDEX, false, F_U32, offsetof(struct psiplace_node, index), 0 },
	{ "FEATURE", C_FEATURE, true, F_NONE, 0, 0 },
	{ "GMETRIC", C_GMETRIC, true, F_NONE, 0, 0 },
	{ "ARCH", C_ARCH, true, F_NONE, 0, 0 },
	{ "OS", C_OS, true, F_NONE, 0, 0 },
	{ "POWER", C_POWER, false, F_BOOL, offsetof(struct psiplace_node, power), 0 },
	{ "RANDOM", C_RANDOM, false, F_NONE, 0, 0 },
	{ "USAGE", C_USAGE, false, F_DBL, offsetof(struct psiplace_node, usage), 0 },
	{ "MTBF", C_MTBF, false, F_DBL, offsetof(struct psiplace_node, mtbf), 0 },
	{ "PARAPROCS", C_PARAPROCS, false, F_DBL, offsetof(struct psiplace_node, para_procs), 0 },
	{ "RESAFFINITY", C_RESAFFINITY, false, F_DBL,
	  offsetof(struct psiplace_node, rsv_affinity), 0 },
	{ "RSVAFFINITY", C_RESAFFINITY, false, F_DBL,
	  offsetof(struct psiplace_node, rsv_affinity), 0 },
	{ "FREETIME", C_FREETIME, false, F_NONE, 0, 0 },
};

#define NCOMPS (sizeof(comps) / sizeof(comps[0]))
#define MAXT PSIPLACE_PRIORITYF_MAXTERMS

struct term {
	const struct comp_def *def;
	double coef;
	char *arg; /* owned, NULL without [ARG] */
};

struct psiplace_priorityf {
	double constant;
	size_t nterms;
	struct term t[MAXT];
	/* Plain fields by type: offsets and coefficients. */
	size_t nd, nu32, nu64, nb, nf32, nf64, nspecial;
	uint16_t doff[MAXT], u32off[MAXT], u64off[MAXT], boff[MAXT];
	uint16_t f32off[MAXT][2], f64off[MAXT][2];
	double dcoef[MAXT], u32coef[MAXT], u64coef[MAXT], bcoef[MAXT], f32coef[MAXT],
		f64coef[MAXT];
	uint8_t special[MAXT]; /* indexes into t[] */
	/* The plain terms again, in the order eval() adds them, by column. */
	size_t ncol;
	uint8_t ccol[MAXT];
	bool csel[MAXT]; /* a flag: coefficient or nothing, as eval() adds it */
	double ccoef[MAXT];
	uint32_t colmask;
};

struct parser {
	const char *s, *what;
	size_t pos;
	psiplace_error_t *err;
	struct psiplace_priorityf *f;
	size_t nterms_in; /* terms as written, constants included */
};

static int perr(struct parser *p, size_t pos, const char *fmt, const char *tok)
{
	char q[96], t[64], msg[160];

	psiplace_quote(q, sizeof(q), p->s, 80);
	psiplace_quote(t, sizeof(t), tok ? tok : "", 40);
	snprintf(msg, sizeof(msg), fmt, t);
	return psiplace_seterr(p->err, "%s: position %zu: %s in '%s'", p->what,
			       pos + 1, msg, q);
}

static void skip_blanks(struct parser *p)
{
	while (p->s[p->pos] == ' ' || p->s[p->pos] == '\t')
		p->pos++;
}

static int parse_number(struct parser *p, double *v)
{
	size_t start = p->pos, n;
	const char *s = p->s;
	char buf[72];

	while (isdigit((unsigned char)s[p->pos]))
		p->pos++;
	if (s[p->pos] == '.') {
		p->pos++;
		while (isdigit((unsigned char)s[p->pos]))
			p->pos++;
	}
	if (p->pos - start == 1 && s[start] == '.')
		return perr(p, start, "'.' is not a number%s", "");
	if ((s[p->pos] == 'e' || s[p->pos] == 'E') &&
	    (isdigit((unsigned char)s[p->pos + 1]) ||
	     ((s[p->pos + 1] == '+' || s[p->pos + 1] == '-') &&
	      isdigit((unsigned char)s[p->pos + 2])))) {
		p->pos += 2;
		while (isdigit((unsigned char)s[p->pos]))
			p->pos++;
	}
	n = p->pos - start;
	if (n >= sizeof(buf))
		return perr(p, start, "number longer than 64 characters%s", "");
	memcpy(buf, s + start, n);
	buf[n] = '\0';
	errno = 0;
	*v = strtod(buf, NULL);
	if (errno == ERANGE && fabs(*v) > 1.0)
		return perr(p, start, "number '%s' out of range", buf);
	if (!isfinite(*v))
		return perr(p, start, "number '%s' out of range", buf);
	return 0;
}

static int add_term(struct parser *p, const struct comp_def *def, double coef, char *arg)
{
	struct psiplace_priorityf *f = p->f;
	size_t i;

	for (i = 0; i < f->nterms; i++) {
		struct term *t = &f->t[i];

		if (t->def->comp == def->comp &&
		    ((!t->arg && !arg) || (t->arg && arg && !strcmp(t->arg, arg)))) {
			t->coef += coef; /* a component named twice adds up */
			free(arg);
			return 0;
		}
	}
	f->t[f->nterms].def = def;
	f->t[f->nterms].coef = coef;
	f->t[f->nterms].arg = arg;
	f->nterms++;
	return 0;
}

static int parse_arg(struct parser *p, const struct comp_def *def, size_t name_pos, char **arg)
{
	size_t start, n;

	*arg = NULL;
	skip_blanks(p);
	if (p->s[p->pos] != '[') {
		if (def->arg)
			return perr(p, name_pos, "component %s needs an argument in brackets",
				    def->name);
		return 0;
	}
	if (!def->arg)
		return perr(p, p->pos, "component %s takes no argument", def->name);
	p->pos++;
	skip_blanks(p);
	start = p->pos;
	while (p->s[p->pos] > 0x20 && p->s[p->pos] < 0x7f && p->s[p->pos] != '[' &&
	       p->s[p->pos] != ']')
		p->pos++;
	n = p->pos - start;
	skip_blanks(p);
	if (p->s[p->pos] != ']') {
		if (!p->s[p->pos])
			return perr(p, p->pos, "expected ']'%s", "");
		return perr(p, p->pos, "expected ']' in the argument of %s", def->name);
	}
	if (!n)
		return perr(p, p->pos, "empty argument of %s", def->name);
	if (n > PSIPLACE_PRIORITYF_MAXARG)
		return perr(p, start, "argument of %s longer than 128 bytes", def->name);
	p->pos++;
	if (!(*arg = strndup(p->s + start, n)))
		return psiplace_seterr(p->err, "%s: out of memory", p->what);
	return 0;
}

static int parse_component(struct parser *p, double coef)
{
	size_t start = p->pos, n, i;
	char name[32];
	char *arg;

	while (isalnum((unsigned char)p->s[p->pos]) || p->s[p->pos] == '_')
		p->pos++;
	n = p->pos - start;
	if (n >= sizeof(name)) {
		memcpy(name, p->s + start, sizeof(name) - 1);
		name[sizeof(name) - 1] = '\0';
		return perr(p, start, "unknown component '%s...'", name);
	}
	memcpy(name, p->s + start, n);
	name[n] = '\0';
	for (i = 0; i < NCOMPS; i++)
		if (!strcasecmp(name, comps[i].name))
			break;
	if (i == NCOMPS)
		return perr(p, start, "unknown component '%s'", name);
	while (i > 0 && comps[i - 1].comp == comps[i].comp)
		i--; /* aliases follow their canonical name */
	if (parse_arg(p, &comps[i], start, &arg) < 0)
		return -1;
	return add_term(p, &comps[i], coef, arg);
}

static int parse_term(struct parser *p, bool first)
{
	size_t start, signs = 0;
	int neg = 0;
	double coef = 1.0;
	char c;

	skip_blanks(p);
	start = p->pos;
	while (p->s[p->pos] == '+' || p->s[p->pos] == '-') {
		neg ^= p->s[p->pos] == '-';
		signs++;
		p->pos++;
		skip_blanks(p);
	}
	if (!first && !signs)
		return perr(p, start, "expected '+' or '-' before '%s'",
			    (char[]){ p->s[p->pos], '\0' });
	if (++p->nterms_in > MAXT)
		return perr(p, p->pos, "more than 64 terms%s", "");
	c = p->s[p->pos];
	if (isdigit((unsigned char)c) || c == '.') {
		if (parse_number(p, &coef) < 0)
			return -1;
		coef = neg ? -coef : coef;
		skip_blanks(p);
		if (p->s[p->pos] == '*') {
			p->pos++;
			skip_blanks(p);
			if (!isalpha((unsigned char)p->s[p->pos]))
				return perr(p, p->pos, "expected a component after '*'%s", "");
			return parse_component(p, coef);
		}
		if (isalpha((unsigned char)p->s[p->pos]))
			return parse_component(p, coef);
		p->f->constant += coef;
		return 0;
	}
	if (isalpha((unsigned char)c))
		return parse_component(p, neg ? -1.0 : 1.0);
	if (!c)
		return perr(p, p->pos, "expected a number or a component at the end%s", "");
	return perr(p, p->pos, "expected a number or a component, not '%s'", (char[]){ c, '\0' });
}

static int comp_col(enum comp c)
{
	switch (c) {
	case C_CPROCS: return PSIPLACE_COL_CPROCS;
	case C_APROCS: return PSIPLACE_COL_APROCS;
	case C_CMEM: return PSIPLACE_COL_CMEM;
	case C_AMEM: return PSIPLACE_COL_AMEM;
	case C_CDISK: case C_ADISK: return PSIPLACE_COL_CDISK;
	case C_JOBCOUNT: return PSIPLACE_COL_JOBCOUNT;
	case C_SUSPENDEDJCOUNT: return PSIPLACE_COL_SUSPENDED;
	case C_LOAD: return PSIPLACE_COL_LOAD;
	case C_SPEED: return PSIPLACE_COL_SPEED;
	case C_PRIORITY: return PSIPLACE_COL_PRIORITY;
	case C_COST: return PSIPLACE_COL_COST;
	case C_NODEINDEX: return PSIPLACE_COL_NODEINDEX;
	case C_POWER: return PSIPLACE_COL_POWER;
	case C_USAGE: return PSIPLACE_COL_USAGE;
	case C_MTBF: return PSIPLACE_COL_MTBF;
	case C_PARAPROCS: return PSIPLACE_COL_PARAPROCS;
	case C_RESAFFINITY: return PSIPLACE_COL_RSVAFFINITY;
	case C_FREETIME: return PSIPLACE_COL_FREETIME;
	default: return -1;
	}
}

/* The column plan: plain terms grouped by field type exactly as eval()
 * visits them, so a column-wise sum adds the same values in the same
 * order. */
static void plan_columns(struct psiplace_priorityf *f)
{
	static const enum ftype by[] = { F_DBL, F_U32, F_U64, F_FREE32, F_FREE64, F_BOOL };
	size_t b, i;

	for (b = 0; b < sizeof(by) / sizeof(by[0]); b++) {
		for (i = 0; i < f->nterms; i++) {
			const struct term *t = &f->t[i];

			if (t->def->ft != by[b])
				continue;
			f->ccol[f->ncol] = (uint8_t)comp_col(t->def->comp);
			f->csel[f->ncol] = by[b] == F_BOOL;
			f->ccoef[f->ncol++] = t->coef;
		}
	}
	for (i = 0; i < f->ncol; i++)
		f->colmask |= 1u << f->ccol[i];
	for (i = 0; i < f->nterms; i++)
		if (f->t[i].def->comp == C_FREETIME)
			f->colmask |= 1u << PSIPLACE_COL_FREETIME;
}

/* Split the terms by how they are evaluated (see the file comment). */
static void plan_terms(struct psiplace_priorityf *f)
{
	size_t i;

	for (i = 0; i < f->nterms; i++) {
		const struct term *t = &f->t[i];
		uint16_t off = (uint16_t)t->def->off;

		switch (t->def->ft) {
		case F_DBL:
			f->doff[f->nd] = off;
			f->dcoef[f->nd++] = t->coef;
			break;
		case F_U32:
			f->u32off[f->nu32] = off;
			f->u32coef[f->nu32++] = t->coef;
			break;
		case F_U64:
			f->u64off[f->nu64] = off;
			f->u64coef[f->nu64++] = t->coef;
			break;
		case F_BOOL:
			f->boff[f->nb] = off;
			f->bcoef[f->nb++] = t->coef;
			break;
		case F_FREE32:
			f->f32off[f->nf32][0] = off;
			f->f32off[f->nf32][1] = (uint16_t)t->def->off2;
			f->f32coef[f->nf32++] = t->coef;
			break;
		case F_FREE64:
			f->f64off[f->nf64][0] = off;
			f->f64off[f->nf64][1] = (uint16_t)t->def->off2;
			f->f64coef[f->nf64++] = t->coef;
			break;
		case F_NONE:
			f->special[f->nspecial++] = (uint8_t)i;
			break;
		}
	}
}

int psiplace_priorityf_compile(const char *expr, const char *what,
			       struct psiplace_priorityf **out, psiplace_error_t *err)
{
	struct parser p = { .s = expr, .what = what ? what : "PRIORITYF", .err = err };
	size_t len;
	int rc = 0;

	*out = NULL;
	if (!expr)
		expr = p.s = "";
	len = strnlen(expr, PSIPLACE_PRIORITYF_MAXLEN + 1);
	if (len > PSIPLACE_PRIORITYF_MAXLEN)
		return perr(&p, PSIPLACE_PRIORITYF_MAXLEN,
			    "expression longer than 1024 characters%s", "");
	if (!(p.f = calloc(1, sizeof(*p.f))))
		return psiplace_seterr(err, "%s: out of memory", p.what);
	skip_blanks(&p);
	if (!expr[p.pos])
		rc = perr(&p, p.pos, "empty expression%s", "");
	while (rc == 0 && expr[p.pos]) {
		rc = parse_term(&p, p.nterms_in == 0);
		if (rc == 0)
			skip_blanks(&p);
	}
	if (rc < 0) {
		psiplace_priorityf_free(p.f);
		return -1;
	}
	plan_terms(p.f);
	plan_columns(p.f);
	*out = p.f;
	return 0;
}

void psiplace_priorityf_free(struct psiplace_priorityf *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->nterms; i++)
		free(f->t[i].arg);
	free(f);
}

size_t psiplace_priorityf_nterms(const struct psiplace_priorityf *f)
{
	return f ? f->nterms : 0;
}

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

double psiplace_random01(uint64_t seed, uint32_t index)
{
	return (double)(splitmix64(splitmix64(seed) ^ index) >> 11) * 0x1p-53;
}

static double gmetric(const struct psiplace_node *n, const char *name)
{
	size_t i;

	for (i = 0; i < n->ngmetrics; i++)
		if (n->gmetrics[i].name && !strcmp(n->gmetrics[i].name, name))
			return n->gmetrics[i].value;
	return 0.0;
}

static double freetime(const struct psiplace_node *n)
{
	if (n->next_resv < 0 || n->next_resv > PSIPLACE_FREETIME_HORIZON)
		return PSIPLACE_FREETIME_HORIZON;
	return (double)n->next_resv;
}

static double random_term(double coef, uint64_t seed, uint32_t index)
{
	double v = coef * psiplace_random01(seed, index);

	return v > PSIPLACE_RANDOM_CAP ? PSIPLACE_RANDOM_CAP
	       : v < -PSIPLACE_RANDOM_CAP ? -PSIPLACE_RANDOM_CAP : v;
}

/* coef * value for the components that are not a plain field. */
static double special(const struct term *t, const struct psiplace_node *n, uint64_t seed)
{
	double v;

	switch (t->def->comp) {
	case C_FEATURE:
		v = psiplace_word_in_list(n->features, t->arg) ? 1.0 : 0.0;
		break;
	case C_GMETRIC:
		v = gmetric(n, t->arg);
		break;
	case C_ARCH:
		v = n->arch && !strcmp(n->arch, t->arg) ? 1.0 : 0.0;
		break;
	case C_OS:
		v = n->os && !strcmp(n->os, t->arg) ? 1.0 : 0.0;
		break;
	case C_FREETIME:
		v = freetime(n);
		break;
	case C_RANDOM:
		return random_term(t->coef, seed, n->index);
	default:
		v = 0.0;
		break;
	}
	return t->coef * v;
}

/* One node; restrict tells the compiler that out[] (in eval_many) does
 * not alias the plan, so the coefficients stay in registers. */
static inline double eval(const struct psiplace_priorityf *restrict f,
			  const struct psiplace_node *restrict node, uint64_t seed)
{
	const char *b = (const char *)node;
	double s = f->constant;
	size_t i;

	for (i = 0; i < f->nd; i++) {
		double v;

		memcpy(&v, b + f->doff[i], sizeof(v));
		s += f->dcoef[i] * v;
	}
	for (i = 0; i < f->nu32; i++) {
		uint32_t v;

		memcpy(&v, b + f->u32off[i], sizeof(v));
		s += f->u32coef[i] * (double)v;
	}
	for (i = 0; i < f->nu64; i++) {
		uint64_t v;

		memcpy(&v, b + f->u64off[i], sizeof(v));
		s += f->u64coef[i] * (double)v;
	}
	for (i = 0; i < f->nf32; i++) {
		uint32_t c, a;

		memcpy(&c, b + f->f32off[i][0], sizeof(c));
		memcpy(&a, b + f->f32off[i][1], sizeof(a));
		s += f->f32coef[i] * (c > a ? (double)(c - a) : 0.0);
	}
	for (i = 0; i < f->nf64; i++) {
		uint64_t c, a;

		memcpy(&c, b + f->f64off[i][0], sizeof(c));
		memcpy(&a, b + f->f64off[i][1], sizeof(a));
		s += f->f64coef[i] * (c > a ? (double)(c - a) : 0.0);
	}
	for (i = 0; i < f->nb; i++) {
		bool v;

		memcpy(&v, b + f->boff[i], sizeof(v));
		s += v ? f->bcoef[i] : 0.0;
	}
	for (i = 0; i < f->nspecial; i++)
		s += special(&f->t[f->special[i]], node, seed);
	return s;
}

double psiplace_priorityf_eval(const struct psiplace_priorityf *f,
			       const struct psiplace_node *node, uint64_t seed)
{
	return eval(f, node, seed);
}

void psiplace_priorityf_eval_many(const struct psiplace_priorityf *restrict f,
				  const struct psiplace_node *restrict nodes, size_t n,
				  uint64_t seed, double *restrict out)
{
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = eval(f, &nodes[i], seed);
}

uint32_t psiplace_priorityf_columns(const struct psiplace_priorityf *f)
{
	return f->colmask;
}

#define ADD(v)                                                 \
	do {                                                   \
		if (sel) {                                     \
			for (i = 0; i < w; i++)                \
				out[i] += (v)[i] != 0 ? a : 0.0; \
		} else {                                       \
			for (i = 0; i < w; i++)                \
				out[i] += a * (double)(v)[i];  \
		}                                              \
	} while (0)

/* out[i] += a * column[lo + i] (sel: a where the flag is set), each
 * stored type converted to the double it was made from. */
static void add_column(double *restrict out, const struct psiplace_nodecols *c, int col,
		       size_t lo, size_t w, double a, bool sel)
{
	size_t i;

	if (c->icol[col]) {
		const int32_t *restrict v = c->icol[col] + lo;

		ADD(v);
	} else if (c->fcol[col]) {
		const float *restrict v = c->fcol[col] + lo;

		ADD(v);
	} else {
		const double *restrict v = c->col[col] + lo;

		ADD(v);
	}
}

#undef ADD

void psiplace_priorityf_eval_block(const struct psiplace_priorityf *f,
				   const struct psiplace_nodecols *c, size_t lo, size_t hi,
				   uint64_t seed, double *restrict out)
{
	size_t w = hi - lo, i, j;

	for (i = 0; i < w; i++)
		out[i] = f->constant;
	for (j = 0; j < f->ncol; j++)
		add_column(out, c, f->ccol[j], lo, w, f->ccoef[j], f->csel[j]);
	for (j = 0; j < f->nspecial; j++) {
		const struct term *t = &f->t[f->special[j]];

		switch (t->def->comp) {
		case C_FREETIME:
			add_column(out, c, PSIPLACE_COL_FREETIME, lo, w, t->coef, false);
			break;
		case C_RANDOM:
			for (i = 0; i < w; i++)
				out[i] += random_term(t->coef, seed, c->index[lo + i]);
			break;
		default:
			for (i = 0; i < w; i++)
				out[i] += special(t, &c->nodes[lo + i], seed);
			break;
		}
	}
}

#define BLOCK 512

void psiplace_priorityf_eval_cols(const struct psiplace_priorityf *f,
				  const struct psiplace_nodecols *c, uint64_t seed, double *out)
{
	size_t lo;

	if ((f->colmask & c->filled) != f->colmask) {
		psiplace_priorityf_eval_many(f, c->nodes, c->n, seed, out);
		return;
	}
	for (lo = 0; lo < c->n; lo += BLOCK)
		psiplace_priorityf_eval_block(f, c, lo, lo + BLOCK < c->n ? lo + BLOCK : c->n,
					      seed, out + lo);
}

static int fmt_num(char *buf, size_t len, double v)
{
	return snprintf(buf, len, "%.10g", v);
}

int psiplace_priorityf_format(const struct psiplace_priorityf *f, char *buf, size_t len)
{
	size_t o = 0, i;
	char num[40];
	int w, first = 1;

#define PUT(...)                                                                  \
	do {                                                                      \
		w = snprintf(buf ? buf + (o < len ? o : len) : NULL,              \
			     o < len ? len - o : 0, __VA_ARGS__);                 \
		o += (size_t)(w > 0 ? w : 0);                                     \
	} while (0)
	if (f->constant != 0.0 || f->nterms == 0) {
		fmt_num(num, sizeof(num), f->constant);
		PUT("%s", num);
		first = 0;
	}
	for (i = 0; i < f->nterms; i++) {
		const struct term *t = &f->t[i];
		double c = t->coef;

		if (!first)
			PUT(" %c ", c < 0 ? '-' : '+');
		else if (c < 0)
			PUT("-");
		first = 0;
		c = fabs(c);
		if (c != 1.0) {
			fmt_num(num, sizeof(num), c);
			PUT("%s*", num);
		}
		PUT("%s", t->def->name);
		if (t->arg)
			PUT("[%s]", t->arg);
	}
#undef PUT
	return (int)o;
}
