/* psiplace rank: the allocation order the policy engine gives for a node
 * table, the same engine select/psiplace_cons_tres runs.  --plugstack
 * applies a site's psiplace line (NodeAllocationPolicy, PriorityFunction,
 * PolicyOverridesWeight) as the plugin does; --as-select shows what the
 * plugin hands cons_tres: the ranked tier and the weights. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "psiplace/error.h"
#include "psiplace/metrics_file.h"
#include "psiplace/nodetable.h"
#include "psiplace/plugstack_line.h"
#include "psiplace/readfile.h"
#include "psiplace/policy.h"
#include "psiplace/priorityf.h"
#include "psiplace/textparse.h"
#include "psiplace/psiplace_conf.h"
#include "psiplace_version.h"

struct rank_args {
	const char *policy, *priority, *table, *job, *seed, *psiconf, *metrics, *plugstack,
		*partition, *slurm;
	int explain, as_select;
	uint32_t slurm_version; /* --slurm, else the release psiplace was built for */
	uint32_t ranked_tier; /* RankedTier of --plugstack, else the default */
};

static const char rank_usage[] =
	"rank --policy POLICY [--priority EXPR] --table TABLE.csv "
	"[--job nodes=K,cpus=C,mem=M] [--seed N] [--explain] [--psiconf FILE] [--metrics FILE] "
	"[--plugstack FILE] [--partition NAME] [--as-select [--slurm RELEASE]]";

static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	return s && psiplace_parse_u64(s, strlen(s), max, out) ? 0 : -1;
}

/* nodes=K,cpus=C,mem=M, and time=SECONDS, start=SECONDS. */
static int parse_job(const char *s, struct psiplace_job *job)
{
	char buf[256], *sp = NULL, *w;

	if (strlen(s) >= sizeof(buf))
		return cli_usage_error("--job: value longer than 255 bytes");
	strcpy(buf, s);
	for (w = strtok_r(buf, ",", &sp); w; w = strtok_r(NULL, ",", &sp)) {
		char *eq = strchr(w, '=');
		uint64_t v;

		if (!eq || parse_u64(eq + 1, INT32_MAX, &v) < 0)
			return cli_usage_error("--job: '%s' is not KEY=NUMBER; accepted keys: "
					       "nodes, cpus, mem, time, start", w);
		*eq = '\0';
		if (!strcmp(w, "nodes"))
			job->nodes = (uint32_t)v;
		else if (!strcmp(w, "cpus"))
			job->cpus = (uint32_t)v;
		else if (!strcmp(w, "mem"))
			job->mem = v;
		else if (!strcmp(w, "time"))
			job->duration = (int64_t)v;
		else if (!strcmp(w, "start"))
			job->start = (int64_t)v;
		else
			return cli_usage_error("--job: unknown key '%s'; accepted keys: nodes, "
					       "cpus, mem, time, start", w);
	}
	return 0;
}

enum { OPT_POLICY = 256, OPT_PRIORITY, OPT_TABLE, OPT_JOB, OPT_SEED, OPT_PSICONF, OPT_METRICS,
       OPT_PLUGSTACK, OPT_EXPLAIN, OPT_AS_SELECT, OPT_PARTITION, OPT_SLURM };

static const struct option longopts[] = {
	{ "policy", required_argument, NULL, OPT_POLICY },
	{ "priority", required_argument, NULL, OPT_PRIORITY },
	{ "table", required_argument, NULL, OPT_TABLE },
	{ "job", required_argument, NULL, OPT_JOB },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "psiconf", required_argument, NULL, OPT_PSICONF },
	{ "metrics", required_argument, NULL, OPT_METRICS },
	{ "plugstack", required_argument, NULL, OPT_PLUGSTACK },
	{ "explain", no_argument, NULL, OPT_EXPLAIN },
	{ "as-select", no_argument, NULL, OPT_AS_SELECT },
	{ "partition", required_argument, NULL, OPT_PARTITION },
	{ "slurm", required_argument, NULL, OPT_SLURM },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* --slurm MAJOR.MINOR (e.g. 25.05): the release whose sched_weight bits
 * --as-select shows.  0 or 2 (reported). */
