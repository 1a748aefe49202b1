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
#include "psiplace/lama_launch.h"

static int parse_tpn_count(const char *s, unsigned long *v)
{
	char *end;

	errno = 0;
	if (*s >= '0' && *s <= '9') {
		*v = strtoul(s, &end, 10);
		if (!errno && !*end && *v >= 1 && *v <= MAP_MAX_TASKS)
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

/* The process sets the step would get (doc/psets.md), by the library code
 * slurmstepd runs: nodes are named by their index in the map. */
static int map_psets(const struct psiplace_user_request *r, struct map_result *res,
		     struct psiplace_psets *out, psiplace_error_t *err)
{
	static const enum psiplace_level level_of[PSIPLACE_PSET_NLEVELS] = {
		PSIPLACE_LEVEL_NODE, PSIPLACE_LEVEL_SOCKET, PSIPLACE_LEVEL_NUMA, PSIPLACE_LEVEL_L3,
		PSIPLACE_LEVEL_CORE };
	uint32_t *node_of = calloc(res->ntasks ? res->ntasks : 1, sizeof(*node_of));
	uint32_t *ranks = calloc(res->ntasks ? res->ntasks : 1, sizeof(*ranks));
	int *objs = calloc((res->ntasks ? res->ntasks : 1) * PSIPLACE_PSET_NLEVELS, sizeof(int));
	char (*names)[16] = calloc(res->nnodes ? res->nnodes : 1, sizeof(*names));
	const char **np = calloc(res->nnodes ? res->nnodes : 1, sizeof(*np));
	unsigned n;
	size_t i;
	int lv, rc = -1;

	if (!node_of || !ranks || !objs || !names || !np) {
		psiplace_seterr(err, "out of memory");
		goto out;
	}
	for (n = 0; n < res->nnodes; n++) {
		snprintf(names[n], sizeof(names[n]), "%u", n);
		np[n] = names[n];
	}
	for (i = 0; i < res->ntasks; i++)
		node_of[i] = res->task[i].node;
	if (psiplace_psets_step(&r->user_psets, (uint32_t)res->ntasks, res->nnodes, np, node_of, out,
				err) < 0)
		goto out;
	for (n = 0; n < res->nnodes; n++) {
		const struct psiplace_topo *t = res->topo[n];
		const int *obj[PSIPLACE_PSET_NLEVELS] = { NULL };
		size_t nl = 0;

		for (i = 0; i < res->ntasks; i++) {
			int first = hwloc_bitmap_first(res->task[i].cpus);
			unsigned p;

			if (res->task[i].node != n)
				continue;
			for (lv = 1; lv < PSIPLACE_PSET_NLEVELS; lv++) {
				objs[lv * res->ntasks + nl] = -1;
				for (p = 0; first >= 0 && p < t->npus; p++)
					if (t->pus[p].os_index == (unsigned)first) {
						objs[lv * res->ntasks + nl] = t->pus[p].obj[level_of[lv]];
						break;
					}
			}
			ranks[nl++] = (uint32_t)i;
		}
		for (lv = 1; lv < PSIPLACE_PSET_NLEVELS; lv++)
			obj[lv] = &objs[lv * res->ntasks];
		if (psiplace_psets_node_levels(names[n], r->pset_levels, nl, ranks, obj, out, err) < 0)
			goto out;
	}
	rc = 0;
out:
	free(node_of);
	free(ranks);
	free(objs);
	free(names);
	free(np);
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
	struct psiplace_psets psets;
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
	psiplace_psets_init(&psets);
	if (place(a, r, lama, topo, tpn, &res, err) < 0 ||
	    (r->psets && map_psets(r, &res, &psets, err) < 0)) {
		fprintf(stderr, "psiplace: error: %s\n", err->text);
		rc = 1;
	} else {
		if (r->psets)
			res.psets = &psets;
		if (a->format == MAP_FMT_JSON)
			map_print_json(stdout, &res);
		else if (a->format == MAP_FMT_SVG)
			map_print_svg(stdout, &res);
		else
			map_print_plain(stdout, &res);
		rc = 0;
	}
	map_result_free(&res);
	psiplace_psets_free(&psets);
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
