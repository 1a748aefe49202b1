/* Sorting and partial selection of rated nodes with an inlined
 * comparison (qsort's indirect calls cost 2-3x on 100k nodes).  Keys are
 * unique (pos breaks every tie), so Hoare partitioning always shrinks.
 * The best k of many nodes: a sample gives a key that a few more than k
 * nodes reach, one pass keeps those, and only they are selected. */
#include <math.h>
#include <stdlib.h>

#include "engine_internal.h"

#define SMALL 16

static int cmp_void(const void *a, const void *b)
{
	return psiplace_rated_cmp(a, b);
}

static void swap(struct psiplace_rated *a, size_t i, size_t j)
{
	struct psiplace_rated t = a[i];

	a[i] = a[j];
	a[j] = t;
}

/* [lo, hi) with hi - lo > SMALL: afterwards [lo, j] <= pivot <= [j+1, hi);
 * returns j, lo <= j < hi - 1. */
static size_t partition(struct psiplace_rated *a, size_t lo, size_t hi)
{
	size_t mid = lo + (hi - lo) / 2, i = lo, j = hi - 1;
	struct psiplace_rated piv;

	if (psiplace_rated_cmp(&a[mid], &a[lo]) < 0)
		swap(a, mid, lo);
	if (psiplace_rated_cmp(&a[hi - 1], &a[lo]) < 0)
		swap(a, hi - 1, lo);
	if (psiplace_rated_cmp(&a[hi - 1], &a[mid]) < 0)
		swap(a, hi - 1, mid);
	piv = a[mid];
	for (;;) {
		while (psiplace_rated_cmp(&a[i], &piv) < 0)
			i++;
		while (psiplace_rated_cmp(&piv, &a[j]) < 0)
			j--;
		if (i >= j)
			return j;
		swap(a, i, j);
		i++;
		j--;
	}
}

static void insertion(struct psiplace_rated *a, size_t lo, size_t hi)
{
	size_t i, j;

	for (i = lo + 1; i < hi; i++) {
		struct psiplace_rated t = a[i];

		for (j = i; j > lo && psiplace_rated_cmp(&t, &a[j - 1]) < 0; j--)
			a[j] = a[j - 1];
		a[j] = t;
	}
}

static void sort_range(struct psiplace_rated *a, size_t lo, size_t hi, int depth)
{
	while (hi - lo > SMALL) {
		size_t j;

		if (depth-- == 0) { /* adversarial input: guaranteed n log n */
			qsort(a + lo, hi - lo, sizeof(*a), cmp_void);
			return;
		}
		j = partition(a, lo, hi);
		if (j + 1 - lo < hi - j - 1) { /* recurse into the smaller side */
			sort_range(a, lo, j + 1, depth);
			lo = j + 1;
		} else {
			sort_range(a, j + 1, hi, depth);
			hi = j + 1;
		}
	}
	insertion(a, lo, hi);
}

static int depth_for(size_t n)
{
	int d = 0;

	while (n >>= 1)
		d++;
	return 2 * d + 2;
}

void psiplace_rated_sort(struct psiplace_rated *a, size_t n)
{
	if (n > 1)
		sort_range(a, 0, n, depth_for(n));
}

void psiplace_rated_select(struct psiplace_rated *a, size_t n, size_t k)
{
	size_t lo = 0, hi = n;
	int depth = depth_for(n);

	while (hi - lo > SMALL && k > lo && k < hi) {
		size_t j;

		if (depth-- == 0) {
			psiplace_rated_sort(a + lo, hi - lo);
			return;
		}
		j = partition(a, lo, hi);
		if (k <= j)
			hi = j + 1;
		else
			lo = j + 1;
	}
	insertion(a, lo, hi);
}

#define SAMPLE 2048

static void rated_at(struct psiplace_rated *r, const uint64_t *k0, const uint64_t *k1,
		     const uint32_t *idx, size_t i)
{
	r->k[0] = k0 ? k0[i] : 0;
	r->k[1] = k1[i];
	r->k[2] = r->k[3] = 0;
	r->idx = idx[i];
	r->pos = (uint32_t)i;
}

/* A key that, judged by an even sample of the eligible nodes, has a few
 * more than k nodes at or below it; false when filtering would not pay. */
static bool threshold(const uint64_t *k0, const uint64_t *k1, const uint32_t *idx,
		      const unsigned char *elig, size_t n, size_t m, size_t k,
		      struct psiplace_rated *thr)
{
	struct psiplace_rated *s;
	size_t stride, i, c = 0;
	double want, r;

	if (m < 4096 || k > m / 8)
		return false;
	if (!(s = malloc((SAMPLE + 1) * sizeof(*s))))
		return false;
	stride = n / SAMPLE ? n / SAMPLE : 1;
	for (i = stride / 2; i < n && c <= SAMPLE; i += stride)
		if (elig[i])
			rated_at(&s[c++], k0, k1, idx, i);
	want = (double)k / (double)m * (double)c;
	r = want + 4.0 * sqrt(want) + 4.0;
	if (c < 256 || r >= (double)c) {
		free(s);
		return false;
	}
	psiplace_rated_select(s, c, (size_t)r + 1);
	psiplace_rated_sort(s, (size_t)r + 1);
	*thr = s[(size_t)r];
	free(s);
	return true;
}

/* Positions of the eligible nodes at or below t in the total order,
 * without branches on the keys (which way they go is data, not pattern). */
static size_t filter(const uint64_t *k0, const uint64_t *k1, const uint32_t *idx,
		     const unsigned char *elig, size_t n, const struct psiplace_rated *t,
		     uint32_t *pos)
{
	size_t i, c = 0;

	for (i = 0; i < n; i++) {
		uint64_t a = k0 ? k0[i] : 0, b = k1[i];
		int tie = (idx[i] < t->idx) | ((idx[i] == t->idx) & (i <= t->pos));
		int in = (a < t->k[0]) |
			 ((a == t->k[0]) & ((b < t->k[1]) | ((b == t->k[1]) & tie)));

		pos[c] = (uint32_t)i;
		c += (size_t)(in & (elig[i] != 0));
	}
	return c;
}

int psiplace_best_k(const uint64_t *k0, const uint64_t *k1, const uint32_t *idx,
		    const unsigned char *elig, size_t n, size_t m, size_t k, uint32_t *pos)
{
	struct psiplace_rated *buf, thr = { { 0 }, 0, 0 };
	uint32_t *keep;
	size_t i, c;

	if (k > m)
		k = m;
	if (!k)
		return 0;
	if (!(keep = malloc(n * sizeof(*keep))))
		return -1;
	c = 0;
	if (threshold(k0, k1, idx, elig, n, m, k, &thr))
		c = filter(k0, k1, idx, elig, n, &thr, keep);
	if (c < k) { /* no threshold, or the sample misled us: every node */
		for (i = 0, c = 0; i < n; i++)
			if (elig[i])
				keep[c++] = (uint32_t)i;
	}
	if (!(buf = malloc(c * sizeof(*buf)))) {
		free(keep);
		return -1;
	}
	for (i = 0; i < c; i++)
		rated_at(&buf[i], k0, k1, idx, keep[i]);
	free(keep);
	psiplace_rated_select(buf, c, k);
	psiplace_rated_sort(buf, k);
	for (i = 0; i < k; i++)
		pos[i] = buf[i].pos;
	free(buf);
	return 0;
}
