/* PMIx process sets of a step, computed from its layout (see psets.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/textparse.h"
#include "psiplace/error.h"
#include "psiplace/psets.h"
#include "psiplace/psi_values.h"
#include "psiplace/step_layout.h"

void psiplace_psets_init(struct psiplace_psets *s)
{
	s->set = NULL;
	s->n = 0;
}

void psiplace_psets_free(struct psiplace_psets *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->set[i].name);
		free(s->set[i].ranks);
	}
	free(s->set);
	psiplace_psets_init(s);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Sort and drop duplicates. */
static size_t sort_unique(uint32_t *v, size_t n)
{
	size_t i, k = 0;

	qsort(v, n, sizeof(*v), cmp_u32);
	for (i = 0; i < n; i++)
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
}

static int add_set(struct psiplace_psets *s, char *name, uint32_t *ranks, size_t n,
		   psiplace_error_t *err)
{
	struct psiplace_pset *ns = realloc(s->set, (s->n + 1) * sizeof(*ns));

	if (!ns) {
		free(name);
		free(ranks);
		return psiplace_seterr(err, "out of memory");
	}
	s->set = ns;
	s->set[s->n].name = name;
	s->set[s->n].ranks = ranks;
	s->set[s->n].n = n;
	s->n++;
	return 0;
}

const struct psiplace_pset *psiplace_psets_find(const struct psiplace_psets *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->set[i].name, name))
			return &s->set[i];
	return NULL;
}

/* "0-3,8" -> sorted unique ranks. */
static int parse_ranks(const char *text, size_t len, size_t budget, const char *from,
		       const char *name, uint32_t **out, size_t *nout, psiplace_error_t *err)
{
	uint32_t *v = NULL;
	size_t n = 0, cap = 0, i = 0;

	while (i < len) {
		unsigned long a, b;
		size_t start = i;

		for (a = 0; i < len && text[i] >= '0' && text[i] <= '9'; i++)
			if ((a = a * 10 + (unsigned long)(text[i] - '0')) > PSIPLACE_PSET_RANK_MAX)
				break;
		if (i == start || a > PSIPLACE_PSET_RANK_MAX)
			goto bad;
		b = a;
		if (i < len && text[i] == '-') {
			size_t s2 = ++i;

			for (b = 0; i < len && text[i] >= '0' && text[i] <= '9'; i++)
				if ((b = b * 10 + (unsigned long)(text[i] - '0')) > PSIPLACE_PSET_RANK_MAX)
					break;
			if (i == s2 || b > PSIPLACE_PSET_RANK_MAX || b < a)
				goto bad;
		}
		if (n + (b - a + 1) > budget) {
			free(v);
			return psiplace_seterr(err, "%s: set '%s': more than %u members in all sets",
					       from, name, PSIPLACE_PSET_MEMBERS_MAX);
		}
		while (n + (b - a + 1) > cap) {
			uint32_t *nv;

			cap = cap ? cap * 2 : 16;
			if (!(nv = realloc(v, cap * sizeof(*v)))) {
				free(v);
				return psiplace_seterr(err, "%s: out of memory", from);
			}
			v = nv;
		}
		for (; a <= b; a++)
			v[n++] = (uint32_t)a;
		if (i < len && text[i] != ',')
			goto bad;
		if (i < len && ++i == len)
			goto bad; /* trailing comma */
	}
	if (!n)
		goto bad;
	*nout = sort_unique(v, n);
	*out = v;
	return 0;
bad:
	free(v);
	return psiplace_seterr(err,
			       "%s: set '%s': '%.*s' is not a rank list; accepted: ranks and ranges 0 to %u such as 0-3,8",
			       from, name, (int)(len > 60 ? 60 : len), text, PSIPLACE_PSET_RANK_MAX);
}

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.' || c == ':' || c == '/';
}

