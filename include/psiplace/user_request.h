/* psiplace — the validated request of a job or step, gathered from
 * --psi-* options (the client's own command line, or inherited from an
 * enclosing sbatch/salloc), PSI_* variables, OMPI_* variables and the
 * plugstack.conf defaults, in that order of precedence.
 *
 * One parser for the SPANK plugin (local, allocator and remote context)
 * and the CLI.  The LAMA strings are only collected here; include
 * psiplace/lama.h to turn them into LAMA options. */
#ifndef PSIPLACE_USER_REQUEST_H
#define PSIPLACE_USER_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "psiplace/error.h"
#include "psiplace/psets.h"
#include "psiplace/hostnames.h"
#include "psiplace/options.h"
#include "psiplace/policy.h"
#include "psiplace/psi_values.h"
#include "psiplace/plugstack_line.h"
#include "psiplace/readfile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Option values as given (flags: ""), owned. */
struct psiplace_opts {
	char *val[PSIPLACE_OPT_COUNT];
};

void psiplace_opts_init(struct psiplace_opts *o);
void psiplace_opts_free(struct psiplace_opts *o);
/* Set (replacing) one option's value; value NULL for a flag. */
int psiplace_opts_set(struct psiplace_opts *o, enum psiplace_opt opt, const char *value);
/* Give one occurrence of an option: --psi-pset, the one repeatable
 * option, joins its values with ';' ("a:0;b:1"); the others replace. */
int psiplace_opts_add(struct psiplace_opts *o, enum psiplace_opt opt, const char *value);
/* srun passes a repeated --psi-pset joined to slurmstepd in this variable
 * (Slurm forwards an option's last value only). */
#define PSIPLACE_ENV_PSETS "PSIPLACE_PSETS"
/* Copy every option of `from` that `into` lacks. */
int psiplace_opts_merge_missing(struct psiplace_opts *into, const struct psiplace_opts *from);

/* Slurm options a command line sets explicitly (they win over psiplace's
 * translation). */
enum {
	PSIPLACE_SLURM_DISTRIBUTION = 1 << 0,  /* -m, --distribution */
	PSIPLACE_SLURM_CPUS_PER_TASK = 1 << 1, /* -c, --cpus-per-task */
	PSIPLACE_SLURM_EXCLUSIVE = 1 << 2,     /* --exclusive */
	PSIPLACE_SLURM_OVERCOMMIT = 1 << 3,    /* -O, --overcommit */
	PSIPLACE_SLURM_IMMEDIATE = 1 << 4,     /* -I, --immediate */
	PSIPLACE_SLURM_NODELIST = 1 << 5,      /* -w, --nodelist, -F, --nodefile */
	PSIPLACE_SLURM_CPU_BIND = 1 << 6,      /* --cpu-bind */
	PSIPLACE_SLURM_NTASKS_PER_NODE = 1 << 7, /* --ntasks-per-node */
	/* --gres (not "none"), -G/--gpus, --gpus-per-node/-socket/-task,
	 * --tres-per-task naming a gres/ */
	PSIPLACE_SLURM_GRES = 1 << 8,
};

/* What a client's command line says to Slurm itself. */
struct psiplace_slurm_cmdline {
	unsigned set;  /* PSIPLACE_SLURM_* given explicitly */
	long ntasks;   /* -n/--ntasks value; -1 not given or not a number */
	long nnodes;   /* -N/--nodes value (one number); -1 otherwise */
	int operand;   /* index of the first operand (command, batch script); argc if none */
	bool wrap;     /* sbatch --wrap: no script file */
	long cpus_per_task; /* -c/--cpus-per-task value; -1 (or 0) not given or not a number */
	char gres[96];      /* the first GRES option as written ("--gpus=1"); "" none */
	char partition[256]; /* -p/--partition value; "" not given (or longer) */
};

/* Split a NUL-separated command line (/proc/self/cmdline) into a
 * NULL-terminated vector (malloc'd; free with psiplace_argv_free). */
int psiplace_cmdline_split(const char *buf, size_t len, int *argc, char ***argv,
			   psiplace_error_t *err);

