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
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "src/common/slurm_xlator.h"
#include "src/common/bitstring.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/read_config.h"
#include "src/common/run_in_daemon.h"
#include "src/common/select.h"
#include "src/common/xmalloc.h"
#include "src/slurmctld/slurmctld.h"

#include "psiplace/error.h"
#include "psiplace/jobreq.h"
#include "psiplace/policy.h"
#include "psiplace/siteconf.h"

/* slurmctld's node table is not exported by libslurm: programs that link
 * libslurm and load every select plugin (slurm_init()) must still be able
 * to dlopen this one, so the data reference is weak. */
#pragma weak node_record_table_ptr

#ifndef PSIPLACE_CONS_TRES_SO
#define PSIPLACE_CONS_TRES_SO "/usr/lib/x86_64-linux-gnu/slurm-wlm/select_cons_tres.so"
#endif

const char plugin_name[] = "psiplace: Moab-like node allocation policies over cons_tres";
const char plugin_type[] = "select/psiplace_cons_tres";
/* Unique among select plugins (cons_tres is 109); >= 100 as Slurm demands. */
const uint32_t plugin_id = 180;
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* Weight layout inside job_test: slurmctld's sched_weight is
 * Weight<<8 | low byte (cons_tres: co-located GPUs) with reboot/flex
 * flags in bits 40-41.  We re-encode, order-preserving:
 *   bits 62-63 flags | bits 30-61 Weight | bits 8-29 policy rank | low byte */
#define RANK_BITS 22
#define RANK_MAX ((1u << RANK_BITS) - 1)
#define MIN_DISTINCT 16 /* nodes with distinct weights, at least */

typedef int (*job_test_f)(job_record_t *, bitstr_t *, uint32_t, uint32_t,
			  uint32_t, uint16_t, List, List *, bitstr_t *);

static struct {
	void *handle; /* select_cons_tres.so */
	bool resolved, failed, we_initialized;
	slurm_select_ops_t ops; /* cons_tres's entry points */
	struct psiplace_siteconf site;
	uint32_t last_bad_job; /* to log a malformed request once */
} ctx;

/* The symbol order of slurm_select_ops_t (select.h), after plugin_id. */
static const char *const fwd_syms[] = {
	"plugin_id",
	"select_p_state_save", "select_p_state_restore", "select_p_job_init",
	"select_p_node_init", "select_p_job_test", "select_p_job_begin",
	"select_p_job_ready", "select_p_job_expand", "select_p_job_resized",
	"select_p_job_signal", "select_p_job_fini", "select_p_job_suspend",
	"select_p_job_resume", "select_p_step_pick_nodes", "select_p_step_start",
	"select_p_step_finish", "select_p_select_nodeinfo_pack",
	"select_p_select_nodeinfo_unpack", "select_p_select_nodeinfo_alloc",
	"select_p_select_nodeinfo_free", "select_p_select_nodeinfo_set_all",
	"select_p_select_nodeinfo_set", "select_p_select_nodeinfo_get",
	"select_p_select_jobinfo_alloc", "select_p_select_jobinfo_free",
	"select_p_select_jobinfo_set", "select_p_select_jobinfo_get",
	"select_p_select_jobinfo_copy", "select_p_select_jobinfo_pack",
	"select_p_select_jobinfo_unpack", "select_p_select_jobinfo_sprint",
	"select_p_select_jobinfo_xstrdup", "select_p_get_info_from_plugin",
	"select_p_update_node_config", "select_p_reconfigure",
	"select_p_resv_test",
};

/* Resolve cons_tres on first use, not in init(): slurmctld loads every
 * select plugin and initializes cons_tres itself, in directory order, so
 * at our init() it may not be loaded yet.  Where Slurm loads only the
 * configured plugin (slurmd, slurmstepd) we load and initialize it. */
