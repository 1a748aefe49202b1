/* PRIORITYF: grammar, every component, errors with positions, bounds. */
#include <criterion/criterion.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/policy.h"
#include "psiplace/priorityf.h"
#include "psiplace/plugstack_line.h"

static const struct psiplace_gmetric gm[] = { { "temp", 42.5 }, { "fan", 3.0 } };

static struct psiplace_node node(void)
{
	struct psiplace_node n = {
		.name = "n7", .index = 7, .cpus = 16, .alloc_cpus = 6, .threads = 32,
		.load1 = 2.5, .real_memory = 64000, .alloc_memory = 16000, .tmp_disk = 500,
		.speed = 1.5, .priority = 11, .cost = 0.25, .usage = 0.75, .mtbf = 86400,
		.jobs = 3, .suspended_jobs = 1, .next_resv = 3600, .power = true,
		.features = "gpu,ib", .arch = "x86_64", .os = "linux", .gmetrics = gm,
		.ngmetrics = 2, .para_procs = 512, .rsv_affinity = 1,
	};
	return n;
}

static double value(const char *expr)
{
	struct psiplace_priorityf *f;
	struct psiplace_node n = node();
	psiplace_error_t err = { "" };
	double v;

	cr_assert_eq(psiplace_priorityf_compile(expr, "f", &f, &err), 0, "%s: %s",
		     expr, err.text);
	v = psiplace_priorityf_eval(f, &n, 1);
	psiplace_priorityf_free(f);
	return v;
}

static void canon(const char *expr, const char *want)
{
	struct psiplace_priorityf *f;
	psiplace_error_t err = { "" };
	char buf[256];

	cr_assert_eq(psiplace_priorityf_compile(expr, "f", &f, &err), 0, "%s", err.text);
	psiplace_priorityf_format(f, buf, sizeof(buf));
	cr_assert_str_eq(buf, want);
	psiplace_priorityf_free(f);
}

static void bad(const char *expr, const char *msg)
{
	struct psiplace_priorityf *f = (void *)1;
	psiplace_error_t err = { "" };

	cr_assert_eq(psiplace_priorityf_compile(expr, "--psi-alloc-priority", &f, &err),
		     -1, "%s compiled", expr);
	cr_assert_null(f);
	cr_assert_str_eq(err.text, msg);
}

Test(priorityf, every_component_reads_its_node_field)
{
	cr_assert_eq(value("CPROCS"), 16);
	cr_assert_eq(value("APROCS"), 10);
	cr_assert_eq(value("CMEM"), 64000);
	cr_assert_eq(value("AMEM"), 48000);
	cr_assert_eq(value("CDISK"), 500);
	cr_assert_eq(value("ADISK"), 500);
	cr_assert_eq(value("JOBCOUNT"), 3);
	cr_assert_eq(value("SUSPENDEDJCOUNT"), 1);
	cr_assert_eq(value("LOAD"), 2.5);
	cr_assert_eq(value("SPEED"), 1.5);
	cr_assert_eq(value("PRIORITY"), 11);
	cr_assert_eq(value("COST"), 0.25);
	cr_assert_eq(value("CHARGERATE"), 0.25);
	cr_assert_eq(value("NODEINDEX"), 7);
	cr_assert_eq(value("FEATURE[gpu]"), 1);
	cr_assert_eq(value("FEATURE[ib]"), 1);
	cr_assert_eq(value("FEATURE[g]"), 0);
	cr_assert_eq(value("GMETRIC[temp]"), 42.5);
	cr_assert_eq(value("GMETRIC[none]"), 0);
	cr_assert_eq(value("ARCH[x86_64]"), 1);
	cr_assert_eq(value("ARCH[aarch64]"), 0);
	cr_assert_eq(value("OS[linux]"), 1);
	cr_assert_eq(value("POWER"), 1);
	cr_assert_eq(value("USAGE"), 0.75);
	cr_assert_eq(value("MTBF"), 86400);
	cr_assert_eq(value("PARAPROCS"), 512);
	cr_assert_eq(value("RESAFFINITY"), 1);
	cr_assert_eq(value("RSVAFFINITY"), 1);
	cr_assert_eq(value("FREETIME"), 3600);
	cr_assert_eq(value("RANDOM"), psiplace_random01(1, 7));
}

