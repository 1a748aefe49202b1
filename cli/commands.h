/* psiplace command: one function per subcommand, each in its own file. */
#ifndef PSIPLACE_CLI_COMMANDS_H
#define PSIPLACE_CLI_COMMANDS_H

#include <stdio.h>

struct psiplace_spawn_request;
struct psiplace_spawn_plan;

/* Each returns the process exit status: 0 ok, 1 failure, 2 usage error. */
int cmd_check_config(int argc, char **argv);
int cmd_spawn_plan(int argc, char **argv);
int cmd_map(int argc, char **argv);
int cmd_rank(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_release(int argc, char **argv);

/* Shared by subcommands: print "psiplace: error: MSG" and return 2. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct option;
/* What cli_getopt() returns besides an option's value and -1 (the end). */
enum { CLI_OPT_HELP = -2, CLI_OPT_BAD = -3 };
/* getopt_long over a subcommand's long options plus -h (start with
 * optind = 1): the next option's value; -1 at the end; CLI_OPT_HELP for -h
 * or an option whose value is 'h' (the caller prints its help and returns
 * 0); CLI_OPT_BAD after the one error line "CMD: option 'WORD' needs a
 * value; see psiplace CMD --help" or "CMD: unknown option 'WORD'; see
 * psiplace CMD --help" (the caller returns 2). */
int cli_getopt(int argc, char **argv, const struct option *longopts, int *longindex,
	       const char *cmd);

/* spawn-plan's JSON document (schema in doc/spawn.md); hosts may be NULL
 * when the node names are unknown.  0, or -1 when out of memory. */
int spawn_plan_print_json(FILE *f, const struct psiplace_spawn_request *req,
			   const struct psiplace_spawn_plan *plan,
			   char *const *hosts);

#endif
