/* The client side (srun, sbatch, salloc): gather the request before the
 * client reads its environment, translate it into Slurm's own input
 * variables, and pass node choice to slurmctld. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "psiplace/error.h"
#include "psiplace/ctld_request.h"
#include "psiplace/lama_launch.h"
#include "psiplace/request_launch.h"
#include "spank_ctx.h"

#define ctx psiplace_spank
#define CMDLINE_MAX (1 << 20)

static const char *real_getenv(const char *name, void *arg)
{
	(void)arg;
	return getenv(name);
}

/* The client's own argv: SPANK gives plugins none in slurm_spank_init. */
static int read_cmdline(int *argc, char ***argv, psiplace_error_t *err)
{
	char *buf = malloc(CMDLINE_MAX);
	size_t len = 0;
	ssize_t got;
	int fd, rc;

	if (!buf)
		return psiplace_seterr(err, "command line: out of memory");
	if ((fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC)) < 0) {
		free(buf);
		return psiplace_seterr(err, "cannot read /proc/self/cmdline: %s", strerror(errno));
	}
	while (len < CMDLINE_MAX && (got = read(fd, buf + len, CMDLINE_MAX - len)) > 0)
		len += (size_t)got;
	close(fd);
	rc = psiplace_cmdline_split(buf, len, argc, argv, err);
	free(buf);
	return rc;
}

/* sbatch reads #SBATCH directives after slurm_spank_init: psiplace reads
 * them first (as the user: this is the client).  They count least. */
static int script_options(const char *path, struct psiplace_opts *opts,
			  struct psiplace_slurm_cmdline *slurm, psiplace_error_t *err)
{
	struct psiplace_opts script;
	struct stat st;
	char *buf;
	ssize_t got;
	size_t len = 0;
	int fd, rc;

	fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0; /* sbatch reports a missing script itself */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !(buf = malloc(PSIPLACE_SCRIPT_MAX))) {
		close(fd);
		return 0;
	}
	while (len < PSIPLACE_SCRIPT_MAX && (got = read(fd, buf + len, PSIPLACE_SCRIPT_MAX - len)) > 0)
		len += (size_t)got;
	close(fd);
	psiplace_opts_init(&script);
	rc = psiplace_batch_script_scan(buf, len, &script, slurm, err);
	free(buf);
	if (rc == 0 && psiplace_opts_merge_missing(opts, &script) < 0)
		rc = psiplace_seterr(err, "batch script options: out of memory");
	psiplace_opts_free(&script);
	return rc;
}

static enum psiplace_client client_of(const char *argv0)
{
	const char *b = argv0 ? strrchr(argv0, '/') : NULL;

	if (spank_context() == S_CTX_LOCAL)
		return PSIPLACE_CLIENT_SRUN;
	b = b ? b + 1 : (argv0 ? argv0 : "");
	return !strcmp(b, "salloc") ? PSIPLACE_CLIENT_SALLOC : PSIPLACE_CLIENT_SBATCH;
}

/* One host a line for srun's arbitrary distribution: Slurm wants a file. */
static int write_hostfile(char *const *name, size_t n, const char *why, psiplace_error_t *err)
{
	const char *tmp = getenv("TMPDIR");
	FILE *f;
	size_t i;
	int fd;

	snprintf(ctx.hostfile, sizeof(ctx.hostfile), "%s/psiplace-hostfile-XXXXXX",
		 tmp && *tmp && strlen(tmp) < 200 ? tmp : "/tmp");
	if ((fd = mkstemp(ctx.hostfile)) < 0 || !(f = fdopen(fd, "w"))) {
		ctx.hostfile[0] = '\0';
		return psiplace_seterr(err, "%s: cannot write the task layout file: %s", why,
				       strerror(errno));
	}
	for (i = 0; i < n; i++)
		fprintf(f, "%s\n", name[i]);
	if (fclose(f) != 0) {
		unlink(ctx.hostfile);
		ctx.hostfile[0] = '\0';
		return psiplace_seterr(err, "%s: cannot write the task layout file", why);
	}
	return 0;
}

