/* CSV node tables: defaults, column order, gmetrics, errors. */
#include <criterion/criterion.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/nodetable.h"

static int parse(const char *text, struct psiplace_nodetable *t, psiplace_error_t *err)
{
	return psiplace_nodetable_parse(text, strlen(text), "t.csv", t, err);
}

Test(nodetable, defaults_for_missing_columns_and_cells)
{
	struct psiplace_nodetable t;
	psiplace_error_t err;

	cr_assert_eq(parse("cpus,name\n4,a\n8 , b\n", &t, &err), 0, "%s", err.text);
	cr_assert_eq(t.n, 2);
	cr_assert_str_eq(t.nodes[1].name, "b");
	cr_assert_eq(t.nodes[1].index, 1);
	cr_assert_eq(t.nodes[1].threads, 8);
	cr_assert_eq(t.nodes[0].speed, 1.0);
	cr_assert(t.nodes[0].power);
	cr_assert_eq(t.nodes[0].next_resv, -1);
	psiplace_nodetable_free(&t);
}

Test(nodetable, every_column)
{
	struct psiplace_nodetable t;
	psiplace_error_t err;
	const struct psiplace_node *n;

	cr_assert_eq(parse("name,cpus,alloc_cpus,threads,load1,load5,load15,real_memory,"
			   "alloc_memory,tmp_disk,speed,priority,cost,features,jobs,"
			   "suspended_jobs,arch,os,power,usage,mtbf,next_resv,gmetric.t,weight,"
			   "paraprocs,rsvaffinity\n"
			   "x,8,2,16,1.5,2.5,3.5,1000,200,50,2,3,4,a;b,5,6,x86_64,linux,0,0.5,"
			   "99,120,7.5,9,64,1\n", &t, &err), 0, "%s", err.text);
	n = &t.nodes[0];
	cr_assert(n->cpus == 8 && n->alloc_cpus == 2 && n->threads == 16 && n->load1 == 1.5 &&
		  n->load5 == 2.5 && n->load15 == 3.5 && n->real_memory == 1000 &&
		  n->alloc_memory == 200 && n->tmp_disk == 50 && n->speed == 2 &&
		  n->priority == 3 && n->cost == 4 && n->jobs == 5 && n->suspended_jobs == 6 &&
		  !n->power && n->usage == 0.5 && n->mtbf == 99 && n->next_resv == 120 &&
		  n->weight == 9 && n->para_procs == 64 && n->rsv_affinity == 1);
	cr_assert_str_eq(n->features, "a,b");
	cr_assert_str_eq(n->arch, "x86_64");
	cr_assert_eq(n->ngmetrics, 1);
	cr_assert_str_eq(n->gmetrics[0].name, "t");
	cr_assert_eq(n->gmetrics[0].value, 7.5);
	psiplace_nodetable_free(&t);
}

Test(nodetable, errors_name_file_and_line)
{
	struct psiplace_nodetable t;
	psiplace_error_t err;

	cr_assert_eq(parse("name,cpus\na,1,2\n", &t, &err), -1);
	cr_assert_str_eq(err.text, "t.csv:2: more cells than the header's 2");
	cr_assert_eq(parse("name,cpus\n# c\na\n", &t, &err), -1);
	cr_assert_str_eq(err.text, "t.csv:3: 1 cells, the header has 2");
	cr_assert_eq(parse("name,cpus\na,-1\n", &t, &err), -1);
	cr_assert_str_eq(err.text, "t.csv:2: not a count: '-1'");
	cr_assert_eq(parse("name,speed\na,inf\n", &t, &err), -1);
	cr_assert_str_eq(err.text, "t.csv:2: not a number: 'inf'");
	cr_assert_eq(parse("cpus\n1\n", &t, &err), -1);
	cr_assert_str_eq(err.text, "t.csv:1: the header has no name column");
	cr_assert_eq(parse("name,name\n", &t, &err), -1);
	cr_assert_str_eq(err.text, "t.csv:1: column given twice: 'name'");
	cr_assert_eq(parse("name\n", &t, &err), -1);
	cr_assert_str_eq(err.text, "t.csv: no node rows");
	cr_assert_eq(parse("", &t, &err), -1);
	cr_assert_str_eq(err.text, "t.csv: no header row");
}
