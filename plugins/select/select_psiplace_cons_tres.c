/* select/psiplace_cons_tres: select/cons_tres with Moab-like node
 * allocation policies.
 *
 * Every select_p_* call is forwarded to select/cons_tres.  In
 * select_p_job_test the policy's node ranking becomes node scheduling
 * weights for the duration of the delegated call (cons_tres takes the
 * lowest weight first), restored on every path.  Any internal error falls
 * back to plain cons_tres: this plugin must never crash or stall
 * slurmctld.
 *
 * Locking: select_g_job_test() is called by node_scheduler.c
 * (select_nodes via schedule / the allocate RPCs), job_scheduler.c
 * (job_start_data: will-run RPC) and backfill.c; all of them hold the
 * node write lock, so writing node_ptr->sched_weight here is as safe as
 * slurmctld's own _sync_node_weight().  See doc/select.md. */
#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "src/common/slurm_xlator.h"
#include "src/common/run_in_daemon.h"
#include "slurm_compat.h"

#include "psiplace/error.h"
#include "psiplace/ctld_request.h"
#include "psiplace/nodecache.h"
#include "psiplace/policy.h"
#include "psiplace/plugstack_line.h"
#include "psiplace_version.h"
#include "site_reader.h"
#include "site.h"
#include "topo_leaves.h"
#include "cons_tres_call.h"
#include "shortcuts.h"
#include "expand_cores.h"

const char plugin_name[] = "psiplace: Moab-like node allocation policies over cons_tres";
const char plugin_type[] = PSIPLACE_SEL_TYPE;
/* slurm_compat.h: unique up to 24.11, cons_tres's own id from 25.05. */
const uint32_t plugin_id = PSIPLACE_PLUGIN_ID;
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

#define WARNED_JOBS 4096 /* malformed requests remembered (R8: once per job) */
/* The weights injected for cons_tres: psiplace_select_sched_weight() and
 * psiplace_select_distinct() (policy.h), shared with `psiplace rank
 * --as-select`. */

/* cons_tres's entry points, one typed pointer each (the ops struct is
 * private to Slurm from 24.05 and differs by release: slurm_compat.h). */
struct cons_tres_ops {
	int (*job_test)(PSIPLACE_JOB_TEST_PARAMS);
	int (*reconfigure)(void);
	int (*job_begin)(job_record_t *job_ptr);
	int (*job_expand)(job_record_t *from_job_ptr, job_record_t *to_job_ptr);
#define OPS_FIELD(ret, fail, name, params, args) ret(*name) params;
	PSIPLACE_FWD_ALL(OPS_FIELD)
#undef OPS_FIELD
#define OPS_VOID_FIELD(name, params, args) void(*name) params;
	PSIPLACE_FWD_VOID_FROM_26_05(OPS_VOID_FIELD)
#undef OPS_VOID_FIELD
};

static struct {
	void *handle; /* select_cons_tres.so */
	bool resolved, failed, we_initialized;
	struct cons_tres_ops ops; /* cons_tres's entry points */
	struct site site;         /* plugstack line, psiplace.conf, metrics */
	/* jobs whose malformed request was logged: the most recent ones, so
	 * that each is logged once however often it is scheduled (calls are
	 * serialized by the node write lock) */
	uint32_t warned[WARNED_JOBS];
	unsigned nwarned;
	/* candidate buffers, reused from one decision to the next (every call
	 * runs under the node write lock, so there is one at a time) */
	struct cands c, all; /* candidates; the whole cluster (PSI node choice) */
	uint32_t *all_pos; /* per slurm node index: its position in `all` */
	int all_pos_cap;
	/* What the site's files say about every node, kept between decisions
	 * (doc/select.md, "The node cache"); rebuilt when one of the
	 * generations or the node count changes.  Touched only in job_test
	 * and reconfigure, both under the node write lock. */
	struct psiplace_nodecache cache;
	uint64_t table_gen, conf_gen, metrics_gen;
	/* slurm.conf lets cons_tres choose greedily by weight (no LLN,
	 * busy-first, serial packing or topology plugin): set at init and
	 * reconfigure, which is when slurm.conf is read */
	bool conf_greedy;
	/* TopologyPlugin groups nodes into leaf switches or blocks (set with
	 * conf_greedy); the leaf of every node, built for node table
	 * generation topo_gen - 1 (0: never) */
	bool topo_on, topo_any;
	struct topo_leaves topo;
	uint64_t topo_gen;
	/* with topology.yaml: a table per tree or block topology (25.11+) */
	struct topo_set topos;
	/* the LLN note is logged at the first decision after init or
	 * reconfigure, when the partitions are known */
	bool lln_note_due;
	char *lln_noted; /* the LLN partitions last logged */
} ctx;

static const struct {
	const char *name;
	size_t offset;
} fwd_syms[] = {
	{ "select_p_job_test", offsetof(struct cons_tres_ops, job_test) },
	{ "select_p_reconfigure", offsetof(struct cons_tres_ops, reconfigure) },
	{ "select_p_job_begin", offsetof(struct cons_tres_ops, job_begin) },
	{ "select_p_job_expand", offsetof(struct cons_tres_ops, job_expand) },
#define SYM(ret, fail, name, params, args) { "select_p_" #name, offsetof(struct cons_tres_ops, name) },
	PSIPLACE_FWD_ALL(SYM)
#undef SYM
#define VOID_SYM(name, params, args) { "select_p_" #name, offsetof(struct cons_tres_ops, name) },
	PSIPLACE_FWD_VOID_FROM_26_05(VOID_SYM)
#undef VOID_SYM
};

/* select_cons_tres.so in the running Slurm's PluginDir (a colon list),
 * not a path compiled in: sites install Slurm where they like. */
static char *cons_tres_path(void)
{
	char *dirs = xstrdup(slurm_conf.plugindir), *save = NULL, *d, *found = NULL;

	for (d = dirs ? strtok_r(dirs, ":", &save) : NULL; d && !found;
	     d = strtok_r(NULL, ":", &save)) {
		char *p = NULL;

		xstrfmtcat(p, "%s/select_cons_tres.so", d);
		if (access(p, R_OK) == 0)
			found = p;
		else
			xfree(p);
	}
	xfree(dirs);
	return found;
}

/* Resolve cons_tres on first use, not in init(): up to 24.11 slurmctld
 * loads every select plugin and initializes cons_tres itself, in directory
 * order, so at our init() it may not be loaded yet.  Where Slurm does not
 * load it (slurmd and slurmstepd up to 24.11; everywhere from 25.05) we
 * load and initialize it.  pthread_once makes the first use safe from any
 * thread; after it the context is read-only. */
static pthread_once_t resolve_once = PTHREAD_ONCE_INIT;

static void resolve_now(void)
{
	char *path = cons_tres_path();
	size_t i;

	if (!path) {
		error("%s: no select_cons_tres.so in PluginDir=%s", plugin_type,
		      slurm_conf.plugindir ? slurm_conf.plugindir : "(unset)");
		ctx.failed = true;
		return;
	}
	ctx.handle = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
	if (!ctx.handle) {
		int (*init_f)(void);

		ctx.handle = dlopen(path, RTLD_LAZY | RTLD_GLOBAL);
		if (!ctx.handle) {
			error("%s: cannot load %s: %s", plugin_type, path, dlerror());
			ctx.failed = true;
			xfree(path);
			return;
		}
		init_f = (int (*)(void))dlsym(ctx.handle, "init");
		if (init_f && init_f() != SLURM_SUCCESS) {
			error("%s: select/cons_tres init() failed", plugin_type);
			ctx.failed = true;
			xfree(path);
			return;
		}
		ctx.we_initialized = true;
	}
	xfree(path);
	for (i = 0; i < sizeof(fwd_syms) / sizeof(fwd_syms[0]); i++) {
		void *f = dlsym(ctx.handle, fwd_syms[i].name);

		if (!f) {
			error("%s: select/cons_tres lacks %s", plugin_type, fwd_syms[i].name);
			ctx.failed = true;
			return;
		}
		memcpy((char *)&ctx.ops + fwd_syms[i].offset, &f, sizeof(f));
	}
	ctx.resolved = true;
}

