/* The --psi-* option values and the client command-line scan.  srun reads
 * its environment before SPANK option callbacks run, so slurm_spank_init
 * finds the options itself in /proc/self/cmdline. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "psiplace/textparse.h"
#include "psiplace/error.h"
#include "psiplace/user_request.h"
#include "psiplace/plugstack_line.h"

void psiplace_opts_init(struct psiplace_opts *o)
{
	memset(o, 0, sizeof(*o));
}

void psiplace_opts_free(struct psiplace_opts *o)
{
	int i;

	for (i = 0; i < PSIPLACE_OPT_COUNT; i++)
		free(o->val[i]);
	psiplace_opts_init(o);
}

int psiplace_opts_set(struct psiplace_opts *o, enum psiplace_opt opt, const char *value)
{
	char *v;

	if ((unsigned)opt >= PSIPLACE_OPT_COUNT)
		return -1;
	if (!(v = strndup(value ? value : "", PSIPLACE_PSI_VALUE_MAX)))
		return -1;
	free(o->val[opt]);
	o->val[opt] = v;
	return 0;
}

int psiplace_opts_add(struct psiplace_opts *o, enum psiplace_opt opt, const char *value)
{
	size_t a, b;
	char *v;

	if (opt != PSIPLACE_OPT_PSET || !o->val[opt] || !value)
		return psiplace_opts_set(o, opt, value);
	a = strlen(o->val[opt]);
	b = strnlen(value, PSIPLACE_PSI_VALUE_MAX);
	if (a + 1 + b > PSIPLACE_PSI_VALUE_MAX || !(v = malloc(a + b + 2)))
		return -1;
	memcpy(v, o->val[opt], a);
	v[a] = ';';
	memcpy(v + a + 1, value, b);
	v[a + 1 + b] = '\0';
	free(o->val[opt]);
	o->val[opt] = v;
	return 0;
}

int psiplace_opts_merge_missing(struct psiplace_opts *into, const struct psiplace_opts *from)
{
	int i;

	for (i = 0; i < PSIPLACE_OPT_COUNT; i++)
		if (!into->val[i] && from->val[i] && psiplace_opts_set(into, i, from->val[i]) < 0)
			return -1;
	return 0;
}

int psiplace_cmdline_split(const char *buf, size_t len, int *argc, char ***argv,
			   psiplace_error_t *err)
{
	size_t i, n = 0, k = 0, start = 0;
	char **v;

	for (i = 0; i < len; i++)
		if (!buf[i])
			n++;
	if (len && buf[len - 1])
		n++;
	if (n > 1 << 20 || !(v = calloc(n + 1, sizeof(*v))))
		return psiplace_seterr(err, "command line: out of memory");
	for (i = 0; i <= len && k < n; i++) {
		if (i < len && buf[i])
			continue;
		if (!(v[k++] = strndup(buf + start, i - start))) {
			psiplace_argv_free(v);
			return psiplace_seterr(err, "command line: out of memory");
		}
		start = i + 1;
	}
	*argc = (int)k;
	*argv = v;
	return 0;
}

/* Long options of srun/sbatch/salloc (Slurm 22.05 slurm_opt.c; tres-bind
 * and tres-per-task from later releases) that take a required value:
 * their value may be the next word. */
static const char *const slurm_long_with_arg[] = {
	"accel-bind", "account", "acctg-freq", "argv", "array", "batch", "bb", "bbf",
	"bcast-exclude", "begin", "chdir", "cluster", "cluster-constraint", "clusters",
	"comment", "constraint", "container", "context", "core-spec", "cores-per-socket",
	"cpu-bind", "cpu-freq", "cpu_bind", "cpus-per-gpu", "cpus-per-task", "deadline",
	"delay-boot", "dependency", "distribution", "environment", "epilog", "error",
	"exclude", "export", "export-file", "extra-node-info", "gid", "gpu-bind", "gpu-freq",
	"gpus", "gpus-per-node", "gpus-per-socket", "gpus-per-task", "gres", "gres-flags",
	"het-group", "hint", "input", "job-name", "jobid", "kill-on-invalid-dep", "licenses",
	"mail-type", "mail-user", "mcs-label", "mem", "mem-bind", "mem-per-cpu", "mem-per-gpu",
	"mincpus", "mpi", "msg-timeout", "network", "nodefile", "nodelist", "nodes", "ntasks",
	"ntasks-per-core", "ntasks-per-gpu", "ntasks-per-node", "ntasks-per-socket",
	"ntasks-per-tres", "open-mode", "output", "pack-group", "partition", "power", "prefer",
	"priority", "profile", "prolog", "qos", "relative", "reservation", "signal",
	"slurmd-debug", "sockets-per-node", "switches", "task-epilog", "task-prolog",
	"tasks-per-node", "thread-spec", "threads", "threads-per-core", "time", "time-min",
	"tmp", "tres-bind", "tres-per-task", "uid", "wait", "wait-all-nodes", "wckey", "wrap", NULL,
};
static const char slurm_short_with_arg[] = "ABCDFGJLMNSTWabcdeimnopqrtwx";