/* Scan a client's command line (argv[0] = program) the way getopt_long
 * would up to the first operand (the command or batch script): --psi-*
 * options go to opts, the Slurm options psiplace's translation must
 * respect to *slurm.
 * Unique prefixes of long options are not recognised (write them out).
 * -1 with err for a --psi-* option missing its value or a flag given
 * one. */
int psiplace_cmdline_scan(int argc, char *const argv[], struct psiplace_opts *opts,
			  struct psiplace_slurm_cmdline *slurm, psiplace_error_t *err);

/* The #SBATCH directives of a batch script (text[0..len)): the leading
 * comment block, as sbatch reads it (words split at blanks, quotes
 * removed).  --psi-* options go to opts (a later directive replaces an
 * earlier one), Slurm options psiplace translates are added to
 * slurm->set.  Bounded: at most PSIPLACE_SCRIPT_MAX bytes are looked at. */
#define PSIPLACE_SCRIPT_MAX (1 << 20)
int psiplace_batch_script_scan(const char *text, size_t len, struct psiplace_opts *opts,
			       struct psiplace_slurm_cmdline *slurm, psiplace_error_t *err);

/* Options inherited from an enclosing sbatch/salloc: SPANK exports them
 * as SLURM_SPANK__SLURM_SPANK_OPTION_psiplace_<name> (job env) and
 * _SLURM_SPANK_OPTION_psiplace_<name> (the allocation's own env), the
 * name with non-alphanumerics as '_'.  A step's own setting wins: an
 * inherited option whose variable is set (PSI_TPP=1 srun in a job given
 * --psi-tpp=2) is not taken, nor one o already holds. */
int psiplace_opts_from_inherited(psiplace_getenv_fn get, void *arg, struct psiplace_opts *o);

/* The two inherited names of option o (see above). */
void psiplace_opt_inherited_names(enum psiplace_opt o, char names[2][128]);

/* Does the step's environment set one of option o's variables (so that an
 * inherited o gives way)? */
bool psiplace_opt_step_overrides(enum psiplace_opt o, psiplace_getenv_fn get, void *arg);

enum psiplace_nodeset {
	PSIPLACE_NODESET_NONE = 0,
	PSIPLACE_NODESET_IDS,      /* PSI_NODES */
	PSIPLACE_NODESET_HOSTS,    /* PSI_HOSTS */
	PSIPLACE_NODESET_HOSTFILE, /* PSI_HOSTFILE: entries are slots */
};

/* The raw LAMA strings and where each came from (option or OMPI_MCA_*
 * variable); NULL when not given.  psiplace/lama.h parses them. */
struct psiplace_lama_strings {
	const char *map_by, *bind_to, *map, *bind, *mppr, *order;
	const char *map_by_from, *bind_to_from, *map_from, *bind_from, *mppr_from, *order_from;
	bool oversubscribe;
};

#define PSIPLACE_REQUEST_NOTES 8

struct psiplace_user_request {
	/* Node choice (slurmctld). */
	enum psiplace_policy policy;    /* --psi-alloc-policy; NONE: not given */
	const char *priority;           /* --psi-alloc-priority (implies PRIORITY) */
	enum psiplace_nodeset nodeset;
	const char *nodeset_from;       /* "PSI_NODES", "--psi-hosts", ... */
	uint32_t *node_ids;
	size_t nnode_ids;
	struct psiplace_names hosts;    /* PSI_HOSTS names or hostfile slots */
	enum psiplace_nodes_sort sort;  /* UNSET: the site's NodesSort */
	const char *sort_from;
	bool psi_node_choice;           /* any PSI node-choice input given */
	bool exclusive, overbook, wait;
	/* --psi-malleable=MIN-MAX (node counts); mall_max 0: not malleable */
	uint32_t mall_min, mall_max;
	const char *malleable_from;

	/* Task placement (slurmstepd). */
	bool place;                     /* psiplace places this step's tasks */
	const char *place_why;          /* what asked for it */
	bool loop_nodes_first;
	unsigned tpp;                   /* >= 1 */
	const char *tpp_from;           /* NULL: default 1 */
	unsigned *cpumap;               /* slot -> OS CPU; NULL: topology order */
	size_t ncpumap;
	const char *cpumap_from;
	bool pin, bindmem;              /* default on */
	bool lama;                      /* some LAMA option or variable given */
	struct psiplace_lama_strings lama_strings;
	bool verbose, dry_run;