static bool resolve(void)
{
	pthread_once(&resolve_once, resolve_now);
	return ctx.resolved;
}

static void cands_free(struct cands *c)
{
	xfree(c->nodes);
	xfree(c->node_inx);
	xfree(c->saved);
	xfree(c->saved_weight);
	xfree(c->order);
	xfree(c->next_resv);
	memset(c, 0, sizeof(*c));
}

/* The site's files are read by a thread of its own (site_reader.c): the
 * metrics file always, the plugstack line and psiplace.conf when
 * reconfigure asks.  A decision installs what it published. */
static void take_site(void)
{
	struct site *next = site_reader_take_site();

	if (!next)
		return;
	site_keep_metrics(next, &ctx.site);
	site_free(&ctx.site);
	ctx.site = *next;
	free(next);
	ctx.conf_gen++;
}

static void refresh_metrics(void)
{
	if (site_refresh_metrics(&ctx.site))
		ctx.metrics_gen++;
}

/* The cache rows for a policy reading `fields`, rebuilt if stale; NULL
 * when the policy reads nothing of the site's files (or no memory: the
 * caller then reads the files' entries per node). */
static const struct psiplace_node *cached_rows(unsigned fields)
{
	struct psiplace_nodecache_stamp want = {
		.nodes = (uint64_t)node_record_count,
		.table = ctx.table_gen,
		.conf = ctx.conf_gen,
		.metrics = ctx.metrics_gen,
		.fields = fields & (SITE_F_CONF | SITE_F_LOAD),
	};
	psiplace_error_t err;
	int got;

	if (!want.fields || node_record_count <= 0)
		return NULL;
	if (psiplace_nodecache_stale(&ctx.cache, &want)) {
		if ((got = psiplace_nodecache_rebuild(&ctx.cache, &want, &err)) < 0) {
			debug("%s: %s", plugin_type, err.text);
			return NULL;
		}
		site_fill_rows(&ctx.site, (unsigned)got, ctx.cache.rows);
	}
	return ctx.cache.rows;
}

/* What of psiplace_sel_tier_first_ok() slurm.conf decides. */
static bool conf_greedy(void)
{
	const char *topo = slurm_conf.topology_plugin;

	if (slurm_conf.select_type_param & PSIPLACE_SELECT_LLN)
		return false;
	if (xstrcasestr(slurm_conf.sched_params, "bf_busy_nodes") ||
	    xstrcasestr(slurm_conf.sched_params, "pack_serial_at_end"))
		return false;
	return !topo || !topo[0] || !strcmp(topo, "topology/none") ||
	       !strcmp(topo, "topology/default") || !strcmp(topo, "topology/flat");
}

extern int init(void)
{
	psiplace_error_t err;

	memset(&ctx.site, 0, sizeof(ctx.site));
#if !PSIPLACE_SLURM_AT_LEAST(24, 5)
	/* Up to 24.11 our plugin_id is 180, not cons_tres's 109: slurmctld
	 * and srun load every select plugin and die on a duplicate id
	 * (select.c's select_g_init), while slurmd and slurmstepd load only
	 * the configured one and resolve the id packed with each job's
	 * select data against it (select_get_plugin_id_pos).  Up to 23.11
	 * RPCs to slurmd carry that data (24.05 dropped it from
	 * slurm_protocol_pack.c), and a slurmd whose SelectType differs from
	 * slurmctld's fails every one of them: say so where an administrator
	 * switching SelectType looks (tests/integration/test_switch_order.sh). */
	if ((running_in_slurmctld() || running_in_slurmd()) &&
	    !xstrcasecmp(slurm_conf.select_type, plugin_type))
		info("%s: plugin_id %u: slurmctld and every slurmd must name SelectType=%s "
		     "together; a daemon still on another SelectType fails RPCs with job data "
		     "('unknown select plugin id'). Switch with slurmctld stopped and the slurmds "
		     "restarted before it starts (doc/upgrade.md)",
		     plugin_type, (unsigned)plugin_id, plugin_type);
#endif
	if (!running_in_slurmctld())
		return SLURM_SUCCESS;
	if (site_load(&ctx.site, &err) < 0)
		fatal("%s: %s", plugin_type, err.text);
	ctx.conf_greedy = conf_greedy();
	ctx.topo_on = topo_leaves_configured(slurm_conf.topology_plugin);
	ctx.lln_note_due = true;
	if (site_reader_start(ctx.site.psiconf.metrics_file, &err) < 0)
		error("%s: %s; the metrics file is not read until reconfigure starts the "
		      "reader", plugin_type, err.text);
#if PSIPLACE_SLURM_AT_LEAST(25, 11)
	/* 25.11+ dies merging a job without licenses before job_expand below
	 * is asked; job_submit/psiplace's job_modify prevents it
	 * (doc/malleability.md, "Slurm releases that die merging"). */
	if (xstrcasestr(slurm_conf.sched_params, "permit_job_expansion") &&
	    !xstrcasestr(slurm_conf.job_submit_plugins, "psiplace"))
		error("%s: SchedulerParameters=permit_job_expansion without JobSubmitPlugins=psiplace: "
		      "slurmctld %s dies merging a job without licenses (scontrol update JobId=H "
		      "NumNodes=0); add psiplace to JobSubmitPlugins",
		      plugin_type, SLURM_VERSION_STRING);
#endif
	info("%s: psiplace %s built for Slurm %s loaded, NodeAllocationPolicy=%s", plugin_type,
	     PSIPLACE_VERSION, SLURM_VERSION_STRING, psiplace_policy_name(ctx.site.conf.policy));
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	int rc = SLURM_SUCCESS;

	if (ctx.we_initialized && ctx.handle) {
		int (*fini_f)(void) = (int (*)(void))dlsym(ctx.handle, "fini");

		if (fini_f)
			rc = fini_f();
	}
	site_reader_stop();
	site_free(&ctx.site);
	psiplace_nodecache_free(&ctx.cache);
	topo_leaves_free(&ctx.topo);
	topo_set_free(&ctx.topos);
	cands_free(&ctx.c);
	cands_free(&ctx.all);
	xfree(ctx.all_pos);
	ctx.all_pos_cap = 0;
	/* The handle stays open: cons_tres may be Slurm's own instance. */
	xfree(ctx.lln_noted);
	memset(&ctx, 0, sizeof(ctx));
	return rc;
}

/* Log a problem with a job's request once, naming the job. */
static void job_warn(job_record_t *job_ptr, const char *what, const char *msg)
{
	unsigned i, n = ctx.nwarned < WARNED_JOBS ? ctx.nwarned : WARNED_JOBS;

	for (i = 0; i < n; i++)
		if (ctx.warned[i] == job_ptr->job_id)
			return;
	ctx.warned[ctx.nwarned++ % WARNED_JOBS] = job_ptr->job_id;
	error("%s: %pJ: %s: %s", plugin_type, job_ptr, what, msg);
}

static void cands_reserve(struct cands *c, uint32_t n)
{
	if (n <= c->cap)
		return;
	xrecalloc(c->nodes, n, sizeof(*c->nodes));
	xrecalloc(c->node_inx, n, sizeof(*c->node_inx));
	xrecalloc(c->saved, n, sizeof(*c->saved));
	xrecalloc(c->saved_weight, n, sizeof(*c->saved_weight));
	xrecalloc(c->order, n, sizeof(*c->order));
	c->cap = n;
}

static void collect(bitstr_t *node_bitmap, enum psiplace_policy policy, unsigned more,
		    struct cands *c)
{
	unsigned fields = psiplace_policy_fields(policy) | more;
	const struct psiplace_node *rows;
	node_record_t *node_ptr;
	bool resv = resv_list && list_count(resv_list) > 0;
	int i, n = bit_set_count(node_bitmap);

