/* `psiplace map` with PSI options: golden plain and JSON output, errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "map_psi.h"

struct result {
	int rc;
	char *out;
};

static struct result run(const char *topo, unsigned nodes, unsigned tasks, const char *format,
			 char **words, int nwords)
{
	struct result r;
	size_t len;
	FILE *f = open_memstream(&r.out, &len);

	r.rc = cli_map_psi(topo, nodes, tasks, nwords, words, false, format, f);
	fclose(f);
	return r;
}

#define WORDS(...) ((char *[]){ __VA_ARGS__ }), (int)(sizeof((char *[]){ __VA_ARGS__ }) / sizeof(char *))

Test(map_psi, default_is_parastation_slot_order)
{
	struct result r = run("pack:1 core:2 pu:2", 1, 4, "plain", WORDS("--topology", "x"));

	cr_assert_eq(r.rc, 0);
	cr_assert_str_eq(r.out, "0 0 0\n1 0 2\n2 0 1\n3 0 3\n");
	free(r.out);
}

Test(map_psi, tpp_and_loop_nodes_first_as_options)
{
	struct result r = run("pack:2 core:2 pu:1", 2, 4, "plain",
			      WORDS("--psi-tpp", "2", "--psi-loop-nodes-first"));

	cr_assert_eq(r.rc, 0);
	cr_assert_str_eq(r.out, "0 0 0-1\n1 1 0-1\n2 0 2-3\n3 1 2-3\n");
	free(r.out);
}

Test(map_psi, cpumap_and_json)
{
	struct result r = run("pack:1 core:4 pu:1", 1, 2, "json", WORDS("--psi-cpumap=3-0", "--psi-no-bindmem"));

	cr_assert_eq(r.rc, 0);
	cr_assert_str_eq(r.out, "{\"tasks\":[\n{\"rank\":0,\"node\":0,\"cpus\":\"3\",\"mems\":\"-\"},\n{\"rank\":1,\"node\":0,\"cpus\":\"2\",\"mems\":\"-\"}\n]}\n");
	free(r.out);
}

Test(map_psi, impossible_placement_exits_1_and_bad_option_2)
{
	struct result r = run("pack:1 core:2 pu:1", 1, 3, "plain", WORDS("-n", "3"));

	cr_assert_eq(r.rc, 1);
	cr_assert_str_eq(r.out, "");
	free(r.out);
	r = run("pack:1 core:2 pu:1", 1, 3, "plain", WORDS("--psi-tpp=0"));
	cr_assert_eq(r.rc, 2);
	free(r.out);
	r = run("pack:1 core:2 pu:1", 1, 1, "svg", WORDS("--psi-tpp=1"));
	cr_assert_eq(r.rc, 2);
	free(r.out);
	r = run("pack:1 core:2 pu:1", 1, 3, "plain", WORDS("--psi-overbook"));
	cr_assert_eq(r.rc, 0);
	cr_assert_str_eq(r.out, "0 0 0\n1 0 1\n2 0 0\n");
	free(r.out);
}

static bool wants_lama(char **words, int n)
{
	return cli_map_wants_lama(n, words, false);
}

Test(map_psi, lama_words_go_to_the_lama_backend)
{
	cr_assert(wants_lama(WORDS("--psi-map-by", "socket")));
	cr_assert_not(wants_lama(WORDS("--psi-tpp", "2")));
}