static int setenv_said(const char *name, const char *value, bool verbose, psiplace_error_t *err)
{
	if (setenv(name, value, 1) < 0)
		return psiplace_seterr(err, "cannot set %s: %s", name, strerror(errno));
	if (verbose)
		fprintf(stderr, "psiplace: %s=%s\n", name, value);
	return 0;
}

/* srun in a job knows the allocation: when LAMA's order over it is
 * neither block nor cyclic, ask Slurm for it rank by rank. */
static int lama_over_allocation(const struct psiplace_user_request *r,
				const struct psiplace_slurm_cmdline *sl, bool verbose, psiplace_error_t *err)
{
	struct psiplace_lama_opts o;
	struct psiplace_lama_ask a;
	psiplace_error_t e;
	bool ask;
	int rc = 0;

	/* Bad LAMA strings: nothing to ask here, the step reports them. */
	if (psiplace_lama_opts_of_request(r, &o, &e) < 0)
		return 0;
	if (psiplace_lama_ask_load(&o, sl ? sl->ntasks : -1, sl ? sl->nnodes : -1, ctx.site.topology_file,
				   real_getenv, NULL, &a, &ask, err) < 0)
		return -1;
	if (!ask)
		return 0;
	if (verbose)
		fprintf(stderr, "psiplace: LAMA's node order over the allocation is neither block nor cyclic: asking for it rank by rank\n");
	if (write_hostfile(a.host, a.ntasks, r->place_why, err) < 0 ||
	    setenv_said("SLURM_DISTRIBUTION", "arbitrary", verbose, err) < 0 ||
	    setenv_said("SLURM_HOSTFILE", ctx.hostfile, verbose, err) < 0 ||
	    setenv_said("PSIPLACE_LAMA_LAYOUT", a.layout, verbose, err) < 0)
		rc = -1;
	psiplace_lama_ask_free(&a);
	return rc;
}

static void say_notes(const char (*notes)[PSIPLACE_ERRLEN], unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		fprintf(stderr, "psiplace: %s\n", notes[i]);
}

static int translate(const struct psiplace_user_request *r, enum psiplace_client client,
		     const struct psiplace_slurm_cmdline *slurm, psiplace_error_t *err)
{
	struct psiplace_slurm_env se;
	bool verbose = ctx.verbose || r->verbose;
	/* Before psiplace sets any: what the user chose for Slurm's layout. */
	bool own_layout = (slurm->set & (PSIPLACE_SLURM_DISTRIBUTION | PSIPLACE_SLURM_NODELIST)) ||
			  getenv("SLURM_DISTRIBUTION") || getenv("SLURM_HOSTFILE") ||
			  r->nodeset == PSIPLACE_NODESET_HOSTFILE;
	unsigned i;

	/* sbatch/salloc: steps re-read PSI_HOSTFILE themselves; a temporary
	 * file would be gone before they start. */
	if (r->nodeset == PSIPLACE_NODESET_HOSTFILE && client == PSIPLACE_CLIENT_SRUN &&
	    write_hostfile(r->hosts.name, r->hosts.n, r->nodeset_from, err) < 0)
		return -1;
	psiplace_user_request_slurm_env(r, client, ctx.slurm_release, ctx.new_job, ctx.site.psi_strict, slurm,
				   real_getenv, NULL, ctx.hostfile[0] ? ctx.hostfile : NULL, &se);
	for (i = 0; i < se.n; i++) {
		if (setenv(se.var[i].name, se.var[i].value, 1) < 0)
			return psiplace_seterr(err, "cannot set %s: %s", se.var[i].name,
					       strerror(errno));
		if (verbose)
			fprintf(stderr, "psiplace: %s=%s\n", se.var[i].name, se.var[i].value);
	}
	if (verbose)
		say_notes((const char (*)[PSIPLACE_ERRLEN])se.notes, se.nnotes);
	if (r->place && r->lama && client == PSIPLACE_CLIENT_SRUN && !ctx.new_job && !own_layout)
		return lama_over_allocation(r, slurm, verbose, err);
	return 0;
}

