/* What psiplace-malleabled remembers between cycles and restarts: per job
 * its range, last resize and outstanding order, and the decision id
 * counter, in a small text file in StateSaveLocation (md_model.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md_model.h"

#define STATE_MAGIC "psiplace-malleabled 1"

void psiplace_md_tracks_init(struct psiplace_md_tracks *T)
{
	memset(T, 0, sizeof(*T));
	T->next_id = 1;
}

void psiplace_md_tracks_free(struct psiplace_md_tracks *T)
{
	free(T->t);
	free(T->holds);
	psiplace_md_tracks_init(T);
}

int psiplace_md_hold_add(struct psiplace_md_tracks *T, uint32_t job, int64_t until,
			 const char *nodes)
{
	struct psiplace_md_hold *h;

	/* the same acknowledgement read again (its order adopted again after
	 * a write slurmctld lost): the hold stands, its time not extended */
	for (size_t i = 0; i < T->nholds; i++)
		if (T->holds[i].job == job && !strcmp(T->holds[i].nodes, nodes))
			return 0;
	if (T->nholds == T->capholds) {
		size_t cap = T->capholds ? 2 * T->capholds : 8;

		if (!(h = realloc(T->holds, cap * sizeof(*h))))
			return -1;
		T->holds = h;
		T->capholds = cap;
	}
	h = &T->holds[T->nholds++];
	h->job = job;
	h->until = until;
	snprintf(h->nodes, sizeof(h->nodes), "%s", nodes);
	return 0;
}

struct psiplace_md_track *psiplace_md_track_of(struct psiplace_md_tracks *T, uint32_t job,
					       bool add)
{
	size_t lo = 0, hi = T->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (T->t[mid].job == job)
			return &T->t[mid];
		if (T->t[mid].job < job)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!add)
		return NULL;
	if (T->n == T->cap) {
		size_t cap = T->cap ? 2 * T->cap : 16;
		struct psiplace_md_track *t = realloc(T->t, cap * sizeof(*t));

		if (!t)
			return NULL;
		T->t = t;
		T->cap = cap;
	}
	memmove(&T->t[lo + 1], &T->t[lo], (T->n - lo) * sizeof(*T->t));
	T->n++;
	memset(&T->t[lo], 0, sizeof(T->t[lo]));
	T->t[lo].job = job;
	return &T->t[lo];
}

long psiplace_md_tracks_format(const struct psiplace_md_tracks *T, char **out)
{
	size_t cap = 64 + T->n * (PSIPLACE_RCHAN_LINE_MAX + 120) +
		     T->nholds * (PSIPLACE_RCHAN_NODES_MAX + 48),
	       len = 0;
	char *buf = malloc(cap), order[PSIPLACE_RCHAN_LINE_MAX], extra[48];
	int n;

	*out = NULL;
	if (!buf)
		return -1;
	len = (size_t)snprintf(buf, cap, STATE_MAGIC "\nnext_id %" PRIu64 "\n", T->next_id);
	for (size_t i = 0; i < T->n; i++) {
		const struct psiplace_md_track *t = &T->t[i];

		if (!t->order.id || psiplace_rchan_order_format(&t->order, order, sizeof(order)) < 0)
			strcpy(order, "-");
		extra[0] = 0;
		if (t->refusals)
			snprintf(extra, sizeof(extra), " %" PRIu32 " %" PRId64, t->refusals,
				 t->no_shrink_until);
		n = snprintf(buf + len, cap - len,
			     "job %" PRIu32 " %" PRIu32 " %" PRIu32 " %" PRId64 " %s%s\n", t->job,
			     t->min, t->max, t->last_resize, order, extra);
		if (n < 0 || (size_t)n >= cap - len) {
			free(buf);
			return -1;
		}
		len += (size_t)n;
	}
	for (size_t i = 0; i < T->nholds; i++) {
		const struct psiplace_md_hold *h = &T->holds[i];

		n = snprintf(buf + len, cap - len, "hold %" PRIu32 " %" PRId64 " %s\n", h->job,
			     h->until, h->nodes);
		if (n < 0 || (size_t)n >= cap - len) {
			free(buf);
			return -1;
		}
		len += (size_t)n;
	}
	*out = buf;
	return (long)len;
}

