/* psiplace map: dry run of a step's task placement and binding on given
 * node topologies, as text, JSON or a picture.  The options go through
 * the request gatherer srun and slurmstepd use; the request chooses the
 * backend as in slurmstepd: LAMA when a LAMA input is given, PSI when
 * psiplace places the step or a PSI placement option is given, else
 * LAMA's defaults. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "map_args.h"
#include "map_backend.h"
#include "psiplace/error.h"
#include "psiplace/hostlist.h"
#include "psiplace/psets.h"
#include "psiplace/lama_launch.h"
#include "psiplace/request_launch.h"
#include "psiplace/textparse.h"

static int parse_tpn_count(const char *s, unsigned long *v)
{
	uint64_t u;

	if (psiplace_parse_u64(s, strlen(s), MAP_MAX_TASKS, &u) && u >= 1) {
		*v = (unsigned long)u;
		return 0;
	}
	return cli_usage_error("--tasks-per-node: '%s' is not an integer from 1 to %lu", s, MAP_MAX_TASKS);
}

/* --tasks-per-node: one count for every node, or one per node. */
static int parse_tpn(struct map_args *a, unsigned *tpn)
{
	const char *s = a->tpn;
	unsigned long v = 0, sum = 0;
	unsigned k = 0;
	char buf[16];

	while (*s && k < a->nodes) {
		size_t len = strcspn(s, ",");

		if (len >= sizeof(buf))
			len = sizeof(buf) - 1;
		memcpy(buf, s, len);
		buf[len] = '\0';
		if (!strcmp(buf, "0"))
			v = 0;
		else if (parse_tpn_count(buf, &v))
			return 2;
		tpn[k++] = (unsigned)v;
		sum += v;
		s += strcspn(s, ",");
		if (*s == ',')
			s++;
	}
	if (k == 1)
		for (sum = tpn[0]; k < a->nodes; k++, sum += tpn[0])
			tpn[k] = tpn[0];
	if (k != a->nodes || *s)
		return cli_usage_error("--tasks-per-node: give one count, or one per node (%lu)", a->nodes);
	if (a->have_ntasks && sum != a->ntasks)
		return cli_usage_error("--tasks-per-node adds up to %lu tasks, -n says %lu", sum, a->ntasks);
	a->ntasks = sum;
	return 0;
}

/* One node's table: its topology (the opener slurmstepd uses), restricted
 * to the step's cores when --cores gives them, as slurmstepd restricts it
 * to S_STEP_ALLOC_CORES. */
static int load_one(const char *desc, const char *cores, struct psiplace_topo *t,
		    psiplace_error_t *err)
{
	hwloc_topology_t topo;
	hwloc_bitmap_t cpus = NULL;
	int rc = 0;

	if (psiplace_hwloc_open(desc, &topo, err) < 0) {
		fprintf(stderr, "psiplace: error: --topology: %s\n", err->text);
		return -1;
	}
	if (cores && (!(cpus = hwloc_bitmap_alloc()) ||
		      psiplace_topo_cpus_of_cores(topo, cores, cpus, err) < 0)) {
		fprintf(stderr, "psiplace: error: --cores: %s\n", cpus ? err->text : "out of memory");
		rc = -1;
	} else if (psiplace_topo_from_hwloc(topo, cpus, t, err) < 0) {
		fprintf(stderr, "psiplace: error: --topology: %s\n", err->text);
		rc = -1;
	}
	hwloc_bitmap_free(cpus);
	hwloc_topology_destroy(topo);
	return rc;
}

static int load_topologies(const struct map_args *a, struct psiplace_topo *loaded,
			   const struct psiplace_topo **topo, const char **desc, psiplace_error_t *err)
{
	unsigned k, i;

	for (k = 0; k < a->ntopo; k++)
		if (load_one(a->topo_desc[k], a->cores, &loaded[k], err) < 0) {
			while (k--)
				psiplace_topo_free(&loaded[k]);
			return 1;
		}
	for (i = 0; i < a->nodes; i++) {
		k = i < a->ntopo ? i : a->ntopo - 1;
		topo[i] = &loaded[k];
		desc[i] = a->topo_desc[k];
	}
	return 0;
}