static void drop_overridden_inherited(const struct psiplace_opts *own)
{
	char names[2][128];
	int i;

	for (i = 0; i < PSIPLACE_OPT_COUNT; i++) {
		if (own->val[i] || !psiplace_opt_step_overrides(i, real_getenv, NULL))
			continue;
		psiplace_opt_inherited_names(i, names);
		unsetenv(names[0]);
		unsetenv(names[1]);
	}
}

static void partition_from_env(struct psiplace_slurm_cmdline *sl, enum psiplace_client client)
{
	const char *v = getenv(client == PSIPLACE_CLIENT_SRUN     ? "SLURM_PARTITION"
			       : client == PSIPLACE_CLIENT_SALLOC ? "SALLOC_PARTITION"
								  : "SBATCH_PARTITION");

	if (!sl->partition[0] && v && strlen(v) < sizeof(sl->partition))
		strcpy(sl->partition, v);
}

int spank_submit_init(spank_t sp)
{
	psiplace_error_t err;
	char **argv = NULL;
	struct psiplace_opts opts;
	struct psiplace_user_request_src src = { real_getenv, NULL, &opts, &ctx.site, true };
	enum psiplace_client client;
	struct psiplace_slurm_cmdline slurm = { .ntasks = -1, .nnodes = -1, .cpus_per_task = -1 };
	enum psiplace_lama_dist dist;
	int argc = 0, rc = -1;

	(void)sp;
	psiplace_opts_init(&opts);
	ctx.hostfile[0] = '\0';
	if (read_cmdline(&argc, &argv, &err) < 0 ||
	    psiplace_cmdline_scan(argc, argv, &opts, &slurm, &err) < 0)
		goto out;
	/* srun in a job: a PSI variable of the step beats the option the job
	 * was given; Slurm must not read the inherited option either (it
	 * would reach slurmstepd). */
	if (spank_context() == S_CTX_LOCAL && getenv("SLURM_JOB_ID"))
		drop_overridden_inherited(&opts);
	/* every --psi-pset of the command line, for slurmstepd */
	if (opts.val[PSIPLACE_OPT_PSET] &&
	    setenv(PSIPLACE_ENV_PSETS, opts.val[PSIPLACE_OPT_PSET], 1) < 0) {
		psiplace_seterr(&err, "%s: %s", PSIPLACE_ENV_PSETS, strerror(errno));
		goto out;
	}
	/* Slurm's own order: command line > environment (options inherited
	 * from an enclosing allocation) > #SBATCH directives. */
	if (psiplace_opts_from_inherited(real_getenv, NULL, &opts) < 0) {
		psiplace_seterr(&err, "inherited options: out of memory");
		goto out;
	}
	client = client_of(argc > 0 ? argv[0] : NULL);
	ctx.het = psiplace_cmdline_is_het(argc, argv);
	/* the partition: command line > environment > #SBATCH */
	partition_from_env(&slurm, client);
	if (client == PSIPLACE_CLIENT_SBATCH && !slurm.wrap && slurm.operand < argc &&
	    script_options(argv[slurm.operand], &opts, &slurm, &err) < 0)
		goto out;
	psiplace_slurm_cmdline_env_gres(&slurm, client, real_getenv, NULL);
	memcpy(ctx.partition, slurm.partition, sizeof(ctx.partition));
	ctx.new_job = client != PSIPLACE_CLIENT_SRUN || !getenv("SLURM_JOB_ID");
	if (psiplace_user_request_gather(&src, &ctx.req, &err) < 0)
		goto out;
	ctx.have_req = true;
	/* Bad LAMA strings fail here, before anything is submitted. */
	if (ctx.req.lama && psiplace_lama_request_dist(&ctx.req, &dist, &err) < 0)
		goto out;
	if (psiplace_user_request_check_het(&ctx.req, ctx.het, &err) < 0 ||
	    psiplace_user_request_check_cpus(&ctx.req, client, &slurm, real_getenv, NULL, &err) < 0 ||
	    psiplace_user_request_check_malleable(&ctx.req, ctx.new_job, &slurm, &err) < 0)
		goto out;
	if (ctx.req.warning[0])
		fprintf(stderr, "psiplace: warning: %s\n", ctx.req.warning);
	if (ctx.verbose || ctx.req.verbose)
		say_notes((const char (*)[PSIPLACE_ERRLEN])ctx.req.notes, ctx.req.nnotes);
	rc = translate(&ctx.req, client, &slurm, &err);
out:
	if (rc < 0)
		spank_user_error("%s", err.text);
	psiplace_opts_free(&opts);
	psiplace_argv_free(argv);
	return rc;
}

