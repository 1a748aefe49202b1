/* ParaStation placement: golden step maps on synthetic topologies. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "psiplace/error.h"
#include "psiplace/psi_slots.h"
#include "psiplace/topo.h"

static psiplace_error_t err;

struct run {
	const char *topo;
	unsigned nodes, tasks, tpp;
	const char *cpumap; /* comma list of single CPUs or NULL */
	bool overbook, loop, mems, nobind;
	const unsigned *tpn; /* Slurm's counts per node, or NULL */
};

/* "RANK NODE CPULIST" lines (with mems: "RANK NODE CPULIST MEMLIST"). */
static char *format(unsigned n, const unsigned *node_of, const struct psiplace_binding *b, bool mems)
{
	char *buf = NULL, cpus[256], m[64];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	unsigned i;

	for (i = 0; i < n; i++) {
		psiplace_bitmap_list(b[i].cpus, cpus, sizeof(cpus));
		psiplace_bitmap_list(b[i].mems, m, sizeof(m));
		if (mems)
			fprintf(f, "%u %u %s %s\n", i, node_of[i], cpus, m);
		else
			fprintf(f, "%u %u %s\n", i, node_of[i], cpus);
	}
	fclose(f);
	return buf;
}

/* The map as `psiplace map` prints it (plain), or the error line. */
static char *map(struct run r)
{
	struct psiplace_topo t;
	struct psiplace_psi_opts o = { .tpp = r.tpp ? r.tpp : 1, .overbook = r.overbook,
				       .loop_nodes_first = r.loop, .pin = !r.nobind, .bindmem = true,
				       .cpumap_from = "__PSI_CPUMAP" };
	unsigned *node_of = calloc(r.tasks, sizeof(*node_of)), cm[64];
	struct psiplace_binding *b = psiplace_bindings_new(r.tasks);
	char *out = NULL;

	if (r.cpumap) {
		char *s = strdup(r.cpumap), *tok, *save = NULL;
		for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			cm[o.ncpumap++] = (unsigned)atoi(tok);
		o.cpumap = cm;
		free(s);
	}
	const struct psiplace_topo *topos[8];
	unsigned k;

	cr_assert_eq(psiplace_topo_load(r.topo, NULL, &t, &err), 0, "%s", err.text);
	for (k = 0; k < 8; k++)
		topos[k] = &t;
	if (psiplace_psi_map(topos, r.nodes ? r.nodes : 1, r.tasks, r.tpn, &o, node_of, b, &err) < 0)
		out = strdup(err.text);
	else
		out = format(r.tasks, node_of, b, r.mems);
	psiplace_topo_free(&t);
	psiplace_bindings_free(b, r.tasks);
	free(node_of);
	return out;
}

#define MAP_EQ(want, ...)                                        \
	do {                                                     \
		char *got = map((struct run){ __VA_ARGS__ });    \
		cr_assert_str_eq(got, want);                     \
		free(got);                                       \
	} while (0)

Test(psi_slots, smt_first_threads_of_all_cores_first)
{
	MAP_EQ("0 0 0\n1 0 2\n2 0 4\n3 0 6\n4 0 1\n5 0 3\n6 0 5\n7 0 7\n",
	       .topo = "pack:2 core:2 pu:2", .tasks = 8);
}

Test(psi_place, tpp2_with_smt_takes_two_cores_first_threads)
{
	MAP_EQ("0 0 0,2\n1 0 4,6\n2 0 1,3\n3 0 5,7\n", .topo = "pack:2 core:2 pu:2", .tasks = 4, .tpp = 2);
}

Test(psi_place, tpp3_with_smt)
{
	MAP_EQ("0 0 0,2,4\n1 0 1,3,6\n", .topo = "pack:2 core:2 pu:2", .tasks = 2, .tpp = 3);
}

Test(psi_place, tpp3_without_smt)
{
	MAP_EQ("0 0 0-2\n1 0 3-5\n", .topo = "pack:2 core:4 pu:1", .tasks = 2, .tpp = 3);
}

Test(psi_place, tpp1_without_smt_fills_in_order)
{
	MAP_EQ("0 0 0\n1 0 1\n2 0 2\n", .topo = "pack:2 core:4 pu:1", .tasks = 3);
}

Test(psi_place, cpumap_descending)
{
	MAP_EQ("0 0 7\n1 0 6\n2 0 5\n3 0 4\n", .topo = "pack:2 core:2 pu:2", .tasks = 4,
	       .cpumap = "7,6,5,4,3,2,1,0");
}

Test(psi_place, cpumap_too_short_fails)
{
	MAP_EQ("2 tasks with 1 CPU slots each do not fit: the 1 nodes hold 1 (PSI_OVERBOOK or --psi-overbook reuses slots)",
	       .topo = "pack:1 core:4 pu:1", .tasks = 2, .cpumap = "3");
}

Test(psi_place, too_many_tasks_without_overbook_fails)
{
	MAP_EQ("6 tasks with 1 CPU slots each do not fit: the 1 nodes hold 4 (PSI_OVERBOOK or --psi-overbook reuses slots)",
	       .topo = "pack:1 core:4 pu:1", .tasks = 6);
}

Test(psi_place, overbook_reuses_slots_in_rounds)
{
	MAP_EQ("0 0 0\n1 0 1\n2 0 2\n3 0 3\n4 0 0\n5 0 1\n", .topo = "pack:1 core:4 pu:1", .tasks = 6,
	       .overbook = true);
}

