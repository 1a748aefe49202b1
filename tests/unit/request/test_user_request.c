/* Request gathering (common/request/user_request.c): precedence,
 * conflicts, the command-line scan. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "psiplace/error.h"
#include "psiplace/ctld_request.h"
#include "psiplace/user_request.h"

#include "request_test_util.h"

Test(request, nothing_given_leaves_slurm_alone)
{
	struct psiplace_user_request r;

	cr_assert_eq(gather(ENV("OMP_NUM_THREADS=4"), NULL, NULL, true, &r), 0);
	cr_assert_not(r.place);
	cr_assert_eq(r.tpp, 1); /* OMP_NUM_THREADS never read */
	psiplace_user_request_free(&r);
}

Test(request, option_beats_variable_beats_omp)
{
	struct psiplace_user_request r;

	cr_assert_eq(gather(ENV("PSI_TPP=3", "OMP_NUM_THREADS=4"), ENV("srun", "-n", "4", "--psi-tpp=2", "a.out"), NULL, true, &r), 0);
	cr_assert_eq(r.tpp, 2);
	cr_assert_str_eq(r.tpp_from, "--psi-tpp");
	psiplace_user_request_free(&r);
	cr_assert_eq(gather(ENV("PSI_TPP=3", "OMP_NUM_THREADS=4"), NULL, NULL, true, &r), 0);
	cr_assert_eq(r.tpp, 3);
	cr_assert(r.place);
	psiplace_user_request_free(&r);
	cr_assert_eq(gather(ENV("PSI_EXCLUSIVE=0", "OMP_NUM_THREADS=4"), NULL, NULL, true, &r), 0);
	cr_assert(r.exclusive); /* defined = on, whatever the value */
	cr_assert_eq(r.tpp, 4);
	cr_assert_str_eq(r.tpp_from, "OMP_NUM_THREADS");
	psiplace_user_request_free(&r);
}

Test(request, omp_num_threads_list_warns_and_uses_one)
{
	struct psiplace_user_request r;

	cr_assert_eq(gather(ENV("PSI_LOOP_NODES_FIRST=", "OMP_NUM_THREADS=4,2"), NULL, NULL, true, &r), 0);
	cr_assert_eq(r.tpp, 1);
	cr_assert_str_eq(r.warning, "OMP_NUM_THREADS: '4,2' is not a positive integer up to 4096; using 1 CPU slot per task (set PSI_TPP or --psi-tpp to choose)");
	psiplace_user_request_free(&r);
}

Test(request, bad_values_give_one_line)
{
	struct psiplace_user_request r;

	cr_assert_eq(gather(ENV("PSI_TPP=abc"), NULL, NULL, true, &r), -1);
	cr_assert_str_eq(err.text, "PSI_TPP: 'abc' is not a positive integer");
	cr_assert_eq(gather(NULL, ENV("srun", "--psi-tpp", "0", "true"), NULL, true, &r), -1);
	cr_assert_str_eq(err.text, "--psi-tpp: '0' is not a positive integer");
	cr_assert_eq(gather(ENV("PSI_NODES_SORT=fast"), NULL, NULL, true, &r), -1);
	cr_assert_str_eq(err.text, "PSI_NODES_SORT: 'fast' is not a sort mode; accepted: PROC, LOAD (LOAD1, LOAD_1), LOAD_5 (LOAD5), LOAD_15 (LOAD15), PROC+LOAD, NONE (case-insensitive)");
	cr_assert_eq(gather(NULL, ENV("srun", "--psi-exclusive=yes", "true"), NULL, true, &r), -1);
	cr_assert_str_eq(err.text, "--psi-exclusive: takes no value (given 'yes')");
	cr_assert_eq(gather(NULL, ENV("srun", "--psi-nodes"), NULL, true, &r), -1);
	cr_assert_str_eq(err.text, "--psi-nodes: requires a value");
	cr_assert_eq(gather(ENV("PSI_HOSTS="), NULL, NULL, true, &r), -1);
	cr_assert_str_eq(err.text, "PSI_HOSTS: no host names; accepted: host names and Slurm hostlist expressions like n[1-3,5],x7");
}

Test(request, first_defined_node_set_variable_wins)
{
	struct psiplace_user_request r;

	cr_assert_eq(gather(ENV("PSI_HOSTS=n1 n2", "PSI_NODES=0-1", "PSI_HOSTFILE=/nonexistent"), NULL, NULL, true, &r), 0);
	cr_assert_eq(r.nodeset, PSIPLACE_NODESET_IDS);
	cr_assert_eq(r.nnode_ids, 2);
	cr_assert_eq(r.nnotes, 2);
	cr_assert_str_eq(r.notes[0], "PSI_HOSTS ignored: PSI_NODES is given");
	cr_assert_str_eq(r.notes[1], "PSI_HOSTFILE ignored: PSI_NODES is given");
	psiplace_user_request_free(&r);
}

