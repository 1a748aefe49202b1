/* LAMA at step launch: the options of a gathered request, the Slurm
 * distribution set at submission, the layout check and the node's
 * bindings (psiplace/lama_launch.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "psiplace/error.h"
#include "psiplace/lama_launch.h"
#include "psiplace/request_launch.h"

static psiplace_error_t err;

static const char *fake_getenv(const char *name, void *arg)
{
	const char *const *e = arg;
	size_t n = strlen(name);

	for (; e && *e; e++)
		if (!strncmp(*e, name, n) && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

#define ENV(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* A request from variables and srun options (argv without "srun"). */
static void request(const char *const *env, const char *const *args, struct psiplace_user_request *r)
{
	struct psiplace_opts opts;
	struct psiplace_slurm_cmdline sl;
	struct psiplace_user_request_src src = { fake_getenv, (void *)env, &opts, NULL, false };
	char *argv[16] = { "srun" };
	int argc = 1;

	psiplace_opts_init(&opts);
	for (; args && *args; args++)
		argv[argc++] = (char *)*args;
	argv[argc++] = "a.out";
	cr_assert_eq(psiplace_cmdline_scan(argc, argv, &opts, &sl, &err), 0, "%s", err.text);
	cr_assert_eq(psiplace_user_request_gather(&src, r, &err), 0, "%s", err.text);
	psiplace_opts_free(&opts);
}

static struct psiplace_topo topo2x4;

static void load(void)
{
	cr_assert_eq(psiplace_topo_load("pack:2 core:4 pu:1", NULL, &topo2x4, &err), 0, "%s", err.text);
}

static void unload(void)
{
	psiplace_topo_free(&topo2x4);
}

Test(lama_step, options_beat_variables_and_a_beaten_bad_variable_is_never_parsed)
{
	struct psiplace_user_request r;
	struct psiplace_lama_opts o;

	request(ENV("OMPI_MCA_rmaps_lama_map=junk", "OMPI_MCA_rmaps_lama_bind=2c"),
		ENV("--psi-lama-map=csbnh"), &r);
	cr_assert_eq(psiplace_lama_opts_of_request(&r, &o, &err), 0, "%s", err.text);
	cr_assert_str_eq(o.map_str, "csbnh");
	cr_assert_eq(o.bind_width, 2);
	psiplace_user_request_free(&r);
}

Test(lama_step, map_by_beats_the_map_variable_with_a_note)
{
	struct psiplace_user_request r;
	struct psiplace_lama_opts o;

	request(ENV("OMPI_MCA_rmaps_lama_map=csbnh"), ENV("--psi-map-by=socket"), &r);
	cr_assert_eq(psiplace_lama_opts_of_request(&r, &o, &err), 0, "%s", err.text);
	cr_assert_str_eq(o.map_str, "sbnch");
	cr_assert_eq(r.nnotes, 1);
	cr_assert_str_eq(r.notes[0], "OMPI_MCA_rmaps_lama_map ignored: --psi-map-by is given");
	psiplace_user_request_free(&r);
}

Test(lama_step, bad_variable_is_an_error_naming_it)
{
	struct psiplace_user_request r;
	struct psiplace_lama_opts o;

	request(ENV("OMPI_MCA_rmaps_lama_map=sbnh"), NULL, &r);
	cr_assert(r.lama);
	cr_assert_eq(psiplace_lama_opts_of_request(&r, &o, &err), -1);
	cr_assert_str_eq(err.text, "OMPI_MCA_rmaps_lama_map: 'sbnh' lacks 'c', the level of the binding '1c' (the default binding); a map must contain n, h and the binding level");
	psiplace_user_request_free(&r);
}

Test(lama_step, distribution_from_the_strings)
{
	struct psiplace_user_request r;
	enum psiplace_lama_dist d;

	request(NULL, ENV("--psi-lama-map=nsbch"), &r);
	cr_assert_eq(psiplace_lama_request_dist(&r, &d, &err), 0, "%s", err.text);
	cr_assert_eq(d, PSIPLACE_LAMA_DIST_CYCLIC);
	psiplace_user_request_free(&r);
	request(NULL, ENV("--psi-map-by=socket"), &r);
	cr_assert_eq(psiplace_lama_request_dist(&r, &d, &err), 0, "%s", err.text);
	cr_assert_eq(d, PSIPLACE_LAMA_DIST_BLOCK);
	psiplace_user_request_free(&r);
	request(NULL, ENV("--psi-lama-map=nsbch", "--psi-lama-order=s"), &r);
	cr_assert_eq(psiplace_lama_request_dist(&r, &d, &err), 0, "%s", err.text);
	cr_assert_eq(d, PSIPLACE_LAMA_DIST_BLOCK);
	psiplace_user_request_free(&r);
}

