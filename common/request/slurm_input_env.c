/* The request in Slurm's own input variables, set in slurm_spank_init
 * before srun/sbatch/salloc read their environment. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "psiplace/textparse.h"
#include "psiplace/request_launch.h"
#include "psiplace/user_request.h"

struct tr {
	struct psiplace_slurm_env *out;
	unsigned slurm_set;
	psiplace_getenv_fn get;
	void *arg;
};

static void tr_note(struct tr *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tr_note(struct tr *t, const char *fmt, ...)
{
	va_list ap;

	if (t->out->nnotes >= PSIPLACE_REQUEST_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(t->out->notes[t->out->nnotes++], PSIPLACE_ERRLEN, fmt, ap);
	va_end(ap);
}

/* Set name=value unless the user chose it already (variable or option). */
static void tr_set(struct tr *t, const char *why, const char *name, const char *value,
		   unsigned option_flag, const char *option)
{
	struct psiplace_slurm_env *o = t->out;

	if ((t->slurm_set & option_flag) || (t->get && t->get(name, t->arg))) {
		tr_note(t, "%s: not setting %s=%s, you chose %s yourself", why, name, value,
			(t->slurm_set & option_flag) ? option : name);
		return;
	}
	if (o->n >= PSIPLACE_SLURM_ENV_MAX)
		return;
	snprintf(o->var[o->n].name, sizeof(o->var[o->n].name), "%s", name);
	snprintf(o->var[o->n].value, sizeof(o->var[o->n].value), "%s", value);
	o->n++;
}

static const char *client_name(enum psiplace_client c)
{
	return c == PSIPLACE_CLIENT_SRUN ? "srun" : c == PSIPLACE_CLIENT_SBATCH ? "sbatch" : "salloc";
}

static const char *pick(enum psiplace_client c, const char *srun, const char *sbatch,
			const char *salloc)
{
	return c == PSIPLACE_CLIENT_SRUN ? srun : c == PSIPLACE_CLIENT_SBATCH ? sbatch : salloc;
}

/* Cyclic over a packed allocation does not alternate nodes (cons_tres
 * fills the first node): ask for the same number of tasks per node. */
static void balance(struct tr *t, enum psiplace_client client, const struct psiplace_slurm_cmdline *sl)
{
	long n = sl ? sl->ntasks : -1, N = sl ? sl->nnodes : -1;
	const char *v;
	char num[24];
	uint64_t u;

	/* Slurm's own variables: a value that is not a count is ignored */
	if (n < 0 && t->get && (v = t->get("SLURM_NTASKS", t->arg)) &&
	    psiplace_parse_u64(v, strlen(v), INT32_MAX, &u))
		n = (long)u;
	if (N < 0 && t->get && (v = t->get("SLURM_JOB_NUM_NODES", t->arg)) &&
	    psiplace_parse_u64(v, strlen(v), INT32_MAX, &u))
		N = (long)u;
	if (n <= 0 || N <= 1)
		return;
	snprintf(num, sizeof(num), "%ld", (n + N - 1) / N);
	if (client == PSIPLACE_CLIENT_SRUN)
		tr_set(t, "loop-nodes-first", "SLURM_NTASKS_PER_NODE", num, PSIPLACE_SLURM_NTASKS_PER_NODE,
		       "--ntasks-per-node");
	else if (!(t->slurm_set & PSIPLACE_SLURM_NTASKS_PER_NODE))
		tr_note(t, "loop-nodes-first: %s has no tasks-per-node variable; give --ntasks-per-node=%s for a balanced allocation",
			client_name(client), num);
}

/* Ranks are Slurm's task ids: ask for the distribution that gives them
 * LAMA's node order (checked again at launch). */
static void lama_distribution(struct tr *t, const struct psiplace_user_request *r,
			      enum psiplace_client client)
{
	enum psiplace_lama_dist d;
	const char *var = pick(client, "SLURM_DISTRIBUTION", "SBATCH_DISTRIBUTION", NULL);
	char why[64];
	psiplace_error_t err;

	if (psiplace_lama_request_dist(r, &d, &err) < 0)
		return; /* the caller reported the bad string */
	snprintf(why, sizeof(why), "LAMA's node order (%s)", r->place_why);
	if (var)
		tr_set(t, why, var, psiplace_lama_dist_name(d), PSIPLACE_SLURM_DISTRIBUTION,
		       "-m/--distribution");
	else
		tr_note(t, "%s: %s has no distribution variable; give the steps -m %s", why,
			client_name(client), psiplace_lama_dist_name(d));
}