static int track_line(char *line, const char *file, int lineno, struct psiplace_md_tracks *T,
		      psiplace_error_t *err)
{
	uint32_t job, min, max, refusals = 0;
	int64_t last, until = 0;
	char order[PSIPLACE_RCHAN_LINE_MAX];
	int used = 0, more = 0;
	struct psiplace_md_track *t;
	psiplace_error_t oerr;

	if (strlen(line) >= sizeof(order) ||
	    sscanf(line, "job %" SCNu32 " %" SCNu32 " %" SCNu32 " %" SCNd64 " %s%n", &job, &min,
		   &max, &last, order, &used) != 5 ||
	    (line[used] &&
	     (sscanf(line + used, " %" SCNu32 " %" SCNd64 "%n", &refusals, &until, &more) != 2 ||
	      line[used + more] || !refusals)) ||
	    !job || min > max)
		return psiplace_seterr_line(err, file, lineno,
					    "not 'job J MIN MAX LAST_RESIZE ORDER|- "
					    "[REFUSALS NO_SHRINK_UNTIL]':",
					    line);
	if (psiplace_md_track_of(T, job, false))
		return psiplace_seterr_line(err, file, lineno, "a second line for job", line);
	if (!(t = psiplace_md_track_of(T, job, true)))
		return psiplace_seterr(err, "%s: out of memory", file);
	t->min = min;
	t->max = max;
	t->last_resize = last;
	t->refusals = refusals;
	t->no_shrink_until = until;
	if (strcmp(order, "-") && psiplace_rchan_order_parse(order, &t->order, &oerr) != 1)
		return psiplace_seterr_linef(err, file, lineno, "%s", oerr.text);
	if (t->order.id >= T->next_id)
		T->next_id = t->order.id + 1;
	return 0;
}

static int hold_line(const char *line, const char *file, int lineno, struct psiplace_md_tracks *T,
		     psiplace_error_t *err)
{
	uint32_t job;
	int64_t until;
	char nodes[PSIPLACE_RCHAN_NODES_MAX + 64]; /* the whole line fits: %s cannot overflow */
	int used = 0;

	if (strlen(line) >= sizeof(nodes) ||
	    sscanf(line, "hold %" SCNu32 " %" SCNd64 " %s%n", &job, &until, nodes, &used) != 3 ||
	    line[used] || !job || strlen(nodes) >= PSIPLACE_RCHAN_NODES_MAX)
		return psiplace_seterr_line(err, file, lineno, "not 'hold JOB UNTIL NODES':", line);
	if (psiplace_md_hold_add(T, job, until, nodes) < 0)
		return psiplace_seterr(err, "%s: out of memory", file);
	return 0;
}

int psiplace_md_tracks_parse(const char *text, const char *file, struct psiplace_md_tracks *T,
			     psiplace_error_t *err)
{
	char *copy = strdup(text), *save = NULL, *line;
	int lineno = 0, rc = 0;

	psiplace_md_tracks_free(T);
	if (!copy)
		return psiplace_seterr(err, "%s: out of memory", file);
	for (line = strtok_r(copy, "\n", &save); line && !rc; line = strtok_r(NULL, "\n", &save)) {
		uint64_t id;
		int used = 0;

		lineno++;
		if (lineno == 1) {
			if (strcmp(line, STATE_MAGIC))
				rc = psiplace_seterr_line(err, file, 1, "not a state file of this "
									"daemon (expected '" STATE_MAGIC "'):",
							  line);
		} else if (lineno == 2) {
			if (sscanf(line, "next_id %" SCNu64 "%n", &id, &used) != 1 || line[used] ||
			    !id)
				rc = psiplace_seterr_line(err, file, 2, "not 'next_id N' (N >= 1):",
							  line);
			else if (id > T->next_id)
				T->next_id = id;
		} else if (!strncmp(line, "hold ", 5)) {
			rc = hold_line(line, file, lineno, T, err);
		} else {
			rc = track_line(line, file, lineno, T, err);
		}
	}
	if (!rc && lineno < 2)
		rc = psiplace_seterr(err, "%s: truncated (no next_id line)", file);
	free(copy);
	if (rc)
		psiplace_md_tracks_free(T);
	return rc;
}
