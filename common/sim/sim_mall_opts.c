/* Malleable jobs' options (psiplace/sim.h): the rule that makes a trace's
 * jobs malleable, the range, the decision interval, the resize cost and
 * the efficiency, as the command line gives them; and the sacct Comment
 * tag that says a traced job was malleable. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/resize_decision.h"
#include "psiplace/sim.h"
#include "psiplace/textparse.h"

/* The cost model's defaults (doc/simulate.md, "The cost of a resize"): a
 * least-squares line through Open MPI 4.1's Merge expansions 1 -> 2, 2 ->
 * 4, 1 -> 4 (0.37, 0.91, 0.83 s: 0.24 + 0.23 s a node added), and TS's
 * shrinks with the nodes given back (0.22 + 0.20, 0.20 + 0.19 s for 2 and
 * 3 nodes released: 0.40 s, no trend with the count). */
#define GROW_BASE 0.24
#define GROW_PER_NODE 0.23
#define SHRINK_BASE 0.40
#define SHRINK_PER_NODE 0.0

void psiplace_sim_malleable_init(struct psiplace_sim_malleable *m)
{
	memset(m, 0, sizeof(*m));
	m->range_lo = 0.5;
	m->range_hi = 2.0;
	m->interval = 5;
	m->min_interval = PSIPLACE_RDEC_MIN_INTERVAL_DEFAULT;
	m->grow_base = GROW_BASE;
	m->grow_per_node = GROW_PER_NODE;
	m->shrink_base = SHRINK_BASE;
	m->shrink_per_node = SHRINK_PER_NODE;
	m->efficiency = 1.0;
}

static int bad(psiplace_error_t *err, const char *flag, const char *value, const char *accepted)
{
	return psiplace_seterr(err, "--%s: '%s' is not accepted; accepted: %s", flag, value,
			       accepted);
}

/* Split s at ',' into at most max numbers (doubles); the count, or -1. */
static int numbers(const char *s, double *out, int max)
{
	int n = 0;

	for (const char *p = s;; n++) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);

		if (n == max || !l || !psiplace_parse_double(p, l, &out[n]) || !isfinite(out[n]))
			return -1;
		if (!e)
			return n + 1;
		p = e + 1;
	}
}

#define RULE_ACCEPTED \
	"fraction=F (0 < F <= 1) with an optional ,seed=N; min-nodes=N (N >= 1); trace"

static int rule(struct psiplace_sim_malleable *m, const char *v, psiplace_error_t *err)
{
	char buf[256], *sp = NULL;
	bool frac = false, seed = false, minn = false, trace = false;
	uint64_t u;

	if (strlen(v) >= sizeof(buf) || !*v)
		return bad(err, "malleable", v, RULE_ACCEPTED);
	strcpy(buf, v);
	for (char *w = strtok_r(buf, ",", &sp); w; w = strtok_r(NULL, ",", &sp)) {
		char *eq = strchr(w, '=');
		const char *val = eq ? eq + 1 : "";
		size_t kl = eq ? (size_t)(eq - w) : strlen(w);

		if (kl == 8 && !strncmp(w, "fraction", 8) && !frac &&
		    psiplace_parse_double(val, strlen(val), &m->fraction) && m->fraction > 0 &&
		    m->fraction <= 1)
			frac = true;
		else if (kl == 4 && !strncmp(w, "seed", 4) && !seed &&
			 psiplace_parse_u64(val, strlen(val), UINT64_MAX, &m->seed))
			seed = true;
		else if (kl == 9 && !strncmp(w, "min-nodes", 9) && !minn &&
			 psiplace_parse_u64(val, strlen(val), 100000000, &u) && u >= 1) {
			m->min_nodes = (uint32_t)u;
			minn = true;
		} else if (!eq && !strcmp(w, "trace") && !trace)
			trace = true;
		else
			return bad(err, "malleable", v, RULE_ACCEPTED);
	}
	if (frac + minn + trace != 1 || (seed && !frac))
		return bad(err, "malleable", v, RULE_ACCEPTED);
	m->rule = frac   ? PSIPLACE_SIM_MALL_FRACTION
		  : minn ? PSIPLACE_SIM_MALL_MIN_NODES
			 : PSIPLACE_SIM_MALL_TRACE;
	return 0;
}