	c->n = 0;
	if (n <= 0)
		return;
	cands_reserve(c, n);
	if (resv) {
		if (c->resv_cap < node_record_count) {
			xrecalloc(c->next_resv, node_record_count, sizeof(*c->next_resv));
			c->resv_cap = node_record_count;
		}
		for (i = 0; i < node_record_count; i++)
			c->next_resv[i] = -1;
		site_next_reservations(node_bitmap, c->next_resv);
	}
	if (fields & SITE_F_LOAD)
		refresh_metrics();
	rows = cached_rows(fields);
	for (i = 0; (node_ptr = next_node(&i)); i++) {
		if (!bit_test(node_bitmap, i) || c->n >= (uint32_t)n)
			continue;
		site_fill_node(&ctx.site, i, fields, rows ? &rows[i] : NULL, &c->nodes[c->n]);
		if (resv)
			c->nodes[c->n].next_resv = c->next_resv[i];
		c->node_inx[c->n] = i;
		c->saved[c->n] = node_ptr->sched_weight;
		c->saved_weight[c->n] = node_ptr->weight;
		c->n++;
	}
}

/* Did cons_tres take a node from the trailing tier? */
static bool used_tail(const struct cands *c, const bitstr_t *chosen, uint32_t distinct)
{
	uint32_t i;

	for (i = distinct; i < c->n; i++)
		if (bit_test((bitstr_t *)chosen, c->node_inx[c->order[i]]))
			return true;
	return false;
}

/* What one decision does for a job. */
struct plan {
	enum psiplace_policy policy;     /* NONE: no engine ranking */
	/* the PartitionName line of the partition Slurm tries, or NULL */
	const struct psiplace_partconf *part;
	struct psiplace_priorityf *prio; /* the job's own function */
	bitstr_t *only;                  /* PSI node set: the allowed nodes; NULL: all */
	uint32_t *fixed;                 /* PSI order (slurm node indexes), final; NULL: none */
	size_t nfixed;
	bool malleable;                  /* PSIPLACE_MALLEABLE: a range was declared */
};

static void plan_free(struct plan *p)
{
	psiplace_priorityf_free(p->prio);
	FREE_NULL_BITMAP(p->only);
	xfree(p->fixed);
	memset(p, 0, sizeof(*p));
}

/* Every node of the cluster, in slurm.conf order, for PSI node choice. */
static void collect_all(struct cands *a)
{
	const struct psiplace_node *rows;
	node_record_t *node_ptr;
	int i;

	a->n = 0;
	cands_reserve(a, node_record_count);
	if (ctx.all_pos_cap < node_record_count) {
		xrecalloc(ctx.all_pos, node_record_count, sizeof(*ctx.all_pos));
		ctx.all_pos_cap = node_record_count;
	}
	refresh_metrics();
	rows = cached_rows(SITE_F_LOAD);
	for (i = 0; (node_ptr = next_node(&i)); i++) {
		site_fill_node(&ctx.site, i, SITE_F_LOAD | SITE_F_ALLOC, rows ? &rows[i] : NULL,
			       &a->nodes[a->n]);
		ctx.all_pos[i] = a->n;
		a->node_inx[a->n++] = i;
	}
}

/* A PSI host name through slurmctld's own name hash, not a sort of every
 * node per decision (RELIABILITY R9).  find_node_record2 logs nothing for a
 * name the user got wrong; the exact name only, as the client checked it
 * (not an alias or NodeHostname, and not the one-node "localhost" rule). */
static long find_in_all(const char *name, void *arg)
{
	node_record_t *node_ptr = find_node_record2((char *)name);
	const struct cands *a = arg;
	uint32_t pos;

	if (!node_ptr || strcmp(node_ptr->name, name) || (int)node_ptr->index >= ctx.all_pos_cap)
		return -1;
	pos = ctx.all_pos[node_ptr->index];
	if (pos >= a->n || a->node_inx[pos] != node_ptr->index)
		return -1;
	return pos;
}

/* PSI node sets and PSI_NODES_SORT, with the allocation precedence of
 * plan_job. */
static void plan_psi(job_record_t *job_ptr, const struct psiplace_ctld_request *req, struct plan *p)
{
	struct cands *a = &ctx.all;
	enum psiplace_policy pol = PSIPLACE_POLICY_NONE;
	enum psiplace_psi_next next;
	psiplace_error_t err;
	uint32_t *order = NULL;
	size_t norder = 0, i;

	const struct psiplace_node_finder finder = { find_in_all, a };

	collect_all(a);
	if (psiplace_ctld_request_psi_order(req, &ctx.site.conf, a->nodes, a->n, &finder, &order,
					    &norder, &pol, &next, &err) < 0) {
		/* A node set is a hard restriction: one that names no usable
		 * node lets the job run nowhere, never elsewhere (RELIABILITY
		 * R5); its submission fails ("Requested node configuration is
		 * not available"). */
		job_warn(job_ptr, "PSI node set not usable, the job can run on no node", err.text);
		p->policy = PSIPLACE_POLICY_NONE;
		p->only = bit_alloc(node_record_count);
		return;
	}
	switch (next) {
	case PSIPLACE_PSI_NEXT_NONE:
		p->policy = PSIPLACE_POLICY_NONE;
		break;
	case PSIPLACE_PSI_NEXT_DONE:
		p->policy = PSIPLACE_POLICY_NONE;
		p->fixed = xcalloc(norder ? norder : 1, sizeof(uint32_t));
		for (i = 0; i < norder; i++)
			p->fixed[i] = a->node_inx[order[i]];
		p->nfixed = norder;
		break;
	case PSIPLACE_PSI_NEXT_POLICY:
		p->policy = pol;
		break;
	}
	if (order) {
		p->only = bit_alloc(node_record_count);
		for (i = 0; i < norder; i++)
			bit_set(p->only, a->node_inx[order[i]]);
	}
	free(order);
}

/* The site's policy for a job: the PartitionName line's of the partition
 * Slurm tries, else the cluster's NodeAllocationPolicy. */
static enum psiplace_policy site_policy(const job_record_t *job_ptr,
					const struct psiplace_partconf **part)
{
	const struct psiplace_partconf *pc = NULL;

	/* job_ptr->part_ptr is the partition being tried: for a job submitted
	 * to several (-p a,b) slurmctld sets it to each in turn before it
	 * calls select_g_job_test (doc/cluster-features.md) */
	if (job_ptr->part_ptr && ctx.site.psiconf.nparts)
		pc = psiplace_psiconf_partition(&ctx.site.psiconf, job_ptr->part_ptr->name);
	if (part)
		*part = pc;
	return pc && pc->has_policy ? pc->policy : ctx.site.conf.policy;
}

/* A request from a newer psiplace than this slurmctld's: what this version
 * knows of it applies, the rest is ignored, once per job with an error line
 * (never silently: the ignored part may be the job's placement). */
static void note_newer(job_record_t *job_ptr, const struct psiplace_ctld_request *req)
{
	char msg[PSIPLACE_ERRLEN];

	if (req->version <= PSIPLACE_REQUEST_VERSION && !req->nunknown)
		return;
	snprintf(msg, sizeof(msg),
		 "request version %u, this slurmctld's psiplace %s reads version %d: %zu entr%s it does "
		 "not know ignored%s%s%s, the rest applies; install the same psiplace on slurmctld's "
		 "host and the submit hosts (doc/upgrade.md)",
		 (unsigned)req->version, PSIPLACE_VERSION, PSIPLACE_REQUEST_VERSION, req->nunknown,
		 req->nunknown == 1 ? "y" : "ies", req->nunknown ? " (" : "", req->unknown,
		 req->nunknown ? ")" : "");
	job_warn(job_ptr, "a newer psiplace on the submit host", msg);
}

