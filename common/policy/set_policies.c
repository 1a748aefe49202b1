/* Set policies: MAXBALANCE (smallest Speed span) and CONTIGUOUS (first run
 * of consecutive node indexes).  The site weight stays the major key by
 * widening: the set is sought among the nodes of the lowest tier first,
 * then of the two lowest tiers, and so on. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "psiplace/error.h"

#define MAX_WIDENINGS 32 /* tiers tried one by one before sorting them */

static double speed_of(const struct psiplace_node *n)
{
	return isnan(n->speed) ? 0.0 : n->speed;
}

/* s[] keyed by node index only. */
static void by_index(struct psiplace_rated *s, size_t m, const struct psiplace_node *nodes)
{
	size_t i;

	for (i = 0; i < m; i++) {
		s[i].k[0] = s[i].k[1] = s[i].k[2] = s[i].k[3] = 0;
		s[i].idx = nodes[s[i].pos].index;
	}
}

/* MAXBALANCE on s[0..m-1]: the window of k in speed order with the
 * smallest span, ties to the faster window; then the k lowest-index nodes
 * whose speed lies in that window's [lo, hi]. */
static size_t maxbalance_sorted(const struct psiplace_node *nodes, struct psiplace_rated *s,
				size_t m, size_t k, uint32_t *out)
{
	double lo = 0, best = INFINITY;
	size_t i, a = 0, b, w = 0;

	for (i = 0; i < m; i++) {
		s[i].k[0] = psiplace_dkey(speed_of(&nodes[s[i].pos]));
		s[i].k[1] = s[i].k[2] = s[i].k[3] = 0;
		s[i].idx = nodes[s[i].pos].index;
	}
	psiplace_rated_sort(s, m);
	for (i = 0; i + k <= m; i++) {
		double l = speed_of(&nodes[s[i].pos]), span = speed_of(&nodes[s[i + k - 1].pos]) - l;

		if (isnan(span))
			span = INFINITY;
		if (i == 0 || span < best || (span == best && l > lo)) {
			best = span;
			lo = l;
			w = i;
		}
	}
	/* every node with a speed in [lo, hi] qualifies: widen the window */
	for (a = w; a > 0 && s[a - 1].k[0] == s[w].k[0]; a--)
		;
	for (b = w + k; b < m && s[b].k[0] == s[w + k - 1].k[0]; b++)
		;
	by_index(s + a, b - a, nodes);
	psiplace_rated_select(s + a, b - a, k);
	psiplace_rated_sort(s + a, k);
	for (i = 0; i < k; i++)
		out[i] = s[a + i].pos;
	return k;
}

/* MAXBALANCE as above without sorting the nodes, when they have at most
 * MAX_SPEEDS distinct speeds: a window of k in speed order that does not
 * start a run of equal speeds spans at least as much as the one starting
 * that run, with the same lowest speed, so only run starts are tried; the
 * answer depends on the window's lowest and highest speed only. */
#define MAX_SPEEDS 64

static size_t maxbalance(const struct psiplace_node *nodes, struct psiplace_rated *s, size_t m,
			 size_t k, uint32_t *out)
{
	uint64_t key[MAX_SPEEDS], t;
	double val[MAX_SPEEDS], best = INFINITY, lo = 0, tv;
	size_t cnt[MAX_SPEEDS], d = 0, i, j, e, first = 0, lo_run = 0, hi_run = 0, c = 0, tc;

	for (i = 0; i < m; i++) {
		uint64_t x = psiplace_dkey(speed_of(&nodes[s[i].pos]));

		for (j = 0; j < d && key[j] != x; j++)
			;
		if (j == d) {
			if (d == MAX_SPEEDS)
				return maxbalance_sorted(nodes, s, m, k, out);
			key[d] = x, val[d] = speed_of(&nodes[s[i].pos]), cnt[d++] = 0;
		}
		cnt[j]++;
	}
	for (i = 1; i < d; i++) /* speed order */
		for (j = i; j > 0 && key[j] < key[j - 1]; j--) {
			t = key[j], key[j] = key[j - 1], key[j - 1] = t;
			tv = val[j], val[j] = val[j - 1], val[j - 1] = tv;
			tc = cnt[j], cnt[j] = cnt[j - 1], cnt[j - 1] = tc;
		}
	for (j = 0; j < d && first + k <= m; first += cnt[j++]) {
		double span;

		for (e = j, tc = first; tc + cnt[e] <= first + k - 1; tc += cnt[e++])
			; /* e: the run holding the window's last node */
		span = val[e] - val[j];
		if (isnan(span))
			span = INFINITY;
		if (j == 0 || span < best || (span == best && val[j] > lo)) {
			best = span;
			lo = val[j];
			lo_run = j;
			hi_run = e;
		}
	}
	for (i = 0; i < m; i++) { /* every node with a speed in the window */
		uint64_t x = psiplace_dkey(speed_of(&nodes[s[i].pos]));

		if (x >= key[lo_run] && x <= key[hi_run]) {
			s[c] = s[i];
			s[c].k[0] = s[c].k[1] = s[c].k[2] = s[c].k[3] = 0;
			s[c].idx = nodes[s[c].pos].index;
			c++;
		}
	}
	psiplace_rated_select(s, c, k);
	psiplace_rated_sort(s, k);
	for (i = 0; i < k; i++)
		out[i] = s[i].pos;
	return k;
}