Test(priorityf, freetime_without_reservation_is_the_60_day_horizon)
{
	struct psiplace_priorityf *f;
	struct psiplace_node n = node();
	psiplace_error_t err;

	cr_assert_eq(psiplace_priorityf_compile("FREETIME", "f", &f, &err), 0);
	n.next_resv = -1;
	cr_assert_eq(psiplace_priorityf_eval(f, &n, 0), 60 * 86400);
	n.next_resv = 100 * 86400;
	cr_assert_eq(psiplace_priorityf_eval(f, &n, 0), 60 * 86400);
	psiplace_priorityf_free(f);
}

Test(priorityf, moab_documented_examples)
{
	cr_assert_float_eq(value("SPEED + .01 * AMEM - 10 * JOBCOUNT"), 1.5 + 480 - 30, 1e-9);
	cr_assert_eq(value("-LOAD - 5*USAGE"), -2.5 - 3.75);
	cr_assert_eq(value("JOBCOUNT"), 3);
}

Test(priorityf, case_blanks_constants_and_signs)
{
	cr_assert_eq(value("speed"), 1.5);
	cr_assert_eq(value("  2 * Speed  "), 3);
	cr_assert_eq(value("2SPEED"), 3);
	cr_assert_eq(value("2 speed"), 3);
	cr_assert_eq(value("10"), 10);
	cr_assert_eq(value("10 - 4"), 6);
	cr_assert_eq(value("--LOAD"), 2.5);
	cr_assert_eq(value("- - -LOAD"), -2.5);
	cr_assert_eq(value("SPEED - + - LOAD"), 4);
	cr_assert_eq(value("1e3"), 1000);
	cr_assert_eq(value("1.5e-1*CPROCS"), 2.4);
	cr_assert_eq(value("FEATURE[ gpu ]"), 1);
}

Test(priorityf, component_named_twice_adds_up)
{
	cr_assert_eq(value("SPEED + SPEED"), 3);
	canon("SPEED + 2*SPEED - LOAD + 1 + FEATURE[a] + FEATURE[b] - 3*feature[a]",
	      "1 + 3*SPEED - LOAD - 2*FEATURE[a] + FEATURE[b]");
	canon("CHARGERATE + COST + RSVAFFINITY", "2*COST + RESAFFINITY");
	canon("0", "0");
}

Test(priorityf, random_is_seeded_deterministic_and_capped)
{
	struct psiplace_priorityf *f;
	struct psiplace_node n = node();
	psiplace_error_t err;
	double a, b;
	int i, capped = 0;

	cr_assert_eq(psiplace_priorityf_compile("100000*RANDOM", "f", &f, &err), 0);
	a = psiplace_priorityf_eval(f, &n, 99);
	b = psiplace_priorityf_eval(f, &n, 99);
	cr_assert_eq(a, b);
	for (i = 0; i < 200; i++) {
		double v;

		n.index = (uint32_t)i;
		v = psiplace_priorityf_eval(f, &n, 5);
		cr_assert(v >= 0 && v <= 32768, "%g", v);
		capped += v == 32768;
	}
	cr_assert(capped > 100);
	psiplace_priorityf_free(f);
	cr_assert_eq(psiplace_priorityf_compile("-1e6 RANDOM", "f", &f, &err), 0);
	n.index = 3;
	cr_assert(psiplace_priorityf_eval(f, &n, 5) >= -32768);
	psiplace_priorityf_free(f);
	cr_assert_neq(psiplace_random01(1, 7), psiplace_random01(2, 7));
	cr_assert(psiplace_random01(1, 7) < 1.0);
}