static int parse_release(const char *s, uint32_t *out)
{
	uint64_t major, minor;
	const char *dot = strchr(s, '.');

	if (!dot || !psiplace_parse_u64(s, (size_t)(dot - s), 255, &major) ||
	    !psiplace_parse_u64(dot + 1, strlen(dot + 1), 255, &minor) || major < 20)
		return cli_usage_error("--slurm: '%s' is not a Slurm release; accepted: MAJOR.MINOR, "
				       "e.g. 22.05, 25.05", s);
	*out = PSIPLACE_SLURM_VERSION_NUM(major, minor);
	return 0;
}

/* 0 ok, 1 help printed, 2 usage error (reported). */
static int parse_args(int argc, char **argv, struct rank_args *a)
{
	const char **slot;
	int c, li;

	optind = 1;
	while ((c = cli_getopt(argc, argv, longopts, &li, "rank")) != -1) {
		switch (c) {
		case CLI_OPT_HELP:
			printf("usage: psiplace %s\n", rank_usage);
			return 1;
		case CLI_OPT_BAD:
			return 2;
		case OPT_EXPLAIN: a->explain = 1; continue;
		case OPT_AS_SELECT: a->as_select = 1; continue;
		case OPT_POLICY: slot = &a->policy; break;
		case OPT_PRIORITY: slot = &a->priority; break;
		case OPT_TABLE: slot = &a->table; break;
		case OPT_JOB: slot = &a->job; break;
		case OPT_SEED: slot = &a->seed; break;
		case OPT_PSICONF: slot = &a->psiconf; break;
		case OPT_METRICS: slot = &a->metrics; break;
		case OPT_PARTITION: slot = &a->partition; break;
		case OPT_SLURM: slot = &a->slurm; break;
		default: slot = &a->plugstack; break;
		}
		if (*slot)
			return cli_usage_error("--%s given twice", longopts[li].name);
		*slot = optarg;
	}
	if (optind < argc)
		return cli_usage_error("rank: unknown argument '%s'; usage: psiplace %s", argv[optind],
				       rank_usage);
	if (!a->policy && !a->priority && !a->plugstack && !a->partition)
		return cli_usage_error("rank: --policy (or --plugstack, --partition) is required; "
				       "usage: psiplace %s", rank_usage);
	if (a->partition && !a->psiconf)
		return cli_usage_error("rank: --partition '%s' needs --psiconf (the file with the "
				       "PartitionName lines)", a->partition);
	if (!a->table)
		return cli_usage_error("rank: --table is required; usage: psiplace %s", rank_usage);
	if (a->slurm && !a->as_select)
		return cli_usage_error("rank: --slurm '%s' only applies with --as-select", a->slurm);
	return a->slurm ? parse_release(a->slurm, &a->slurm_version) : 0;
}

static int read_file(const char *path, char **text, size_t *len)
{
	psiplace_error_t err;

	if (psiplace_read_file(path, PSIPLACE_NODETABLE_MAXBYTES, 0, text, len, NULL, &err) < 0) {
		fprintf(stderr, "psiplace: error: --table: %s\n", err.text);
		return -1;
	}
	return 0;
}

static int print_result(const struct psiplace_rank_opts *o, const struct psiplace_nodetable *t,
			const uint32_t *order, size_t k, int explain)
{
	char score[64];
	size_t i;

	for (i = 0; i < k; i++) {
		const struct psiplace_node *n = &t->nodes[order[i]];

		if (explain) {
			psiplace_node_score(o, n, score, sizeof(score));
			printf("%s %s\n", n->name, score);
		} else {
			printf("%s\n", n->name);
		}
	}
	return 0;
}

