/* PSI_* value parsers: values and exact error lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "psiplace/error.h"
#include "psiplace/psi_values.h"

static psiplace_error_t err;

Test(psi_nodes, ranges_decimal_and_hex)
{
	uint32_t *ids;
	size_t n;
	char buf[64];

	cr_assert_eq(psiplace_psi_nodes_parse("0,1,3,17-20", "PSI_NODES", &ids, &n, &err), 0);
	cr_assert_eq(n, 7);
	cr_assert_eq(psiplace_idlist_format(ids, n, buf, sizeof(buf)), 11);
	cr_assert_str_eq(buf, "0-1,3,17-20");
	free(ids);
	cr_assert_eq(psiplace_psi_nodes_parse(" 0x10 - 0x11 , 010", "PSI_NODES", &ids, &n, &err), 0);
	cr_assert_eq(n, 3);
	cr_assert_eq(ids[0], 16);
	cr_assert_eq(ids[1], 17);
	cr_assert_eq(ids[2], 10);
	free(ids);
}

static void nodes_err(const char *v, const char *want)
{
	uint32_t *ids;
	size_t n;

	cr_assert_eq(psiplace_psi_nodes_parse(v, "PSI_NODES", &ids, &n, &err), -1);
	cr_assert_str_eq(err.text, want);
	cr_assert_null(ids);
}

Test(psi_nodes, errors)
{
	nodes_err("", "PSI_NODES: '' is empty; accepted: a comma list of node ids N or ranges A-B, decimal or 0x hex (e.g. 0,2-5,0x10)");
	nodes_err("n1", "PSI_NODES: 'n1' is not a node id list; accepted: a comma list of node ids N or ranges A-B, decimal or 0x hex (e.g. 0,2-5,0x10)");
	nodes_err("5-2", "PSI_NODES: '5-2' has a descending range; accepted: a comma list of node ids N or ranges A-B, decimal or 0x hex (e.g. 0,2-5,0x10)");
	nodes_err("1,", "PSI_NODES: '1,' ends with ','; accepted: a comma list of node ids N or ranges A-B, decimal or 0x hex (e.g. 0,2-5,0x10)");
	nodes_err("0-4294967295", "PSI_NODES: '0-4294967295' has a number above 2147483647; accepted: a comma list of node ids N or ranges A-B, decimal or 0x hex (e.g. 0,2-5,0x10)");
	nodes_err("0-70000", "PSI_NODES: '0-70000' has more than 65536 entries; accepted: a comma list of node ids N or ranges A-B, decimal or 0x hex (e.g. 0,2-5,0x10)");
}

Test(psi_hosts, blanks_commas_and_expressions)
{
	struct psiplace_names hl;

	psiplace_names_init(&hl);
	cr_assert_eq(psiplace_psi_hosts_parse("node0 node1,node[3-4]\tnode9", "PSI_HOSTS", &hl, &err), 0);
	cr_assert_eq(hl.n, 5);
	cr_assert_str_eq(hl.name[2], "node3");
	cr_assert_str_eq(hl.name[4], "node9");
	psiplace_names_free(&hl);
	cr_assert_eq(psiplace_psi_hosts_parse(" , ", "PSI_HOSTS", &hl, &err), -1);
	cr_assert_str_eq(err.text, "PSI_HOSTS: no host names; accepted: host names and Slurm hostlist expressions like n[1-3,5],x7");
	cr_assert_eq(psiplace_psi_hosts_parse("n[3-1]", "--psi-hosts", &hl, &err), -1);
	cr_assert_str_eq(err.text, "--psi-hosts: 'n[3-1]': range 3-1 runs backwards at character 3; accepted: host names and Slurm hostlist expressions like n[1-3,5],x7");
}

Test(psi_hostfile, comments_blank_lines_and_slots)
{
	const char *text = "# my nodes\nn1\nn1   # twice: two slots\n\n  n[2-3]\nn1";
	struct psiplace_names hl;

	psiplace_names_init(&hl);
	cr_assert_eq(psiplace_psi_hostfile_parse(text, strlen(text), "PSI_HOSTFILE", &hl, &err), 0);
	cr_assert_eq(hl.n, 5);
	cr_assert_str_eq(hl.name[0], "n1");
	cr_assert_str_eq(hl.name[1], "n1");
	cr_assert_str_eq(hl.name[2], "n2");
	cr_assert_str_eq(hl.name[4], "n1");
	psiplace_names_free(&hl);
}

Test(psi_hostfile, errors_give_line)
{
	struct psiplace_names hl;
	const char *two = "n1\nn2 n3\n";

	psiplace_names_init(&hl);
	cr_assert_eq(psiplace_psi_hostfile_parse(two, strlen(two), "PSI_HOSTFILE", &hl, &err), -1);
	cr_assert_str_eq(err.text, "PSI_HOSTFILE line 2: 'n2 n3' has more than one word; accepted: one host name per line, '#' comments");
	cr_assert_eq(hl.n, 0);
	cr_assert_eq(psiplace_psi_hostfile_parse("# only\n", 7, "PSI_HOSTFILE", &hl, &err), -1);
	cr_assert_str_eq(err.text, "PSI_HOSTFILE: names no host; accepted: one host name per line, '#' comments");
	cr_assert_eq(psiplace_psi_hostfile_read("/nonexistent/hf", "PSI_HOSTFILE", &hl, &err), -1);
	cr_assert_str_eq(err.text, "PSI_HOSTFILE: cannot open '/nonexistent/hf': No such file or directory");
	cr_assert_eq(psiplace_psi_hostfile_read("/dev/null", "PSI_HOSTFILE", &hl, &err), -1);
	cr_assert_str_eq(err.text, "PSI_HOSTFILE: '/dev/null' is not a regular file of at most 1048576 bytes");
}

Test(psi_hostfile, reads_a_file)
{
	struct psiplace_names hl;

	psiplace_names_init(&hl);
	cr_assert_eq(psiplace_psi_hostfile_read(PSIPLACE_TEST_DATA "/psi_hostfile", "PSI_HOSTFILE", &hl, &err), 0, "%s", err.text);
	cr_assert_eq(hl.n, 4);
	cr_assert_str_eq(hl.name[3], "n3");
	psiplace_names_free(&hl);
}

Test(psi_nodes_sort, modes_case_insensitive_and_error)
{
	enum psiplace_nodes_sort m;

	cr_assert_eq(psiplace_nodes_sort_parse("load_1", "PSI_NODES_SORT", &m, &err), 0);
	cr_assert_eq(m, PSIPLACE_SORT_LOAD1);
	cr_assert_eq(psiplace_nodes_sort_parse("Load15", "PSI_NODES_SORT", &m, &err), 0);
	cr_assert_eq(m, PSIPLACE_SORT_LOAD15);
	cr_assert_eq(psiplace_nodes_sort_parse("proc+load", "PSI_NODES_SORT", &m, &err), 0);
	cr_assert_eq(m, PSIPLACE_SORT_PROC_LOAD);
	cr_assert_eq(psiplace_nodes_sort_parse("fast", "--psi-nodes-sort", &m, &err), -1);
	cr_assert_str_eq(err.text, "--psi-nodes-sort: 'fast' is not a sort mode; accepted: PROC, LOAD (LOAD1, LOAD_1), LOAD_5 (LOAD5), LOAD_15 (LOAD15), PROC+LOAD, NONE (case-insensitive)");
}

Test(psi_tpp, strict_and_omp_lenient)
{
	unsigned t;

	cr_assert_eq(psiplace_tpp_parse("4", "PSI_TPP", &t, &err), 0);
	cr_assert_eq(t, 4);
	cr_assert_eq(psiplace_tpp_parse("0", "--psi-tpp", &t, &err), -1);
	cr_assert_str_eq(err.text, "--psi-tpp: '0' is not a positive integer");
	cr_assert_eq(psiplace_tpp_parse("4,2", "PSI_TPP", &t, &err), -1);
	cr_assert_str_eq(err.text, "PSI_TPP: '4,2' is not a positive integer");
	cr_assert_eq(psiplace_tpp_parse("5000", "PSI_TPP", &t, &err), -1);
	cr_assert_str_eq(err.text, "PSI_TPP: '5000' is too large; accepted: 1 to 4096");
	cr_assert_eq(psiplace_omp_threads_tpp("4,2", &t, &err), -1);
	cr_assert_eq(t, 1);
	cr_assert_str_eq(err.text, "OMP_NUM_THREADS: '4,2' is not a positive integer up to 4096; using 1 CPU slot per task (set PSI_TPP or --psi-tpp to choose)");
	cr_assert_eq(psiplace_omp_threads_tpp("3", &t, &err), 0);
	cr_assert_eq(t, 3);
}

Test(psi_cpumap, descending_ranges)
{
	unsigned *m;
	size_t n;

	cr_assert_eq(psiplace_cpumap_parse("0,2,7-4,1", "__PSI_CPUMAP", &m, &n, &err), 0);
	cr_assert_eq(n, 7);
	cr_assert_eq(m[2], 7);
	cr_assert_eq(m[5], 4);
	cr_assert_eq(m[6], 1);
	free(m);
	cr_assert_eq(psiplace_cpumap_parse("0x3", "--psi-cpumap", &m, &n, &err), -1);
	cr_assert_str_eq(err.text, "--psi-cpumap: '0x3' is not a CPU map; accepted: a comma list of CPU numbers N or ranges A-B, descending allowed (e.g. 0,2,7-4)");
	cr_assert_eq(psiplace_cpumap_parse("70000", "__PSI_CPUMAP", &m, &n, &err), -1);
	cr_assert_str_eq(err.text, "__PSI_CPUMAP: '70000' has a number above 65535; accepted: a comma list of CPU numbers N or ranges A-B, descending allowed (e.g. 0,2,7-4)");
}

/* A fuzz find: 39370-31 parses to 39,340 entries, which as single numbers
 * (the PSI_NODES writer) are longer than a PSI value may be; the CPU map
 * writer keeps the descending range and so is the parser's inverse. */
