/* psiplace spawn-plan: the parallel spawn plan (Hypercube or Iterative
 * Diffusive) for an expansion, from explicit per-node vectors, from a
 * homogeneous node size and process counts, or from the Slurm job the
 * command runs in.  Output: one line per step, or JSON with every group
 * and the host each spawning process passes as MPI_Info "host". */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "commands.h"
#include "psiplace/error.h"
#include "psiplace/hostlist.h"
#include "psiplace/intvec.h"
#include "psiplace/spawnplan.h"
#include "psiplace/textparse.h"

struct opts {
	const char *strategy, *method, *format;
	const char *cores, *running, *oversub, *nodelist;
	const char *cores_per_node, *sources, *targets;
	int from_slurm, json;
};

/* The vectors the plan is computed from, whatever form gave them. */
struct input {
	struct psiplace_intvec cores, running, oversub;
	struct psiplace_hostlist hosts; /* n == 0: no host names known */
};

enum { OPT_STRATEGY = 256, OPT_METHOD, OPT_FORMAT, OPT_CORES, OPT_RUNNING,
       OPT_OVERSUB, OPT_NODELIST, OPT_CPN, OPT_SOURCES, OPT_TARGETS, OPT_SLURM };

static const struct option longopts[] = {
	{ "strategy", required_argument, NULL, OPT_STRATEGY },
	{ "method", required_argument, NULL, OPT_METHOD },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "cores", required_argument, NULL, OPT_CORES },
	{ "running", required_argument, NULL, OPT_RUNNING },
	{ "oversubscribe", required_argument, NULL, OPT_OVERSUB },
	{ "nodelist", required_argument, NULL, OPT_NODELIST },
	{ "cores-per-node", required_argument, NULL, OPT_CPN },
	{ "sources", required_argument, NULL, OPT_SOURCES },
	{ "targets", required_argument, NULL, OPT_TARGETS },
	{ "from-slurm", no_argument, NULL, OPT_SLURM },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const char usage_text[] =
	"usage: psiplace spawn-plan [--strategy diffusive|hypercube] [--method merge|baseline] [--format plain|json]\n"
	"         --cores A1,A2,... --running R1,R2,... [--oversubscribe O1,...] [--nodelist HOSTLIST]\n"
	"       | --cores-per-node C --sources NS --targets NT\n"
	"       | --from-slurm --running R1,R2,... [--oversubscribe O1,...]\n"
	"Vectors take Slurm's N(xK) repetition (4(x2),8). Output: STEP TOTAL GENERATED NODES NEW_NODES.\n"
	"See psiplace(8) and doc/spawn.md.\n";

static void store(struct opts *o, int c, const char *arg)
{
	switch (c) {
	case OPT_STRATEGY: o->strategy = arg; break;
	case OPT_METHOD: o->method = arg; break;
	case OPT_FORMAT: o->format = arg; break;
	case OPT_CORES: o->cores = arg; break;
	case OPT_RUNNING: o->running = arg; break;
	case OPT_OVERSUB: o->oversub = arg; break;
	case OPT_NODELIST: o->nodelist = arg; break;
	case OPT_CPN: o->cores_per_node = arg; break;
	case OPT_SOURCES: o->sources = arg; break;
	case OPT_TARGETS: o->targets = arg; break;
	case OPT_SLURM: o->from_slurm = 1; break;
	}
}

/* 0 ok, 2 usage error (reported), 1 help printed. */
static int parse_args(int argc, char **argv, struct opts *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	optind = 1;
	while ((c = cli_getopt(argc, argv, longopts, NULL, "spawn-plan")) != -1) {
		if (c == CLI_OPT_HELP) {
			fputs(usage_text, stdout);
			return 1;
		}
		if (c == CLI_OPT_BAD)
			return 2;
		store(o, c, optarg);
	}
	if (optind < argc)
		return cli_usage_error("spawn-plan: unexpected argument '%s'", argv[optind]);
	if (o->format && strcmp(o->format, "plain") && strcmp(o->format, "json"))
		return cli_usage_error("--format: '%s' is not an output format; accepted: plain, json", o->format);
	o->json = o->format && !strcmp(o->format, "json");
	return 0;
}

/* A positive count for the hypercube form. */
static int positive(const char *opt, const char *s, int max, int *out)
{
	uint64_t v;

	if (psiplace_parse_u64(s, strlen(s), (uint64_t)max, &v) && v >= 1) {
		*out = (int)v;
		return 0;
	}
	return cli_usage_error("%s: '%s' is not an integer in 1..%d", opt, s, max);
}