/* What srun's environment was set from; must not change once the option
 * callbacks have run. */
static void signature(const struct psiplace_user_request *r, char *buf, size_t len)
{
	enum psiplace_lama_dist d = PSIPLACE_LAMA_DIST_ARBITRARY;
	psiplace_error_t err;

	if (r->place && r->lama && psiplace_lama_request_dist(r, &d, &err) < 0)
		d = PSIPLACE_LAMA_DIST_ARBITRARY;
	/* the malleable range too: its -N check ran on the command-line scan */
	snprintf(buf, len,
		 "tpp=%u loop=%d excl=%d overbook=%d nodeset=%d place=%d wait=%d lama=%d mall=%u-%u",
		 r->place && !r->lama ? r->tpp : 1, r->loop_nodes_first, r->exclusive, r->overbook,
		 (int)r->nodeset, r->place, r->wait, (int)d, r->mall_min, r->mall_max);
}

static int send_node_choice(spank_t sp, const struct psiplace_user_request *r)
{
	const char *name[4];
	char *value[4];
	psiplace_error_t err;
	size_t n, i;
	int rc = 0;

	if (psiplace_ctld_request_env_of_request(r, name, value, &n, &err) < 0) {
		spank_user_error("%s", err.text);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (!rc && spank_job_control_setenv(sp, name[i], value[i], 1) != ESPANK_SUCCESS) {
			spank_user_error("%s: cannot pass the request to slurmctld",
					 r->nodeset_from ? r->nodeset_from : "PSI node choice");
			rc = -1;
		}
		free(value[i]);
	}
	return rc;
}

/* The PSI node set against the cluster's node table, whose order numbers
 * the PSI ids: an unknown host or id is refused here, before submission,
 * with the test slurmctld applies (RELIABILITY R5).  When the table cannot
 * be read, slurmctld refuses such a job itself. */
static int check_node_set(const struct psiplace_user_request *r, psiplace_error_t *err)
{
	node_info_msg_t *msg = NULL;
	struct psiplace_ctld_request c;
	const char **names;
	uint32_t *cand = NULL;
	size_t ncand = 0, i;
	int rc;

	if (!r->nnode_ids && !r->hosts.n)
		return 0;
	if (slurm_load_node((time_t)0, &msg, SHOW_ALL) != SLURM_SUCCESS || !msg)
		return 0;
	if (!(names = calloc(msg->record_count ? msg->record_count : 1, sizeof(*names)))) {
		slurm_free_node_info_msg(msg);
		return psiplace_seterr(err, "out of memory");
	}
	for (i = 0; i < msg->record_count; i++)
		names[i] = msg->node_array[i].name ? msg->node_array[i].name : "";
	psiplace_ctld_request_init(&c);
	c.psi_node_ids = r->node_ids;      /* borrowed */
	c.npsi_node_ids = r->nnode_ids;
	c.psi_hosts = r->hosts;
	rc = psiplace_ctld_request_candidates(&c, names, msg->record_count, NULL, &cand, &ncand, err);
	free(cand);
	free(names);
	slurm_free_node_info_msg(msg);
	if (rc < 0) { /* "PSI_HOSTS: ..." as slurmctld says it; name what the user gave */
		psiplace_error_t e = *err;
		const char *tail = strstr(e.text, ": ");

		return psiplace_seterr(err, "%s%s", r->nodeset_from ? r->nodeset_from : "PSI node set",
				       tail ? tail : e.text);
	}
	return 0;
}

/* MAX within what the job's partition can give (slurmctld's partition
 * records; sbatch/salloc/srun are clients, asking blocks no daemon).  When
 * they cannot be read, submission fails or succeeds on its own. */