int psiplace_psets_parse(const char *value, const char *from, struct psiplace_psets *s,
			 psiplace_error_t *err)
{
	struct psiplace_psets add;
	const char *p = value, *end;
	size_t i, members = 0;

	psiplace_psets_init(&add);
	for (i = 0; i < s->n; i++)
		members += s->set[i].n;
	if (!value || !*value)
		return psiplace_seterr(err, "%s: no set given; accepted: NAME:RANKS[;NAME:RANKS...]",
				       from);
	for (; *p; p = *end ? end + 1 : end) {
		const char *colon;
		size_t nlen, k;
		char *name;
		uint32_t *ranks = NULL;
		size_t nranks = 0;

		end = strchr(p, ';');
		if (!end)
			end = p + strlen(p);
		colon = memchr(p, ':', (size_t)(end - p));
		/* a name may hold ':' (e.g. "a:b"): the last one separates */
		for (k = (size_t)(end - p); colon && k > 0; k--)
			if (p[k - 1] == ':') {
				colon = p + k - 1;
				break;
			}
		if (!colon || colon == p) {
			psiplace_psets_free(&add);
			return psiplace_seterr(err,
					       "%s: '%.*s' is not NAME:RANKS; accepted: NAME:RANKS[;NAME:RANKS...], e.g. ocean:0-3;ice:4-7",
					       from, (int)((end - p) > 60 ? 60 : (end - p)), p);
		}
		nlen = (size_t)(colon - p);
		for (k = 0; k < nlen; k++)
			if (!name_char(p[k]))
				break;
		if (nlen > PSIPLACE_PSET_NAME_MAX || k < nlen) {
			psiplace_psets_free(&add);
			return psiplace_seterr(err,
					       "%s: set name '%.*s' is not accepted: 1 to %d letters, digits or _-.:/",
					       from, (int)(nlen > 70 ? 70 : nlen), p, PSIPLACE_PSET_NAME_MAX);
		}
		if ((nlen >= 6 && !strncmp(p, "mpi://", 6)) ||
		    (nlen >= strlen(PSIPLACE_PSET_PREFIX) &&
		     !strncmp(p, PSIPLACE_PSET_PREFIX, strlen(PSIPLACE_PSET_PREFIX)))) {
			psiplace_psets_free(&add);
			return psiplace_seterr(err,
					       "%s: set name '%.*s' uses a reserved prefix (mpi:// is MPI's, psiplace:// psiplace's own sets)",
					       from, (int)nlen, p);
		}
		if (!(name = strndup(p, nlen))) {
			psiplace_psets_free(&add);
			return psiplace_seterr(err, "%s: out of memory", from);
		}
		if (psiplace_psets_find(s, name) || psiplace_psets_find(&add, name)) {
			psiplace_seterr(err, "%s: set '%s' is defined twice", from, name);
			free(name);
			psiplace_psets_free(&add);
			return -1;
		}
		if (parse_ranks(colon + 1, (size_t)(end - colon - 1), PSIPLACE_PSET_MEMBERS_MAX - members,
				from, name, &ranks, &nranks, err) < 0) {
			free(name);
			psiplace_psets_free(&add);
			return -1;
		}
		if (s->n + add.n >= PSIPLACE_PSETS_USER_MAX) {
			free(name);
			free(ranks);
			psiplace_psets_free(&add);
			return psiplace_seterr(err, "%s: more than %d sets", from, PSIPLACE_PSETS_USER_MAX);
		}
		members += nranks;
		if (add_set(&add, name, ranks, nranks, err) < 0) {
			psiplace_psets_free(&add);
			return -1;
		}
	}
	/* move add's sets to s */
	for (i = 0; i < add.n; i++)
		if (add_set(s, add.set[i].name, add.set[i].ranks, add.set[i].n, err) < 0) {
			add.set[i].name = NULL;
			add.set[i].ranks = NULL;
			for (; i < add.n; i++) {
				free(add.set[i].name);
				free(add.set[i].ranks);
			}
			free(add.set);
			return -1;
		}
	free(add.set);
	return 0;
}

static const char *const level_names[PSIPLACE_PSET_NLEVELS] = { "node", "socket", "numa", "l3",
								 "core" };

int psiplace_pset_levels_parse(const char *value, const char *from, unsigned *levels,
			       psiplace_error_t *err)
{
	const char *p = value, *end;
	unsigned got = PSIPLACE_PSET_LEVEL_NODE;
	int i;

	if (!value || !*value)
		return psiplace_seterr(err, "%s: no level given; accepted: node, socket, numa, l3, core",
				       from);
	for (; *p; p = *end ? end + 1 : end) {
		size_t len;

		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		len = (size_t)(end - p);
		for (i = 0; i < PSIPLACE_PSET_NLEVELS; i++)
			if (strlen(level_names[i]) == len && !strncasecmp(p, level_names[i], len))
				break;
		if (i == PSIPLACE_PSET_NLEVELS)
			return psiplace_seterr(err,
					       "%s: '%.*s' is not a level; accepted: node, socket, numa, l3, core (comma-separated)",
					       from, (int)(len > 40 ? 40 : len), p);
		got |= 1u << i;
	}
	if (value[strlen(value) - 1] == ',')
		return psiplace_seterr(err,
				       "%s: '%s' ends with a comma; accepted: node, socket, numa, l3, core (comma-separated)",
				       from, value);
	*levels = got;
	return 0;
}

