/* Request gathering: precedence, conflicts, the command-line scan, the
 * Slurm variables it sets, and the job env for slurmctld. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "psiplace/error.h"
#include "psiplace/ctld_request.h"
#include "psiplace/user_request.h"

static psiplace_error_t err;

/* A fake environment: "NAME=value" strings, NULL-terminated. */
static const char *fake_getenv(const char *name, void *arg)
{
	const char *const *e = arg;
	size_t n = strlen(name);

	for (; e && *e; e++)
		if (!strncmp(*e, name, n) && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

static int gather(const char *const *env, const char *const *argv, struct psiplace_siteconf *site,
		  bool node_choice, struct psiplace_user_request *r)
{
	struct psiplace_opts opts;
	struct psiplace_slurm_cmdline slurm_set;
	int argc = 0, rc;
	struct psiplace_user_request_src src = { fake_getenv, (void *)env, &opts, site, node_choice };

	psiplace_opts_init(&opts);
	while (argv && argv[argc])
		argc++;
	if (argv && psiplace_cmdline_scan(argc, (char *const *)argv, &opts, &slurm_set, &err) < 0) {
		psiplace_opts_free(&opts);
		return -1;
	}
	psiplace_opts_from_inherited(fake_getenv, (void *)env, &opts);
	rc = psiplace_user_request_gather(&src, r, &err);
	psiplace_opts_free(&opts);
	return rc;
}

#define ENV(...) ((const char *const[]){ __VA_ARGS__, NULL })

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

static const char *slurm_env_line(const struct psiplace_slurm_env *e)
{
	static char buf[1024];
	unsigned i;

	buf[0] = '\0';
	for (i = 0; i < e->n; i++) {
		strcat(buf, i ? " " : "");
		strcat(buf, e->var[i].name);
		strcat(buf, "=");
		strcat(buf, e->var[i].value);
	}
	return buf;
}

Test(request_slurm_env, srun_gets_cyclic_exclusive_overcommit_cpus)
{
	struct psiplace_user_request r;
	struct psiplace_slurm_env e;

	cr_assert_eq(gather(ENV("PSI_EXCLUSIVE="), NULL, NULL, true, &r), 0);
	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SRUN, PSIPLACE_SLURM_RELEASE(22, 5), true, false, NULL, fake_getenv, NULL, NULL, &e);
	cr_assert_str_eq(slurm_env_line(&e), "SLURM_CPU_BIND=none SLURM_EXCLUSIVE=exclusive");
	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SBATCH, PSIPLACE_SLURM_RELEASE(22, 5), true, false, NULL, fake_getenv, NULL, NULL, &e);
	cr_assert_str_eq(slurm_env_line(&e), "SBATCH_EXCLUSIVE=exclusive");
	psiplace_user_request_free(&r);

	cr_assert_eq(gather(ENV("PSI_LOOP_NODES_FIRST=", "PSI_OVERBOOK=", "PSI_TPP=2"), NULL, NULL, true, &r), 0);
	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SRUN, PSIPLACE_SLURM_RELEASE(22, 5), true, false, NULL, fake_getenv, NULL, NULL, &e);
	cr_assert_str_eq(slurm_env_line(&e), "SLURM_DISTRIBUTION=cyclic SLURM_CPU_BIND=none SLURM_OVERCOMMIT=1 SRUN_CPUS_PER_TASK=2");
	cr_assert_str_eq(e.notes[0], "overbook: srun cannot combine --exclusive with --overcommit; the job is not exclusive (use sbatch or salloc for an exclusive overbooked job)");
	/* Inside an allocation the step is not exclusive. */
	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SRUN, PSIPLACE_SLURM_RELEASE(22, 5), false, false, NULL, fake_getenv, NULL, NULL, &e);
	cr_assert_str_eq(slurm_env_line(&e), "SLURM_DISTRIBUTION=cyclic SLURM_CPU_BIND=none SLURM_OVERCOMMIT=1 SRUN_CPUS_PER_TASK=2");
	psiplace_user_request_free(&r);
}

/* 23.02+ never starts an exclusive job that overcommits a node's CPUs:
 * sbatch and salloc overbook without exclusivity there, and say so. */