static bool resolve(void)
{
	void **slot = (void **)&ctx.ops;
	size_t i;

	if (ctx.resolved)
		return true;
	if (ctx.failed)
		return false;
	_Static_assert(sizeof(slurm_select_ops_t) == sizeof(fwd_syms) / sizeof(fwd_syms[0]) * sizeof(void *),
		       "fwd_syms must match slurm_select_ops_t");
	ctx.handle = dlopen(PSIPLACE_CONS_TRES_SO, RTLD_LAZY | RTLD_NOLOAD);
	if (!ctx.handle) {
		int (*init_f)(void);

		ctx.handle = dlopen(PSIPLACE_CONS_TRES_SO, RTLD_LAZY | RTLD_GLOBAL);
		if (!ctx.handle) {
			error("%s: cannot load %s: %s", plugin_type, PSIPLACE_CONS_TRES_SO, dlerror());
			ctx.failed = true;
			return false;
		}
		init_f = (int (*)(void))dlsym(ctx.handle, "init");
		if (init_f && init_f() != SLURM_SUCCESS) {
			error("%s: select/cons_tres init() failed", plugin_type);
			ctx.failed = true;
			return false;
		}
		ctx.we_initialized = true;
	}
	for (i = 0; i < sizeof(fwd_syms) / sizeof(fwd_syms[0]); i++) {
		if (!(slot[i] = dlsym(ctx.handle, fwd_syms[i]))) {
			error("%s: select/cons_tres lacks %s", plugin_type, fwd_syms[i]);
			ctx.failed = true;
			return false;
		}
	}
	ctx.resolved = true;
	return true;
}

/* Read the cluster default from plugstack.conf's psiplace line. */
static int read_site(struct psiplace_siteconf *c, char *err, size_t errlen)
{
	char *path = slurm_conf.plugstack ? xstrdup(slurm_conf.plugstack)
					  : get_extra_conf_path("plugstack.conf");
	int rc = 0;

	psiplace_siteconf_init(c);
	if (path && access(path, R_OK) == 0)
		rc = psiplace_siteconf_read_plugstack(path, c, err, errlen);
	xfree(path);
	if (rc == 0 && !psiplace_policy_supported(c->policy))
		rc = psiplace_seterr(err, errlen,
				     "NodeAllocationPolicy=%s is not yet supported by this psiplace build",
				     psiplace_policy_name(c->policy));
	if (rc)
		psiplace_siteconf_free(c);
	return rc;
}

extern int init(void)
{
	char err[PSIPLACE_ERRLEN];

	psiplace_siteconf_init(&ctx.site);
	if (!running_in_slurmctld())
		return SLURM_SUCCESS;
	if (read_site(&ctx.site, err, sizeof(err)) < 0)
		fatal("%s: %s", plugin_type, err);
	verbose("%s loaded, NodeAllocationPolicy=%s", plugin_type,
		psiplace_policy_name(ctx.site.policy));
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
	psiplace_siteconf_free(&ctx.site);
	/* The handle stays open: cons_tres may be Slurm's own instance. */
	memset(&ctx, 0, sizeof(ctx));
	return rc;
}

/* The job's own policy, else the cluster default.  The job environment is
 * hostile: a malformed request is logged (once) and ignored. */
static enum psiplace_policy job_policy(job_record_t *job_ptr)
{
	struct psiplace_jobreq req;
	char err[PSIPLACE_ERRLEN];

	if (psiplace_jobreq_from_env((const char *const *)job_ptr->spank_job_env,
				     job_ptr->spank_job_env_size, &req, err, sizeof(err)) < 0) {
		if (ctx.last_bad_job != job_ptr->job_id) {
			error("%s: %pJ: malformed psiplace request, using the cluster default: %s",
			      plugin_type, job_ptr, err);
			ctx.last_bad_job = job_ptr->job_id;
		}
		return ctx.site.policy;
	}
	if (req.policy != PSIPLACE_POLICY_NONE && !psiplace_policy_supported(req.policy)) {
		if (ctx.last_bad_job != job_ptr->job_id) {
			error("%s: %pJ: policy %s not supported, using the cluster default",
			      plugin_type, job_ptr, psiplace_policy_name(req.policy));
			ctx.last_bad_job = job_ptr->job_id;
		}
		return ctx.site.policy;
	}
	return req.policy != PSIPLACE_POLICY_NONE ? req.policy : ctx.site.policy;
}