/* CONTIGUOUS on s[0..m-1]: the first k of the lowest-index run of
 * consecutive indexes that holds k. */
static size_t contiguous_sorted(const struct psiplace_node *nodes, struct psiplace_rated *s,
				size_t m, size_t k, uint32_t *out)
{
	size_t i, u = 0, run = 0, c;

	by_index(s, m, nodes);
	psiplace_rated_sort(s, m);
	for (i = 0; i < m; i++) /* a duplicate index neither extends nor breaks a run */
		if (!u || s[i].idx != s[u - 1].idx)
			s[u++] = s[i];
	for (i = 0; i < u; i++) {
		run = (i && s[i].idx == s[i - 1].idx + 1) ? run + 1 : 1;
		if (run == k) {
			for (c = 0; c < k; c++)
				out[c] = s[i + 1 - k + c].pos;
			return k;
		}
	}
	return 0;
}

/* CONTIGUOUS as above without sorting, when a table by index (each
 * index's lowest position, as the sort by index and position keeps it)
 * costs less than the sort. */
static size_t contiguous(const struct psiplace_node *nodes, struct psiplace_rated *s, size_t m,
			 size_t k, uint32_t *out)
{
	size_t maxi = 0, i, run = 0, bits = 0;
	uint32_t *at;

	for (i = 0; i < m; i++)
		if (nodes[s[i].pos].index > maxi)
			maxi = nodes[s[i].pos].index;
	for (i = m; i; i >>= 1) /* the sort's cost, m log m, against the table's, maxi */
		bits++;
	if (maxi > 4 * m * bits || !(at = malloc((maxi + 1) * sizeof(*at))))
		return contiguous_sorted(nodes, s, m, k, out);
	memset(at, 0xff, (maxi + 1) * sizeof(*at));
	for (i = 0; i < m; i++) {
		uint32_t x = nodes[s[i].pos].index;

		if (s[i].pos < at[x])
			at[x] = s[i].pos;
	}
	for (i = 0; i <= maxi; i++) {
		run = at[i] != UINT32_MAX ? run + 1 : 0;
		if (run == k) {
			for (size_t c = 0; c < k; c++)
				out[c] = at[i + 1 - k + c];
			free(at);
			return k;
		}
	}
	free(at);
	return 0;
}

static size_t try_set(const struct psiplace_rank_opts *o, const struct psiplace_node *nodes,
		      struct psiplace_rated *s, size_t m, size_t k, uint32_t *out)
{
	if (o->policy == PSIPLACE_POLICY_MAXBALANCE)
		return maxbalance(nodes, s, m, k, out);
	return contiguous(nodes, s, m, k, out);
}

/* The candidates of tiers <= t copied to s; returns their count. */
static size_t upto_tier(const struct psiplace_rated *r, size_t m, uint64_t t,
			struct psiplace_rated *s)
{
	size_t i, c = 0;

	for (i = 0; i < m; i++)
		if (r[i].k[0] <= t)
			s[c++] = r[i];
	return c;
}

/* The smallest tier above t, or false when there is none. */
static bool next_tier(const struct psiplace_rated *r, size_t m, uint64_t t, bool first,
		      uint64_t *next)
{
	bool found = false;
	size_t i;

	for (i = 0; i < m; i++) {
		if ((first || r[i].k[0] > t) && (!found || r[i].k[0] < *next)) {
			*next = r[i].k[0];
			found = true;
		}
	}
	return found;
}

int psiplace_choose_set(const struct psiplace_rank_opts *o, const struct psiplace_node *nodes,
			struct psiplace_rated *r, size_t m, size_t k, uint32_t *out, psiplace_error_t *err)
{
	struct psiplace_rated *s;
	size_t got = 0, c, i, tries = 0;
	uint64_t t = 0;
	bool first = true;

	if (k == 0)
		return 0;
	if (!(s = malloc(m * sizeof(*s) + 1)))
		return psiplace_seterr(err, "out of memory choosing %zu nodes", k);
	/* Few tiers (the usual case): widen one filter pass at a time. */
	while (!got && tries++ < MAX_WIDENINGS && next_tier(r, m, t, first, &t)) {
		first = false;
		if ((c = upto_tier(r, m, t, s)) >= k)
			got = try_set(o, nodes, s, c, k, out);
	}
	if (!got && tries > MAX_WIDENINGS) { /* many tiers: sort by tier once */
		memcpy(s, r, m * sizeof(*s));
		for (i = 0; i < m; i++)
			s[i].k[1] = s[i].k[2] = s[i].k[3] = 0, s[i].idx = 0;
		psiplace_rated_sort(s, m);
		for (c = 0; c < m && !got;) {
			uint64_t tier = s[c].k[0];

			while (c < m && s[c].k[0] == tier)
				c++;
			if (c >= k && s[c - 1].k[0] > t) { /* tiers above those tried */
				struct psiplace_rated *cp = malloc(c * sizeof(*cp));

				if (!cp)
					break;
				memcpy(cp, s, c * sizeof(*cp));
				got = try_set(o, nodes, cp, c, k, out);
				free(cp);
			}
		}
	}
	free(s);
	if (got == k)
		return (int)k;
	if (o->policy == PSIPLACE_POLICY_CONTIGUOUS)
		return psiplace_seterr(err,
				       "CONTIGUOUS: no run of %zu consecutive eligible nodes", k);
	return psiplace_seterr(err, "MAXBALANCE: fewer than %zu eligible nodes", k);
}