Test(request, node_set_option_suppresses_variables_and_two_options_conflict)
{
	struct psiplace_user_request r;

	cr_assert_eq(gather(ENV("PSI_NODES=0-1"), ENV("srun", "--psi-hosts=n[1-2]", "true"), NULL, true, &r), 0);
	cr_assert_eq(r.nodeset, PSIPLACE_NODESET_HOSTS);
	cr_assert_eq(r.hosts.n, 2);
	cr_assert_str_eq(r.notes[0], "PSI_NODES ignored: --psi-hosts is given");
	psiplace_user_request_free(&r);
	cr_assert_eq(gather(NULL, ENV("srun", "--psi-nodes=1", "--psi-hostfile", "f", "true"), NULL, true, &r), -1);
	cr_assert_str_eq(err.text, "--psi-nodes and --psi-hostfile cannot be combined; give one of --psi-nodes, --psi-hosts, --psi-hostfile");
}

Test(request, hostfile_slots_read_in_the_client_only)
{
	struct psiplace_user_request r;

	cr_assert_eq(gather(ENV("PSI_HOSTFILE=" PSIPLACE_TEST_DATA "/psi_hostfile"), NULL, NULL, true, &r), 0);
	cr_assert_eq(r.nodeset, PSIPLACE_NODESET_HOSTFILE);
	cr_assert_eq(r.hosts.n, 4);
	psiplace_user_request_free(&r);
	/* slurmstepd: presence only, the file is not opened. */
	cr_assert_eq(gather(ENV("PSI_HOSTFILE=/root/secret"), NULL, NULL, false, &r), 0);
	cr_assert_eq(r.hosts.n, 0);
	cr_assert(r.place);
	psiplace_user_request_free(&r);
}

Test(request, inherited_options_from_sbatch_lose_to_own_command_line)
{
	struct psiplace_user_request r;

	cr_assert_eq(gather(ENV("SLURM_SPANK__SLURM_SPANK_OPTION_psiplace_psi_tpp=4",
				"SLURM_SPANK__SLURM_SPANK_OPTION_psiplace_psi_loop_nodes_first=",
				"PSI_VERBOSE_UNRELATED=1"),
			    NULL, NULL, true, &r), 0);
	cr_assert_eq(r.tpp, 4);
	cr_assert(r.loop_nodes_first);
	psiplace_user_request_free(&r);
	cr_assert_eq(gather(ENV("_SLURM_SPANK_OPTION_psiplace_psi_tpp=4"), ENV("srun", "--psi-tpp=3", "x"), NULL, true, &r), 0);
	cr_assert_eq(r.tpp, 3);
	psiplace_user_request_free(&r);
}

/* PSI_TPP=1 srun inside a job given --psi-tpp=2: the step's own variable
 * wins over the inherited option; its own command line over both. */
Test(request, step_variable_wins_over_inherited_option)
{
	struct psiplace_user_request r;

	cr_assert_eq(gather(ENV("SLURM_SPANK__SLURM_SPANK_OPTION_psiplace_psi_tpp=2", "PSI_TPP=1"),
			    NULL, NULL, true, &r), 0);
	cr_assert_eq(r.tpp, 1);
	cr_assert_str_eq(r.tpp_from, "PSI_TPP");
	psiplace_user_request_free(&r);
	cr_assert_eq(gather(ENV("_SLURM_SPANK_OPTION_psiplace_psi_tpp=2", "PSI_TPP=3"),
			    ENV("srun", "--psi-tpp=4", "x"), NULL, true, &r), 0);
	cr_assert_eq(r.tpp, 4);
	psiplace_user_request_free(&r);
	cr_assert(psiplace_opt_step_overrides(PSIPLACE_OPT_TPP, fake_getenv, (void *)ENV("PSI_TPP=1")));
	cr_assert_not(psiplace_opt_step_overrides(PSIPLACE_OPT_TPP, fake_getenv, (void *)ENV("X=1")));
}

Test(request, cmdline_scan_stops_at_the_command_and_skips_values)
{
	struct psiplace_opts o;
	struct psiplace_slurm_cmdline set;

	psiplace_opts_init(&o);
	cr_assert_eq(psiplace_cmdline_scan(7, (char *const[]){ "srun", "-N", "--psi-tpp=9", "-c2", "-mcyclic", "./a", "--psi-tpp=5" },
					   &o, &set, &err), 0);
	cr_assert_null(o.val[PSIPLACE_OPT_TPP]); /* "--psi-tpp=9" was -N's value */
	cr_assert_eq(set.set, PSIPLACE_SLURM_CPUS_PER_TASK | PSIPLACE_SLURM_DISTRIBUTION);
	cr_assert_eq(set.nnodes, -1);
	cr_assert_eq(psiplace_cmdline_scan(5, (char *const[]){ "sbatch", "-W", "--psi-overbook", "--exclusive", "job.sh" },
					   &o, &set, &err), 0);
	cr_assert_not_null(o.val[PSIPLACE_OPT_OVERBOOK]);
	cr_assert_eq(set.set, PSIPLACE_SLURM_EXCLUSIVE);
	cr_assert_eq(psiplace_cmdline_scan(6, (char *const[]){ "srun", "-N2", "--ntasks", "5", "--cpu-bind=cores", "x" },
					   &o, &set, &err), 0);
	cr_assert_eq(set.nnodes, 2);
	cr_assert_eq(set.ntasks, 5);
	cr_assert_eq(set.set, PSIPLACE_SLURM_CPU_BIND);
	psiplace_opts_free(&o);
}

