/* psiplace simulate --svg: two panels, the wait-time CDF of each policy
 * (log-scaled seconds) and each policy's utilisation over time (allocated
 * CPUs / the cluster's, in 200 bins).  One polyline per policy and panel,
 * class "cdf" or "util" and data-policy naming it, so that a test (or a
 * script) can find them; with malleable replays a second, dashed one per
 * policy and panel in the same colour, data-variant "malleable" (the
 * rigid one's is "rigid").  PNG: rsvg-convert -o chart.png chart.svg. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_output.h"

#define W 460.0   /* a panel's plot area */
#define H 300.0
#define ML 60.0   /* margins */
#define MT 40.0
#define GAP 120.0
#define BINS 200
#define CDF_POINTS 200

static const char *const colour[] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
				      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf" };

/* The curves: np rigid ones, or with malleable replays 2 np (rigid and
 * malleable of each policy, one after the other). */
struct curves {
	const enum psiplace_policy *pol;
	const struct psiplace_sim_report *reps, *mreps;
	int np;
};

static int ncurves(const struct curves *c)
{
	return c->mreps ? 2 * c->np : c->np;
}

static const struct psiplace_sim_report *curve(const struct curves *c, int x)
{
	return c->mreps ? (x % 2 ? &c->mreps[x / 2] : &c->reps[x / 2]) : &c->reps[x];
}

static void polyline(FILE *f, const struct curves *c, int x, const char *cls, double width)
{
	int p = c->mreps ? x / 2 : x;

	fprintf(f, "<polyline class=\"%s\" data-policy=\"%s\"%s fill=\"none\" stroke=\"%s\" "
		"stroke-width=\"%.1f\"%s points=\"", cls, psiplace_policy_name(c->pol[p]),
		!c->mreps ? "" : x % 2 ? " data-variant=\"malleable\"" : " data-variant=\"rigid\"",
		colour[p % 10], width, c->mreps && x % 2 ? " stroke-dasharray=\"6,3\"" : "");
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double lx(double wait, double maxlog)
{
	return W * log10(1.0 + wait) / maxlog;
}

/* The sorted waits of rep's started jobs; count in *k (NULL: no memory). */
static double *waits_of(const struct psiplace_sim_trace *t, const struct psiplace_sim_report *rep,
			size_t *k)
{
	double *w = malloc((t->n + 1) * sizeof(*w));

	*k = 0;
	if (!w)
		return NULL;
	for (size_t i = 0; i < t->n; i++)
		if (rep->res[i].start >= 0) {
			int64_t d = rep->res[i].start - t->jobs[i].eligible;

			w[(*k)++] = d > 0 ? (double)d : 0;
		}
	qsort(w, *k, sizeof(*w), cmp_double);
	return w;
}

static void axes(FILE *f, double x0, const char *title, const char *xlabel, const char *ylabel)
{
	fprintf(f, "<g transform=\"translate(%.0f,%.0f)\">\n", x0, MT);
	fprintf(f, "<text x=\"%.0f\" y=\"-14\" text-anchor=\"middle\" font-size=\"15\">%s</text>\n",
		W / 2, title);
	fprintf(f, "<rect width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#333\"/>\n", W, H);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\" font-size=\"12\">%s</text>\n",
		W / 2, H + 36, xlabel);
	fprintf(f, "<text transform=\"translate(-42,%.0f) rotate(-90)\" text-anchor=\"middle\" "
		"font-size=\"12\">%s</text>\n", H / 2, ylabel);
	for (int q = 0; q <= 4; q++)
		fprintf(f, "<text x=\"-6\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\">%d%%</text>\n",
			H - H * q / 4 + 4, q * 25);
}

static void cdf_panel(FILE *f, const struct psiplace_sim_trace *t, const struct curves *c)
{
	double maxw = 1, maxlog;

	for (int p = 0; p < ncurves(c); p++)
		maxw = curve(c, p)->wait_p95 > maxw ? curve(c, p)->wait_p95 : maxw;
	for (int p = 0; p < ncurves(c); p++) { /* the longest wait, not only p95 */
		size_t k;
		double *w = waits_of(t, curve(c, p), &k);

		if (w && k && w[k - 1] > maxw)
			maxw = w[k - 1];
		free(w);
	}
	maxlog = ceil(log10(1.0 + maxw));
	maxlog = maxlog < 1 ? 1 : maxlog;
	axes(f, ML, "Wait time, CDF per policy", "wait (seconds, log scale)", "jobs started");
	for (int e = 0; e <= (int)maxlog; e++) /* 0, 10, 100 ... */
		fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\" font-size=\"11\">%.0f</text>\n",
			e ? fmin(W, lx(pow(10, e), maxlog)) : 0.0, H + 16, e ? pow(10, e) : 0.0);
	for (int p = 0; p < ncurves(c); p++) {
		size_t k;
		double *w = waits_of(t, curve(c, p), &k);

		polyline(f, c, p, "cdf", 1.5);
		for (int q = 0; w && k && q <= CDF_POINTS; q++) {
			size_t r = (size_t)((double)q / CDF_POINTS * (double)(k - 1));

			fprintf(f, "%s%.1f,%.1f", q ? " " : "", lx(w[r], maxlog),
				H - H * (double)(r + 1) / (double)k);
		}
		fputs("\"/>\n", f);
		free(w);
	}
	fputs("</g>\n", f);
}