/* What select/psiplace_cons_tres hands cons_tres for this order: the
 * first psiplace_select_distinct() candidates with distinct ranks, the rest
 * in one tier behind them (cons_tres's own order there), with the
 * sched_weight each node gets.  Every node of the table is a candidate, as
 * every node slurmctld offers is one for the plugin: those the policy
 * cannot use (full, powered down) follow the eligible ones.  slurmctld's
 * sched_weight before the plugin (Weight, boot bits of the node's power
 * state) is the release's (--slurm).  A set policy offers cons_tres only
 * its set. */
static void print_as_select(const struct psiplace_rank_opts *o, const struct psiplace_nodetable *t,
			    const uint32_t *order, size_t k, size_t candidates, uint32_t distinct,
			    const uint64_t *ctld)
{
	size_t i;

	if (psiplace_policy_is_set(o->policy)) {
		for (i = 0; i < k; i++)
			printf("%s set\n", t->nodes[order[i]].name);
		return;
	}
	for (i = 0; i < candidates; i++) {
		const struct psiplace_node *n = &t->nodes[order[i]];
		uint32_t rank = i < distinct ? (uint32_t)i : distinct;
		uint64_t w = psiplace_select_sched_weight(ctld[order[i]], rank,
							  o->policy_overrides_weight);

		printf("%s %s %u sched_weight=0x%016llx\n", n->name, i < distinct ? "rank" : "tier",
		       rank, (unsigned long long)w);
	}
}

/* slurmctld's sched_weight of every node (the release's boot bits), and
 * the weight the plugin ranks each with: a powered-down node keeps
 * slurmctld's weight unless the plugin gives it its own back
 * (site_fill_node, inject). */
static uint64_t *ctld_weights(const struct rank_args *a, const struct psiplace_rank_opts *o,
			      struct psiplace_nodetable *t)
{
	uint64_t *w = calloc(t->n ? t->n : 1, sizeof(*w));
	size_t i;

	for (i = 0; w && i < t->n; i++) {
		struct psiplace_node *n = &t->nodes[i];
		uint32_t own = n->weight > UINT32_MAX ? UINT32_MAX : (uint32_t)n->weight;

		w[i] = psiplace_select_ctld_weight(own, n->power_state, a->slurm_version);
		if (psiplace_select_boot_dropped(n->power_state, n->power, !o->ignore_power,
						 a->slurm_version))
			w[i] = psiplace_select_drop_boot(w[i], own, n->power_state,
							 a->slurm_version);
		n->weight = (w[i] >> 8) & 0xffffffffULL;
	}
	return w;
}

static void warn(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "psiplace: warning: %s\n", msg);
}

/* psiplace.conf's Speed, Priority, ChargeRate and PriorityFunction, and
 * the metrics file, over the table's values, as the select plugin does. */
static int overlay(const struct rank_args *a, struct psiplace_nodetable *t,
		   struct psiplace_psiconf *pc, struct psiplace_metrics *m)
{
	psiplace_error_t err;
	size_t i;

	if (a->psiconf && psiplace_psiconf_read_file(a->psiconf, false, pc, &err) < 0) {
		fprintf(stderr, "psiplace: error: %s\n", err.text);
		return -1;
	}
	if (a->metrics &&
	    psiplace_metrics_read_file(a->metrics, m, warn, NULL, &err) < 0) {
		fprintf(stderr, "psiplace: error: %s\n", err.text);
		return -1;
	}
	for (i = 0; i < t->n; i++) {
		struct psiplace_node *n = &t->nodes[i];

		psiplace_psiconf_apply(psiplace_psiconf_node(pc, n->name), n);
		psiplace_metrics_apply(psiplace_metrics_node(m, n->name), n);
	}
	return 0;
}

/* --partition: its PartitionName line's policy and function, as the
 * select plugin takes them for a job Slurm tries in that partition; a
 * job's own --policy or --priority wins.  A partition without a line
 * keeps the cluster default (--plugstack). */