/* The job's own request, else the cluster default.  The job environment
 * is hostile: anything malformed is logged and ignored. */
static void plan_job(job_record_t *job_ptr, struct plan *p)
{
	struct psiplace_ctld_request req;
	psiplace_error_t err;

	memset(p, 0, sizeof(*p));
	p->policy = site_policy(job_ptr, &p->part);
	if (psiplace_ctld_request_from_env_nodes((const char *const *)job_ptr->spank_job_env,
					   job_ptr->spank_job_env_size, &req, &err) < 0) {
		job_warn(job_ptr, "malformed psiplace request, using the cluster default", err.text);
		return;
	}
	p->malleable = req.mall_max != 0;
	note_newer(job_ptr, &req);
	if (req.priority[0] &&
	    psiplace_priorityf_compile(req.priority, PSIPLACE_ENV_ALLOC_PRIORITY, &p->prio, &err) < 0) {
		job_warn(job_ptr, "malformed psiplace request, using the cluster default", err.text);
		psiplace_ctld_request_free(&req);
		return;
	}
	if (req.psi)
		plan_psi(job_ptr, &req, p);
	else if (req.policy != PSIPLACE_POLICY_NONE)
		p->policy = req.policy;
	psiplace_ctld_request_free(&req);
}

/* Least loaded nodes (SelectTypeParameters=CR_LLN, partition LLN=YES):
 * cons_tres takes the least loaded node (free CPUs) within each weight
 * tier, and the policy's distinct weights would make every node a tier of
 * its own, so the policy would silently replace LLN.  LLN is the
 * administrator's explicit choice for those jobs: it wins over every
 * policy, the job's own included (a PSI node set still restricts). */
static bool job_lln(const job_record_t *job_ptr)
{
	return (slurm_conf.select_type_param & PSIPLACE_SELECT_LLN) ||
	       (job_ptr->part_ptr && (job_ptr->part_ptr->flags & PART_FLAG_LLN));
}

static int lln_note_part(void *x, void *arg)
{
	part_record_t *part = x;
	char **names = arg;

	if (part->flags & PART_FLAG_LLN)
		xstrfmtcat(*names, "%s%s", *names ? "," : "", part->name);
	return 0;
}

/* One line whenever the LLN partitions (or CR_LLN) differ from what was
 * last logged, checked at the first decision after init and after each
 * reconfigure (slurmctld also calls reconfigure at partition updates). */
static void lln_note(void)
{
	char *names = NULL;

	ctx.lln_note_due = false;
	if (slurm_conf.select_type_param & PSIPLACE_SELECT_LLN)
		names = xstrdup("all (SelectTypeParameters=CR_LLN)");
	else if (&part_list && part_list)
		list_for_each(part_list, lln_note_part, &names);
	if (!xstrcmp(names, ctx.lln_noted)) {
		xfree(names);
		return;
	}
	if (names)
		info("%s: partitions with LLN=YES: %s: their jobs are placed least-loaded first by "
		     "cons_tres, not by the node allocation policy", plugin_type, names);
	xfree(ctx.lln_noted);
	ctx.lln_noted = names;
}

/* Order the candidates as the PSI list says (its first entries distinct). */
static int decide_fixed(const struct call *a, const struct plan *p, struct cands *c,
			bitstr_t *bitmap, uint32_t need)
{
	uint32_t *pos_of = xcalloc(node_record_count, sizeof(uint32_t)), i, k = 0, distinct;
	int rc;

	for (i = 0; i < c->n; i++)
		pos_of[c->node_inx[i]] = i + 1;
	for (i = 0; i < p->nfixed; i++) {
		uint32_t pos = pos_of[p->fixed[i]];

		if (pos) { /* a candidate, listed for the first time */
			c->order[k++] = pos - 1;
			pos_of[p->fixed[i]] = 0;
		}
	}
	for (i = 0; i < c->n; i++) /* candidates the list lacks: none, by construction */
		if (pos_of[c->node_inx[i]])
			c->order[k++] = i;
	xfree(pos_of);
	distinct = psiplace_select_distinct(need, ctx.site.conf.ranked_tier, c->n);
	if (psiplace_sel_tier_first_ok(a, c, distinct) && psiplace_sel_tier_first(a, c, bitmap, distinct, need) == SLURM_SUCCESS)
		return SLURM_SUCCESS;
	psiplace_sel_inject(a, c, c->n, distinct);
	rc = psiplace_sel_cons_tres(a, bitmap);
	psiplace_sel_restore(c, c->n);
	return rc;
}

/* --spread-job where cons_tres overruns the node count across weight tiers
 * (slurm_compat.h): offer it only the policy's first `need` nodes, so the
 * count cannot grow; if they cannot hold the job, cons_tres's own order
 * over all candidates (no tiers: the count is right).  Returns false when
 * this does not apply; else *rc is cons_tres's answer. */
static bool decide_spread(const struct call *a, const struct psiplace_rank_opts *opts,
			  struct cands *c, bitstr_t *bitmap, uint32_t need, int *rc)
{
	psiplace_error_t err;
	bitstr_t *set;
	uint32_t i;

	if (!PSIPLACE_SPREAD_OVERRUNS_TIERS || !(a->job_ptr->bit_flags & SPREAD_JOB))
		return false;
	if (a->min_nodes != a->max_nodes || need >= c->n)
		return false;
	if (psiplace_rank_partial(opts, c->nodes, c->n, need, c->order, &err) < 0) {
		*rc = psiplace_sel_cons_tres(a, bitmap);
		return true;
	}
	set = bit_alloc(bit_size(bitmap));
	for (i = 0; i < need; i++)
		bit_set(set, c->node_inx[c->order[i]]);
	*rc = psiplace_sel_cons_tres(a, set);
	log_flag(SELECT_TYPE, "%s: %pJ: --spread-job: the policy's first %u nodes offered alone: %s",
		 plugin_type, a->job_ptr, need, *rc == SLURM_SUCCESS ? "taken" : "cons_tres's order");
	if (*rc == SLURM_SUCCESS)
		bit_copybits(bitmap, set);
	else
		*rc = psiplace_sel_cons_tres(a, bitmap);
	FREE_NULL_BITMAP(set);
	return true;
}

/* Rank the candidates with the policy and let cons_tres decide. */
static int decide_policy(const struct call *a, const struct psiplace_rank_opts *opts,
			 struct cands *c, bitstr_t *bitmap, uint32_t need)
{
	job_record_t *job_ptr = a->job_ptr;
	psiplace_error_t err;
	bitstr_t *orig;
	uint32_t distinct;
	bool tried_tier = false;
	int rc;

