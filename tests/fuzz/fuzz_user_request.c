/* Fuzz request gathering end to end: the input, split at NUL bytes, is a
 * command line up to an empty entry, then NAME=value variables; an input
 * starting with '#' is a batch script's #SBATCH block.  A request's job
 * environment must decode to the same node choice, and that, encoded again,
 * to the same entries (round trip). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/ctld_request.h"
#include "psiplace/psi_slots.h"
#include "psiplace/user_request.h"

static const char *get(const char *name, void *arg)
{
	char **env = arg;
	size_t n = strlen(name);

	for (; *env; env++)
		if (!strncmp(*env, name, n) && (*env)[n] == '=')
			return *env + n + 1;
	return NULL;
}

/* What the client puts in the job's environment, slurmctld reads back as
 * the same node choice: the encoder is the decoder's inverse. */
static void env_roundtrip(const struct psiplace_user_request *r, const char *name[4],
			  char *value[4], size_t n)
{
	struct psiplace_ctld_request j;
	psiplace_error_t err;
	char *entry[4] = { NULL };
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n; i++) {
		entry[i] = malloc(strlen(name[i]) + strlen(value[i]) + 2);
		if (!entry[i])
			abort();
		strcpy(entry[i], name[i]);
		strcat(entry[i], "=");
		strcat(entry[i], value[i]);
	}
	if (psiplace_ctld_request_from_env_nodes((const char *const *)entry, n, &j, &err) < 0 ||
	    !j.psi || j.psi_sort != r->sort)
		abort();
	if (r->nodeset == PSIPLACE_NODESET_IDS &&
	    (j.npsi_node_ids != r->nnode_ids ||
	     memcmp(j.psi_node_ids, r->node_ids, r->nnode_ids * sizeof(*r->node_ids))))
		abort();
	if (r->nodeset != PSIPLACE_NODESET_NONE && r->nodeset != PSIPLACE_NODESET_IDS) {
		if (j.psi_hosts.n != r->hosts.n)
			abort();
		for (i = 0; i < r->hosts.n; i++)
			if (strcmp(j.psi_hosts.name[i], r->hosts.name[i]))
				abort();
	}
	/* and what slurmctld read, encoded again, is the same entries */
	{
		struct psiplace_user_request again;
		const char *name2[4];
		char *value2[4];
		size_t n2;

		memset(&again, 0, sizeof(again));
		again.psi_node_choice = true;
		again.nodeset = r->nodeset;
		again.nodeset_from = "fuzz";
		again.node_ids = j.psi_node_ids;
		again.nnode_ids = j.npsi_node_ids;
		again.hosts = j.psi_hosts;
		again.sort = j.psi_sort;
		if (psiplace_ctld_request_env_of_request(&again, name2, value2, &n2, &err) < 0 ||
		    n2 != n)
			abort();
		for (i = 0; i < n; i++) {
			if (strcmp(name2[i], name[i]) || strcmp(value2[i], value[i]))
				abort();
			free(value2[i]);
		}
	}
	psiplace_ctld_request_free(&j);
	for (i = 0; i < n; i++)
		free(entry[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	psiplace_error_t err;
	char **argv = NULL, *value[4];
	const char *name[4];
	struct psiplace_opts opts;
	struct psiplace_user_request r;
	struct psiplace_slurm_env se;
	struct psiplace_siteconf site;
	struct psiplace_slurm_cmdline set;
	int argc = 0, split;
	size_t n, i;

	if (size && data[0] == '#') { /* a batch script's directives */
		struct psiplace_slurm_cmdline sl = { .ntasks = -1, .nnodes = -1, .cpus_per_task = -1 };

		psiplace_opts_init(&opts);
		psiplace_batch_script_scan((const char *)data, size, &opts, &sl, &err);
		psiplace_opts_free(&opts);
		return 0;
	}
	if (psiplace_cmdline_split((const char *)data, size, &argc, &argv, &err) < 0)
		return 0;
	for (split = 0; split < argc && argv[split][0]; split++)
		;
	psiplace_opts_init(&opts);
	psiplace_siteconf_init(&site);
	site.allow_user_cpumap = size & 1;
	if (psiplace_cmdline_scan(split, argv, &opts, &set, &err) == 0) {
		char **env = split < argc ? argv + split + 1 : argv + argc;
		struct psiplace_user_request_src src = { get, env, &opts, &site, false };
		bool node_choice;

		psiplace_opts_from_inherited(get, env, &opts);
		/* Node choice as the client gathers it (host names expanded)
		 * unless a host file is named: its path would be read. */
		node_choice = !get("PSI_HOSTFILE", env) && !opts.val[PSIPLACE_OPT_HOSTFILE];
		src.node_choice = node_choice;
		if (psiplace_user_request_gather(&src, &r, &err) == 0) {
			psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SRUN,
							(size & 2) ? PSIPLACE_SLURM_RELEASE(23, 11) : PSIPLACE_SLURM_RELEASE(22, 5),
							true, true, &set, get, env, "/x", &se);
			if (psiplace_ctld_request_env_of_request(&r, name, value, &n, &err) == 0) {
				if (node_choice)
					env_roundtrip(&r, name, value, n);
				for (i = 0; i < n; i++)
					free(value[i]);
			}
			psiplace_user_request_free(&r);
		}
	}
	psiplace_opts_free(&opts);
	psiplace_siteconf_free(&site);
	psiplace_argv_free(argv);
	return 0;
}