Test(request_slurm_env, overbooked_allocations_are_exclusive_only_where_slurm_starts_them)
{
	struct psiplace_user_request r;
	struct psiplace_slurm_env e;

	cr_assert_eq(gather(ENV("PSI_OVERBOOK="), NULL, NULL, true, &r), 0);
	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SALLOC, PSIPLACE_SLURM_RELEASE(22, 5), true, false, NULL, fake_getenv, NULL, NULL, &e);
	cr_assert_str_eq(slurm_env_line(&e), "SALLOC_EXCLUSIVE=exclusive SALLOC_OVERCOMMIT=1");
	cr_assert_eq(e.nnotes, 0);
	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SALLOC, PSIPLACE_SLURM_RELEASE(24, 11), true, false, NULL, fake_getenv, NULL, NULL, &e);
	cr_assert_str_eq(slurm_env_line(&e), "SALLOC_OVERCOMMIT=1");
	cr_assert_eq(e.nnotes, 1);
	cr_assert_str_eq(e.notes[0], "overbook: Slurm 24.11 never starts an exclusive job with more tasks than a node's CPUs; the job is not exclusive (for whole nodes: -N and --exclusive, and --psi-overbook on the steps)");
	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SBATCH, PSIPLACE_SLURM_RELEASE(26, 5), true, false, NULL, fake_getenv, NULL, NULL, &e);
	cr_assert_str_eq(slurm_env_line(&e), "SBATCH_OVERCOMMIT=1");
	cr_assert_str_eq(e.notes[0], "overbook: Slurm 26.05 never starts an exclusive job with more tasks than a node's CPUs; the job is not exclusive (for whole nodes: -N and --exclusive, and --psi-overbook on the steps)");
	psiplace_user_request_free(&r);
}

/* srun reads SRUN_CPUS_PER_TASK up to 23.02 and SLURM_CPUS_PER_TASK from
 * 23.11 (doc/select.md): PSI_TPP must reserve CPUs on every release. */
Test(request_slurm_env, cpus_per_task_variable_follows_the_running_release)
{
	struct psiplace_user_request r;
	struct psiplace_slurm_env e;

	cr_assert_eq(gather(ENV("PSI_TPP=2"), NULL, NULL, true, &r), 0);
	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SRUN, PSIPLACE_SLURM_RELEASE(23, 2), true, false, NULL, fake_getenv, NULL, NULL, &e);
	cr_assert_str_eq(slurm_env_line(&e), "SLURM_CPU_BIND=none SRUN_CPUS_PER_TASK=2");
	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SRUN, PSIPLACE_SLURM_RELEASE(23, 11), true, false, NULL, fake_getenv, NULL, NULL, &e);
	cr_assert_str_eq(slurm_env_line(&e), "SLURM_CPU_BIND=none SLURM_CPUS_PER_TASK=2");
	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SRUN, PSIPLACE_SLURM_RELEASE(26, 5), true, false, NULL, fake_getenv, NULL, NULL, &e);
	cr_assert_str_eq(slurm_env_line(&e), "SLURM_CPU_BIND=none SLURM_CPUS_PER_TASK=2");
	psiplace_user_request_free(&r);
}

Test(request_slurm_env, loop_nodes_first_balances_a_new_allocation)
{
	struct psiplace_user_request r;
	struct psiplace_slurm_env e;
	struct psiplace_slurm_cmdline sl = { 0, 5, 2, 0, false };

	cr_assert_eq(gather(ENV("PSI_LOOP_NODES_FIRST="), NULL, NULL, true, &r), 0);
	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SRUN, PSIPLACE_SLURM_RELEASE(22, 5), true, false, &sl, fake_getenv, NULL, NULL, &e);
	cr_assert_str_eq(slurm_env_line(&e), "SLURM_DISTRIBUTION=cyclic SLURM_NTASKS_PER_NODE=3 SLURM_CPU_BIND=none");
	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SBATCH, PSIPLACE_SLURM_RELEASE(22, 5), true, false, &sl, fake_getenv, NULL, NULL, &e);
	cr_assert_str_eq(slurm_env_line(&e), "SBATCH_DISTRIBUTION=cyclic");
	cr_assert_str_eq(e.notes[0], "loop-nodes-first: sbatch has no tasks-per-node variable; give --ntasks-per-node=3 for a balanced allocation");
	psiplace_user_request_free(&r);
}