struct injection {
	uint32_t n;
	uint32_t *node_inx;  /* slurm node index of each candidate */
	uint64_t *saved;     /* its sched_weight before injection */
};

static void injection_free(struct injection *inj)
{
	xfree(inj->node_inx);
	xfree(inj->saved);
}

static uint64_t encode(uint64_t orig, uint32_t rank, bool overrides)
{
	uint64_t flags = (orig >> 40) & 0x3;
	uint64_t weight = (orig >> 8) & 0xffffffffULL;

	if (rank > RANK_MAX)
		rank = RANK_MAX;
	return (flags << 62) | (overrides ? 0 : weight << 30) | ((uint64_t)rank << 8) |
	       (orig & 0xff);
}

/* Rank the candidates and write their weights.  Only the first `distinct`
 * nodes of the order get distinct ranks, the rest share one tier behind
 * them: distinct weights everywhere would make cons_tres's weight lists
 * quadratic in nodes. */
static int inject(job_record_t *job_ptr, bitstr_t *node_bitmap, enum psiplace_policy policy,
		  uint32_t need, struct injection *inj)
{
	struct psiplace_rank_opts opts = {
		.policy = policy,
		.policy_overrides_weight = ctx.site.policy_overrides_weight,
	};
	struct psiplace_node *nodes;
	uint32_t *order, i, k, distinct;
	char err[PSIPLACE_ERRLEN];
	node_record_t *node_ptr;
	int n = bit_set_count(node_bitmap);

	memset(inj, 0, sizeof(*inj));
	if (!&node_record_table_ptr)
		return -1; /* not inside slurmctld */
	if (n <= 0)
		return 0;
	nodes = xcalloc(n, sizeof(*nodes));
	order = xcalloc(n, sizeof(*order));
	inj->node_inx = xcalloc(n, sizeof(uint32_t));
	inj->saved = xcalloc(n, sizeof(uint64_t));
	for (i = 0, k = 0; (node_ptr = next_node((int *)&i)); i++) {
		if (!bit_test(node_bitmap, i) || k >= (uint32_t)n)
			continue;
		nodes[k].name = node_ptr->name;
		nodes[k].index = i;
		nodes[k].weight = (node_ptr->sched_weight >> 8) & 0xffffffffULL;
		nodes[k].cpus = node_ptr->cpus;
		nodes[k].threads = node_ptr->cpus;
		nodes[k].real_memory = node_ptr->real_memory;
		nodes[k].tmp_disk = node_ptr->tmp_disk;
		nodes[k].speed = 1.0;
		nodes[k].power = true;
		nodes[k].next_resv = -1;
		inj->node_inx[k] = i;
		inj->saved[k] = node_ptr->sched_weight;
		k++;
	}
	inj->n = k;
	if (psiplace_rank(&opts, nodes, k, order, err, sizeof(err)) < 0) {
		error("%s: %pJ: ranking failed, using cons_tres order: %s", plugin_type, job_ptr, err);
		xfree(nodes);
		xfree(order);
		injection_free(inj);
		memset(inj, 0, sizeof(*inj));
		return -1;
	}
	distinct = need * 2 > MIN_DISTINCT ? need * 2 : MIN_DISTINCT;
	for (i = 0; i < k; i++) {
		uint32_t pos = order[i];

		node_ptr = node_record_table_ptr[inj->node_inx[pos]];
		node_ptr->sched_weight = encode(inj->saved[pos], i < distinct ? i : distinct,
						ctx.site.policy_overrides_weight);
	}
	xfree(nodes);
	xfree(order);
	return 0;
}

static void restore(struct injection *inj)
{
	uint32_t i;

	for (i = 0; i < inj->n; i++) {
		node_record_t *node_ptr = node_record_table_ptr[inj->node_inx[i]];

		if (node_ptr)
			node_ptr->sched_weight = inj->saved[i];
	}
	injection_free(inj);
}

