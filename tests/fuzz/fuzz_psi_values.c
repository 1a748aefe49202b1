/* Fuzz every PSI_* value parser (and Slurm's tasks-per-node list): the first byte picks the parser, the
 * rest is the value; the id list and host names cases check that the
 * formatter is the parser's inverse. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/psi_values.h"
#include "psiplace/step_layout.h"

/* What psiplace_names_format writes must expand to the same names. */
static void names_roundtrip(const char *s)
{
	struct psiplace_names l, back;
	psiplace_error_t err;
	char *buf = malloc(1 << 20);
	long len;
	size_t i;

	psiplace_names_init(&l);
	psiplace_names_init(&back);
	if (buf && psiplace_names_add_hostlist(&l, s, "fuzz", &err) == 0 &&
	    (len = psiplace_names_format(&l, buf, 1 << 20)) >= 0) {
		if (psiplace_names_add_hostlist(&back, buf, "fuzz", &err) != 0 || back.n != l.n)
			abort();
		for (i = 0; i < l.n; i++)
			if (strcmp(l.name[i], back.name[i]))
				abort();
	}
	free(buf);
	psiplace_names_free(&l);
	psiplace_names_free(&back);
}

/* An id list written by psiplace_idlist_format parses to the same ids. */
static void ids_roundtrip(const uint32_t *ids, size_t n)
{
	size_t len = n * 24 + 16, m;
	char *buf = malloc(len);
	uint32_t *back = NULL;
	psiplace_error_t err;

	if (!buf)
		return;
	if (psiplace_idlist_format(ids, n, buf, len) < 0 ||
	    psiplace_psi_nodes_parse(buf, "PSI_NODES", &back, &m, &err) < 0 || m != n ||
	    memcmp(back, ids, n * sizeof(*ids)))
		abort();
	free(back);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	psiplace_error_t err;
	char *s, buf[256];
	struct psiplace_names hl;
	enum psiplace_nodes_sort m;
	uint32_t *ids = NULL;
	unsigned *map = NULL, tpp;
	size_t n;

	if (size < 1 || !(s = malloc(size)))
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	psiplace_names_init(&hl);
	uint32_t *counts = NULL, ncounts;

	switch (data[0] % 9) {
	case 0:
		if (psiplace_psi_nodes_parse(s, "PSI_NODES", &ids, &n, &err) == 0) {
			psiplace_idlist_format(ids, n, buf, sizeof(buf));
			ids_roundtrip(ids, n);
		}
		break;
	case 1: psiplace_psi_hosts_parse(s, "PSI_HOSTS", &hl, &err); break;
	case 2: psiplace_psi_hostfile_parse((const char *)data + 1, size - 1, "PSI_HOSTFILE", &hl, &err); break;
	case 3: psiplace_nodes_sort_parse(s, "PSI_NODES_SORT", &m, &err); break;
	case 4: psiplace_tpp_parse(s, "PSI_TPP", &tpp, &err); break;
	case 5: psiplace_omp_threads_tpp(s, &tpp, &err); break;
	case 6: psiplace_cpumap_parse(s, "__PSI_CPUMAP", &map, &n, &err); break;
	case 7: names_roundtrip(s); break;
	default: psiplace_tasks_per_node_parse(s, "SLURM_STEP_TASKS_PER_NODE", &counts, &ncounts, &err); break;
	}
	free(counts);
	free(ids);
	free(map);
	psiplace_names_free(&hl);
	free(s);
	return 0;
}