/* A PSI task placement option or variable looked up by the gatherer. */
static bool psi_placement_given(const struct psiplace_user_request *r)
{
	int o;

	for (o = 0; o < PSIPLACE_OPT_COUNT; o++)
		if (psiplace_opt_table[o].group == PSIPLACE_OPTGRP_PLACEMENT && r->own.val[o])
			return true;
	return false;
}

static int place(const struct map_args *a, const struct psiplace_user_request *r,
		 const struct psiplace_lama_opts *lama, const struct psiplace_topo **topo,
		 const unsigned *tpn, struct map_result *out, psiplace_error_t *err)
{
	if (lama)
		return map_lama_place(lama, (unsigned)a->nodes, topo, a->ntasks, tpn, out, err);
	return map_psi_place(r, (unsigned)a->nodes, topo, a->ntasks, tpn, out, err);
}

/* The names of the nodes in the process sets: --nodelist or node0, node1... */
static int node_names(const struct map_args *a, unsigned nnodes, struct psiplace_hostlist *hl,
		      psiplace_error_t *err)
{
	size_t len = 0, o = 0;
	unsigned n;

	if (a->nodelist) {
		if (psiplace_hostlist_expand(a->nodelist, "--nodelist", hl, err) < 0)
			return -1;
		if (hl->n != nnodes)
			return psiplace_seterr(err, "--nodelist: %zu names for %u nodes", hl->n, nnodes);
		return 0;
	}
	for (n = 0; n < nnodes; n++)
		len += (size_t)snprintf(NULL, 0, "node%u", n) + 1;
	hl->host = calloc(nnodes, sizeof(*hl->host));
	hl->buf = malloc(len ? len : 1);
	if (!hl->host || !hl->buf)
		return psiplace_seterr(err, "out of memory");
	for (n = 0; n < nnodes; n++) {
		hl->host[n] = hl->buf + o;
		o += (size_t)snprintf(hl->buf + o, len - o, "node%u", n) + 1;
	}
	hl->n = nnodes;
	return 0;
}

/* The sets the step would get, by the library calls slurmstepd makes:
 * the step-wide ones, then each node's topology sets. */
static int map_psets(const struct map_args *a, const struct psiplace_user_request *r,
		     const struct map_result *res, struct psiplace_hostlist *hl,
		     struct psiplace_psets *out, psiplace_error_t *err)
{
	uint32_t *node_of = calloc(res->ntasks ? res->ntasks : 1, sizeof(*node_of));
	uint32_t *ranks = calloc(res->ntasks ? res->ntasks : 1, sizeof(*ranks));
	hwloc_const_bitmap_t *cpus = calloc(res->ntasks ? res->ntasks : 1, sizeof(*cpus));
	int *obj[PSIPLACE_PSET_NLEVELS] = { NULL };
	unsigned n;
	size_t i, nlocal;
	int rc = -1;

	psiplace_psets_init(out);
	if (!node_of || !ranks || !cpus) {
		psiplace_seterr(err, "out of memory");
		goto done;
	}
	if (node_names(a, res->nnodes, hl, err) < 0)
		goto done;
	for (i = 0; i < res->ntasks; i++)
		node_of[i] = res->task[i].node;
	if (psiplace_psets_step(&r->user_psets, (uint32_t)res->ntasks, res->nnodes,
				(const char *const *)hl->host, node_of, out, err) < 0)
		goto done;
	for (n = 0; n < res->nnodes; n++) {
		for (i = 0, nlocal = 0; i < res->ntasks; i++)
			if (res->task[i].node == n) {
				ranks[nlocal] = (uint32_t)i;
				cpus[nlocal++] = res->task[i].cpus;
			}
		if (psiplace_psets_topo_objs(res->topo[n], cpus, nlocal, r->pset_levels, obj, err) < 0)
			goto done;
		rc = psiplace_psets_node_levels(hl->host[n], r->pset_levels, nlocal, ranks,
						(const int *const *)obj, out, err);
		psiplace_psets_topo_objs_free(obj);
		if (rc < 0)
			goto done;
		rc = -1;
	}
	rc = 0;
done:
	if (rc < 0)
		psiplace_psets_free(out);
	free(node_of);
	free(ranks);
	free(cpus);
	return rc;
}