int psiplace_psets_rank_nodes(const uint32_t *tasks_per_node, uint32_t nnodes, uint32_t ntasks,
			      const char *distribution, const char *layout, uint32_t *node_of,
			      psiplace_error_t *err)
{
	uint32_t *left, r = 0, n, plane = 0;
	uint64_t u, sum = psiplace_counts_sum(tasks_per_node, nnodes);

	/* 64 bits: a 32-bit sum of 2^20 counts of 10^6 wraps to any ntasks
	 * (the loops below are bounded by ntasks all the same). */
	if (sum != ntasks)
		return psiplace_seterr(err, "the tasks per node add up to %llu, the step has %u",
				       (unsigned long long)sum, ntasks);
	if (layout) {
		uint32_t *seq, nseq, i;

		if (psiplace_tasks_per_node_parse(layout, "PSIPLACE_LAMA_LAYOUT", &seq, &nseq, err) < 0)
			return -1;
		if (nseq != ntasks) {
			free(seq);
			return psiplace_seterr(err, "psiplace's rank order names %u ranks, the step has %u",
					       nseq, ntasks);
		}
		for (i = 0; i < nseq; i++)
			if (seq[i] >= nnodes) {
				uint32_t bad = seq[i];

				free(seq);
				return psiplace_seterr(err, "psiplace's rank order names node %u of %u",
						       bad, nnodes);
			}
		memcpy(node_of, seq, ntasks * sizeof(*node_of));
		free(seq);
		return 0;
	}
	if (!distribution || !*distribution || !strncmp(distribution, "block", 5)) {
		for (n = 0; n < nnodes; n++)
			for (uint32_t k = 0; k < tasks_per_node[n] && r < ntasks; k++)
				node_of[r++] = n;
		return 0;
	}
	if (!strncmp(distribution, "cyclic", 6))
		plane = 1;
	else if (!strncmp(distribution, "plane=", 6) &&
		 psiplace_parse_u64(distribution + 6, strlen(distribution + 6), UINT32_MAX, &u))
		plane = (uint32_t)u;
	if (!plane)
		return psiplace_seterr(err,
				       "distribution '%s': the node of each rank is not known (block, cyclic and plane=N are)",
				       distribution);
	if (!(left = malloc(nnodes * sizeof(*left))))
		return psiplace_seterr(err, "out of memory");
	memcpy(left, tasks_per_node, nnodes * sizeof(*left));
	while (r < ntasks)
		for (n = 0; n < nnodes && r < ntasks; n++)
			for (uint32_t k = 0; k < plane && left[n] && r < ntasks; k++, left[n]--)
				node_of[r++] = n;
	free(left);
	return 0;
}

/* psiplace://node/NAME of every node, each sized to its ranks: ranks per
 * node counted first (a set of ntasks entries per node held nnodes x ntasks
 * in every slurmstepd of a large step). */
static int node_sets(uint32_t ntasks, uint32_t nnodes, const char *const *node_names,
		     const uint32_t *node_of, struct psiplace_psets *out, psiplace_error_t *err)
{
	uint32_t *count = calloc(nnodes ? nnodes : 1, sizeof(*count)), r, n;
	size_t first = out->n;

	if (!count)
		return psiplace_seterr(err, "out of memory");
	for (r = 0; r < ntasks; r++) {
		if (node_of[r] >= nnodes) {
			free(count);
			return psiplace_seterr(err, "rank %u is on node %u of %u", r, node_of[r], nnodes);
		}
		count[node_of[r]]++;
	}
	for (n = 0; n < nnodes; n++) {
		size_t len = strlen(PSIPLACE_PSET_PREFIX "node/") + strlen(node_names[n]) + 1;
		char *name = malloc(len);
		uint32_t *ranks = malloc((count[n] ? count[n] : 1) * sizeof(*ranks));

		if (!name || !ranks) {
			free(name);
			free(ranks);
			free(count);
			return psiplace_seterr(err, "out of memory");
		}
		snprintf(name, len, PSIPLACE_PSET_PREFIX "node/%s", node_names[n]);
		if (add_set(out, name, ranks, 0, err) < 0) {
			free(count);
			return -1;
		}
	}
	free(count);
	for (r = 0; r < ntasks; r++) {
		struct psiplace_pset *p = &out->set[first + node_of[r]];

		p->ranks[p->n++] = r;
	}
	return 0;
}