extern int select_p_job_test(job_record_t *job_ptr, bitstr_t *node_bitmap,
			     uint32_t min_nodes, uint32_t max_nodes,
			     uint32_t req_nodes, uint16_t mode,
			     List preemptee_candidates, List *preemptee_job_list,
			     bitstr_t *exc_core_bitmap)
{
	struct injection inj;
	enum psiplace_policy policy;
	int rc;

	if (!resolve())
		return SLURM_ERROR;
	if (!job_ptr || job_ptr->magic != JOB_MAGIC || !node_bitmap) {
		error("%s: job record fails its magic check, using cons_tres order", plugin_type);
		return ((job_test_f)ctx.ops.job_test)(job_ptr, node_bitmap, min_nodes, max_nodes,
						      req_nodes, mode, preemptee_candidates,
						      preemptee_job_list, exc_core_bitmap);
	}
	policy = job_policy(job_ptr);
	if (policy == PSIPLACE_POLICY_NONE ||
	    inject(job_ptr, node_bitmap, policy, req_nodes > min_nodes ? req_nodes : min_nodes,
		   &inj) < 0)
		return ((job_test_f)ctx.ops.job_test)(job_ptr, node_bitmap, min_nodes, max_nodes,
						      req_nodes, mode, preemptee_candidates,
						      preemptee_job_list, exc_core_bitmap);
	rc = ((job_test_f)ctx.ops.job_test)(job_ptr, node_bitmap, min_nodes, max_nodes, req_nodes,
					    mode, preemptee_candidates, preemptee_job_list,
					    exc_core_bitmap);
	restore(&inj);
	return rc;
}

extern int select_p_reconfigure(void)
{
	struct psiplace_siteconf next;
	char err[PSIPLACE_ERRLEN];

	if (!resolve())
		return SLURM_ERROR;
	if (running_in_slurmctld()) {
		if (read_site(&next, err, sizeof(err)) < 0) {
			error("%s: keeping the previous configuration: %s", plugin_type, err);
		} else {
			psiplace_siteconf_free(&ctx.site);
			ctx.site = next;
			verbose("%s: NodeAllocationPolicy=%s", plugin_type,
				psiplace_policy_name(ctx.site.policy));
		}
	}
	return ctx.ops.reconfigure();
}

/* Everything else: forwarded unchanged.
 * FWD(return type, value when cons_tres is missing, select_p_ suffix,
 *     slurm_select_ops_t member, parameters, arguments). */
#define FWD(ret, fail, name, member, params, args) \
	extern ret select_p_##name params           \
	{                                           \
		if (!resolve())                     \
			return fail;                \
		return ctx.ops.member args;         \
	}

FWD(int, SLURM_ERROR, state_save, state_save, (char *dir_name), (dir_name))
FWD(int, SLURM_ERROR, state_restore, state_restore, (char *dir_name), (dir_name))
FWD(int, SLURM_ERROR, job_init, job_init, (List job_list), (job_list))
FWD(int, SLURM_ERROR, node_init, node_init, (void), ())
FWD(int, SLURM_ERROR, job_begin, job_begin, (job_record_t *job_ptr), (job_ptr))
FWD(int, SLURM_ERROR, job_ready, job_ready, (job_record_t *job_ptr), (job_ptr))
FWD(int, SLURM_ERROR, job_expand, job_expand, (job_record_t *from_job_ptr, job_record_t *to_job_ptr),
    (from_job_ptr, to_job_ptr))
FWD(int, SLURM_ERROR, job_resized, job_resized, (job_record_t *job_ptr, node_record_t *node_ptr),
    (job_ptr, node_ptr))
FWD(int, SLURM_ERROR, job_signal, job_signal, (job_record_t *job_ptr, int signal), (job_ptr, signal))
FWD(int, SLURM_ERROR, job_fini, job_fini, (job_record_t *job_ptr), (job_ptr))
FWD(int, SLURM_ERROR, job_suspend, job_suspend, (job_record_t *job_ptr, bool indf_susp), (job_ptr, indf_susp))
FWD(int, SLURM_ERROR, job_resume, job_resume, (job_record_t *job_ptr, bool indf_susp), (job_ptr, indf_susp))
FWD(bitstr_t *, NULL, step_pick_nodes, step_pick_nodes,
    (job_record_t *job_ptr, select_jobinfo_t *step_jobinfo, uint32_t node_count,
     bitstr_t **avail_nodes),
    (job_ptr, step_jobinfo, node_count, avail_nodes))