	/* PMIx process sets (slurmstepd, srun --mpi=pmix*). */
	bool psets;                     /* --psi-pset or --psi-pset-levels given */
	struct psiplace_psets user_psets; /* the user's sets, ranks unchecked */
	unsigned pset_levels;           /* PSIPLACE_PSET_LEVEL_* (node at least) */

	/* Lines for --psi-verbose ("PSI_HOSTS ignored: PSI_NODES is defined")
	 * and warnings the user sees always (OMP_NUM_THREADS). */
	char notes[PSIPLACE_REQUEST_NOTES][PSIPLACE_ERRLEN];
	unsigned nnotes;
	char warning[PSIPLACE_ERRLEN];

	struct psiplace_opts own; /* storage for the strings above */
};

struct psiplace_user_request_src {
	psiplace_getenv_fn getenv;      /* the variables of the job or step */
	void *env_arg;
	const struct psiplace_opts *opts; /* options, already merged (may be NULL) */
	const struct psiplace_siteconf *site; /* may be NULL: defaults */
	/* Parse node-choice inputs (srun/sbatch/salloc); PSI_HOSTFILE is then
	 * read here, with the caller's credentials.  False in slurmstepd: they
	 * were validated at submission and only their presence counts (user
	 * files are never opened there). */
	bool node_choice;
};

void psiplace_user_request_init(struct psiplace_user_request *r);
void psiplace_user_request_free(struct psiplace_user_request *r);

/* Build the validated request.  -1 with one error line (naming the
 * option or variable, the value and what is accepted) on bad input or
 * a forbidden combination; r is then freed and re-initialised. */
int psiplace_user_request_gather(const struct psiplace_user_request_src *src, struct psiplace_user_request *r,
			    psiplace_error_t *err);

/* Validate one option value on its own (the SPANK option callbacks). */
int psiplace_user_request_check_option(enum psiplace_opt o, const char *value,
				  const struct psiplace_siteconf *site, psiplace_error_t *err);

/* Which client is asking (SPANK local context = srun, allocator = sbatch
 * or salloc). */
enum psiplace_client { PSIPLACE_CLIENT_SRUN, PSIPLACE_CLIENT_SBATCH, PSIPLACE_CLIENT_SALLOC };

#define PSIPLACE_SLURM_ENV_MAX 8
struct psiplace_slurm_env {
	unsigned n;
	struct {
		char name[32];
		char value[PSIPLACE_ERRLEN];
	} var[PSIPLACE_SLURM_ENV_MAX];
	char notes[PSIPLACE_REQUEST_NOTES][PSIPLACE_ERRLEN]; /* what was left to the user */
	unsigned nnotes;
};

/* A Slurm release as (major << 8 | minor), e.g. PSIPLACE_SLURM_RELEASE(23, 11). */
#define PSIPLACE_SLURM_RELEASE(major, minor) (((major) << 8) | (minor))

/* sbatch and salloc have no cpus-per-task input variable: a job whose
 * tasks psiplace places on more than one CPU each needs -c N with N at
 * least the CPUs per task (or whole nodes: --exclusive, or the client's
 * SBATCH_EXCLUSIVE/SALLOC_EXCLUSIVE read through get) on their command
 * line or in the script, else each step asks for more CPUs than the job
 * has.  -1 with one line naming the option and the fix. */
int psiplace_user_request_check_cpus(const struct psiplace_user_request *r,
				     enum psiplace_client client,
				     const struct psiplace_slurm_cmdline *slurm, psiplace_getenv_fn get,
				     void *arg, psiplace_error_t *err);

