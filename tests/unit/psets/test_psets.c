/* PMIx process sets (common/psets/psets.c): the user's --psi-pset and
 * --psi-pset-levels values, the node of every rank, the step-wide and the
 * node-local sets.  Every expectation is written out by hand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "psiplace/options.h"
#include "psiplace/psets.h"
#include "psiplace/user_request.h"

static psiplace_error_t err;

/* "name:r,r,r|name:..." of a set list, ranks as stored. */
static void render(const struct psiplace_psets *s, char *buf, size_t len)
{
	size_t i, k, o = 0;

	buf[0] = '\0';
	for (i = 0; i < s->n; i++) {
		o += (size_t)snprintf(buf + o, len - o, "%s%s:", i ? "|" : "", s->set[i].name);
		for (k = 0; k < s->set[i].n; k++)
			o += (size_t)snprintf(buf + o, len - o, "%s%u", k ? "," : "", s->set[i].ranks[k]);
	}
}

static void parse_ok(const char *value, const char *want)
{
	struct psiplace_psets s;
	char buf[1024];

	psiplace_psets_init(&s);
	cr_assert_eq(psiplace_psets_parse(value, "--psi-pset", &s, &err), 0, "%s: %s", value, err.text);
	render(&s, buf, sizeof(buf));
	cr_assert_str_eq(buf, want, "%s", value);
	psiplace_psets_free(&s);
}

static void parse_bad(const char *value, const char *want)
{
	struct psiplace_psets s;

	psiplace_psets_init(&s);
	cr_assert_lt(psiplace_psets_parse(value, "--psi-pset", &s, &err), 0, "%s accepted", value);
	cr_assert_str_eq(err.text, want, "%s", value);
	cr_assert_eq(s.n, 0);
	cr_assert_null(s.set);
}

Test(psets_parse, one_set_ranges_and_singles_sorted_unique)
{
	parse_ok("ocean:0-3,8", "ocean:0,1,2,3,8");
	parse_ok("x:5,1-2,2,5", "x:1,2,5");
	parse_ok("a:7", "a:7");
}

Test(psets_parse, several_sets_in_given_order)
{
	parse_ok("ocean:0-1;ice:2-3", "ocean:0,1|ice:2,3");
	parse_ok("b:1;a:0", "b:1|a:0");
}

Test(psets_parse, name_may_hold_colons_and_slashes_last_colon_separates)
{
	parse_ok("app:x/y:0-1", "app:x/y:0,1");
	parse_ok("my.set_1-b:3", "my.set_1-b:3");
}

Test(psets_parse, reserved_prefixes_refused)
{
	parse_bad("mpi://world:0",
		  "--psi-pset: set name 'mpi://world' uses a reserved prefix (mpi:// is MPI's, psiplace:// psiplace's own sets)");
	parse_bad("psiplace://all:0-1",
		  "--psi-pset: set name 'psiplace://all' uses a reserved prefix (mpi:// is MPI's, psiplace:// psiplace's own sets)");
	/* only the exact prefixes are reserved */
	parse_ok("mpi:/x:0", "mpi:/x:0");
}

Test(psets_parse, not_name_colon_ranks)
{
	parse_bad("ocean",
		  "--psi-pset: 'ocean' is not NAME:RANKS; accepted: NAME:RANKS[;NAME:RANKS...], e.g. ocean:0-3;ice:4-7");
	parse_bad(":0",
		  "--psi-pset: ':0' is not NAME:RANKS; accepted: NAME:RANKS[;NAME:RANKS...], e.g. ocean:0-3;ice:4-7");
	parse_bad("a:0;;b:1",
		  "--psi-pset: '' is not NAME:RANKS; accepted: NAME:RANKS[;NAME:RANKS...], e.g. ocean:0-3;ice:4-7");
	parse_bad("", "--psi-pset: no set given; accepted: NAME:RANKS[;NAME:RANKS...]");
}

Test(psets_parse, bad_rank_lists)
{
	static const char *const bad[] = { "a:", "a:1-0", "a:x", "a:1,", "a:,1", "a:1-", "a:-1",
					   "a:1--2", "a:16777216", "a:99999999999999999999", "a: 1" };
	char want[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(want, sizeof(want),
			 "--psi-pset: set 'a': '%s' is not a rank list; accepted: ranks and ranges 0 to 16777215 such as 0-3,8",
			 bad[i] + 2);
		parse_bad(bad[i], want);
	}
	parse_ok("a:16777215", "a:16777215");
}

