/* psiplace map: the ParaStation backend (options of SPEC §2's PSI task
 * placement rows).  The same request parser and placement code as the
 * SPANK plugin; a dry run may show user CPU maps whatever a cluster
 * allows. */
#include <stdlib.h>
#include <string.h>

#include "map_backend.h"
#include "psiplace/error.h"
#include "psiplace/psi_slots.h"
#include "psiplace/user_request.h"

/* The options that choose this backend; the node-choice ones have no
 * effect on one map but are accepted as srun accepts them. */
static const enum psiplace_opt claimed[] = {
	PSIPLACE_OPT_TPP,        PSIPLACE_OPT_CPUMAP,     PSIPLACE_OPT_LOOP_NODES_FIRST,
	PSIPLACE_OPT_OVERBOOK,   PSIPLACE_OPT_NO_PINPROC, PSIPLACE_OPT_NO_BINDMEM,
	PSIPLACE_OPT_EXCLUSIVE,  PSIPLACE_OPT_WAIT,
};

static const char *const env_vars[] = {
	"PSI_TPP", "__PSI_CPUMAP", "PSI_LOOP_NODES_FIRST", "PSI_OVERBOOK", "__PSI_NO_PINPROC",
	"__PSI_NO_BINDMEM", "__PSI_NO_MEMBIND", "PSI_EXCLUSIVE", "PSI_WAIT",
};

struct psi_state {
	struct psiplace_opts opts;
	struct psiplace_siteconf site;
	int env; /* --env given */
};

static void *psi_create(void)
{
	struct psi_state *s = calloc(1, sizeof(*s));

	if (s) {
		psiplace_opts_init(&s->opts);
		psiplace_siteconf_init(&s->site);
		s->site.allow_user_cpumap = true;
		s->site.placement = PSIPLACE_PLACEMENT_PSI;
	}
	return s;
}

static void psi_destroy(void *st)
{
	struct psi_state *s = st;

	if (!s)
		return;
	psiplace_opts_free(&s->opts);
	psiplace_siteconf_free(&s->site);
	free(s);
}

static int claimed_opt(const char *opt)
{
	size_t i;
	int o;

	if (strncmp(opt, "--", 2) || (o = psiplace_opt_lookup(opt + 2)) < 0)
		return -1;
	for (i = 0; i < sizeof(claimed) / sizeof(claimed[0]); i++)
		if ((int)claimed[i] == o)
			return o;
	return -1;
}

static enum map_opt_kind psi_option_kind(const char *opt)
{
	int o = claimed_opt(opt);

	if (o < 0)
		return MAP_OPT_NOT_MINE;
	return psiplace_opt_has_arg(o) ? MAP_OPT_VALUE : MAP_OPT_FLAG;
}

static int psi_apply(void *st, const char *opt, const char *value, psiplace_error_t *err)
{
	struct psi_state *s = st;
	int o = claimed_opt(opt);

	if (o < 0 || psiplace_user_request_check_option(o, value, &s->site, err) < 0)
		return -1;
	return psiplace_opts_set(&s->opts, o, value) < 0 ? psiplace_seterr(err, "out of memory") : 0;
}

static int psi_apply_env(void *st, int *used, psiplace_error_t *err)
{
	struct psi_state *s = st;
	size_t i;

	(void)err;
	s->env = 1;
	for (i = 0; i < sizeof(env_vars) / sizeof(env_vars[0]); i++)
		if (getenv(env_vars[i]))
			*used = 1;
	return 0;
}

static const char *env_get(const char *name, void *arg)
{
	(void)arg;
	return getenv(name);
}

static void add_param(struct map_result *out, const char *name, const char *text)
{
	if (out->nparams == MAP_MAX_PARAMS)
		return;
	out->param_name[out->nparams] = name;
	snprintf(out->param_value[out->nparams], sizeof(out->param_value[0]), "%s", text);
	out->nparams++;
}

static int fill(const struct psiplace_user_request *r, size_t ntasks, const unsigned *node_of,
		const struct psiplace_binding *b, struct map_result *out, psiplace_error_t *err)
{
	size_t i;

	char tpp[16];

	snprintf(tpp, sizeof(tpp), "%u", r->tpp);
	out->backend = "psi";
	add_param(out, "tpp", tpp);
	add_param(out, "loop_nodes_first", r->loop_nodes_first ? "yes" : "no");
	add_param(out, "overbook", r->overbook ? "yes" : "no");
	add_param(out, "cpumap", r->cpumap_from ? r->own.val[PSIPLACE_OPT_CPUMAP] : "none");
	add_param(out, "pin", r->pin ? "yes" : "no");
	add_param(out, "bindmem", r->bindmem ? "yes" : "no");
	out->ntasks = ntasks;
	if (!(out->task = calloc(ntasks ? ntasks : 1, sizeof(*out->task))))
		return psiplace_seterr(err, "out of memory for %zu tasks", ntasks);
	for (i = 0; i < ntasks; i++) {
		struct map_task *t = &out->task[i];

		t->node = node_of[i];
		t->pos_os = hwloc_bitmap_first(b[i].cpus);
		t->cpus = hwloc_bitmap_dup(b[i].cpus);
		t->mems = hwloc_bitmap_dup(b[i].mems);
		if (!t->cpus || !t->mems)
			return psiplace_seterr(err, "out of memory for %zu tasks", ntasks);
	}
	return 0;
}

static int psi_place(void *st, unsigned nnodes, const struct psiplace_topo *const *topo,
		     size_t ntasks, const unsigned *tasks_per_node, struct map_result *out,
		     psiplace_error_t *err)
{
	struct psi_state *s = st;
	struct psiplace_user_request_src src = { s->env ? env_get : NULL, NULL, &s->opts, &s->site, false };
	struct psiplace_user_request r;
	struct psiplace_psi_opts o;
	struct psiplace_binding *b = NULL;
	unsigned *node_of = NULL;
	int rc = -1;

	if (ntasks > 0xffffffffu)
		return psiplace_seterr(err, "-n: at most %u tasks", 0xffffffffu);
	if (psiplace_user_request_gather(&src, &r, err) < 0)
		return -1;
	if (r.warning[0])
		fprintf(stderr, "psiplace: warning: %s\n", r.warning);
	psiplace_psi_opts_of_request(&r, &o);
	if (!(b = psiplace_bindings_new(ntasks)) || !(node_of = calloc(ntasks ? ntasks : 1, sizeof(*node_of))))
		psiplace_seterr(err, "out of memory for %zu tasks", ntasks);
	else if (psiplace_psi_map(topo, nnodes, (unsigned)ntasks, tasks_per_node, &o, node_of, b, err) == 0)
		rc = fill(&r, ntasks, node_of, b, out, err);
	psiplace_bindings_free(b, ntasks);
	free(node_of);
	psiplace_user_request_free(&r);
	return rc;
}

const struct map_backend map_backend_psi = {
	.name = "psi",
	.is_default = 0,
	.create = psi_create,
	.destroy = psi_destroy,
	.option_kind = psi_option_kind,
	.apply = psi_apply,
	.apply_env = psi_apply_env,
	.place = psi_place,
};