/* --psi-malleable is for a new job (sbatch, salloc, srun outside a job),
 * which starts at -N/--nodes (one number, given) within MIN-MAX and asks
 * for no GRES (slurm->set & PSIPLACE_SLURM_GRES: cons_tres's job expand
 * refuses a job with any); a step (new_job false) inherits it from its
 * job and it is not looked at.  -1 with one line naming the option, the
 * value and what is accepted.  MAX against the partition's limits:
 * psiplace_user_request_check_malleable_limit. */
int psiplace_user_request_check_malleable(const struct psiplace_user_request *r, bool new_job,
					  const struct psiplace_slurm_cmdline *slurm,
					  psiplace_error_t *err);

/* The client's GRES variables (SBATCH_GRES, SALLOC_GPUS, SLURM_GPUS_PER_TASK,
 * ...: what sbatch, salloc and srun read as --gres, --gpus...), when the
 * command line and the script name no GRES: they set PSIPLACE_SLURM_GRES
 * and sl->gres ("SBATCH_GPUS=1"). */
void psiplace_slurm_cmdline_env_gres(struct psiplace_slurm_cmdline *sl, enum psiplace_client client,
				     psiplace_getenv_fn get, void *arg);

/* A partition as slurmctld describes it (partition_info_t's fields). */
struct psiplace_partition_size {
	const char *name;
	uint32_t max_nodes;   /* MaxNodes; 0 or UINT32_MAX: unlimited */
	uint32_t total_nodes; /* its nodes */
	bool is_default;
};

/* The most nodes a job submitted to `want` (a comma list of partitions;
 * NULL or "" the default partition) can ever be given: for each partition
 * named, min(MaxNodes, its node count); the largest over the list (the job
 * runs in one of them).  *which: the partition that gives it.  0 when none
 * of them is known (slurmctld refuses an unknown partition itself). */
uint32_t psiplace_partition_node_limit(const char *want, const struct psiplace_partition_size *p,
				       size_t n, const char **which);

/* MAX of a new job's --psi-malleable within `limit` nodes (0: not known,
 * not checked), the message naming the partition `part`.  -1 with one line. */
int psiplace_user_request_check_malleable_limit(const struct psiplace_user_request *r, bool new_job,
						uint32_t limit, const char *part,
						psiplace_error_t *err);

/* A heterogeneous job or step: srun/sbatch/salloc ... : ... (Slurm
 * splits the components at a lone ':' argument), or srun with
 * --het-group (--pack-group) in a heterogeneous job. */
bool psiplace_cmdline_is_het(int argc, char *const *argv);

/* psiplace places one job or step with one set of options: for a
 * heterogeneous one any --psi-* option or PSI_* variable in effect is
 * refused (-1, one line saying so). */
int psiplace_user_request_check_het(const struct psiplace_user_request *r, bool het,
				    psiplace_error_t *err);

/* srun's cpus-per-task input variable in that release: SRUN_CPUS_PER_TASK up
 * to 23.02, SLURM_CPUS_PER_TASK from 23.11 (which no longer reads the other). */
const char *psiplace_srun_cpus_per_task_var(unsigned slurm_release);

/* Slurm input variables that give the request its effect where Slurm has
 * the feature (cyclic distribution with a balanced allocation, exclusive,
 * overcommit, cpus per task, immediate, the hostfile layout, and no
 * binding by Slurm where psiplace binds).  A variable the user set, or
 * the matching option on the command line (slurm), wins; the counts in
 * slurm (or SLURM_NTASKS/SLURM_JOB_NUM_NODES) size the balanced allocation.
 * new_job: the client creates an allocation (srun outside a job, sbatch,
 * salloc).  slurm_release: the running Slurm (PSIPLACE_SLURM_RELEASE), which
 * decides the variable names.  psi_strict: plugstack.conf PsiStrict=yes.
 * hostfile_path: a file holding the hostfile slots, one name a
 * line, written by the caller when r->nodeset is HOSTFILE. */
void psiplace_user_request_slurm_env(const struct psiplace_user_request *r, enum psiplace_client client,
				unsigned slurm_release, bool new_job, bool psi_strict, const struct psiplace_slurm_cmdline *slurm, psiplace_getenv_fn get, void *arg,
				const char *hostfile_path, struct psiplace_slurm_env *out);

#ifdef __cplusplus
}
#endif
#endif
