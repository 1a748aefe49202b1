/* Shared by the request tests: a fake environment and the gatherer as the
 * SPANK plugin calls it (command-line scan, inherited options, variables). */
#ifndef PSIPLACE_TEST_REQUEST_UTIL_H
#define PSIPLACE_TEST_REQUEST_UTIL_H

#include <stdbool.h>
#include <string.h>

#include <criterion/criterion.h>

#include "psiplace/error.h"
#include "psiplace/user_request.h"

static psiplace_error_t err;

/* A fake environment: "NAME=value" strings, NULL-terminated. */
static const char *fake_getenv(const char *name, void *arg)
{
	const char *const *e = arg;
	size_t n = strlen(name);

	for (; e && *e; e++)
		if (!strncmp(*e, name, n) && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

static int gather(const char *const *env, const char *const *argv, struct psiplace_siteconf *site,
		  bool node_choice, struct psiplace_user_request *r)
{
	struct psiplace_opts opts;
	struct psiplace_slurm_cmdline slurm_set;
	int argc = 0, rc;
	struct psiplace_user_request_src src = { fake_getenv, (void *)env, &opts, site, node_choice };

	psiplace_opts_init(&opts);
	while (argv && argv[argc])
		argc++;
	if (argv && psiplace_cmdline_scan(argc, (char *const *)argv, &opts, &slurm_set, &err) < 0) {
		psiplace_opts_free(&opts);
		return -1;
	}
	psiplace_opts_from_inherited(fake_getenv, (void *)env, &opts);
	rc = psiplace_user_request_gather(&src, r, &err);
	psiplace_opts_free(&opts);
	return rc;
}

#define ENV(...) ((const char *const[]){ __VA_ARGS__, NULL })

#endif