const char *psiplace_srun_cpus_per_task_var(unsigned slurm_release)
{
	return slurm_release >= PSIPLACE_SLURM_RELEASE(23, 11) ? "SLURM_CPUS_PER_TASK"
							      : "SRUN_CPUS_PER_TASK";
}

void psiplace_user_request_slurm_env(const struct psiplace_user_request *r, enum psiplace_client client,
				unsigned slurm_release, bool new_job, bool psi_strict, const struct psiplace_slurm_cmdline *slurm,
				psiplace_getenv_fn get, void *arg, const char *hostfile_path,
				struct psiplace_slurm_env *out)
{
	struct tr t = { out, slurm ? slurm->set : 0, get, arg };
	const char *var;
	char num[16];

	memset(out, 0, sizeof(*out));
	if (r->place && r->loop_nodes_first && !r->lama) {
		if ((var = pick(client, "SLURM_DISTRIBUTION", "SBATCH_DISTRIBUTION", NULL)))
			tr_set(&t, "loop-nodes-first", var, "cyclic", PSIPLACE_SLURM_DISTRIBUTION,
			       "-m/--distribution");
		else
			tr_note(&t, "loop-nodes-first: %s has no distribution variable; it applies to the steps",
				client_name(client));
		if (new_job)
			balance(&t, client, slurm);
	}
	if (r->place && r->lama)
		lama_distribution(&t, r, client);
	/* psiplace binds (or, asked not to, leaves unbound): Slurm's own
	 * binding would only be replaced, and fails on nodes whose declared
	 * CPUs are not the machine's. */
	if (r->place && client == PSIPLACE_CLIENT_SRUN)
		tr_set(&t, "psiplace binds the tasks", "SLURM_CPU_BIND", "none", PSIPLACE_SLURM_CPU_BIND,
		       "--cpu-bind");
	/* 22.05's srun turns --exclusive into an exact step, which then
	 * refuses more tasks than CPUs: overbooking wins there. */
	/* From 23.02 (seen on 24.11 and 26.05) cons_tres refuses a whole-node
	 * job that overcommits more tasks than a node has CPUs: the job
	 * would wait forever, so overbooking wins there too. */
	if (r->exclusive && new_job && r->overbook && client == PSIPLACE_CLIENT_SRUN)
		tr_note(&t, "overbook: srun cannot combine --exclusive with --overcommit; the job is not exclusive (use sbatch or salloc for an exclusive overbooked job)");
	else if (r->exclusive && new_job && r->overbook &&
		 slurm_release >= PSIPLACE_SLURM_RELEASE(23, 2))
		tr_note(&t, "overbook: Slurm %u.%02u never starts an exclusive job with more tasks than a node's CPUs; the job is not exclusive (for whole nodes: -N and --exclusive, and --psi-overbook on the steps)",
			slurm_release >> 8, slurm_release & 0xff);
	else if (r->exclusive && new_job)
		tr_set(&t, "exclusive", pick(client, "SLURM_EXCLUSIVE", "SBATCH_EXCLUSIVE", "SALLOC_EXCLUSIVE"),
		       "exclusive", PSIPLACE_SLURM_EXCLUSIVE, "--exclusive");
	if (r->overbook)
		tr_set(&t, "overbook", pick(client, "SLURM_OVERCOMMIT", "SBATCH_OVERCOMMIT", "SALLOC_OVERCOMMIT"),
		       "1", PSIPLACE_SLURM_OVERCOMMIT, "-O/--overcommit");
	if (r->place && !r->lama && r->tpp > 1) {
		snprintf(num, sizeof(num), "%u", r->tpp);
		if (client == PSIPLACE_CLIENT_SRUN)
			tr_set(&t, r->tpp_from, psiplace_srun_cpus_per_task_var(slurm_release), num, PSIPLACE_SLURM_CPUS_PER_TASK,
			       "-c/--cpus-per-task");
	}
	if (psi_strict && new_job && !r->wait && (r->psi_node_choice || r->place)) {
		if (client == PSIPLACE_CLIENT_SALLOC)
			tr_set(&t, "PsiStrict=yes without PSI_WAIT", "SALLOC_IMMEDIATE", "1",
			       PSIPLACE_SLURM_IMMEDIATE, "-I/--immediate");
		else
			tr_note(&t, "PsiStrict=yes without PSI_WAIT: %s has no immediate variable; give --immediate%s",
				client_name(client),
				client == PSIPLACE_CLIENT_SBATCH ? " to salloc or srun instead" : "");
	}
	if (r->nodeset == PSIPLACE_NODESET_HOSTFILE && hostfile_path)
		tr_set(&t, r->nodeset_from, "SLURM_HOSTFILE", hostfile_path, PSIPLACE_SLURM_NODELIST,
		       "-w/--nodelist or -F/--nodefile");
}