static int vector(const char *what, const char *s, struct psiplace_intvec *v, int status)
{
	psiplace_error_t err;

	if (psiplace_intvec_parse(s, what, v, &err) == 0)
		return 0;
	fprintf(stderr, "psiplace: error: %s\n", err.text);
	return status;
}

static int same_length(const char *what, const struct psiplace_intvec *v,
		       size_t n, const char *of)
{
	if (!v->v || v->n == n)
		return 0;
	return cli_usage_error("%s has %zu entries but %s %zu; give one entry per node",
			       what, v->n, of, n);
}

static int form_vectors(const struct opts *o, struct input *in)
{
	psiplace_error_t err;
	int rc;

	if (!o->cores || !o->running)
		return cli_usage_error("spawn-plan: give --cores and --running (or --cores-per-node/--sources/--targets, or --from-slurm)");
	if ((rc = vector("--cores", o->cores, &in->cores, 2)) ||
	    (rc = vector("--running", o->running, &in->running, 2)) ||
	    (o->oversub && (rc = vector("--oversubscribe", o->oversub, &in->oversub, 2))))
		return rc;
	if ((rc = same_length("--running", &in->running, in->cores.n, "--cores has")) ||
	    (rc = same_length("--oversubscribe", &in->oversub, in->cores.n, "--cores has")))
		return rc;
	if (o->nodelist) {
		if (psiplace_hostlist_expand(o->nodelist, "--nodelist", &in->hosts, &err) < 0) {
			fprintf(stderr, "psiplace: error: %s\n", err.text);
			return 2;
		}
		if (in->hosts.n != in->cores.n)
			return cli_usage_error("--nodelist names %zu hosts but --cores has %zu entries; give one host per node",
					       in->hosts.n, in->cores.n);
	}
	return 0;
}

static int fill(struct psiplace_intvec *v, size_t n)
{
	v->n = n;
	v->v = calloc(n, sizeof(*v->v));
	if (v->v)
		return 0;
	fputs("psiplace: error: out of memory\n", stderr);
	return 1;
}

/* Hypercube whole-node rules, said in terms of the options given. */
static int hypercube_counts(const struct opts *o, int c, int ns, int nt, int merge)
{
	if (merge && nt <= ns)
		return cli_usage_error("--targets %d must be larger than --sources %d with --method merge (merge only adds processes)",
				       nt, ns);
	if (!o->strategy || !strcasecmp(o->strategy, "hypercube")) {
		if (nt % c)
			return cli_usage_error("--targets %d is not a multiple of --cores-per-node %d: hypercube spawns whole nodes; use --strategy diffusive",
					       nt, c);
		if (merge && ns % c)
			return cli_usage_error("--sources %d is not a multiple of --cores-per-node %d: hypercube spawns whole nodes; use --strategy diffusive",
					       ns, c);
	}
	return 0;
}

/* NS sources fill nodes of C cores from the first; NT targets likewise. */
static int form_hypercube(const struct opts *o, int merge, struct input *in)
{
	int c, ns, nt, rc;
	size_t n, i;

	if (!o->cores_per_node || !o->sources || !o->targets)
		return cli_usage_error("spawn-plan: --cores-per-node, --sources and --targets go together");
	if ((rc = positive("--cores-per-node", o->cores_per_node, PSIPLACE_INTVEC_MAX_VALUE, &c)) ||
	    (rc = positive("--sources", o->sources, INT_MAX / 2, &ns)) ||
	    (rc = positive("--targets", o->targets, INT_MAX / 2, &nt)) ||
	    (rc = hypercube_counts(o, c, ns, nt, merge)))
		return rc;
	n = (size_t)((ns > nt ? ns : nt) + c - 1) / (size_t)c;
	if (n > PSIPLACE_SPAWN_MAX_NODES)
		return cli_usage_error("spawn-plan: %zu nodes of %d cores, at most %u accepted",
				       n, c, PSIPLACE_SPAWN_MAX_NODES);
	if ((rc = fill(&in->cores, n)) || (rc = fill(&in->running, n)))
		return rc;
	for (i = 0; i < n; i++) {
		long long before = (long long)i * c;
		in->cores.v[i] = (int)(nt - before >= c ? c : (nt > before ? nt - before : 0));
		in->running.v[i] = (int)(ns - before >= c ? c : (ns > before ? ns - before : 0));
	}
	return 0;
}

static int slurm_env(const char *name, const char *alt, const char **out)
{
	*out = getenv(name);
	if (!*out && alt)
		*out = getenv(alt);
	if (*out)
		return 0;
	fprintf(stderr, "psiplace: error: --from-slurm: %s is not set; run inside a Slurm allocation (salloc, sbatch)\n",
		name);
	return 1;
}

