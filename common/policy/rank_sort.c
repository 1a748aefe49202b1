/* Sorting and partial selection of rated nodes with an inlined
 * comparison (qsort's indirect calls cost 2-3x on 100k nodes).  Keys are
 * unique (pos breaks every tie), so Hoare partitioning always shrinks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rank_sort.h"

#define SMALL 16

/* Order-preserving map of a double onto uint64_t (ascending); NaN sorts
 * last, -0 equals +0. */
uint64_t psiplace_dkey(double d)
{
	uint64_t u;

	if (isnan(d))
		d = INFINITY;
	if (d == 0.0)
		d = 0.0;
	memcpy(&u, &d, sizeof(u));
	return (u >> 63) ? ~u : u | (1ULL << 63);
}

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