FWD(int, SLURM_ERROR, step_start, step_start, (step_record_t *step_ptr), (step_ptr))
FWD(int, SLURM_ERROR, step_finish, step_finish, (step_record_t *step_ptr, bool killing_step),
    (step_ptr, killing_step))
FWD(int, SLURM_ERROR, select_nodeinfo_pack, nodeinfo_pack,
    (select_nodeinfo_t *nodeinfo, buf_t *buffer, uint16_t protocol_version),
    (nodeinfo, buffer, protocol_version))
FWD(int, SLURM_ERROR, select_nodeinfo_unpack, nodeinfo_unpack,
    (select_nodeinfo_t **nodeinfo, buf_t *buffer, uint16_t protocol_version),
    (nodeinfo, buffer, protocol_version))
FWD(select_nodeinfo_t *, NULL, select_nodeinfo_alloc, nodeinfo_alloc, (void), ())
FWD(int, SLURM_ERROR, select_nodeinfo_free, nodeinfo_free, (select_nodeinfo_t *nodeinfo), (nodeinfo))
FWD(int, SLURM_ERROR, select_nodeinfo_set_all, nodeinfo_set_all, (void), ())
FWD(int, SLURM_ERROR, select_nodeinfo_set, nodeinfo_set, (job_record_t *job_ptr), (job_ptr))
FWD(int, SLURM_ERROR, select_nodeinfo_get, nodeinfo_get,
    (select_nodeinfo_t *nodeinfo, enum select_nodedata_type dinfo, enum node_states state,
     void *data),
    (nodeinfo, dinfo, state, data))
FWD(select_jobinfo_t *, NULL, select_jobinfo_alloc, jobinfo_alloc, (void), ())
FWD(int, SLURM_ERROR, select_jobinfo_free, jobinfo_free, (select_jobinfo_t *jobinfo), (jobinfo))
FWD(int, SLURM_ERROR, select_jobinfo_set, jobinfo_set,
    (select_jobinfo_t *jobinfo, enum select_jobdata_type data_type, void *data),
    (jobinfo, data_type, data))
FWD(int, SLURM_ERROR, select_jobinfo_get, jobinfo_get,
    (select_jobinfo_t *jobinfo, enum select_jobdata_type data_type, void *data),
    (jobinfo, data_type, data))
FWD(select_jobinfo_t *, NULL, select_jobinfo_copy, jobinfo_copy, (select_jobinfo_t *jobinfo), (jobinfo))
FWD(int, SLURM_ERROR, select_jobinfo_pack, jobinfo_pack,
    (select_jobinfo_t *jobinfo, buf_t *buffer, uint16_t protocol_version),
    (jobinfo, buffer, protocol_version))
FWD(int, SLURM_ERROR, select_jobinfo_unpack, jobinfo_unpack,
    (select_jobinfo_t **jobinfo, buf_t *buffer, uint16_t protocol_version),
    (jobinfo, buffer, protocol_version))
FWD(char *, NULL, select_jobinfo_sprint, jobinfo_sprint,
    (select_jobinfo_t *jobinfo, char *buf, size_t size, int mode), (jobinfo, buf, size, mode))
FWD(char *, NULL, select_jobinfo_xstrdup, jobinfo_xstrdup, (select_jobinfo_t *jobinfo, int mode),
    (jobinfo, mode))
FWD(int, SLURM_ERROR, get_info_from_plugin, get_info_from_plugin,
    (enum select_plugindata_info dinfo, job_record_t *job_ptr, void *data),
    (dinfo, job_ptr, data))
FWD(int, SLURM_ERROR, update_node_config, update_node_config, (int index), (index))
FWD(bitstr_t *, NULL, resv_test, resv_test,
    (resv_desc_msg_t *resv_desc_ptr, uint32_t node_cnt, bitstr_t *avail_bitmap,
     bitstr_t **core_bitmap),
    (resv_desc_ptr, node_cnt, avail_bitmap, core_bitmap))