Test(request_slurm_env, user_choice_wins)
{
	struct psiplace_user_request r;
	struct psiplace_slurm_env e;
	const char *const *env = ENV("PSI_LOOP_NODES_FIRST=", "PSI_TPP=2", "SLURM_DISTRIBUTION=block");

	cr_assert_eq(gather(env, NULL, NULL, true, &r), 0);
	struct psiplace_slurm_cmdline sl = { PSIPLACE_SLURM_CPUS_PER_TASK | PSIPLACE_SLURM_CPU_BIND, -1, -1, 0, false };

	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SRUN, PSIPLACE_SLURM_RELEASE(22, 5), true, false, &sl, fake_getenv, (void *)env, NULL, &e);
	cr_assert_str_eq(slurm_env_line(&e), "");
	cr_assert_eq(e.nnotes, 3);
	cr_assert_str_eq(e.notes[0], "loop-nodes-first: not setting SLURM_DISTRIBUTION=cyclic, you chose SLURM_DISTRIBUTION yourself");
	cr_assert_str_eq(e.notes[1], "psiplace binds the tasks: not setting SLURM_CPU_BIND=none, you chose --cpu-bind yourself");
	cr_assert_str_eq(e.notes[2], "PSI_TPP: not setting SRUN_CPUS_PER_TASK=2, you chose -c/--cpus-per-task yourself");
	psiplace_user_request_free(&r);
}

Test(request_slurm_env, salloc_immediate_under_psi_strict_and_hostfile)
{
	struct psiplace_user_request r;
	struct psiplace_slurm_env e;

	cr_assert_eq(gather(ENV("PSI_HOSTFILE=" PSIPLACE_TEST_DATA "/psi_hostfile"), NULL, NULL, true, &r), 0);
	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SALLOC, PSIPLACE_SLURM_RELEASE(22, 5), true, true, NULL, fake_getenv, NULL, "/tmp/hf", &e);
	cr_assert_str_eq(slurm_env_line(&e), "SALLOC_IMMEDIATE=1 SLURM_HOSTFILE=/tmp/hf");
	psiplace_user_request_free(&r);
	cr_assert_eq(gather(ENV("PSI_HOSTS=n1", "PSI_WAIT="), NULL, NULL, true, &r), 0);
	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SALLOC, PSIPLACE_SLURM_RELEASE(22, 5), true, true, NULL, fake_getenv, NULL, NULL, &e);
	cr_assert_str_eq(slurm_env_line(&e), "");
	psiplace_user_request_free(&r);
}

Test(ctld_request, node_choice_round_trips_through_the_job_env)
{
	struct psiplace_user_request r;
	struct psiplace_ctld_request j;
	const char *name[4];
	char *value[4], entries[4][256];
	const char *env[4];
	size_t n, i;

	cr_assert_eq(gather(ENV("PSI_HOSTS=n3 n1,n2 n1", "PSI_NODES_SORT=load"), NULL, NULL, true, &r), 0);
	cr_assert_eq(psiplace_ctld_request_env_of_request(&r, name, value, &n, &err), 0);
	cr_assert_eq(n, 3);
	cr_assert_str_eq(name[0], "PSIPLACE_PSI_HOSTS");
	cr_assert_str_eq(value[0], "n[3,1-2,1]");
	cr_assert_str_eq(value[1], "LOAD_1");
	for (i = 0; i < n; i++) {
		snprintf(entries[i], sizeof(entries[i]), "%s=%s", name[i], value[i]);
		env[i] = entries[i];
		free(value[i]);
	}
	cr_assert_eq(psiplace_ctld_request_from_env_nodes(env, n, &j, &err), 0);
	cr_assert(j.psi);
	cr_assert_eq(j.psi_sort, PSIPLACE_SORT_LOAD1);
	cr_assert_eq(j.psi_hosts.n, 4);
	{
		const char *names[4] = { "n0", "n1", "n2", "n3" };
		uint32_t *cand;
		size_t nc;
		cr_assert_eq(psiplace_ctld_request_candidates(&j, names, 4, NULL, &cand, &nc, &err), 0);
		cr_assert_eq(nc, 3);
		cr_assert_eq(cand[0], 3);
		cr_assert_eq(cand[1], 1);
		cr_assert_eq(cand[2], 2);
		free(cand);
		cr_assert_eq(psiplace_ctld_request_candidates(&j, names, 2, NULL, &cand, &nc, &err), -1);
		cr_assert_str_eq(err.text, "PSIPLACE_PSI_HOSTS: 'n3' is not a node of this cluster");
	}
	psiplace_ctld_request_free(&j);
	psiplace_user_request_free(&r);
}

/* slurmctld's finder (its name hash): host names are looked up through it
 * alone, names[] unused; a position it gives beyond the table is refused. */
static int finder_calls;

static long find_by_suffix(const char *name, void *arg)
{
	long n = *(const long *)arg;

	finder_calls++;
	if (name[0] != 'h' || !name[1])
		return -1;
	return strtol(name + 1, NULL, 10) % (n + 1); /* h<n> is position n; n+1 is past the end */
}

