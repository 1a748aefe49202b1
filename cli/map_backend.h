/* psiplace map: a placement backend (LAMA, ParaStation).
 * cmd_map.c offers every option it does not know itself to the backends;
 * the backend that claims the step's options places it. */
#ifndef PSIPLACE_CLI_MAP_BACKEND_H
#define PSIPLACE_CLI_MAP_BACKEND_H

#include <stddef.h>

#include "map_result.h"
#include "psiplace/error.h"

enum map_opt_kind { MAP_OPT_NOT_MINE = 0, MAP_OPT_FLAG, MAP_OPT_VALUE };

struct map_backend {
	const char *name;
	/* Used when no backend's option or variable was given. */
	int is_default;
	void *(*create)(void);
	void (*destroy)(void *st);
	enum map_opt_kind (*option_kind)(const char *opt);
	/* 0 applied, -1 bad value (err filled). */
	int (*apply)(void *st, const char *opt, const char *value, psiplace_error_t *err);
	/* --env: apply the backend's variables; *used set when any was. */
	int (*apply_env)(void *st, int *used, psiplace_error_t *err);
	/* tasks_per_node NULL: the backend decides the counts. */
	int (*place)(void *st, unsigned nnodes, const struct psiplace_topo *const *topo,
		     size_t ntasks, const unsigned *tasks_per_node, struct map_result *out,
		     psiplace_error_t *err);
};

extern const struct map_backend map_backend_lama;
extern const struct map_backend map_backend_psi;

#endif
