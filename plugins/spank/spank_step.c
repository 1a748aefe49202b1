/* The step side (slurmstepd, remote context): one topology load per step
 * in user_init, every local task's binding computed there by a placement
 * backend, each task bound in its own task_init. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "psiplace/error.h"
#include "psiplace/hostlist.h"
#include "psiplace/lama_launch.h"
#include "psiplace/psi_slots.h"
#include "psiplace/request_launch.h"
#include "psiplace/textparse.h"
#include "spank_ctx.h"
#include "spank_psets.h"

#define ctx psiplace_spank

static int spank_psi_backend(const struct psiplace_user_request *r, const struct psiplace_topo *t,
			     const struct psiplace_step *step, struct psiplace_binding *out,
			     psiplace_error_t *err)
{
	struct psiplace_psi_opts o;

	psiplace_psi_opts_of_request(r, &o);
	return psiplace_psi_place_node(t, &o, step->nlocal, out, err);
}

/* LAMA: the layout checked against LAMA's node order, then this node's
 * tasks mapped from its own topology (psiplace/lama_launch.h). */
static int spank_lama_backend(const struct psiplace_user_request *r, const struct psiplace_topo *t,
			      const struct psiplace_step *step, struct psiplace_binding *out,
			      psiplace_error_t *err)
{
	struct psiplace_lama_opts o;

	if (psiplace_lama_opts_of_request(r, &o, err) < 0)
		return -1;
	return psiplace_lama_place_node(&o, r->pin, r->bindmem, t, step, out, ctx.note,
					sizeof(ctx.note), err);
}

/* Variables of the job, not of slurmstepd. */
static const char *job_getenv(const char *name, void *arg)
{
	char **env = arg;
	size_t n = strlen(name);

	for (; env && *env; env++)
		if (!strncmp(*env, name, n) && (*env)[n] == '=')
			return *env + n + 1;
	return NULL;
}

/* This node's name, as slurmd knows it.  slurmstepd's main() puts
 * SLURMD_NODENAME into its own process environment from the configuration
 * slurmd sends it over their pipe (conf->node_name; 22.05 to 26.05
 * slurmstepd.c), before any plugin is loaded; nothing of the user's reaches
 * that environment.  The job's environment (S_JOB_ENV: SLURM_STEP_NODELIST,
 * its SLURMD_NODENAME) is srun's, which is not setuid: the user can write
 * it, and TopologyFile=...%n would then make slurmstepd parse a file of
 * their choosing (doc/psiplace.8, TopologyFile). */
static void node_name(void)
{
	const char *name = getenv("SLURMD_NODENAME");

	snprintf(ctx.node_name, sizeof(ctx.node_name), "%s", name ? name : "");
}

static int step_layout(spank_t sp, char **env, psiplace_error_t *err)
{
	struct psiplace_step *s = &ctx.step;
	const char *tpn = job_getenv("SLURM_STEP_TASKS_PER_NODE", env);
	uint32_t i, g;

	uint32_t nnodes = 0;

	memset(s, 0, sizeof(*s));
	if (spank_get_item(sp, S_JOB_NODEID, &s->node) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_NNODES, &nnodes) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &s->nlocal) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_TOTAL_TASK_COUNT, &s->ntasks) != ESPANK_SUCCESS)
		return psiplace_seterr(err, "Slurm does not tell the step's layout");
	node_name();
	s->node_name = ctx.node_name;
	s->lama_layout = job_getenv("PSIPLACE_LAMA_LAYOUT", env);
	/* The user's copy of the layout, held against Slurm's own counts:
	 * every later use (LAMA's check, the node of every rank) relies on it. */
	if (tpn && psiplace_step_tasks_per_node(tpn, "SLURM_STEP_TASKS_PER_NODE", nnodes, s->ntasks,
						s->node, s->nlocal, &s->tasks_per_node, err) < 0)
		return -1;
	if (tpn)
		s->nnodes = nnodes;
	if (!(s->gtids = calloc(s->nlocal ? s->nlocal : 1, sizeof(*s->gtids))))
		return psiplace_seterr(err, "out of memory");
	for (i = 0; i < s->nlocal; i++) {
		if (spank_get_item(sp, S_JOB_LOCAL_TO_GLOBAL_ID, i, &g) != ESPANK_SUCCESS)
			return psiplace_seterr(err, "Slurm does not tell task %u's global id", i);
		s->gtids[i] = g;
	}
	return 0;
}

