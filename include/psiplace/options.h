/* psiplace — the --psi-* options: names, values, variables, help texts
 * and groups, all from options.def.  The SPANK plugin registers them, the
 * request gatherer reads their variables, LAMA applies its own, the CLI
 * parses them and prints their help. */
#ifndef PSIPLACE_OPTIONS_H
#define PSIPLACE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum psiplace_opt {
#define PSIPLACE_OPTION(id, name, arg, group, lama, var1, var2, help) PSIPLACE_OPT_##id,
#include "psiplace/options.def"
#undef PSIPLACE_OPTION
	PSIPLACE_OPT_COUNT
};

/* What an option is about: the help texts are grouped by it. */
enum psiplace_opt_group {
	PSIPLACE_OPTGRP_ALLOCATION, /* node choice (slurmctld) */
	PSIPLACE_OPTGRP_PLACEMENT,  /* PSI task placement (slurmstepd) */
	PSIPLACE_OPTGRP_LAMA,       /* LAMA mapping (slurmstepd) */
	PSIPLACE_OPTGRP_PSETS,      /* PMIx process sets (slurmstepd) */
	PSIPLACE_OPTGRP_DIAGNOSTICS,
	PSIPLACE_OPTGRP_COUNT
};

/* The LAMA setting an option gives; the _SIMPLE ones take a level name. */
enum psiplace_lama_setting {
	PSIPLACE_LAMA_SET_NONE = 0,
	PSIPLACE_LAMA_SET_MAP,
	PSIPLACE_LAMA_SET_MAP_SIMPLE,
	PSIPLACE_LAMA_SET_BIND,
	PSIPLACE_LAMA_SET_BIND_SIMPLE,
	PSIPLACE_LAMA_SET_MPPR,
	PSIPLACE_LAMA_SET_ORDER,
	PSIPLACE_LAMA_SET_OVERSUBSCRIBE,
};

#define PSIPLACE_OPT_VARS_MAX 2

struct psiplace_opt_desc {
	const char *name;   /* "psi-tpp" */
	const char *dashed; /* "--psi-tpp", for messages */
	const char *arg;    /* "N"; NULL: a flag */
	enum psiplace_opt_group group;
	enum psiplace_lama_setting lama;
	const char *vars[PSIPLACE_OPT_VARS_MAX + 1]; /* NULL-terminated */
	const char *help;
};

/* Indexed by enum psiplace_opt. */
extern const struct psiplace_opt_desc psiplace_opt_table[PSIPLACE_OPT_COUNT];

/* "psi-tpp" (without dashes); NULL out of range. */
const char *psiplace_opt_name(enum psiplace_opt o);
/* Whether the option takes a value. */
bool psiplace_opt_has_arg(enum psiplace_opt o);
/* The option named name ("psi-tpp"), or -1. */
int psiplace_opt_lookup(const char *name);
/* "Allocation", "PSI placement", ...; NULL out of range. */
const char *psiplace_opt_group_name(enum psiplace_opt_group g);

/* The option's one-line help with its variables:
 * "CPU slots per task; ... (variable PSI_TPP)".  Truncated to len. */
void psiplace_opt_usage(enum psiplace_opt o, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
