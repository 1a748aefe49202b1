/* Process sets of a step: parsing, the rank -> node map of each
 * distribution, the step-wide and the per-node sets.  Expectations are
 * written by hand. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "psiplace/psets.h"

static psiplace_error_t err;

/* "name=0,1;name2=..." of a set list, for compact expectations */
static const char *show(const struct psiplace_psets *s)
{
	static char buf[4096];
	size_t i, k, o = 0;

	buf[0] = '\0';
	for (i = 0; i < s->n; i++) {
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%s=", i ? ";" : "", s->set[i].name);
		for (k = 0; k < s->set[i].n; k++)
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%u", k ? "," : "", s->set[i].ranks[k]);
	}
	return buf;
}

Test(psets, user_sets_parse_with_ranges_sorted_and_unique)
{
	struct psiplace_psets s;

	psiplace_psets_init(&s);
	cr_assert_eq(psiplace_psets_parse("ocean:4-6,0,5;ice:7", "--psi-pset", &s, &err), 0, "%s", err.text);
	cr_assert_str_eq(show(&s), "ocean=0,4,5,6;ice=7");
	/* a second option appends; a name may hold ':' (the last one splits) */
	cr_assert_eq(psiplace_psets_parse("a:b:1", "--psi-pset", &s, &err), 0, "%s", err.text);
	cr_assert_str_eq(show(&s), "ocean=0,4,5,6;ice=7;a:b=1");
	psiplace_psets_free(&s);
}

Test(psets, bad_user_sets_are_refused_naming_what_is_accepted)
{
	static const struct {
		const char *in, *msg;
	} bad[] = {
		{ "", "--psi-pset: no set given; accepted: NAME:RANKS[;NAME:RANKS...]" },
		{ "ocean", "--psi-pset: 'ocean' is not NAME:RANKS; accepted: NAME:RANKS[;NAME:RANKS...], e.g. ocean:0-3;ice:4-7" },
		{ ":0", "--psi-pset: ':0' is not NAME:RANKS; accepted: NAME:RANKS[;NAME:RANKS...], e.g. ocean:0-3;ice:4-7" },
		{ "a b:0", "--psi-pset: set name 'a b' is not accepted: 1 to 63 letters, digits or _-.:/" },
		{ "mpi://world:0", "--psi-pset: set name 'mpi://world' uses a reserved prefix (mpi:// is MPI's, psiplace:// psiplace's own sets)" },
		{ "psiplace://all:0", "--psi-pset: set name 'psiplace://all' uses a reserved prefix (mpi:// is MPI's, psiplace:// psiplace's own sets)" },
		{ "a:3-1", "--psi-pset: set 'a': '3-1' is not a rank list; accepted: ranks and ranges 0 to 16777215 such as 0-3,8" },
		{ "a:1,", "--psi-pset: set 'a': '1,' is not a rank list; accepted: ranks and ranges 0 to 16777215 such as 0-3,8" },
		{ "a:", "--psi-pset: set 'a': '' is not a rank list; accepted: ranks and ranges 0 to 16777215 such as 0-3,8" },
		{ "a:16777216", "--psi-pset: set 'a': '16777216' is not a rank list; accepted: ranks and ranges 0 to 16777215 such as 0-3,8" },
		{ "a:0;a:1", "--psi-pset: set 'a' is defined twice" },
		{ "a:0-1048576", "--psi-pset: set 'a': more than 1048576 ranks" },
	};
	struct psiplace_psets s;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		psiplace_psets_init(&s);
		cr_assert_eq(psiplace_psets_parse(bad[i].in, "--psi-pset", &s, &err), -1, "%s", bad[i].in);
		cr_assert_str_eq(err.text, bad[i].msg);
		cr_assert_eq(s.n, 0, "an error leaves the list as it was");
	}
}

Test(psets, at_most_64_user_sets)
{
	struct psiplace_psets s;
	char buf[64];
	int i;

	psiplace_psets_init(&s);
	for (i = 0; i < 64; i++) {
		snprintf(buf, sizeof(buf), "s%d:%d", i, i);
		cr_assert_eq(psiplace_psets_parse(buf, "--psi-pset", &s, &err), 0, "%s", err.text);
	}
	cr_assert_eq(psiplace_psets_parse("last:0", "--psi-pset", &s, &err), -1);
	cr_assert_str_eq(err.text, "--psi-pset: more than 64 sets");
	psiplace_psets_free(&s);
}

Test(psets, levels)
{
	unsigned l = 0;

	cr_assert_eq(psiplace_pset_levels_parse("socket,CORE", "--psi-pset-levels", &l, &err), 0);
	cr_assert_eq(l, PSIPLACE_PSET_LEVEL_NODE | PSIPLACE_PSET_LEVEL_SOCKET | PSIPLACE_PSET_LEVEL_CORE);
	cr_assert_eq(psiplace_pset_levels_parse("node,", "PSI_PSET_LEVELS", &l, &err), -1);
	cr_assert_str_eq(err.text, "PSI_PSET_LEVELS: 'node,' ends with a comma; accepted: node, socket, numa, l3, core (comma-separated)");
	cr_assert_eq(psiplace_pset_levels_parse("rack", "--psi-pset-levels", &l, &err), -1);
	cr_assert_str_eq(err.text, "--psi-pset-levels: 'rack' is not a level; accepted: node, socket, numa, l3, core (comma-separated)");
}

