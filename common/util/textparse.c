/* Total parsers for numbers and config words. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/textparse.h"

bool psiplace_parse_double(const char *s, size_t n, double *out)
{
	char buf[72];
	size_t i = 0, digits = 0;
	char *end;

	if (!n || n > 64)
		return false;
	/* check the shape ourselves: strtod also takes hex, inf, nan, blanks */
	if (s[i] == '+' || s[i] == '-')
		i++;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		digits++;
	if (i < n && s[i] == '.')
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			digits++;
	if (!digits)
		return false;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		size_t e = 0;

		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			e++;
		if (!e)
			return false;
	}
	if (i != n)
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	*out = strtod(buf, &end);
	return *end == '\0' && isfinite(*out) && !(errno == ERANGE && fabs(*out) > 1.0);
}

bool psiplace_parse_u64(const char *s, size_t n, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (!n || n > 20)
		return false;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		if (v > (max - (uint64_t)(s[i] - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return true;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

char *psiplace_next_word(char **cursor)
{
	char *s = *cursor, *w;

	while (*s && blank(*s))
		s++;
	if (!*s) {
		*cursor = s;
		return NULL;
	}
	w = s;
	while (*s && !blank(*s))
		s++;
	if (*s)
		*s++ = '\0';
	*cursor = s;
	return w;
}

void psiplace_lines_init(struct psiplace_lines *it, const char *text, size_t len)
{
	it->text = text;
	it->len = text ? len : 0;
	it->pos = 0;
	it->lineno = 0;
}

bool psiplace_lines_next(struct psiplace_lines *it, const char **line, size_t *n, bool *complete)
{
	const char *start, *nl;

	if (it->pos >= it->len)
		return false;
	start = it->text + it->pos;
	nl = memchr(start, '\n', it->len - it->pos);
	*line = start;
	*n = nl ? (size_t)(nl - start) : it->len - it->pos;
	if (complete)
		*complete = nl != NULL;
	it->pos += *n + (nl ? 1 : 0);
	it->lineno++;
	return true;
}

int psiplace_split_words(char *line, char **words, int max, int *nwords, psiplace_error_t *err)
{
	char *r = line, *w = line;
	int n = 0;
	bool quoted = false, inword = false;

	*nwords = 0;
	for (; *r; r++) {
		char c = *r;

		if (!quoted && c == '#')
			break;
		if (!quoted && (c == ' ' || c == '\t' || c == '\r' || c == '\n')) {
			if (inword) {
				*w++ = '\0';
				inword = false;
			}
			continue;
		}
		if (!inword) {
			if (n >= max)
				return psiplace_seterr(err, "more than %d words", max);
			words[n++] = w;
			inword = true;
		}
		if (c == '"') {
			quoted = !quoted;
			continue;
		}
		*w++ = c;
	}
	if (quoted)
		return psiplace_seterr(err, "unterminated double quote");
	*w = '\0';
	*nwords = n;
	return 0;
}

bool psiplace_word_in_list(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p = list;

	while (p && *p) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);

		if (l == n && !memcmp(p, word, n))
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}
