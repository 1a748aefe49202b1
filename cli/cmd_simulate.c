/* psiplace simulate: a workload trace (sacct export or SWF) replayed on a
 * cluster (rank's CSV node table or scontrol show node -o, psiplace.conf,
 * the plugstack line) under each policy, with the library's engine
 * (common/sim/, doc/simulate.md). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "sim_output.h"
#include "psiplace/error.h"
#include "psiplace/nodetable.h"
#include "psiplace/plugstack_line.h"
#include "psiplace/policy.h"
#include "psiplace/priorityf.h"
#include "psiplace/psiplace_conf.h"
#include "psiplace/readfile.h"
#include "psiplace/sim.h"
#include "psiplace/textparse.h"

static const char sim_usage[] =
	"simulate --trace FILE [--trace-format auto|sacct|swf] (--table TABLE.csv | --scontrol FILE) "
	"[--psiconf FILE] [--plugstack FILE] [--policy A,B,...] [--order priority|submit] "
	"[--backfill easy|slurm] [--trace-starts] [--trace-nodes] [--bf-window SECONDS] [--bf-depth N] [--bf-interval SECONDS] [--speed-scaling[=REF]] [--exclusive] [--lenient] "
	"[--overrun kill|run] [--reserve node|count] [--swf-procs allocated|requested] "
	"[--seed N] [--malleable fraction=F[,seed=N]|min-nodes=N|trace] [--malleable-range LO,HI] "
	"[--resize-interval SECONDS] [--resize-min-interval SECONDS] "
	"[--resize-cost GROW_BASE,GROW_PER_NODE,SHRINK_BASE,SHRINK_PER_NODE] [--resize-efficiency E] "
	"[--format table|json|csv] [--jobs-csv FILE] [--resizes-csv FILE] [--svg FILE]";

struct sim_args {
	const char *trace, *trace_format, *table, *scontrol, *psiconf, *plugstack, *policy,
		*order, *backfill, *bf_window, *bf_depth, *bf_interval, *speed, *seed, *format, *jobs_csv, *resizes_csv, *svg,
		*overrun, *swf_procs, *reserve, *mall[6];
	int exclusive, lenient, speed_given, trace_starts, trace_nodes;
};

enum { O_TRACE = 256, O_TFORMAT, O_TABLE, O_SCONTROL, O_PSICONF, O_PLUGSTACK, O_POLICY, O_ORDER,
       O_BACKFILL, O_BFWIN, O_BFDEPTH, O_BFINT, O_SPEED, O_SEED, O_FORMAT, O_JOBSCSV, O_RESIZESCSV, O_SVG, O_EXCL, O_LENIENT, O_TSTARTS,
       O_TNODES, O_OVERRUN, O_SWFPROCS, O_RESERVE, O_MALL /* O_MALL + 0..5: mall_flags[] */ };

/* The malleable flags, in sim_args.mall[]'s order; psiplace_sim_malleable_option() reads them. */
static const char *const mall_flags[6] = { "malleable", "malleable-range", "resize-interval",
					   "resize-min-interval", "resize-cost", "resize-efficiency" };

