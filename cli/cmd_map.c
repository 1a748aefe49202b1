/* psiplace map: dry run of a step's task placement and binding on given
 * node topologies, as text, JSON or a picture.  The placement backend is
 * chosen by the options given (map_backend.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "map_backend.h"
#include "psiplace/error.h"

#define MAX_TOPOLOGIES 64
#define MAX_NODES 1000000u
#define MAX_TASKS 100000000ul

static const struct map_backend *const backends[] = {
	&map_backend_lama,
	&map_backend_psi,
};

#define NBACKENDS (sizeof(backends) / sizeof(backends[0]))

enum format { FMT_PLAIN, FMT_JSON, FMT_SVG };

struct args {
	const char *topo_desc[MAX_TOPOLOGIES];
	unsigned ntopo;
	unsigned long nodes; /* 0: one per --topology */
	unsigned long ntasks;
	int have_ntasks;
	const char *tpn;     /* --tasks-per-node */
	int env;
	enum format format;
	void *state[NBACKENDS];
	char first_opt[NBACKENDS][64]; /* first option claimed, for conflicts */
};

static const char usage_line[] =
	"map --topology DESC [--topology DESC2 ...] [--nodes N] -n NTASKS [--tasks-per-node LIST] "
	"[--psi-lama-map=STR --psi-lama-bind=STR --psi-lama-mppr=STR --psi-lama-order=s|n "
	"--psi-map-by=LEVEL --psi-bind-to=LEVEL --psi-oversubscribe | --psi-tpp=N --psi-cpumap=LIST "
	"--psi-loop-nodes-first --psi-overbook --psi-no-pinproc --psi-no-bindmem] [--env] "
	"[--format plain|json|svg]";

static int parse_count(const char *opt, const char *s, unsigned long max, unsigned long *v)
{
	char *end;
	char q[80];

	errno = 0;
	if (s && *s >= '0' && *s <= '9') {
		*v = strtoul(s, &end, 10);
		if (!errno && !*end && *v >= 1 && *v <= max)
			return 0;
	}
	psiplace_quote(q, sizeof(q), s ? s : "", 40);
	return cli_usage_error("%s: '%s' is not an integer from 1 to %lu", opt, q, max);
}

/* Offer an option to the backends; a second backend's option is a conflict. */
static int backend_option(struct args *a, const char *opt, const char *value, psiplace_error_t *err)
{
	size_t b, k;

	for (b = 0; b < NBACKENDS; b++) {
		if (backends[b]->option_kind(opt) == MAP_OPT_NOT_MINE)
			continue;
		for (k = 0; k < NBACKENDS; k++)
			if (k != b && a->first_opt[k][0])
				return cli_usage_error("%s and %s both given: %s and %s placement do not combine",
						       a->first_opt[k], opt, backends[k]->name,
						       backends[b]->name);
		if (!a->first_opt[b][0])
			snprintf(a->first_opt[b], sizeof(a->first_opt[b]), "%s", opt);
		if (backends[b]->apply(a->state[b], opt, value, err) < 0)
			return cli_usage_error("%s", err->text);
		return 0;
	}
	return cli_usage_error("map: unknown option '%s'; usage: psiplace %s", opt, usage_line);
}

/* "--name=value" or "--name value" for backend options. */
static int other_option(struct args *a, int argc, char **argv, int *i, psiplace_error_t *err)
{
	char name[64];
	const char *arg = argv[*i], *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg), b;
	enum map_opt_kind kind = MAP_OPT_NOT_MINE;

	if (strncmp(arg, "--", 2) || len >= sizeof(name)) {
		psiplace_quote(name, sizeof(name), arg, 40);
		return cli_usage_error("map: unknown argument '%s'; usage: psiplace %s", name, usage_line);
	}
	memcpy(name, arg, len);
	name[len] = '\0';
	for (b = 0; b < NBACKENDS && kind == MAP_OPT_NOT_MINE; b++)
		kind = backends[b]->option_kind(name);
	if (kind == MAP_OPT_FLAG && eq)
		return cli_usage_error("%s takes no value", name);
	if (kind == MAP_OPT_VALUE && !eq) {
		if (*i + 1 >= argc)
			return cli_usage_error("%s needs a value", name);
		return backend_option(a, name, argv[++*i], err);
	}
	return backend_option(a, name, eq ? eq + 1 : NULL, err) ? 2 : 0;
}