static const char *nodes_of(const uint32_t *tpn, uint32_t nn, uint32_t nt, const char *dist,
			    const char *layout)
{
	static char buf[256];
	uint32_t v[32], i;
	size_t o = 0;

	if (psiplace_psets_rank_nodes(tpn, nn, nt, dist, layout, v, &err) < 0)
		return err.text;
	for (i = 0; i < nt; i++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%u", v[i]);
	return buf;
}

Test(psets, rank_to_node_for_each_distribution)
{
	const uint32_t tpn[3] = { 3, 1, 2 };

	cr_assert_str_eq(nodes_of(tpn, 3, 6, NULL, NULL), "000122");
	cr_assert_str_eq(nodes_of(tpn, 3, 6, "block:cyclic", NULL), "000122");
	/* cyclic skips a node whose tasks are all placed */
	cr_assert_str_eq(nodes_of(tpn, 3, 6, "cyclic", NULL), "012020");
	cr_assert_str_eq(nodes_of(tpn, 3, 6, "plane=2", NULL), "001220");
	/* psiplace's own order wins */
	cr_assert_str_eq(nodes_of(tpn, 3, 6, "arbitrary", "2,0(x3),1,2"), "200012");
	cr_assert_str_eq(nodes_of(tpn, 3, 6, "arbitrary", NULL),
			 "distribution 'arbitrary': the node of each rank is not known (block, cyclic and plane=N are)");
	cr_assert_str_eq(nodes_of(tpn, 3, 5, NULL, NULL), "the tasks per node add up to 6, the step has 5");
	cr_assert_str_eq(nodes_of(tpn, 3, 6, NULL, "0(x5),3"), "psiplace's rank order names node 3 of 3");
}

Test(psets, step_sets_user_all_and_nodes)
{
	const uint32_t node_of[5] = { 0, 0, 1, 1, 1 };
	const char *names[2] = { "n1", "n2" };
	struct psiplace_psets user, step;
	const char **of;
	size_t n;

	psiplace_psets_init(&user);
	cr_assert_eq(psiplace_psets_parse("edge:0,4", "--psi-pset", &user, &err), 0);
	cr_assert_eq(psiplace_psets_step(&user, 5, 2, names, node_of, &step, &err), 0, "%s", err.text);
	cr_assert_str_eq(show(&step),
			 "edge=0,4;psiplace://all=0,1,2,3,4;psiplace://node/n1=0,1;psiplace://node/n2=2,3,4");
	cr_assert_eq(psiplace_psets_of_rank(&step, 4, &of, &n, &err), 0);
	cr_assert_eq(n, 3);
	cr_assert_str_eq(of[0], "edge");
	cr_assert_str_eq(of[1], "psiplace://all");
	cr_assert_str_eq(of[2], "psiplace://node/n2");
	free(of);
	cr_assert_not_null(psiplace_psets_find(&step, "psiplace://node/n1"));
	cr_assert_null(psiplace_psets_find(&step, "psiplace://node/n3"));
	psiplace_psets_free(&step);

	/* without a node map: only the user's sets and psiplace://all */
	cr_assert_eq(psiplace_psets_step(&user, 5, 0, NULL, NULL, &step, &err), 0);
	cr_assert_str_eq(show(&step), "edge=0,4;psiplace://all=0,1,2,3,4");
	psiplace_psets_free(&step);

	/* a rank beyond the step */
	cr_assert_eq(psiplace_psets_step(&user, 4, 2, names, node_of, &step, &err), -1);
	cr_assert_str_eq(err.text, "set 'edge' names rank 4; the step has 4 tasks (ranks 0-3)");
	psiplace_psets_free(&user);
}

Test(psets, node_levels_from_the_placement)
{
	/* four local tasks, ranks 4-7: sockets 0,0,1,1 and cores 0,1,4,5;
	 * NUMA unknown for task 3 (-1: no set for it) */
	const uint32_t ranks[4] = { 4, 5, 6, 7 };
	const int socket[4] = { 0, 0, 1, 1 }, numa[4] = { 0, 0, 1, -1 }, core[4] = { 0, 1, 4, 5 };
	const int *obj[PSIPLACE_PSET_NLEVELS] = { NULL, socket, numa, NULL, core };
	struct psiplace_psets s;

	psiplace_psets_init(&s);
	cr_assert_eq(psiplace_psets_node_levels("n2", PSIPLACE_PSET_LEVEL_NODE | PSIPLACE_PSET_LEVEL_SOCKET |
						      PSIPLACE_PSET_LEVEL_NUMA,
						4, ranks, obj, &s, &err), 0);
	cr_assert_str_eq(show(&s),
			 "psiplace://node/n2/socket/0=4,5;psiplace://node/n2/socket/1=6,7;"
			 "psiplace://node/n2/numa/0=4,5;psiplace://node/n2/numa/1=6");
	psiplace_psets_free(&s);
	cr_assert_eq(psiplace_psets_node_levels("n2", PSIPLACE_PSET_LEVEL_CORE, 4, ranks, obj, &s, &err), 0);
	cr_assert_str_eq(show(&s),
			 "psiplace://node/n2/core/0=4;psiplace://node/n2/core/1=5;"
			 "psiplace://node/n2/core/4=6;psiplace://node/n2/core/5=7");
	psiplace_psets_free(&s);
}