Test(ctld_request, hosts_through_the_callers_finder)
{
	const char *env[] = { "PSIPLACE_PSI=1", "PSIPLACE_PSI_HOSTS=h2,h0,h2" };
	long nnodes = 3;
	const struct psiplace_node_finder finder = { find_by_suffix, &nnodes };
	struct psiplace_ctld_request j;
	uint32_t *cand;
	size_t nc;

	cr_assert_eq(psiplace_ctld_request_from_env_nodes(env, 2, &j, &err), 0, "%s", err.text);
	finder_calls = 0;
	cr_assert_eq(psiplace_ctld_request_candidates(&j, NULL, 3, &finder, &cand, &nc, &err), 0,
		     "%s", err.text);
	cr_assert_eq(finder_calls, 3);
	cr_assert_eq(nc, 2);
	cr_assert_eq(cand[0], 2);
	cr_assert_eq(cand[1], 0);
	free(cand);
	nnodes = 2; /* h2 -> position 2 of a 2-node table: refused */
	cr_assert_eq(psiplace_ctld_request_candidates(&j, NULL, 2, &finder, &cand, &nc, &err), -1);
	cr_assert_str_eq(err.text, "PSIPLACE_PSI_HOSTS: 'h2' is not a node of this cluster");
	psiplace_ctld_request_free(&j);
}

Test(ctld_request, node_ids_beyond_the_cluster_are_errors)
{
	const char *env[] = { "PSIPLACE_PSI_NODES=0,5" };
	struct psiplace_ctld_request j;
	uint32_t *cand;
	size_t nc;
	const char *names[3] = { "a", "b", "c" };

	cr_assert_eq(psiplace_ctld_request_from_env_nodes(env, 1, &j, &err), 0);
	cr_assert_eq(psiplace_ctld_request_candidates(&j, names, 3, NULL, &cand, &nc, &err), -1);
	cr_assert_str_eq(err.text, "PSIPLACE_PSI_NODES: node id 5 is beyond the cluster's 3 nodes (0-2)");
	psiplace_ctld_request_free(&j);
	env[0] = "PSIPLACE_PSI_NODES_SORT=bogus";
	cr_assert_eq(psiplace_ctld_request_from_env_nodes(env, 1, &j, &err), -1);
	cr_assert_str_eq(err.text, "PSIPLACE_PSI_NODES_SORT: 'bogus' is not a sort mode; accepted: PROC, LOAD (LOAD1, LOAD_1), LOAD_5 (LOAD5), LOAD_15 (LOAD15), PROC+LOAD, NONE (case-insensitive)");
}

static struct psiplace_node node(const char *name, uint32_t index, uint32_t threads, uint32_t alloc)
{
	struct psiplace_node n;

	memset(&n, 0, sizeof(n));
	n.name = name;
	n.index = index;
	n.cpus = n.threads = threads;
	n.alloc_cpus = alloc;
	n.weight = 1;
	return n;
}

static const char *order_line(const uint32_t *o, size_t n)
{
	static char buf[128];
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < n; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%u", i ? " " : "", o[i]);
	return buf;
}