static int parse_args(struct args *a, int argc, char **argv, psiplace_error_t *err)
{
	int i, rc;

	for (i = 1; i < argc; i++) {
		const char *s = argv[i];
		int has_next = i + 1 < argc;

		if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
			printf("usage: psiplace %s\n", usage_line);
			return 3;
		} else if (!strcmp(s, "--topology") && has_next) {
			if (a->ntopo == MAX_TOPOLOGIES)
				return cli_usage_error("--topology: at most %d given", MAX_TOPOLOGIES);
			a->topo_desc[a->ntopo++] = argv[++i];
		} else if (!strcmp(s, "--nodes") && has_next) {
			if (parse_count("--nodes", argv[++i], MAX_NODES, &a->nodes))
				return 2;
		} else if ((!strcmp(s, "-n") || !strcmp(s, "--ntasks")) && has_next) {
			if (parse_count(s, argv[++i], MAX_TASKS, &a->ntasks))
				return 2;
			a->have_ntasks = 1;
		} else if (!strcmp(s, "--tasks-per-node") && has_next) {
			a->tpn = argv[++i];
		} else if (!strcmp(s, "--env")) {
			a->env = 1;
		} else if (!strcmp(s, "--format") && has_next) {
			s = argv[++i];
			if (!strcmp(s, "plain"))
				a->format = FMT_PLAIN;
			else if (!strcmp(s, "json"))
				a->format = FMT_JSON;
			else if (!strcmp(s, "svg"))
				a->format = FMT_SVG;
			else
				return cli_usage_error("--format: '%s' is not a format; accepted: plain json svg", s);
		} else if ((rc = other_option(a, argc, argv, &i, err)) != 0) {
			return 2;
		}
	}
	if (a->ntopo == 0)
		return cli_usage_error("map: --topology is required; usage: psiplace %s", usage_line);
	if (!a->have_ntasks && !a->tpn)
		return cli_usage_error("map: -n NTASKS is required; usage: psiplace %s", usage_line);
	if (!a->nodes)
		a->nodes = a->ntopo;
	if (a->nodes < a->ntopo)
		return cli_usage_error("--nodes %lu is less than the %u topologies given", a->nodes,
				       a->ntopo);
	return 0;
}

/* --tasks-per-node: one count for every node, or one per node. */
static int parse_tpn(struct args *a, unsigned *tpn)
{
	const char *s = a->tpn;
	unsigned long v, sum = 0;
	unsigned k = 0;
	char buf[16];

	while (*s && k < a->nodes) {
		size_t len = strcspn(s, ",");

		if (len >= sizeof(buf))
			len = sizeof(buf) - 1;
		memcpy(buf, s, len);
		buf[len] = '\0';
		if (!strcmp(buf, "0"))
			v = 0;
		else if (parse_count("--tasks-per-node", buf, MAX_TASKS, &v))
			return 2;
		tpn[k++] = (unsigned)v;
		sum += v;
		s += strcspn(s, ",");
		if (*s == ',')
			s++;
	}
	if (k == 1)
		for (sum = tpn[0]; k < a->nodes; k++, sum += tpn[0])
			tpn[k] = tpn[0];
	if (k != a->nodes || *s)
		return cli_usage_error("--tasks-per-node: give one count, or one per node (%lu)", a->nodes);
	if (a->have_ntasks && sum != a->ntasks)
		return cli_usage_error("--tasks-per-node adds up to %lu tasks, -n says %lu", sum, a->ntasks);
	a->ntasks = sum;
	return 0;
}