int psiplace_sim_malleable_option(struct psiplace_sim_malleable *m, const char *flag,
				  const char *value, psiplace_error_t *err)
{
	double d[4];
	uint64_t u;

	if (!flag || !value)
		return psiplace_seterr(err, "malleable option: no flag or value");
	if (!strcmp(flag, "malleable"))
		return rule(m, value, err);
	if (!strcmp(flag, "malleable-range")) {
		if (numbers(value, d, 2) != 2 || !(d[0] > 0) || d[0] > 1 || d[1] < 1 || d[1] > 1000)
			return bad(err, flag, value,
				   "LO,HI, multiples of a job's nodes: 0 < LO <= 1 <= HI <= 1000");
		m->range_lo = d[0];
		m->range_hi = d[1];
		return 0;
	}
	if (!strcmp(flag, "resize-interval") || !strcmp(flag, "resize-min-interval")) {
		bool iv = !strcmp(flag, "resize-interval");

		if (!psiplace_parse_u64(value, strlen(value), 86400, &u) || (iv && !u))
			return bad(err, flag, value,
				   iv ? "a whole number of seconds, 1 to 86400"
				      : "a whole number of seconds, 0 to 86400");
		*(iv ? &m->interval : &m->min_interval) = (int64_t)u;
		return 0;
	}
	if (!strcmp(flag, "resize-cost")) {
		if (numbers(value, d, 4) != 4 ||
		    !(d[0] >= 0 && d[1] >= 0 && d[2] >= 0 && d[3] >= 0) || d[0] > 86400 ||
		    d[1] > 86400 || d[2] > 86400 || d[3] > 86400)
			return bad(err, flag, value,
				   "GROW_BASE,GROW_PER_NODE,SHRINK_BASE,SHRINK_PER_NODE, seconds, "
				   "each 0 to 86400");
		m->grow_base = d[0];
		m->grow_per_node = d[1];
		m->shrink_base = d[2];
		m->shrink_per_node = d[3];
		return 0;
	}
	if (!strcmp(flag, "resize-efficiency")) {
		if (numbers(value, d, 1) != 1 || !(d[0] > 0) || d[0] > 1)
			return bad(err, flag, value, "a number, 0 < E <= 1");
		m->efficiency = d[0];
		return 0;
	}
	return psiplace_seterr(err, "malleable option: unknown flag '%s'", flag);
}

/* Where s (n bytes) holds KEY at the start or after ' ', ',' or ';'; the
 * position after KEY, or n + 1. */
static size_t tag_at(const char *s, size_t n, const char *key)
{
	const size_t kl = strlen(key);
	size_t i;

	for (i = 0; i + kl <= n; i++)
		if (!memcmp(s + i, key, kl) &&
		    (i == 0 || s[i - 1] == ' ' || s[i - 1] == ',' || s[i - 1] == ';'))
			return i + kl;
	return n + 1;
}

/* "psiplace-malleable=" is what job_submit/psiplace writes into a malleable
 * job's AdminComment (and psiplace-malleabled writes back after an order):
 * an export of a real malleable workload carries it; "psi-malleable=" is
 * the short form a user may put in --comment. */
int psiplace_sim_malleable_tag(const char *s, size_t n, uint32_t *min, uint32_t *max)
{
	uint64_t a, b;
	size_t i, j, dash;

	i = tag_at(s, n, "psiplace-malleable=");
	if (i > n)
		i = tag_at(s, n, "psi-malleable=");
	if (i > n)
		return 0;
	for (j = i; j < n && s[j] != ' ' && s[j] != ',' && s[j] != ';'; j++)
		;
	for (dash = i; dash < j && s[dash] != '-'; dash++)
		;
	if (dash == j || !psiplace_parse_u64(s + i, dash - i, 1000000, &a) ||
	    !psiplace_parse_u64(s + dash + 1, j - dash - 1, 1000000, &b) || a < 1 || a > b)
		return -1;
	*min = (uint32_t)a;
	*max = (uint32_t)b;
	return 1;
}