Test(psi_cpumap, format_keeps_descending_ranges)
{
	unsigned *m, *back;
	size_t n, nb;
	static char buf[PSIPLACE_PSI_VALUE_MAX + 1];

	cr_assert_eq(psiplace_cpumap_parse("0,2,7-4,1,3-2", "__PSI_CPUMAP", &m, &n, &err), 0);
	cr_assert_eq(psiplace_cpumap_format(m, n, buf, sizeof(buf)), 13);
	cr_assert_str_eq(buf, "0,2,7-4,1,3-2");
	free(m);
	cr_assert_eq(psiplace_cpumap_parse("39370-31,4", "__PSI_CPUMAP", &m, &n, &err), 0);
	cr_assert_eq(n, 39341);
	cr_assert_eq(psiplace_cpumap_format(m, n, buf, sizeof(buf)), 10);
	cr_assert_str_eq(buf, "39370-31,4");
	cr_assert_eq(psiplace_cpumap_parse(buf, "__PSI_CPUMAP", &back, &nb, &err), 0, "%s", err.text);
	cr_assert_eq(nb, n);
	cr_assert_arr_eq(back, m, n * sizeof(*m));
	free(back);
	free(m);
	cr_assert_eq(psiplace_cpumap_format(NULL, 0, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "");
	cr_assert_eq(psiplace_cpumap_format((const unsigned[]){ 5, 4 }, 2, buf, 3), -1);
}
