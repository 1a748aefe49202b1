/* Gathering the LAMA request from options and OMPI_MCA_rmaps_lama_*
 * variables (an option always wins over its variable), and the checks
 * across strings.  Which name sets what comes from options.def. */
#include <stdio.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/lama.h"
#include "psiplace/options.h"

/* A LAMA name: an option of options.def with a LAMA setting, or one of
 * its variables.  *name_out is the table's static string (kept in the
 * options for messages).  0: not a LAMA name. */
static enum psiplace_lama_setting lama_name(const char *name, enum psiplace_lama_src *src,
					    const char **name_out)
{
	int i, v;

	for (i = 0; name && i < PSIPLACE_OPT_COUNT; i++) {
		const struct psiplace_opt_desc *d = &psiplace_opt_table[i];

		if (d->lama == PSIPLACE_LAMA_SET_NONE)
			continue;
		if (!strcmp(name, d->dashed)) {
			*src = PSIPLACE_LAMA_SRC_OPTION;
			*name_out = d->dashed;
			return d->lama;
		}
		for (v = 0; d->vars[v]; v++)
			if (!strcmp(name, d->vars[v])) {
				*src = PSIPLACE_LAMA_SRC_VAR;
				*name_out = d->vars[v];
				return d->lama;
			}
	}
	return PSIPLACE_LAMA_SET_NONE;
}

void psiplace_lama_opts_init(struct psiplace_lama_opts *o)
{
	memset(o, 0, sizeof(*o));
	psiplace_lama_parse_map(PSIPLACE_LAMA_DEFAULT_MAP, "default", o->map, &o->map_len, NULL);
	o->map_simple = 1;
	o->map_from = "the default map";
	o->bind_width = 1;
	o->bind_level = PSIPLACE_LEVEL_CORE;
	o->bind_from = "the default binding";
	psiplace_lama_map_string(o, o->map_str, sizeof(o->map_str));
}

/* Is a setting from `src` (by `name`) allowed to replace the current one?
 * 1 yes, 0 no (an option holds it), -1 conflict between two options. */
static int may_set(enum psiplace_lama_src cur, const char *cur_from, enum psiplace_lama_src src,
		   const char *name, psiplace_error_t *err)
{
	if (cur == PSIPLACE_LAMA_SRC_OPTION && src == PSIPLACE_LAMA_SRC_VAR)
		return 0;
	if (cur == PSIPLACE_LAMA_SRC_OPTION && cur_from && strcmp(cur_from, name))
		return psiplace_seterr(err, "%s and %s both given; use one of them",
				       cur_from, name);
	return 1;
}

static int apply_map(struct psiplace_lama_opts *o, const char *name, const char *value,
		     enum psiplace_lama_src src, int simple, psiplace_error_t *err)
{
	enum psiplace_level lv[PSIPLACE_LEVEL_COUNT];
	const char *s = value;
	unsigned n;
	int r = may_set(o->map_src, o->map_from, src, name, err);

	if (r <= 0)
		return r;
	if (simple && psiplace_lama_simple_map(value, name, &s, err) < 0)
		return -1;
	if (psiplace_lama_parse_map(s, name, lv, &n, err) < 0)
		return -1;
	memcpy(o->map, lv, sizeof(lv));
	o->map_len = n;
	o->map_src = src;
	o->map_simple = simple;
	o->map_from = name;
	psiplace_lama_map_string(o, o->map_str, sizeof(o->map_str));
	return 0;
}

static int apply_bind(struct psiplace_lama_opts *o, const char *name, const char *value,
		      enum psiplace_lama_src src, int simple, psiplace_error_t *err)
{
	enum psiplace_level l;
	unsigned w;
	int r = may_set(o->bind_src, o->bind_from, src, name, err);

	if (r <= 0)
		return r;
	if (simple ? psiplace_lama_simple_bind(value, name, &w, &l, err)
		   : psiplace_lama_parse_bind(value, name, &w, &l, err))
		return -1;
	o->bind_width = w;
	o->bind_level = l;
	o->bind_src = src;
	o->bind_from = name;
	return 0;
}

