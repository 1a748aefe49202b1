/* The psiplace line of plugstack.conf: argument parsing and locating the
 * line in the file (the select plugin reads it itself). */
#include <errno.h>
#include <glob.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "psiplace/textparse.h"
#include "psiplace/error.h"
#include "psiplace/priorityf.h"
#include "psiplace/readfile.h"
#include "psiplace/plugstack_line.h"

#define MAX_INCLUDE_DEPTH 8
#define MAX_FILE_BYTES (1 << 20)
#define MAX_ARGS 256

void psiplace_siteconf_init(struct psiplace_siteconf *c)
{
	memset(c, 0, sizeof(*c));
	c->policy = PSIPLACE_POLICY_NONE;
	c->placement = PSIPLACE_PLACEMENT_SLURM;
	c->pset_query = true;
	c->ranked_tier = PSIPLACE_SELECT_MIN_DISTINCT;
	c->prefer_powered_up = true;
}

void psiplace_siteconf_free(struct psiplace_siteconf *c)
{
	free(c->priority_function);
	free(c->nodes_sort);
	free(c->topology_file);
	psiplace_siteconf_init(c);
}

void psiplace_argv_free(char **argv)
{
	size_t i;

	for (i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

static int parse_bool(const char *key, const char *v, bool *out, psiplace_error_t *err)
{
	char q[80];

	if (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcmp(v, "1")) {
		*out = true;
		return 0;
	}
	if (!strcasecmp(v, "no") || !strcasecmp(v, "false") || !strcmp(v, "0")) {
		*out = false;
		return 0;
	}
	psiplace_quote(q, sizeof(q), v, 48);
	return psiplace_seterr(err, "%s: '%s' is not yes or no", key, q);
}

/* Strip one pair of surrounding double quotes. */
static char *unquote(const char *v)
{
	size_t n = strlen(v);

	if (n >= 2 && v[0] == '"' && v[n - 1] == '"')
		return strndup(v + 1, n - 2);
	return strdup(v);
}

/* SPANK splits the line at blanks: join KEY="a b c" back into one. */
static char **join_quoted(int argc, char *const argv[], psiplace_error_t *err)
{
	char **out = calloc((size_t)argc + 1, sizeof(*out));
	int i, o = 0;

	if (!out) {
		psiplace_seterr(err, "out of memory");
		return NULL;
	}
	for (i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		char *cur = strdup(argv[i]);
		size_t quotes = 0;
		const char *p;

		if (!cur)
			goto oom;
		for (p = eq ? eq + 1 : argv[i]; *p; p++)
			quotes += *p == '"';
		while (eq && eq[1] == '"' && quotes % 2 == 1 && i + 1 < argc) {
			size_t n = strlen(cur) + strlen(argv[i + 1]) + 2;
			char *j = malloc(n);

			if (!j) {
				free(cur);
				goto oom;
			}
			snprintf(j, n, "%s %s", cur, argv[++i]);
			free(cur);
			cur = j;
			for (p = argv[i]; *p; p++)
				quotes += *p == '"';
		}
		if (eq && eq[1] == '"' && quotes % 2 == 1) {
			char q[80];

			psiplace_quote(q, sizeof(q), cur, 48);
			free(cur);
			psiplace_argv_free(out);
			psiplace_seterr(err, "'%s': unterminated double quote", q);
			return NULL;
		}
		out[o++] = cur;
	}
	return out;
oom:
	psiplace_argv_free(out);
	psiplace_seterr(err, "out of memory");
	return NULL;
}

static const char accepted_keys[] =
	"NodeAllocationPolicy, PriorityFunction, NodesSort, DefaultPlacement, "
	"PsiStrict, PolicyOverridesWeight, AllowUserCpumap, TopologyFile, PsetQuery, RankedTier, "
	"PreferPoweredUp, Verbose";

static int set_string(char **slot, const char *key, const char *v, psiplace_error_t *err)
{
	char *s;

	if (strlen(v) > PSIPLACE_SITECONF_MAXARG)
		return psiplace_seterr(err, "%s: value longer than %d bytes",
				       key, PSIPLACE_SITECONF_MAXARG);
	if (!(s = unquote(v)))
		return psiplace_seterr(err, "out of memory");
	if (!*s) {
		free(s);
		return psiplace_seterr(err, "%s: empty value", key);
	}
	free(*slot);
	*slot = s;
	return 0;
}

static int apply_arg(struct psiplace_siteconf *c, const char *arg, psiplace_error_t *err)
{
	char key[64], q[80];
	const char *eq = strchr(arg, '='), *v;
	size_t klen = eq ? (size_t)(eq - arg) : strlen(arg);

	if (klen >= sizeof(key))
		klen = sizeof(key) - 1;
	memcpy(key, arg, klen);
	key[klen] = '\0';
	v = eq ? eq + 1 : NULL;

	if (!strcasecmp(key, "Verbose")) {
		if (!v) {
			c->verbose = true;
			return 0;
		}
		return parse_bool("Verbose", v, &c->verbose, err);
	}
	if (!v || (!*v && strcasecmp(key, "NodeAllocationPolicy"))) {
		psiplace_quote(q, sizeof(q), arg, 48);
		if (!v)
			return psiplace_seterr(err,
					       "'%s' is not KEY=VALUE; accepted keys: %s",
					       q, accepted_keys);
		return psiplace_seterr(err, "%s: empty value", key);
	}
	if (!strcasecmp(key, "NodeAllocationPolicy")) {
		if (!strcasecmp(v, "none") || !*v) {
			c->policy = PSIPLACE_POLICY_NONE;
			return 0;
		}
		return psiplace_policy_parse(v, "NodeAllocationPolicy", &c->policy, err);
	}
	if (!strcasecmp(key, "PriorityFunction")) {
		struct psiplace_priorityf *f;

		if (set_string(&c->priority_function, "PriorityFunction", v, err) < 0)
			return -1;
		/* a bad cluster default is a site error: report it at daemon start */
		if (psiplace_priorityf_compile(c->priority_function, "PriorityFunction", &f, err) < 0)
			return -1;
		psiplace_priorityf_free(f);
		return 0;
	}
	if (!strcasecmp(key, "NodesSort"))
		return set_string(&c->nodes_sort, "NodesSort", v, err);
	if (!strcasecmp(key, "TopologyFile"))
		return set_string(&c->topology_file, "TopologyFile", v, err);
	if (!strcasecmp(key, "DefaultPlacement")) {
		if (!strcasecmp(v, "slurm"))
			c->placement = PSIPLACE_PLACEMENT_SLURM;
		else if (!strcasecmp(v, "psi"))
			c->placement = PSIPLACE_PLACEMENT_PSI;
		else {
			psiplace_quote(q, sizeof(q), v, 48);
			return psiplace_seterr(err,
					       "DefaultPlacement: '%s' is not slurm or psi", q);
		}
		return 0;
	}
	if (!strcasecmp(key, "PsiStrict"))
		return parse_bool("PsiStrict", v, &c->psi_strict, err);
	if (!strcasecmp(key, "PolicyOverridesWeight"))
		return parse_bool("PolicyOverridesWeight", v, &c->policy_overrides_weight, err);
	if (!strcasecmp(key, "AllowUserCpumap"))
		return parse_bool("AllowUserCpumap", v, &c->allow_user_cpumap, err);
	if (!strcasecmp(key, "PreferPoweredUp"))
		return parse_bool("PreferPoweredUp", v, &c->prefer_powered_up, err);
	if (!strcasecmp(key, "PsetQuery"))
		return parse_bool("PsetQuery", v, &c->pset_query, err);
	if (!strcasecmp(key, "RankedTier")) {
		uint64_t n;

		if (!psiplace_parse_u64(v, strlen(v), PSIPLACE_SELECT_TIER_MAX, &n)) {
			psiplace_quote(q, sizeof(q), v, 48);
			return psiplace_seterr(err, "RankedTier: '%s' is not a number of nodes 0..%d",
					       q, PSIPLACE_SELECT_TIER_MAX);
		}
		c->ranked_tier = (uint32_t)n;
		return 0;
	}
	psiplace_quote(q, sizeof(q), key, 48);
	return psiplace_seterr(err, "unknown argument '%s'; accepted keys: %s",
			       q, accepted_keys);
}

int psiplace_siteconf_parse(int argc, char *const argv[],
			    struct psiplace_siteconf *c, psiplace_error_t *err)
{
	struct psiplace_siteconf next;
	char **args;
	int i, rc = 0;

	if (argc < 0 || argc > MAX_ARGS)
		return psiplace_seterr(err, "more than %d arguments", MAX_ARGS);
	if (!(args = join_quoted(argc, argv, err)))
		return -1;
	/* Work on a copy so that an error leaves c untouched. */
	next = *c;
	next.priority_function = c->priority_function ? strdup(c->priority_function) : NULL;
	next.nodes_sort = c->nodes_sort ? strdup(c->nodes_sort) : NULL;
	next.topology_file = c->topology_file ? strdup(c->topology_file) : NULL;
	for (i = 0; args[i] && rc == 0; i++)
		rc = apply_arg(&next, args[i], err);
	psiplace_argv_free(args);
	if (rc) {
		psiplace_siteconf_free(&next);
		return -1;
	}
	psiplace_siteconf_free(c);
	*c = next;
	return 0;
}

/* Split one line at blanks after cutting a comment, like plugstack.c. */
static int split_line(char *line, char **tok, int max)
{
	char *s = strchr(line, '#'), *cur = line, *t;
	int n = 0;

	if (s)
		*s = '\0';
	for (t = psiplace_next_word(&cur); t && n < max; t = psiplace_next_word(&cur))
		tok[n++] = t;
	return t ? -1 : n;
}

static int is_psiplace_plugin(const char *path)
{
	const char *b = strrchr(path, '/');

	return !strcmp(b ? b + 1 : path, "psiplace.so");
}

int psiplace_plugstack_scan(const char *text, size_t len,
			    psiplace_include_cb on_include, void *arg,
			    int *argc, char ***argv, int *lineno, psiplace_error_t *err)
{
	struct psiplace_lines it;
	const char *l;
	size_t ln;
	char *buf;

	*argc = 0;
	*argv = NULL;
	if (len > MAX_FILE_BYTES)
		return psiplace_seterr(err, "file larger than %d bytes", MAX_FILE_BYTES);
	psiplace_lines_init(&it, text, len);
	while (psiplace_lines_next(&it, &l, &ln, NULL)) {
		char *tok[MAX_ARGS + 2];
		int n, i, rc, line = it.lineno;

		if (!(buf = strndup(l, ln)))
			return psiplace_seterr(err, "out of memory");
		n = split_line(buf, tok, MAX_ARGS + 2);
		if (n < 0) {
			free(buf);
			return psiplace_seterr(err, "line %d: more than %d words", line, MAX_ARGS);
		}
		if (n >= 2 && !strcasecmp(tok[0], "include") && on_include) {
			bool found = false;

			rc = on_include(tok[1], line, arg, &found);
			free(buf);
			if (rc < 0 || found)
				return rc < 0 ? -1 : 0;
			continue;
		}
		if (n >= 2 && (!strcasecmp(tok[0], "required") || !strcasecmp(tok[0], "optional")) &&
		    is_psiplace_plugin(tok[1])) {
			char **v = calloc((size_t)n - 1, sizeof(*v));

			if (!v) {
				free(buf);
				return psiplace_seterr(err, "out of memory");
			}
			for (i = 2; i < n; i++) {
				if (!(v[i - 2] = strdup(tok[i]))) {
					psiplace_argv_free(v);
					free(buf);
					return psiplace_seterr(err, "out of memory");
				}
			}
			free(buf);
			*argc = n - 2;
			*argv = v;
			*lineno = line;
			return 0;
		}
		free(buf);
	}
	return 0;
}

struct reader {
	const char *file; /* the file being scanned */
	int depth;
	struct psiplace_siteconf *c;
	psiplace_error_t *err;
	bool found; /* the psiplace line was read (stops the scan) */
};

static int read_one(struct reader *r, const char *path);

static int on_include(const char *pattern, int lineno, void *arg, bool *found)
{
	struct reader *r = arg;
	char full[4096], *dirc;
	glob_t gl;
	size_t i;
	int rc = 0;

	if (pattern[0] == '/') {
		snprintf(full, sizeof(full), "%s", pattern);
	} else {
		if (!(dirc = strdup(r->file)))
			return psiplace_seterr(r->err, "out of memory");
		snprintf(full, sizeof(full), "%s/%s", dirname(dirc), pattern);
		free(dirc);
	}
	if (r->depth >= MAX_INCLUDE_DEPTH)
		return psiplace_seterr_linef(r->err, r->file, lineno, "includes nested deeper than %d",
					     MAX_INCLUDE_DEPTH);
	*found = false;
	if (glob(full, 0, NULL, &gl) != 0)
		return 0; /* no match: nothing to read, as plugstack.c */
	for (i = 0; i < gl.gl_pathc && rc == 0 && !r->found; i++) {
		const char *saved = r->file;

		r->depth++;
		rc = read_one(r, gl.gl_pathv[i]);
		r->depth--;
		r->file = saved;
	}
	globfree(&gl);
	*found = r->found;
	return rc < 0 ? -1 : 0;
}

static int read_one(struct reader *r, const char *path)
{
	char *text, **argv = NULL;
	psiplace_error_t msg;
	size_t n;
	int argc, line = 0, rc;

	if (psiplace_read_file(path, MAX_FILE_BYTES, PSIPLACE_READ_REGULAR, &text, &n, NULL, r->err) < 0)
		return -1;
	r->file = path;
	msg.text[0] = '\0';
	rc = psiplace_plugstack_scan(text, n, on_include, r, &argc, &argv, &line, &msg);
	free(text);
	if (rc < 0) {
		if (msg.text[0]) /* an include error already carries its location */
			psiplace_seterr(r->err, "%s: %s", path, msg.text);
		return -1;
	}
	if (argv) {
		if (psiplace_siteconf_parse(argc, argv, r->c, &msg) < 0) {
			psiplace_argv_free(argv);
			return psiplace_seterr_linef(r->err, path, line, "psiplace: %s", msg.text);
		}
		psiplace_argv_free(argv);
		r->found = true;
	}
	return 0;
}

int psiplace_siteconf_read_plugstack(const char *path, struct psiplace_siteconf *c,
				     psiplace_error_t *err)
{
	struct reader r = { .file = path, .c = c, .err = err };

	return read_one(&r, path) < 0 ? -1 : 0;
}

int psiplace_topology_path(const char *pattern, const char *node, char *buf, size_t len,
			   psiplace_error_t *err)
{
	size_t o = 0;
	char q[80];

	if (!len)
		return psiplace_seterr(err, "TopologyFile: no room for the path");
	buf[0] = '\0';
	if (strstr(pattern, "%n") &&
	    (!node || !*node || strchr(node, '/') || !strcmp(node, ".") || !strcmp(node, ".."))) {
		psiplace_quote(q, sizeof(q), node ? node : "", 60);
		return psiplace_seterr(err,
				       "TopologyFile: node name '%s' is not accepted for %%n; accepted: a name without '/', not '.' or '..'",
				       q);
	}
	for (; *pattern; pattern++) {
		int w = 1;

		if (pattern[0] == '%' && pattern[1] == 'n') {
			w = snprintf(buf + o, len - o, "%s", node);
			pattern++;
		} else if (o + 1 < len) {
			buf[o] = *pattern;
			buf[o + 1] = '\0';
		}
		if (w < 0 || o + (size_t)w >= len) {
			buf[0] = '\0';
			return psiplace_seterr(err, "TopologyFile: the path for node '%.60s' is longer than %zu bytes",
					       node ? node : "", len - 1);
		}
		o += (size_t)w;
	}
	return 0;
}