/* TopologyFile=.../%n.xml: a node without its file is a real node. */
static int load_topology(psiplace_error_t *err)
{
	char path[1024];
	const char *desc = NULL;

	if (ctx.site.topology_file && *ctx.site.topology_file) {
		if (psiplace_topology_path(ctx.site.topology_file, ctx.node_name, path, sizeof(path),
					   err) < 0)
			return -1;
		if (!strstr(ctx.site.topology_file, "%n") || access(path, F_OK) == 0)
			desc = path;
	}
	if (psiplace_hwloc_open(desc, &ctx.topo, err) < 0) {
		psiplace_error_t msg = *err;

		ctx.topo = NULL;
		return psiplace_seterr(err, "TopologyFile: %s", msg.text);
	}
	return 0;
}

/* The step's CPUs from Slurm's abstract core ids. */
static int step_cpus(spank_t sp, hwloc_bitmap_t cpus, psiplace_error_t *err)
{
	char *cores = NULL;

	if (spank_get_item(sp, S_STEP_ALLOC_CORES, &cores) != ESPANK_SUCCESS || !cores || !*cores)
		return psiplace_seterr(err, "Slurm does not tell the step's allocated cores");
	return psiplace_topo_cpus_of_cores(ctx.topo, cores, cpus, err);
}

static int build_bind_list(void)
{
	if (psiplace_bindings_mask_list(ctx.bind, ctx.step.nlocal, &ctx.bind_list) < 0)
		return -1;
	/* SLURM_CPU_BIND of every task: whole, however many tasks and CPUs */
	if (asprintf(&ctx.cpu_bind, "quiet,mask_cpu:%s", ctx.bind_list) < 0) {
		ctx.cpu_bind = NULL;
		return -1;
	}
	return 0;
}

/* The step's node names for psiplace://node/NAME.  SLURM_STEP_NODELIST is
 * the user's copy as well: used only with Slurm's node count and this
 * node's own name (slurmd's) at this node's index; else a note. */
static bool step_node_names(const char *list, struct psiplace_hostlist *hl)
{
	const struct psiplace_step *s = &ctx.step;
	psiplace_error_t e;

	if (!list || !s->tasks_per_node)
		return false;
	if (psiplace_hostlist_expand(list, "SLURM_STEP_NODELIST", hl, &e) < 0) {
		snprintf(ctx.note, sizeof(ctx.note), "no per-node process sets: %.400s", e.text);
		return false;
	}
	if (hl->n == s->nnodes && s->node < hl->n && !strcmp(hl->host[s->node], ctx.node_name))
		return true;
	snprintf(ctx.note, sizeof(ctx.note),
		 "no per-node process sets: SLURM_STEP_NODELIST does not name the step's %u node%s with this node (%.64s) as node %u",
		 s->nnodes, s->nnodes == 1 ? "" : "s", ctx.node_name, s->node);
	return false;
}

/* The step's process sets (doc/psets.md): step-wide ones from the layout,
 * the node's topology ones from the placement when psiplace placed. */
