/* psiplace_release_nodes() against a scripted scontrol: the step check and
 * wait_steps (a step that ends a moment after its processes left, as
 * MPICH's spawned groups do). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "psiplace/resize.h"

static char dir[] = "/tmp/psiplace-test-release.XXXXXX";
static char fake[sizeof(dir) + 32];

/* A scontrol whose job 7 runs on n[1-4] and whose step 7.2 on n3 is listed
 * for the first `busy` "show step" calls; update writes its arguments. */
static void make_fake(int busy)
{
	FILE *f;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(fake, sizeof(fake), "%s/scontrol", dir);
	f = fopen(fake, "w");
	cr_assert_not_null(f);
	fprintf(f, "#!/bin/sh\n"
		   "d=%s\n"
		   "case \"$*\" in\n"
		   "'-o show job 7') echo 'JobId=7 JobState=RUNNING NodeList=n[1-4]' ;;\n"
		   "'-o show step 7') n=$(cat $d/calls 2>/dev/null || echo 0); echo $((n + 1)) >$d/calls\n"
		   "  echo 'StepId=7.0 NodeList=n1'\n"
		   "  [ $n -ge %d ] || echo 'StepId=7.2 NodeList=n3' ;;\n"
		   "update*) echo \"$*\" >$d/update ;;\n"
		   "*) echo \"unexpected: $*\"; exit 1 ;;\n"
		   "esac\n", dir, busy);
	fclose(f);
	cr_assert_eq(chmod(fake, 0755), 0);
}

static void cleanup(void)
{
	char cmd[sizeof(dir) + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
	strcpy(dir, "/tmp/psiplace-test-release.XXXXXX");
}

static int calls(void)
{
	char p[sizeof(dir) + 16];
	FILE *f;
	int n = 0;

	snprintf(p, sizeof(p), "%s/calls", dir);
	if ((f = fopen(p, "r"))) {
		if (fscanf(f, "%d", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

Test(release, busy_step_refused_at_once_without_wait_steps)
{
	struct psiplace_release_opts o = { .job = "7", .allow_step = "0", .scontrol = fake };
	psiplace_error_t err;
	char kept[64];

	make_fake(1000);
	cr_assert_eq(psiplace_release_nodes("n3,n4", &o, kept, sizeof(kept), NULL, 0, &err), -1);
	cr_assert_str_eq(err.text, "release: node n3 still runs step 7.2 of job 7; end it first");
	cr_assert_eq(calls(), 1);
	cleanup();
}

Test(release, wait_steps_waits_for_a_step_that_ends)
{
	struct psiplace_release_opts o = { .job = "7", .allow_step = "0", .scontrol = fake,
					   .wait_steps = 30 };
	psiplace_error_t err;
	char kept[64];

	make_fake(3);
	cr_assert_eq(psiplace_release_nodes("n3,n4", &o, kept, sizeof(kept), NULL, 0, &err), 0,
		     "%s", err.text);
	cr_assert_str_eq(kept, "n1,n2");
	cr_assert_eq(calls(), 4);
	cleanup();
}

Test(release, wait_steps_ends_with_the_error_at_its_deadline)
{
	struct psiplace_release_opts o = { .job = "7", .allow_step = "0", .scontrol = fake,
					   .wait_steps = 1 };
	psiplace_error_t err;
	char kept[64];

	make_fake(100000);
	cr_assert_eq(psiplace_release_nodes("n3", &o, kept, sizeof(kept), NULL, 0, &err), -1);
	cr_assert_str_eq(err.text, "release: node n3 still runs step 7.2 of job 7; end it first");
	cr_assert_geq(calls(), 2);
	cleanup();
}
