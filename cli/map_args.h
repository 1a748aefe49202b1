/* psiplace map: its command line.  The --psi-* options are those of
 * options.def, parsed with getopt_long and gathered by
 * psiplace_user_request_gather as srun's are. */
#ifndef PSIPLACE_CLI_MAP_ARGS_H
#define PSIPLACE_CLI_MAP_ARGS_H

#include <stdio.h>

#include "psiplace/error.h"
#include "psiplace/plugstack_line.h"
#include "psiplace/user_request.h"

#define MAP_MAX_TOPOLOGIES 64
#define MAP_MAX_NODES 1000000u
#define MAP_MAX_TASKS 100000000ul

enum map_format { MAP_FMT_PLAIN, MAP_FMT_JSON, MAP_FMT_SVG };

struct map_args {
	const char *topo_desc[MAP_MAX_TOPOLOGIES];
	unsigned ntopo;
	unsigned long nodes;  /* 0 before map_args_parse: one per --topology */
	unsigned long ntasks;
	int have_ntasks;
	const char *tpn;      /* --tasks-per-node */
	const char *cores;    /* --cores: Slurm core ids of the step on each node */
	const char *nodelist; /* --nodelist: node names of the process sets */
	int env;              /* --env: the PSI_* and OMPI_* variables count */
	enum map_format format;
	struct psiplace_opts opts;     /* the --psi-* options */
	struct psiplace_siteconf site; /* what a dry run may show */
};

void map_args_init(struct map_args *a);
void map_args_free(struct map_args *a);

/* argv[0] is "map".  0 parsed, 2 usage error (reported on stderr),
 * 3 --help printed on stdout. */
int map_args_parse(struct map_args *a, int argc, char **argv);

/* The step's request from the options (and the variables with --env),
 * through the gatherer slurmstepd uses. */
int map_args_gather(const struct map_args *a, struct psiplace_user_request *r, psiplace_error_t *err);

/* psiplace map --help: usage line and every option, grouped. */
void map_help(FILE *f);

#endif