Test(psi_place, overbook_spreads_evenly_over_nodes)
{
	MAP_EQ("0 0 0\n1 0 1\n2 0 2\n3 0 3\n4 0 0\n5 1 0\n6 1 1\n7 1 2\n8 1 3\n9 1 0\n",
	       .topo = "pack:1 core:4 pu:1", .nodes = 2, .tasks = 10, .overbook = true);
}

Test(psi_place, block_fills_a_node_before_the_next)
{
	MAP_EQ("0 0 0\n1 0 1\n2 0 2\n3 0 3\n4 1 0\n", .topo = "pack:1 core:4 pu:1", .nodes = 2, .tasks = 5);
}

Test(psi_place, loop_nodes_first_alternates_nodes)
{
	MAP_EQ("0 0 0\n1 1 0\n2 0 1\n3 1 1\n4 0 2\n", .topo = "pack:1 core:4 pu:1", .nodes = 2, .tasks = 5,
	       .loop = true);
}

Test(psi_place, loop_nodes_first_skips_full_nodes)
{
	MAP_EQ("0 0 0,2\n1 1 0,2\n2 2 0,2\n3 0 1,3\n4 1 1,3\n", .topo = "pack:1 core:2 pu:2", .nodes = 3,
	       .tasks = 5, .tpp = 2, .loop = true);
}

Test(psi_place, slurm_counts_block_and_cyclic)
{
	MAP_EQ("0 0 0\n1 0 1\n2 0 2\n3 1 0\n", .topo = "pack:1 core:4 pu:1", .nodes = 2, .tasks = 4,
	       .tpn = (const unsigned[]){ 3, 1 });
	MAP_EQ("0 0 0\n1 1 0\n2 0 1\n3 0 2\n", .topo = "pack:1 core:4 pu:1", .nodes = 2, .tasks = 4,
	       .tpn = (const unsigned[]){ 3, 1 }, .loop = true);
}

Test(psi_place, no_pinproc_reports_unbound)
{
	MAP_EQ("0 0 -\n1 0 -\n", .topo = "pack:1 core:4 pu:1", .tasks = 2, .nobind = true);
}

Test(psi_place, mems_are_the_numa_nodes_of_the_cpus)
{
	MAP_EQ("0 0 0,2 0\n1 0 4,6 1\n", .topo = "pack:2 numa:1 core:2 pu:2", .tasks = 2, .tpp = 2,
	       .mems = true);
}

Test(psi_place, mems_span_numa_nodes_of_the_task)
{
	MAP_EQ("0 0 0,2,4 0-1\n", .topo = "pack:2 numa:1 core:2 pu:2", .tasks = 1, .tpp = 3, .mems = true);
}

Test(psi_place, restricted_topology_uses_only_allowed_cpus)
{
	struct psiplace_topo t;
	struct psiplace_psi_opts o = { .tpp = 1, .pin = true, .bindmem = false };
	struct psiplace_binding *b = psiplace_bindings_new(3);
	hwloc_bitmap_t allowed = hwloc_bitmap_alloc();
	char buf[64];

	hwloc_bitmap_list_sscanf(allowed, "2-5");
	cr_assert_eq(psiplace_topo_load("pack:2 core:2 pu:2", allowed, &t, &err), 0);
	cr_assert_eq(psiplace_psi_place_node(&t, &o, 3, b, &err), 0, "%s", err.text);
	psiplace_bitmap_list(b[0].cpus, buf, sizeof(buf));
	cr_assert_str_eq(buf, "2");
	psiplace_bitmap_list(b[1].cpus, buf, sizeof(buf));
	cr_assert_str_eq(buf, "4");
	psiplace_bitmap_list(b[2].cpus, buf, sizeof(buf));
	cr_assert_str_eq(buf, "3");
	cr_assert_eq(psiplace_psi_place_node(&t, &o, 5, b, &err), -1);
	cr_assert_str_eq(err.text, "5 tasks with 1 CPU slots each need 5 CPU slots; this node has 4 for the step (PSI_OVERBOOK or --psi-overbook reuses slots)");
	psiplace_bindings_free(b, 3);
	hwloc_bitmap_free(allowed);
	psiplace_topo_free(&t);
}

Test(psi_place, cpumap_outside_step_cpus_fails_on_the_node)
{
	struct psiplace_topo t;
	unsigned cm[2] = { 0, 1 };
	struct psiplace_psi_opts o = { .tpp = 1, .pin = true, .cpumap = cm, .ncpumap = 2,
				       .cpumap_from = "__PSI_CPUMAP" };
	struct psiplace_binding *b = psiplace_bindings_new(2);
	hwloc_bitmap_t allowed = hwloc_bitmap_alloc();

	hwloc_bitmap_list_sscanf(allowed, "1-3");
	cr_assert_eq(psiplace_topo_load("pack:1 core:4 pu:1", allowed, &t, &err), 0);
	cr_assert_eq(psiplace_psi_place_node(&t, &o, 2, b, &err), -1);
	cr_assert_str_eq(err.text, "__PSI_CPUMAP: 1 of its CPUs are allocated to this step on this node; 2 tasks with 1 CPU slots each need 2 (PSI_OVERBOOK or --psi-overbook reuses slots)");
	psiplace_bindings_free(b, 2);
	hwloc_bitmap_free(allowed);
	psiplace_topo_free(&t);
}