int psiplace_user_request_check_cpus(const struct psiplace_user_request *r,
				     enum psiplace_client client,
				     const struct psiplace_slurm_cmdline *slurm, psiplace_getenv_fn get,
				     void *arg, psiplace_error_t *err)
{
	const char *what = r->tpp_from ? r->tpp_from : "--psi-tpp";
	const char *excl = get ? get(pick(client, "SLURM_EXCLUSIVE", "SBATCH_EXCLUSIVE",
					  "SALLOC_EXCLUSIVE"), arg) : NULL;
	long c = slurm ? slurm->cpus_per_task : -1;

	if (client == PSIPLACE_CLIENT_SRUN || !r->place || r->lama || r->tpp <= 1)
		return 0;
	/* whole nodes give the steps every CPU ("oversubscribe" shares them) */
	if (r->exclusive || (slurm && (slurm->set & PSIPLACE_SLURM_EXCLUSIVE)) ||
	    (excl && *excl && strcasecmp(excl, "oversubscribe")))
		return 0;
	if (slurm && (slurm->set & PSIPLACE_SLURM_CPUS_PER_TASK)) {
		if (c <= 0 || c >= (long)r->tpp)
			return 0; /* enough, or a value Slurm itself judges */
		return psiplace_seterr(err, "%s: %u CPUs per task need -c %u (--cpus-per-task=%u) or more, not -c %ld; with it every step asks for more CPUs than the job has",
				       what, r->tpp, r->tpp, r->tpp, c);
	}
	return psiplace_seterr(err, "%s: %u CPUs per task need -c %u (--cpus-per-task=%u) or --exclusive on the %s command line or in the script; without them every step asks for more CPUs than the job has",
			       what, r->tpp, r->tpp, r->tpp, client_name(client));
}

/* --het-group=LIST (or its old name --pack-group, or a prefix getopt
 * accepts: --het, --pack): a step in a heterogeneous job, which mpi/pmix
 * names after the job's first component even when LIST names one. */
static bool het_group_option(const char *arg)
{
	static const char *const names[] = { "het-group", "pack-group" };
	static const size_t shortest[] = { 3, 4 }; /* "--he" is --help's too */
	const char *eq;
	size_t i, len;

	if (strncmp(arg, "--", 2))
		return false;
	arg += 2;
	eq = strchr(arg, '=');
	len = eq ? (size_t)(eq - arg) : strlen(arg);
	for (i = 0; i < 2; i++) {
		if (len >= shortest[i] && len <= strlen(names[i]) && !strncmp(arg, names[i], len))
			return true;
	}
	return false;
}

bool psiplace_cmdline_is_het(int argc, char *const *argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (argv[i] && (!strcmp(argv[i], ":") ||
				het_group_option(argv[i])))
			return true;
	return false;
}

int psiplace_user_request_check_het(const struct psiplace_user_request *r, bool het,
				    psiplace_error_t *err)
{
	const char *what = r->place_why ? r->place_why : r->nodeset_from ? r->nodeset_from
			   : r->sort_from ? r->sort_from : NULL;

	if (!het)
		return 0;
	if (!what && r->policy != PSIPLACE_POLICY_NONE)
		what = "--psi-alloc-policy";
	if (!what && r->priority)
		what = "--psi-alloc-priority";
	if (!what && (r->psets || r->psi_node_choice || r->place))
		what = r->psets ? "--psi-pset" : "PSI node choice";
	if (!what)
		return 0;
	return psiplace_seterr(err, "%s: psiplace does not support heterogeneous jobs or steps (components separated by ':'); run each component as a job or step of its own, or drop the --psi-* options and PSI_* variables",
			       what);
}