	if (psiplace_policy_is_set(opts->policy)) {
		/* MAXBALANCE / CONTIGUOUS choose a set: offer cons_tres only that
		 * set; if it cannot run the job there, rank all candidates. */
		int k = psiplace_choose(opts, c->nodes, c->n, need, c->order, &err);

		if (k > 0) {
			bitstr_t *set = bit_alloc(bit_size(bitmap));
			int j;

			for (j = 0; j < k; j++)
				bit_set(set, c->node_inx[c->order[j]]);
			rc = psiplace_sel_cons_tres(a, set);
			if (rc == SLURM_SUCCESS)
				bit_copybits(bitmap, set);
			FREE_NULL_BITMAP(set);
			if (rc == SLURM_SUCCESS)
				return rc;
		} else {
			debug("%s: %pJ: %s", plugin_type, job_ptr, err.text);
		}
	}
	orig = bit_copy(bitmap);
	distinct = psiplace_select_distinct(need, ctx.site.conf.ranked_tier, c->n);
	for (;;) {
		if (distinct > c->n)
			distinct = c->n;
		if (psiplace_rank_partial(opts, c->nodes, c->n, distinct, c->order, &err) < 0) {
			error("%s: %pJ: ranking failed, using cons_tres order: %s", plugin_type,
			      job_ptr, err.text);
			bit_copybits(bitmap, orig);
			rc = psiplace_sel_cons_tres(a, bitmap);
			break;
		}
		if (!tried_tier) {
			tried_tier = true;
			if (psiplace_sel_tier_first_ok(a, c, distinct)) {
				if ((rc = psiplace_sel_tier_first(a, c, bitmap, distinct, need)) == SLURM_SUCCESS)
					break;
			} else if (psiplace_sel_exact_alone_ok(a, c, need) &&
				   (rc = psiplace_sel_exact_first(a, c, bitmap, need)) == SLURM_SUCCESS) {
				break;
			}
		}
		psiplace_sel_inject(a, c, c->n, distinct);
		rc = psiplace_sel_cons_tres(a, bitmap);
		psiplace_sel_restore(c, c->n);
		/* Widen when cons_tres had to reach into the trailing tier, whose
		 * order is its own, not the policy's (only for a real start with no
		 * preemption, which a second call could duplicate). */
		if (rc != SLURM_SUCCESS || a->mode != SELECT_MODE_RUN_NOW || distinct >= c->n ||
		    (a->preemptee_job_list && *a->preemptee_job_list) ||
		    !used_tail(c, bitmap, distinct))
			break;
		debug("%s: %pJ: widening the ranked tier from %u nodes", plugin_type, job_ptr,
		      distinct);
		distinct = distinct > c->n / 8 ? c->n : distinct * 8;
		bit_copybits(bitmap, orig);
	}
	FREE_NULL_BITMAP(orig);
	return rc;
}

/* Preemption.  cons_tres's _run_now() removes the preemption candidates
 * one at a time, in the list's order, and takes the first start that fits:
 * the list's order, not the weights, decides which node a preempting job
 * gets (doc/cluster-features.md).  Which jobs may be preempted and the
 * order of their preemption priority stay Slurm's: only candidates that
 * preempt/partition_prio and preempt/qos give the same key (partition
 * PriorityTier, QOS priority, node count), whose order Slurm leaves to
 * qsort, are reordered, the jobs on the policy's first nodes first. */
static bool preempt_removable(job_record_t *j)
{
	uint16_t m = slurm_job_preempt_mode(j);

	return m == PREEMPT_MODE_REQUEUE || m == PREEMPT_MODE_CANCEL;
}

static bool preempt_same_key(const job_record_t *x, const job_record_t *y)
{
	uint32_t tx = x->part_ptr ? x->part_ptr->priority_tier : 0;
	uint32_t ty = y->part_ptr ? y->part_ptr->priority_tier : 0;
	uint32_t qx = x->qos_ptr ? x->qos_ptr->priority : 0;
	uint32_t qy = y->qos_ptr ? y->qos_ptr->priority : 0;

	return tx == ty && qx == qy && x->node_cnt == y->node_cnt;
}

/* Slurm node index -> candidate position + 1 (0: not a candidate). */
static uint32_t *cand_pos_map(const struct cands *c)
{
	uint32_t *pos_of = xcalloc(node_record_count, sizeof(uint32_t)), i;

	for (i = 0; i < c->n; i++)
		pos_of[c->node_inx[i]] = i + 1;
	return pos_of;
}

/* The nodes as they will be once the removable candidates are gone: the
 * policy ranks what a preempting job would find there (full nodes are not
 * eligible, and their index order would decide otherwise). */
static void preempt_view(psiplace_list_t cands, struct cands *c, const uint32_t *pos_of)
{
	psiplace_list_itr_t it = list_iterator_create(cands);
	job_record_t *j;

	while ((j = list_next(it))) {
		job_resources_t *r = j->job_resrcs;
		int i, k = 0, last;

		if (!r || !r->node_bitmap || !preempt_removable(j))
			continue;
		last = bit_fls(r->node_bitmap);
		for (i = bit_ffs(r->node_bitmap); i >= 0 && i <= last; i++) {
			struct psiplace_node *n;

			if (!bit_test(r->node_bitmap, i))
				continue;
			if (i < node_record_count && pos_of[i]) {
				n = &c->nodes[pos_of[i] - 1];
				n->alloc_cpus -= r->cpus && r->cpus[k] < n->alloc_cpus ? r->cpus[k]
										 : n->alloc_cpus;
				if (r->memory_allocated)
					n->alloc_memory -= r->memory_allocated[k] < n->alloc_memory
								   ? r->memory_allocated[k]
								   : n->alloc_memory;
				if (n->jobs)
					n->jobs--;
			}
			k++;
		}
	}
	list_iterator_destroy(it);
}

struct preemptee {
	job_record_t *job;
	uint32_t group, best, seq; /* Slurm's key run, the policy's best rank, list position */
};