static int form_slurm(const struct opts *o, struct input *in)
{
	const char *nodelist, *cpus;
	psiplace_error_t err;
	int rc;

	if (!o->running)
		return cli_usage_error("spawn-plan: --from-slurm needs --running");
	if ((rc = slurm_env("SLURM_JOB_NODELIST", "SLURM_NODELIST", &nodelist)) ||
	    (rc = slurm_env("SLURM_JOB_CPUS_PER_NODE", NULL, &cpus)))
		return rc;
	if (psiplace_hostlist_expand(nodelist, "SLURM_JOB_NODELIST", &in->hosts, &err) < 0 ||
	    psiplace_intvec_parse(cpus, "SLURM_JOB_CPUS_PER_NODE", &in->cores, &err) < 0) {
		fprintf(stderr, "psiplace: error: %s\n", err.text);
		return 1;
	}
	if (in->cores.n != in->hosts.n) {
		fprintf(stderr, "psiplace: error: SLURM_JOB_CPUS_PER_NODE has %zu entries but SLURM_JOB_NODELIST names %zu nodes\n",
			in->cores.n, in->hosts.n);
		return 1;
	}
	if ((rc = vector("--running", o->running, &in->running, 2)) ||
	    (o->oversub && (rc = vector("--oversubscribe", o->oversub, &in->oversub, 2))))
		return rc;
	if ((rc = same_length("--running", &in->running, in->cores.n, "the job's node count is")) ||
	    (rc = same_length("--oversubscribe", &in->oversub, in->cores.n, "the job's node count is")))
		return rc;
	return 0;
}

/* Which of the three forms, and only one of them. */
static int gather(const struct opts *o, int merge, struct input *in)
{
	int explicit = o->cores || o->nodelist;
	int cube = o->cores_per_node || o->sources || o->targets;

	if (explicit + cube + o->from_slurm > 1)
		return cli_usage_error("spawn-plan: --cores/--nodelist, --cores-per-node/--sources/--targets and --from-slurm are different forms; give one");
	if (cube) {
		if (o->running || o->oversub)
			return cli_usage_error("spawn-plan: --running and --oversubscribe do not go with --cores-per-node/--sources/--targets");
		return form_hypercube(o, merge, in);
	}
	if (o->from_slurm)
		return form_slurm(o, in);
	return form_vectors(o, in);
}

static void release(struct input *in)
{
	psiplace_intvec_free(&in->cores);
	psiplace_intvec_free(&in->running);
	psiplace_intvec_free(&in->oversub);
	psiplace_hostlist_free(&in->hosts);
}

static void print_plain(const struct psiplace_spawn_plan *p)
{
	const struct psiplace_spawn_step *st;
	size_t k;

	for (k = 0; k < p->nsteps; k++) {
		st = &p->steps[k];
		if (k == 0)
			printf("0 %d - %d -\n", st->total, st->nodes);
		else
			printf("%d %d %d %d %d\n", st->step, st->total, st->generated, st->nodes,
			       st->new_nodes);
	}
}

int cmd_spawn_plan(int argc, char **argv)
{
	struct psiplace_spawn_request req = { 0 };
	struct psiplace_spawn_plan plan;
	struct input in = { 0 };
	psiplace_error_t err;
	struct opts o;
	int rc;

	if ((rc = parse_args(argc, argv, &o)))
		return rc == 1 ? 0 : rc;
	if (o.strategy && psiplace_spawn_strategy_parse(o.strategy, "--strategy", &req.strategy, &err) < 0)
		return cli_usage_error("%s", err.text);
	if (!o.strategy && o.cores_per_node)
		req.strategy = PSIPLACE_SPAWN_HYPERCUBE;
	if (o.method && psiplace_spawn_method_parse(o.method, "--method", &req.method, &err) < 0)
		return cli_usage_error("%s", err.text);
	if ((rc = gather(&o, req.method == PSIPLACE_SPAWN_MERGE, &in))) {
		release(&in);
		return rc;
	}
	req.nnodes = in.cores.n;
	req.cores = in.cores.v;
	req.running = in.running.v;
	req.oversub = in.oversub.v;
	rc = psiplace_spawn_plan_build(&req, &plan, &err);
	if (rc < 0) {
		fprintf(stderr, "psiplace: error: %s\n", err.text);
		release(&in);
		return 1;
	}
	rc = 0;
	if (!o.json)
		print_plain(&plan);
	else if (spawn_plan_print_json(stdout, &req, &plan, in.hosts.n ? in.hosts.host : NULL) < 0) {
		fprintf(stderr, "psiplace: error: out of memory writing JSON\n");
		rc = 1;
	}
	psiplace_spawn_plan_free(&plan);
	release(&in);
	return rc;
}
