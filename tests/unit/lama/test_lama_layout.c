/* LAMA's node order against Slurm's block and cyclic layouts: the
 * distribution chooser, the whole-step verifier and the one-node check. */
#include "lama_test_util.h"

#define KV(...) ((const char *const[]){ __VA_ARGS__, NULL })

TestSuite(lama_layout, .fini = free_topos);

Test(lama_layout, classify_block_cyclic_arbitrary)
{
	static const unsigned block[] = { 0, 0, 0, 1, 1 }, cyc[] = { 0, 1, 0, 1, 0 },
			      uneven[] = { 0, 1, 2, 0, 2, 0 }, arb[] = { 0, 0, 1, 1, 0, 0 },
			      out[] = { 0, 3 };

	cr_assert_eq(psiplace_lama_classify(block, 5, 2), PSIPLACE_LAMA_DIST_BLOCK);
	cr_assert_eq(psiplace_lama_classify(cyc, 5, 2), PSIPLACE_LAMA_DIST_CYCLIC);
	cr_assert_eq(psiplace_lama_classify(uneven, 6, 3), PSIPLACE_LAMA_DIST_CYCLIC);
	cr_assert_eq(psiplace_lama_classify(arb, 6, 2), PSIPLACE_LAMA_DIST_ARBITRARY);
	cr_assert_eq(psiplace_lama_classify(out, 2, 2), PSIPLACE_LAMA_DIST_ARBITRARY);
	cr_assert_eq(psiplace_lama_classify(NULL, 0, 2), PSIPLACE_LAMA_DIST_BLOCK);
	cr_assert_str_eq(psiplace_lama_dist_name(PSIPLACE_LAMA_DIST_CYCLIC), "cyclic");
}

static enum psiplace_lama_dist choose(const char *const *kv, unsigned nnodes, const unsigned *counts,
				      const struct psiplace_topo *const *t, unsigned *seq)
{
	struct psiplace_lama_opts o;
	enum psiplace_lama_dist d;
	psiplace_error_t err;

	opts(&o, kv);
	cr_assert_eq(psiplace_lama_choose_dist(&o, nnodes, counts, t, &d, seq, &err), 0,
		     "%s", err.text);
	return d;
}

Test(lama_layout, choose_from_the_strings_alone)
{
	static const unsigned c[2] = { 4, 4 };

	cr_assert_eq(choose(NULL, 2, c, NULL, NULL), PSIPLACE_LAMA_DIST_BLOCK);
	cr_assert_eq(choose(KV("--psi-map-by", "node"), 2, c, NULL, NULL), PSIPLACE_LAMA_DIST_CYCLIC);
	cr_assert_eq(choose(KV("--psi-lama-map", "bnsch"), 2, c, NULL, NULL), PSIPLACE_LAMA_DIST_CYCLIC);
	cr_assert_eq(choose(KV("--psi-lama-map", "snbch"), 2, c, NULL, NULL), PSIPLACE_LAMA_DIST_BLOCK);
	cr_assert_eq(choose(KV("--psi-map-by", "node", "--psi-lama-order", "s"), 2, c, NULL, NULL),
		     PSIPLACE_LAMA_DIST_BLOCK);
}

Test(lama_layout, choose_with_topologies_is_exact)
{
	const struct psiplace_topo *t = topo("pack:2 core:4 pu:2"), *all[2] = { t, t };
	static const unsigned fit[2] = { 8, 8 }, over[2] = { 10, 10 };
	unsigned seq[20], i;
	static const unsigned want[20] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1 };

	cr_assert_eq(choose(NULL, 2, fit, all, NULL), PSIPLACE_LAMA_DIST_BLOCK);
	cr_assert_eq(choose(KV("--psi-map-by", "node"), 2, fit, all, NULL), PSIPLACE_LAMA_DIST_CYCLIC);
	cr_assert_eq(choose(NULL, 2, over, all, seq), PSIPLACE_LAMA_DIST_ARBITRARY);
	for (i = 0; i < 20; i++)
		cr_assert_eq(seq[i], want[i], "task %u", i);
}

Test(lama_layout, verify_whole_layout_shows_both_orders)
{
	const struct psiplace_topo *t = topo("pack:2 core:2 pu:1"), *all[2] = { t, t };
	static const unsigned block[8] = { 0, 0, 0, 0, 1, 1, 1, 1 }, cyc[8] = { 0, 1, 0, 1, 0, 1, 0, 1 };
	struct psiplace_lama_opts o;
	psiplace_error_t err;

	opts(&o, KV("--psi-map-by", "node"));
	cr_assert_eq(psiplace_lama_verify_layout(&o, 2, all, cyc, 8, &err), 0, "%s", err.text);
	cr_assert_eq(psiplace_lama_verify_layout(&o, 2, all, block, 8, &err), -1);
	cr_assert_str_eq(err.text,
			 "task layout differs from LAMA's node order at task 1: nodes of tasks 0..: Slurm 0 0 0 0 1 1 1 1; LAMA (map nsbch) 0 1 0 1 0 1 0 1");
	opts(&o, NULL);
	cr_assert_eq(psiplace_lama_verify_layout(&o, 2, all, block, 8, &err), 0, "%s", err.text);
	cr_assert_eq(psiplace_lama_verify_layout(&o, 2, all, cyc, 8, &err), -1);
	cr_assert_str_eq(err.text,
			 "task layout differs from LAMA's node order at task 1: nodes of tasks 0..: Slurm 0 1 0 1 0 1 0 1; LAMA (map cL1L2L3sNbnh) 0 0 0 0 1 1 1 1");
}