static int check_malleable_limit(const struct psiplace_user_request *r, psiplace_error_t *err)
{
	partition_info_msg_t *msg = NULL;
	struct psiplace_partition_size *p;
	const char *which;
	uint32_t limit;
	size_t i;
	int rc;

	if (!r->mall_max || slurm_load_partitions((time_t)0, &msg, SHOW_ALL) != SLURM_SUCCESS || !msg)
		return 0;
	if (!(p = calloc(msg->record_count ? msg->record_count : 1, sizeof(*p)))) {
		slurm_free_partition_info_msg(msg);
		return psiplace_seterr(err, "out of memory");
	}
	for (i = 0; i < msg->record_count; i++) {
		const partition_info_t *q = &msg->partition_array[i];

		p[i].name = q->name;
		p[i].max_nodes = q->max_nodes == INFINITE ? 0 : q->max_nodes;
		p[i].total_nodes = q->total_nodes;
		p[i].is_default = q->flags & PART_FLAG_DEFAULT;
	}
	limit = psiplace_partition_node_limit(ctx.partition, p, msg->record_count, &which);
	rc = psiplace_user_request_check_malleable_limit(r, true, limit, which, err);
	free(p);
	slurm_free_partition_info_msg(msg);
	return rc;
}

static int send_malleable(spank_t sp, const struct psiplace_user_request *r)
{
	char v[32];

	snprintf(v, sizeof(v), "%u-%u", r->mall_min, r->mall_max);
	if (spank_job_control_setenv(sp, PSIPLACE_ENV_MALLEABLE, v, 1) != ESPANK_SUCCESS) {
		spank_user_error("%s: cannot pass the request to slurmctld", r->malleable_from);
		return -1;
	}
	return 0;
}

int spank_submit_post_opt(spank_t sp)
{
	psiplace_error_t err;
	char before[128], after[128];
	struct psiplace_user_request_src src = { real_getenv, NULL, &ctx.cbopts, &ctx.site, true };
	struct psiplace_user_request r;

	if (!ctx.have_req)
		return 0;
	/* The callbacks saw every option Slurm parsed, including forms the
	 * command-line scan cannot (abbreviations); they are authoritative. */
	if (psiplace_user_request_gather(&src, &r, &err) < 0) {
		spank_user_error("%s", err.text);
		return -1;
	}
	signature(&ctx.req, before, sizeof(before));
	signature(&r, after, sizeof(after));
	if (strcmp(before, after)) {
		spank_user_error("--psi-* options: Slurm parsed an option psiplace could not read before Slurm read its environment (an abbreviated name, or a batch script on standard input); write psiplace's options out in full (e.g. --psi-tpp=2) on the command line or in a script file");
		psiplace_user_request_free(&r);
		return -1;
	}
	psiplace_user_request_free(&ctx.req);
	ctx.req = r;
	if (ctx.new_job && (check_node_set(&ctx.req, &err) < 0 || check_malleable_limit(&ctx.req, &err) < 0)) {
		spank_user_error("%s", err.text);
		return -1;
	}
	if (ctx.new_job && send_node_choice(sp, &ctx.req) < 0)
		return -1;
	/* The job's PRIORITYF (validated in gather); it implies PRIORITY. */
	if (ctx.new_job && ctx.req.priority &&
	    spank_job_control_setenv(sp, PSIPLACE_ENV_ALLOC_PRIORITY, ctx.req.priority, 1) != ESPANK_SUCCESS) {
		spank_user_error("--psi-alloc-priority: cannot pass the request to slurmctld");
		return -1;
	}
	/* The malleable range, for the decider (not yet written: issue 31). */
	if (ctx.new_job && ctx.req.mall_max && send_malleable(sp, &ctx.req) < 0)
		return -1;
	if ((ctx.verbose || ctx.req.verbose) && ctx.req.place)
		fprintf(stderr, "psiplace: psiplace places the tasks (%s)\n", ctx.req.place_why);
	return 0;
}

void spank_submit_exit(void)
{
	if (ctx.hostfile[0]) {
		unlink(ctx.hostfile);
		ctx.hostfile[0] = '\0';
	}
	if (ctx.have_req)
		psiplace_user_request_free(&ctx.req);
	ctx.have_req = false;
}