static const struct option longopts[] = {
	{ "trace", required_argument, NULL, O_TRACE },
	{ "trace-format", required_argument, NULL, O_TFORMAT },
	{ "table", required_argument, NULL, O_TABLE },
	{ "scontrol", required_argument, NULL, O_SCONTROL },
	{ "psiconf", required_argument, NULL, O_PSICONF },
	{ "plugstack", required_argument, NULL, O_PLUGSTACK },
	{ "policy", required_argument, NULL, O_POLICY },
	{ "order", required_argument, NULL, O_ORDER },
	{ "backfill", required_argument, NULL, O_BACKFILL },
	{ "bf-window", required_argument, NULL, O_BFWIN },
	{ "bf-depth", required_argument, NULL, O_BFDEPTH },
	{ "bf-interval", required_argument, NULL, O_BFINT },
	{ "speed-scaling", optional_argument, NULL, O_SPEED },
	{ "seed", required_argument, NULL, O_SEED },
	{ "format", required_argument, NULL, O_FORMAT },
	{ "jobs-csv", required_argument, NULL, O_JOBSCSV },
	{ "resizes-csv", required_argument, NULL, O_RESIZESCSV },
	{ "svg", required_argument, NULL, O_SVG },
	{ "exclusive", no_argument, NULL, O_EXCL },
	{ "lenient", no_argument, NULL, O_LENIENT },
	{ "trace-starts", no_argument, NULL, O_TSTARTS },
	{ "trace-nodes", no_argument, NULL, O_TNODES },
	{ "overrun", required_argument, NULL, O_OVERRUN },
	{ "swf-procs", required_argument, NULL, O_SWFPROCS },
	{ "reserve", required_argument, NULL, O_RESERVE },
	{ "malleable", required_argument, NULL, O_MALL },
	{ "malleable-range", required_argument, NULL, O_MALL + 1 },
	{ "resize-interval", required_argument, NULL, O_MALL + 2 },
	{ "resize-min-interval", required_argument, NULL, O_MALL + 3 },
	{ "resize-cost", required_argument, NULL, O_MALL + 4 },
	{ "resize-efficiency", required_argument, NULL, O_MALL + 5 },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_args(int argc, char **argv, struct sim_args *a)
{
	const char **slot;
	int c, li;

	optind = 1;
	while ((c = cli_getopt(argc, argv, longopts, &li, "simulate")) != -1) {
		switch (c) {
		case CLI_OPT_HELP:
			printf("usage: psiplace %s\n", sim_usage);
			return 1;
		case CLI_OPT_BAD:
			return 2;
		case O_EXCL: a->exclusive = 1; continue;
		case O_LENIENT: a->lenient = 1; continue;
		case O_TSTARTS: a->trace_starts = 1; continue;
		case O_TNODES: a->trace_nodes = 1; continue;
		case O_SPEED:
			if (a->speed_given)
				return cli_usage_error("--speed-scaling given twice");
			a->speed_given = 1;
			a->speed = optarg;
			continue;
		case O_TRACE: slot = &a->trace; break;
		case O_TFORMAT: slot = &a->trace_format; break;
		case O_TABLE: slot = &a->table; break;
		case O_SCONTROL: slot = &a->scontrol; break;
		case O_PSICONF: slot = &a->psiconf; break;
		case O_PLUGSTACK: slot = &a->plugstack; break;
		case O_POLICY: slot = &a->policy; break;
		case O_ORDER: slot = &a->order; break;
		case O_BACKFILL: slot = &a->backfill; break;
		case O_BFWIN: slot = &a->bf_window; break;
		case O_BFDEPTH: slot = &a->bf_depth; break;
		case O_BFINT: slot = &a->bf_interval; break;
		case O_SEED: slot = &a->seed; break;
		case O_FORMAT: slot = &a->format; break;
		case O_SVG: slot = &a->svg; break;
		case O_OVERRUN: slot = &a->overrun; break;
		case O_SWFPROCS: slot = &a->swf_procs; break;
		case O_RESERVE: slot = &a->reserve; break;
		case O_JOBSCSV: slot = &a->jobs_csv; break;
		case O_RESIZESCSV: slot = &a->resizes_csv; break;
		default: slot = &a->mall[c - O_MALL]; break;
		}
		if (*slot)
			return cli_usage_error("--%s given twice", longopts[li].name);
		*slot = optarg;
	}
	if (optind < argc)
		return cli_usage_error("simulate: unknown argument '%s'; usage: psiplace %s",
				       argv[optind], sim_usage);
	if (!a->trace)
		return cli_usage_error("simulate: --trace is required; usage: psiplace %s", sim_usage);
	if (!a->table == !a->scontrol)
		return cli_usage_error("simulate: give one of --table and --scontrol; usage: psiplace %s",
				       sim_usage);
	return 0;
}

/* --OPT V, one of two words (OFF the default): *on for ON; 0, or 2 (reported). */
static int two_words(const char *opt, const char *v, const char *off, const char *on, bool *out)
{
	if (v && strcmp(v, off) && strcmp(v, on))
		return cli_usage_error("--%s: '%s' is not accepted; accepted: %s, %s", opt, v, off, on);
	*out = v && !strcmp(v, on);
	return 0;
}

/* The malleable flags into m (o->malleable set when --malleable is
 * given): 0, or 2 (reported). */
static int parse_malleable(const struct sim_args *a, struct psiplace_sim_opts *o,
			   struct psiplace_sim_malleable *m)
{
	psiplace_error_t err;

	psiplace_sim_malleable_init(m);
	for (int i = 0; i < 6; i++) {
		if (!a->mall[i])
			continue;
		if (!a->mall[0])
			return cli_usage_error("--%s: '%s' needs --malleable RULE (which jobs are malleable)",
					       mall_flags[i], a->mall[i]);
		if (psiplace_sim_malleable_option(m, mall_flags[i], a->mall[i], &err) < 0)
			return cli_usage_error("%s", err.text);
	}
	if (a->mall[0] && (o->trace_starts || o->trace_nodes))
		return cli_usage_error("--malleable: '%s' is not replayed with --trace-starts or "
				       "--trace-nodes (the traced starts are rigid jobs' starts)",
				       a->mall[0]);
	if (a->resizes_csv && !a->mall[0])
		return cli_usage_error("--resizes-csv: '%s' needs --malleable RULE (only a malleable "
				       "replay resizes)", a->resizes_csv);
	m->log = a->resizes_csv != NULL;
	o->malleable = a->mall[0] ? m : NULL;
	return 0;
}

/* The option values that are not files: 0, or 2 (reported). */
static int parse_values(const struct sim_args *a, struct psiplace_sim_opts *o,
			enum psiplace_sim_format *tf, int *fmt)
{
	/* the model's numbers: the library's parser (the fuzz target's too) */
	static const char *const flags[] = { "bf-window", "bf-interval", "bf-depth",
					     "speed-scaling", "seed" };
	const char *const values[] = { a->bf_window, a->bf_interval, a->bf_depth, a->speed, a->seed };
	const bool given[] = { a->bf_window, a->bf_interval, a->bf_depth, a->speed_given, a->seed };
	psiplace_error_t err;

	if (!a->trace_format || !strcmp(a->trace_format, "auto"))
		*tf = PSIPLACE_SIM_AUTO;
	else if (!strcmp(a->trace_format, "sacct"))
		*tf = PSIPLACE_SIM_SACCT;
	else if (!strcmp(a->trace_format, "swf"))
		*tf = PSIPLACE_SIM_SWF;
	else
		return cli_usage_error("--trace-format: '%s' is not accepted; accepted: auto, sacct, swf",
				       a->trace_format);
	if (!a->format || !strcmp(a->format, "table"))
		*fmt = 0;
	else if (!strcmp(a->format, "json"))
		*fmt = 1;
	else if (!strcmp(a->format, "csv"))
		*fmt = 2;
	else
		return cli_usage_error("--format: '%s' is not accepted; accepted: table, json, csv",
				       a->format);
	if (two_words("order", a->order, "priority", "submit", &o->submit_order) ||
	    two_words("backfill", a->backfill, "easy", "slurm", &o->plan_all) ||
	    two_words("overrun", a->overrun, "kill", "run", &o->overrun_run) ||
	    two_words("swf-procs", a->swf_procs, "allocated", "requested", &o->swf_requested) ||
	    two_words("reserve", a->reserve, "node", "count", &o->reserve_count))
		return 2;
	if (o->reserve_count && o->plan_all)
		return cli_usage_error("--reserve count: only with --backfill easy (slurm plans specific nodes)");
	for (size_t i = 0; i < sizeof(flags) / sizeof(*flags); i++)
		if (given[i] && psiplace_sim_option(o, flags[i], values[i], &err) < 0)
			return cli_usage_error("%s", err.text);
	o->exclusive = a->exclusive;
	o->trace_starts = a->trace_starts || a->trace_nodes;
	o->trace_nodes = a->trace_nodes;
	return 0;
}

/* The policies to replay: --policy's list, or the cluster line's then the
 * eight others.  Count, or -1 (reported). */
static int policy_list(const char *s, enum psiplace_policy site, enum psiplace_policy *out)
{
	psiplace_error_t err;
	int n = 0;

	if (!s) {
		if (site != PSIPLACE_POLICY_NONE)
			out[n++] = site;
		for (int p = PSIPLACE_POLICY_FIRSTAVAILABLE; p < PSIPLACE_POLICY_COUNT; p++)
			if ((enum psiplace_policy)p != site)
				out[n++] = (enum psiplace_policy)p;
		return n;
	}
	char buf[512], *sp = NULL;

	if (strlen(s) >= sizeof(buf))
		return cli_usage_error("--policy: value longer than 511 bytes"), -1;
	strcpy(buf, s);
	for (char *w = strtok_r(buf, ",", &sp); w; w = strtok_r(NULL, ",", &sp)) {
		if (n == 32)
			return cli_usage_error("--policy: more than 32 policies"), -1;
		if (psiplace_policy_parse(w, "--policy", &out[n], &err) < 0)
			return cli_usage_error("%s", err.text), -1;
		if (out[n] == PSIPLACE_POLICY_NONE)
			return cli_usage_error("--policy: NONE has no engine order to simulate; accepted: "
					       "%s", psiplace_policy_accepted()), -1;
		n++;
	}
	if (!n)
		return cli_usage_error("--policy: empty list; accepted: %s", psiplace_policy_accepted()),
		       -1;
	return n;
}

struct cluster {
	struct psiplace_nodetable t;
	struct psiplace_psiconf pc;
	struct psiplace_siteconf site;
	struct psiplace_priorityf *cluster_f;
};

/* The node table (CSV or scontrol), psiplace.conf over it and the
 * plugstack line, as rank --as-select reads them.  0 or 1 (reported). */
static int read_cluster(const struct sim_args *a, struct cluster *c)
{
	const char *path = a->table ? a->table : a->scontrol;
	psiplace_error_t err;
	char *text;
	size_t len;
	int rc;

	psiplace_psiconf_init(&c->pc);
	psiplace_siteconf_init(&c->site);
	if (psiplace_read_file(path, PSIPLACE_NODETABLE_MAXBYTES, 0, &text, &len, NULL, &err) < 0) {
		fprintf(stderr, "psiplace: error: %s: %s\n", a->table ? "--table" : "--scontrol",
			err.text);
		return 1;
	}
	rc = a->table ? psiplace_nodetable_parse(text, len, path, &c->t, &err)
		      : psiplace_sim_nodetable_from_scontrol(text, len, path, &c->t, &err);
	free(text);
	if (rc < 0) {
		fprintf(stderr, "psiplace: error: %s\n", err.text);
		return 1;
	}
	if (a->psiconf && psiplace_psiconf_read_file(a->psiconf, false, &c->pc, &err) < 0) {
		fprintf(stderr, "psiplace: error: %s\n", err.text);
		return 1;
	}
	for (size_t i = 0; i < c->t.n; i++)
		psiplace_psiconf_apply(psiplace_psiconf_node(&c->pc, c->t.nodes[i].name),
				       &c->t.nodes[i]);
	if (a->plugstack) {
		if (psiplace_siteconf_read_plugstack(a->plugstack, &c->site, &err) < 0) {
			fprintf(stderr, "psiplace: error: --plugstack: %s\n", err.text);
			return 1;
		}
		if (c->site.priority_function &&
		    psiplace_priorityf_compile(c->site.priority_function, "PriorityFunction",
					       &c->cluster_f, &err) < 0) {
			fprintf(stderr, "psiplace: error: --plugstack: %s: %s\n", a->plugstack, err.text);
			return 1;
		}
	}
	return 0;
}

static void cluster_free(struct cluster *c)
{
	psiplace_nodetable_free(&c->t);
	psiplace_psiconf_free(&c->pc);
	psiplace_siteconf_free(&c->site);
	psiplace_priorityf_free(c->cluster_f);
}

static int read_trace(const struct sim_args *a, enum psiplace_sim_format tf,
		      struct psiplace_sim_trace *t)
{
	psiplace_error_t err;
	char *text;
	size_t len;
	int rc;

	if (psiplace_read_file(a->trace, PSIPLACE_SIM_MAXBYTES, 0, &text, &len, NULL, &err) < 0) {
		fprintf(stderr, "psiplace: error: --trace: %s\n", err.text);
		return 1;
	}
	if (psiplace_sim_is_gzip(text, len)) {
		char *plain;

		rc = psiplace_sim_gunzip(text, len, a->trace, &plain, &len, &err);
		free(text);
		if (rc < 0) {
			fprintf(stderr, "psiplace: error: --trace: %s\n", err.text);
			return 1;
		}
		text = plain;
	}
	rc = psiplace_sim_trace_parse(text, len, a->trace, tf, a->lenient, t, &err);
	free(text);
	if (rc < 0) {
		fprintf(stderr, "psiplace: error: %s\n", err.text);
		return 1;
	}
	return 0;
}

/* The progress line on a terminal: the policy and the jobs started. */
static void progress(void *arg, size_t started, size_t jobs)
{
	fprintf(stderr, "\rpsiplace: simulate: %s: %zu of %zu jobs started", (const char *)arg,
		started, jobs);
}

int cmd_simulate(int argc, char **argv)
{
	struct sim_args a = { 0 };
	struct psiplace_sim_opts o = { 0 };
	struct psiplace_sim_trace t = { 0 };
	struct psiplace_sim_report *reps = NULL, *mreps = NULL;
	struct psiplace_sim_malleable mall;
	enum psiplace_policy pol[32];
	enum psiplace_sim_format tf = PSIPLACE_SIM_AUTO;
	struct cluster c = { 0 };
	int rc, fmt = 0, np;

	if ((rc = parse_args(argc, argv, &a)) != 0)
		return rc == 1 ? 0 : rc;
	if ((rc = parse_values(&a, &o, &tf, &fmt)) != 0 || (rc = parse_malleable(&a, &o, &mall)) != 0)
		return rc;
	if ((rc = read_cluster(&a, &c)) != 0 || (rc = read_trace(&a, tf, &t)) != 0)
		goto out;
	if ((np = policy_list(a.policy, c.site.policy, pol)) < 0) {
		rc = 2;
		goto out;
	}
	o.rank.policy_overrides_weight = c.site.policy_overrides_weight;
	o.rank.cluster_priorityf = c.cluster_f;
	if (!(reps = calloc((size_t)np, sizeof(*reps))) ||
	    (o.malleable && !(mreps = calloc((size_t)np, sizeof(*mreps))))) {
		fprintf(stderr, "psiplace: error: simulate: out of memory\n");
		rc = 1;
		goto out;
	}
	struct psiplace_sim_malleable base = mall;

	base.baseline = true; /* the same jobs on whole nodes, never resized */
	for (int x = 0; x < (mreps ? 2 * np : np) && rc == 0; x++) {
		psiplace_error_t err;
		struct psiplace_sim_opts ox = o;
		int i = mreps ? x / 2 : x;
		struct psiplace_sim_report *r = mreps && x % 2 ? &mreps[i] : &reps[i];

		ox.malleable = !mreps ? NULL : x % 2 ? o.malleable : &base; /* rigid, then malleable */
		ox.rank.policy = pol[i];
		if (isatty(STDERR_FILENO)) {
			ox.progress = progress;
			ox.progress_arg = (void *)psiplace_policy_name(pol[i]);
		}
		if (psiplace_sim_run(&t, c.t.nodes, c.t.n, &ox, r, &err) < 0) {
			fprintf(stderr, "psiplace: error: %s: %s\n", psiplace_policy_name(pol[i]), err.text);
			rc = 1;
		}
		if (ox.progress && r->jobs >= 10000)
			fputs("\r\033[K", stderr); /* the line is cleared */
	}
	if (rc == 0)
		rc = sim_print(stdout, fmt, a.trace, &t, &c.t, pol, reps, mreps, np, &o, c.site.policy);
	if (rc == 0 && a.jobs_csv)
		rc = sim_jobs_csv(a.jobs_csv, psiplace_policy_name(pol[0]), &t, &c.t,
				  mreps ? &mreps[0] : &reps[0]);
	if (rc == 0 && a.resizes_csv)
		rc = sim_resizes_csv(a.resizes_csv, psiplace_policy_name(pol[0]), &t, &c.t, &mreps[0]);
	if (rc == 0 && a.svg)
		rc = sim_svg(a.svg, &t, &c.t, pol, reps, mreps, np);
	for (int i = 0; reps && i < np; i++)
		psiplace_sim_report_free(&reps[i]);
	for (int i = 0; mreps && i < np; i++)
		psiplace_sim_report_free(&mreps[i]);
	free(reps);
	free(mreps);
out:
	psiplace_sim_trace_free(&t);
	cluster_free(&c);
	return rc;
}