Test(lama_layout, verify_long_layout_shows_a_window_around_the_difference)
{
	const struct psiplace_topo *t = topo("pack:2 core:8 pu:1"), *all[2] = { t, t };
	unsigned lay[32], i;
	struct psiplace_lama_opts o;
	psiplace_error_t err;

	for (i = 0; i < 32; i++)
		lay[i] = i < 16 ? 0 : 1;
	lay[10] = 1;
	lay[16] = 0;
	opts(&o, NULL);
	cr_assert_eq(psiplace_lama_verify_layout(&o, 2, all, lay, 32, &err), -1);
	cr_assert_str_eq(err.text,
			 "task layout differs from LAMA's node order at task 10: nodes of tasks 6..: Slurm ... 0 0 0 0 1 0 0 0 0 0 0 1 1 1 1 1 1 1 1 1 ...; LAMA (map cL1L2L3sNbnh) ... 0 0 0 0 0 0 0 0 0 0 1 1 1 1 1 1 1 1 1 1 ...");
}

/* Does the node's check pass?  It must not fail outright. */
static bool local(const char *const *kv, const struct psiplace_topo *t, unsigned n,
		  enum psiplace_lama_dist d, psiplace_error_t *err)
{
	struct psiplace_lama_opts o;
	bool ok = true;

	opts(&o, kv);
	cr_assert_eq(psiplace_lama_verify_local(&o, t, n, d, &ok, err), 0, "%s", err->text);
	return ok;
}

Test(lama_layout, verify_local_block_and_cyclic)
{
	const struct psiplace_topo *t = topo("pack:2 core:4 pu:2");
	psiplace_error_t err;

	cr_assert(local(NULL, t, 8, PSIPLACE_LAMA_DIST_BLOCK, &err), "%s", err.text);
	cr_assert(!local(NULL, t, 10, PSIPLACE_LAMA_DIST_BLOCK, &err));
	cr_assert_str_eq(err.text,
			 "task layout: block puts 10 tasks on this node, but map cL1L2L3sNbnh moves to the next node after 8 of them; LAMA's order needs another layout (e.g. at most 8 tasks per node)");
	cr_assert(local(KV("--psi-map-by", "node"), t, 16, PSIPLACE_LAMA_DIST_CYCLIC, &err), "%s", err.text);
	cr_assert(!local(NULL, t, 2, PSIPLACE_LAMA_DIST_CYCLIC, &err));
	cr_assert_str_eq(err.text,
			 "task layout: cyclic puts one task per round on this node, but map cL1L2L3sNbnh places tasks 0 and 1 here before moving to the next node; use a block layout");
	cr_assert(local(KV("--psi-lama-order", "s"), t, 16, PSIPLACE_LAMA_DIST_BLOCK, &err), "%s", err.text);
	cr_assert(!local(KV("--psi-lama-order", "s"), t, 16, PSIPLACE_LAMA_DIST_CYCLIC, &err));
	cr_assert_str_eq(err.text,
			 "task layout: sequential order numbers ranks node by node, which needs a block layout, not cyclic");
	cr_assert(!local(NULL, t, 4, PSIPLACE_LAMA_DIST_ARBITRARY, &err));
	cr_assert_str_eq(err.text, "task layout: an arbitrary layout cannot be checked on one node alone");
	cr_assert(!local(KV("--psi-lama-order", "s"), t, 4, PSIPLACE_LAMA_DIST_ARBITRARY, &err));
	cr_assert_str_eq(err.text,
			 "task layout: sequential order numbers ranks node by node, which needs a block layout, not arbitrary");
}

Test(lama_layout, verify_local_cyclic_ignores_locations_skipped_by_windows)
{
	const struct psiplace_topo *t = topo("pack:2 core:4 pu:1");
	psiplace_error_t err;

	cr_assert(local(KV("--psi-map-by", "node", "--psi-lama-bind", "2c"), t, 4,
			PSIPLACE_LAMA_DIST_CYCLIC, &err), "%s", err.text);
}

Test(lama_layout, slurm_block_and_cyclic_layouts_from_counts)
{
	static const unsigned counts[3] = { 3, 0, 2 };
	unsigned seq[5], i;
	static const unsigned block[5] = { 0, 0, 0, 2, 2 }, cyc[5] = { 0, 2, 0, 2, 0 };

	cr_assert_eq(psiplace_lama_slurm_layout(PSIPLACE_LAMA_DIST_BLOCK, counts, 3, seq), 0);
	for (i = 0; i < 5; i++)
		cr_assert_eq(seq[i], block[i]);
	cr_assert_eq(psiplace_lama_slurm_layout(PSIPLACE_LAMA_DIST_CYCLIC, counts, 3, seq), 0);
	for (i = 0; i < 5; i++)
		cr_assert_eq(seq[i], cyc[i]);
	cr_assert_eq(psiplace_lama_classify(cyc, 5, 3), PSIPLACE_LAMA_DIST_CYCLIC);
	cr_assert_eq(psiplace_lama_slurm_layout(PSIPLACE_LAMA_DIST_ARBITRARY, counts, 3, seq), -1);
}