Test(ctld_request, psi_order_follows_the_allocation_precedence)
{
	struct psiplace_node nodes[4] = { node("n1", 0, 4, 4), node("n2", 1, 8, 0), node("n3", 2, 16, 8),
					  node("n4", 3, 12, 0) };
	struct psiplace_siteconf site;
	struct psiplace_ctld_request j;
	enum psiplace_policy pol;
	uint32_t *o;
	size_t n;
	const char *hosts[] = { "PSIPLACE_PSI_HOSTS=n3,n1,n4", "PSIPLACE_PSI_NODES_SORT=NONE" };
	const char *plain[] = { "PSIPLACE_PSI=1" };

	psiplace_siteconf_init(&site);
	/* PSI list order kept by NONE. */
	cr_assert_eq(psiplace_ctld_request_from_env_nodes(hosts, 2, &j, &err), 0);
	cr_assert_eq(psiplace_ctld_request_psi_order(&j, &site, nodes, 4, NULL, &o, &n, &pol, &err), PSIPLACE_PSI_NEXT_DONE);
	cr_assert_str_eq(order_line(o, n), "2 0 3");
	free(o);
	/* Without a sort mode: NodesSort unset = PROC over the set. */
	psiplace_ctld_request_free(&j);
	cr_assert_eq(psiplace_ctld_request_from_env_nodes(hosts, 1, &j, &err), 0);
	cr_assert_eq(psiplace_ctld_request_psi_order(&j, &site, nodes, 4, NULL, &o, &n, &pol, &err), PSIPLACE_PSI_NEXT_DONE);
	cr_assert_str_eq(order_line(o, n), "3 2 0"); /* 0/12, 8/16, 4/4 */
	free(o);
	/* The cluster's policy comes before NodesSort. */
	site.policy = PSIPLACE_POLICY_LASTAVAILABLE;
	cr_assert_eq(psiplace_ctld_request_psi_order(&j, &site, nodes, 4, NULL, &o, &n, &pol, &err), PSIPLACE_PSI_NEXT_POLICY);
	cr_assert_eq(pol, PSIPLACE_POLICY_LASTAVAILABLE);
	cr_assert_str_eq(order_line(o, n), "2 0 3");
	free(o);
	psiplace_ctld_request_free(&j);
	/* PSI node choice without a set (e.g. PSI_EXCLUSIVE): every node, NodesSort. */
	site.policy = PSIPLACE_POLICY_NONE;
	site.nodes_sort = strdup("proc");
	cr_assert_eq(psiplace_ctld_request_from_env_nodes(plain, 1, &j, &err), 0);
	cr_assert_eq(psiplace_ctld_request_psi_order(&j, &site, nodes, 4, NULL, &o, &n, &pol, &err), PSIPLACE_PSI_NEXT_DONE);
	cr_assert_str_eq(order_line(o, n), "3 1 2 0"); /* 0: 12 threads before 8 */
	free(o);
	psiplace_ctld_request_free(&j);
	/* No PSI at all: the cluster's policy or nothing. */
	cr_assert_eq(psiplace_ctld_request_from_env_nodes(NULL, 0, &j, &err), 0);
	cr_assert_eq(psiplace_ctld_request_psi_order(&j, &site, nodes, 4, NULL, &o, &n, &pol, &err), PSIPLACE_PSI_NEXT_NONE);
	cr_assert_null(o);
	psiplace_siteconf_free(&site);
}

Test(ctld_request, plain_parse_validates_lists_but_keeps_no_memory)
{
	const char *ok[] = { "PSIPLACE_PSI_NODES=0-3", "PSIPLACE_PSI_HOSTS=n[1-2]" };
	const char *bad[] = { "PSIPLACE_PSI_HOSTS=n[2-1]" };
	struct psiplace_ctld_request j;

	cr_assert_eq(psiplace_ctld_request_from_env(ok, 2, &j, &err), 0);
	cr_assert(j.psi);
	cr_assert_null(j.psi_node_ids);
	cr_assert_eq(j.psi_hosts.n, 0);
	cr_assert_eq(psiplace_ctld_request_from_env(bad, 1, &j, &err), -1);
	cr_assert_str_eq(err.text, "PSIPLACE_PSI_HOSTS: 'n[2-1]': range 2-1 runs backwards at character 3; accepted: host names and Slurm hostlist expressions like n[1-3,5],x7");
}

/* sbatch --psi-tpp=2 without -c: every step would fail; refused. */
Test(request, sbatch_tpp_without_cpus_per_task_is_refused)
{
	struct psiplace_user_request r;
	struct psiplace_slurm_cmdline sl = { 0, -1, -1, 0, false };

	cr_assert_eq(gather(NULL, ENV("sbatch", "-n2", "--psi-tpp=2", "job.sh"), NULL, true, &r), 0);
	cr_assert_eq(psiplace_user_request_check_cpus(&r, PSIPLACE_CLIENT_SBATCH, &sl, &err), -1);
	cr_assert_str_eq(err.text, "--psi-tpp: 2 CPUs per task need -c 2 (--cpus-per-task=2) or --exclusive on the sbatch command line or in the script; without them every step asks for more CPUs than the job has");
	cr_assert_eq(psiplace_user_request_check_cpus(&r, PSIPLACE_CLIENT_SRUN, &sl, &err), 0);
	sl.set = PSIPLACE_SLURM_CPUS_PER_TASK;
	cr_assert_eq(psiplace_user_request_check_cpus(&r, PSIPLACE_CLIENT_SBATCH, &sl, &err), 0);
	sl.set = PSIPLACE_SLURM_EXCLUSIVE;
	cr_assert_eq(psiplace_user_request_check_cpus(&r, PSIPLACE_CLIENT_SALLOC, &sl, &err), 0);
	psiplace_user_request_free(&r);
	cr_assert_eq(gather(ENV("PSI_TPP=3"), ENV("salloc", "-n2"), NULL, true, &r), 0);
	cr_assert_eq(psiplace_user_request_check_cpus(&r, PSIPLACE_CLIENT_SALLOC, NULL, &err), -1);
	cr_assert(!strncmp(err.text, "PSI_TPP: 3 CPUs per task need -c 3", 34));
	psiplace_user_request_free(&r);
}
