/* A valid value for every --psi-* option that takes one (tests of the
 * option table).  Indexed by enum psiplace_opt: a new option with a value
 * and no sample here fails test_options. */
#ifndef PSIPLACE_TEST_SAMPLE_VALUES_H
#define PSIPLACE_TEST_SAMPLE_VALUES_H

#include "psiplace/options.h"

static const char *const sample_value[PSIPLACE_OPT_COUNT] = {
	[PSIPLACE_OPT_ALLOC_POLICY] = "MINRESOURCE",
	[PSIPLACE_OPT_ALLOC_PRIORITY] = "SPEED",
	[PSIPLACE_OPT_MALLEABLE] = "1-4",
	[PSIPLACE_OPT_NODES] = "0-1",
	[PSIPLACE_OPT_HOSTS] = "n1,n2",
	[PSIPLACE_OPT_HOSTFILE] = "/dev/null",
	[PSIPLACE_OPT_NODES_SORT] = "PROC",
	[PSIPLACE_OPT_TPP] = "2",
	[PSIPLACE_OPT_CPUMAP] = "3-0",
	[PSIPLACE_OPT_MAP_BY] = "socket",
	[PSIPLACE_OPT_BIND_TO] = "core",
	[PSIPLACE_OPT_LAMA_MAP] = "scbnh",
	[PSIPLACE_OPT_LAMA_BIND] = "1c",
	[PSIPLACE_OPT_LAMA_MPPR] = "1:c",
	[PSIPLACE_OPT_LAMA_ORDER] = "s",
	[PSIPLACE_OPT_PSET] = "ocean:0-3;ice:4-7",
	[PSIPLACE_OPT_PSET_LEVELS] = "node,socket",
};

#endif
