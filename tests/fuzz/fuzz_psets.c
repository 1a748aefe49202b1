/* libFuzzer: --psi-pset ("NAME:RANKS[;...]") and --psi-pset-levels must give
 * sets or an error for any bytes; accepted sets respect the bounds (names,
 * reserved prefixes, sorted unique ranks), and the step's sets built from
 * them name every rank in psiplace://all; a set's ranks written out parse
 * back to the same ranks.  The first byte picks the input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/psets.h"

#include "fuzz_pick.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_sets(const struct psiplace_psets *s)
{
	size_t i, k;

	if (s->n > PSIPLACE_PSETS_USER_MAX)
		abort();
	for (i = 0; i < s->n; i++) {
		const struct psiplace_pset *p = &s->set[i];
		size_t len = strlen(p->name);

		if (!len || len > PSIPLACE_PSET_NAME_MAX || !p->n || !strncmp(p->name, "mpi://", 6) ||
		    !strncmp(p->name, PSIPLACE_PSET_PREFIX, strlen(PSIPLACE_PSET_PREFIX)))
			abort();
		for (k = 0; k < p->n; k++)
			if (p->ranks[k] > PSIPLACE_PSET_RANK_MAX || (k && p->ranks[k] <= p->ranks[k - 1]))
				abort();
	}
}

/* A set's ranks as written (psiplace_pset_ranks_string) parse to the same
 * ranks, and those written again give the same text. */
static void ranks_roundtrip(const struct psiplace_pset *p)
{
	size_t len = p->n * 12 + 8;
	char *a = malloc(len + 2), *b = malloc(len);
	struct psiplace_psets back;
	psiplace_error_t err;

	if (!a || !b)
		abort();
	memcpy(a, "x:", 2);
	psiplace_psets_init(&back);
	if (psiplace_pset_ranks_string(p, a + 2, len) < 0 ||
	    psiplace_psets_parse(a, "fuzz", &back, &err) < 0 || back.n != 1 ||
	    back.set[0].n != p->n || memcmp(back.set[0].ranks, p->ranks, p->n * sizeof(*p->ranks)) ||
	    psiplace_pset_ranks_string(&back.set[0], b, len) < 0 || strcmp(a + 2, b))
		abort();
	psiplace_psets_free(&back);
	free(a);
	free(b);
}

static void fuzz_sets(const char *s)
{
	struct psiplace_psets sets, out;
	psiplace_error_t err;
	static const char *const names[] = { "a", "b", "c" };
	uint32_t node_of[16], tpn[3] = { 6, 5, 5 };
	const char **v;
	size_t n;

	psiplace_psets_init(&sets);
	if (psiplace_psets_parse(s, "fuzz", &sets, &err) < 0) {
		if (sets.n || !memchr(err.text, '\0', sizeof(err.text)) || !err.text[0])
			abort();
		return;
	}
	check_sets(&sets);
	for (n = 0; n < sets.n; n++)
		ranks_roundtrip(&sets.set[n]);
	if (psiplace_psets_rank_nodes(tpn, 3, 16, "cyclic", NULL, node_of, &err) < 0)
		abort();
	if (psiplace_psets_step(&sets, 16, 3, names, node_of, &out, &err) == 0) {
		const struct psiplace_pset *all = psiplace_psets_find(&out, PSIPLACE_PSET_PREFIX "all");

		if (!all || all->n != 16 || out.n != sets.n + 4)
			abort();
		if (psiplace_psets_of_rank(&out, 15, &v, &n, &err) < 0 || n < 2)
			abort();
		free(v);
		psiplace_psets_free(&out);
	} else if (out.n) {
		abort();
	}
	psiplace_psets_free(&sets);
}

static void fuzz_levels(const char *s)
{
	psiplace_error_t err;
	unsigned lv = 0;

	if (psiplace_pset_levels_parse(s, "fuzz", &lv, &err) == 0) {
		if (!(lv & PSIPLACE_PSET_LEVEL_NODE) || lv >> PSIPLACE_PSET_NLEVELS)
			abort();
	} else if (lv || !err.text[0]) {
		abort();
	}
}

static void fuzz_layout(const char *s)
{
	psiplace_error_t err;
	uint32_t node_of[8], tpn[2] = { 4, 4 }, i;

	if (psiplace_psets_rank_nodes(tpn, 2, 8, s, s, node_of, &err) == 0)
		for (i = 0; i < 8; i++)
			if (node_of[i] >= 2)
				abort();
	if (psiplace_psets_rank_nodes(tpn, 2, 8, s, NULL, node_of, &err) == 0)
		for (i = 0; i < 8; i++)
			if (node_of[i] >= 2)
				abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const fuzz_parser_fn parsers[] = { fuzz_sets, fuzz_levels, fuzz_layout };

	return fuzz_pick(data, size, parsers, 3);
}
