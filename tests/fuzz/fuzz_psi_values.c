/* Fuzz every PSI_* value parser (and Slurm's tasks-per-node list): the first byte picks the parser, the
 * rest is the value; the id list cases (PSI_NODES, __PSI_CPUMAP) check that
 * the formatter is the parser's inverse (host names: fuzz_hostlist). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/psi_values.h"
#include "psiplace/step_layout.h"

/* Parse an id list with PSI_NODES' parser or __PSI_CPUMAP's into ids. */
static int ids_parse(const char *s, bool cpumap, uint32_t **ids, size_t *n)
{
	psiplace_error_t err;
	unsigned *map = NULL;
	size_t i;

	if (!cpumap)
		return psiplace_psi_nodes_parse(s, "PSI_NODES", ids, n, &err);
	if (psiplace_cpumap_parse(s, "__PSI_CPUMAP", &map, n, &err) < 0)
		return -1;
	if (!(*ids = malloc(*n * sizeof(**ids) + 1)))
		abort();
	for (i = 0; i < *n; i++)
		(*ids)[i] = map[i];
	free(map);
	return 0;
}

static long ids_format(const uint32_t *ids, size_t n, bool cpumap, char *buf, size_t len)
{
	return cpumap ? psiplace_cpumap_format(ids, n, buf, len) : psiplace_idlist_format(ids, n, buf, len);
}

/* format(parse(x)) parses to the same ids, and formatting those gives the
 * same text: psiplace_idlist_format is PSI_NODES' inverse,
 * psiplace_cpumap_format __PSI_CPUMAP's. */
static void ids_roundtrip(const uint32_t *ids, size_t n, bool cpumap)
{
	size_t len = n * 24 + 16, m;
	char *a = malloc(len), *b = malloc(len);
	uint32_t *back = NULL;

	if (!a || !b)
		abort();
	if (ids_format(ids, n, cpumap, a, len) < 0 || ids_parse(a, cpumap, &back, &m) < 0 ||
	    m != n || memcmp(back, ids, n * sizeof(*ids)) ||
	    ids_format(back, m, cpumap, b, len) < 0 || strcmp(a, b))
		abort();
	free(back);
	free(a);
	free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	psiplace_error_t err;
	char *s, buf[256];
	struct psiplace_names hl;
	enum psiplace_nodes_sort m;
	uint32_t *ids = NULL;
	unsigned tpp;
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
			ids_roundtrip(ids, n, false);
		}
		break;
	case 1: psiplace_psi_hosts_parse(s, "PSI_HOSTS", &hl, &err); break;
	case 2: psiplace_psi_hostfile_parse((const char *)data + 1, size - 1, "PSI_HOSTFILE", &hl, &err); break;
	case 3: psiplace_nodes_sort_parse(s, "PSI_NODES_SORT", &m, &err); break;
	case 4: psiplace_tpp_parse(s, "PSI_TPP", &tpp, &err); break;
	case 5: psiplace_omp_threads_tpp(s, &tpp, &err); break;
	case 6:
		if (ids_parse(s, true, &ids, &n) == 0)
			ids_roundtrip(ids, n, true);
		break;
	case 7: psiplace_names_add_hostlist(&hl, s, "fuzz", &err); break;
	default: psiplace_tasks_per_node_parse(s, "SLURM_STEP_TASKS_PER_NODE", &counts, &ncounts, &err); break;
	}
	free(counts);
	free(ids);
	psiplace_names_free(&hl);
	free(s);
	return 0;
}