static int run(struct map_args *a, const struct psiplace_user_request *r,
	       const struct psiplace_lama_opts *lama, psiplace_error_t *err)
{
	struct psiplace_topo loaded[MAP_MAX_TOPOLOGIES];
	const struct psiplace_topo **topo = calloc(a->nodes, sizeof(*topo));
	const char **desc = calloc(a->nodes, sizeof(*desc));
	unsigned *tpn = a->tpn ? calloc(a->nodes, sizeof(unsigned)) : NULL;
	struct map_result res;
	struct psiplace_psets sets;
	struct psiplace_hostlist hl = { 0 };
	unsigned k;
	int rc = 1;

	memset(&res, 0, sizeof(res));
	if (!topo || !desc || (a->tpn && !tpn)) {
		fputs("psiplace: error: out of memory\n", stderr);
		goto out;
	}
	if (a->tpn && (rc = parse_tpn(a, tpn)) != 0)
		goto out;
	if ((rc = load_topologies(a, loaded, topo, desc, err)) != 0)
		goto out;
	res.nnodes = (unsigned)a->nodes;
	res.topo = topo;
	res.topo_desc = desc;
	psiplace_psets_init(&sets);
	if (place(a, r, lama, topo, tpn, &res, err) < 0 ||
	    (r->psets && map_psets(a, r, &res, &hl, &sets, err) < 0)) {
		fprintf(stderr, "psiplace: error: %s\n", err->text);
		rc = 1;
	} else {
		if (r->psets) {
			res.psets = &sets;
			res.node_name = (const char *const *)hl.host;
		}
		rc = 0;
		if (a->format == MAP_FMT_JSON) {
			if (map_print_json(stdout, &res) < 0) {
				fprintf(stderr, "psiplace: error: out of memory writing JSON\n");
				rc = 1;
			}
		} else if (a->format == MAP_FMT_SVG) {
			map_print_svg(stdout, &res);
		} else {
			map_print_plain(stdout, &res);
		}
	}
	map_result_free(&res);
	psiplace_psets_free(&sets);
	psiplace_hostlist_free(&hl);
	for (k = 0; k < a->ntopo; k++)
		psiplace_topo_free(&loaded[k]);
out:
	free(topo);
	free(desc);
	free(tpn);
	return rc;
}

int cmd_map(int argc, char **argv)
{
	struct map_args a;
	struct psiplace_user_request r;
	struct psiplace_lama_opts lama;
	psiplace_error_t err;
	bool use_lama;
	int rc;

	map_args_init(&a);
	rc = map_args_parse(&a, argc, argv);
	if (rc) {
		map_args_free(&a);
		return rc == 3 ? 0 : rc;
	}
	if (map_args_gather(&a, &r, &err) < 0) {
		map_args_free(&a);
		return cli_usage_error("%s", err.text);
	}
	if (r.warning[0])
		fprintf(stderr, "psiplace: warning: %s\n", r.warning);
	use_lama = r.lama || !(r.place || psi_placement_given(&r));
	if (use_lama && psiplace_lama_opts_of_request(&r, &lama, &err) < 0)
		rc = cli_usage_error("%s", err.text);
	else
		rc = run(&a, &r, use_lama ? &lama : NULL, &err);
	psiplace_user_request_free(&r);
	map_args_free(&a);
	return rc;
}