static int apply_partition(const struct rank_args *a, const struct psiplace_psiconf *pc,
			   struct psiplace_rank_opts *o)
{
	const struct psiplace_partconf *part;

	if (!a->partition)
		return 0;
	part = psiplace_psiconf_partition(pc, a->partition);
	if (part && part->priorityf)
		o->cluster_priorityf = part->priorityf;
	if (part && part->has_policy && !a->policy && !a->priority)
		o->policy = part->policy;
	if (o->policy == PSIPLACE_POLICY_NONE)
		return cli_usage_error("rank: partition '%s' has no NodeAllocationPolicy in %s%s; "
				       "give --policy", a->partition, a->psiconf,
				       a->plugstack ? " nor in --plugstack" : "");
	return 0;
}

static int run(const struct rank_args *a, struct psiplace_rank_opts *o,
	       struct psiplace_job *job)
{
	struct psiplace_nodetable t;
	struct psiplace_psiconf pc;
	struct psiplace_metrics m;
	psiplace_error_t err;
	char *text;
	uint32_t *order;
	size_t len, k;
	int rc;

	if (read_file(a->table, &text, &len) < 0)
		return 1;
	rc = psiplace_nodetable_parse(text, len, a->table, &t, &err);
	free(text);
	if (rc < 0) {
		fprintf(stderr, "psiplace: error: %s\n", err.text);
		return 1;
	}
	psiplace_psiconf_init(&pc);
	psiplace_metrics_init(&m);
	if (overlay(a, &t, &pc, &m) < 0 || !(order = calloc(t.n, sizeof(*order)))) {
		psiplace_psiconf_free(&pc);
		psiplace_metrics_free(&m);
		psiplace_nodetable_free(&t);
		return 1;
	}
	if (apply_partition(a, &pc, o) != 0) {
		free(order);
		psiplace_psiconf_free(&pc);
		psiplace_metrics_free(&m);
		psiplace_nodetable_free(&t);
		return 2;
	}
	k = job->nodes;
	if (!k && psiplace_policy_is_set(o->policy))
		k = 1;
	if (a->as_select) {
		uint32_t need = job->nodes ? job->nodes : 1;
		uint32_t distinct = psiplace_select_distinct(need, a->ranked_tier, (uint32_t)t.n);
		uint64_t *ctld = ctld_weights(a, o, &t);

		if (!ctld)
			rc = psiplace_seterr(&err, "out of memory");
		else if (psiplace_policy_is_set(o->policy))
			rc = psiplace_choose(o, t.nodes, t.n, need, order, &err);
		else
			rc = psiplace_rank_partial(o, t.nodes, t.n, distinct, order, &err);
		if (rc < 0)
			fprintf(stderr, "psiplace: error: rank: %s\n", err.text);
		else
			print_as_select(o, &t, order, psiplace_policy_is_set(o->policy) ? (size_t)rc : 0,
					t.n, distinct, ctld);
		free(ctld);
	} else if (k) {
		rc = psiplace_choose(o, t.nodes, t.n, k, order, &err);
	} else if ((rc = psiplace_rank(o, t.nodes, t.n, order, &err)) == 0) {
		for (size_t i = 0; i < t.n; i++) /* every eligible node */
			rc += psiplace_node_eligible_opts(o, &t.nodes[i]);
	}
	if (!a->as_select) {
		if (rc < 0)
			fprintf(stderr, "psiplace: error: rank: %s\n", err.text);
		else
			print_result(o, &t, order, (size_t)rc, a->explain);
	}
	free(order);
	psiplace_psiconf_free(&pc);
	psiplace_metrics_free(&m);
	psiplace_nodetable_free(&t);
	return rc < 0 ? 1 : 0;
}

static int rank_with_site(const struct rank_args *ap, struct psiplace_rank_opts *op,
			  struct psiplace_job *jobp, struct psiplace_priorityf **fp);

