/* `psiplace map`, ParaStation backend: the same request parser and
 * placement functions as the SPANK plugin, on a synthetic or XML node. */
#include <stdlib.h>
#include <string.h>

#include "map_psi.h"
#include "psiplace/error.h"
#include "psiplace/psi_place.h"
#include "psiplace/request.h"
#include "psiplace/topo.h"

static const char *env_get(const char *name, void *arg)
{
	(void)arg;
	return getenv(name);
}

/* The --psi-* words of a command line, wherever they stand. */
static int collect(int argc, char **argv, struct psiplace_opts *o, char *err, size_t errlen)
{
	int i, k;

	for (i = 0; i < argc; i++) {
		const char *a = argv[i], *eq;
		char name[64];
		size_t len;

		if (strncmp(a, "--psi-", 6))
			continue;
		eq = strchr(a, '=');
		len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		if (len >= sizeof(name))
			return psiplace_seterr(err, errlen, "unknown option '%.60s'", a);
		memcpy(name, a + 2, len);
		name[len] = '\0';
		if ((k = psiplace_opt_lookup(name)) < 0)
			return psiplace_seterr(err, errlen, "unknown option '--%s'", name);
		if (!psiplace_opt_has_arg(k)) {
			if (eq)
				return psiplace_seterr(err, errlen, "--%s: takes no value (given '%s')", name, eq + 1);
			psiplace_opts_set(o, k, NULL);
		} else if (eq) {
			psiplace_opts_set(o, k, eq + 1);
		} else if (i + 1 < argc) {
			psiplace_opts_set(o, k, argv[++i]);
		} else {
			return psiplace_seterr(err, errlen, "--%s: requires a value", name);
		}
	}
	return 0;
}

/* A dry run places by ParaStation's rules even without PSI options, and
 * may show user CPU maps whatever a cluster allows. */
static int gather(int argc, char **argv, bool use_env, struct psiplace_request *r, char *err,
		  size_t errlen)
{
	struct psiplace_siteconf site;
	struct psiplace_opts o;
	struct psiplace_request_src src = { use_env ? env_get : NULL, NULL, &o, &site, false };
	int rc;

	psiplace_siteconf_init(&site);
	site.placement = PSIPLACE_PLACEMENT_PSI;
	site.allow_user_cpumap = true;
	psiplace_opts_init(&o);
	rc = collect(argc, argv, &o, err, errlen);
	if (rc == 0)
		rc = psiplace_request_gather(&src, r, err, errlen);
	psiplace_opts_free(&o);
	psiplace_siteconf_free(&site);
	return rc;
}

bool cli_map_wants_lama(int argc, char **argv, bool use_env)
{
	struct psiplace_request r;
	char err[PSIPLACE_ERRLEN];
	bool lama;

	if (gather(argc, argv, use_env, &r, err, sizeof(err)) < 0)
		return false; /* cli_map_psi reports the error */
	lama = r.lama;
	psiplace_request_free(&r);
	return lama;
}

static int place(const struct psiplace_request *r, const char *topology, unsigned nnodes,
		 unsigned ntasks, bool json, FILE *out)
{
	struct psiplace_topo t;
	struct psiplace_psi_opts o;
	struct psiplace_binding *b = psiplace_bindings_new(ntasks);
	unsigned *node_of = calloc(ntasks, sizeof(*node_of));
	char err[PSIPLACE_ERRLEN], *text = NULL;
	int rc = 2;

	if (!b || !node_of) {
		fprintf(stderr, "psiplace: error: out of memory for %u tasks\n", ntasks);
		goto out;
	}
	if (psiplace_topo_load(topology, NULL, &t, err, sizeof(err)) < 0) {
		fprintf(stderr, "psiplace: error: --topology: %s\n", err);
		goto out;
	}
	psiplace_psi_opts_of_request(r, &o);
	rc = 1;
	if (psiplace_psi_map(&t, nnodes, ntasks, &o, node_of, b, err, sizeof(err)) < 0 ||
	    psiplace_map_format(ntasks, node_of, b, json, &text, err, sizeof(err)) < 0)
		fprintf(stderr, "psiplace: error: %s\n", err);
	else
		rc = fputs(text, out) < 0;
	free(text);
	psiplace_topo_free(&t);
out:
	psiplace_bindings_free(b, ntasks);
	free(node_of);
	return rc;
}

int cli_map_psi(const char *topology, unsigned nnodes, unsigned ntasks, int argc, char **argv,
		bool use_env, const char *format, FILE *out)
{
	struct psiplace_request r;
	char err[PSIPLACE_ERRLEN];
	bool json;
	int rc;

	if (strcmp(format, "plain") && strcmp(format, "json")) {
		fprintf(stderr, "psiplace: error: --format: '%s' is not available for ParaStation placement; accepted: plain, json\n",
			format);
		return 2;
	}
	json = !strcmp(format, "json");
	if (gather(argc, argv, use_env, &r, err, sizeof(err)) < 0) {
		fprintf(stderr, "psiplace: error: %s\n", err);
		return 2;
	}
	if (r.warning[0])
		fprintf(stderr, "psiplace: warning: %s\n", r.warning);
	rc = place(&r, topology, nnodes, ntasks, json, out);
	psiplace_request_free(&r);
	return rc;
}
