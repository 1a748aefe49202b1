/* psiplace command: one function per subcommand, each in its own file. */
#ifndef PSIPLACE_CLI_COMMANDS_H
#define PSIPLACE_CLI_COMMANDS_H

#include <stdio.h>

/* Each returns the process exit status: 0 ok, 1 failure, 2 usage error. */
int cmd_check_config(int argc, char **argv);

/* Shared by subcommands: print "psiplace: error: MSG" and return 2. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