int cmd_rank(int argc, char **argv)
{
	struct rank_args a = { 0 };
	struct psiplace_job job = { 0 };
	struct psiplace_rank_opts o = { .job = &job };
	struct psiplace_priorityf *f = NULL, *cluster_f = NULL;
	struct psiplace_siteconf site;
	psiplace_error_t err;
	int rc;

	rc = parse_args(argc, argv, &a);
	if (rc)
		return rc == 1 ? 0 : rc;
	psiplace_siteconf_init(&site);
	a.ranked_tier = site.ranked_tier;
	if (!a.slurm)
		a.slurm_version = PSIPLACE_SLURM_VERSION_NUMBER ? (uint32_t)PSIPLACE_SLURM_VERSION_NUMBER
								: PSIPLACE_SLURM_VERSION_NUM(26, 5);
	if (a.plugstack) {
		/* The site's line, as the select plugin reads it: its policy is the
		 * default a --policy or --priority overrides, as a job's own does. */
		if (psiplace_siteconf_read_plugstack(a.plugstack, &site, &err) < 0) {
			fprintf(stderr, "psiplace: error: --plugstack: %s\n", err.text);
			return 1;
		}
		o.policy = site.policy;
		o.policy_overrides_weight = site.policy_overrides_weight;
		o.ignore_power = !site.prefer_powered_up;
		a.ranked_tier = site.ranked_tier;
		if (site.priority_function &&
		    psiplace_priorityf_compile(site.priority_function, "PriorityFunction", &cluster_f,
					       &err) < 0) {
			fprintf(stderr, "psiplace: error: --plugstack: %s: %s\n", a.plugstack, err.text);
			psiplace_siteconf_free(&site);
			return 1;
		}
		o.cluster_priorityf = cluster_f;
		if (!a.policy && !a.priority && !a.partition && site.policy == PSIPLACE_POLICY_NONE) {
			psiplace_priorityf_free(cluster_f);
			psiplace_siteconf_free(&site);
			return cli_usage_error("rank: %s sets no NodeAllocationPolicy; give --policy",
					       a.plugstack);
		}
	}
	rc = rank_with_site(&a, &o, &job, &f);
	psiplace_priorityf_free(f);
	psiplace_priorityf_free(cluster_f);
	psiplace_siteconf_free(&site);
	return rc;
}

static int rank_with_site(const struct rank_args *ap, struct psiplace_rank_opts *op,
			  struct psiplace_job *jobp, struct psiplace_priorityf **fp)
{
	struct rank_args a = *ap;
	struct psiplace_rank_opts o = *op;
	struct psiplace_job job = *jobp;
	struct psiplace_priorityf *f = NULL;
	psiplace_error_t err;
	int rc;

	o.job = &job;
	if (a.policy && psiplace_policy_parse(a.policy, "--policy", &o.policy, &err) < 0)
		return cli_usage_error("%s", err.text);
	if (a.priority) {
		if (a.policy && o.policy != PSIPLACE_POLICY_PRIORITY)
			return cli_usage_error("--priority implies PRIORITY, but --policy is %s; "
					       "give only one of them", psiplace_policy_name(o.policy));
		o.policy = PSIPLACE_POLICY_PRIORITY;
		if (psiplace_priorityf_compile(a.priority, "--priority", &f, &err) < 0)
			return cli_usage_error("%s", err.text);
		job.priorityf = f;
	}
	if (a.job && parse_job(a.job, &job) != 0) {
		psiplace_priorityf_free(f);
		return 2;
	}
	if (a.seed) {
		if (parse_u64(a.seed, UINT64_MAX, &job.seed) < 0) {
			psiplace_priorityf_free(f);
			return cli_usage_error("--seed: '%s' is not an unsigned integer", a.seed);
		}
	} else {
		job.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	}
	rc = run(&a, &o, &job);
	*fp = f;
	return rc;
}