static int cmp_preemptee(const void *x, const void *y)
{
	const struct preemptee *a = x, *b = y;

	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	if (a->best != b->best)
		return a->best < b->best ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Reorder the candidates (see above) by the policy's rank of their best
 * node; returns whether the list changed. */
static bool preempt_order(const struct call *a, const struct psiplace_rank_opts *opts,
			  struct cands *c)
{
	psiplace_list_t cands = a->preemptee_candidates;
	uint32_t *pos_of, *rank_of, i, n = cands ? (uint32_t)list_count(cands) : 0;
	struct preemptee *v;
	psiplace_list_itr_t it;
	psiplace_error_t err;
	job_record_t *j;
	bool changed = false;

	if (n == 0 || c->n == 0)
		return false;
	pos_of = cand_pos_map(c);
	preempt_view(cands, c, pos_of);
	/* Slurm's explicit order (SchedulerParameters=preempt_youngest_first)
	 * is kept as it is; the view above still applies */
	if (n < 2 || xstrcasestr(slurm_conf.sched_params, "preempt_youngest_first")) {
		xfree(pos_of);
		return false;
	}
	if (psiplace_rank_partial(opts, c->nodes, c->n, c->n, c->order, &err) < 0) {
		debug("%s: %pJ: preemption order: %s", plugin_type, a->job_ptr, err.text);
		xfree(pos_of);
		return false;
	}
	rank_of = xcalloc(c->n, sizeof(uint32_t));
	for (i = 0; i < c->n; i++)
		rank_of[c->order[i]] = i;
	v = xcalloc(n, sizeof(*v));
	it = list_iterator_create(cands);
	for (i = 0; i < n && (j = list_next(it)); i++) {
		job_resources_t *r = j->job_resrcs;
		int b, last;

		v[i].job = j;
		v[i].seq = i;
		v[i].group = i && preempt_same_key(v[i - 1].job, j) ? v[i - 1].group : i;
		v[i].best = UINT32_MAX;
		if (!r || !r->node_bitmap || !preempt_removable(j))
			continue;
		last = bit_fls(r->node_bitmap);
		for (b = bit_ffs(r->node_bitmap); b >= 0 && b <= last && b < node_record_count; b++)
			if (bit_test(r->node_bitmap, b) && pos_of[b] &&
			    rank_of[pos_of[b] - 1] < v[i].best)
				v[i].best = rank_of[pos_of[b] - 1];
	}
	list_iterator_destroy(it);
	n = i;
	qsort(v, n, sizeof(*v), cmp_preemptee);
	for (i = 0; i < n; i++)
		changed |= v[i].seq != i;
	if (changed) {
		list_flush(cands); /* slurmctld's list owns no items (list_create(NULL)) */
		for (i = 0; i < n; i++)
			list_append(cands, v[i].job);
		log_flag(SELECT_TYPE, "%s: %pJ: preemption candidates in policy order, first %pJ",
			 plugin_type, a->job_ptr, v[0].job);
	}
	xfree(v);
	xfree(rank_of);
	xfree(pos_of);
	return changed;
}

/* The job's memory per node where memory is a consumable resource, for
 * the engine's eligibility (MB; 0: not constrained).  --mem-per-cpu counts
 * the CPUs the job needs per node; --mem=0 (all of a node's memory) is
 * left to cons_tres. */
static uint64_t job_mem(const job_record_t *job_ptr, uint32_t cpus)
{
	uint64_t m = job_ptr->details->pn_min_memory;

	if (!(slurm_conf.select_type_param & PSIPLACE_SELECT_MEMORY) || m == NO_VAL64)
		return 0;
	if (m & MEM_PER_CPU)
		return (m & ~MEM_PER_CPU) * (cpus ? cpus : 1);
	return m;
}

/* The leaves of the job's topology, rebuilt when the node table changed
 * (reconfigure, dynamic nodes); NULL without leaves.  With topology.yaml
 * that is its partition's topology (its Topology=, else the cluster
 * default, index 0), read per topology (topo_set, 25.11+). */
static const struct topo_leaves *leaves(const job_record_t *job_ptr)
{
	if (ctx.site.topology_yaml) {
		if (ctx.topo_gen != ctx.table_gen + 1) {
			ctx.topo_any = topo_set_build(&ctx.topos);
			ctx.topo_gen = ctx.table_gen + 1;
		}
		if (!ctx.topo_any)
			return NULL;
#if PSIPLACE_SLURM_AT_LEAST(25, 5)
		return topo_set_find(&ctx.topos, job_ptr->part_ptr ? job_ptr->part_ptr->topology_idx : 0);
#else
		(void)job_ptr;
		return NULL;
#endif
	}
	if (!ctx.topo_on)
		return NULL;
	if (ctx.topo_gen != ctx.table_gen + 1) {
		ctx.topo_any = topo_leaves_build(&ctx.topo);
		ctx.topo_gen = ctx.table_gen + 1;
	}
	return ctx.topo_any ? &ctx.topo : NULL;
}

/* work := the nodes of work on a leaf that want[] marks. */
static void keep_leaves(bitstr_t *work, const struct topo_leaves *t, const bool *want)
{
	int i;

	for (i = 0; i < t->nodes && i < (int)bit_size(work); i++)
		if (bit_test(work, i) && (t->leaf[i] < 0 || !want[t->leaf[i]]))
			bit_clear(work, i);
}

/* The policy's decision over the nodes of work on the leaves want[] marks. */
static int decide_within(const struct call *b, const struct psiplace_rank_opts *opts,
			 const struct topo_leaves *t, unsigned more, struct cands *c,
			 bitstr_t *work, const bool *want, uint32_t need)
{
	bitstr_t *sub = bit_copy(work);
	int rc;

	keep_leaves(sub, t, want);
	collect(sub, opts->policy, more, c);
	rc = c->n ? decide_policy(b, opts, c, sub, need) : SLURM_ERROR;
	if (rc == SLURM_SUCCESS)
		bit_copybits(work, sub);
	FREE_NULL_BITMAP(sub);
	return rc;
}

/* Network topology first, then the policy (Moab's node sets, then
 * NODEALLOCATIONPOLICY inside the set): cons_tres chooses the leaf switches
 * or blocks with its own best fit and --switches, in its own order
 * (`natural`, the call's answer with slurmctld's weights); the policy then
 * chooses the nodes on those leaves.  Distinct weights offered over the
 * whole cluster would not do: cons_tres's topology pass takes nodes by
 * weight group before it looks at switches, so the policy's first nodes
 * would win over locality (-N2 over two switches where one has room).
 * For a job on one leaf, leaves with as many usable nodes of the same
 * lowest Weight are equally good to cons_tres's fit, and the policy
 * chooses among them (the leaf of its first-ranked node).  If the policy's
 * choice cannot run there, cons_tres's own answer stands.
 * doc/cluster-features.md, "Network topology". */
static int decide_topo(const struct call *b, const struct psiplace_rank_opts *opts,
		       const struct topo_leaves *t, unsigned more, struct cands *c,
		       bitstr_t *work, const bitstr_t *given, uint32_t need)
{
	bitstr_t *natural = given ? bit_copy((bitstr_t *)given) : bit_copy(work);
	bool *used = xcalloc(t->count, sizeof(bool)), *equal = NULL;
	uint32_t *usable = NULL, i;
	uint64_t *lowest = NULL;
	int32_t first = -1, chosen = -1;
	int nused = 0, rc = SLURM_SUCCESS, j;
	psiplace_error_t err;

	if (!given && (rc = psiplace_sel_cons_tres(b, natural)) != SLURM_SUCCESS) {
		bit_copybits(work, natural); /* the same call: cons_tres's answer */
		goto out;
	}
	for (j = 0; j < t->nodes && j < (int)bit_size(natural); j++) {
		if (!bit_test(natural, j))
			continue;
		if (t->leaf[j] < 0) { /* a node outside the topology: cons_tres's answer */
			nused = -1;
			break;
		}
		if (!used[t->leaf[j]]) {
			used[t->leaf[j]] = true;
			nused++;
		}
		if (first < 0)
			first = t->leaf[j];
	}
	if (nused <= 0)
		goto natural;
	if (nused == 1) {
		/* usable nodes per leaf and their lowest Weight, as cons_tres's
		 * fit counts them */
		usable = xcalloc(t->count, sizeof(*usable));
		lowest = xcalloc(t->count, sizeof(*lowest));
		equal = xcalloc(t->count, sizeof(bool));
		collect(work, opts->policy, more, c);
		for (i = 0; i < c->n; i++) {
			int32_t l = c->node_inx[i] < (uint32_t)t->nodes ? t->leaf[c->node_inx[i]] : -1;

			if (l < 0 || !psiplace_node_eligible_opts(opts, &c->nodes[i]))
				continue;
			if (!usable[l]++ || c->nodes[i].weight < lowest[l])
				lowest[l] = c->nodes[i].weight;
		}
		for (j = 0; j < t->count; j++)
			equal[j] = usable[j] == usable[first] && lowest[j] == lowest[first];
		/* the policy's first-ranked node on an equally good leaf (c keeps
		 * only those candidates; decide_within collects again) */
		for (i = 0, j = 0; i < c->n; i++) {
			int32_t l = c->node_inx[i] < (uint32_t)t->nodes ? t->leaf[c->node_inx[i]] : -1;

			if (l >= 0 && equal[l])
				c->nodes[j] = c->nodes[i], c->node_inx[j] = c->node_inx[i], j++;
		}
		c->n = j;
		if (c->n && psiplace_rank_partial(opts, c->nodes, c->n, 1, c->order, &err) == 0)
			chosen = t->leaf[c->node_inx[c->order[0]]];
		if (chosen >= 0 && chosen != first) {
			memset(used, 0, t->count * sizeof(bool));
			used[chosen] = true;
			log_flag(SELECT_TYPE, "%s: %pJ: leaf %s is as good as cons_tres's %s: the policy's",
				 plugin_type, b->job_ptr, t->names[chosen], t->names[first]);
			if (decide_within(b, opts, t, more, c, work, used, need) == SLURM_SUCCESS)
				goto out;
			memset(used, 0, t->count * sizeof(bool));
			used[first] = true;
		}
	}
	log_flag(SELECT_TYPE, "%s: %pJ: the policy chooses nodes on the %d lea%s cons_tres chose",
		 plugin_type, b->job_ptr, nused, nused == 1 ? "f" : "ves");
	if (decide_within(b, opts, t, more, c, work, used, need) == SLURM_SUCCESS)
		goto out;
natural:
	/* cons_tres's own answer, from the same call again (its job resources
	 * are those of the last successful call) */
	bit_copybits(work, natural);
	rc = psiplace_sel_cons_tres(b, work);
out:
	FREE_NULL_BITMAP(natural);
	xfree(used);
	xfree(usable);
	xfree(lowest);
	xfree(equal);
	return rc;
}

/* The topology pass applies to a start or will-run test the policy orders
 * freely: not a PSI node list (an order the user fixed), not required nodes
 * (-w: cons_tres builds the set around them), not preemption (the first
 * call would decide what to preempt).  With per-partition topologies
 * (topology.yaml) it uses the job's partition's topology, from 25.11 (25.05
 * has no per-topology node membership to read: off there). */
static const struct topo_leaves *topo_applies(const struct call *b, const struct plan *p)
{
	const struct topo_leaves *t;

	if (p->fixed || b->job_ptr->details->req_node_bitmap || !(t = leaves(b->job_ptr)))
		return NULL;
	if (b->mode != SELECT_MODE_RUN_NOW && b->mode != SELECT_MODE_WILL_RUN)
		return NULL;
	return b->preemptee_candidates && list_count(b->preemptee_candidates) > 0 ? NULL : t;
}

/* A malleable job must not ask for GRES: cons_tres's select_p_job_expand
 * refuses to merge a job with any, so it could never grow.  The SPANK
 * plugin refuses the forms it can see on the client's command line, script
 * and environment; this catches the rest (an abbreviated option, a
 * submission without the plugin, GRES added by scontrol update or a
 * job_submit plugin): the job can run nowhere, its submission fails
 * ("Requested node configuration is not available") and the reason is in
 * slurmctld's log.  Only the job record is read: no lock taken, no wait. */
static bool malleable_with_gres(job_record_t *job_ptr, const struct plan *p)
{
	if (!p->malleable || !job_ptr->gres_list_req || !list_count(job_ptr->gres_list_req))
		return false;
	job_warn(job_ptr, "--psi-malleable (PSIPLACE_MALLEABLE)",
		 "the job asks for GRES, and Slurm cannot grow a job with GRES (cons_tres's job "
		 "expand refuses it): the job can run on no node; submit it without --gres/--gpus* "
		 "or without --psi-malleable");
	return true;
}

extern int select_p_job_test(PSIPLACE_JOB_TEST_PARAMS)
{
	struct call a = { job_ptr, min_nodes, max_nodes, req_nodes, mode,
			  preemptee_candidates, preemptee_job_list,
			  PSIPLACE_JOB_TEST_TAIL_ARGS, false, 0, false, NULL, NULL };
	struct psiplace_job job = { 0 };
	struct psiplace_rank_opts opts = { 0 };
	struct call b = a;
	struct cands *c = &ctx.c;
	struct plan p;
	bitstr_t *work, *natural = NULL, *offered_all = NULL;
	const struct topo_leaves *topo;
	uint32_t need, offered;
	time_t entry_start = job_ptr ? job_ptr->start_time : 0;
	int rc;

	if (!resolve())
		return SLURM_ERROR;
	take_site();
	a.job_test = ctx.ops.job_test;
	a.site = &ctx.site;
	/* the settings the shortcuts read, as this decision's take_site() left them */
	a.greedy_conf = ctx.conf_greedy && !ctx.site.topology_yaml;
	a.ranked_tier = ctx.site.conf.ranked_tier;
	b = a;
	/* cons_tres's allocated-CPU counts: refreshed by site_fill_node when
	 * the first candidate with jobs needs them, once per decision */
	site_alloc_reset(&ctx.site, ctx.ops.select_nodeinfo_set_all);
	if (!job_ptr || job_ptr->magic != JOB_MAGIC || !job_ptr->details || !node_bitmap ||
	    !&node_record_table_ptr) {
		if (job_ptr && job_ptr->magic != JOB_MAGIC)
			error("%s: job record fails its magic check, using cons_tres order", plugin_type);
		return psiplace_sel_cons_tres(&a, node_bitmap);
	}
	/* A test-only call asks whether the job could ever run: the order of
	 * nodes does not change the answer (a PSI node set does). */
	if (ctx.lln_note_due)
		lln_note();
	plan_job(job_ptr, &p);
	if (malleable_with_gres(job_ptr, &p)) {
		plan_free(&p);
		return SLURM_ERROR;
	}
	if (p.policy != PSIPLACE_POLICY_NONE && job_lln(job_ptr)) {
		log_flag(SELECT_TYPE, "%s: %pJ: LLN: cons_tres's least-loaded order, not %s",
			 plugin_type, job_ptr, psiplace_policy_name(p.policy));
		p.policy = PSIPLACE_POLICY_NONE;
	}
	if (mode == SELECT_MODE_TEST_ONLY || (p.policy == PSIPLACE_POLICY_NONE && !p.fixed)) {
		work = p.only ? bit_copy(node_bitmap) : node_bitmap;
		if (p.only)
			bit_and(work, p.only);
		rc = psiplace_sel_cons_tres(&a, work);
		goto out;
	}
	work = node_bitmap;
	if (p.only) {
		work = bit_copy(node_bitmap);
		bit_and(work, p.only);
	}

	/* The node count is cons_tres's, the policy only chooses which nodes:
	 * b is the call with the count fixed when a node range leaves it
	 * open (doc/select.md, "How many nodes"). */
	natural = psiplace_sel_count_first(&a, work, &b);
	offered_all = b.count_of_few ? bit_copy(work) : NULL;
	need = b.req_nodes > b.min_nodes ? b.req_nodes : b.min_nodes;
	if (need == 0)
		need = 1;
	job.nodes = need;
	job.cpus = job_ptr->details->pn_min_cpus ? job_ptr->details->pn_min_cpus : 1;
	job.mem = job_mem(job_ptr, job.cpus);
	if (job_ptr->time_limit != NO_VAL && job_ptr->time_limit != INFINITE)
		job.duration = (int64_t)job_ptr->time_limit * 60;
	/* Will-run (sbatch --test-only, the will-run RPC, backfill) plans a
	 * start that may lie in the future: its earliest known time is the
	 * job's planned start_time when backfill set one, else now (RELIABILITY
	 * R4: this was a flag, 1 s, read as a time by LASTAVAILABLE's fit). */
	if (mode == SELECT_MODE_WILL_RUN) {
		time_t now = time(NULL);

		job.future = true;
		job.start = job_ptr->start_time > now ? (int64_t)(job_ptr->start_time - now) : 0;
		log_flag(SELECT_TYPE, "%s: %pJ: will-run: the policy sees a start %" PRId64 " s from now (the job's start_time on entry: %" PRId64 " s from now)",
			 plugin_type, job_ptr, job.start,
			 entry_start > now ? (int64_t)(entry_start - now) : (int64_t)0);
	}
	job.seed = job_ptr->job_id;
	job.priorityf = p.prio;
	opts.policy = p.fixed ? PSIPLACE_POLICY_FIRSTAVAILABLE : p.policy;
	opts.job = &job;
	opts.policy_overrides_weight = ctx.site.conf.policy_overrides_weight;
	opts.cluster_priorityf = p.part && p.part->priorityf ? p.part->priorityf
							     : ctx.site.cluster_prio;
	opts.ignore_power = !ctx.site.conf.prefer_powered_up;
	log_flag(SELECT_TYPE, "%s: %pJ: partition %s: %s%s", plugin_type, job_ptr,
		 job_ptr->part_ptr ? job_ptr->part_ptr->name : "(none)",
		 psiplace_policy_name(opts.policy), p.part ? " (its PartitionName line)" : "");

	if (mode == SELECT_MODE_WILL_RUN &&
	    psiplace_sel_every_node_ok(&b, (offered = bit_set_count(work)))) {
		log_flag(SELECT_TYPE, "%s: %pJ: will-run needs every one of the %u nodes offered: cons_tres's own weights",
			 plugin_type, job_ptr, offered);
		rc = psiplace_sel_cons_tres(&b, work);
	} else if ((topo = topo_applies(&b, &p))) {
		rc = decide_topo(&b, &opts, topo, job.mem ? SITE_F_STATIC : 0, c, work, natural, need);
	} else {
		collect(work, opts.policy, job.mem ? SITE_F_STATIC : 0, c);
		if (c->n == 0)
			rc = psiplace_sel_cons_tres(&b, work);
		else if (p.fixed)
			rc = decide_fixed(&b, &p, c, work, need);
		else {
			preempt_order(&b, &opts, c);
			if (!decide_spread(&b, &opts, c, work, need, &rc))
				rc = decide_policy(&b, &opts, c, work, need);
		}
	}
	if (natural) {
		if (rc != SLURM_SUCCESS) {
			/* The policy's order cannot hold the job on that many nodes
			 * (greedy by rank, it filled small nodes first): the count
			 * wins, cons_tres decides in its own order. */
			log_flag(SELECT_TYPE, "%s: %pJ: no %u nodes in policy order, cons_tres's own order",
				 plugin_type, job_ptr, b.min_nodes);
			if (offered_all) { /* its answer over all candidates, not over a few */
				FREE_NULL_BITMAP(natural);
				natural = psiplace_sel_count_probe(&a, offered_all, false);
			}
			bit_copybits(work, natural ? natural : offered_all);
			rc = psiplace_sel_cons_tres(&a, work);
		}
		FREE_NULL_BITMAP(natural);
	}
	FREE_NULL_BITMAP(offered_all);
out:
	if (work != node_bitmap) {
		if (rc == SLURM_SUCCESS)
			bit_copybits(node_bitmap, work);
		FREE_NULL_BITMAP(work);
	}
	plan_free(&p);
	return rc;
}

/* slurmctld calls this with its locks held, at `scontrol reconfigure` and
 * at partition and dynamic-node changes: the files are read by the site
 * reader thread, never here; the next decision takes the result. */
extern int select_p_reconfigure(void)
{
	char *plugstack, *psiconf;

	if (!resolve())
		return SLURM_ERROR;
	if (running_in_slurmctld()) {
		/* also called when nodes are created or deleted */
		ctx.table_gen++;
		ctx.conf_greedy = conf_greedy();
		ctx.topo_on = topo_leaves_configured(slurm_conf.topology_plugin);
		ctx.lln_note_due = true;
		site_paths(&plugstack, &psiconf);
		if (site_reader_reload(plugstack, psiconf) < 0) {
			psiplace_error_t err = { .text = "" };

			/* The thread could not start at init (or stopped): start it
			 * now; the files are never read here, under the locks. */
			if (site_reader_start(ctx.site.psiconf.metrics_file, &err) < 0 ||
			    site_reader_reload(plugstack, psiconf) < 0)
				error("%s: keeping the previous configuration: the site reader "
				      "thread is not running%s%s", plugin_type,
				      err.text[0] ? ": " : "", err.text);
		}
		xfree(plugstack);
		xfree(psiconf);
	}
	return ctx.ops.reconfigure();
}

/* A job starts: say, once per start, when it came without psiplace's
 * request, which is what a submit host without psiplace (or with one
 * older than request version 1) sends; it is placed by the site's policy
 * like a job that asked for nothing, and only this line tells the two
 * apart (doc/upgrade.md, "Submit hosts that differ"). */
extern int select_p_job_begin(job_record_t *job_ptr)
{
	struct psiplace_ctld_request req;
	psiplace_error_t err;
	enum psiplace_policy pol;

	if (!resolve())
		return SLURM_ERROR;
	if (psiplace_ctld_request_from_env((const char *const *)job_ptr->spank_job_env,
					   job_ptr->spank_job_env_size, &req, &err) == 0 &&
	    !req.version) {
		pol = site_policy(job_ptr, NULL);
		if (!req.nentries)
			verbose("%s: %pJ: no psiplace request: its submit host has no psiplace SPANK "
				"plugin (or one older than request version %d); placed by the site's "
				"policy, %s",
				plugin_type, job_ptr, PSIPLACE_REQUEST_VERSION,
				pol == PSIPLACE_POLICY_NONE ? "none (cons_tres order)" :
							      psiplace_policy_name(pol));
		else
			verbose("%s: %pJ: psiplace request without a version (a psiplace older than "
				"request version %d on its submit host): read as version %d",
				plugin_type, job_ptr, PSIPLACE_REQUEST_VERSION,
				PSIPLACE_REQUEST_VERSION);
	}
	return ctx.ops.job_begin(job_ptr);
}

/* cons_tres's merge, then the merged job's cores rebuilt from what the two
 * jobs had (expand_cores.h: cons_tres ORs each job's whole core bitmap in at
 * bit 0, so the last nodes of the merged job get no core).  cons_tres has
 * already counted the wrong cores in its node usage: they are taken out and
 * the right ones put in with its own indefinite suspend/resume pair, which
 * moves cores only (job_res_rm_job/job_res_add_job with
 * JOB_RES_ACTION_RESUME; memory and GRES are right and stay).  A bitmap that
 * is already right (a release without the defect) is left alone. */
static int expand_and_repair(job_record_t *from_job_ptr, job_record_t *to_job_ptr)
{
	struct psiplace_sel_expand_side from = { 0 }, to = { 0 };
	bool saved = psiplace_sel_expand_save(from_job_ptr, &from) == 0 &&
		     psiplace_sel_expand_save(to_job_ptr, &to) == 0;
	bitstr_t *cores = NULL;
	int rc = ctx.ops.job_expand(from_job_ptr, to_job_ptr);

	if (rc == SLURM_SUCCESS && saved && to_job_ptr->job_resrcs) {
		job_resources_t *r = to_job_ptr->job_resrcs;

		cores = psiplace_sel_expand_cores(r, &from, &to);
		if (!cores)
			error("%s: %pJ after merging %pJ: its core layout does not match the two "
			      "jobs' (cores left as cons_tres built them)",
			      plugin_type, to_job_ptr, from_job_ptr);
		else if (!bit_equal(cores, r->core_bitmap)) {
			char *was = bit_fmt_full(r->core_bitmap), *is = bit_fmt_full(cores);

			info("%s: %pJ after merging %pJ: cores %s rebuilt as %s (cons_tres's "
			     "job_resources_bits_copy ORs at bit 0)",
				plugin_type, to_job_ptr, from_job_ptr, was, is);
			xfree(was);
			xfree(is);
			(void)ctx.ops.job_suspend(to_job_ptr, true);
			bit_copybits(r->core_bitmap, cores);
			(void)ctx.ops.job_resume(to_job_ptr, true);
		}
	}
	FREE_NULL_BITMAP(cores);
	psiplace_sel_expand_free(&from);
	psiplace_sel_expand_free(&to);
	return rc;
}

/* Merging job from (a helper, `scontrol update JobId=H NumNodes=0`) into
 * job to.  Slurm checks neither that the two jobs have the same user nor
 * that the caller owns to (only that it may update from): refused here, so
 * that no user can merge an allocation into someone else's job. */
extern int select_p_job_expand(job_record_t *from_job_ptr, job_record_t *to_job_ptr)
{
	if (!resolve())
		return SLURM_ERROR;
	if (from_job_ptr->user_id != to_job_ptr->user_id) {
		error("%s: refusing to merge %pJ (user %u) into %pJ (user %u): the jobs' users differ",
		      plugin_type, from_job_ptr, from_job_ptr->user_id, to_job_ptr,
		      to_job_ptr->user_id);
		return ESLURM_ACCESS_DENIED;
	}
	return expand_and_repair(from_job_ptr, to_job_ptr);
}

/* Everything else: forwarded unchanged (the list per release is in
 * slurm_compat.h). */
#define FWD(ret, fail, name, params, args)  \
	extern ret select_p_##name params   \
	{                                   \
		if (!resolve())             \
			return fail;        \
		return ctx.ops.name args;   \
	}
PSIPLACE_FWD_ALL(FWD)
#undef FWD

#define FWD_VOID(name, params, args)        \
	extern void select_p_##name params  \
	{                                   \
		if (resolve())              \
			ctx.ops.name args;  \
	}
PSIPLACE_FWD_VOID_FROM_26_05(FWD_VOID)
#undef FWD_VOID