int psiplace_psets_step(const struct psiplace_psets *user, uint32_t ntasks, uint32_t nnodes,
			const char *const *node_names, const uint32_t *node_of,
			struct psiplace_psets *out, psiplace_error_t *err)
{
	uint32_t *ranks, r;
	size_t i;
	char *name;

	psiplace_psets_init(out);
	for (i = 0; user && i < user->n; i++) {
		const struct psiplace_pset *u = &user->set[i];

		if (u->n && u->ranks[u->n - 1] >= ntasks) {
			psiplace_seterr(err, "set '%s' names rank %u; the step has %u task%s (ranks 0-%u)",
					u->name, u->ranks[u->n - 1], ntasks, ntasks == 1 ? "" : "s",
					ntasks ? ntasks - 1 : 0);
			goto fail;
		}
		if (!(name = strdup(u->name)) || !(ranks = malloc(u->n * sizeof(*ranks)))) {
			free(name);
			goto oom;
		}
		memcpy(ranks, u->ranks, u->n * sizeof(*ranks));
		if (add_set(out, name, ranks, u->n, err) < 0)
			goto fail;
	}
	if (!(name = strdup(PSIPLACE_PSET_PREFIX "all")) ||
	    !(ranks = malloc((ntasks ? ntasks : 1) * sizeof(*ranks)))) {
		free(name);
		goto oom;
	}
	for (r = 0; r < ntasks; r++)
		ranks[r] = r;
	if (add_set(out, name, ranks, ntasks, err) < 0)
		goto fail;
	if (node_of && node_sets(ntasks, nnodes, node_names, node_of, out, err) < 0)
		goto fail;
	return 0;
oom:
	psiplace_seterr(err, "out of memory");
fail:
	psiplace_psets_free(out);
	return -1;
}

int psiplace_psets_node_levels(const char *node, unsigned levels, size_t nlocal,
			       const uint32_t *ranks, const int *const obj[PSIPLACE_PSET_NLEVELS],
			       struct psiplace_psets *out, psiplace_error_t *err)
{
	int lv;
	size_t i, j;

	for (lv = 1; lv < PSIPLACE_PSET_NLEVELS; lv++) {
		int maxobj = -1;

		if (!(levels & (1u << lv)) || !obj[lv])
			continue;
		for (i = 0; i < nlocal; i++)
			if (obj[lv][i] > maxobj)
				maxobj = obj[lv][i];
		for (int o = 0; o <= maxobj; o++) {
			uint32_t *members = malloc((nlocal ? nlocal : 1) * sizeof(*members));
			size_t len = strlen(PSIPLACE_PSET_PREFIX "node///") + strlen(node) +
				     strlen(level_names[lv]) + 12;
			char *name = malloc(len);

			if (!members || !name) {
				free(members);
				free(name);
				return psiplace_seterr(err, "out of memory");
			}
			for (i = j = 0; i < nlocal; i++)
				if (obj[lv][i] == o)
					members[j++] = ranks[i];
			if (!j) { /* no task there: no set */
				free(members);
				free(name);
				continue;
			}
			snprintf(name, len, PSIPLACE_PSET_PREFIX "node/%s/%s/%d", node, level_names[lv], o);
			j = sort_unique(members, j);
			if (add_set(out, name, members, j, err) < 0)
				return -1;
		}
	}
	return 0;
}

int psiplace_psets_of_rank(const struct psiplace_psets *s, uint32_t rank, const char ***names,
			   size_t *n, psiplace_error_t *err)
{
	const char **v = malloc((s->n ? s->n : 1) * sizeof(*v));
	size_t i, k = 0;

	if (!v)
		return psiplace_seterr(err, "out of memory");
	for (i = 0; i < s->n; i++)
		if (bsearch(&rank, s->set[i].ranks, s->set[i].n, sizeof(uint32_t), cmp_u32))
			v[k++] = s->set[i].name;
	*names = v;
	*n = k;
	return 0;
}

int psiplace_pset_ranks_string(const struct psiplace_pset *s, char *buf, size_t len)
{
	return psiplace_idlist_format_cut(s->ranks, s->n, buf, len) < 0 ? -1 : 0;
}

int psiplace_pset_spawn_name(int step, char *buf, size_t len)
{
	if (step < 1 || snprintf(buf, len, PSIPLACE_PSET_PREFIX "spawn/%d", step) >= (int)len)
		return -1;
	return 0;
}
