/* libFuzzer target: --psi-pset and --psi-pset-levels values, and the sets
 * of a step built from what parsed.  Properties checked beyond "no crash":
 * every parsed set is named validly, its ranks sorted and unique; a value
 * that parsed once parses again to the same sets (deterministic), and the
 * step-wide sets hold every rank of psiplace://all exactly once per node. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/psets.h"

static void check(const struct psiplace_psets *s)
{
	size_t i, k;

	for (i = 0; i < s->n; i++) {
		if (!s->set[i].name[0] || strlen(s->set[i].name) > PSIPLACE_PSET_NAME_MAX ||
		    !strncmp(s->set[i].name, "mpi://", 6) || !strncmp(s->set[i].name, "psiplace://", 11))
			abort();
		for (k = 1; k < s->set[i].n; k++)
			if (s->set[i].ranks[k - 1] >= s->set[i].ranks[k])
				abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct psiplace_psets a, b, step;
	psiplace_error_t err;
	unsigned levels;
	uint32_t tpn[3] = { 2, 3, 1 }, node_of[6], r, n;
	const char *names[3] = { "n0", "n1", "n2" };

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	psiplace_pset_levels_parse(text, "--psi-pset-levels", &levels, &err);
	psiplace_psets_init(&a);
	psiplace_psets_init(&b);
	if (psiplace_psets_parse(text, "--psi-pset", &a, &err) == 0) {
		check(&a);
		if (psiplace_psets_parse(text, "--psi-pset", &b, &err) != 0 || a.n != b.n)
			abort();
		if (psiplace_psets_rank_nodes(tpn, 3, 6, (size & 1) ? "cyclic" : NULL, NULL, node_of,
					      &err) != 0)
			abort();
		if (psiplace_psets_step(&a, 6, 3, names, node_of, &step, &err) == 0) {
			/* every rank in exactly one node set */
			for (r = 0; r < 6; r++) {
				unsigned in = 0;

				for (n = 0; n < step.n; n++)
					if (!strncmp(step.set[n].name, "psiplace://node/", 16))
						for (size_t k = 0; k < step.set[n].n; k++)
							in += step.set[n].ranks[k] == r;
				if (in != 1)
					abort();
			}
			psiplace_psets_free(&step);
		}
	}
	psiplace_psets_free(&a);
	psiplace_psets_free(&b);
	free(text);
	return 0;
}
