/* Fuzz the job's spank environment as slurmctld parses it: the input is
 * split at NUL bytes into NAME=value entries. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/ctld_request.h"

static long find_linear(const char *name, void *arg)
{
	const char *const *names = arg;
	long i;

	for (i = 0; i < 6; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *env[64];
	struct psiplace_ctld_request r;
	psiplace_error_t err;
	size_t i, n = 0, start = 0;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (i = 0; i <= size && n < 64; i++) {
		if (buf[i] == '\0') {
			env[n++] = buf + start;
			start = i + 1;
		}
	}
	if (psiplace_ctld_request_from_env_nodes((const char *const *)env, n, &r, &err) == 0) {
		static const char *const names[] = { "n1", "n2", "n3", "n4", "login", "n0" };
		uint32_t *cand;
		size_t nc;

		struct psiplace_node nodes[6];
		struct psiplace_siteconf site;
		enum psiplace_policy pol;
		enum psiplace_psi_next next;
		size_t k;

		const struct psiplace_node_finder linear = { find_linear, (void *)names };
		uint32_t *cand2;
		size_t nc2;
		int rc1, rc2;

		/* The names sorted by the library and a caller's own index
		 * (slurmctld's hash; here a linear search) agree. */
		rc1 = psiplace_ctld_request_candidates(&r, names, 6, NULL, &cand, &nc, &err);
		rc2 = psiplace_ctld_request_candidates(&r, NULL, 6, &linear, &cand2, &nc2, &err);
		if (rc1 != rc2 || (rc1 == 0 && (nc != nc2 || memcmp(cand, cand2, nc * sizeof(*cand)))))
			abort();
		if (rc1 == 0) {
			free(cand);
			free(cand2);
		}
		memset(nodes, 0, sizeof(nodes));
		for (k = 0; k < 6; k++) {
			nodes[k].name = names[k];
			nodes[k].index = (uint32_t)k;
			nodes[k].threads = nodes[k].cpus = (uint32_t)(k % 3);
			nodes[k].alloc_cpus = (uint32_t)k;
			nodes[k].load1 = (double)k / 2;
		}
		psiplace_siteconf_init(&site);
		if (psiplace_ctld_request_psi_order(&r, &site, nodes, 6, NULL, &cand, &nc, &pol, &next,
						    &err) == 0)
			free(cand);
		psiplace_ctld_request_free(&r);
	}
	free(buf);
	return 0;
}