int psiplace_lama_apply(struct psiplace_lama_opts *o, const char *name, const char *value,
			psiplace_error_t *err)
{
	struct psiplace_lama_mppr m[PSIPLACE_LEVEL_COUNT];
	enum psiplace_lama_src src;
	enum psiplace_lama_setting set = lama_name(name, &src, &name);
	unsigned n;
	int seq, r = 0;
	char q[80];

	switch (set) {
	case PSIPLACE_LAMA_SET_NONE:
		psiplace_quote(q, sizeof(q), name ? name : "", 60);
		return psiplace_seterr(err, "'%s': not a LAMA option or variable", q);
	case PSIPLACE_LAMA_SET_OVERSUBSCRIBE:
		o->oversubscribe = 1;
		break;
	case PSIPLACE_LAMA_SET_MAP:
	case PSIPLACE_LAMA_SET_MAP_SIMPLE:
		r = apply_map(o, name, value, src, set == PSIPLACE_LAMA_SET_MAP_SIMPLE, err);
		break;
	case PSIPLACE_LAMA_SET_BIND:
	case PSIPLACE_LAMA_SET_BIND_SIMPLE:
		r = apply_bind(o, name, value, src, set == PSIPLACE_LAMA_SET_BIND_SIMPLE, err);
		break;
	case PSIPLACE_LAMA_SET_MPPR:
		r = may_set(o->mppr_src, NULL, src, name, err);
		if (r > 0 && (r = psiplace_lama_parse_mppr(value, name, m, &n, err)) == 0) {
			memcpy(o->mppr, m, sizeof(m));
			o->nmppr = n;
			o->mppr_src = src;
		}
		break;
	case PSIPLACE_LAMA_SET_ORDER:
		r = may_set(o->order_src, NULL, src, name, err);
		if (r > 0 && (r = psiplace_lama_parse_order(value, name, &seq, err)) == 0) {
			o->sequential = seq;
			o->order_src = src;
		}
		break;
	}
	if (r < 0)
		return -1;
	o->requested = 1;
	return 0;
}

static int map_has(const struct psiplace_lama_opts *o, enum psiplace_level l)
{
	unsigned i;

	for (i = 0; i < o->map_len; i++)
		if (o->map[i] == l)
			return 1;
	return 0;
}

int psiplace_lama_finish(struct psiplace_lama_opts *o, psiplace_error_t *err)
{
	char b[16];

	if (o->bind_width == 0 || map_has(o, o->bind_level))
		return 0;
	if (!o->map_simple) {
		psiplace_lama_bind_string(o, b, sizeof(b));
		return psiplace_seterr(err,
				       "%s: '%s' lacks '%s', the level of the binding '%s' (%s); a map must contain n, h and the binding level",
				       o->map_from, o->map_str, psiplace_level_letter(o->bind_level), b,
				       o->bind_from);
	}
	/* A simple level names only the loop that matters to the user: the
	 * binding level joins as the next loop out. */
	memmove(o->map + 2, o->map + 1, (o->map_len - 1) * sizeof(o->map[0]));
	o->map[1] = o->bind_level;
	o->map_len++;
	psiplace_lama_map_string(o, o->map_str, sizeof(o->map_str));
	return 0;
}

void psiplace_lama_map_string(const struct psiplace_lama_opts *o, char *buf, size_t len)
{
	size_t k = 0;
	unsigned i;

	if (!len)
		return;
	buf[0] = '\0';
	for (i = 0; i < o->map_len && k + 3 < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s", psiplace_level_letter(o->map[i]));
}

void psiplace_lama_bind_string(const struct psiplace_lama_opts *o, char *buf, size_t len)
{
	if (o->bind_width == 0)
		snprintf(buf, len, "none");
	else
		snprintf(buf, len, "%u%s", o->bind_width, psiplace_level_letter(o->bind_level));
}

void psiplace_lama_mppr_string(const struct psiplace_lama_opts *o, char *buf, size_t len)
{
	size_t k = 0;
	unsigned i;

	if (!len)
		return;
	snprintf(buf, len, "none");
	if (o->nmppr)
		buf[0] = '\0';
	for (i = 0; i < o->nmppr && k + 16 < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s%u:%s", i ? "," : "", o->mppr[i].limit,
				      psiplace_level_letter(o->mppr[i].level));
}
