/* Slurm hostlist expressions expanded into host names (no libslurm). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/hostlist.h"

#define ACCEPTED "host names and Slurm hostlist expressions like n[1-3,5],x7"
#define MAX_DIGITS 9 /* numbers stay below 10^9: no overflow anywhere */

struct ctx {
	const char *s;
	const char *what;
	psiplace_error_t *err;
	char *buf; /* the names so far, each NUL-terminated */
	size_t used, cap;
	size_t n;
	char name[PSIPLACE_HOSTLIST_MAX_NAME + 1];
};

static int fail(const struct ctx *c, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(const struct ctx *c, size_t pos, const char *fmt, ...)
{
	char why[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return psiplace_seterr_at(c->err, c->what, c->s, pos, ACCEPTED, "%s", why);
}

static int is_sep(char ch)
{
	return ch == ',' || ch == ' ' || ch == '\t' || ch == '\n';
}

static int is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

static int is_namech(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || is_digit(ch) ||
	       ch == '-' || ch == '_' || ch == '.';
}

/* A number of at most MAX_DIGITS digits at *pos; *width = its digit count. */
static int number(const struct ctx *c, size_t *pos, unsigned long *v, int *width)
{
	size_t start = *pos;

	if (!is_digit(c->s[*pos]))
		return fail(c, *pos, "expected a number");
	*v = 0;
	while (is_digit(c->s[*pos])) {
		if (*pos - start == MAX_DIGITS)
			return fail(c, start, "number longer than %d digits", MAX_DIGITS);
		*v = *v * 10 + (unsigned long)(c->s[*pos] - '0');
		(*pos)++;
	}
	*width = (int)(*pos - start);
	return 0;
}

/* "LO" or "LO-HI" inside a bracket; the width of LO pads every value. */
static int range(const struct ctx *c, size_t *pos, unsigned long *lo,
		 unsigned long *hi, int *width)
{
	size_t start = *pos;
	int hiwidth;

	if (number(c, pos, lo, width) < 0)
		return -1;
	*hi = *lo;
	if (c->s[*pos] != '-')
		return 0;
	(*pos)++;
	if (number(c, pos, hi, &hiwidth) < 0)
		return -1;
	if (*hi < *lo)
		return fail(c, start, "range %lu-%lu runs backwards", *lo, *hi);
	if (*hi - *lo >= PSIPLACE_HOSTLIST_MAX_HOSTS)
		return fail(c, start, "range of more than %u hosts", PSIPLACE_HOSTLIST_MAX_HOSTS);
	return 0;
}

/* Check the bracket opening at open; *close = position of its ']'. */
static int bracket_check(const struct ctx *c, size_t open, size_t *close)
{
	unsigned long lo, hi;
	size_t p = open + 1;
	int width;

	while (c->s[p] && c->s[p] != ']')
		p++;
	if (!c->s[p])
		return fail(c, open, "unclosed '['");
	for (p = open + 1;;) {
		if (range(c, &p, &lo, &hi, &width) < 0)
			return -1;
		if (c->s[p] == ']') {
			*close = p;
			return 0;
		}
		if (c->s[p] != ',')
			return fail(c, p, "unexpected character in brackets");
		p++;
	}
}

/* Append name[0..len) to the result. */
static int emit(struct ctx *c, size_t len, size_t pos)
{
	size_t need = c->used + len + 1;
	char *nb;

	if (c->n == PSIPLACE_HOSTLIST_MAX_HOSTS)
		return fail(c, pos, "more than %u hosts", PSIPLACE_HOSTLIST_MAX_HOSTS);
	if (need > PSIPLACE_HOSTLIST_MAX_BYTES)
		return fail(c, pos, "host names longer than %u bytes in all",
			    PSIPLACE_HOSTLIST_MAX_BYTES);
	if (need > c->cap) {
		size_t cap = c->cap ? c->cap : 256;
		while (cap < need)
			cap *= 2;
		nb = realloc(c->buf, cap);
		if (!nb)
			return fail(c, pos, "out of memory");
		c->buf = nb;
		c->cap = cap;
	}
	memcpy(c->buf + c->used, c->name, len);
	c->buf[c->used + len] = '\0';
	c->used = need;
	c->n++;
	return 0;
}

static int term(struct ctx *c, size_t pos, size_t len, int depth, size_t *end);

/* Every value of the bracket at open, each followed by the rest of the term. */
static int bracket(struct ctx *c, size_t open, size_t len, int depth, size_t *end)
{
	const size_t room = sizeof(c->name) - len;
	unsigned long lo, hi, v;
	size_t close = 0, p;
	int width, k;

	if (depth == PSIPLACE_HOSTLIST_MAX_BRACKETS)
		return fail(c, open, "more than %d brackets in one name",
			    PSIPLACE_HOSTLIST_MAX_BRACKETS);
	if (bracket_check(c, open, &close) < 0)
		return -1;
	for (p = open + 1; p < close; p++) {
		range(c, &p, &lo, &hi, &width); /* checked above */
		for (v = lo; v <= hi; v++) {
			k = snprintf(c->name + len, room, "%0*lu", width, v);
			if (k < 0 || (size_t)k >= room)
				return fail(c, open, "host name longer than %d bytes",
					    PSIPLACE_HOSTLIST_MAX_NAME);
			if (term(c, close + 1, len + (size_t)k, depth + 1, end) < 0)
				return -1;
		}
	}
	return 0;
}

/* Expand the term at pos, name[0..len) being the text before it;
 * *end = where the term ends. */
static int term(struct ctx *c, size_t pos, size_t len, int depth, size_t *end)
{
	char ch;

	for (;; pos++) {
		ch = c->s[pos];
		if (!ch || is_sep(ch)) {
			*end = pos;
			return emit(c, len, pos);
		}
		if (ch == '[')
			return bracket(c, pos, len, depth, end);
		if (ch == ']')
			return fail(c, pos, "']' without '['");
		if (!is_namech(ch))
			return fail(c, pos, "unexpected character");
		if (len == PSIPLACE_HOSTLIST_MAX_NAME)
			return fail(c, pos, "host name longer than %d bytes",
				    PSIPLACE_HOSTLIST_MAX_NAME);
		c->name[len++] = ch;
	}
}

/* Point host[] at the names in buf. */
static int index_names(struct ctx *c, struct psiplace_hostlist *out)
{
	size_t i, off = 0;

	out->host = malloc(c->n * sizeof(*out->host));
	if (!out->host)
		return psiplace_seterr(c->err, "%s: out of memory for %zu hosts",
				       c->what, c->n);
	for (i = 0; i < c->n; i++) {
		out->host[i] = c->buf + off;
		off += strlen(c->buf + off) + 1;
	}
	out->n = c->n;
	out->buf = c->buf;
	return 0;
}

int psiplace_hostlist_expand(const char *s, const char *what,
			     struct psiplace_hostlist *out, psiplace_error_t *err)
{
	struct ctx c = { .s = s ? s : "", .what = what ? what : "host list",
			 .err = err };
	size_t pos = 0, end;

	memset(out, 0, sizeof(*out));
	if (strnlen(c.s, PSIPLACE_HOSTLIST_MAX_INPUT + 1) > PSIPLACE_HOSTLIST_MAX_INPUT)
		return psiplace_seterr(err, "%s: value longer than %u bytes",
				       c.what, PSIPLACE_HOSTLIST_MAX_INPUT);
	while (c.s[pos]) {
		if (is_sep(c.s[pos])) {
			pos++;
			continue;
		}
		if (term(&c, pos, 0, 0, &end) < 0)
			goto fail;
		pos = end;
	}
	if (!c.n) {
		psiplace_seterr(err, "%s: no host names; accepted: %s", c.what, ACCEPTED);
		goto fail;
	}
	if (index_names(&c, out) == 0)
		return 0;
fail:
	free(c.buf);
	return -1;
}

void psiplace_hostlist_free(struct psiplace_hostlist *h)
{
	if (!h)
		return;
	free(h->host);
	free(h->buf);
	memset(h, 0, sizeof(*h));
}