static const char *env_line(const struct psiplace_slurm_env *e)
{
	static char buf[1024];
	unsigned i;

	buf[0] = '\0';
	for (i = 0; i < e->n; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s=%s", i ? " " : "",
			 e->var[i].name, e->var[i].value);
	return buf;
}

Test(lama_step, submission_sets_the_distribution_unless_the_user_did)
{
	struct psiplace_user_request r;
	struct psiplace_slurm_env e;
	struct psiplace_slurm_cmdline m = { .set = PSIPLACE_SLURM_DISTRIBUTION, .ntasks = 4, .nnodes = 2, .operand = 1, .cpus_per_task = -1 };

	request(NULL, ENV("--psi-lama-map=nsbch"), &r);
	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SRUN, PSIPLACE_SLURM_RELEASE(22, 5), true, false, NULL, fake_getenv, NULL, NULL, &e);
	cr_assert_str_eq(env_line(&e), "SLURM_DISTRIBUTION=cyclic SLURM_CPU_BIND=none");
	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SBATCH, PSIPLACE_SLURM_RELEASE(22, 5), true, false, NULL, fake_getenv, NULL, NULL, &e);
	cr_assert_str_eq(env_line(&e), "SBATCH_DISTRIBUTION=cyclic");
	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SALLOC, PSIPLACE_SLURM_RELEASE(22, 5), true, false, NULL, fake_getenv, NULL, NULL, &e);
	cr_assert_str_eq(env_line(&e), "");
	cr_assert_str_eq(e.notes[0], "LAMA's node order (--psi-lama-map): salloc has no distribution variable; give the steps -m cyclic");
	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SRUN, PSIPLACE_SLURM_RELEASE(22, 5), true, false, &m, fake_getenv, NULL, NULL, &e);
	cr_assert_str_eq(env_line(&e), "SLURM_CPU_BIND=none");
	cr_assert_str_eq(e.notes[0], "LAMA's node order (--psi-lama-map): not setting SLURM_DISTRIBUTION=cyclic, you chose -m/--distribution yourself");
	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SRUN, PSIPLACE_SLURM_RELEASE(22, 5), true, false, NULL, fake_getenv,
				   (void *)ENV("SLURM_DISTRIBUTION=block"), NULL, &e);
	cr_assert_str_eq(env_line(&e), "SLURM_CPU_BIND=none");
	psiplace_user_request_free(&r);
}

/* A step as node `node` sees it. */
static struct psiplace_step step(uint32_t node, uint32_t nnodes, uint32_t *tpn, uint32_t nlocal,
				 uint32_t *gtids)
{
	struct psiplace_step s = { "n", node, nnodes, tpn, 0, nlocal, gtids, NULL };
	uint32_t k;

	for (k = 0; k < nnodes; k++)
		s.ntasks += tpn[k];
	return s;
}

Test(lama_step, which_distribution_a_node_sees)
{
	uint32_t c22[] = { 2, 2 }, c11[] = { 1, 1 }, c31[] = { 3, 1 }, bad[] = { 2, 1 };
	uint32_t g01[] = { 0, 1 }, g02[] = { 2, 0 }, g03[] = { 0, 3 }, g0[] = { 0 }, g023[] = { 0, 2, 3 };
	struct psiplace_step s;

	s = step(0, 2, c22, 2, g01);
	cr_assert_eq(psiplace_lama_step_dists(&s), 1 << PSIPLACE_LAMA_DIST_BLOCK);
	s = step(0, 2, c22, 2, g02);
	cr_assert_eq(psiplace_lama_step_dists(&s), 1 << PSIPLACE_LAMA_DIST_CYCLIC);
	s = step(0, 2, c22, 2, g03);
	cr_assert_eq(psiplace_lama_step_dists(&s), 0);
	s = step(0, 2, c11, 1, g0);
	cr_assert_eq(psiplace_lama_step_dists(&s), 3);
	s = step(0, 2, c31, 3, g023);
	cr_assert_eq(psiplace_lama_step_dists(&s), 1 << PSIPLACE_LAMA_DIST_CYCLIC);
	s = step(1, 2, bad, 2, g01); /* node 1 runs 1 task, not 2 */
	cr_assert_eq(psiplace_lama_step_dists(&s), -1);
}