/* Allocated CPUs of rep in BINS bins over [t0, t1), as shares of cpus. */
static void util_bins(const struct psiplace_sim_trace *t, const struct psiplace_sim_report *rep,
		      int64_t t0, int64_t t1, double cpus, double *bin)
{
	double width = (double)(t1 - t0) / BINS;

	memset(bin, 0, BINS * sizeof(*bin));
	for (size_t i = 0; i < t->n; i++) {
		const struct psiplace_sim_result *r = &rep->res[i];
		double s, e;

		if (r->start < 0)
			continue;
		s = (double)(r->start - t0) / width;
		e = (double)(r->end - t0) / width;
		for (int b = (int)s; b < BINS && b <= (int)e; b++) {
			double lo = fmax(s, b), hi = fmin(e, b + 1);

			if (hi > lo)
				bin[b] += (hi - lo) * (double)t->jobs[i].cpus / cpus;
		}
	}
}

static void util_panel(FILE *f, const struct psiplace_sim_trace *t,
		       const struct psiplace_nodetable *nodes, const struct curves *c)
{
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;
	double cpus = 0, bin[BINS];

	for (size_t i = 0; i < nodes->n; i++)
		cpus += nodes->nodes[i].power ? nodes->nodes[i].cpus : 0;
	for (int p = 0; p < ncurves(c); p++)
		for (size_t i = 0; i < t->n; i++)
			if (curve(c, p)->res[i].start >= 0) {
				t0 = t->jobs[i].eligible < t0 ? t->jobs[i].eligible : t0;
				t1 = curve(c, p)->res[i].end > t1 ? curve(c, p)->res[i].end : t1;
			}
	if (t0 >= t1)
		t0 = 0, t1 = 1;
	axes(f, ML + W + GAP, "Utilisation over time", "time since the first job (hours)",
	     "CPUs allocated");
	for (int q = 0; q <= 4; q++)
		fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\" font-size=\"11\">%.3g</text>\n",
			W * q / 4, H + 16, (double)(t1 - t0) * q / 4 / 3600.0);
	for (int p = 0; p < ncurves(c); p++) {
		util_bins(t, curve(c, p), t0, t1, cpus > 0 ? cpus : 1, bin);
		polyline(f, c, p, "util", 1.2);
		for (int b = 0; b < BINS; b++)
			fprintf(f, "%s%.1f,%.1f", b ? " " : "", W * (b + 0.5) / BINS,
				H - H * fmin(bin[b], 1.0));
		fputs("\"/>\n", f);
	}
	fputs("</g>\n", f);
}

int sim_svg(const char *path, const struct psiplace_sim_trace *t,
	    const struct psiplace_nodetable *nodes, const enum psiplace_policy *pol,
	    const struct psiplace_sim_report *reps, const struct psiplace_sim_report *mreps, int np)
{
	const struct curves c = { pol, reps, mreps, np };
	double width = ML + 2 * W + GAP + 200, height = MT + H + 60;
	FILE *f = fopen(path, "w");

	if (!f) {
		fprintf(stderr, "psiplace: error: --svg: cannot write '%s'\n", path);
		return 1;
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" font-family=\"DejaVu Sans, Arial, sans-serif\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", width, height, width, height);
	cdf_panel(f, t, &c);
	util_panel(f, t, nodes, &c);
	for (int p = 0; p < np; p++) /* the legend */
		fprintf(f, "<g transform=\"translate(%.0f,%.0f)\"><line x2=\"24\" stroke=\"%s\" "
			"stroke-width=\"3\"/><text x=\"30\" y=\"4\" font-size=\"12\">%s</text></g>\n",
			ML + 2 * W + GAP + 20, MT + 10 + 20.0 * p, colour[p % 10],
			psiplace_policy_name(pol[p]));
	if (mreps)
		fprintf(f, "<g transform=\"translate(%.0f,%.0f)\"><line x2=\"24\" stroke=\"#333\" "
			"stroke-width=\"2\" stroke-dasharray=\"6,3\"/><text x=\"30\" y=\"4\" "
			"font-size=\"12\">malleable (solid: rigid)</text></g>\n",
			ML + 2 * W + GAP + 20, MT + 10 + 20.0 * np);
	fputs("</svg>\n", f);
	if (fclose(f) != 0) {
		fprintf(stderr, "psiplace: error: --svg: cannot write '%s'\n", path);
		return 1;
	}
	return 0;
}