Test(psets_parse, name_characters_and_length)
{
	char name[80], value[100];

	parse_bad("a b:0", "--psi-pset: set name 'a b' is not accepted: 1 to 63 letters, digits or _-.:/");
	parse_bad("a,b:0", "--psi-pset: set name 'a,b' is not accepted: 1 to 63 letters, digits or _-.:/");
	memset(name, 'n', 63);
	name[63] = '\0';
	snprintf(value, sizeof(value), "%s:0", name);
	{
		struct psiplace_psets s;

		psiplace_psets_init(&s);
		cr_assert_eq(psiplace_psets_parse(value, "--psi-pset", &s, &err), 0, "%s", err.text);
		cr_assert_eq(strlen(s.set[0].name), 63);
		psiplace_psets_free(&s);
	}
	snprintf(value, sizeof(value), "%sn:0", name);
	cr_assert_lt(psiplace_psets_parse(value, "--psi-pset", &(struct psiplace_psets){ 0 }, &err), 0);
	cr_assert(strstr(err.text, "is not accepted: 1 to 63 letters"), "%s", err.text);
}

Test(psets_parse, duplicate_names_refused_within_and_across_values)
{
	struct psiplace_psets s;

	parse_bad("x:0;x:1", "--psi-pset: set 'x' is defined twice");
	psiplace_psets_init(&s);
	cr_assert_eq(psiplace_psets_parse("x:0", "--psi-pset", &s, &err), 0);
	cr_assert_lt(psiplace_psets_parse("y:1;x:2", "PSI_PSETS", &s, &err), 0);
	cr_assert_str_eq(err.text, "PSI_PSETS: set 'x' is defined twice");
	cr_assert_eq(s.n, 1, "a refused value leaves the sets unchanged");
	psiplace_psets_free(&s);
}

Test(psets_parse, at_most_64_sets)
{
	char value[2048];
	size_t o = 0;
	int i;
	struct psiplace_psets s;

	for (i = 0; i < 64; i++)
		o += (size_t)snprintf(value + o, sizeof(value) - o, "%ss%d:%d", i ? ";" : "", i, i);
	psiplace_psets_init(&s);
	cr_assert_eq(psiplace_psets_parse(value, "--psi-pset", &s, &err), 0, "%s", err.text);
	cr_assert_eq(s.n, 64);
	cr_assert_lt(psiplace_psets_parse("one:0", "--psi-pset", &s, &err), 0);
	cr_assert_str_eq(err.text, "--psi-pset: more than 64 sets");
	psiplace_psets_free(&s);
}

Test(psets_parse, members_of_all_sets_bounded)
{
	struct psiplace_psets s;

	psiplace_psets_init(&s);
	cr_assert_eq(psiplace_psets_parse("big:0-1048575", "--psi-pset", &s, &err), 0, "%s", err.text);
	cr_assert_eq(s.set[0].n, 1048576);
	cr_assert_lt(psiplace_psets_parse("more:0", "--psi-pset", &s, &err), 0);
	cr_assert_str_eq(err.text, "--psi-pset: set 'more': more than 1048576 members in all sets");
	psiplace_psets_free(&s);
	/* a libFuzzer slow unit: one range of 4.4 million ranks is refused
	 * before anything is expanded */
	psiplace_psets_init(&s);
	cr_assert_lt(psiplace_psets_parse("ocean:0-4443333;ice:4-27", "--psi-pset", &s, &err), 0);
	cr_assert_str_eq(err.text, "--psi-pset: set 'ocean': more than 1048576 members in all sets");
	psiplace_psets_free(&s);
}