Test(request, batch_script_directives_and_operand)
{
	const char *script = "#!/bin/bash\n#SBATCH -N 2 --psi-tpp=3\n  # indented: not a directive\n#SBATCH --psi-loop-nodes-first # comment\n#SBATCH --job-name \"a b\" -m block\necho hi\n#SBATCH --psi-overbook\n";
	struct psiplace_opts o;
	struct psiplace_slurm_cmdline sl;

	psiplace_opts_init(&o);
	cr_assert_eq(psiplace_cmdline_scan(4, (char *const[]){ "sbatch", "-n", "4", "job.sh" }, &o, &sl, &err), 0);
	cr_assert_eq(sl.operand, 3);
	cr_assert_not(sl.wrap);
	cr_assert_eq(psiplace_batch_script_scan(script, strlen(script), &o, &sl, &err), 0);
	cr_assert_str_eq(o.val[PSIPLACE_OPT_TPP], "3");
	cr_assert_not_null(o.val[PSIPLACE_OPT_LOOP_NODES_FIRST]);
	cr_assert_null(o.val[PSIPLACE_OPT_OVERBOOK]); /* after the first command */
	cr_assert_eq(sl.nnodes, 2);
	cr_assert_eq(sl.ntasks, 4);
	cr_assert_eq(sl.set, PSIPLACE_SLURM_DISTRIBUTION);
	cr_assert_eq(psiplace_cmdline_scan(3, (char *const[]){ "sbatch", "--wrap", "true" }, &o, &sl, &err), 0);
	cr_assert(sl.wrap);
	psiplace_opts_free(&o);
}

/* sbatch's precedence: the command line's -n/-N beat the script's #SBATCH
 * -n/-N, and a later directive beats an earlier one. */
Test(request, batch_script_counts_lose_to_the_command_line)
{
	const char *script = "#!/bin/bash\n#SBATCH -n 8 -N 3\n#SBATCH -N 2\nsrun true\n";
	struct psiplace_opts o;
	struct psiplace_slurm_cmdline sl;

	psiplace_opts_init(&o);
	cr_assert_eq(psiplace_cmdline_scan(4, (char *const[]){ "sbatch", "-n", "4", "job.sh" }, &o, &sl, &err), 0);
	cr_assert_eq(psiplace_batch_script_scan(script, strlen(script), &o, &sl, &err), 0);
	cr_assert_eq(sl.ntasks, 4);
	cr_assert_eq(sl.nnodes, 2);
	cr_assert_eq(psiplace_cmdline_scan(4, (char *const[]){ "sbatch", "-N", "1", "job.sh" }, &o, &sl, &err), 0);
	cr_assert_eq(psiplace_batch_script_scan(script, strlen(script), &o, &sl, &err), 0);
	cr_assert_eq(sl.ntasks, 8);
	cr_assert_eq(sl.nnodes, 1);
	psiplace_opts_free(&o);
}

Test(request, cpumap_needs_allow_user_cpumap)
{
	struct psiplace_user_request r;
	struct psiplace_siteconf site;

	psiplace_siteconf_init(&site);
	cr_assert_eq(gather(NULL, ENV("srun", "--psi-cpumap=3-0", "x"), &site, true, &r), -1);
	cr_assert_str_eq(err.text, "--psi-cpumap: not allowed on this cluster (plugstack.conf AllowUserCpumap=no)");
	cr_assert_eq(gather(ENV("__PSI_CPUMAP=3-0"), NULL, &site, true, &r), 0);
	cr_assert_null(r.cpumap);
	cr_assert_not(r.place);
	cr_assert_str_eq(r.notes[0], "__PSI_CPUMAP ignored: this cluster does not allow user CPU maps (AllowUserCpumap=no)");
	psiplace_user_request_free(&r);
	site.allow_user_cpumap = true;
	cr_assert_eq(gather(ENV("__PSI_CPUMAP=3-0"), NULL, &site, true, &r), 0);
	cr_assert_eq(r.ncpumap, 4);
	cr_assert(r.place);
	psiplace_user_request_free(&r);
	cr_assert_eq(gather(ENV("__PSI_CPUMAP=a"), NULL, &site, true, &r), -1);
	cr_assert_str_eq(err.text, "__PSI_CPUMAP: 'a' is not a CPU map; accepted: a comma list of CPU numbers N or ranges A-B, descending allowed (e.g. 0,2,7-4)");
	psiplace_siteconf_free(&site);
}