Test(priorityf, errors_give_the_position)
{
	bad("", "--psi-alloc-priority: position 1: empty expression in ''");
	bad("   ", "--psi-alloc-priority: position 4: empty expression in '   '");
	bad("SPEEED", "--psi-alloc-priority: position 1: unknown component 'SPEEED' in 'SPEEED'");
	bad("SPEE", "--psi-alloc-priority: position 1: unknown component 'SPEE' in 'SPEE'");
	bad("2*SPEED + LAOD", "--psi-alloc-priority: position 11: unknown component 'LAOD' in "
			      "'2*SPEED + LAOD'");
	bad("SPEED LOAD", "--psi-alloc-priority: position 7: expected '+' or '-' before 'L' in "
			  "'SPEED LOAD'");
	bad("2*", "--psi-alloc-priority: position 3: expected a component after '*' in '2*'");
	bad("*SPEED", "--psi-alloc-priority: position 1: expected a number or a component, not "
		      "'*' in '*SPEED'");
	bad("SPEED -", "--psi-alloc-priority: position 8: expected a number or a component at the "
		       "end in 'SPEED -'");
	bad("SPEED[x]", "--psi-alloc-priority: position 6: component SPEED takes no argument in "
			"'SPEED[x]'");
	bad("FEATURE", "--psi-alloc-priority: position 1: component FEATURE needs an argument in "
		       "brackets in 'FEATURE'");
	bad("FEATURE[]", "--psi-alloc-priority: position 9: empty argument of FEATURE in "
			 "'FEATURE[]'");
	bad("GMETRIC[a", "--psi-alloc-priority: position 10: expected ']' in 'GMETRIC[a'");
	bad("GMETRIC[a b]", "--psi-alloc-priority: position 11: expected ']' in the argument of "
			    "GMETRIC in 'GMETRIC[a b]'");
	bad("1e999", "--psi-alloc-priority: position 1: number '1e999' out of range in '1e999'");
	bad(". SPEED", "--psi-alloc-priority: position 1: '.' is not a number in '. SPEED'");
	bad("SPEED/2", "--psi-alloc-priority: position 6: expected '+' or '-' before '/' in "
		       "'SPEED/2'");
	bad("LOAD\x01", "--psi-alloc-priority: position 5: expected '+' or '-' before '\\x01' in "
			"'LOAD\\x01'");
}

Test(priorityf, at_most_64_terms_and_1024_characters)
{
	char buf[2048] = "1";
	psiplace_error_t err;
	struct psiplace_priorityf *f;
	int i;

	for (i = 1; i < 64; i++)
		strcat(buf, "+1");
	cr_assert_eq(psiplace_priorityf_compile(buf, "f", &f, &err), 0, "%s", err.text);
	cr_assert_eq(psiplace_priorityf_eval(f, NULL == f ? NULL : &(struct psiplace_node){ 0 }, 0),
		     64);
	psiplace_priorityf_free(f);
	strcat(buf, "+1");
	cr_assert_eq(psiplace_priorityf_compile(buf, "f", &f, &err), -1);
	cr_assert(strstr(err.text, "f: position 129: more than 64 terms in '1+1+1"), "%s", err.text);
	memset(buf, ' ', 1025);
	buf[0] = '1';
	buf[1025] = '\0';
	cr_assert_eq(psiplace_priorityf_compile(buf, "f", &f, &err), -1);
	cr_assert(strstr(err.text, "f: position 1025: expression longer than 1024 characters"), "%s",
		  err.text);
	buf[1024] = '\0';
	cr_assert_eq(psiplace_priorityf_compile(buf, "f", &f, &err), 0, "%s", err.text);
	psiplace_priorityf_free(f);
}

Test(priorityf, cluster_default_in_plugstack_is_validated)
{
	char *argv[] = { "NodeAllocationPolicy=PRIORITY", "PriorityFunction=\"SPEED", "-",
			 "LAOD\"" };
	char *good[] = { "PriorityFunction=\"SPEED", "-", "LOAD\"" };
	struct psiplace_siteconf c;
	psiplace_error_t err;

	psiplace_siteconf_init(&c);
	cr_assert_eq(psiplace_siteconf_parse(4, argv, &c, &err), -1);
	cr_assert_str_eq(err.text, "PriorityFunction: position 9: unknown component 'LAOD' in "
			      "'SPEED - LAOD'");
	cr_assert_eq(psiplace_siteconf_parse(3, good, &c, &err), 0, "%s", err.text);
	cr_assert_str_eq(c.priority_function, "SPEED - LOAD");
	psiplace_siteconf_free(&c);
}