static int publish_psets(spank_t sp, char **env, const struct psiplace_user_request *r, bool placed,
			 psiplace_error_t *err)
{
	struct spank_psets_layout l;
	struct psiplace_hostlist hl = { 0 };
	const char *list = job_getenv("SLURM_STEP_NODELIST", env);
	psiplace_error_t e;
	uint32_t i;
	int rc = -1;

	if (!r->psets)
		return 0;
	memset(&l, 0, sizeof(l));
	if (!placed && step_layout(sp, env, err) < 0)
		return -1;
	l.ntasks = ctx.step.ntasks;
	l.nlocal = ctx.step.nlocal;
	l.gtids = ctx.step.gtids;
	l.node = ctx.step.node_name;
	if (step_node_names(list, &hl) && (l.node_of = calloc(l.ntasks ? l.ntasks : 1, sizeof(uint32_t)))) {
		l.nnodes = ctx.step.nnodes;
		l.node_names = hl.host;
		if (psiplace_psets_rank_nodes(ctx.step.tasks_per_node, l.nnodes, l.ntasks,
					      job_getenv("SLURM_DISTRIBUTION", env), ctx.step.lama_layout,
					      l.node_of, &e) < 0) {
			free(l.node_of);
			l.node_of = NULL;
			snprintf(ctx.note, sizeof(ctx.note), "no per-node process sets: %.400s", e.text);
		}
	}
	if (placed) {
		hwloc_const_bitmap_t *cpus = calloc(l.nlocal ? l.nlocal : 1, sizeof(*cpus));

		if (!cpus) {
			psiplace_seterr(err, "out of memory");
			goto out;
		}
		for (i = 0; i < l.nlocal; i++)
			cpus[i] = ctx.bind[i].cpus;
		rc = psiplace_psets_topo_objs(&ctx.table, cpus, l.nlocal, r->pset_levels, l.obj, err);
		free(cpus);
		if (rc < 0)
			goto out;
		rc = -1;
	}
	if (!placed && (r->pset_levels & ~(unsigned)PSIPLACE_PSET_LEVEL_NODE))
		snprintf(ctx.note, sizeof(ctx.note),
			 "socket, numa, l3 and core process sets need psiplace's placement (e.g. --psi-tpp or --psi-map-by)");
	rc = spank_psets_publish(sp, env, r, &l, err);
	ctx.report_psets = r->verbose || r->dry_run || ctx.verbose;
out:
	psiplace_psets_topo_objs_free(l.obj);
	free(l.node_of);
	psiplace_hostlist_free(&hl);
	return rc;
}

/* Heterogeneous jobs: mpi/pmix names every step of one
 * slurm.pmix.HETJOB.STEP (HETJOB the first component's job id) and numbers
 * a step's ranks across its components, while Slurm tells each
 * component's stepd only the component's own job id, ranks and task
 * count.  psiplace refuses them (srun does before submission; this is the
 * backstop).  srun writes the whole step's task count and the first
 * component's job id into the launch environment. */
static bool env_u32(char **env, const char *name, uint64_t *v)
{
	const char *s = job_getenv(name, env);

	return s && psiplace_parse_u64(s, strlen(s), UINT32_MAX, v);
}

/* A step of several components. */
static bool het_step(spank_t sp, char **env)
{
	uint32_t mine = 0;
	uint64_t all;

	if (!job_getenv("SLURM_STEP_NUM_TASKS", env) ||
	    spank_get_item(sp, S_JOB_TOTAL_TASK_COUNT, &mine) != ESPANK_SUCCESS)
		return false;
	return !env_u32(env, "SLURM_STEP_NUM_TASKS", &all) || all != mine;
}

/* A step in a component other than the first: its namespace is not its
 * own job id's. */
static bool het_component(spank_t sp, char **env)
{
	uint32_t id = 0;
	uint64_t first;

	return job_getenv("SLURM_JOB_ID", env) && spank_get_item(sp, S_JOB_ID, &id) == ESPANK_SUCCESS &&
	       (!env_u32(env, "SLURM_JOB_ID", &first) || first != id);
}

/* The error once: from the first node of the step's first component. */
static bool het_reporter(spank_t sp, char **env)
{
	uint32_t node = 1;

	return (!het_step(sp, env) || !het_component(sp, env)) &&
	       spank_get_item(sp, S_JOB_NODEID, &node) == ESPANK_SUCCESS && node == 0;
}

static int refuse_het(spank_t sp, char **env, const struct psiplace_user_request *r,
		      psiplace_error_t *err)
{
	ctx.quiet_error = !het_reporter(sp, env);
	node_name();
	return psiplace_seterr(err, "%s: psiplace does not support heterogeneous jobs or steps (components separated by ':', or srun --het-group): run each component as a job or step of its own, or drop the --psi-* options and PSI_* variables",
			       r->psets ? "--psi-pset" : r->place_why ? r->place_why : "psiplace placement");
}