static int load_topologies(const struct args *a, struct psiplace_topo *loaded,
			   const struct psiplace_topo **topo, const char **desc, psiplace_error_t *err)
{
	unsigned k, i;

	for (k = 0; k < a->ntopo; k++)
		if (psiplace_topo_load(a->topo_desc[k], NULL, &loaded[k], err) < 0) {
			fprintf(stderr, "psiplace: error: --topology: %s\n", err->text);
			while (k--)
				psiplace_topo_free(&loaded[k]);
			return 1;
		}
	for (i = 0; i < a->nodes; i++) {
		k = i < a->ntopo ? i : a->ntopo - 1;
		topo[i] = &loaded[k];
		desc[i] = a->topo_desc[k];
	}
	return 0;
}

static size_t choose_backend(struct args *a, psiplace_error_t *err, int *rc)
{
	size_t b, chosen = NBACKENDS;

	*rc = 0;
	for (b = 0; b < NBACKENDS; b++) {
		int used = 0;

		if (a->env && backends[b]->apply_env(a->state[b], &used, err) < 0) {
			*rc = cli_usage_error("%s", err->text);
			return 0;
		}
		if ((used || a->first_opt[b][0]) && chosen == NBACKENDS)
			chosen = b;
	}
	if (chosen == NBACKENDS)
		for (b = 0; b < NBACKENDS && chosen == NBACKENDS; b++)
			if (backends[b]->is_default)
				chosen = b;
	return chosen;
}

static int run(struct args *a, psiplace_error_t *err)
{
	struct psiplace_topo loaded[MAX_TOPOLOGIES];
	const struct psiplace_topo **topo = calloc(a->nodes, sizeof(*topo));
	const char **desc = calloc(a->nodes, sizeof(*desc));
	unsigned *tpn = a->tpn ? calloc(a->nodes, sizeof(unsigned)) : NULL;
	struct map_result r;
	size_t b;
	int rc = 1;

	memset(&r, 0, sizeof(r));
	if (!topo || !desc || (a->tpn && !tpn)) {
		fputs("psiplace: error: out of memory\n", stderr);
		goto out;
	}
	if (a->tpn && (rc = parse_tpn(a, tpn)) != 0)
		goto out;
	b = choose_backend(a, err, &rc);
	if (rc)
		goto out;
	if ((rc = load_topologies(a, loaded, topo, desc, err)) != 0)
		goto out;
	r.nnodes = (unsigned)a->nodes;
	r.topo = topo;
	r.topo_desc = desc;
	if (backends[b]->place(a->state[b], (unsigned)a->nodes, topo, a->ntasks, tpn, &r, err) < 0) {
		fprintf(stderr, "psiplace: error: %s\n", err->text);
		rc = 1;
	} else {
		if (a->format == FMT_JSON)
			map_print_json(stdout, &r);
		else if (a->format == FMT_SVG)
			map_print_svg(stdout, &r);
		else
			map_print_plain(stdout, &r);
		rc = 0;
	}
	map_result_free(&r);
	for (b = 0; b < a->ntopo; b++)
		psiplace_topo_free(&loaded[b]);
out:
	free(topo);
	free(desc);
	free(tpn);
	return rc;
}

int cmd_map(int argc, char **argv)
{
	struct args a;
	psiplace_error_t err;
	size_t b;
	int rc;

	memset(&a, 0, sizeof(a));
	for (b = 0; b < NBACKENDS; b++)
		if (!(a.state[b] = backends[b]->create())) {
			fputs("psiplace: error: out of memory\n", stderr);
			return 1;
		}
	rc = parse_args(&a, argc, argv, &err);
	if (rc == 3)
		rc = 0;
	else if (!rc)
		rc = run(&a, &err);
	for (b = 0; b < NBACKENDS; b++)
		backends[b]->destroy(a.state[b]);
	return rc;
}