Test(request, psi_placement_with_lama_is_an_error_naming_both)
{
	struct psiplace_user_request r;

	cr_assert_eq(gather(ENV("PSI_TPP=2"), ENV("srun", "--psi-lama-map=scbnh", "x"), NULL, true, &r), -1);
	cr_assert_str_eq(err.text, "PSI_TPP and --psi-lama-map cannot be combined: PSI task placement (TPP, cpumap, loop-nodes-first, overbook) and LAMA mapping exclude each other");
	cr_assert_eq(gather(ENV("PSI_LOOP_NODES_FIRST=1", "OMPI_MCA_rmaps_lama_bind=1c"), NULL, NULL, true, &r), -1);
	cr_assert_str_eq(err.text, "PSI_LOOP_NODES_FIRST and OMPI_MCA_rmaps_lama_bind cannot be combined: PSI task placement (TPP, cpumap, loop-nodes-first, overbook) and LAMA mapping exclude each other");
	/* Node choice combines with LAMA; OMP_NUM_THREADS is not PSI placement. */
	cr_assert_eq(gather(ENV("PSI_NODES=0", "OMP_NUM_THREADS=4"), ENV("srun", "--psi-map-by", "socket", "x"), NULL, true, &r), 0);
	cr_assert(r.lama);
	cr_assert_str_eq(r.lama_strings.map_by, "socket");
	cr_assert_eq(r.tpp, 1);
	psiplace_user_request_free(&r);
	cr_assert_eq(gather(NULL, ENV("srun", "--psi-map-by=core", "--psi-lama-map=csbnh", "x"), NULL, true, &r), -1);
	cr_assert_str_eq(err.text, "--psi-map-by and --psi-lama-map cannot be combined; give a simple level or an expert map string");
}

Test(request, alloc_priority_implies_priority_policy)
{
	struct psiplace_user_request r;

	cr_assert_eq(gather(NULL, ENV("srun", "--psi-alloc-priority=SPEED", "x"), NULL, true, &r), 0);
	cr_assert_eq(r.policy, PSIPLACE_POLICY_PRIORITY);
	cr_assert_not(r.place);
	psiplace_user_request_free(&r);
	cr_assert_eq(gather(NULL, ENV("srun", "--psi-alloc-policy=fastest", "--psi-alloc-priority=SPEED", "x"), NULL, true, &r), -1);
	cr_assert_str_eq(err.text, "--psi-alloc-priority implies PRIORITY, but --psi-alloc-policy is FASTEST; give only one of them");
	cr_assert_eq(gather(NULL, ENV("srun", "--psi-alloc-priority=SPEED+", "x"), NULL, true, &r), -1);
	cr_assert_not_null(strstr(err.text, "--psi-alloc-priority"));
}

Test(request, default_placement_psi_and_no_flags_alone)
{
	struct psiplace_user_request r;
	struct psiplace_siteconf site;

	cr_assert_eq(gather(ENV("__PSI_NO_PINPROC=", "__PSI_NO_MEMBIND="), NULL, NULL, true, &r), 0);
	cr_assert_not(r.place);
	cr_assert_not(r.pin);
	cr_assert_not(r.bindmem);
	psiplace_user_request_free(&r);
	psiplace_siteconf_init(&site);
	site.placement = PSIPLACE_PLACEMENT_PSI;
	cr_assert_eq(gather(NULL, NULL, &site, true, &r), 0);
	cr_assert(r.place);
	cr_assert_str_eq(r.place_why, "DefaultPlacement=psi");
	psiplace_user_request_free(&r);
	psiplace_siteconf_free(&site);
}
/* sbatch --psi-tpp=2 without -c: every step would fail; refused. */
Test(request, sbatch_tpp_without_cpus_per_task_is_refused)
{
	struct psiplace_user_request r;
	struct psiplace_slurm_cmdline sl = { .ntasks = -1, .nnodes = -1, .cpus_per_task = -1 };

	cr_assert_eq(gather(NULL, ENV("sbatch", "-n2", "--psi-tpp=2", "job.sh"), NULL, true, &r), 0);
	cr_assert_eq(psiplace_user_request_check_cpus(&r, PSIPLACE_CLIENT_SBATCH, &sl, NULL, NULL, &err), -1);
	cr_assert_str_eq(err.text, "--psi-tpp: 2 CPUs per task need -c 2 (--cpus-per-task=2) or --exclusive on the sbatch command line or in the script; without them every step asks for more CPUs than the job has");
	cr_assert_eq(psiplace_user_request_check_cpus(&r, PSIPLACE_CLIENT_SRUN, &sl, NULL, NULL, &err), 0);
	sl.set = PSIPLACE_SLURM_CPUS_PER_TASK;
	cr_assert_eq(psiplace_user_request_check_cpus(&r, PSIPLACE_CLIENT_SBATCH, &sl, NULL, NULL, &err), 0);
	sl.set = PSIPLACE_SLURM_EXCLUSIVE;
	cr_assert_eq(psiplace_user_request_check_cpus(&r, PSIPLACE_CLIENT_SALLOC, &sl, NULL, NULL, &err), 0);
	psiplace_user_request_free(&r);
	cr_assert_eq(gather(ENV("PSI_TPP=3"), ENV("salloc", "-n2"), NULL, true, &r), 0);
	cr_assert_eq(psiplace_user_request_check_cpus(&r, PSIPLACE_CLIENT_SALLOC, NULL, NULL, NULL, &err), -1);
	cr_assert(!strncmp(err.text, "PSI_TPP: 3 CPUs per task need -c 3", 34));
	psiplace_user_request_free(&r);
}

