/* `psiplace map` with ParaStation placement (the PSI backend).  cmd_map.c
 * parses the generic options and calls cli_map_psi when the command line
 * (or, with --env, the environment) asks for no LAMA mapping. */
#ifndef PSIPLACE_CLI_MAP_PSI_H
#define PSIPLACE_CLI_MAP_PSI_H

#include <stdbool.h>
#include <stdio.h>

/* topology: hwloc synthetic description or XML file; nnodes >= 1;
 * ntasks >= 1; argv[0..argc-1]: the command's words, of which the --psi-*
 * options (--psi-x=V or --psi-x V) count and the rest is ignored;
 * use_env: also read PSI_* / OMP_NUM_THREADS / __PSI_CPUMAP from the
 * environment; format "plain" or "json".  Prints the map on out and
 * errors as one "psiplace: error: " line on stderr.  Returns the exit
 * status: 0, 1 (the placement is impossible), 2 (bad input). */
int cli_map_psi(const char *topology, unsigned nnodes, unsigned ntasks, int argc, char **argv,
		bool use_env, const char *format, FILE *out);

/* Whether the words (or, with use_env, the environment) carry a LAMA
 * option: then cmd_map.c uses the LAMA backend instead. */
bool cli_map_wants_lama(int argc, char **argv, bool use_env);

#endif
