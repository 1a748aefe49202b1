/* The psiplace command's one JSON writer (see json_out.h). */
#include <stdlib.h>
#include <string.h>

#include "json_out.h"
#include "utf8.h"

json_t *cli_json_str(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char *clean, *o;
	json_t *v;
	size_t n;

	if (!s)
		return json_null();
	if ((v = json_string(s)))
		return v;
	/* not UTF-8: each bad byte becomes U+FFFD (3 bytes) */
	if (!(clean = malloc(strlen(s) * 3 + 1)))
		return NULL;
	for (o = clean; *p; p += n) {
		if ((n = cli_utf8_len(p))) {
			memcpy(o, p, n);
			o += n;
		} else {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			n = 1;
		}
	}
	*o = '\0';
	v = json_string(clean);
	free(clean);
	return v;
}

void cli_json_set(json_t *o, const char *key, json_t *v, int *bad)
{
	if (!o) /* jansson's *_new calls take v even when they fail */
		json_decref(v);
	if (!o || !v || json_object_set_new(o, key, v) < 0)
		*bad = 1;
}

void cli_json_append(json_t *a, json_t *v, int *bad)
{
	if (!a)
		json_decref(v);
	if (!a || !v || json_array_append_new(a, v) < 0)
		*bad = 1;
}

static int dump(FILE *f, const json_t *v)
{
	return json_dumpf(v, f, JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);
}

static int one_per_line(const json_t *a)
{
	return json_is_array(a) && json_array_size(a) > 0 &&
	       (json_is_object(json_array_get(a, 0)) || json_is_array(json_array_get(a, 0)));
}

static int key(FILE *f, const char *k)
{
	json_t *s = cli_json_str(k);
	int rc;

	if (!s)
		return -1;
	rc = dump(f, s);
	json_decref(s);
	fputs(": ", f);
	return rc;
}

int cli_json_print(FILE *f, json_t *doc)
{
	const char *k;
	json_t *v;
	size_t left, i;
	int rc = 0;

	if (!doc || !json_is_object(doc)) {
		json_decref(doc);
		return -1;
	}
	fputs("{\n", f);
	left = json_object_size(doc);
	json_object_foreach(doc, k, v) {
		fputs("  ", f);
		rc |= key(f, k);
		if (one_per_line(v)) {
			fputs("[\n", f);
			for (i = 0; i < json_array_size(v); i++) {
				fputs("    ", f);
				rc |= dump(f, json_array_get(v, i));
				fputs(i + 1 < json_array_size(v) ? ",\n" : "\n", f);
			}
			fputs("  ]", f);
		} else {
			rc |= dump(f, v);
		}
		fputs(--left ? ",\n" : "\n", f);
	}
	fputs("}\n", f);
	json_decref(doc);
	return rc ? -1 : 0;
}