static unsigned slurm_long_flag(const char *name, size_t len)
{
	static const struct {
		const char *name;
		unsigned flag;
	} m[] = {
		{ "distribution", PSIPLACE_SLURM_DISTRIBUTION },
		{ "cpus-per-task", PSIPLACE_SLURM_CPUS_PER_TASK },
		{ "exclusive", PSIPLACE_SLURM_EXCLUSIVE },
		{ "overcommit", PSIPLACE_SLURM_OVERCOMMIT },
		{ "immediate", PSIPLACE_SLURM_IMMEDIATE },
		{ "nodelist", PSIPLACE_SLURM_NODELIST },
		{ "nodefile", PSIPLACE_SLURM_NODELIST },
		{ "cpu-bind", PSIPLACE_SLURM_CPU_BIND },
		{ "cpu_bind", PSIPLACE_SLURM_CPU_BIND },
		{ "ntasks-per-node", PSIPLACE_SLURM_NTASKS_PER_NODE },
	};
	size_t i;

	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (strlen(m[i].name) == len && !strncmp(name, m[i].name, len))
			return m[i].flag;
	return 0;
}

static unsigned slurm_short_flag(char c)
{
	switch (c) {
	case 'm': return PSIPLACE_SLURM_DISTRIBUTION;
	case 'c': return PSIPLACE_SLURM_CPUS_PER_TASK;
	case 'O': return PSIPLACE_SLURM_OVERCOMMIT;
	case 'I': return PSIPLACE_SLURM_IMMEDIATE;
	case 'w': case 'F': return PSIPLACE_SLURM_NODELIST;
	default: return 0;
	}
}

static bool long_takes_arg(const char *name, size_t len)
{
	const char *const *p;

	for (p = slurm_long_with_arg; *p; p++)
		if (strlen(*p) == len && !strncmp(name, *p, len))
			return true;
	return false;
}

/* One --psi-* word at argv[*i]; may consume the next word as its value. */
static int scan_psi(int argc, char *const argv[], int *i, struct psiplace_opts *opts,
		    psiplace_error_t *err)
{
	const char *w = argv[*i] + 2, *eq = strchr(w, '=');
	size_t len = eq ? (size_t)(eq - w) : strlen(w);
	char name[64];
	int o;

	if (len >= sizeof(name))
		return 0;
	memcpy(name, w, len);
	name[len] = '\0';
	if ((o = psiplace_opt_lookup(name)) < 0)
		return 0; /* srun itself reports unknown options */
	if (!psiplace_opt_has_arg(o)) {
		if (eq)
			return psiplace_seterr(err, "--%s: takes no value (given '%s')",
					       name, eq + 1);
		return psiplace_opts_set(opts, o, NULL) < 0
			       ? psiplace_seterr(err, "--%s: out of memory", name)
			       : 0;
	}
	if (!eq) {
		if (*i + 1 >= argc)
			return psiplace_seterr(err, "--%s: requires a value", name);
		eq = argv[++*i] - 1;
	}
	if (psiplace_opts_add(opts, o, eq + 1) < 0)
		return psiplace_seterr(err, "--%s: too long or out of memory", name);
	return 0;
}

/* A count value: digits only, else -1 (ranges such as 2-4 too). */
static long count_of(const char *v)
{
	uint64_t n;

	return v && psiplace_parse_u64(v, strlen(v), 100000000, &n) ? (long)n : -1;
}

/* A GRES request (cons_tres cannot expand such a job): the option as the
 * user wrote it, for the error line. */
static bool is_gres_option(const char *name, size_t len, const char *value)
{
	static const char *const g[] = { "gres", "gpus", "gpus-per-node", "gpus-per-socket",
					 "gpus-per-task", "G", NULL };
	const char *const *p;

	if (!value || !*value || !strcasecmp(value, "none"))
		return false;
	if (len == 13 && !strncmp(name, "tres-per-task", 13))
		return strstr(value, "gres/") != NULL;
	for (p = g; *p; p++)
		if (strlen(*p) == len && !strncmp(name, *p, len))
			return true;
	return false;
}

static void note_gres_partition(struct psiplace_slurm_cmdline *sl, const char *name, size_t len,
				const char *value)
{
	if (is_gres_option(name, len, value)) {
		sl->set |= PSIPLACE_SLURM_GRES;
		if (!sl->gres[0])
			snprintf(sl->gres, sizeof(sl->gres), "%s%.*s=%.40s", len == 1 ? "-" : "--",
				 (int)(len < 20 ? len : 20), name, value);
	} else if ((len == 9 && !strncmp(name, "partition", 9)) || (len == 1 && *name == 'p')) {
		if (strlen(value) < sizeof(sl->partition))
			strcpy(sl->partition, value);
		else
			sl->partition[0] = '\0';
	}
}