/* -c smaller than the CPUs per task fails every step as surely as no -c
 * (RELIABILITY R7: sbatch -c1 --psi-tpp=2 was accepted); -c from the
 * script counts unless the command line gave one. */
/* What the SPANK plugin learns of Slurm's own options: the command line,
 * then the script's #SBATCH directives. */
static void scan_slurm(const char *const *argv, const char *script, struct psiplace_slurm_cmdline *sl)
{
	struct psiplace_opts o;
	int argc = 0;

	while (argv[argc])
		argc++;
	psiplace_opts_init(&o);
	cr_assert_eq(psiplace_cmdline_scan(argc, (char *const *)argv, &o, sl, &err), 0);
	if (script)
		cr_assert_eq(psiplace_batch_script_scan(script, strlen(script), &o, sl, &err), 0);
	psiplace_opts_free(&o);
}

static int check_cmdline(const char *const *env, const char *const *argv, const char *script)
{
	struct psiplace_user_request r;
	struct psiplace_slurm_cmdline sl;
	int rc;

	scan_slurm(argv, script, &sl);
	cr_assert_eq(gather(env, argv, NULL, true, &r), 0, "%s", err.text);
	rc = psiplace_user_request_check_cpus(&r, PSIPLACE_CLIENT_SBATCH, &sl, fake_getenv,
					      (void *)env, &err);
	psiplace_user_request_free(&r);
	return rc;
}

Test(request, sbatch_tpp_needs_cpus_per_task_at_least_tpp)
{
	cr_assert_eq(check_cmdline(NULL, ENV("sbatch", "-n2", "-c1", "--psi-tpp=2", "j"), NULL), -1);
	cr_assert_str_eq(err.text, "--psi-tpp: 2 CPUs per task need -c 2 (--cpus-per-task=2) or more, not -c 1; with it every step asks for more CPUs than the job has");
	cr_assert_eq(check_cmdline(NULL, ENV("sbatch", "--cpus-per-task", "1", "--psi-tpp=3", "j"), NULL), -1);
	cr_assert_eq(check_cmdline(ENV("PSI_TPP=2"), ENV("sbatch", "-n2", "-c1", "j"), NULL), -1);
	cr_assert(!strncmp(err.text, "PSI_TPP: 2 CPUs per task need -c 2 (--cpus-per-task=2) or more, not -c 1", 72), "%s", err.text);
	cr_assert_eq(check_cmdline(NULL, ENV("sbatch", "-n2", "-c2", "--psi-tpp=2", "j"), NULL), 0);
	cr_assert_eq(check_cmdline(NULL, ENV("sbatch", "-c4", "--psi-tpp=2", "j"), NULL), 0);
	cr_assert_eq(check_cmdline(NULL, ENV("sbatch", "--cpus-per-task=2", "--psi-tpp=2", "j"), NULL), 0);
	cr_assert_eq(check_cmdline(NULL, ENV("sbatch", "-c1", "--exclusive", "--psi-tpp=2", "j"), NULL), 0);
	/* the script's -c, unless the command line has its own */
	cr_assert_eq(check_cmdline(NULL, ENV("sbatch", "--psi-tpp=2", "j"), "#!/bin/sh\n#SBATCH -c 1\n"), -1);
	cr_assert_eq(check_cmdline(NULL, ENV("sbatch", "--psi-tpp=2", "j"), "#!/bin/sh\n#SBATCH -c 1\n#SBATCH -c2\n"), 0);
	cr_assert_eq(check_cmdline(NULL, ENV("sbatch", "-c2", "--psi-tpp=2", "j"), "#SBATCH -c1\n"), 0);
	cr_assert_eq(check_cmdline(NULL, ENV("sbatch", "-c1", "--psi-tpp=2", "j"), "#SBATCH -c2\n"), -1);
}

/* sbatch reads SBATCH_EXCLUSIVE as --exclusive: whole nodes, accepted;
 * "oversubscribe" shares nodes and is not. */
