/* Ordered host name lists: built from hostlist expressions, written back
 * compactly for the job environment. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/hostlist.h"
#include "psiplace/hostnames.h"

#define NUM_MAXDIGITS 9

void psiplace_names_init(struct psiplace_names *l)
{
	l->n = 0;
	l->name = NULL;
}

void psiplace_names_free(struct psiplace_names *l)
{
	while (l->n)
		free(l->name[--l->n]);
	free(l->name);
	psiplace_names_init(l);
}

int psiplace_names_push(struct psiplace_names *l, const char *name, size_t len, const char *what,
			psiplace_error_t *err)
{
	if (l->n >= PSIPLACE_NAMES_MAX)
		return psiplace_seterr(err, "%s: more than %d host names", what,
				       PSIPLACE_NAMES_MAX);
	/* Grow by doubling: power-of-two sizes need no separate capacity. */
	if ((l->n & (l->n - 1)) == 0) {
		size_t cap = l->n ? l->n * 2 : 1;
		char **v = realloc(l->name, cap * sizeof(*v));
		if (!v)
			return psiplace_seterr(err, "%s: out of memory", what);
		l->name = v;
	}
	if (!(l->name[l->n] = strndup(name, len)))
		return psiplace_seterr(err, "%s: out of memory", what);
	l->n++;
	return 0;
}

int psiplace_names_add_hostlist(struct psiplace_names *l, const char *expr, const char *what,
				psiplace_error_t *err)
{
	struct psiplace_hostlist h;
	size_t before = l->n, i;

	if (psiplace_hostlist_expand(expr, what, &h, err) < 0)
		return -1;
	for (i = 0; i < h.n; i++)
		if (psiplace_names_push(l, h.host[i], strlen(h.host[i]), what, err) < 0) {
			while (l->n > before)
				free(l->name[--l->n]);
			psiplace_hostlist_free(&h);
			return -1;
		}
	psiplace_hostlist_free(&h);
	return 0;
}

/* Split a name into prefix and trailing decimal number (at most 9 digits). */
static int split_num(const char *name, size_t *plen, unsigned long *num, size_t *width)
{
	size_t n = strlen(name), d = n;

	while (d > 0 && isdigit((unsigned char)name[d - 1]) && n - d < NUM_MAXDIGITS)
		d--;
	if (d == n || (d > 0 && isdigit((unsigned char)name[d - 1])))
		return -1;
	*plen = d;
	*width = n - d;
	*num = strtoul(name + d, NULL, 10);
	return 0;
}

struct out {
	char *buf;
	size_t len, pos;
	int overflow;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(o->buf + o->pos, o->len - o->pos, fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= o->len - o->pos) {
		o->overflow = 1;
		o->pos = o->len - 1;
	} else {
		o->pos += (size_t)k;
	}
}

/* Does name b continue the run [prefix][num+1] of width w?  A zero-padded
 * run needs equal widths; an unpadded one needs no leading zero (a lone 0
 * is not padding: n[0-15]). */
static int continues(const char *b, const char *prefix, size_t plen, unsigned long next, size_t w)
{
	size_t bp, bw;
	unsigned long bn;

	if (split_num(b, &bp, &bn, &bw) < 0 || bp != plen || memcmp(b, prefix, plen) || bn != next)
		return 0;
	if ((w > 1 && prefix[plen] == '0') || (bw > 1 && b[plen] == '0'))
		return bw == w;
	return 1;
}

/* Append the names [i, j) that share one prefix as one bracket. */
static void put_group(struct out *o, const struct psiplace_names *hl, size_t i, size_t j,
		      size_t plen)
{
	size_t k = i;

	put(o, "%.*s[", (int)plen, hl->name[i]);
	while (k < j) {
		size_t m = k, w;
		unsigned long num;

		split_num(hl->name[k], &plen, &num, &w);
		while (m + 1 < j && continues(hl->name[m + 1], hl->name[k], plen, num + (m + 1 - k), w))
			m++;
		put(o, "%s%s", k > i ? "," : "", hl->name[k] + plen);
		if (m > k)
			put(o, "-%s", hl->name[m] + plen);
		k = m + 1;
	}
	put(o, "]");
}

long psiplace_names_format(const struct psiplace_names *hl, char *buf, size_t buflen)
{
	struct out o = { buf, buflen, 0, 0 };
	size_t i = 0, j, plen, w, p2, w2;
	unsigned long num, n2;

	if (!buflen)
		return -1;
	buf[0] = '\0';
	for (; i < hl->n && !o.overflow; i = j) {
		if (i)
			put(&o, ",");
		if (split_num(hl->name[i], &plen, &num, &w) < 0) {
			put(&o, "%s", hl->name[i]);
			j = i + 1;
			continue;
		}
		for (j = i + 1; j < hl->n; j++)
			if (split_num(hl->name[j], &p2, &n2, &w2) < 0 || p2 != plen ||
			    memcmp(hl->name[j], hl->name[i], plen))
				break;
		if (j == i + 1) /* a lone name as is: n8, not n[8] (as Slurm writes it) */
			put(&o, "%s", hl->name[i]);
		else
			put_group(&o, hl, i, j, plen);
	}
	return o.overflow ? -1 : (long)o.pos;
}