/* Remember -n/-N values: the balanced allocation of loop-nodes-first. */
static void note_count(struct psiplace_slurm_cmdline *sl, const char *name, size_t len,
		       const char *value)
{
	note_gres_partition(sl, name, len, value);
	if ((len == 6 && !strncmp(name, "ntasks", 6)) || (len == 1 && *name == 'n'))
		sl->ntasks = count_of(value);
	else if ((len == 5 && !strncmp(name, "nodes", 5)) || (len == 1 && *name == 'N'))
		sl->nnodes = count_of(value);
	else if ((len == 13 && !strncmp(name, "cpus-per-task", 13)) || (len == 1 && *name == 'c'))
		sl->cpus_per_task = count_of(value);
}

int psiplace_cmdline_scan(int argc, char *const argv[], struct psiplace_opts *opts,
			  struct psiplace_slurm_cmdline *slurm, psiplace_error_t *err)
{
	const char *prog = argc > 0 && argv[0] ? strrchr(argv[0], '/') : NULL;
	bool sbatch;
	int i;

	slurm->set = 0;
	slurm->ntasks = slurm->nnodes = slurm->cpus_per_task = -1;
	slurm->operand = argc;
	slurm->wrap = false;
	slurm->gres[0] = slurm->partition[0] = '\0';
	prog = prog ? prog + 1 : (argc > 0 && argv[0] ? argv[0] : "");
	sbatch = !strcmp(prog, "sbatch");
	for (i = 1; i < argc && argv[i]; i++) {
		const char *a = argv[i];

		if (a[0] != '-' || !a[1] || !strcmp(a, "--")) {
			/* the command or script: the rest is its own */
			slurm->operand = i + (!strcmp(a, "--") ? 1 : 0);
			break;
		}
		if (a[1] == '-') {
			const char *eq = strchr(a + 2, '=');
			size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);

			if (!strncmp(a + 2, "psi-", 4)) {
				if (scan_psi(argc, argv, &i, opts, err) < 0)
					return -1;
				continue;
			}
			slurm->set |= slurm_long_flag(a + 2, len);
			if (len == 4 && !strncmp(a + 2, "wrap", 4))
				slurm->wrap = true;
			if (eq)
				note_count(slurm, a + 2, len, eq + 1);
			else if (long_takes_arg(a + 2, len) && ++i < argc)
				note_count(slurm, a + 2, len, argv[i]);
			continue;
		}
		/* A cluster of short options; one taking a value ends it. */
		for (const char *c = a + 1; *c; c++) {
			slurm->set |= slurm_short_flag(*c);
			if (strchr(slurm_short_with_arg, *c) && !(sbatch && *c == 'W')) {
				if (c[1])
					note_count(slurm, c, 1, c + 1);
				else if (++i < argc)
					note_count(slurm, c, 1, argv[i]);
				break;
			}
		}
	}
	return 0;
}

void psiplace_slurm_cmdline_env_gres(struct psiplace_slurm_cmdline *sl, enum psiplace_client client,
				     psiplace_getenv_fn get, void *arg)
{
	static const struct {
		const char *var, *opt;
	} m[] = {
		{ "GRES", "gres" },
		{ "GPUS", "G" },
		{ "GPUS_PER_NODE", "gpus-per-node" },
		{ "GPUS_PER_SOCKET", "gpus-per-socket" },
		{ "GPUS_PER_TASK", "gpus-per-task" },
		{ "TRES_PER_TASK", "tres-per-task" },
	};
	const char *prefix = client == PSIPLACE_CLIENT_SRUN	   ? "SLURM_"
			     : client == PSIPLACE_CLIENT_SALLOC ? "SALLOC_"
								 : "SBATCH_";
	char name[32];
	const char *v;
	size_t i;

	if (sl->gres[0])
		return;
	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		snprintf(name, sizeof(name), "%s%s", prefix, m[i].var);
		if ((v = get(name, arg)) && is_gres_option(m[i].opt, strlen(m[i].opt), v)) {
			sl->set |= PSIPLACE_SLURM_GRES;
			snprintf(sl->gres, sizeof(sl->gres), "%s=%.40s", name, v);
			return;
		}
	}
}

/* SPANK's environment name of an option: plugin and option name with
 * every non-alphanumeric byte as '_'. */
static void spank_env_name(const char *prefix, const char *opt, char *buf, size_t len)
{
	size_t k = (size_t)snprintf(buf, len, "%spsiplace_%s", prefix, opt);
	size_t start = strlen(prefix);

	for (; start < k && start < len; start++) {
		char c = buf[start];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
			buf[start] = '_';
	}
}