static int place_step(spank_t sp, char **env, psiplace_error_t *err)
{
	struct psiplace_user_request_src src = { job_getenv, env, &ctx.cbopts, &ctx.site, false };
	struct psiplace_user_request r;
	hwloc_bitmap_t cpus = NULL;
	psiplace_backend_fn backend = spank_psi_backend;
	int rc = -1;

	uint32_t stepid = 0;

	/* The batch script and the extern step are no tasks to place. */
	if (spank_get_item(sp, S_JOB_STEPID, &stepid) == ESPANK_SUCCESS &&
	    (stepid == SLURM_BATCH_SCRIPT || stepid == SLURM_EXTERN_CONT ||
	     stepid == SLURM_INTERACTIVE_STEP))
		return 0;
	if (psiplace_user_request_gather(&src, &r, err) < 0)
		return -1;
	if (((r.place || r.psets) && het_step(sp, env)) || (r.psets && het_component(sp, env))) {
		refuse_het(sp, env, &r, err);
		psiplace_user_request_free(&r);
		return -1;
	}
	ctx.place = r.place;
	ctx.dry_run = r.dry_run;
	ctx.report = r.verbose || r.dry_run || ctx.verbose;
	if (!r.place) {
		rc = publish_psets(sp, env, &r, false, err);
		psiplace_user_request_free(&r);
		/* a failure is the tasks' to report, as a placement failure is */
		ctx.place = rc < 0;
		return rc;
	}
	if (r.lama)
		backend = spank_lama_backend;
	if (step_layout(sp, env, err) < 0 || load_topology(err) < 0 ||
	    !(cpus = hwloc_bitmap_alloc()) || step_cpus(sp, cpus, err) < 0 ||
	    psiplace_topo_from_hwloc(ctx.topo, cpus, &ctx.table, err) < 0)
		goto out;
	if (!ctx.table.is_this_system && !ctx.dry_run) {
		psiplace_seterr(err,
				"TopologyFile describes another machine: binding needs this node's real topology (--psi-dry-run reports the placement without binding)");
		goto out;
	}
	if (!(ctx.bind = psiplace_bindings_new(ctx.step.nlocal))) {
		psiplace_seterr(err, "out of memory");
		goto out;
	}
	if (backend(&r, &ctx.table, &ctx.step, ctx.bind, err) < 0)
		goto out;
	if (build_bind_list() < 0) {
		psiplace_seterr(err, "out of memory");
		goto out;
	}
	rc = publish_psets(sp, env, &r, true, err);
out:
	hwloc_bitmap_free(cpus);
	psiplace_user_request_free(&r);
	return rc;
}

int spank_step_user_init(spank_t sp)
{
	char **env = NULL;

	ctx.step_error.text[0] = '\0';
	ctx.quiet_error = false;
	ctx.note[0] = '\0';
	ctx.place = false;
	if (spank_get_item(sp, S_JOB_ENV, &env) != ESPANK_SUCCESS)
		env = NULL;
	/* A failure is reported by the tasks (their stderr is the user's)
	 * and fails them: the step never runs with a binding not asked for. */
	if (place_step(sp, env, &ctx.step_error) < 0) {
		ctx.place = true;
		if (!ctx.step_error.text[0])
			psiplace_seterr(&ctx.step_error, "placement failed");
		/* slurm_error would reach the user too: the tasks report it once. */
		slurm_info("psiplace: %s", ctx.step_error.text);
	}
	return 0;
}

static int bind_task(const struct psiplace_binding *b, psiplace_error_t *err)
{
	if (!hwloc_bitmap_iszero(b->cpus) &&
	    hwloc_set_cpubind(ctx.topo, b->cpus, HWLOC_CPUBIND_PROCESS) < 0)
		return psiplace_seterr(err, "cannot bind to CPUs: %s", strerror(errno));
	/* One NUMA node on the machine: binding to it changes nothing. */
	if (!hwloc_bitmap_iszero(b->mems) &&
	    hwloc_get_nbobjs_by_type(ctx.topo, HWLOC_OBJ_NUMANODE) > 1 &&
	    hwloc_set_membind(ctx.topo, b->mems, HWLOC_MEMBIND_BIND,
			      HWLOC_MEMBIND_PROCESS | HWLOC_MEMBIND_BYNODESET) < 0)
		return psiplace_seterr(err, "cannot bind memory to NUMA nodes: %s", strerror(errno));
	return 0;
}

