/* Fuzz the job's spank environment as slurmctld parses it: the input is
 * split at NUL bytes into NAME=value entries. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/ctld_request.h"

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
		size_t k;

		if (psiplace_ctld_request_candidates(&r, names, 6, &cand, &nc, &err) == 0)
			free(cand);
		memset(nodes, 0, sizeof(nodes));
		for (k = 0; k < 6; k++) {
			nodes[k].name = names[k];
			nodes[k].index = (uint32_t)k;
			nodes[k].threads = nodes[k].cpus = (uint32_t)(k % 3);
			nodes[k].alloc_cpus = (uint32_t)k;
			nodes[k].load1 = (double)k / 2;
		}
		psiplace_siteconf_init(&site);
		if (psiplace_ctld_request_psi_order(&r, &site, nodes, 6, &cand, &nc, &pol, &err) !=
		    PSIPLACE_PSI_NEXT_ERROR)
			free(cand);
		psiplace_ctld_request_free(&r);
	}
	free(buf);
	return 0;
}
