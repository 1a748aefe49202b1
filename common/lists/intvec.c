/* Per-node integer vectors: "4,2,8" and Slurm's "72(x2),36". */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/intvec.h"

#define ACCEPTED "non-negative integers separated by commas, N(xK) for K repeats of N"

struct cursor {
	const char *s;
	size_t pos;
	const char *what;
	psiplace_error_t *err;
};

static int fail(const struct cursor *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(const struct cursor *c, const char *fmt, ...)
{
	char why[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return psiplace_seterr_at(c->err, c->what, c->s, c->pos, ACCEPTED, "%s", why);
}

static int is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

/* A decimal number 0..max at the cursor. */
static int number(struct cursor *c, long max, long *out)
{
	size_t start = c->pos;
	long v = 0;

	if (c->s[c->pos] == '-')
		return fail(c, "negative value");
	if (!is_digit(c->s[c->pos]))
		return fail(c, c->s[c->pos] ? "expected a number" : "expected a number, found the end");
	while (is_digit(c->s[c->pos])) {
		if (v <= max)
			v = v * 10 + (c->s[c->pos] - '0');
		c->pos++;
	}
	if (v > max) {
		c->pos = start;
		return fail(c, "value larger than %ld", max);
	}
	*out = v;
	return 0;
}

/* "N" or "N(xK)": the value and its repeat count. */
static int item(struct cursor *c, long *value, long *repeat)
{
	if (number(c, PSIPLACE_INTVEC_MAX_VALUE, value) < 0)
		return -1;
	*repeat = 1;
	if (c->s[c->pos] != '(')
		return 0;
	c->pos++;
	if (c->s[c->pos] != 'x')
		return fail(c, "expected 'x' after '('");
	c->pos++;
	if (number(c, PSIPLACE_INTVEC_MAX_ENTRIES, repeat) < 0)
		return -1;
	if (*repeat < 1) {
		c->pos--;
		return fail(c, "repeat count 0");
	}
	if (c->s[c->pos] != ')')
		return fail(c, "expected ')'");
	c->pos++;
	return 0;
}

/* Walk the whole list; count entries, and store them when fill is set
 * (the second pass, over input the first pass accepted). */
static int scan(struct cursor *c, int *fill, size_t *count)
{
	long value, repeat, k;
	size_t start;

	*count = 0;
	c->pos = 0;
	for (;;) {
		start = c->pos;
		if (item(c, &value, &repeat) < 0)
			return -1;
		if ((size_t)repeat > PSIPLACE_INTVEC_MAX_ENTRIES - *count) {
			c->pos = start;
			return fail(c, "more than %u entries", PSIPLACE_INTVEC_MAX_ENTRIES);
		}
		for (k = 0; fill && k < repeat; k++)
			fill[*count + (size_t)k] = (int)value;
		*count += (size_t)repeat;
		if (!c->s[c->pos])
			return 0;
		if (c->s[c->pos] != ',')
			return fail(c, "unexpected character");
		c->pos++;
	}
}

int psiplace_intvec_parse(const char *s, const char *what,
			  struct psiplace_intvec *out, psiplace_error_t *err)
{
	struct cursor c = { s ? s : "", 0, what ? what : "vector", err };
	size_t n;

	out->n = 0;
	out->v = NULL;
	if (!c.s[0])
		return psiplace_seterr(err, "%s: empty value; accepted: %s", c.what, ACCEPTED);
	if (strnlen(c.s, PSIPLACE_INTVEC_MAX_INPUT + 1) > PSIPLACE_INTVEC_MAX_INPUT)
		return psiplace_seterr(err, "%s: value longer than %u bytes",
				       c.what, PSIPLACE_INTVEC_MAX_INPUT);
	if (scan(&c, NULL, &n) < 0)
		return -1;
	out->v = malloc(n * sizeof(*out->v));
	if (!out->v)
		return psiplace_seterr(err, "%s: out of memory for %zu entries", c.what, n);
	scan(&c, out->v, &out->n);
	return 0;
}

void psiplace_intvec_free(struct psiplace_intvec *v)
{
	if (!v)
		return;
	free(v->v);
	v->v = NULL;
	v->n = 0;
}

long psiplace_intvec_format(const int *v, size_t n, char *buf, size_t len)
{
	size_t i, run, o = 0;
	int w;

	if (!n || !buf || !len)
		return -1;
	buf[0] = '\0';
	for (i = 0; i < n; i += run) {
		for (run = 1; i + run < n && v[i + run] == v[i]; run++)
			;
		w = run > 1 ? snprintf(buf + o, len - o, "%s%d(x%zu)", i ? "," : "", v[i], run)
			    : snprintf(buf + o, len - o, "%s%d", i ? "," : "", v[i]);
		if (w < 0 || (size_t)w >= len - o) {
			buf[0] = '\0';
			return -1;
		}
		o += (size_t)w;
	}
	return (long)o;
}