Test(psets_levels, parse_accepted_and_refused)
{
	unsigned lv = 0;

	cr_assert_eq(psiplace_pset_levels_parse("node", "--psi-pset-levels", &lv, &err), 0);
	cr_assert_eq(lv, PSIPLACE_PSET_LEVEL_NODE);
	cr_assert_eq(psiplace_pset_levels_parse("socket,CORE", "--psi-pset-levels", &lv, &err), 0);
	cr_assert_eq(lv, PSIPLACE_PSET_LEVEL_NODE | PSIPLACE_PSET_LEVEL_SOCKET | PSIPLACE_PSET_LEVEL_CORE);
	cr_assert_eq(psiplace_pset_levels_parse("node,socket,numa,l3,core", "x", &lv, &err), 0);
	cr_assert_eq(lv, 0x1f);
	cr_assert_lt(psiplace_pset_levels_parse("node,rack", "--psi-pset-levels", &lv, &err), 0);
	cr_assert_str_eq(err.text,
			 "--psi-pset-levels: 'rack' is not a level; accepted: node, socket, numa, l3, core (comma-separated)");
	cr_assert_lt(psiplace_pset_levels_parse("node,", "PSI_PSET_LEVELS", &lv, &err), 0);
	cr_assert_str_eq(err.text,
			 "PSI_PSET_LEVELS: 'node,' ends with a comma; accepted: node, socket, numa, l3, core (comma-separated)");
	cr_assert_lt(psiplace_pset_levels_parse("", "--psi-pset-levels", &lv, &err), 0);
	cr_assert_str_eq(err.text, "--psi-pset-levels: no level given; accepted: node, socket, numa, l3, core");
}