static void lama(struct psiplace_lama_opts *o, const char *map)
{
	psiplace_lama_opts_init(o);
	cr_assert_eq(psiplace_lama_apply(o, "--psi-lama-map", map, &err), 0, "%s", err.text);
	cr_assert_eq(psiplace_lama_finish(o, &err), 0, "%s", err.text);
}

Test(lama_step, block_against_a_cyclic_map_fails_with_both_layouts, .init = load, .fini = unload)
{
	uint32_t c22[] = { 2, 2 }, g01[] = { 0, 1 }, g02[] = { 0, 2 };
	struct psiplace_lama_opts o;
	struct psiplace_step s = step(0, 2, c22, 2, g01);

	lama(&o, "nsbch");
	cr_assert_eq(psiplace_lama_check_step(&o, &topo2x4, &s, &err), -1);
	cr_assert_str_eq(err.text, "task layout: block puts 2 tasks on this node, but map nsbch moves to the next node after 1 of them; LAMA's order needs another layout (e.g. at most 1 tasks per node); nodes of tasks 0..: Slurm (block) 0 0 1 1; LAMA (map nsbch) 0 1 0 1");
	s = step(0, 2, c22, 2, g02);
	cr_assert_eq(psiplace_lama_check_step(&o, &topo2x4, &s, &err), 0, "%s", err.text);
	s = step(0, 1, c22, 2, g01); /* one node: any layout is LAMA's */
	cr_assert_eq(psiplace_lama_check_step(&o, &topo2x4, &s, &err), 0, "%s", err.text);
}

Test(lama_step, cyclic_against_a_block_map_fails_with_both_layouts, .init = load, .fini = unload)
{
	uint32_t c22[] = { 2, 2 }, g13[] = { 1, 3 };
	struct psiplace_lama_opts o;
	struct psiplace_step s = step(1, 2, c22, 2, g13);

	lama(&o, "csbnh");
	cr_assert_eq(psiplace_lama_check_step(&o, &topo2x4, &s, &err), -1);
	cr_assert_str_eq(err.text, "task layout: cyclic puts one task per round on this node, but map csbnh places tasks 0 and 1 here before moving to the next node; use a block layout; nodes of tasks 0..: Slurm (cyclic) 0 1 0 1; LAMA (map csbnh) 0 0 1 1");
}

Test(lama_step, other_layouts_are_checked_against_nodes_like_this_one)
{
	struct psiplace_topo t;
	uint32_t c44[] = { 4, 4 }, plane[] = { 0, 1, 4, 5 }, wrong[] = { 0, 1, 6, 7 };
	struct psiplace_lama_opts o;
	struct psiplace_step s = step(0, 2, c44, 4, plane);

	cr_assert_eq(psiplace_topo_load("pack:2 core:2 pu:1", NULL, &t, &err), 0, "%s", err.text);
	lama(&o, "cnsbh"); /* 0 0 1 1 0 0 1 1: Slurm's plane=2 */
	cr_assert_eq(psiplace_lama_check_step(&o, &t, &s, &err), 0, "%s", err.text);
	s = step(0, 2, c44, 4, wrong);
	cr_assert_eq(psiplace_lama_check_step(&o, &t, &s, &err), -1);
	cr_assert_str_eq(err.text, "task layout: Slurm's layout (neither block nor cyclic) gives this node other tasks than LAMA's node order for nodes shaped like this one; this node's tasks: Slurm 0 1 6 7; LAMA (map cnsbh) 0 1 4 5");
	psiplace_topo_free(&t);
}

Test(lama_step, sequential_order_needs_block, .init = load, .fini = unload)
{
	uint32_t c22[] = { 2, 2 }, g02[] = { 0, 2 };
	struct psiplace_lama_opts o;
	struct psiplace_step s = step(0, 2, c22, 2, g02);

	lama(&o, "csbnh");
	cr_assert_eq(psiplace_lama_apply(&o, "--psi-lama-order", "s", &err), 0);
	cr_assert_eq(psiplace_lama_check_step(&o, &topo2x4, &s, &err), -1);
	cr_assert(!strncmp(err.text, "task layout: sequential order numbers ranks node by node, which needs a block layout, not cyclic; nodes of tasks 0..: Slurm (cyclic) 0 1 0 1; LAMA (map csbnh) 0 0 1 1", 200), "%s", err.text);
}