Test(request, sbatch_tpp_with_sbatch_exclusive_variable)
{
	cr_assert_eq(check_cmdline(ENV("SBATCH_EXCLUSIVE=exclusive"), ENV("sbatch", "--psi-tpp=2", "j"), NULL), 0);
	cr_assert_eq(check_cmdline(ENV("SBATCH_EXCLUSIVE=user"), ENV("sbatch", "--psi-tpp=2", "j"), NULL), 0);
	cr_assert_eq(check_cmdline(ENV("SBATCH_EXCLUSIVE=oversubscribe"), ENV("sbatch", "--psi-tpp=2", "j"), NULL), -1);
	cr_assert_eq(check_cmdline(ENV("SBATCH_EXCLUSIVE="), ENV("sbatch", "--psi-tpp=2", "j"), NULL), -1);
	cr_assert_eq(check_cmdline(ENV("SALLOC_EXCLUSIVE=exclusive"), ENV("sbatch", "--psi-tpp=2", "j"), NULL), -1);
}

/* A heterogeneous step is refused before submission (doc/psets.md):
 * components split by ':', or --het-group (mpi/pmix names even a step of
 * one component after the job's first), in the forms getopt accepts. */
Test(request, het_step_by_colon_or_het_group)
{
	char *colon[] = { "srun", "-n2", "a", ":", "-n2", "b", NULL };
	char *grp[] = { "srun", "--het-group=0,1", "a", NULL };
	char *grp_sep[] = { "srun", "--het-group", "0-1", "a", NULL };
	char *pack[] = { "srun", "--pack-group=0,1", "a", NULL };
	char *prefix[] = { "srun", "--het=0,1", "a", NULL };
	char *one[] = { "srun", "--het-group=1", "a", NULL };
	char *help[] = { "srun", "--he=0,1", "a", NULL };
	char *plain[] = { "srun", "-n2", "a", NULL };
	struct psiplace_user_request r;

	cr_assert(psiplace_cmdline_is_het(6, colon));
	cr_assert(psiplace_cmdline_is_het(3, grp));
	cr_assert(psiplace_cmdline_is_het(4, grp_sep));
	cr_assert(psiplace_cmdline_is_het(3, pack));
	cr_assert(psiplace_cmdline_is_het(3, prefix));
	cr_assert(psiplace_cmdline_is_het(3, one));
	cr_assert(!psiplace_cmdline_is_het(3, help));
	cr_assert(!psiplace_cmdline_is_het(3, plain));
	cr_assert_eq(gather(NULL, ENV("srun", "--het-group=0,1", "--psi-pset=a:0-1", "a"), NULL, true, &r), 0);
	cr_assert_eq(psiplace_user_request_check_het(&r, psiplace_cmdline_is_het(4, (char *[]){ "srun", "--het-group=0,1", "--psi-pset=a:0-1", "a", NULL }), &err), -1);
	cr_assert(strstr(err.text, "--psi-pset: psiplace does not support heterogeneous jobs or steps"), "%s", err.text);
	psiplace_user_request_free(&r);
}

Test(request, malleable_option_is_gathered_and_checked_at_submission)
{
	struct psiplace_user_request r;
	struct psiplace_slurm_cmdline sl = { .ntasks = -1, .nnodes = 2, .cpus_per_task = -1 };

	cr_assert_eq(gather(NULL, ENV("sbatch", "--psi-malleable=1-4", "job.sh"), NULL, true, &r), 0,
		     "%s", err.text);
	cr_assert(r.mall_min == 1 && r.mall_max == 4);
	cr_assert_str_eq(r.malleable_from, "--psi-malleable");
	cr_assert_eq(psiplace_user_request_check_malleable(&r, true, &sl, &err), 0, "%s", err.text);
	sl.nnodes = 5;
	cr_assert_eq(psiplace_user_request_check_malleable(&r, true, &sl, &err), -1);
	cr_assert_str_eq(err.text, "--psi-malleable=1-4: the job starts at -N 5, outside the range; "
				   "accepted: -N from 1 to 4");
	sl.nnodes = -1;
	cr_assert_eq(psiplace_user_request_check_malleable(&r, true, &sl, &err), -1);
	cr_assert_str_eq(err.text, "--psi-malleable=1-4 needs -N/--nodes with one node count from 1 "
				   "to 4, the size the job starts at");
	/* a step inherits its job's option: not checked again */
	cr_assert_eq(psiplace_user_request_check_malleable(&r, false, &sl, &err), 0);
	psiplace_user_request_free(&r);
	cr_assert_eq(gather(NULL, ENV("sbatch", "job.sh"), NULL, true, &r), 0);
	cr_assert_eq(r.mall_max, 0);
	cr_assert_eq(psiplace_user_request_check_malleable(&r, false, NULL, &err), 0);
	psiplace_user_request_free(&r);
}