static void export_binding(spank_t sp, const struct psiplace_binding *b, const char *cpus,
			   const char *mems)
{
	bool bound = !hwloc_bitmap_iszero(b->cpus);

	spank_setenv(sp, "PSIPLACE_CPUS", cpus, 1);
	spank_setenv(sp, "PSIPLACE_MEMS", mems, 1);
	if (ctx.dry_run)
		return; /* Slurm's binding stands: SLURM_CPU_BIND* still tell it */
	spank_setenv(sp, "SLURM_CPU_BIND_TYPE", bound ? "mask_cpu:" : "none", 1);
	spank_setenv(sp, "SLURM_CPU_BIND_LIST", bound ? ctx.bind_list : "", 1);
	spank_setenv(sp, "SLURM_CPU_BIND", bound ? ctx.cpu_bind : "quiet,none", 1);
}

/* --psi-verbose: the sets this node defined, once per node. */
static void report_psets(void)
{
	const struct psiplace_psets *ps = spank_psets();
	char ranks[256];
	size_t i;

	if (!ctx.report_psets)
		return;
	if (ctx.pset_note[0])
		fprintf(stderr, "psiplace: %s: %s\n", ctx.step.node_name, ctx.pset_note);
	for (i = 0; i < ps->n; i++) {
		psiplace_pset_ranks_string(&ps->set[i], ranks, sizeof(ranks));
		fprintf(stderr, "psiplace: %s: process set %s: ranks %s\n", ctx.step.node_name,
			ps->set[i].name, ranks);
	}
}

int spank_step_task_init(spank_t sp)
{
	char *cpus = NULL, *mems = NULL;
	psiplace_error_t err;
	uint32_t global = 0;
	int local = 0;
	const struct psiplace_binding *b;

	if (spank_get_item(sp, S_TASK_ID, &local) != ESPANK_SUCCESS)
		local = 0;
	if (!ctx.place) {
		if (local == 0 && ctx.report_psets && ctx.note[0])
			fprintf(stderr, "psiplace: %s: %s\n", ctx.node_name, ctx.note);
		if (local == 0)
			report_psets();
		return 0;
	}
	if (ctx.step_error.text[0]) {
		if (local == 0 && !ctx.quiet_error)
			fprintf(stderr, "psiplace: error: %s: %s\n", ctx.node_name[0] ? ctx.node_name : "?",
				ctx.step_error.text);
		return -1;
	}
	if (local < 0 || (uint32_t)local >= ctx.step.nlocal)
		return -1;
	spank_get_item(sp, S_TASK_GLOBAL_ID, &global);
	b = &ctx.bind[local];
	/* Both lists whole, or no task: never a cut or unwritten one. */
	if (psiplace_binding_lists(b, &cpus, &mems) < 0) {
		fprintf(stderr, "psiplace: error: %s task %u: out of memory for PSIPLACE_CPUS and PSIPLACE_MEMS\n",
			ctx.step.node_name, global);
		return -1;
	}
	if (!ctx.dry_run && bind_task(b, &err) < 0) {
		fprintf(stderr, "psiplace: error: %s task %u: %s\n", ctx.step.node_name, global, err.text);
		free(cpus);
		free(mems);
		return -1;
	}
	export_binding(sp, b, cpus, mems);
	if (ctx.report && local == 0 && ctx.note[0])
		fprintf(stderr, "psiplace: %s: %s\n", ctx.step.node_name, ctx.note);
	if (local == 0)
		report_psets();
	if (ctx.report)
		fprintf(stderr, "psiplace: %s task %u (local %d): cpus %s mems %s%s\n", ctx.step.node_name,
			global, local, cpus, mems, ctx.dry_run ? " (dry run: not bound)" : "");
	free(cpus);
	free(mems);
	return 0;
}

void spank_step_exit(void)
{
	spank_psets_exit();
	psiplace_bindings_free(ctx.bind, ctx.step.nlocal);
	ctx.bind = NULL;
	free(ctx.bind_list);
	ctx.bind_list = NULL;
	free(ctx.cpu_bind);
	ctx.cpu_bind = NULL;
	psiplace_topo_free(&ctx.table);
	if (ctx.topo)
		hwloc_topology_destroy(ctx.topo);
	ctx.topo = NULL;
	psiplace_step_free(&ctx.step);
}