static const char *const inherited_prefixes[] = { "SLURM_SPANK__SLURM_SPANK_OPTION_",
						   "_SLURM_SPANK_OPTION_" };

void psiplace_opt_inherited_names(enum psiplace_opt o, char names[2][128])
{
	int p;

	for (p = 0; p < 2; p++)
		spank_env_name(inherited_prefixes[p], psiplace_opt_table[o].name, names[p], 128);
}

bool psiplace_opt_step_overrides(enum psiplace_opt o, psiplace_getenv_fn get, void *arg)
{
	const char *const *v;

	for (v = psiplace_opt_table[o].vars; *v; v++)
		if (get(*v, arg))
			return true;
	return false;
}

int psiplace_opts_from_inherited(psiplace_getenv_fn get, void *arg, struct psiplace_opts *o)
{
	char names[2][128];
	int i;
	size_t p;

	for (i = 0; i < PSIPLACE_OPT_COUNT; i++) {
		if (o->val[i] || psiplace_opt_step_overrides(i, get, arg))
			continue;
		psiplace_opt_inherited_names(i, names);
		for (p = 0; p < 2 && !o->val[i]; p++) {
			const char *v;

			if ((v = get(names[p], arg)) && psiplace_opts_set(o, i, psiplace_opt_has_arg(i) ? v : NULL) < 0)
				return -1;
		}
	}
	return 0;
}

/* Split one directive line into words: blanks separate, quotes group. */
static int split_words(const char *p, const char *end, char **words, int max, char *buf,
		       size_t buflen)
{
	int n = 0;
	size_t o = 0;

	while (p < end && n < max) {
		char q = 0;

		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		if (p >= end || *p == '#')
			break;
		words[n++] = buf + o;
		for (; p < end && (q || (*p != ' ' && *p != '\t' && *p != '\r')); p++) {
			if (!q && (*p == '"' || *p == '\''))
				q = *p;
			else if (q && *p == q)
				q = 0;
			else if (o + 1 < buflen)
				buf[o++] = *p;
		}
		if (o + 1 >= buflen)
			return -1;
		buf[o++] = '\0';
	}
	return n;
}

int psiplace_batch_script_scan(const char *text, size_t len, struct psiplace_opts *opts,
			       struct psiplace_slurm_cmdline *slurm, psiplace_error_t *err)
{
	unsigned set = slurm->set;
	/* the command line beats the script's directives (later directives
	 * beat earlier ones) */
	bool cmdline_cpt = slurm->set & PSIPLACE_SLURM_CPUS_PER_TASK;
	bool cmdline_n = slurm->ntasks >= 0, cmdline_N = slurm->nnodes >= 0;
	bool cmdline_gres = slurm->gres[0], cmdline_p = slurm->partition[0];
	struct psiplace_lines it;
	const char *line;
	size_t l;

	if (len > PSIPLACE_SCRIPT_MAX)
		len = PSIPLACE_SCRIPT_MAX;
	psiplace_lines_init(&it, text, len);
	while (psiplace_lines_next(&it, &line, &l, NULL)) {
		const char *end = line + l, *p = line;
		char *words[64], buf[4096];
		struct psiplace_slurm_cmdline sl;
		int n;

		if (it.lineno == 1 && l >= 2 && line[0] == '#' && line[1] == '!')
			continue;
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		if (p == end)
			continue;
		if (*p != '#')
			break; /* sbatch stops at the first command */
		if (p != line || end - p < 7 || strncmp(p, "#SBATCH", 7))
			continue;
		words[0] = (char *)"sbatch";
		n = split_words(p + 7, end, words + 1, 62, buf, sizeof(buf));
		if (n < 0)
			return psiplace_seterr(err, "batch script: a #SBATCH line longer than %zu bytes",
					       sizeof(buf));
		words[n + 1] = NULL;
		if (psiplace_cmdline_scan(n + 1, words, opts, &sl, err) < 0)
			return -1;
		set |= sl.set;
		if (sl.ntasks >= 0 && !cmdline_n)
			slurm->ntasks = sl.ntasks;
		if (sl.nnodes >= 0 && !cmdline_N)
			slurm->nnodes = sl.nnodes;
		if ((sl.set & PSIPLACE_SLURM_CPUS_PER_TASK) && !cmdline_cpt)
			slurm->cpus_per_task = sl.cpus_per_task;
		if (sl.gres[0] && !cmdline_gres && !slurm->gres[0])
			memcpy(slurm->gres, sl.gres, sizeof(sl.gres));
		if (sl.partition[0] && !cmdline_p)
			memcpy(slurm->partition, sl.partition, sizeof(sl.partition));
	}
	slurm->set = set;
	return 0;
}