Test(request, malleable_bad_values_one_line_each)
{
	static const char *const cases[][2] = {
		{ "4-1", "--psi-malleable: '4-1': MIN 4 is above MAX 1; accepted: MIN-MAX, node "
			 "counts with 1 <= MIN <= MAX, e.g. 1-4" },
		{ "0-2", "--psi-malleable: '0-2': MIN is 0; accepted: MIN-MAX, node counts with 1 "
			 "<= MIN <= MAX, e.g. 1-4" },
		{ "abc", "--psi-malleable: 'abc' is not MIN-MAX with node counts up to 1048576; "
			 "accepted: MIN-MAX, node counts with 1 <= MIN <= MAX, e.g. 1-4" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_assert_eq(psiplace_user_request_check_option(PSIPLACE_OPT_MALLEABLE, cases[i][0],
								NULL, &err),
			     -1, "%s", cases[i][0]);
		cr_assert_str_eq(err.text, cases[i][1]);
	}
	/* the partition's limit is the SPANK plugin's, after the options are parsed */
	cr_assert_eq(psiplace_user_request_check_option(PSIPLACE_OPT_MALLEABLE, "1-100000", NULL,
							&err),
		     0, "%s", err.text);
}

/* cons_tres's select_p_job_expand refuses a job with GRES: every form sbatch,
 * salloc and srun read a GRES request from is found at submission. */
static const char *malleable_gres(const char *const *env, enum psiplace_client client,
				  const char *const *argv, const char *script)
{
	struct psiplace_user_request r;
	struct psiplace_slurm_cmdline sl;
	int rc;

	scan_slurm(argv, script, &sl);
	psiplace_slurm_cmdline_env_gres(&sl, client, fake_getenv, (void *)env);
	cr_assert_eq(gather(NULL, ENV("sbatch", "--psi-malleable=1-4", "job.sh"), NULL, true, &r), 0);
	sl.nnodes = 2;
	rc = psiplace_user_request_check_malleable(&r, true, &sl, &err);
	psiplace_user_request_free(&r);
	return rc < 0 ? err.text : "";
}

#define GRES_LINE(opt)                                                                             \
	"--psi-malleable=1-4: " opt " asks for GRES, and Slurm cannot grow a job with GRES; "     \
	"accepted: a malleable job without --gres/--gpus*, or a GRES job without --psi-malleable"

Test(request, malleable_job_with_gres_is_refused_in_every_form)
{
	cr_assert_str_eq(malleable_gres(NULL, PSIPLACE_CLIENT_SBATCH, ENV("sbatch", "--gpus=1", "j"), NULL),
			 GRES_LINE("--gpus=1"));
	cr_assert_str_eq(malleable_gres(NULL, PSIPLACE_CLIENT_SBATCH, ENV("sbatch", "-G", "2", "j"), NULL),
			 GRES_LINE("-G=2"));
	cr_assert_str_eq(malleable_gres(NULL, PSIPLACE_CLIENT_SALLOC, ENV("salloc", "-G2", "true"), NULL),
			 GRES_LINE("-G=2"));
	cr_assert_str_eq(malleable_gres(NULL, PSIPLACE_CLIENT_SBATCH, ENV("sbatch", "--gres", "gpu:1", "j"), NULL),
			 GRES_LINE("--gres=gpu:1"));
	cr_assert_str_eq(malleable_gres(NULL, PSIPLACE_CLIENT_SBATCH,
					ENV("sbatch", "--gpus-per-task=1", "j"), NULL),
			 GRES_LINE("--gpus-per-task=1"));
	cr_assert_str_eq(malleable_gres(NULL, PSIPLACE_CLIENT_SBATCH,
					ENV("sbatch", "--tres-per-task", "cpu:2,gres/gpu:1", "j"), NULL),
			 GRES_LINE("--tres-per-task=cpu:2,gres/gpu:1"));
	cr_assert_str_eq(malleable_gres(NULL, PSIPLACE_CLIENT_SBATCH, ENV("sbatch", "j"),
					"#!/bin/sh\n#SBATCH --gpus-per-node=1\ntrue\n"),
			 GRES_LINE("--gpus-per-node=1"));
	cr_assert_str_eq(malleable_gres(ENV("SBATCH_GPUS=1"), PSIPLACE_CLIENT_SBATCH, ENV("sbatch", "j"), NULL),
			 GRES_LINE("SBATCH_GPUS=1"));
	cr_assert_str_eq(malleable_gres(ENV("SALLOC_GRES=gpu"), PSIPLACE_CLIENT_SALLOC, ENV("salloc", "x"), NULL),
			 GRES_LINE("SALLOC_GRES=gpu"));
	cr_assert_str_eq(malleable_gres(ENV("SLURM_GPUS_PER_NODE=1"), PSIPLACE_CLIENT_SRUN, ENV("srun", "x"), NULL),
			 GRES_LINE("SLURM_GPUS_PER_NODE=1"));
	/* the command line's GRES is the one named */
	cr_assert_str_eq(malleable_gres(ENV("SBATCH_GPUS=1"), PSIPLACE_CLIENT_SBATCH,
					ENV("sbatch", "--gres=gpu:2", "j"), NULL),
			 GRES_LINE("--gres=gpu:2"));
}

Test(request, malleable_job_without_gres_passes)
{
	/* none, a CPU-only --tres-per-task, another client's variable, a
	 * value of a word after the script */
	cr_assert_str_eq(malleable_gres(NULL, PSIPLACE_CLIENT_SBATCH, ENV("sbatch", "--gres=none", "j"), NULL), "");
	cr_assert_str_eq(malleable_gres(NULL, PSIPLACE_CLIENT_SBATCH,
					ENV("sbatch", "--tres-per-task=cpu:2", "j"), NULL), "");
	cr_assert_str_eq(malleable_gres(ENV("SALLOC_GPUS=1"), PSIPLACE_CLIENT_SBATCH, ENV("sbatch", "j"), NULL), "");
	cr_assert_str_eq(malleable_gres(NULL, PSIPLACE_CLIENT_SBATCH, ENV("sbatch", "j", "--gpus=1"), NULL), "");
	cr_assert_str_eq(malleable_gres(NULL, PSIPLACE_CLIENT_SBATCH, ENV("sbatch", "--gpu-bind=closest", "j"), NULL), "");
}

Test(request, partition_scan_command_line_beats_script)
{
	struct psiplace_slurm_cmdline sl;
	struct psiplace_opts o;
	const char *script = "#!/bin/sh\n#SBATCH -p big\n";

	psiplace_opts_init(&o);
	cr_assert_eq(psiplace_cmdline_scan(4, (char *const[]){ "sbatch", "-p", "small", "j", NULL }, &o, &sl, &err), 0);
	cr_assert_str_eq(sl.partition, "small");
	cr_assert_eq(psiplace_batch_script_scan(script, strlen(script), &o, &sl, &err), 0);
	cr_assert_str_eq(sl.partition, "small");
	cr_assert_eq(psiplace_cmdline_scan(2, (char *const[]){ "sbatch", "j", NULL }, &o, &sl, &err), 0);
	cr_assert_str_eq(sl.partition, "");
	cr_assert_eq(psiplace_batch_script_scan(script, strlen(script), &o, &sl, &err), 0);
	cr_assert_str_eq(sl.partition, "big");
	cr_assert_eq(psiplace_cmdline_scan(3, (char *const[]){ "salloc", "--partition=a,b", "x", NULL }, &o, &sl, &err), 0);
	cr_assert_str_eq(sl.partition, "a,b");
	psiplace_opts_free(&o);
}

Test(request, partition_node_limit_is_maxnodes_capped_by_size)
{
	const struct psiplace_partition_size p[] = {
		{ "batch", 0, 4, true },         /* unlimited: its 4 nodes */
		{ "small", 2, 4, false },        /* MaxNodes=2 */
		{ "wide", UINT32_MAX, 8, false }, /* INFINITE */
		{ "big", 100, 6, false },        /* MaxNodes above its size */
	};
	const char *which;

	cr_assert_eq(psiplace_partition_node_limit(NULL, p, 4, &which), 4);
	cr_assert_str_eq(which, "batch");
	cr_assert_eq(psiplace_partition_node_limit("", p, 4, &which), 4);
	cr_assert_eq(psiplace_partition_node_limit("small", p, 4, &which), 2);
	cr_assert_str_eq(which, "small");
	cr_assert_eq(psiplace_partition_node_limit("wide", p, 4, &which), 8);
	cr_assert_eq(psiplace_partition_node_limit("big", p, 4, &which), 6);
	/* a list: the job runs in one of them, the largest limit counts */
	cr_assert_eq(psiplace_partition_node_limit("small,big", p, 4, &which), 6);
	cr_assert_str_eq(which, "big");
	cr_assert_eq(psiplace_partition_node_limit("sm", p, 4, &which), 0);
	cr_assert_null(which);
	cr_assert_eq(psiplace_partition_node_limit("nope", p, 4, &which), 0);
	cr_assert_eq(psiplace_partition_node_limit(NULL, p + 1, 3, &which), 0); /* no default */
}

Test(request, malleable_max_above_the_partition_is_refused)
{
	struct psiplace_user_request r;

	cr_assert_eq(gather(NULL, ENV("sbatch", "--psi-malleable=1-100000", "job.sh"), NULL, true, &r), 0);
	cr_assert_eq(psiplace_user_request_check_malleable_limit(&r, true, 4, "batch", &err), -1);
	cr_assert_str_eq(err.text, "--psi-malleable=1-100000: MAX 100000 is above the 4 nodes "
				   "partition batch can give a job (its MaxNodes and node count); "
				   "accepted: MAX from 1 to 4");
	cr_assert_eq(psiplace_user_request_check_malleable_limit(&r, true, 0, NULL, &err), 0); /* unknown */
	cr_assert_eq(psiplace_user_request_check_malleable_limit(&r, false, 4, "batch", &err), 0); /* a step */
	cr_assert_eq(psiplace_user_request_check_malleable_limit(&r, true, 100000, "batch", &err), 0);
	psiplace_user_request_free(&r);
}