static const char *lists(const struct psiplace_binding *b, unsigned n, int mems)
{
	static char buf[512];
	char one[64];
	unsigned i;

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		psiplace_bitmap_list(mems ? b[i].mems : b[i].cpus, one, sizeof(one));
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", i ? " " : "", one);
	}
	return buf;
}

/* The step plugin's way: the request's LAMA options, then the node. */
static int place_req(const struct psiplace_user_request *r, const struct psiplace_topo *t,
		     const struct psiplace_step *s, struct psiplace_binding *b, char *sum, size_t len,
		     psiplace_error_t *e)
{
	struct psiplace_lama_opts o;

	if (psiplace_lama_opts_of_request(r, &o, e) < 0)
		return -1;
	return psiplace_lama_place_node(&o, r->pin, r->bindmem, t, s, b, sum, len, e);
}

Test(lama_step, changeset_example_on_one_node, .init = load, .fini = unload)
{
	uint32_t c8[] = { 8 }, g[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	struct psiplace_step s = step(0, 1, c8, 8, g);
	struct psiplace_binding *b = psiplace_bindings_new(8);
	struct psiplace_user_request r;
	char sum[PSIPLACE_ERRLEN];

	request(NULL, ENV("--psi-map-by=socket", "--psi-bind-to=core"), &r);
	cr_assert_eq(place_req(&r, &topo2x4, &s, b, sum, sizeof(sum), &err), 0, "%s", err.text);
	cr_assert_str_eq(lists(b, 8, 0), "0 4 1 5 2 6 3 7");
	cr_assert_str_eq(lists(b, 8, 1), "0 0 0 0 0 0 0 0");
	cr_assert_str_eq(sum, "LAMA map sbnch bind 1c mppr none order natural, Slurm layout one node");
	psiplace_bindings_free(b, 8);
	psiplace_user_request_free(&r);
}

Test(lama_step, local_tasks_get_the_sets_of_their_global_ids, .init = load, .fini = unload)
{
	uint32_t c22[] = { 2, 2 }, g[] = { 3, 1 }; /* local 0 is global 3 */
	struct psiplace_step s = step(1, 2, c22, 2, g);
	struct psiplace_binding *b = psiplace_bindings_new(2);
	struct psiplace_user_request r;
	char sum[PSIPLACE_ERRLEN];

	request(NULL, ENV("--psi-lama-map=nsbch"), &r);
	cr_assert_eq(place_req(&r, &topo2x4, &s, b, sum, sizeof(sum), &err), 0, "%s", err.text);
	cr_assert_str_eq(lists(b, 2, 0), "4 0");
	cr_assert_str_eq(sum, "LAMA map nsbch bind 1c mppr none order natural, Slurm layout cyclic");
	psiplace_bindings_free(b, 2);
	psiplace_user_request_free(&r);
}

Test(lama_step, no_pinproc_and_bind_none_leave_tasks_unbound, .init = load, .fini = unload)
{
	uint32_t c2[] = { 2 }, g[] = { 0, 1 };
	struct psiplace_step s = step(0, 1, c2, 2, g);
	struct psiplace_binding *b = psiplace_bindings_new(2);
	struct psiplace_user_request r;

	request(NULL, ENV("--psi-map-by=core", "--psi-no-pinproc"), &r);
	cr_assert_eq(place_req(&r, &topo2x4, &s, b, NULL, 0, &err), 0, "%s", err.text);
	cr_assert_str_eq(lists(b, 2, 0), "- -");
	cr_assert_str_eq(lists(b, 2, 1), "- -");
	psiplace_user_request_free(&r);
	request(NULL, ENV("--psi-bind-to=none"), &r);
	cr_assert_eq(place_req(&r, &topo2x4, &s, b, NULL, 0, &err), 0, "%s", err.text);
	cr_assert_str_eq(lists(b, 2, 0), "- -");
	psiplace_user_request_free(&r);
	psiplace_bindings_free(b, 2);
}

Test(lama_step, mppr_oversubscription_fails_the_node, .init = load, .fini = unload)
{
	uint32_t c4[] = { 4 }, g[] = { 0, 1, 2, 3 };
	struct psiplace_step s = step(0, 1, c4, 4, g);
	struct psiplace_binding *b = psiplace_bindings_new(4);
	struct psiplace_user_request r;

	request(NULL, ENV("--psi-lama-mppr=1:s"), &r);
	cr_assert_eq(place_req(&r, &topo2x4, &s, b, NULL, 0, &err), -1);
	cr_assert_str_eq(err.text, "LAMA detected oversubscription after mapping 2 of 4 processes (map cL1L2L3sNbnh, bind 1c, mppr 1:s, order n); --psi-oversubscribe allows it (Slurm gave the step 8 CPUs on this node)");
	psiplace_user_request_free(&r);
	request(NULL, ENV("--psi-lama-mppr=1:s", "--psi-oversubscribe"), &r);
	cr_assert_eq(place_req(&r, &topo2x4, &s, b, NULL, 0, &err), 0, "%s", err.text);
	cr_assert_str_eq(lists(b, 4, 0), "0 4 0 1");
	psiplace_user_request_free(&r);
	psiplace_bindings_free(b, 4);
}

Test(lama_step, cyclic_with_uneven_counts_and_mixed_shapes_passes, .init = load, .fini = unload)
{
	struct psiplace_topo t6;
	uint32_t c31[] = { 3, 1 }, g[] = { 0, 2, 3 }, c22[] = { 2, 2 }, g13[] = { 1, 3 };
	struct psiplace_lama_opts o;
	struct psiplace_step s = step(0, 2, c31, 3, g); /* Slurm's cyclic over a packed allocation */

	lama(&o, "nsbch");
	cr_assert_eq(psiplace_lama_check_step(&o, &topo2x4, &s, &err), 0, "%s", err.text);
	cr_assert_eq(psiplace_topo_load("pack:2 core:6 pu:1", NULL, &t6, &err), 0, "%s", err.text);
	s = step(1, 2, c22, 2, g13); /* the 2x6 node of a 2x4 + 2x6 step */
	cr_assert_eq(psiplace_lama_check_step(&o, &t6, &s, &err), 0, "%s", err.text);
	psiplace_topo_free(&t6);
}

Test(lama_step, allocation_known_gives_an_arbitrary_layout_and_its_step_string, .init = load, .fini = unload)
{
	struct psiplace_topo t6;
	const struct psiplace_topo *tp[2] = { &topo2x4, &t6 };
	unsigned cpus[] = { 8, 12 }, few[] = { 4, 12 }, seq[12], i;
	struct psiplace_lama_opts o;
	enum psiplace_lama_dist d;
	char got[64] = "", *f;
	bool fits;

	cr_assert_eq(psiplace_topo_load("pack:2 core:6 pu:1", NULL, &t6, &err), 0, "%s", err.text);
	lama(&o, "cnsbh"); /* socket 0 of both nodes, then socket 1 */
	cr_assert_eq(psiplace_lama_alloc_layout(&o, 2, tp, cpus, 12, &fits, &d, seq, &err), 0, "%s", err.text);
	cr_assert(fits);
	cr_assert_eq(d, PSIPLACE_LAMA_DIST_ARBITRARY);
	for (i = 0; i < 12; i++)
		got[i] = (char)('0' + seq[i]);
	cr_assert_str_eq(got, "000011111100");
	cr_assert_str_eq((f = psiplace_lama_layout_format(seq, 12, 2)), "0(x4),1(x6),0(x2)");
	free(f);
	cr_assert_eq(psiplace_lama_alloc_layout(&o, 2, tp, few, 12, &fits, &d, seq, &err), 0, "%s", err.text);
	cr_assert(!fits);
	lama(&o, "nsbch");
	cr_assert_eq(psiplace_lama_alloc_layout(&o, 2, tp, cpus, 4, &fits, &d, seq, &err), 0, "%s", err.text);
	cr_assert(fits);
	cr_assert_eq(d, PSIPLACE_LAMA_DIST_CYCLIC);
	psiplace_topo_free(&t6);
}

Test(lama_step, layout_string_numbers_only_the_nodes_that_get_tasks)
{
	unsigned seq[] = { 2, 2, 0, 2 };
	char *f = psiplace_lama_layout_format(seq, 4, 3);

	cr_assert_str_eq(f, "1(x2),0,1");
	free(f);
}

Test(lama_step, arbitrary_layout_is_checked_against_the_one_asked_for, .init = load, .fini = unload)
{
	uint32_t c66[] = { 6, 6 }, good[] = { 0, 1, 2, 3, 10, 11 }, bad[] = { 0, 1, 2, 3, 4, 11 };
	struct psiplace_lama_opts o;
	struct psiplace_step s = step(0, 2, c66, 6, good);

	lama(&o, "cnsbh");
	s.lama_layout = "0(x4),1(x6),0(x2)";
	cr_assert_eq(psiplace_lama_check_step(&o, &topo2x4, &s, &err), 0, "%s", err.text);
	s = step(0, 2, c66, 6, bad);
	s.lama_layout = "0(x4),1(x6),0(x2)";
	cr_assert_eq(psiplace_lama_check_step(&o, &topo2x4, &s, &err), -1);
	cr_assert_str_eq(err.text, "task layout: Slurm did not follow the layout psiplace asked for at submission (SLURM_HOSTFILE); this node's tasks: Slurm 0 1 2 3 4 11; LAMA (map cnsbh) 0 1 2 3 10 11");
	s.lama_layout = "0(x4),1";
	cr_assert_eq(psiplace_lama_check_step(&o, &topo2x4, &s, &err), -1);
	cr_assert_str_eq(err.text, "PSIPLACE_LAMA_LAYOUT: '0(x4),1' is not the node of each of the step's 12 tasks");
}

static void ask(const char *const *env, long n, long N, const char *topofile, const char *map,
		int want_rc, const char *want_hosts, const char *want_layout)
{
	struct psiplace_user_request r;
	struct psiplace_lama_opts o;
	struct psiplace_lama_ask a;
	char hosts[256] = "", m[64];
	bool asked;
	size_t i;

	snprintf(m, sizeof(m), "--psi-lama-map=%s", map);
	request(NULL, ENV(m), &r);
	cr_assert_eq(psiplace_lama_opts_of_request(&r, &o, &err), 0, "%s", err.text);
	cr_assert_eq(psiplace_lama_ask_load(&o, n, N, topofile, fake_getenv, (void *)env, &a, &asked, &err), 0,
		     "%s", err.text);
	cr_assert_eq(asked, want_rc == 0);
	for (i = 0; i < a.ntasks; i++)
		snprintf(hosts + strlen(hosts), sizeof(hosts) - strlen(hosts), "%s%s", i ? " " : "", a.host[i]);
	cr_assert_str_eq(hosts, want_hosts);
	cr_assert_str_eq(a.layout ? a.layout : "", want_layout);
	psiplace_lama_ask_free(&a);
	psiplace_user_request_free(&r);
}

Test(lama_step, ask_over_a_known_allocation)
{
	const char *const *env = ENV("SLURM_JOB_NODELIST=n[1-2]", "SLURM_JOB_CPUS_PER_NODE=8(x2)");

	ask(env, 12, -1, "pack:2 core:4 pu:1", "cnsbh", 0,
	    "n1 n1 n1 n1 n2 n2 n2 n2 n1 n1 n1 n1", "0(x4),1(x4),0(x4)");
	ask(ENV("SLURM_JOB_NODELIST=n[1-2]", "SLURM_JOB_CPUS_PER_NODE=8(x2)", "SLURM_NTASKS=12"), -1, 2,
	    "pack:2 core:4 pu:1", "cnsbh", 0, "n1 n1 n1 n1 n2 n2 n2 n2 n1 n1 n1 n1", "0(x4),1(x4),0(x4)");
}

Test(lama_step, nothing_to_ask_without_everything_known_or_for_block_and_cyclic)
{
	const char *const *env = ENV("SLURM_JOB_NODELIST=n[1-2]", "SLURM_JOB_CPUS_PER_NODE=8(x2)");

	ask(env, 12, -1, "pack:2 core:4 pu:1", "nsbch", 1, "", "");         /* cyclic */
	ask(env, 8, -1, "pack:2 core:4 pu:1", "csbnh", 1, "", "");          /* block */
	ask(env, -1, -1, "pack:2 core:4 pu:1", "cnsbh", 1, "", "");         /* no task count */
	ask(env, 12, 1, "pack:2 core:4 pu:1", "cnsbh", 1, "", "");          /* -N 1 of 2 nodes */
	ask(env, 12, -1, "/nonexistent/%n.xml", "cnsbh", 1, "", "");        /* real nodes */
	ask(env, 12, -1, NULL, "cnsbh", 1, "", "");                         /* no TopologyFile */
	ask(ENV("SLURM_JOB_NODELIST=n[1-2]", "SLURM_JOB_CPUS_PER_NODE=6(x2)"), 12, -1,
	    "pack:2 core:4 pu:1", "cnsbh", 1, "", "");                      /* 8 tasks > 6 CPUs */
	ask(ENV("SLURM_JOB_NODELIST=n[1-2]"), 12, -1, "pack:2 core:4 pu:1", "cnsbh", 1, "", "");
}
