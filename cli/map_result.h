/* psiplace map: the placement of a step as every backend reports it and
 * every output format (plain, JSON, SVG) reads it. */
#ifndef PSIPLACE_CLI_MAP_RESULT_H
#define PSIPLACE_CLI_MAP_RESULT_H

#include <stdio.h>

#include <hwloc.h>

#include "psiplace/psets.h"
#include "psiplace/topo.h"

#define MAP_MAX_PARAMS 8

struct map_task {
	unsigned node;
	int pos_os;           /* OS index of the thread the task was mapped to; -1 none */
	hwloc_bitmap_t cpus;  /* empty: unbound */
	hwloc_bitmap_t mems;
};

struct map_result {
	const char *backend;  /* "lama" */
	/* Backend parameters as shown (JSON members, the SVG title). */
	const char *param_name[MAP_MAX_PARAMS];
	char param_value[MAP_MAX_PARAMS][300];
	unsigned nparams;
	unsigned nnodes;
	const struct psiplace_topo *const *topo; /* per node */
	const char *const *topo_desc;            /* per node */
	size_t ntasks;
	struct map_task *task;                   /* by rank */
	const struct psiplace_psets *psets;      /* --psi-pset*: the sets; NULL none */
	const char *const *node_name;            /* per node, with psets */
};

void map_result_free(struct map_result *r);

void map_print_plain(FILE *f, const struct map_result *r);
/* 0, or -1 when out of memory (nothing sensible was written). */
int map_print_json(FILE *f, const struct map_result *r);
void map_print_svg(FILE *f, const struct map_result *r);

#endif