static void nodes_of(const uint32_t *tpn, uint32_t nnodes, uint32_t ntasks, const char *dist,
		     const char *layout, const char *want)
{
	uint32_t node_of[64];
	char buf[256];
	size_t o = 0;
	uint32_t r;

	cr_assert_eq(psiplace_psets_rank_nodes(tpn, nnodes, ntasks, dist, layout, node_of, &err), 0,
		     "%s", err.text);
	buf[0] = '\0';
	for (r = 0; r < ntasks; r++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%u", node_of[r]);
	cr_assert_str_eq(buf, want, "%s", dist ? dist : "(null)");
}

Test(psets_rank_nodes, block_cyclic_plane_and_psiplace_order)
{
	static const uint32_t even[] = { 2, 2 }, odd[] = { 3, 2, 1 };

	nodes_of(even, 2, 4, NULL, NULL, "0011");
	nodes_of(even, 2, 4, "block", NULL, "0011");
	nodes_of(even, 2, 4, "cyclic", NULL, "0101");
	nodes_of(odd, 3, 6, "cyclic:block", NULL, "012010");
	nodes_of(odd, 3, 6, "plane=2", NULL, "001120");
	nodes_of(odd, 3, 6, "block", "1(x2),0(x3),2", "110002");
}

Test(psets_rank_nodes, inconsistent_layouts_refused)
{
	static const uint32_t tpn[] = { 2, 2 };
	uint32_t node_of[8];

	cr_assert_lt(psiplace_psets_rank_nodes(tpn, 2, 5, NULL, NULL, node_of, &err), 0);
	cr_assert_str_eq(err.text, "the tasks per node add up to 4, the step has 5");
	cr_assert_lt(psiplace_psets_rank_nodes(tpn, 2, 4, "arbitrary", NULL, node_of, &err), 0);
	cr_assert_str_eq(err.text,
			 "distribution 'arbitrary': the node of each rank is not known (block, cyclic and plane=N are)");
	cr_assert_lt(psiplace_psets_rank_nodes(tpn, 2, 4, "plane=0", NULL, node_of, &err), 0);
	cr_assert_lt(psiplace_psets_rank_nodes(tpn, 2, 4, NULL, "0(x3)", node_of, &err), 0);
	cr_assert_str_eq(err.text, "psiplace's rank order names 3 ranks, the step has 4");
	cr_assert_lt(psiplace_psets_rank_nodes(tpn, 2, 4, NULL, "0,1,2,0", node_of, &err), 0);
	cr_assert_str_eq(err.text, "psiplace's rank order names node 2 of 2");
}

/* 4294 nodes of 10^6 tasks and one of 967,298: 2^32 + 2 tasks, which a
 * 32-bit sum took for a step of 2 (issue 18 finding 1: the block loop then
 * wrote 4.3 billion entries into node_of[2] in slurmstepd). */
static uint32_t *wrapping_layout(uint32_t *nnodes)
{
	uint32_t *tpn = malloc(4295 * sizeof(*tpn)), i;

	cr_assert_not_null(tpn);
	for (i = 0; i < 4294; i++)
		tpn[i] = 1000000;
	tpn[4294] = 967298;
	*nnodes = 4295;
	return tpn;
}

Test(psets_rank_nodes, sum_wrapping_32_bits_refused_without_writing)
{
	static const char *const dist[] = { NULL, "block", "cyclic", "plane=3" };
	uint32_t nnodes, *tpn = wrapping_layout(&nnodes), node_of[2 + 8];
	size_t d, i;

	for (d = 0; d < sizeof(dist) / sizeof(dist[0]); d++) {
		for (i = 0; i < 10; i++)
			node_of[i] = 0xdeadbeef;
		cr_assert_lt(psiplace_psets_rank_nodes(tpn, nnodes, 2, dist[d], NULL, node_of, &err), 0,
			     "%s accepted", dist[d] ? dist[d] : "(null)");
		cr_assert_str_eq(err.text, "the tasks per node add up to 4294967298, the step has 2");
		for (i = 0; i < 10; i++)
			cr_assert_eq(node_of[i], 0xdeadbeef, "%s: node_of[%zu] written", dist[d] ? dist[d] : "(null)", i);
	}
	free(tpn);
}

/* The loops stop at ntasks whatever the counts say: with counts adding up,
 * no entry beyond node_of[ntasks - 1] is written and every one is a node. */
Test(psets_rank_nodes, writes_exactly_ntasks_entries_below_nnodes)
{
	static const uint32_t tpn[] = { 3, 0, 2, 1 };
	static const char *const dist[] = { "block", "cyclic", "plane=2", "plane=4294967295" };
	uint32_t node_of[6 + 4];
	size_t d, i;

	for (d = 0; d < sizeof(dist) / sizeof(dist[0]); d++) {
		for (i = 0; i < 10; i++)
			node_of[i] = 0xdeadbeef;
		cr_assert_eq(psiplace_psets_rank_nodes(tpn, 4, 6, dist[d], NULL, node_of, &err), 0, "%s", err.text);
		for (i = 0; i < 6; i++)
			cr_assert_lt(node_of[i], 4, "%s: rank %zu", dist[d], i);
		for (; i < 10; i++)
			cr_assert_eq(node_of[i], 0xdeadbeef, "%s: node_of[%zu] written", dist[d], i);
	}
}

/* A node index past the node list is refused, not counted into memory
 * beyond the node sets. */
Test(psets_step, rank_on_a_node_beyond_the_list_refused)
{
	static const char *const names[] = { "a", "b" };
	static const uint32_t node_of[] = { 0, 1, 2 };
	struct psiplace_psets out;

	cr_assert_lt(psiplace_psets_step(NULL, 3, 2, names, node_of, &out, &err), 0);
	cr_assert_str_eq(err.text, "rank 2 is on node 2 of 2");
	cr_assert_eq(out.n, 0);
}

Test(psets_step, user_all_and_node_sets)
{
	struct psiplace_psets user, out;
	static const char *const names[] = { "n1", "n2" };
	static const uint32_t node_of[] = { 0, 1, 0, 1 };
	char buf[512];

	psiplace_psets_init(&user);
	cr_assert_eq(psiplace_psets_parse("even:0,2", "--psi-pset", &user, &err), 0);
	cr_assert_eq(psiplace_psets_step(&user, 4, 2, names, node_of, &out, &err), 0, "%s", err.text);
	render(&out, buf, sizeof(buf));
	cr_assert_str_eq(buf, "even:0,2|psiplace://all:0,1,2,3|psiplace://node/n1:0,2|psiplace://node/n2:1,3");
	psiplace_psets_free(&out);
	psiplace_psets_free(&user);
}

Test(psets_step, no_layout_gives_all_only)
{
	struct psiplace_psets out;
	char buf[128];

	cr_assert_eq(psiplace_psets_step(NULL, 3, 0, NULL, NULL, &out, &err), 0);
	render(&out, buf, sizeof(buf));
	cr_assert_str_eq(buf, "psiplace://all:0,1,2");
	psiplace_psets_free(&out);
}

Test(psets_step, user_rank_beyond_step_refused)
{
	struct psiplace_psets user, out;

	psiplace_psets_init(&user);
	cr_assert_eq(psiplace_psets_parse("a:0-5", "--psi-pset", &user, &err), 0);
	cr_assert_lt(psiplace_psets_step(&user, 2, 0, NULL, NULL, &out, &err), 0);
	cr_assert_str_eq(err.text, "set 'a' names rank 5; the step has 2 tasks (ranks 0-1)");
	cr_assert_eq(out.n, 0);
	cr_assert_lt(psiplace_psets_step(&user, 1, 0, NULL, NULL, &out, &err), 0);
	cr_assert_str_eq(err.text, "set 'a' names rank 5; the step has 1 task (ranks 0-0)");
	psiplace_psets_free(&user);
}

Test(psets_node_levels, socket_and_core_sets_named_with_the_node)
{
	/* four local tasks, ranks 4-7: sockets 0,0,1,1; cores 0,2,4,6 */
	static const uint32_t ranks[] = { 4, 5, 6, 7 };
	static const int socket[] = { 0, 0, 1, 1 }, core[] = { 0, 2, 4, 6 };
	const int *obj[PSIPLACE_PSET_NLEVELS] = { NULL, socket, NULL, NULL, core };
	struct psiplace_psets out;
	char buf[512];

	psiplace_psets_init(&out);
	cr_assert_eq(psiplace_psets_node_levels("n2",
						PSIPLACE_PSET_LEVEL_NODE | PSIPLACE_PSET_LEVEL_SOCKET |
							PSIPLACE_PSET_LEVEL_CORE,
						4, ranks, obj, &out, &err),
		     0);
	render(&out, buf, sizeof(buf));
	cr_assert_str_eq(buf, "psiplace://node/n2/socket/0:4,5|psiplace://node/n2/socket/1:6,7|"
			      "psiplace://node/n2/core/0:4|psiplace://node/n2/core/2:5|"
			      "psiplace://node/n2/core/4:6|psiplace://node/n2/core/6:7");
	psiplace_psets_free(&out);
}

Test(psets_node_levels, levels_not_asked_or_unknown_give_nothing)
{
	static const uint32_t ranks[] = { 0, 1 };
	static const int numa[] = { -1, -1 };
	const int *obj[PSIPLACE_PSET_NLEVELS] = { NULL, NULL, numa, NULL, NULL };
	struct psiplace_psets out;

	psiplace_psets_init(&out);
	cr_assert_eq(psiplace_psets_node_levels("n1", 0x1f, 2, ranks, obj, &out, &err), 0);
	cr_assert_eq(out.n, 0);
	cr_assert_eq(psiplace_psets_node_levels("n1", PSIPLACE_PSET_LEVEL_NODE, 2, ranks, obj, &out, &err), 0);
	cr_assert_eq(out.n, 0);
}

Test(psets_of_rank, names_in_set_order_and_find)
{
	struct psiplace_psets user, out;
	static const char *const names[] = { "a", "b" };
	static const uint32_t node_of[] = { 0, 0, 1 };
	const char **v;
	size_t n;

	psiplace_psets_init(&user);
	cr_assert_eq(psiplace_psets_parse("x:2;y:0,2", "--psi-pset", &user, &err), 0);
	cr_assert_eq(psiplace_psets_step(&user, 3, 2, names, node_of, &out, &err), 0);
	cr_assert_eq(psiplace_psets_of_rank(&out, 2, &v, &n, &err), 0);
	cr_assert_eq(n, 4);
	cr_assert_str_eq(v[0], "x");
	cr_assert_str_eq(v[1], "y");
	cr_assert_str_eq(v[2], "psiplace://all");
	cr_assert_str_eq(v[3], "psiplace://node/b");
	free(v);
	cr_assert_eq(psiplace_psets_of_rank(&out, 1, &v, &n, &err), 0);
	cr_assert_eq(n, 2);
	cr_assert_str_eq(v[0], "psiplace://all");
	cr_assert_str_eq(v[1], "psiplace://node/a");
	free(v);
	cr_assert_not_null(psiplace_psets_find(&out, "psiplace://node/a"));
	cr_assert_null(psiplace_psets_find(&out, "psiplace://node/c"));
	psiplace_psets_free(&out);
	psiplace_psets_free(&user);
}

static const char *env_of(const char *name, void *arg)
{
	const char *const *kv = arg;

	for (; kv[0]; kv += 2)
		if (!strcmp(name, kv[0]))
			return kv[1];
	return NULL;
}

Test(psets_request, repeated_option_joins_values)
{
	struct psiplace_opts o;

	psiplace_opts_init(&o);
	cr_assert_eq(psiplace_opts_add(&o, PSIPLACE_OPT_PSET, "a:0"), 0);
	cr_assert_eq(psiplace_opts_add(&o, PSIPLACE_OPT_PSET, "b:1-2"), 0);
	cr_assert_str_eq(o.val[PSIPLACE_OPT_PSET], "a:0;b:1-2");
	cr_assert_eq(psiplace_opts_add(&o, PSIPLACE_OPT_PSET_LEVELS, "node"), 0);
	cr_assert_eq(psiplace_opts_add(&o, PSIPLACE_OPT_PSET_LEVELS, "core"), 0);
	cr_assert_str_eq(o.val[PSIPLACE_OPT_PSET_LEVELS], "core", "not repeatable: replaced");
	psiplace_opts_free(&o);
}

Test(psets_request, gather_from_option_variable_and_joined_forward)
{
	struct psiplace_opts o;
	struct psiplace_user_request r;
	const char *env[] = { "PSI_PSETS", "v:0", "PSI_PSET_LEVELS", "socket", NULL };
	const char *fwd[] = { PSIPLACE_ENV_PSETS, "a:0;b:1", NULL };
	const char *stale[] = { PSIPLACE_ENV_PSETS, "a:0;xb:1", NULL };
	struct psiplace_user_request_src src = { env_of, (void *)env, &o, NULL, false };

	psiplace_opts_init(&o);
	cr_assert_eq(psiplace_user_request_gather(&src, &r, &err), 0, "%s", err.text);
	cr_assert(r.psets);
	cr_assert_eq(r.user_psets.n, 1);
	cr_assert_str_eq(r.user_psets.set[0].name, "v");
	cr_assert_eq(r.pset_levels, PSIPLACE_PSET_LEVEL_NODE | PSIPLACE_PSET_LEVEL_SOCKET);
	psiplace_user_request_free(&r);

	/* slurmstepd: Slurm forwards the last --psi-pset, srun all of them */
	psiplace_opts_set(&o, PSIPLACE_OPT_PSET, "b:1");
	src.env_arg = (void *)fwd;
	cr_assert_eq(psiplace_user_request_gather(&src, &r, &err), 0, "%s", err.text);
	cr_assert_eq(r.user_psets.n, 2);
	cr_assert_str_eq(r.user_psets.set[0].name, "a");
	psiplace_user_request_free(&r);
	src.env_arg = (void *)stale;
	cr_assert_eq(psiplace_user_request_gather(&src, &r, &err), 0, "%s", err.text);
	cr_assert_eq(r.user_psets.n, 1, "a joined value not ending in the option is ignored");
	cr_assert_str_eq(r.user_psets.set[0].name, "b");
	psiplace_user_request_free(&r);
	psiplace_opts_free(&o);
}

Test(psets_request, check_option_one_error_line)
{
	cr_assert_lt(psiplace_user_request_check_option(PSIPLACE_OPT_PSET, "psiplace://x:0", NULL, &err), 0);
	cr_assert_str_eq(err.text,
			 "--psi-pset: set name 'psiplace://x' uses a reserved prefix (mpi:// is MPI's, psiplace:// psiplace's own sets)");
	cr_assert_null(strchr(err.text, '\n'));
	cr_assert_lt(psiplace_user_request_check_option(PSIPLACE_OPT_PSET_LEVELS, "rack", NULL, &err), 0);
	cr_assert_str_eq(err.text,
			 "--psi-pset-levels: 'rack' is not a level; accepted: node, socket, numa, l3, core (comma-separated)");
	cr_assert_eq(psiplace_user_request_check_option(PSIPLACE_OPT_PSET, "a:0-3", NULL, &err), 0);
}

/* The rank list as shown (psiplace_idlist_format_cut): whole, or the items
 * that fit and ",..." with -1. */
Test(psets_ranks_string, whole_or_cut_after_whole_items)
{
	struct psiplace_psets s;
	char buf[64];

	psiplace_psets_init(&s);
	cr_assert_eq(psiplace_psets_parse("a:0-3,8,10-11", "--psi-pset", &s, &err), 0, "%s", err.text);
	cr_assert_eq(psiplace_pset_ranks_string(&s.set[0], buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "0-3,8,10-11");
	cr_assert_eq(psiplace_pset_ranks_string(&s.set[0], buf, 12), 0);
	cr_assert_str_eq(buf, "0-3,8,10-11");
	cr_assert_eq(psiplace_pset_ranks_string(&s.set[0], buf, 11), -1);
	cr_assert_str_eq(buf, "0-3,8,...");
	cr_assert_eq(psiplace_pset_ranks_string(&s.set[0], buf, 8), -1);
	cr_assert_str_eq(buf, "0-3,...");
	cr_assert_eq(psiplace_pset_ranks_string(&s.set[0], buf, 4), -1);
	cr_assert_str_eq(buf, "");
	psiplace_psets_free(&s);
}
